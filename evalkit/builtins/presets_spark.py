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
  :func:`evalkit.builtins.metrics_spark.ndcg_mllib`): every judged item is in the
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

from ..components import Preset
from ..hookspecs import hookimpl

SPARK = "apache/spark v4.x mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala"
RECOMMENDERS = "recommenders-team/recommenders recommenders/evaluation/spark_evaluation.py"

BINARY = "ndcg(gain=binary,discount=log2,idcg=judged,ties=stable)"
GRADED = "ndcg_mllib(ties=stable)"


@hookimpl
def evalkit_register_presets(register):
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
