"""trec_eval's measures beyond NDCG, as metric kernels vectorised over queries.

Each kernel reproduces one ``m_*.c`` file of trec_eval 10.0 (usnistgov/trec_eval,
tag v10.0, commit f4253652c8efd0d86ddffd0d163cc0a0f813111a) on the engine's sorted
arrays: no Python loop over queries. The quantities are trec_eval's ``RES_RELS``
(form_res_rels.c): per ranked position the judgment ``rel`` (the qrels grade
truncated to an integer, as ``atol`` reads it; a document absent from the qrels is
"not in the pool", one judged below 0 "in the pool but unjudged"), and per query

* ``num_ret``: documents ranked (after ``-M`` and ``-J``: the ``depth`` and
  ``judged_only`` conventions);
* ``num_rel``: judged documents with ``rel >= level`` (``level`` = ``threshold``,
  trec_eval ``-l``, default 1; judgments below 0 never count);
* ``num_nonrel``: judged documents with ``0 <= rel < level``;
* ``num_rel_ret``: ranked documents with ``rel >= level``.

Every kernel returns ``defined`` true for every query: trec_eval scores a topic
without a relevant judgment as its formula gives (0 mostly) and averages it in. A
qrels topic missing from the run is scored on an empty ranking under the
``missing=score`` convention (trec_eval 10.0 ``-c``, whose bogus one-document ranking
is then cleaned of ``num_ret``, ``utility``, ``unj`` and ``rbp_resid``): ``num_rel``
keeps its count, ``num_q`` counts the topic, every other measure scores 0.

Arrays: ``n`` ranked positions over all queries, ``m`` judged documents, ``q``
queries; kernels return ``float64`` ``(q,)`` values. Bad parameters are refused
when the flavour is parsed (:class:`~evalkit.errors.FlavourError`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, TypeVar

import numpy as np

from ..components import Metric, MetricOutput, Param, declared, metric
from .._builtin_hookimpl import hookimpl
from ..kernel import MetricInput, offsets_from_sorted, segment_cumsum, segment_ids, segment_sum
from typing import Any, cast

T = TypeVar("T")

_TE = "usnistgov/trec_eval v10.0 (f4253652c8efd0d86ddffd0d163cc0a0f813111a)"
_LEVEL = Param("threshold", "float", 1.0,
               "relevance level: a judgment >= it is relevant (trec_eval -l; the grade is truncated "
               "to an integer as atol reads it)")
_P = Param("p", "float", 0.9, "persistence (trec_eval's rbp.p=, default 0.9)", minimum=0.0,
           exclusive_minimum=True, maximum=1.0, exclusive_maximum=True)
_MISSING_RANKING = Param(
    "missing_ranking", "str", "empty",
    "the ranking a query gets when it has none (a qrels topic missing from the run under "
    "missing=score): empty, or bogus, trec_eval 10.0 -c's one document not in the qrels, which "
    "counts for utility and rbp_resid printed with parameters (trec_eval.c resets only the values "
    "named exactly 'utility' and 'rbp_resid')", choices=("empty", "bogus"))
_ROUNDING = Param("cutoff_rounding", "str", "round",
                  "how recall * num_rel becomes a count: round (trec_eval 10.0, lround) or "
                  "plus_0.9 (trec_eval 9.0.8 and earlier, (long)(x + 0.9))",
                  choices=("round", "plus_0.9"))


@dataclass(frozen=True)
class _Rels:
    """trec_eval's RES_RELS for every query at once (see the module docstring), kept
    sparse: only the judged positions are visited (a long run is mostly unjudged).

    Positions (ascending ``int64``, into the ranked arrays): ``rel_pos`` (judged
    ``>= level``), ``nonrel_pos`` (judged, ``0 <= rel < level``), ``pool_pos`` (judged
    below 0), each with ``*_start`` (``int64`` ``(q + 1,)``: where each query's
    positions begin; :func:`count_at` and :func:`count_upto` read running counts
    from them). Per query (``float64`` ``(q,)``): ``num_ret``, ``num_rel``,
    ``num_nonrel``, ``num_rel_ret``.
    """

    rel_pos: np.ndarray
    rel_start: np.ndarray
    nonrel_pos: np.ndarray
    nonrel_start: np.ndarray
    pool_pos: np.ndarray
    pool_start: np.ndarray
    num_ret: np.ndarray
    num_rel: np.ndarray
    num_nonrel: np.ndarray
    num_rel_ret: np.ndarray


def _level(threshold: float) -> float:
    return float(np.trunc(threshold))


def count_cumsum(mask: np.ndarray, offsets: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Per-segment inclusive running count of ``mask`` (``bool`` ``(n,)``): ``int64``
    ``(n,)``. Integer arithmetic, so exact and independent of the other segments."""
    if len(mask) == 0:
        return np.zeros(0, dtype=np.int64)
    cum = np.cumsum(mask, dtype=np.int64)
    before = np.zeros(len(offsets), dtype=np.int64)
    before[1:] = cum[np.maximum(offsets[1:] - 1, 0)]
    before[1:][offsets[1:] == 0] = 0
    return cum - before[:-1][query]


def at_rank(cum: np.ndarray, offsets: np.ndarray, k: float | np.ndarray) -> np.ndarray:
    """``cum`` at rank ``min(k, length)`` of every query (``k`` a number or ``(q,)``; 0
    where that rank is 0): ``float64`` ``(q,)``."""
    length = np.diff(offsets)
    r = np.minimum(np.asarray(k, dtype=np.float64), length).astype(np.int64)
    out = np.zeros(len(length))
    ok = r > 0
    out[ok] = cum[offsets[:-1][ok] + r[ok] - 1]
    return out


def position_starts(pos: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Where each query's positions begin in ``pos`` (ascending ``int64`` positions
    into query-contiguous arrays delimited by ``offsets``, ``(q + 1,)``): ``int64``
    ``(q + 1,)``, the last entry ``len(pos)``."""
    return np.searchsorted(pos, offsets)


def count_at(pos: np.ndarray, start: np.ndarray, offsets: np.ndarray, k: float | np.ndarray) -> np.ndarray:
    """How many of ``pos`` (ascending ``int64`` positions, ``start`` from
    :func:`position_starts`) lie within the first ``min(k, length)`` ranks of each
    query (``k`` a number or ``(q,)``, truncated to an integer): ``float64`` ``(q,)``.
    The running count of a mask read at rank k, without a pass over every position."""
    length = np.diff(offsets)
    r = np.minimum(np.asarray(k, dtype=np.float64), length).astype(np.int64)
    return (np.searchsorted(pos, offsets[:-1] + r) - start[:-1]).astype(np.float64)


def count_upto(pos: np.ndarray, start: np.ndarray, at: np.ndarray, query: np.ndarray) -> np.ndarray:
    """How many of ``pos`` lie at or before each position of ``at`` within its query
    (``query``: the query of each ``at``; ``start`` from :func:`position_starts`):
    ``int64``, the shape of ``at``."""
    return np.searchsorted(pos, at, side="right") - start[query]


def _store(inp: MetricInput) -> dict:
    """The dict shared by the flavours of one run (the engine's), else the input's own."""
    return inp._shared if inp._shared is not None else inp._cache


def _cached(inp: MetricInput, key: tuple, compute: Callable[[], T]) -> T:
    """``compute()`` kept for every flavour evaluated on the same ranked list and qrels."""
    store, anchors = _store(inp), (inp.ranked, inp.judged_grade)
    hit = store.get(key)
    if hit is not None and hit[0][0] is anchors[0] and hit[0][1] is anchors[1]:
        return hit[1]
    value = compute()
    store[key] = (anchors, value)
    return value


def judged_positions(inp: MetricInput) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(pos, grade, start)``: the ranked positions whose document is in the qrels
    (ascending ``int64``), their grades (``float64``) and where each query's begin
    (``int64`` ``(q + 1,)``); once per ranked list."""
    r = inp.ranked

    def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        g = r.grade
        pos = np.flatnonzero(~np.isnan(g))
        return pos, g[pos], position_starts(pos, r.offsets)

    return _cached(inp, ("judged_positions", id(r), id(inp.judged_grade)), compute)


def res_rels(inp: MetricInput, threshold: float = 1.0) -> _Rels:
    """trec_eval's ``te_form_res_rels`` (form_res_rels.c) for all queries of ``inp``,
    computed once per ranked list and relevance level."""
    level = max(_level(threshold), 0.0)
    return _cached(inp, ("trec_eval_res_rels", id(inp.ranked), id(inp.judged_grade), level),
                   lambda: _res_rels(inp, level))


def _res_rels(inp: MetricInput, level: float) -> _Rels:
    r = inp.ranked
    jpos, jgrade, _ = judged_positions(inp)
    g = np.trunc(jgrade)
    rel = g >= level
    rel_pos, nonrel_pos, pool_pos = jpos[rel], jpos[(g >= 0) & ~rel], jpos[g < 0]
    jg = np.trunc(inp.judged_grade)
    jseg = segment_ids(inp.judged_offsets)
    nq = inp.n_queries
    num_rel = segment_sum((jg >= level).astype(np.float64), jseg, nq)
    num_nonrel = segment_sum(((jg >= 0) & (jg < level)).astype(np.float64), jseg, nq)
    rel_start = position_starts(rel_pos, r.offsets)
    return _Rels(rel_pos, rel_start, nonrel_pos, position_starts(nonrel_pos, r.offsets), pool_pos,
                 position_starts(pool_pos, r.offsets), r.length.astype(np.float64), num_rel, num_nonrel,
                 np.diff(rel_start).astype(np.float64))


def _rel_query(rr: _Rels) -> np.ndarray:
    """The query of every relevant retrieved position (``int64``, ``rr.rel_pos``'s shape)."""
    return segment_ids(rr.rel_start)


def _rel_cum(rr: _Rels, q: np.ndarray) -> np.ndarray:
    """At each relevant retrieved position: the relevant documents up to and including
    it (``int64``; trec_eval's running count)."""
    return np.arange(1, len(rr.rel_pos) + 1, dtype=np.int64) - rr.rel_start[q]


def _all(n: int) -> np.ndarray:
    return np.ones(n, dtype=bool)


def _out(values: np.ndarray) -> MetricOutput:
    return MetricOutput(np.asarray(values, dtype=np.float64), _all(len(values)))


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(len(num))
    np.divide(num, den, out=out, where=den > 0)
    return out


_COUNT_SRC = f"{_TE} form_res_rels.c (te_form_res_rels)"


@metric("num_q", formula="1 per evaluated query; summary: the sum (number of queries)",
        source=f"{_TE} m_num_q.c", description="number of queries evaluated (aggregate=sum)")
def num_q(inp: MetricInput) -> MetricOutput:
    return _out(np.ones(inp.n_queries))


@metric("num_ret", formula="num_ret = documents ranked", source=f"{_TE} m_num_ret.c",
        description="number of documents retrieved (aggregate=sum)")
def num_ret(inp: MetricInput) -> MetricOutput:
    return _out(inp.ranked.length.astype(np.float64))


@metric("num_rel", params=(_LEVEL,), formula="num_rel = judged documents with rel >= level",
        source=f"{_TE} m_num_rel.c", description="number of relevant judged documents (aggregate=sum)")
def num_rel(inp: MetricInput, threshold: float) -> MetricOutput:
    return _out(res_rels(inp, threshold).num_rel)


@metric("num_rel_ret", params=(_LEVEL,), formula="num_rel_ret = retrieved documents with rel >= level",
        source=f"{_TE} m_num_rel_ret.c", description="number of relevant documents retrieved (aggregate=sum)")
def num_rel_ret(inp: MetricInput, threshold: float) -> MetricOutput:
    return _out(res_rels(inp, threshold).num_rel_ret)


@metric("num_nonrel_judged_ret", params=(_LEVEL,),
        formula="retrieved documents judged with 0 <= rel < level",
        source=f"{_TE} m_num_nonrel_judged_ret.c",
        description="number of judged non-relevant documents retrieved (aggregate=sum)")
def num_nonrel_judged_ret(inp: MetricInput, threshold: float) -> MetricOutput:
    rr = res_rels(inp, threshold)
    return _out(np.diff(rr.nonrel_start).astype(np.float64))


@metric("rprec", params=(_LEVEL,),
        formula="R-prec = |relevant in the first min(num_ret, R)| / R, R = num_rel (0 if R = 0)",
        source=f"{_TE} m_Rprec.c (te_calc_Rprec)", description="precision after R documents")
def rprec(inp: MetricInput, threshold: float) -> MetricOutput:
    rr = res_rels(inp, threshold)
    return _out(_ratio(count_at(rr.rel_pos, rr.rel_start, inp.ranked.offsets, rr.num_rel), rr.num_rel))


def _bpref_terms(inp: MetricInput, rr: _Rels) -> np.ndarray:
    """Per-query bpref before the division by R (m_bpref.c): a term per relevant
    retrieved document, summed per query in rank order."""
    q = _rel_query(rr)
    # at a relevant position: the judged non-relevant documents above it
    nonrel_before = count_upto(rr.nonrel_pos, rr.nonrel_start, rr.rel_pos, q).astype(np.float64)
    R = rr.num_rel[q]
    denom = np.minimum(rr.num_nonrel, rr.num_rel)[q]
    frac = np.zeros(len(q))
    np.divide(np.minimum(nonrel_before, R), denom, out=frac, where=denom > 0)
    term = np.where(nonrel_before > 0, 1.0 - frac, 1.0)
    return segment_sum(term, q, inp.n_queries)


@metric("bpref", params=(_LEVEL,),
        formula="bpref = (1/R) sum_{relevant retrieved d} (1 - min(N_d, R) / min(N, R)), N_d = judged "
                "non-relevant ranked above d, N = num_nonrel (a term is 1 when N_d = 0)",
        source=f"{_TE} m_bpref.c (te_calc_bpref); Buckley & Voorhees, SIGIR 2004",
        description="binary preference")
def bpref(inp: MetricInput, threshold: float) -> MetricOutput:
    rr = res_rels(inp, threshold)
    return _out(_ratio(_bpref_terms(inp, rr), rr.num_rel))


@metric("infap", params=(_LEVEL,),
        formula="infAP = (1/R) sum_{relevant d at 0-based rank j} (j = 0: 1; else 1/(j+1) + j/(j+1) * "
                "((r+n+u)/j) * ((r + eps)/(r + n + 2 eps))), r/n/u = relevant/non-relevant/pooled-"
                "unjudged ranked above d (documents not in the pool skipped), eps = 1e-5",
        source=f"{_TE} m_infap.c (te_calc_infap); Yilmaz & Aslam, CIKM 2006",
        description="inferred average precision")
def infap(inp: MetricInput, threshold: float) -> MetricOutput:
    rr = res_rels(inp, threshold)
    r = inp.ranked
    eps = 1e-5
    pos = rr.rel_pos  # a term per relevant document; the others add nothing
    q = _rel_query(rr)
    rel_b = (_rel_cum(rr, q) - 1).astype(np.float64)
    non_b = count_upto(rr.nonrel_pos, rr.nonrel_start, pos, q).astype(np.float64)
    unj_b = count_upto(rr.pool_pos, rr.pool_start, pos, q).astype(np.float64)
    j = (pos - r.offsets[q]).astype(np.float64)
    safe_j = np.where(j > 0, j, 1.0)
    term = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel_b + non_b + unj_b) / safe_j)
            * ((rel_b + eps) / (rel_b + non_b + 2 * eps)))
    term = np.where(j == 0, 1.0, term)
    return _out(_ratio(segment_sum(term, q, inp.n_queries), rr.num_rel))


def _interpolated(inp: MetricInput, rr: _Rels) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(suffix_max, rel_pos, rel_off)``: interpolated precision at every position
    (max over this rank and below of relevant-so-far / rank), the positions of the
    relevant documents and their ``(q + 1,)`` offsets; once per ranked list and level."""
    return _cached(inp, ("trec_eval_interpolated", id(inp.ranked), id(rr)), lambda: _interpolate(inp, rr))


def _interpolate(inp: MetricInput, rr: _Rels) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r = inp.ranked
    n, nq = len(r.query), inp.n_queries
    if n == 0:
        return np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(nq + 1, dtype=np.int64)
    rel_pos, rel_off = rr.rel_pos, rr.rel_start
    q = _rel_query(rr)
    # only the relevant positions matter: the maximum below a relevant document is
    # reached at a relevant document (precision drops between them)
    prec = _rel_cum(rr, q) / (rel_pos - r.offsets[q] + 1)
    if not len(prec):
        return prec, np.arange(0), rel_off
    # a segmented suffix maximum: the key prec + 2 (nq - q) increases from one query to the
    # next along the reversed array, so a running maximum of it never crosses a query; the
    # value is read back by position (prec itself), not as key - shift, which would round
    # differently with the query's place in the run (values must not depend on line order)
    shift = 2.0 * (nq - q)
    key = (prec + shift)[::-1]
    pos = np.arange(len(key))
    latest = np.maximum.accumulate(np.where(key >= np.maximum.accumulate(key), pos, 0))
    suffix = prec[::-1][latest][::-1]
    return suffix, np.arange(len(rel_pos)), rel_off


def _count_cut(x: np.ndarray, rule: str) -> np.ndarray:
    return np.floor(x + 0.5) if rule == "round" else np.trunc(x + 0.9)


def _iprec(inp: MetricInput, rr: _Rels, recall: float, rule: str, pre: Any = None) -> np.ndarray:
    suffix, rel_pos, rel_off = pre if pre is not None else _interpolated(inp, rr)
    cut = _count_cut(recall * rr.num_rel, rule)
    c = np.maximum(cut, 1.0)  # cutoff 0 takes the first relevant document's value
    ok = (cut <= rr.num_rel_ret) & (rr.num_rel_ret > 0)
    out = np.zeros(inp.n_queries)
    qs = np.flatnonzero(ok)
    out[qs] = suffix[rel_pos[rel_off[qs] + c[qs].astype(np.int64) - 1]]
    return out


@metric("iprec_at_recall", params=(Param("recall", "float", 0.0, "recall level (0..1)", minimum=0.0),
                                   _LEVEL, _ROUNDING),
        formula="max_{rank >= rank of the c-th relevant} (relevant so far / rank), c = round(recall * R) "
                "(c = 0: the first relevant's); 0 if c > num_rel_ret",
        source=f"{_TE} m_iprec_at_recall.c (te_calc_iprec_at_recall: lround; 9.0.8: (long)(x + 0.9))",
        description="interpolated precision at a recall level")
def iprec_at_recall(inp: MetricInput, recall: float, threshold: float, cutoff_rounding: str) -> MetricOutput:
    rr = res_rels(inp, threshold)
    return _out(_iprec(inp, rr, recall, cutoff_rounding))


_DEFAULT_11PT = "0:0.1:0.2:0.3:0.4:0.5:0.6:0.7:0.8:0.9:1"


def parse_levels(text: str) -> list[float]:
    """``"0.25:0.5:0.75"`` -> ``[0.25, 0.5, 0.75]`` (``pt_avg``'s ``levels``).

    :raises FlavourError: an empty list or a value that is not a number.
    """
    from ..errors import FlavourError

    try:
        out = [float(t) for t in str(text).split(":") if t.strip()]
    except ValueError:
        raise FlavourError(f"metric 'pt_avg': levels must be numbers separated by ':', got {text!r}") from None
    if not out:
        raise FlavourError("metric 'pt_avg': needs at least one recall level")
    return out


@metric("pt_avg", params=(Param("levels", "str", _DEFAULT_11PT, "recall levels separated by ':' "
                                "(trec_eval 11pt_avg's parameters)"), _LEVEL, _ROUNDING),
        formula="mean over the recall levels of iprec_at_recall(level)",
        source=f"{_TE} m_11pt_avg.c (te_calc_11ptavg)",
        description="interpolated precision averaged over recall levels (11pt_avg)")
def pt_avg(inp: MetricInput, levels: str, threshold: float, cutoff_rounding: str) -> MetricOutput:
    rr = res_rels(inp, threshold)
    pre = _interpolated(inp, rr)
    values = parse_levels(levels)
    # a sum of (q,) arrays: the levels are never empty (else the division fails first)
    total = cast(np.ndarray, sum(_iprec(inp, rr, x, cutoff_rounding, pre) for x in values))
    return _out(total / len(values))


@metric("rprec_mult", params=(Param("mult", "float", 1.0, "multiple of R", minimum=0.0), _LEVEL),
        formula="P@c, c = (long)(mult * R + 0.9): relevant in the first c / c (num_rel_ret / c if "
                "c > num_ret; 0 if c = 0)",
        source=f"{_TE} m_Rprec_mult.c (te_calc_Rprec_mult)",
        description="precision at a multiple of R")
def rprec_mult(inp: MetricInput, mult: float, threshold: float) -> MetricOutput:
    rr = res_rels(inp, threshold)
    c = np.trunc(mult * rr.num_rel + 0.9)
    return _out(_ratio(count_at(rr.rel_pos, rr.rel_start, inp.ranked.offsets, c), c))


@metric("utility", params=(Param("a", "float", 1.0, "worth of a relevant retrieved document"),
                           Param("b", "float", -1.0, "worth of a non-relevant retrieved document"),
                           Param("c", "float", 0.0, "worth of a relevant document not retrieved"),
                           Param("d", "float", 0.0, "worth of a non-relevant document not retrieved"),
                           Param("num_docs", "float", 0.0, "documents in the collection (trec_eval -N)"),
                           _LEVEL, _MISSING_RANKING),
        formula="a * num_rel_ret + b * (num_ret - num_rel_ret) + c * (num_rel - num_rel_ret) + "
                "d * (N + num_rel_ret - num_ret - num_rel)",
        source=f"{_TE} m_utility.c (te_calc_utility)", description="set utility")
def utility(inp: MetricInput, a: float, b: float, c: float, d: float, num_docs: float,
            threshold: float, missing_ranking: str = "empty") -> MetricOutput:
    rr = res_rels(inp, threshold)
    num_ret = rr.num_ret
    if missing_ranking == "bogus":  # one retrieved document, not relevant
        num_ret = np.where(num_ret == 0, 1.0, num_ret)
    return _out(a * rr.num_rel_ret + b * (num_ret - rr.num_rel_ret) + c * (rr.num_rel - rr.num_rel_ret)
                + d * (num_docs + rr.num_rel_ret - num_ret - rr.num_rel))


@metric("bing", params=(_LEVEL,),
        formula="binG = (1/R) sum_{relevant d} 1 / log2(2 + documents not relevant ranked above d)",
        source=f"{_TE} m_binG.c (te_calc_binG)", description="binary G (experimental)")
def bing(inp: MetricInput, threshold: float) -> MetricOutput:
    rr = res_rels(inp, threshold)
    q = _rel_query(rr)
    term = 1.0 / np.log2(3.0 + (rr.rel_pos - inp.ranked.offsets[q]) - _rel_cum(rr, q))
    return _out(_ratio(segment_sum(term, q, inp.n_queries), rr.num_rel))


@metric("g_gain", uses=frozenset({"gain"}),
        formula="G = (1/sum ideal) sum_i gain_i / log2(2 + C_i - S_i), S_i = gains retrieved up to i, "
                "C_i = sum_{t<=i} max(ideal gain at t, 1)",
        source=f"{_TE} m_G.c (te_calc_G)", description="normalised gain G (experimental)")
def g_gain(inp: MetricInput) -> MetricOutput:
    r = inp.ranked
    nq = inp.n_queries
    gains = inp.ranked_gain()
    jg = inp.judged_gain()
    seg = segment_ids(inp.judged_offsets)
    pos = jg > 0
    ig, iseg = jg[pos], seg[pos]
    order = np.lexsort((-ig, iseg))
    ig, iseg = ig[order], iseg[order]
    ioff = offsets_from_sorted(iseg, nq)
    sum_ideal = segment_sum(ig, iseg, nq)
    # C_i: the ideal gain at rank i (max with 1), 1 past the ideal ranking
    icum = segment_cumsum(np.maximum(ig, 1.0), ioff) if len(ig) else np.zeros(0)
    # only the positions with gain_i != 0 add a term; S_i, the running sum over those
    # positions (the others add 0), has the same values as over every position
    nz = np.flatnonzero(gains != 0)
    gz, qz, rz = gains[nz], r.query[nz], r.rank[nz]
    ilen = np.diff(ioff)[qz]
    inside = np.minimum(rz, ilen)
    c = np.zeros(len(nz))
    has = inside > 0
    c[has] = icum[ioff[qz[has]] + inside[has] - 1]
    c += np.maximum(rz - ilen, 0)
    s = segment_cumsum(gz, offsets_from_sorted(qz, nq)) if len(nz) else np.zeros(0)
    term = gz / np.log2(2.0 + c - s)
    return _out(_ratio(segment_sum(term, qz, nq), sum_ideal))


@metric("relative_precision", params=(_LEVEL,),
        formula="relative P@k = |relevant in top k| / min(k, R) (0 if R = 0)",
        source=f"{_TE} m_rel_P.c (te_calc_rel_P)", description="precision relative to the best possible at k")
def relative_precision(inp: MetricInput, threshold: float) -> MetricOutput:
    rr = res_rels(inp, threshold)
    k = np.inf if inp.k is None else float(inp.k)
    hits = count_at(rr.rel_pos, rr.rel_start, inp.ranked.offsets, k)
    return _out(_ratio(hits, np.minimum(k, rr.num_rel)))


@metric("success", params=(_LEVEL,), formula="success@k = 1 if a relevant document is in the top k",
        source=f"{_TE} m_success.c (te_calc_success)", description="success at k")
def success(inp: MetricInput, threshold: float) -> MetricOutput:
    rr = res_rels(inp, threshold)
    hits = count_at(rr.rel_pos, rr.rel_start, inp.ranked.offsets, np.inf if inp.k is None else inp.k)
    return _out((hits > 0).astype(np.float64))


@metric("set_p", params=(_LEVEL,), formula="set_P = num_rel_ret / num_ret",
        source=f"{_TE} m_set_P.c", description="precision of the retrieved set")
def set_p(inp: MetricInput, threshold: float) -> MetricOutput:
    rr = res_rels(inp, threshold)
    return _out(_ratio(rr.num_rel_ret, rr.num_ret))


@metric("set_recall", params=(_LEVEL,), formula="set_recall = num_rel_ret / num_rel",
        source=f"{_TE} m_set_recall.c", description="recall of the retrieved set")
def set_recall(inp: MetricInput, threshold: float) -> MetricOutput:
    rr = res_rels(inp, threshold)
    return _out(_ratio(rr.num_rel_ret, rr.num_rel))


@metric("set_relative_p", params=(_LEVEL,), formula="num_rel_ret / min(num_ret, num_rel)",
        source=f"{_TE} m_set_rel_P.c", description="relative precision of the retrieved set")
def set_relative_p(inp: MetricInput, threshold: float) -> MetricOutput:
    rr = res_rels(inp, threshold)
    den = np.where(rr.num_rel > 0, np.minimum(rr.num_ret, rr.num_rel), 0.0)
    return _out(_ratio(rr.num_rel_ret, den))


@metric("set_map", params=(_LEVEL,), formula="num_rel_ret^2 / (num_ret * num_rel)",
        source=f"{_TE} m_set_map.c", description="unranked set MAP (set P x set recall)")
def set_map(inp: MetricInput, threshold: float) -> MetricOutput:
    rr = res_rels(inp, threshold)
    return _out(_ratio(rr.num_rel_ret * rr.num_rel_ret, rr.num_ret * rr.num_rel))


@metric("set_f", params=(Param("beta", "float", 1.0, "weight of recall (trec_eval set_F's parameter)"), _LEVEL),
        formula="(beta + 1) P R / (beta P + R), P = set_P, R = set_recall (0 if num_rel_ret = 0)",
        source=f"{_TE} m_set_F.c", description="F measure of the retrieved set")
def set_f(inp: MetricInput, beta: float, threshold: float) -> MetricOutput:
    rr = res_rels(inp, threshold)
    p = _ratio(rr.num_rel_ret, rr.num_ret)
    rc = _ratio(rr.num_rel_ret, rr.num_rel)
    return _out(_ratio((beta + 1.0) * p * rc, np.where(rr.num_rel_ret > 0, beta * p + rc, 0.0)))


@metric("unjudged", formula="unj@k = documents not judged (absent, or judged below 0) in the top k / k",
        source=f"{_TE} m_unjudged.c (te_calc_unj)", description="fraction of unjudged documents in the top k")
def unjudged(inp: MetricInput) -> MetricOutput:
    r = inp.ranked
    pos, start = _judged_in_pool(inp)
    k = np.inf if inp.k is None else inp.k
    # the unjudged in the top k: the top k (min(k, num_ret)) less the judged (rel >= 0) in it
    hits = np.minimum(np.asarray(k, dtype=np.float64), r.length).astype(np.int64) - count_at(pos, start, r.offsets, k)
    den = r.length.astype(np.float64) if inp.k is None else np.full(inp.n_queries, float(inp.k))
    return _out(_ratio(hits, den))


@metric("judged", formula="Judged@k = |documents in the qrels (any grade) in the top k| / min(k, num_ret)",
        source="terrierteam/ir_measures 0.4.3 providers/judged_provider.py (JudgedEvaluator, after "
               "OpenNIR onir/metrics/judged.py); its ranking: score descending, docno ascending",
        description="fraction of the top k that is judged (ir_measures Judged@k)")
def judged(inp: MetricInput) -> MetricOutput:
    r = inp.ranked
    pos, _, start = judged_positions(inp)
    hits = count_at(pos, start, r.offsets, np.inf if inp.k is None else inp.k)
    length = r.length.astype(np.float64)
    den = length if inp.k is None else np.minimum(length, float(inp.k))
    return _out(_ratio(hits, den))


def _judged_in_pool(inp: MetricInput) -> tuple[np.ndarray, np.ndarray]:
    """``(pos, start)``: the ranked positions judged ``rel >= 0`` (trec_eval's judged
    documents, ascending ``int64``) and where each query's begin (``(q + 1,)``)."""
    r = inp.ranked

    def compute() -> tuple[np.ndarray, np.ndarray]:
        jpos, jgrade, _ = judged_positions(inp)
        pos = jpos[np.trunc(jgrade) >= 0]
        return pos, position_starts(pos, r.offsets)

    return _cached(inp, ("trec_eval_judged_in_pool", id(r), id(inp.judged_grade)), compute)


def _graded(inp: MetricInput) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """m_rbp.c: a judgment's gain is its level, min-max normalised to [0, 1] with
    minimum 0 when a level exceeds 1: ``rel / max(1, max judged level of the query)``.
    Returns ``(pos, query, gain)`` at the ranked positions with a gain above 0 (the
    others weigh 0): ascending ``int64``, their query, ``float64``."""
    jpos, jgrade, jstart = judged_positions(inp)
    g = np.trunc(jgrade)
    keep = g > 0
    pos = jpos[keep]
    q = segment_ids(jstart)[keep]
    top = np.ones(inp.n_queries)
    if len(inp.judged_grade):
        np.maximum.at(top, segment_ids(inp.judged_offsets), np.trunc(inp.judged_grade))
    return pos, q, g[keep] / top[q]


def _persistence(p: float, rank: np.ndarray) -> np.ndarray:
    """``p ** (rank - 1)`` (``float64``, the shape of ``rank``, 1-based ``int64``)."""
    return np.power(p, (rank - 1).astype(np.float64))


@metric("trec_rbp", params=(_P,),
        formula="RBP = (1 - p) sum_r rel_r p^(r-1), rel_r = level / max(1, max judged level)",
        source=f"{_TE} m_rbp.c (te_calc_rbp); Moffat & Zobel, ACM TOIS 27(1), 2008",
        description="rank-biased precision as trec_eval's rbp (graded)")
def trec_rbp(inp: MetricInput, p: float) -> MetricOutput:
    r = inp.ranked
    pos, q, gain = _graded(inp)
    rank = pos - r.offsets[q] + 1
    if inp.k is not None:  # outside the cutoff a position weighs 0
        inside = rank <= inp.k
        pos, q, gain, rank = pos[inside], q[inside], gain[inside], rank[inside]
    return _out((1.0 - p) * segment_sum(gain * _persistence(p, rank), q, inp.n_queries))


@metric("rbp_resid", params=(_P, _MISSING_RANKING),
        formula="p^num_ret + (1 - p) sum_{unjudged r} p^(r-1) if a ranked document is unjudged, else 0",
        source=f"{_TE} m_rbp_resid.c (te_calc_rbp_resid)",
        description="RBP residual: the weight of the unjudged and unseen documents")
def rbp_resid(inp: MetricInput, p: float, missing_ranking: str = "empty") -> MetricOutput:
    r = inp.ranked
    pos, start = _judged_in_pool(inp)
    # p^(rank - 1) by rank from a table (the same values as np.power at every position),
    # 0 at the judged positions: the unjudged ones' weights
    table = _persistence(p, np.arange(1, int(r.length.max(initial=0)) + 1, dtype=np.int64))
    w = table[r.rank - 1]
    w[pos] = 0.0
    total = inp.per_query(w)
    count = r.length - np.diff(start)
    length = r.length
    if missing_ranking == "bogus":  # one retrieved document, unjudged, at rank 1
        bogus = length == 0
        total = np.where(bogus, table[0] if len(table) else _persistence(p, np.ones(1, dtype=np.int64))[0], total)
        count = np.where(bogus, 1, count)
        length = np.where(bogus, 1, length)
    values = np.where(count > 0, np.power(p, length.astype(np.float64)) + (1.0 - p) * total, 0.0)
    return _out(values)


@hookimpl
def evalkit_register_metrics() -> Any:
    return declared(__name__, Metric)
