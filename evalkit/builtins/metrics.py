"""Built-in metrics. Each kernel maps a :class:`~evalkit.engine.kernels.MetricInput`
(all queries of one run) to a :class:`~evalkit.components.MetricOutput`."""

from __future__ import annotations

import numpy as np

from ..components import Metric, MetricOutput, Param
from ..engine.kernels import MetricInput, segment_cumsum
from ..hookspecs import hookimpl

_THRESHOLD = Param("threshold", "float", 1.0, "minimum grade that counts as relevant (trec_eval -l)")


def _all(n: int) -> np.ndarray:
    return np.ones(n, dtype=bool)


def dcg(inp: MetricInput) -> MetricOutput:
    return MetricOutput(inp.dcg(), _all(inp.n_queries))


def ndcg(inp: MetricInput) -> MetricOutput:
    num = inp.dcg()
    den = inp.ideal()
    defined = den > 0
    values = np.zeros(inp.n_queries)
    np.divide(num, den, out=values, where=defined)
    return MetricOutput(values, defined)


def err(inp: MetricInput, max_grade: float) -> MetricOutput:
    """ERR = sum_r (1/r) R_r prod_{i<r} (1 - R_i), R = (2^g - 1) / 2^max_grade."""
    r = inp.ranked
    g = np.clip(np.nan_to_num(r.grade, nan=0.0), 0.0, max_grade)
    stop = (np.exp2(g) - 1.0) / np.exp2(max_grade)
    stop = np.where(inp.in_cutoff(), stop, 0.0)
    log_continue = np.log1p(-stop)
    before = segment_cumsum(log_continue, r.offsets) - log_continue
    contrib = stop * np.exp(before) / r.rank
    return MetricOutput(inp.per_query(contrib), _all(inp.n_queries))


def precision(inp: MetricInput, threshold: float) -> MetricOutput:
    rel = inp.relevant(threshold)
    hits = inp.per_query(rel * inp.position_weights(np.ones(len(rel))))
    if inp.k is not None:
        denom = np.full(inp.n_queries, float(inp.k))
    else:
        denom = inp.ranked.length.astype(np.float64)
    values = np.zeros(inp.n_queries)
    np.divide(hits, denom, out=values, where=denom > 0)
    return MetricOutput(values, _all(inp.n_queries))


def recall(inp: MetricInput, threshold: float) -> MetricOutput:
    rel = inp.relevant(threshold)
    hits = inp.per_query(rel * inp.position_weights(np.ones(len(rel))))
    n_rel = inp.num_relevant(threshold)
    defined = n_rel > 0
    values = np.zeros(inp.n_queries)
    np.divide(hits, n_rel, out=values, where=defined)
    return MetricOutput(values, defined)


def average_precision(inp: MetricInput, threshold: float) -> MetricOutput:
    r = inp.ranked
    rel = inp.relevant(threshold) * inp.in_cutoff()
    prec = segment_cumsum(rel, r.offsets) / r.rank
    total = inp.per_query(prec * rel)
    n_rel = inp.num_relevant(threshold)
    defined = n_rel > 0
    values = np.zeros(inp.n_queries)
    np.divide(total, n_rel, out=values, where=defined)
    return MetricOutput(values, defined)


def reciprocal_rank(inp: MetricInput, threshold: float) -> MetricOutput:
    r = inp.ranked
    rel = (inp.relevant(threshold) > 0) & inp.in_cutoff()
    values = np.zeros(inp.n_queries)
    if rel.any():
        q = r.query[rel]
        first = np.full(inp.n_queries, np.iinfo(np.int64).max)
        np.minimum.at(first, q, r.rank[rel])
        hit = first < np.iinfo(np.int64).max
        values[hit] = 1.0 / first[hit]
    return MetricOutput(values, inp.num_relevant(threshold) > 0)


def ia_ndcg(inp: MetricInput) -> MetricOutput:
    from ..engine.intents import intent_aware

    return intent_aware(inp, ndcg)


_NDCG_USES = frozenset({"gain", "discount", "idcg"})


@hookimpl
def evalkit_register_metrics(register):
    register(Metric(
        name="dcg",
        fn=dcg,
        uses=frozenset({"gain", "discount"}),
        supports_averaged_ties=True,
        formula="DCG@k = sum_{r<=k} gain(rel_r) * discount(r)",
        source="Järvelin & Kekäläinen, ACM TOIS 2002",
        description="discounted cumulative gain",
    ))
    register(Metric(
        name="ndcg",
        fn=ndcg,
        uses=_NDCG_USES,
        supports_averaged_ties=True,
        formula="NDCG@k = DCG@k / IDCG@k",
        source="Järvelin & Kekäläinen, ACM TOIS 2002",
        description="normalised DCG; the IDCG strategy picks the ideal ranking",
    ))
    register(Metric(
        name="err",
        fn=err,
        params=(Param("max_grade", "float", 4.0, "grade with stop probability (2^g-1)/2^g", minimum=0.0,
                      exclusive_minimum=True),),
        formula="ERR@k = sum_{r<=k} (1/r) R_r prod_{i<r}(1-R_i), R = (2^rel - 1) / 2^max_grade",
        source="Chapelle, Metzler, Zhang & Grinspan, CIKM 2009; gdeval.pl (max grade 4)",
        description="expected reciprocal rank (cascade model); grades above max_grade are clipped",
    ))
    register(Metric(
        name="precision",
        fn=precision,
        params=(_THRESHOLD,),
        supports_averaged_ties=True,
        formula="P@k = |relevant in top k| / k  (no k: / |retrieved|)",
        source="trec_eval P_k (divides by k even when fewer are retrieved), set_P",
        description="precision; relevant = grade >= threshold",
    ))
    register(Metric(
        name="recall",
        fn=recall,
        params=(_THRESHOLD,),
        supports_averaged_ties=True,
        formula="R@k = |relevant in top k| / |relevant judged|",
        source="trec_eval recall_k",
        description="recall; relevant = grade >= threshold",
    ))
    register(Metric(
        name="ap",
        fn=average_precision,
        params=(_THRESHOLD,),
        formula="AP@k = sum_{r<=k, rel_r} P@r / |relevant judged|",
        source="trec_eval map / map_cut_k",
        description="average precision",
    ))
    register(Metric(
        name="rr",
        fn=reciprocal_rank,
        params=(_THRESHOLD,),
        formula="RR@k = 1 / rank of the first relevant document within k (0 if none)",
        source="trec_eval recip_rank",
        description="reciprocal rank",
    ))
    register(Metric(
        name="ia_ndcg",
        fn=ia_ndcg,
        uses=_NDCG_USES,
        supports_averaged_ties=True,
        needs_subtopics=True,
        formula="IA-NDCG@k = sum_intents P(intent | topic) * NDCG@k(intent qrels)",
        source="Agrawal, Gollapudi, Halverson & Ieong, WSDM 2009 (intent-aware metrics)",
        description="intent-aware NDCG over subtopic qrels; uniform intent probabilities by default",
    ))
