"""Built-in tie policies: how documents with equal scores are ordered.

Each returns a permutation of the run's rows, grouped by query, rank 1 first.
``np.lexsort`` sorts by its *last* key first.
"""

from __future__ import annotations

import numpy as np

from ..components import Param, TiePolicy, declared, tie_policy
from ..float32 import scores_as_float32
from ..kernel import SortKeys
from .._builtin_hookimpl import hookimpl
from typing import Any

def _score_precision(float32_user: str) -> Param:
    """The ``score`` parameter: the precision scores are compared at."""
    return Param("score", "str", "float64",
                 f"precision the scores are compared at: float64, or float32 as {float32_user}",
                 choices=("float64", "float32"))


def _filled(grade: np.ndarray) -> np.ndarray:
    """Grades as ties compare them under ``negative=zero``: unjudged and negative -> 0."""
    return np.where(np.isnan(grade) | (grade < 0), 0.0, grade)


def _signed(grade: np.ndarray) -> np.ndarray:
    """Grades as ties compare them under ``negative=gain``: unjudged -> 0, a negative
    grade keeps its value (it ranks below 0, as its gain does)."""
    return np.where(np.isnan(grade), 0.0, grade)


#: the ``negative`` parameter of ``optimistic`` / ``pessimistic``: how a negative grade
#: compares within tied scores; it must match the flavour's ``negative`` convention
#: when that is ``gain`` (checked when the flavour is built, :mod:`evalkit.flavour`)
NEGATIVE_TIES = Param(
    "negative", "str", "zero",
    "how a negative grade compares within tied scores: zero = as grade 0 (the flavour's "
    "negative=zero: its gain is 0); gain = by its value, below 0 (the flavour's negative=gain: "
    "its gain is negative; CatBoost CompareDocs)",
    choices=("zero", "gain"))


def _tie_grade(negative: str) -> Any:
    return _signed if negative == "gain" else _filled


@tie_policy(
    "input",
    formula="keep the order of the run's lines",
    source="ranked lists used as given (the run is already a ranking)",
    description="the run's own order; scores are ignored",
)
def input_order(keys: SortKeys) -> np.ndarray:
    return keys.query_order()  # np.lexsort((keys.line, keys.query)), O(n) when grouped


def _scores(keys: SortKeys, score: str) -> np.ndarray:
    """Scores at the precision a library stores them: ``float32`` rounds each
    ``float64`` score to the nearest ``float32`` (as a C ``float sim`` does)."""
    if score == "float32":
        return scores_as_float32(keys.score).astype(np.float64)
    return keys.score


@tie_policy(
    "rank",
    needs_rank=True,
    formula="sort by the run's rank column ascending (per query); two documents of a query "
            "with the same rank are an error",
    source="ndeval (pyndeval 0.0.8 src/ndeval.c = trec-web-2014 src/eval/ndeval.c) "
           "resultCompareByRank 420-430 (topic, then rank), resultSortByRank 435-439 and its "
           "use in processRun 1099-1106 ('duplicate rank ... in run file' is fatal), "
           "naturalNumber 218-237 (ranks are non-negative integers); scores are ignored",
    description="the run's rank column (ndeval's default order; the TREC Web track's "
                "official numbers); needs the run read with keep_rank=True",
)
def rank(keys: SortKeys) -> np.ndarray:
    """Each query's documents by their rank column, ascending: ndeval's default order
    (``resultSortByRank``, a ``qsort`` on ``(topic, rank)``). ndeval refuses a run in
    which two documents of a topic share a rank, so its ``qsort`` never meets equal
    keys and the order is fully determined; evalkit raises
    :class:`~evalkit.errors.RankColumnError` for them too (the rows sort stably by
    line first, so the error names the first two lines sharing the rank). Ranks need
    not start at 1 nor be contiguous (ndeval only sorts them; ``0`` is allowed).

    :raises RankColumnError: the run has no rank column, or a query has two documents
        with the same rank.
    """
    from ..errors import RankColumnError

    order = keys.rank_order()
    if len(order) < 2:
        return order
    take = keys.gatherer(order)
    r, q = take(keys.rank), take(keys.query)
    dup = np.flatnonzero((r[1:] == r[:-1]) & (q[1:] == q[:-1]))
    if len(dup):
        i = int(dup[0])
        rows = keys.line[order[[i, i + 1]]]
        raise RankColumnError(f"two documents of one query share rank {int(r[i])} (ndeval refuses duplicate "
                              "ranks: ndeval.c:1099-1106)", rows=rows, rank=int(r[i]))
    return order


@tie_policy(
    "trec_eval",
    params=(_score_precision("pytrec_eval stores them (C 'float sim' in trec_format.h; more ties)"),),
    formula="sort by score descending, then docno descending (strcmp); rank column ignored",
    source="trec_eval form_res_rels.c comp_sim_docno; pytrec_eval src/pytrec_eval.cpp "
               "(pair->sim = PyFloat_AsDouble(...) into TEXT_RESULTS.sim, a float)",
    description="deterministic trec_eval ordering",
)
def trec_eval(keys: SortKeys, score: str = "float64") -> np.ndarray:
    # np.lexsort((-keys.docno, -score, keys.query)); docnos are compared for tied rows only
    s = _scores(keys, score)
    return keys.refined_score_order(s, sort=keys.docno_sorter(descending=True))


@tie_policy(
    "stable",
    params=(_score_precision("XGBoost stores its predictions (HostDeviceVector<float>)"),),
    formula="sort by score descending; tied documents keep their input order",
    source="LightGBM, XGBoost, RankLib (stable sorts by score)",
    description="stable sort by score",
)
def stable(keys: SortKeys, score: str = "float64") -> np.ndarray:
    s = _scores(keys, score)
    return keys.score_order(s)  # np.lexsort((keys.line, -s, keys.query))


@tie_policy(
    "docno_ascending",
    formula="sort by score descending, then docno ascending (byte order)",
    source="pyndeval 0.0.8 __init__.py _coerce_run_iter (sorted(key=lambda x: (-x[1], x[0])))",
    description="score, then docno ascending (pyndeval, hence ir_measures' diversity measures)",
)
def docno_ascending(keys: SortKeys) -> np.ndarray:
    # np.lexsort((keys.docno, -keys.score, keys.query)); docnos compared for tied rows only
    return keys.refined_score_order(sort=keys.docno_sorter())


@tie_policy(
    "average",
    averaged=True,
    params=(_score_precision("allRank, pytorchltr and TorchRec hold them (torch float32 tensors: "
                             "scores equal as float32 tie)"),),
    formula="E[metric] over all orderings of tied documents: discount averaged over each tie block",
    source="McSherry & Najork, ECIR 2008; scikit-learn ndcg_score(ignore_ties=False)",
    description="expected value under random tie-breaking",
)
def by_score(keys: SortKeys, score: str = "float64") -> np.ndarray:
    """Score descending, tied rows in line order; the engine averages the discount over
    each block of scores equal at the ``score`` precision (``float32``: the engine's
    tie blocks are taken from the scores rounded to ``float32`` too)."""
    s = _scores(keys, score)
    return keys.score_order(s)  # np.lexsort((keys.line, -s, keys.query))


@tie_policy(
    "optimistic",
    params=(NEGATIVE_TIES,),
    formula="ties: highest grade first (unjudged as 0; negative grades as 0, or by their "
            "value with negative=gain), then input order",
    source="best case within ties (McSherry & Najork 2008)",
    description="upper bound over tie orderings",
)
def optimistic(keys: SortKeys, negative: str = "zero") -> np.ndarray:
    # np.lexsort((keys.line, -_filled(keys.grade), -keys.score, keys.query));
    # negative="gain": _signed instead of _filled
    grade = _tie_grade(negative)
    return keys.refined_score_order(key=lambda rows: -grade(keys.grade_at(rows)))


@tie_policy(
    "pessimistic",
    params=(NEGATIVE_TIES,),
    formula="ties: lowest grade first (unjudged as 0; negative grades as 0, or by their "
            "value with negative=gain), then input order",
    source="worst case within ties (McSherry & Najork 2008); negative=gain: CatBoost 1.2.10 "
           "catboost/libs/metrics/doc_comparator.h CompareDocs (equal predictions: the lower "
           "target first, negative targets included)",
    description="lower bound over tie orderings",
)
def pessimistic(keys: SortKeys, negative: str = "zero") -> np.ndarray:
    # np.lexsort((keys.line, _filled(keys.grade), -keys.score, keys.query));
    # negative="gain": _signed instead of _filled
    grade = _tie_grade(negative)
    return keys.refined_score_order(key=lambda rows: grade(keys.grade_at(rows)))


@hookimpl
def evalkit_register_tie_policies() -> Any:
    return declared(__name__, TiePolicy)
