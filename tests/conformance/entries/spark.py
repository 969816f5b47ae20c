"""Conformance entries of the presets of ``evalkit/libraries/spark.py`` (Spark MLlib / ML, recommenders' Spark evaluation)."""

from __future__ import annotations

import cf_refs as R
from cf_refs import version
from cf_base import Entry, F64

SPARK_MLLIB = lambda: version("pyspark") + " RankingMetrics.ndcgAt"  # noqa: E731
SPARK_JVM = (" with relevance values, the JVM's org.apache.spark.mllib.evaluation.RankingMetrics through py4j "
             "(pyspark's wrapper drops them)")
SPARK_DATA = ("generated", "trec_eval_test/qrels.rel_level")
#: MLlib's graded NDCG: grades -2..4 with ties (negative grades have negative gains in Spark)
SPARK_DATA_GRADED = ("generated", "robust03/InexpC2")
SPARK_ORDER = ("; Spark takes the predicted array as given: it is built by sorting on the score, tied "
               "documents in the run's order (ties=stable)")
RECOMMENDERS_REF = lambda: ("recommenders-team/recommenders tests/unit/recommenders/evaluation/"  # noqa: E731
                            "test_spark_evaluation.py::test_spark_ndcg_at_k (mean 0.38172 at k = 10, on "
                            "conftest.py's rating_true/rating_pred); per user: what its ndcg_at_k runs, "
                            + version("pyspark") + " RankingMetrics.ndcgAt on the top-k predictions; "
                            "recommenders itself is not installed (its dependencies are far heavier)")


def _recommenders(case, k=None):
    ref = R.spark_mllib(graded=False, top_k=True)(case, k)
    if k == 10:
        ref.mean = 0.38172  # the value recommenders' own test asserts
    return ref


ENTRIES: list[Entry] = [
    # ------------------------------------------------------------------ Apache Spark
    Entry("spark_mllib.ndcgAt", R.spark_mllib(graded=False), SPARK_MLLIB, SPARK_DATA, 1e-12, F64 + SPARK_ORDER,
          cutoffs=(1, 5, 10)),
    Entry("spark_mllib.ndcgAt_graded", R.spark_mllib(graded=True), lambda: SPARK_MLLIB() + SPARK_JVM,
          SPARK_DATA_GRADED, 1e-12, F64 + SPARK_ORDER, cutoffs=(1, 5, 10)),
    Entry("spark_ml.ndcgAtK", R.spark_ml_ranking_evaluator, lambda: version("pyspark") + " RankingEvaluator",
          ("generated",), 1e-12, F64 + SPARK_ORDER, cutoffs=(3, 10)),
    Entry("recommenders.ndcg_at_k", R.by_case({"recommenders/test_vectors": _recommenders}), RECOMMENDERS_REF,
          ("recommenders/test_vectors",), 1e-5,
          "recommenders' test asserts 0.38172 (5 decimals, truncated; its TOL is 1e-4); per user: MLlib in "
          "float64", cutoffs=(3, 10)),
]
