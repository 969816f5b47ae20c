"""ranx (AmenRa/ranx): its NDCG presets and the tie policy of its run sorting (numba's
unstable quicksort, replayed per query: :mod:`evalkit.quicksort`)."""

from __future__ import annotations

import numpy as np

from ..components import Param, Preset, TiePolicy, declared, tie_policy
from ..hookspecs import hookimpl
from ..kernel import SortKeys

_RANX = "AmenRa/ranx ranx/metrics/ndcg.py"


@tie_policy(
    "numba_quicksort",
    params=(Param("sorts", "int", 1, "how many times the run was sorted, each pass on the "
                  "previous output (ranx: 1 = Run(...), 2 = after Run.make_comparable)",
                  minimum=1, maximum=4),),
    formula="per query: numba np.argsort(-scores in input order) (quicksort: median-of-three "
            "pivot, Hoare partition; insertion sort below 16 elements)",
    source="ranx 0.3.21 data_structures/common.py sort_dict_by_value (typed_list_argosrt of "
           "[-v for v in values]); numba misc/quicksort.py make_quicksort_impl "
           "(SMALL_QUICKSORT = 15, partition, insertion_sort)",
    description="numba's unstable quicksort, as ranx sorts a run: tied documents in input "
                "order up to 15 documents, shuffled deterministically beyond",
)
def numba_quicksort(keys: SortKeys, sorts: int = 1) -> np.ndarray:
    """numba's ``np.argsort`` of ``-score`` per query, scores in input order (ranx's
    ``sort_dict_by_value``), applied ``sorts`` times (each pass sorts the previous
    pass's output: ``ranx.Run`` sorts on creation, ``Run.make_comparable`` sorts
    again). Queries without tied scores, and queries of at most 15 documents (where
    numba uses an insertion sort), come out as under ``stable``; the quicksort is
    replayed only on the queries of 16 or more documents that have ties, all of them
    at once (:func:`evalkit.quicksort.quicksort_argsort`, vectorised over queries; its
    loop runs over recursion levels)."""
    from ..columnar import offsets_from_sorted
    from ..quicksort import SMALL_QUICKSORT, quicksort_argsort

    order = keys.score_order()
    n = len(order)
    if n <= SMALL_QUICKSORT:
        return order
    take = keys.gatherer(order)
    s, q = take(keys.score), take(keys.query)
    same = (s[1:] == s[:-1]) & (q[1:] == q[:-1])
    if not same.any():
        return order
    n_queries = int(q.max()) + 1
    tied = np.zeros(n_queries, dtype=bool)
    tied[q[1:][same]] = True
    tied &= np.bincount(q, minlength=n_queries) > SMALL_QUICKSORT
    if not tied.any():
        return order
    base = keys.query_order()  # grouped by query as `order` is, input order within a query
    where = np.flatnonzero(tied[keys.query[base]])
    rows = base[where]
    offsets = offsets_from_sorted(np.unique(keys.query[rows], return_inverse=True)[1],
                                  int(tied.sum()))
    for _ in range(sorts):
        rows = rows[quicksort_argsort(-keys.score[rows], offsets)]
    out = order.copy()
    out[where] = rows
    return out


#: ranx's presets
PRESETS: tuple[Preset, ...] = (
    # ------------------------------------------------------------------ ranx
    Preset(
        name="ranx.ndcg",
        spec="ndcg(gain=linear,discount=log2,idcg=judged,ties=numba_quicksort(sorts=2),missing=zero)",
        description="ranx 'ndcg' (Järvelin et al. formulation): linear gain, 1/log2(r+1), IDCG from "
                    "the qrels; judgments below rel_lvl (-l, default 1) count 0: add min_grade=l; "
                    "as ranx.evaluate(..., make_comparable=True) computes it: missing queries 0, the "
                    "run sorted twice by numba's quicksort (ties=numba_quicksort(sorts=1) without "
                    "make_comparable)",
        source=f"{_RANX} (_dcg jarvelin=True, _idcg = _dcg(qrels, qrels)), ranx/metrics/common.py "
               "clean_qrels, ranx/data_structures/common.py sort_dict_by_value, "
               "ranx/data_structures/run.py (__init__: create_and_sort; make_comparable: self.sort())",
        native_name="ndcg@{k}",
    ),
    Preset(
        name="ranx.ndcg_burges",
        spec="ndcg(gain=exp2,discount=log2,idcg=judged,ties=numba_quicksort(sorts=2),missing=zero)",
        description="ranx 'ndcg_burges': exponential gain 2^rel - 1, otherwise as ranx.ndcg",
        source=f"{_RANX} (_dcg jarvelin=False: '(2**weighted_hit_list - 1)')",
        native_name="ndcg_burges@{k}",
    ),
)


@hookimpl
def evalkit_register_tie_policies():
    return declared(__name__, TiePolicy)


@hookimpl
def evalkit_register_presets(register):
    for preset in PRESETS:
        register(preset)
