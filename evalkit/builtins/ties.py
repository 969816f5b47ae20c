"""Built-in tie policies: how documents with equal scores are ordered.

Each returns a permutation of the run's rows, grouped by query, rank 1 first.
``np.lexsort`` sorts by its *last* key first.
"""

from __future__ import annotations

import numpy as np

from ..components import Param, TiePolicy, declared, tie_policy
from ..float32 import scores_as_float32
from ..columnar import distinct
from ..kernel import SortKeys
from ..hookspecs import hookimpl

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


def _tie_grade(negative: str):
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


@tie_policy(
    "numpy_argsort",
    formula="per query: np.argsort(scores in input order)[::-1]",
    source="scikit-learn metrics/_ranking.py _dcg_sample_scores(ignore_ties=True): "
               "ranking = np.argsort(y_score)[:, ::-1]",
    description="numpy's default argsort, reversed: tie order depends on the numpy build and CPU",
)
def numpy_argsort(keys: SortKeys) -> np.ndarray:
    """``np.argsort(scores)[::-1]`` per query, scores in input order (scikit-learn's
    ``ignore_ties=True``). Queries of equal length are sorted together as the rows of
    one 2-D array (numpy sorts each row independently), so the loop runs over
    distinct query lengths, never over queries."""
    base = keys.query_order()  # by query, then input order
    query = keys.query[base]
    n = len(base)
    if n == 0:
        return base
    starts = np.flatnonzero(np.r_[True, query[1:] != query[:-1]])
    lengths = np.diff(np.r_[starts, n])
    out = np.empty(n, dtype=np.int64)
    score = keys.score[base]
    for length in distinct(lengths):
        first = starts[lengths == length]
        idx = first[:, None] + np.arange(length)[None, :]  # (queries, length)
        order = np.argsort(score[idx], axis=1)[:, ::-1]
        out[idx] = base[np.take_along_axis(idx, order, axis=1)]
    return out


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
def evalkit_register_tie_policies():
    return declared(__name__, TiePolicy)
