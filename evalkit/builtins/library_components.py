"""Components the recommender, learning-to-rank, search-engine and embedding-benchmark
presets need (issue 11): a gain shifted to a relevance threshold, an IDCG cut at the
number of documents returned. (The binary gain with a threshold, ``binary``, is in
:mod:`evalkit.builtins.gains`: one gain serves these presets and the Spark MLlib ones.) (Ties by docno ascending, for sentence-transformers, are the
built-in ``docno_ascending`` policy of :mod:`evalkit.builtins.ties`.)

The conventions these presets also need (per-query and final rounding, ``1 - value``,
run filters) are flavour conventions: see :mod:`evalkit.flavour` (``round``,
``round_mean``, ``rounding``, ``complement``, ``run_filter``).
"""

from __future__ import annotations

import numpy as np

from ..components import Gain, IdcgStrategy, Param, declared, gain, idcg_strategy
from ..hookspecs import hookimpl
from ..kernel import IdealContext, ideal_dcg, offsets_from_sorted, segment_ids


@gain(
    "exp2_from",
    params=(Param("threshold", "float", 0.0, "smallest grade that counts as relevant (Elliot's "
                  "relevance_threshold; its default is 0)"),),
    formula="g(rel) = 2^(rel - threshold + 1) - 1 if rel >= threshold else 0",
    source=("Elliot elliot/evaluation/metrics/accuracy/ndcg/ndcg.py and "
            "elliot/evaluation/relevance/relevance.py (DiscountedRelevance.get_rel: "
            "2 ** (rel - threshold + 1) - 1 for rel >= threshold)"),
    description="exponential gain shifted so that the threshold grade gains 1",
)
def exp2_from(grades: np.ndarray, threshold: float = 0.0) -> np.ndarray:
    out = np.exp2(grades - threshold + 1.0) - 1.0
    out[grades < threshold] = 0.0
    return out


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


@hookimpl
def evalkit_register_gains():
    return declared(__name__, Gain)


@hookimpl
def evalkit_register_idcg_strategies():
    return declared(__name__, IdcgStrategy)
