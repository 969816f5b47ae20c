"""ranx (AmenRa/ranx): its NDCG presets and the tie policy of its run sorting (numba's
unstable quicksort, replayed per query: :mod:`evalkit.quicksort`)."""

from __future__ import annotations

import numpy as np

from ..components import Param, Preset, TiePolicy, declared, tie_policy
from .._builtin_hookimpl import hookimpl
from ..kernel import SortKeys
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from ..hookspecs import Register

_RANX = "AmenRa/ranx ranx/metrics/ndcg.py"


@tie_policy(
    "numba_quicksort",
    params=(Param("sorts", "int", 1, "how many times the run was sorted, each pass on the "
                  "previous output (ranx: 1 = a Run from Run.from_file, from_dict, from_df, "
                  "from_parquet, Run(dict) or add_score, then ranx.evaluate(qrels, run); 2 = the "
                  "same with make_comparable=True, which sorts again)",
                  minimum=1, maximum=4),
            Param("key", "str", "negated",
                  "what numba sorts: negated = np.argsort(-scores) (a ranx Run: "
                  "sort_dict_by_value); reversed = np.argsort(scores)[::-1] (plain dicts "
                  "given to ranx.evaluate: utils.descending_sort; tied documents of up to 15 "
                  "come out in reverse input order)",
                  choices=("negated", "reversed")),
            Param("added", "str", "no",
                  "yes: the run was built by one Run.add (add_multi) call per query, in the "
                  "order of the queries' first lines; each call sorts every query added so "
                  "far (add_and_sort), so the query added i-th of N (0-based) is sorted "
                  "N - i times instead of once (sorts - 1 passes follow); N counts the run's "
                  "queries that have judgments (ranx without make_comparable needs the same "
                  "queries in run and qrels)",
                  choices=("no", "yes"))),
    formula="per query: numba np.argsort(-scores in input order) (quicksort: median-of-three "
            "pivot, Hoare partition; insertion sort below 16 elements), `sorts` times; "
            "key=reversed: np.argsort(scores)[::-1]; added=yes: N - i + sorts - 1 times for "
            "the query added i-th of N",
    source="ranx 0.3.21 data_structures/common.py sort_dict_by_value (typed_list_argosrt of "
           "[-v for v in values]), create_and_sort, add_and_sort; data_structures/run.py "
           "(__init__, from_dict: create_and_sort; add_multi: add_and_sort; make_comparable: "
           "self.sort()); utils.py descending_sort (x[np.argsort(x[:, 1])[::-1]], for dicts "
           "given to meta/evaluate.py convert_run); numba misc/quicksort.py "
           "make_quicksort_impl (SMALL_QUICKSORT = 15, partition, insertion_sort)",
    description="numba's unstable quicksort, as ranx sorts a run: tied documents in input "
                "order up to 15 documents, shuffled deterministically beyond",
)
def numba_quicksort(keys: SortKeys, sorts: int = 1, key: str = "negated", added: str = "no") -> np.ndarray:
    """numba's ``np.argsort`` of ``-score`` per query, scores in input order (ranx's
    ``sort_dict_by_value``), applied ``sorts`` times (each pass sorts the previous
    pass's output: ``ranx.Run`` sorts on creation, ``Run.make_comparable`` sorts
    again). ``key="reversed"``: ``np.argsort(score)[::-1]`` instead (ranx's
    ``descending_sort``, for plain dicts given to ``ranx.evaluate``). ``added="yes"``:
    the query whose first line comes ``i``-th among the run's ``N`` queries is sorted
    ``N - i + sorts - 1`` times (``Run.add`` once per query: ``add_and_sort`` re-sorts
    every query added so far; repeated passes do not settle: tied documents cycle).

    Queries without tied scores, and (``key="negated"``) queries of at most 15
    documents (where numba uses a stable insertion sort), come out as under
    ``stable``; the quicksort is replayed only on the other queries, all of them at
    once per pass (:func:`evalkit.quicksort.quicksort_argsort`, vectorised over
    queries; its loop runs over recursion levels, the loop here over passes).

    :returns: ``int64`` ``(n,)`` permutation of the rows, grouped by query, rank 1 first.
    """
    from ..columnar import concat_ranges, offsets_from_sorted
    from ..quicksort import SMALL_QUICKSORT, quicksort_argsort

    order = keys.score_order()
    n = len(order)
    smallest = 1 if key == "reversed" else SMALL_QUICKSORT  # insertion sort keeps ties in order
    if n <= smallest:
        return order
    take = keys.gatherer(order)
    s, q = take(keys.score), take(keys.query)
    same = (s[1:] == s[:-1]) & (q[1:] == q[:-1])
    if not same.any():
        return order
    n_queries = int(q.max()) + 1
    size = np.bincount(q, minlength=n_queries)
    tied = np.zeros(n_queries, dtype=bool)
    tied[q[1:][same]] = True
    tied &= size > smallest
    if not tied.any():
        return order
    passes = np.full(n_queries, sorts, dtype=np.int64)
    if added == "yes":
        present = np.flatnonzero(size > 0)
        first = np.full(n_queries, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(first, keys.query, keys.line)
        position = np.empty(n_queries, dtype=np.int64)
        position[present[np.argsort(first[present], kind="stable")]] = np.arange(len(present))
        passes = len(present) - position + sorts - 1
    base = keys.query_order()  # grouped by query as `order` is, input order within a query
    where = np.flatnonzero(tied[keys.query[base]])
    rows = base[where]
    tied_ids = np.flatnonzero(tied)
    offsets = offsets_from_sorted(np.searchsorted(tied_ids, keys.query[rows]), len(tied_ids))
    passes = passes[tied_ids]
    sub: slice | np.ndarray
    for p in range(int(passes.max())):
        active = passes > p
        if active.all():
            sub, sub_offsets = slice(None), offsets
        else:
            lengths = np.diff(offsets)[active]
            sub = concat_ranges(offsets[:-1][active], lengths)
            sub_offsets = np.concatenate(([0], np.cumsum(lengths)))
        part = rows[sub]
        if key == "reversed":
            perm = quicksort_argsort(keys.score[part], sub_offsets)
            seg_of = np.repeat(np.arange(len(sub_offsets) - 1), np.diff(sub_offsets))
            perm = perm[sub_offsets[seg_of] + sub_offsets[seg_of + 1] - 1 - np.arange(len(perm))]
        else:
            perm = quicksort_argsort(-keys.score[part], sub_offsets)
        rows[sub] = part[perm]
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
    Preset(
        name="ranx.ndcg_sorted_once",
        spec="ndcg(gain=linear,discount=log2,idcg=judged,ties=numba_quicksort,missing=error)",
        description="ranx 'ndcg' as ranx.evaluate(qrels, run, 'ndcg@k') computes it by default "
                    "(make_comparable=False) on a Run from Run.from_file, from_dict, from_df, "
                    "from_parquet, Run(dict) or add_score: the run sorted once by numba's quicksort; "
                    "ranx asserts that run and qrels have the same queries (a qrels query missing "
                    "from the run is an error here; a run query without judgments is left out here, "
                    "ranx refuses the run)",
        source=f"{_RANX}, ranx/meta/evaluate.py check_keys, ranx/data_structures/run.py "
               "(from_dict: create_and_sort), ranx/data_structures/common.py sort_dict_by_value",
        native_name="ndcg@{k}",
    ),
    Preset(
        name="ranx.ndcg_burges_sorted_once",
        spec="ndcg(gain=exp2,discount=log2,idcg=judged,ties=numba_quicksort,missing=error)",
        description="ranx 'ndcg_burges' as ranx.evaluate computes it by default "
                    "(make_comparable=False): as ranx.ndcg_sorted_once with exponential gain",
        source=f"{_RANX} (_dcg jarvelin=False), ranx/meta/evaluate.py check_keys",
        native_name="ndcg_burges@{k}",
    ),
)


@hookimpl
def evalkit_register_tie_policies() -> Any:
    return declared(__name__, TiePolicy)


@hookimpl
def evalkit_register_presets(register: Register) -> None:
    for preset in PRESETS:
        register(preset)
