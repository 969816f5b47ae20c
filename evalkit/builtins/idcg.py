"""Built-in IDCG strategies: which documents form the ideal ranking."""

from __future__ import annotations

import numpy as np

from ..components import IdcgStrategy, declared, idcg_strategy
from ..kernel import IdealContext, ideal_dcg, listed_dcg
from ..errors import FlavourError
from .._builtin_hookimpl import hookimpl
from typing import Any


@idcg_strategy(
    "judged",
    formula="IDCG@k = DCG@k of all judged documents of the query sorted by gain, first k (negative=gain: "
            "negative gains included, after the others)",
    source="Järvelin & Kekäläinen 2002; trec_eval ndcg / ndcg_cut.k (IDCG from the whole judged pool)",
    description="ideal ranking of every judged document in the qrels (retrieved or not), cut at k",
)
def judged(ctx: IdealContext) -> np.ndarray:
    """Under ``negative=gain`` (``ctx.negative``) negative gains keep their places at the
    end of the ideal ranking (microsoft/recommenders ``ndcg_at_k``), as in ``returned``."""
    return ideal_dcg(ctx.judged_gain, ctx.judged_offsets, ctx.discount, ctx.k, cache=ctx.cache,
                     negative=getattr(ctx, "negative", "zero") == "gain")


@idcg_strategy(
    "returned",
    formula="IDCG@k = DCG@k of the returned documents' gains sorted, first k (negative=gain: "
            "negative gains included, after the others)",
    source="scikit-learn ndcg_score, LightGBM/XGBoost (the returned list is the whole row); "
           "negative=gain: CatBoost catboost/libs/metrics/dcg.cpp CalcIDcg",
    description="ideal reordering of the whole returned list (every retrieved document), cut at k",
)
def returned(ctx: IdealContext) -> np.ndarray:
    """Under ``negative=gain`` (``ctx.negative``) negative gains keep their places at
    the end of the ideal ranking, so the IDCG may be 0 or negative (the ``empty``
    convention then applies, as CatBoost's ``idcg > 0 ? dcg / idcg : 1``)."""
    if getattr(ctx, "negative", "zero") == "gain":
        return ideal_dcg(ctx.ranked_gain, ctx.ranked.offsets, ctx.discount, ctx.k, cache=ctx.cache,
                         negative=True)
    returned_gains = getattr(ctx, "returned_gains", None) or getattr(ctx, "positive_ranked_gain", None)
    if returned_gains is not None:  # the same ideal from fewer gains, in any order within a query
        gains, offsets = returned_gains()
        return ideal_dcg(gains, offsets, ctx.discount, ctx.k, cache=ctx.cache)
    return ideal_dcg(ctx.ranked_gain, ctx.ranked.offsets, ctx.discount, ctx.k, cache=ctx.cache)


@idcg_strategy(
    "returned_top_k",
    formula="IDCG@k = DCG of the top-k returned documents' gains sorted",
    source="NDCG code that cuts the list at k before sorting it for the ideal, e.g. one version of Quepid's ndcg@10 scorer (o19s/quepid db/scorers/ndcg@10.js)",
    description="ideal reordering of only the first k returned documents",
)
def returned_top_k(ctx: IdealContext) -> np.ndarray:
    """:raises FlavourError: a cutoff together with an averaged tie policy."""
    if ctx.k is None:
        return returned(ctx)
    if ctx.ranked.averaged:
        # which documents are "the first k" depends on the order of tied documents, so
        # DCG / IDCG is not linear in the averaged discounts: E[NDCG] is not computed
        raise FlavourError(
            "idcg=returned_top_k with a cutoff cannot be combined with an averaged tie policy "
            "(the ideal depends on how ties are broken); use idcg=returned or idcg=judged, "
            "or a deterministic tie policy"
        )
    keep = ctx.ranked.rank <= ctx.k
    counts = np.bincount(ctx.ranked.query[keep], minlength=ctx.ranked.n_queries)
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return ideal_dcg(ctx.ranked_gain[keep], offsets, ctx.discount, ctx.k,
                     negative=getattr(ctx, "negative", "zero") == "gain")


@idcg_strategy(
    "listed",
    formula="IDCG@k = sum over the first k judged documents in qrels order of gain * discount (unsorted)",
    source=("apache/spark mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala "
            "ndcgAt (graded: maxDcg sums the relevance of lab(i), i < min(|labels|, k), in the "
            "caller's order)"),
    description="the qrels' own order taken as the ideal ranking (MLlib's graded NDCG; can exceed 1)",
)
def listed(ctx: IdealContext) -> np.ndarray:
    """The judged documents in the order the qrels list them (not sorted), first ``k``:
    Spark MLlib's graded ``ndcgAt`` takes the ideal from the caller's label array as
    given, so NDCG can exceed 1."""
    return listed_dcg(ctx.judged_gain, ctx.judged_offsets, ctx.discount, ctx.k)


@hookimpl
def evalkit_register_idcg_strategies() -> Any:
    return declared(__name__, IdcgStrategy)
