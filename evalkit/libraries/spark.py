"""Presets that reproduce the NDCG of Apache Spark (MLlib ``RankingMetrics``, ML
``RankingEvaluator``) and of microsoft/recommenders' ``SparkRankingEvaluation``,
so a Spark user sees what their current number was and which flavour it is.

All three compute ``RankingMetrics.ndcgAt(k)`` (apache/spark
mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala,
Spark 4.x): for each (predicted array, ground-truth array[, relevance array]):

* **binary** (no relevance values; the only form pyspark's Python
  ``pyspark.mllib.evaluation.RankingMetrics`` and ``RankingEvaluator`` reach):
  gain 1 for a predicted item in the ground-truth set (``gain=binary``: the
  ground truth is the judged items with a positive grade), discount
  ``1/ln(i + 2)`` (the base cancels in the ratio: ``log2``), ideal DCG from
  ``min(|ground truth|, k)`` ones (``idcg=judged``);
* **graded** (relevance values, JVM side only; the metric
  :func:`ndcg_mllib` below): every judged item is in the
  ground truth whatever its grade, the gain is ``2^rel - 1`` for every grade
  (negative grades count negatively, unjudged items 0), and the ideal DCG sums the
  gains of the ground-truth items *in the caller's order* (the qrels' order), so
  NDCG exceeds 1 when that order is not sorted, and an ideal DCG below 0 still
  divides (for non-negative grades this is ``ndcg(gain=exp2,idcg=listed)``);
* an empty ground truth or an ideal DCG of 0 scores 0 (``empty=zero``).

Spark takes the predicted array as given; evalkit sorts the run by score with
tied items in input order (``ties=stable``), which is the array a caller builds by
sorting on the prediction (give tied items the order they had in that array).
recommenders' ``_get_top_k_items`` ranks by ``row_number()`` over the prediction
in descending order (ties in Spark's sort order, which it documents as unsupported:
"this does not work for rating of the same value") and inner-joins the users of
predictions and ground truth (``missing=skip``).
"""

from __future__ import annotations

import numpy as np

from ..components import Metric, MetricOutput, Preset, declared, metric
from .._builtin_hookimpl import hookimpl
from ..kernel import MetricInput, offsets_from_sorted, segment_ids, segment_sum
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from ..hookspecs import Register

SPARK = "apache/spark v4.x mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala"
RECOMMENDERS = "recommenders-team/recommenders recommenders/evaluation/spark_evaluation.py"

BINARY = "ndcg(gain=binary,discount=log2,idcg=judged,ties=stable)"
GRADED = "ndcg_mllib(ties=stable)"


# MLlib's graded NDCG as a metric kernel of its own:
#
# ``RankingMetrics.ndcgAt(k)`` with relevance values (apache/spark
# mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala,
# ``ndcgAt``, the ``useBinary == false`` branch) differs from the composed
# ``ndcg(gain=exp2,idcg=listed)`` once grades are negative, because the engine gives
# negative grades gain 0 (trec_eval's rule) and Spark does not:
#
# * every label of the ground-truth array counts (``labSet.nonEmpty``; its size
#   bounds the ideal), whatever its relevance value: zero and negative ones too;
# * the gain is ``2^rel - 1`` for every relevance value, so a negative grade has a
#   negative gain in ``(-1, 0)``; an unjudged item has relevance 0, gain 0
#   (``relMap.getOrElse(pred(i), 0.0)``);
# * the discount is ``1 / ln(i + 2)`` for 0-based position ``i`` (natural log: the
#   base cancels in the ratio, and the same arithmetic gives Spark's digits);
# * the ideal DCG ``maxDcg`` sums ``(2^rel(lab(i)) - 1) / ln(i + 2)`` over the first
#   ``min(|labels|, k)`` labels *in the caller's order* (not sorted), so it can be
#   smaller than the DCG (NDCG above 1), zero, or negative;
# * ``maxDcg == 0`` scores 0 (``empty=zero``); any other ``maxDcg``, negative
#   included, divides: ``dcg / maxDcg`` (negative NDCG, or a positive one from two
#   negative sums, occurs).

def _mllib_gain(grade: np.ndarray) -> np.ndarray:
    """``2^rel - 1`` for every grade (negative ones too); unjudged (``NaN``) -> 0."""
    return np.exp2(np.nan_to_num(grade, nan=0.0)) - 1.0


def _mllib_discount(rank: np.ndarray) -> np.ndarray:
    """``1 / ln(rank + 1)`` for 1-based ``rank`` (Spark: ``1 / math.log(i + 2)``, 0-based ``i``)."""
    return 1.0 / np.log(rank.astype(np.float64) + 1.0)


@metric(
    "ndcg_mllib",
    supports_averaged_ties=True,
    formula=("NDCG@k = sum_{r<=k} (2^rel_r - 1)/ln(r+1) / sum_{i<=min(L,k)} (2^rel(label_i) - 1)/ln(i+1), "
             "labels in qrels order, every grade counting (negative grades: negative gains); "
             "0 when the denominator is 0"),
    source=f"{SPARK} ndcgAt (relevance values given: relMap, maxDcg over lab(i) in the caller's order)",
    description=("Spark MLlib's graded NDCG: gain 2^rel - 1 for every grade (negatives count negatively), "
                 "ideal in the qrels' order, can exceed 1 or be negative"),
)
def ndcg_mllib(inp: MetricInput) -> MetricOutput:
    """Spark MLlib ``RankingMetrics.ndcgAt(k)`` with relevance values (module docstring).

    The qrels are the caller's label array (in their order) and the run sorted under
    the flavour's tie policy the predicted array. A ``min_grade`` above 0 drops the
    grades below it from both (a Spark caller filtering the labels first).

    :returns: ``float64`` ``(q,)``; ``defined`` is false where the ideal DCG is 0.
    """
    r = inp.ranked
    grade = r.grade
    if inp.min_grade > 0:
        grade = np.where(grade >= inp.min_grade, grade, np.nan)
    weights = inp.position_weights(_mllib_discount(r.rank))  # the cutoff, averaged ties
    dcg = inp.per_query(_mllib_gain(grade) * weights)
    judged = inp.judged_grade
    seg = segment_ids(inp.judged_offsets)
    if inp.min_grade > 0:
        keep = judged >= inp.min_grade
        judged, seg = judged[keep], seg[keep]
    offsets = offsets_from_sorted(seg, inp.n_queries)
    rank = np.arange(len(judged), dtype=np.int64) - offsets[seg] + 1
    within = rank <= inp.k if inp.k is not None else np.ones(len(rank), dtype=bool)
    ideal = segment_sum((_mllib_gain(judged) * _mllib_discount(rank))[within], seg[within], inp.n_queries)
    defined = ideal != 0.0
    values = np.zeros(inp.n_queries)
    np.divide(dcg, ideal, out=values, where=defined)
    return MetricOutput(values, defined)


@hookimpl
def evalkit_register_metrics() -> Any:
    return declared(__name__, Metric)


@hookimpl
def evalkit_register_presets(register: Register) -> None:
    register(Preset(
        name="spark_mllib.ndcgAt",
        spec=BINARY,
        description=("Spark MLlib RankingMetrics.ndcgAt(k), binary (pyspark's RankingMetrics): an item of the "
                     "ground truth has gain 1, ideal from min(|ground truth|, k) ones"),
        source=f"{SPARK} ndcgAt (useBinary branch); pyspark/mllib/evaluation.py RankingMetrics.ndcgAt",
        requires_cutoff=True,
        default_cutoffs=(10,),  # MLlib has no default k; 10 is RankingEvaluator's
        native_name="ndcgAt({k})",
    ))
    register(Preset(
        name="spark_mllib.ndcgAt_graded",
        spec=GRADED,
        description=("Spark MLlib RankingMetrics.ndcgAt(k) with relevance values (JVM RankingMetrics.of with "
                     "(pred, labels, relevance)): gain 2^rel - 1 for every grade (negative grades count "
                     "negatively), ideal DCG in the caller's label order, can exceed 1 or be negative"),
        source=(f"{SPARK} ndcgAt (graded branch: relMap over every label, maxDcg over lab(i) in the given "
                "order, maxDcg == 0 -> 0)"),
        requires_cutoff=True,
        default_cutoffs=(10,),  # MLlib has no default k; 10 is RankingEvaluator's
        native_name="ndcgAt({k})",
    ))
    register(Preset(
        name="spark_ml.ndcgAtK",
        spec=BINARY,
        description="Spark ML RankingEvaluator(metricName='ndcgAtK', k): MLlib's binary ndcgAt",
        source=("apache/spark mllib/src/main/scala/org/apache/spark/ml/evaluation/RankingEvaluator.scala "
                "evaluate (new RankingMetrics(prediction array, label array); ndcgAtK -> ndcgAt(k))"),
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="ndcgAtK@{k}",
    ))
    register(Preset(
        name="recommenders.ndcg_at_k",
        spec=BINARY,
        description=("microsoft/recommenders SparkRankingEvaluation.ndcg_at_k: top k predictions per user by "
                     "row_number over prediction desc, every rated item relevant (binary), MLlib ndcgAt(k), "
                     "users of predictions and ground truth inner-joined"),
        source=(f"{RECOMMENDERS} SparkRankingEvaluation._calculate_metrics (collect_list of rated items, "
                "inner join on the user), ndcg_at_k (RankingMetrics.ndcgAt), _get_top_k_items"),
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="ndcg@{k}",
    ))
