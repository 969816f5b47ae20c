"""Search engines' rank evaluation: Elasticsearch ``_rank_eval`` (``dcg``, with and
without ``normalize``) and OpenSearch search-relevance (NDCG and DCG rounded half-up
to 2 decimals per query), with Elasticsearch's ideal ranking cut at the number of hits
returned (the IDCG strategy ``judged_at_returned``)."""

from __future__ import annotations

import numpy as np

from ..components import IdcgStrategy, Preset, declared, idcg_strategy
from .._builtin_hookimpl import hookimpl
from ..kernel import IdealContext, ideal_dcg, offsets_from_sorted, segment_ids
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from ..hookspecs import Register


@idcg_strategy(
    "judged_at_returned",
    formula="IDCG@k = DCG of all judged documents sorted by gain, first min(k, n_returned)",
    source=("Elasticsearch modules/rank-eval/src/main/java/org/elasticsearch/index/rankeval/"
            "DiscountedCumulativeGain.java evaluate(): the ideal DCG of every rated document "
            "sorted, cut at the number of hits returned (ratingsInSearchHits.size())"),
    description="ideal ranking of every judged document, cut at the number of documents returned",
)
def judged_at_returned(ctx: IdealContext) -> np.ndarray:
    """The cut is per query: ``min(k, |returned|)`` (``|returned|`` when ``k`` is ``None``)."""
    nq = len(ctx.judged_offsets) - 1
    gains = ctx.judged_gain
    seg = segment_ids(ctx.judged_offsets)
    pos = np.flatnonzero(gains > 0)
    order = np.lexsort((-gains[pos], seg[pos]))
    pos, seg = pos[order], seg[pos][order]  # each query's positive gains, best first
    starts = np.searchsorted(seg, np.arange(nq + 1))
    rank = np.arange(len(pos), dtype=np.int64) - starts[seg] + 1
    cut = np.diff(ctx.ranked.offsets)
    if ctx.k is not None:
        cut = np.minimum(cut, ctx.k)
    keep = rank <= cut[seg]
    # the ideal ranking, already cut per query, through ideal_dcg (which explain traces)
    return ideal_dcg(gains[pos[keep]], offsets_from_sorted(seg[keep], nq), ctx.discount, None)



def _presets() -> Any:
    # ------------------------------------------------------------------ Elasticsearch
    es = ("elastic/elasticsearch modules/rank-eval/src/main/java/org/elasticsearch/index/rankeval/"
          "DiscountedCumulativeGain.java (evaluate: unrated hits keep their rank and add nothing "
          "when unknown_doc_rating is null; computeDCG: (2^rating - 1) / log2(rank + 1); normalize: "
          "every rated document's rating sorted, first min(hits, ratings); IDCG 0 -> 0; PARSER: "
          "normalize false and k = 10 by default, k is the search size)")
    yield Preset(
        name="elasticsearch.dcg",
        spec="dcg(gain=exp2,discount=log2,ties=stable,missing=zero)",
        description=("Elasticsearch _rank_eval metric 'dcg' (normalize: false, the default): raw "
                     "DCG of the hits in the order returned, unrated hits gain 0"),
        source=es,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="dcg(k={k})",
    )
    yield Preset(
        name="elasticsearch.ndcg",
        spec="ndcg(gain=exp2,discount=log2,idcg=judged_at_returned,ties=stable,missing=zero)",
        description=("Elasticsearch _rank_eval 'dcg' with normalize: true: the ideal DCG of every "
                     "rated document cut at the number of hits returned (at most k)"),
        source=es,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="dcg(normalize=true,k={k})",
    )
    # ------------------------------------------------------------------ OpenSearch
    osr = ("opensearch-project/search-relevance @0b75cf84b5b2 src/main/java/org/opensearch/"
           "searchrelevance/metrics/calculator/Evaluation.java (roundToTwoDecimals: "
           "Math.round(value * 100) / 100, half-up; calculateNDCGAtK: rawDCGAtK / calculateIDCG, "
           "IDCG 0 -> 0, then rounded; rawDCGAtK: (2^rel - 1) / log2(i + 2) over the first k hits; "
           "calculateIDCG: every judgment sorted, cut at k)")
    yield Preset(
        name="opensearch.ndcg",
        spec="ndcg(gain=exp2,discount=log2,idcg=judged,ties=stable,missing=zero,round=2,rounding=half_up)",
        description=("OpenSearch search-relevance NDCG@k (version @0b75cf84b5b2): unrounded DCG "
                     "over the ideal of all judgments cut at k, each query rounded half-up to 2 "
                     "decimals before the mean (earlier versions differ: see the source)"),
        source=osr,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="NDCG@{k}",
    )
    yield Preset(
        name="opensearch.dcg",
        spec="dcg(gain=exp2,discount=log2,ties=stable,missing=zero,round=2,rounding=half_up)",
        description="OpenSearch search-relevance DCG@k: raw DCG, each query rounded half-up to 2 decimals",
        source=osr,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="DCG@{k}",
    )


@hookimpl
def evalkit_register_idcg_strategies() -> Any:
    return declared(__name__, IdcgStrategy)


@hookimpl
def evalkit_register_presets(register: Register) -> None:
    for preset in _presets():
        register(preset)
