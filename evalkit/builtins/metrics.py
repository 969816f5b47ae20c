"""Built-in metrics. Each kernel maps a :class:`~evalkit.kernel.MetricInput`
(all queries of one run) to a :class:`~evalkit.components.MetricOutput`."""

from __future__ import annotations

import numpy as np

from ..components import Metric, MetricOutput, Param, declared, metric
from ..kernel import MetricInput, intent_aware, offsets_from_sorted, segment_cumsum, segment_ids, segment_sum
from .._builtin_hookimpl import hookimpl
from typing import Any

_NDCG_USES = frozenset({"gain", "discount", "idcg"})
_THRESHOLD = Param("threshold", "float", 1.0, "minimum grade that counts as relevant (trec_eval -l)")


def _all(n: int) -> np.ndarray:
    return np.ones(n, dtype=bool)


@metric(
    "dcg",
    uses=frozenset({"gain", "discount"}),
    supports_averaged_ties=True,
    formula="DCG@k = sum_{r<=k} gain(rel_r) * discount(r)",
    source="Järvelin & Kekäläinen, ACM TOIS 2002",
    description="discounted cumulative gain",
)
def dcg(inp: MetricInput) -> MetricOutput:
    return MetricOutput(inp.dcg(), _all(inp.n_queries))


@metric(
    "ndcg",
    uses=_NDCG_USES,
    supports_averaged_ties=True,
    params=(Param("rel_level", "float", 0.0,
                      "if > 0: a query with no retrieved document of grade >= rel_level scores 0 "
                      "(trec_eval ndcg_p's num_rel_ret > 0 test, with -l); 0 = no such test",
                      minimum=0.0),),
    formula="NDCG@k = DCG@k / IDCG@k",
    source="Järvelin & Kekäläinen, ACM TOIS 2002; rel_level: trec_eval m_ndcg_p.c",
    description="normalised DCG; the IDCG strategy picks the ideal ranking",
)
def ndcg(inp: MetricInput, rel_level: float = 0.0) -> MetricOutput:
    num = inp.dcg()
    den = inp.ideal()
    defined = den > 0
    values = np.zeros(inp.n_queries)
    np.divide(num, den, out=values, where=defined)
    if rel_level > 0:
        # trec_eval m_ndcg_p.c: the value is set only 'if (res_rels.num_rel_ret > 0)'
        hit = ((inp.ranked.grade >= rel_level) & inp.in_cutoff()).astype(np.float64)
        values[inp.per_query(hit) == 0] = 0.0
    return MetricOutput(values, defined)


def _ideal_prefix(inp: MetricInput) -> Any:
    """The ideal ranking of each query's judged documents with positive gain.

    Returns ``(gain, offsets, cum)``: gains sorted decreasingly per query
    (``float64`` ``(p,)``), their ``offsets`` (``(q + 1,)``) and the discounted
    cumulative sums ``cum`` (``cum[offsets[i] + r - 1]`` = IDCG@r of query ``i``).
    """
    g = inp.judged_gain()
    seg = segment_ids(inp.judged_offsets)
    pos = g > 0
    g, seg = g[pos], seg[pos]
    order = np.lexsort((-g, seg))
    g, seg = g[order], seg[order]
    offsets = offsets_from_sorted(seg, inp.n_queries)
    rank = np.arange(len(g), dtype=np.int64) - offsets[seg] + 1
    assert inp.discount is not None  # the metric uses a discount
    cum = segment_cumsum(g * inp.discount(rank), offsets) if len(g) else np.zeros(0)
    return g, offsets, cum


def _at(cum: np.ndarray, offsets: np.ndarray, query: np.ndarray, r: np.ndarray) -> np.ndarray:
    """``cum`` at 1-based position ``min(r, length)`` of each ``query``; 0 where that is 0."""
    length = np.diff(offsets)[query]
    m = np.minimum(r, length)
    out = np.zeros(len(query))
    ok = m > 0
    out[ok] = cum[offsets[query[ok]] + m[ok] - 1]
    return out


def _ranked_prefix(inp: MetricInput) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """DCG prefix sums over the ranked list (cutoff applied), kept at the positions
    whose gain is not 0 (elsewhere the running sum does not change): ``(pos, query,
    contrib, dcum, n_eff)``, the positions (ascending ``int64``), their query, their
    ``gain * discount`` and running DCG (``float64``; the same values as a running sum
    over every position, since adding 0 changes no sum) and the effective length of
    each query's ranking (``min(length, k)``, ``(q,)``). Computed once per ranked list,
    gain, discount and cutoff (``ndcg_rel`` and ``Rndcg`` of one run share it)."""
    if inp._shared is None or inp._gain_key is None or inp._discount_key is None:
        return _compute_ranked_prefix(inp)
    from .trec_eval_measures import _cached

    return _cached(inp, ("ranked_prefix", id(inp.ranked), inp._gain_key, inp._discount_key, inp.k, inp.min_grade,
                         inp.negative),
                   lambda: _compute_ranked_prefix(inp))


def _compute_ranked_prefix(inp: MetricInput) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r = inp.ranked
    gain = inp.ranked_gain()
    pos = np.flatnonzero(gain)
    query = r.query[pos]
    rank = r.rank_at(pos)
    if inp.k is not None:
        inside = rank <= inp.k
        pos, query, rank = pos[inside], query[inside], rank[inside]
    contrib = gain[pos] * inp._discount_fn(rank)
    dcum = segment_cumsum(contrib, offsets_from_sorted(query, inp.n_queries)) if len(pos) else np.zeros(0)
    n_eff = r.length if inp.k is None else np.minimum(r.length, inp.k)
    return pos, query, contrib, dcum, n_eff


def _prefix_at(prefix: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], offsets: np.ndarray,
               query: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The running DCG of :func:`_ranked_prefix` at 1-based rank ``r`` of each ``query``
    (``int64``, same shape; ``offsets`` the ranked list's): ``float64``, 0 where the
    rank is 0 or no position up to it has a gain."""
    pos, pq, _, dcum, _ = prefix
    out = np.zeros(len(query))
    if not len(pos):
        return out
    r = np.minimum(r, np.diff(offsets)[query])
    at = np.searchsorted(pos, offsets[query] + r - 1, side="right") - 1  # the last gain at or before
    ok = (r > 0) & (at >= 0)
    ok[ok] = pq[at[ok]] == query[ok]
    out[ok] = dcum[at[ok]]
    return out


@metric(
    "ndcg_rel",
    uses=frozenset({"gain", "discount"}),
    formula="(sum_{r: gain_r > 0} DCG@r / IDCG@r + (R - R_ret) * DCG / IDCG) / R, "
                "R = judged documents with gain > 0, R_ret = those retrieved",
    source="trec_eval m_ndcg_rel.c (experimental measure 'ndcg_rel'); IDCG over judged documents",
    description="NDCG averaged over the relevant documents; a cutoff truncates the ranking",
)
def ndcg_rel(inp: MetricInput) -> MetricOutput:
    """trec_eval m_ndcg_rel.c: NDCG averaged over the relevant (gain > 0) documents."""
    r = inp.ranked
    nq = inp.n_queries
    _, ioff, icum = _ideal_prefix(inp)
    n_pos = np.diff(ioff).astype(np.float64)
    pos, pq, contrib, dcum, _ = _ranked_prefix(inp)
    # the relevant retrieved documents (gain > 0 within the cutoff): a term each
    rel = inp.ranked_gain()[pos] > 0
    rq = pq[rel]
    ideal_r = _at(icum, ioff, rq, r.rank_at(pos[rel]))
    term = np.zeros(len(rq))
    ok = ideal_r > 0
    term[ok] = dcum[rel][ok] / ideal_r[ok]
    total = segment_sum(term, rq, nq)
    rel_ret = segment_sum(np.ones(len(rq)), rq, nq)
    queries = np.arange(nq)
    ideal_full = _at(icum, ioff, queries, np.diff(ioff))
    d_full = segment_sum(contrib, pq, nq)
    has = ideal_full > 0
    total[has] += (n_pos[has] - rel_ret[has]) * d_full[has] / ideal_full[has]
    values = np.zeros(nq)
    good = (total > 0) & (n_pos > 0)
    values[good] = total[good] / n_pos[good]
    return MetricOutput(values, n_pos > 0)


@metric(
    "rndcg",
    uses=frozenset({"gain", "discount"}),
    params=(Param("rel_level", "float", 1.0,
                      "trec_eval -l: a query with no judged document of grade >= rel_level scores 0"),),
    formula="mean of NDCG@R_j over the R-levels R_j (ranks where the ideal gain drops), plus "
                "NDCG@num_ret when R + 1 < num_ret",
    source="trec_eval m_Rndcg.c (experimental measure 'Rndcg'); IDCG over judged documents",
    description="NDCG averaged at the R-levels of the ideal ranking",
)
def rndcg(inp: MetricInput, rel_level: float) -> MetricOutput:
    """trec_eval m_Rndcg.c: mean NDCG at the R-levels (ranks where the ideal gain changes)."""
    r = inp.ranked
    nq = inp.n_queries
    ig, ioff, icum = _ideal_prefix(inp)
    n_pos = np.diff(ioff)
    prefix = _ranked_prefix(inp)
    n_eff = prefix[4]
    # change points: the last position of each run of equal ideal gains
    p = len(ig)
    last = np.ones(p, dtype=bool)
    if p > 1:
        same_q = np.repeat(np.arange(nq), n_pos)
        last[:-1] = (ig[1:] != ig[:-1]) | (same_q[1:] != same_q[:-1])
    cq = np.repeat(np.arange(nq), n_pos)[last]
    c = (np.flatnonzero(last) - ioff[cq] + 1).astype(np.int64)
    ranked_off = r.offsets
    d_c = _prefix_at(prefix, ranked_off, cq, np.minimum(c, n_eff[cq]))
    total = np.bincount(cq, weights=d_c / icum[np.flatnonzero(last)], minlength=nq) if p else np.zeros(nq)
    count = np.bincount(cq, minlength=nq).astype(np.float64) if p else np.zeros(nq)
    # the implied final R-level at num_ret, counted only if 'i < num_ret' after the ideal ran out
    extra = (n_pos > 0) & (n_pos + 1 < n_eff)
    queries = np.flatnonzero(extra)
    d_n = _prefix_at(prefix, ranked_off, queries, n_eff[queries])
    i_full = icum[ioff[queries + 1] - 1] if len(queries) else np.zeros(0)
    total[queries] += d_n / i_full
    count[queries] += 1
    values = np.zeros(nq)
    ok = count > 0
    values[ok] = total[ok] / count[ok]
    values[inp.num_relevant(rel_level) == 0] = 0.0
    return MetricOutput(values, n_pos > 0)


@metric(
    "err",
    params=(Param("max_grade", "float", 4.0, "grade with stop probability (2^g-1)/2^g", minimum=0.0,
                      exclusive_minimum=True),),
    formula="ERR@k = sum_{r<=k} (1/r) R_r prod_{i<r}(1-R_i), R = (2^rel - 1) / 2^max_grade",
    source="Chapelle, Metzler, Zhang & Grinspan, CIKM 2009; gdeval.pl (max grade 4)",
    description="expected reciprocal rank (cascade model); grades above max_grade are clipped",
)
def err(inp: MetricInput, max_grade: float) -> MetricOutput:
    """ERR = sum_r (1/r) R_r prod_{i<r} (1 - R_i), R = (2^g - 1) / 2^max_grade."""
    r = inp.ranked
    g = np.clip(np.nan_to_num(r.grade, nan=0.0), 0.0, max_grade)
    stop = (np.exp2(g) - 1.0) / np.exp2(max_grade)
    stop = np.where(inp.in_cutoff(), stop, 0.0)
    log_continue = np.log1p(-stop)
    before = segment_cumsum(log_continue, r.offsets) - log_continue
    contrib = stop * np.exp(before) / r.rank
    # undefined (the ``empty`` convention applies) when no judged document has a grade
    # > 0: gdeval.pl leaves such topics out; with the default empty=zero ERR is 0 as before
    defined = inp.num_relevant(np.nextafter(0.0, 1.0)) > 0
    return MetricOutput(inp.per_query(contrib), defined)


def _relevant_so_far(inp: MetricInput, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rel_pos, rel_offsets, ap_cum)`` of the ranked list, once per ranked list and
    threshold (shared by every flavour of a run: trec_eval's P, recall, map and map_cut
    at all their cutoffs): the positions of the relevant documents (ascending
    ``int64``) with their ``(q + 1,)`` offsets, and the running sum of precision at
    those positions (each query summed in rank order, as a sum over all positions adds
    them: the same values). Only the judged positions are visited."""
    from .trec_eval_measures import _cached, judged_positions, position_starts

    def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        r = inp.ranked
        jpos, jgrade, _ = judged_positions(inp)
        pos = jpos[jgrade >= threshold]
        rel_off = position_starts(pos, r.offsets)
        q = segment_ids(rel_off)
        # the running count of relevant documents at each relevant one, over its rank
        hits = np.arange(1, len(pos) + 1, dtype=np.int64) - rel_off[q]
        ap_cum = segment_cumsum(hits / (pos - r.offsets[q] + 1), rel_off) if len(pos) else np.zeros(0)
        return pos, rel_off, ap_cum

    return _cached(inp, ("relevant_so_far", id(inp.ranked), id(inp.judged_grade), float(threshold)), compute)


def _hits_at_k(inp: MetricInput, threshold: float) -> np.ndarray:
    """Relevant documents within the cutoff per query (``float64`` ``(q,)``), without
    the averaged-ties weights (callers use it only when the ranking is not averaged)."""
    from .trec_eval_measures import count_at

    pos, rel_off, _ = _relevant_so_far(inp, threshold)
    return count_at(pos, rel_off, inp.ranked.offsets, np.inf if inp.k is None else inp.k)


@metric(
    "precision",
    params=(_THRESHOLD,),
    supports_averaged_ties=True,
    formula="P@k = |relevant in top k| / k  (no k: / |retrieved|)",
    source="trec_eval P_k (divides by k even when fewer are retrieved), set_P",
    description="precision; relevant = grade >= threshold",
)
def precision(inp: MetricInput, threshold: float) -> MetricOutput:
    if not inp.ranked.averaged:
        hits = _hits_at_k(inp, threshold)
    else:
        rel = inp.relevant(threshold)
        hits = inp.per_query(rel * inp.position_weights(np.ones(len(rel))))
    if inp.k is not None:
        denom = np.full(inp.n_queries, float(inp.k))
    else:
        denom = inp.ranked.length.astype(np.float64)
    values = np.zeros(inp.n_queries)
    np.divide(hits, denom, out=values, where=denom > 0)
    return MetricOutput(values, _all(inp.n_queries))


@metric(
    "recall",
    params=(_THRESHOLD,),
    supports_averaged_ties=True,
    formula="R@k = |relevant in top k| / |relevant judged|",
    source="trec_eval recall_k",
    description="recall; relevant = grade >= threshold",
)
def recall(inp: MetricInput, threshold: float) -> MetricOutput:
    if not inp.ranked.averaged:
        hits = _hits_at_k(inp, threshold)
    else:
        rel = inp.relevant(threshold)
        hits = inp.per_query(rel * inp.position_weights(np.ones(len(rel))))
    n_rel = inp.num_relevant(threshold)
    defined = n_rel > 0
    values = np.zeros(inp.n_queries)
    np.divide(hits, n_rel, out=values, where=defined)
    return MetricOutput(values, defined)


@metric(
    "ap",
    params=(_THRESHOLD,),
    formula="AP@k = sum_{r<=k, rel_r} P@r / |relevant judged|",
    source="trec_eval map / map_cut_k",
    description="average precision",
)
def average_precision(inp: MetricInput, threshold: float) -> MetricOutput:
    from .trec_eval_measures import count_at

    # the running sum of precision at the relevant documents, read at the last one
    # within the cutoff (shared by map and map_cut at every k)
    pos, rel_off, ap_cum = _relevant_so_far(inp, threshold)
    n_in = count_at(pos, rel_off, inp.ranked.offsets, np.inf if inp.k is None else inp.k).astype(np.int64)
    total = np.zeros(inp.n_queries)
    has = n_in > 0
    total[has] = ap_cum[rel_off[:-1][has] + n_in[has] - 1]
    n_rel = inp.num_relevant(threshold)
    defined = n_rel > 0
    values = np.zeros(inp.n_queries)
    np.divide(total, n_rel, out=values, where=defined)
    return MetricOutput(values, defined)


@metric(
    "rr",
    params=(_THRESHOLD,),
    formula="RR@k = 1 / rank of the first relevant document within k (0 if none)",
    source="trec_eval recip_rank",
    description="reciprocal rank",
)
def reciprocal_rank(inp: MetricInput, threshold: float) -> MetricOutput:
    r = inp.ranked
    pos, rel_off, _ = _relevant_so_far(inp, threshold)
    values = np.zeros(inp.n_queries)
    hit = np.flatnonzero(np.diff(rel_off) > 0)
    first = r.rank_at(pos[rel_off[hit]])  # each query's first relevant document
    inside = first <= (np.inf if inp.k is None else inp.k)
    values[hit[inside]] = 1.0 / first[inside]
    return MetricOutput(values, inp.num_relevant(threshold) > 0)


@metric(
    "ia_ndcg",
    uses=_NDCG_USES,
    supports_averaged_ties=True,
    needs_subtopics=True,
    formula="IA-NDCG@k = sum_intents P(intent | topic) * NDCG@k(intent qrels)",
    source="Agrawal, Gollapudi, Halverson & Ieong, WSDM 2009 (intent-aware metrics)",
    description="intent-aware NDCG over subtopic qrels; uniform intent probabilities by default",
)
def ia_ndcg(inp: MetricInput) -> MetricOutput:
    return intent_aware(inp, ndcg)


@hookimpl
def evalkit_register_metrics() -> Any:
    return declared(__name__, Metric)
