"""Presets of Spark's own NDCG, differential-tested against real pyspark 4:
``pyspark.mllib.evaluation.RankingMetrics.ndcgAt`` (binary), the JVM's graded
``org.apache.spark.mllib.evaluation.RankingMetrics`` (reached through py4j: pyspark's
Python wrapper drops the relevance values, as ISSUE-NOTES says and as checked
here), ``pyspark.ml.evaluation.RankingEvaluator`` (``ndcgAtK``), and
microsoft/recommenders' ``SparkRankingEvaluation.ndcg_at_k`` against the test
vectors of its own test suite (recommenders is not installed: its dependencies are
far heavier than the check).
"""

from __future__ import annotations

import numpy as np
import pytest

import evalkit
from evalkit import spark as eks
from evalkit.spark.columns import RECOMMENDERS_LIB

pytestmark = pytest.mark.spark
CUTOFFS = (1, 3, 5, 10)


def random_case(seed=11, users=30):
    """``(qrels rows, run rows)``: grades 0-3 (users 0 and 1 with no positive grade),
    distinct scores per user (Spark takes an ordered array; no ties to break), some
    users without predictions."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for u in range(users):
        judged = rng.choice(40, size=int(rng.integers(1, 12)), replace=False)
        for i in judged:
            qrels.append((f"u{u}", f"i{i}", 0.0 if u < 2 else float(rng.integers(0, 4))))
        if u % 9 == 8:
            continue  # no predictions for this user
        items = rng.choice(40, size=int(rng.integers(1, 15)), replace=False)
        scores = rng.permutation(len(items)).astype(float)
        run += [(f"u{u}", f"i{i}", s) for i, s in zip(items, scores)]
    return qrels, run


def arrays(qrels_rows, run_rows):
    """Per user with predictions: ``(predicted items by score desc, relevant items, all
    judged items in qrels order, their grades)``."""
    out = {}
    for u in sorted({q for q, _, _ in run_rows}):
        preds = sorted([(s, i) for q, i, s in run_rows if q == u], reverse=True)
        judged = [(i, g) for q, i, g in qrels_rows if q == u]
        out[u] = ([i for _, i in preds], [i for i, g in judged if g > 0], [i for i, _ in judged],
                  [g for _, g in judged])
    return out


def local(qrels_rows, run_rows, spec):
    res = evalkit.evaluate(evalkit.Qrels.from_rows(qrels_rows), evalkit.Run.from_rows(run_rows), [spec])
    return res


def test_mllib_binary_ndcg_at(spark):
    from pyspark.mllib.evaluation import RankingMetrics

    qrels, run = random_case()
    per_user = arrays(qrels, run)
    # users with an empty ground truth last: pyspark infers the array type from the first rows
    pairs = sorted(((p, rel) for p, rel, _, _ in per_user.values()), key=lambda pr: not pr[1])
    metrics = RankingMetrics(spark.sparkContext.parallelize(pairs))
    for k in CUTOFFS:
        res = local(qrels, run, f"spark_mllib.ndcgAt@{k}")
        assert res.means()[0, 0] == pytest.approx(metrics.ndcgAt(k), abs=1e-12)
        assert int(res.counts()[0, 0]) == len(per_user)  # users without predictions are left out
    for user in ("u5", "u12"):  # per query: one user at a time
        p, rel, _, _ = per_user[user]
        one = RankingMetrics(spark.sparkContext.parallelize([(p, rel)])).ndcgAt(5)
        assert local(qrels, run, "spark_mllib.ndcgAt@5").per_query(0, 0)[user] == pytest.approx(one, abs=1e-12)


def test_python_wrapper_drops_relevance_values(spark):
    """What ISSUE-NOTES says of pyspark 4's Python RankingMetrics: with relevance
    values it still returns the binary number."""
    from pyspark.mllib.evaluation import RankingMetrics

    with_rel = RankingMetrics(spark.sparkContext.parallelize([(["b", "a", "x"], ["a", "b", "c"], [1.0, 3.0, 0.0])]))
    qrels = [("u", "a", 1.0), ("u", "b", 3.0), ("u", "c", 1.0)]  # c relevant: in the label set
    run = [("u", "b", 3.0), ("u", "a", 2.0), ("u", "x", 1.0)]
    assert with_rel.ndcgAt(3) == pytest.approx(local(qrels, run, "spark_mllib.ndcgAt@3").means()[0, 0], abs=1e-12)


def _jvm_graded(spark, rows):
    """The JVM's RankingMetrics over ``(pred, labels, relevance)`` triples."""
    sc = spark.sparkContext
    jvm, gateway = sc._jvm, sc._gateway

    def array(values, cls):
        out = gateway.new_array(cls, len(values))
        for i, v in enumerate(values):
            out[i] = v
        return out

    triples = jvm.java.util.ArrayList()
    for pred, labels, rel in rows:
        triples.add(jvm.scala.Tuple3(array(pred, jvm.java.lang.Object), array(labels, jvm.java.lang.Object),
                                     array([float(r) for r in rel], jvm.double)))
    rdd = sc._jsc.parallelize(triples).rdd()
    return jvm.org.apache.spark.mllib.evaluation.RankingMetrics(rdd, jvm.scala.reflect.ClassTag.AnyRef())


def test_mllib_graded_ndcg_at_with_caller_ordered_ideal(spark):
    qrels, run = random_case(seed=5)
    # a user whose qrels list the grades in ascending order and whose run ranks them best first
    qrels += [("top", "a", 0.0), ("top", "b", 1.0), ("top", "c", 3.0)]
    run += [("top", "c", 3.0), ("top", "b", 2.0), ("top", "a", 1.0)]
    per_user = arrays(qrels, run)
    metrics = _jvm_graded(spark, [(p, judged, grades) for p, _, judged, grades in per_user.values()])
    above_one = False
    for k in CUTOFFS:
        res = local(qrels, run, f"spark_mllib.ndcgAt_graded@{k}")
        assert res.means()[0, 0] == pytest.approx(metrics.ndcgAt(k), abs=1e-12)
        above_one |= bool((res.values > 1).any())
    assert above_one  # the unsorted ideal: NDCG above 1 occurs
    one = _jvm_graded(spark, [per_user["u7"][:1] + per_user["u7"][2:]]).ndcgAt(10)
    assert local(qrels, run, "spark_mllib.ndcgAt_graded@10").per_query(0, 0)["u7"] == pytest.approx(one, abs=1e-12)


def test_mllib_graded_ndcg_at_negative_and_zero_grades(spark):
    """Grades -2..4: Spark gives every label of the ground truth the gain 2^rel - 1
    (negative for a negative grade), so NDCG can be negative, and an ideal DCG below 0
    still divides; an ideal of 0 (only grade-0 labels) scores 0. Per user against the JVM."""
    rng = np.random.default_rng(23)
    qrels, run = [], []
    for u in range(25):
        judged = rng.choice(30, size=int(rng.integers(1, 10)), replace=False)
        qrels += [(f"u{u}", f"i{i}", float(rng.integers(-2, 5))) for i in judged]
        items = rng.choice(30, size=int(rng.integers(1, 12)), replace=False)
        run += [(f"u{u}", f"i{i}", float(s)) for i, s in zip(items, rng.permutation(len(items)))]
    qrels += [("neg", "a", -1.0), ("neg", "b", -2.0), ("zero", "a", 0.0), ("zero", "b", 0.0)]
    run += [("neg", "b", 2.0), ("neg", "a", 1.0), ("zero", "a", 2.0), ("zero", "x", 1.0)]
    per_user = arrays(qrels, run)
    got = {k: local(qrels, run, f"spark_mllib.ndcgAt_graded@{k}") for k in CUTOFFS}
    values = []
    for user, (p, _, judged, grades) in per_user.items():
        want = _jvm_graded(spark, [(p, judged, grades)])
        for k in CUTOFFS:
            v = got[k].per_query(0, 0)[user]
            assert v == pytest.approx(want.ndcgAt(k), abs=1e-12), (user, k)
            values.append(v)
    assert min(values) < 0 and max(values) > 1  # negative gains, unsorted ideals
    assert got[10].per_query(0, 0)["zero"] == 0.0
    assert got[10].per_query(0, 0)["neg"] == pytest.approx((-0.75 + -0.5 / np.log(3) * np.log(2)) / (-0.5 - 0.75 / np.log2(3)))
    every = _jvm_graded(spark, [(p, judged, grades) for p, _, judged, grades in per_user.values()])
    assert got[5].means()[0, 0] == pytest.approx(every.ndcgAt(5), abs=1e-12)


def test_ml_ranking_evaluator_ndcg_at_k(spark):
    from pyspark.ml.evaluation import RankingEvaluator

    qrels, run = random_case(seed=8)
    # RankingEvaluator wants array<double> items
    num = lambda rows: [(q, i[1:], v) for q, i, v in rows]  # noqa: E731
    per_user = arrays(num(qrels), num(run))
    frame = spark.createDataFrame([([float(x) for x in p], [float(x) for x in rel]) for p, rel, _, _ in per_user.values()],
                                  "prediction array<double>, label array<double>")
    for k in CUTOFFS:
        want = RankingEvaluator(metricName="ndcgAtK", k=k).evaluate(frame)
        assert local(qrels, run, f"spark_ml.ndcgAtK@{k}").means()[0, 0] == pytest.approx(want, abs=1e-12)


# microsoft/recommenders tests/unit/recommenders/evaluation/conftest.py (rating_true,
# rating_pred) and test_spark_evaluation.py::test_spark_ndcg_at_k (0.38172, TOL 1e-4)
RATING_TRUE = {
    "userID": [1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1],
    "itemID": [3, 1, 4, 5, 6, 7, 2, 5, 6, 8, 9, 10, 11, 12, 13, 14, 1, 2],
    "rating": [3, 5, 5, 3, 3, 1, 5, 5, 5, 4, 4, 3, 3, 3, 2, 1, 5, 4],
}
RATING_PRED = {
    "userID": [1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1],
    "itemID": [12, 10, 3, 5, 11, 13, 4, 10, 7, 13, 1, 3, 5, 2, 11, 14, 3, 10],
    "prediction": [12, 14, 13, 12, 11, 10, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 14, 13],
}


def test_recommenders_ndcg_at_k_test_vectors(spark):
    def frame(cols):
        return spark.createDataFrame(list(zip(*cols.values())), list(cols))

    true, pred = frame(RATING_TRUE), frame(RATING_PRED)
    got = eks.evaluate(true, pred, ["recommenders.ndcg_at_k@10"], columns=RECOMMENDERS_LIB)
    assert got.means()[0, 0] == pytest.approx(0.38172, rel=1e-4)
    # the ground truth against itself (prediction = rating): 1.0
    itself = frame({**RATING_TRUE, "prediction": RATING_TRUE["rating"]})
    got = eks.evaluate(true, itself, ["recommenders.ndcg_at_k@10"], columns=RECOMMENDERS_LIB)
    assert got.means()[0, 0] == 1.0
