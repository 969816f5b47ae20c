"""Test vectors for library presets: Elasticsearch, OpenSearch, TorchRec, allRank,
pytorchltr, RecBole, Elliot and MTEB (the JVM ones, allRank, Elliot and MTEB do not install
here; TorchRec, pytorchltr and RecBole the conformance suite also runs for real,
tests/conformance). Each vector comes from the library's
own unit tests or is worked by hand from the source lines cited by the preset
(evalkit/libraries/*.py); the comment above each names the file.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import evalkit.arrays as ea
from evalkit import Qrels, Run, evaluate
from evalkit.rounding import round_decimals

L2 = math.log2


def _run(qrels_rows, ranking: dict[str, list[str]], spec: str) -> dict[str, float]:
    """Per-query values of ``spec`` for runs given as ranked docno lists."""
    rows = [(q, d, float(len(docs) - i)) for q, docs in ranking.items() for i, d in enumerate(docs)]
    res = evaluate(Qrels.from_rows(qrels_rows), Run.from_rows(rows, name="r"), [spec])
    return res.per_query("r", 0)


def _mean(qrels_rows, rows, spec: str) -> float:
    return evaluate(Qrels.from_rows(qrels_rows), Run.from_rows(rows, name="r"), [spec]).mean("r", 0)


# ----------------------------------------------------------------------------- Elasticsearch
# modules/rank-eval/src/test/java/org/elasticsearch/index/rankeval/DiscountedCumulativeGainTests.java

def test_elasticsearch_dcg_at():
    """testDCGAt: ratings 3,2,3,0,1,2 in hit order; dcg 13.84826362927298, ideal
    14.595390756454922."""
    qrels = [("q", str(i), r) for i, r in enumerate([3, 2, 3, 0, 1, 2])]
    ranking = {"q": [str(i) for i in range(6)]}
    assert _run(qrels, ranking, "elasticsearch.dcg@10")["q"] == pytest.approx(13.84826362927298, rel=1e-12)
    assert _run(qrels, ranking, "elasticsearch.ndcg@10")["q"] == pytest.approx(
        13.84826362927298 / 14.595390756454922, rel=1e-12)


def test_elasticsearch_dcg_six_missing_ratings():
    """testDCGAtSixMissingRatings: hits 0-5, ratings {0: 3, 1: 2, 2: 3, 4: 1}; the unrated
    hits keep their rank: dcg 12.779642067948913, ideal 13.347184833073591."""
    qrels = [("q", "0", 3), ("q", "1", 2), ("q", "2", 3), ("q", "4", 1)]
    ranking = {"q": [str(i) for i in range(6)]}
    assert _run(qrels, ranking, "elasticsearch.dcg@10")["q"] == pytest.approx(12.779642067948913, rel=1e-12)
    assert _run(qrels, ranking, "elasticsearch.ndcg@10")["q"] == pytest.approx(
        12.779642067948913 / 13.347184833073591, rel=1e-12)


def test_elasticsearch_dcg_four_more_ratings():
    """testDCGAtFourMoreRatings: 4 hits, 4 rated documents (one not retrieved): the ideal
    DCG is cut at the 4 hits: dcg 12.392789260714371, ideal 13.347184833073591."""
    qrels = [("q", "0", 3), ("q", "1", 2), ("q", "2", 3), ("q", "4", 1)]
    ranking = {"q": ["0", "1", "2", "3"]}
    assert _run(qrels, ranking, "elasticsearch.dcg@10")["q"] == pytest.approx(12.392789260714371, rel=1e-12)
    assert _run(qrels, ranking, "elasticsearch.ndcg@10")["q"] == pytest.approx(
        12.392789260714371 / 13.347184833073591, rel=1e-12)
    # 2 hits: the ideal is cut at 2 (ratings 3, 3), not at k = 10
    two = _run(qrels, {"q": ["0", "1"]}, "elasticsearch.ndcg@10")["q"]
    assert two == pytest.approx((7 + 3 / L2(3)) / (7 + 7 / L2(3)), rel=1e-12)


def test_elasticsearch_request_without_hits_scores_zero():
    """testNoResults (DiscountedCumulativeGainTests.java): no hits -> metricScore 0.0,
    normalized or not; RankEvalResponse's metric_score is the mean over every request
    (DiscountedCumulativeGain.combine, the default of EvaluationMetric.combine: the
    mean of all EvalQueryQuality values), so a request without hits counts as 0 in the
    mean: 1 of 5 requests here."""
    qrels = [(q, d, g) for q in ("q1", "q2", "q3", "q4", "q5") for d, g in (("a", 3), ("b", 2), ("c", 1))]
    ranking = {q: ["a", "b", "c"] for q in ("q1", "q2", "q3", "q4")}  # q5: no hits
    rows = [(q, d, float(3 - i)) for q, docs in ranking.items() for i, d in enumerate(docs)]
    dcg = 7 + 3 / L2(3) + 1 / 2
    for spec, one in (("elasticsearch.dcg@10", dcg), ("elasticsearch.ndcg@10", 1.0)):
        per_q = _run(qrels, ranking, spec)
        assert per_q["q5"] == 0.0
        assert _mean(qrels, rows, spec) == pytest.approx(4 * one / 5, rel=1e-12)


# ----------------------------------------------------------------------------- OpenSearch
# src/main/java/org/opensearch/searchrelevance/metrics/calculator/Evaluation.java @0b75cf84b5b2

def test_opensearch_ndcg_rounded_half_up_per_query():
    """Worked from calculateNDCGAtK: hits a, b, c with judgments a=1, b=0, c=2, d=3 (d not
    returned); DCG@3 = 1 + 0 + 3/2 = 2.5, IDCG@3 = 7 + 3/log2(3) + 1/2; NDCG 0.26616...
    rounded to 0.27. A second query with NDCG 1/3 rounds to 0.33; the mean is 0.30."""
    qrels = [("q1", "a", 1), ("q1", "b", 0), ("q1", "c", 2), ("q1", "d", 3), ("q2", "e", 1)]
    ranking = {"q1": ["a", "b", "c"], "q2": ["n1", "n2", "n3", "n4", "n5", "n6", "e"]}
    raw = 2.5 / (7 + 3 / L2(3) + 0.5)
    assert round(raw, 2) == 0.27
    got = _run(qrels, ranking, "opensearch.ndcg@10")
    assert got == {"q1": 0.27, "q2": 0.33}
    assert _run(qrels, ranking, "opensearch.dcg@10") == {"q1": 2.5, "q2": 0.33}


def test_opensearch_query_without_hits_scores_zero():
    """Evaluation.java calculateNDCGAtK / rawDCGAtK: an empty list of document ids gives
    DCG 0 and NDCG 0 (IDCG > 0), a value like any other in the mean: 1 of 3 queries."""
    qrels = [(q, d, g) for q in ("q1", "q2", "q3") for d, g in (("a", 1), ("b", 0), ("c", 2))]
    ranking = {"q1": ["c", "a", "b"], "q2": ["a", "b", "c"]}  # q3: no hits
    rows = [(q, d, float(3 - i)) for q, docs in ranking.items() for i, d in enumerate(docs)]
    per_q = _run(qrels, ranking, "opensearch.ndcg@10")
    ideal = 3 + 1 / L2(3)
    q2 = round_decimals(np.array([(1 + 3 / 2) / ideal]), 2, "half_up")[0]
    assert per_q == {"q1": 1.0, "q2": q2, "q3": 0.0}
    assert _mean(qrels, rows, "opensearch.ndcg@10") == pytest.approx((1.0 + q2) / 3, rel=1e-12)
    assert _run(qrels, ranking, "opensearch.dcg@10")["q3"] == 0.0


def test_rounding_modes():
    """Java Math.round(x * 100) / 100 rounds halves up; numpy and Python round them to even."""
    x = np.array([0.125, 0.135, 0.5, 2.5, -0.125, np.nan])
    assert np.array_equal(round_decimals(x, 2, "half_up")[:5], [0.13, 0.14, 0.5, 2.5, -0.12])
    assert np.array_equal(round_decimals(np.array([0.5, 1.5, 2.5]), 0, "half_up"), [1.0, 2.0, 3.0])
    assert np.array_equal(round_decimals(np.array([0.5, 1.5, 2.5]), 0, "half_even"), [0.0, 2.0, 2.0])
    assert math.isnan(round_decimals(x, 2, "half_up")[5])


# ----------------------------------------------------------------------------- TorchRec
# torchrec/metrics/ndcg.py v1.9.0 (_get_ndcg_states)

def test_torchrec_reports_one_minus_ndcg():
    """Worked from _get_ndcg_states: session labels [1, 0, 2], predictions [0.9, 0.8, 0.1]:
    DCG = 1 + 0 + 2/log2(4) = 2, IDCG = 2 + 1/log2(3); reported 1 - DCG/IDCG. A session
    whose labels are all 0 has IDCG clamped to 1e-6: NDCG 0, reported 1."""
    y = np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0]])
    s = np.array([[0.9, 0.8, 0.1], [0.3, 0.2, 0.1]])
    got = ea.score(y, s, flavour="torchrec.ndcg")
    assert got[0] == pytest.approx(1 - 2 / (2 + 1 / L2(3)), abs=1e-6)  # float32 discounts
    assert got[1] == 1.0
    exp = ea.score(y, s, flavour="torchrec.ndcg_exp")  # exponential_gain=True: gains 1, 0, 3
    assert exp[0] == pytest.approx(1 - (1 + 3 / 2) / (3 + 1 / L2(3)), abs=1e-6)


# ----------------------------------------------------------------------------- allRank
# tests/losses/test_ndcg.py (allegro/allRank @6167f9d) and allrank/models/metrics.py v1.4.3

@pytest.mark.parametrize("y_pred,y_true,k,expected", [
    ([0.5, 0.2], [1.0, 0.0], None, 1.0),                                  # test_ndcg_simple_1
    ([0.5, 0.2], [0.0, 1.0], None, 1 / L2(3)),                            # test_ndcg_simple_2
    ([0.5, 0.2, 0.1], [1.0, 0.0, 1.0], 1, 1.0),                           # test_ndcg_for_multiple_ats
    ([0.5, 0.2, 0.1], [1.0, 0.0, 1.0], 2, 1.0 / (1.0 + 1 / L2(3))),       # (ats=[1, 2])
    ([0.5, 0.2, 1.0], [1.0, 0.0, None], None, 1.0),                       # test_ndcg_with_padded_input
    ([0.5, 0.2, 1.0], [0.0, 1.0, None], None, 1 / L2(3)),                 # ..._padded_input_2
    # metrics.py:7-8, :23-24 in v1.4.3: no relevant item -> filler_value = 1.0 (the older
    # test_ndcg_zero_when_no_relevant expected 0, before the filler was added)
    ([0.5, 0.2], [0.0, 0.0], None, 1.0),
])
def test_allrank_ndcg(y_pred, y_true, k, expected):
    pred = np.array([np.nan if t is None else p for p, t in zip(y_pred, y_true)])  # padding
    true = np.array([np.nan if t is None else t for t in y_true])
    got = ea.score(true[None, :], pred[None, :], k=k, flavour="allrank.ndcg")[0]
    assert got == pytest.approx(expected, abs=1e-7)  # allRank computes in float32


# ----------------------------------------------------------------------------- pytorchltr
# pytorchltr/evaluation/dcg.py v0.2.1 (worked by hand)

def test_pytorchltr_ndcg():
    """scores [0.1, 0.3, 0.2], relevance [2, 0, 1]: order 0, 1, 2 of the labels -> (0, 1, 2);
    DCG = 0 + 1/log2(3) + 3/2, IDCG = 3 + 1/log2(3); exp=False: DCG = 1/log2(3) + 2/2,
    IDCG = 2 + 1/log2(3). k = 10 > list size: the whole list (dcg[:, :k][:, -1]). All-zero
    relevance: IDCG set to 1, NDCG 0."""
    y = np.array([[2.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    s = np.array([[0.1, 0.3, 0.2], [0.3, 0.2, 0.1]])
    got = ea.score(y, s, k=10, flavour="pytorchltr.ndcg")
    assert got[0] == pytest.approx((1 / L2(3) + 1.5) / (3 + 1 / L2(3)), abs=1e-7)
    assert got[1] == 0.0
    lin = ea.score(y, s, k=10, flavour="pytorchltr.ndcg_linear")
    assert lin[0] == pytest.approx((1 / L2(3) + 1.0) / (2 + 1 / L2(3)), abs=1e-7)


# ----------------------------------------------------------------------------- RecBole
# recbole/evaluator/metrics.py:186-202 v1.2.1 (NDCG.metric_info, worked by hand)

def test_recbole_ndcg():
    """pos_index [[1, 0, 1]] (hits at ranks 1 and 3), pos_len 5, K = 3: idcg_len =
    min(5, 3) = 3, IDCG = 1 + 1/log2(3) + 1/2, DCG = 1 + 1/2. Binary: grade 2 counts 1."""
    qrels = [("u", d, g) for d, g in [("i1", 2), ("i3", 1), ("i7", 1), ("i8", 1), ("i9", 1)]]
    got = _run(qrels, {"u": ["i1", "i2", "i3", "i4"]}, "recbole.ndcg@3")
    assert got["u"] == pytest.approx(1.5 / (1 + 1 / L2(3) + 0.5), rel=1e-12)


# ----------------------------------------------------------------------------- Elliot
# elliot/evaluation/metrics/accuracy/ndcg/ndcg.py, elliot/evaluation/relevance/relevance.py

def test_elliot_ndcg_threshold_shift():
    """Test items a=3, b=1, c=0; recommendations [b, x, a], cutoff 3.
    Default threshold 0: gains 2^(r+1) - 1 = 15, 3, 1; DCG = 3 + 15/2, IDCG = 15 + 3/log2(3)
    + 1/2. Threshold 1: gains 2^r - 1 = 7, 1 (c is not relevant): DCG = 1 + 7/2, IDCG = 7 +
    1/log2(3). User v's only test item has rating 0: relevant at threshold 0 (gain 1, NDCG
    1), no relevant item at threshold 1 (left out). Binary (Rendle 2020, threshold 0: a, b
    and c are relevant): DCG = 1 + 1/2 over IDCG = 1 + 1/log2(3) + 1/2."""
    qrels = [("u", "a", 3), ("u", "b", 1), ("u", "c", 0), ("v", "z", 0)]
    ranking = {"u": ["b", "x", "a"], "v": ["z"]}
    t0 = _run(qrels, ranking, "elliot.ndcg@3")
    assert t0["v"] == 1.0
    assert t0["u"] == pytest.approx((3 + 15 / 2) / (15 + 3 / L2(3) + 0.5), rel=1e-12)
    t1 = _run(qrels, ranking, "elliot.ndcg_t1@3")
    assert set(t1) == {"u"}
    assert t1["u"] == pytest.approx((1 + 7 / 2) / (7 + 1 / L2(3)), rel=1e-12)
    rendle = _run(qrels, ranking, "elliot.ndcg_rendle2020@3")
    assert rendle["u"] == pytest.approx((1 + 0.5) / (1 + 1 / L2(3) + 0.5), rel=1e-12)
    assert rendle["v"] == 1.0


# ----------------------------------------------------------------------------- MTEB
# mteb/_evaluators/retrieval_metrics.py v2.26.24 (worked by hand)

def test_mteb_rounding_and_filters():
    """Two queries: q1 ranks its only relevant document (grade 1) second, q2 first.
    ndcg_cut_10 = 1/log2(3) and 1: the mean 0.8154648767857288 is rounded to 0.81546.
    skip_first_result drops each query's top document: q1's relevant document moves to
    rank 1 (NDCG 1), q2's is dropped (NDCG 0): mean 0.5. ignore_identical_ids drops the
    document 'q1' from q1's ranking."""
    qrels = [("q1", "d2", 1), ("q2", "d3", 1)]
    rows = [("q1", "q1", 3.0), ("q1", "d2", 2.0), ("q1", "d9", 1.0), ("q2", "d3", 5.0), ("q2", "d4", 4.0)]
    raw = (1 / L2(3) + 1) / 2
    assert _mean(qrels, rows, "mteb.ndcg_cut@10") == round(raw, 5) == 0.81546
    assert _mean(qrels, rows, "mteb.ndcg_cut_skip_first@10") == 0.5
    assert _mean(qrels, rows, "mteb.ndcg_cut_ignore_ids@10") == 1.0


# ----------------------------------------------------------------------------- brute force
# The Elasticsearch and OpenSearch formulas transcribed one query at a time (the Java
# loops of DiscountedCumulativeGain.evaluate and Evaluation.calculateNDCGAtK), on
# generated rankings with grades 0-4, unjudged hits, short lists and empty queries.

def _generated(seed=5):
    rng = np.random.default_rng(seed)
    qrels, ranking = [], {}
    for q in range(40):
        qid = f"q{q}"
        judged = {f"d{i}": int(rng.integers(0, 5)) for i in range(int(rng.integers(1, 12)))}
        if q % 7 == 0:
            judged = {d: 0 for d in judged}
        qrels += [(qid, d, g) for d, g in judged.items()]
        pool = list(judged) + [f"u{i}" for i in range(5)]
        ranking[qid] = list(rng.permutation(pool)[: int(rng.integers(1, len(pool) + 1))])
    return qrels, ranking


def _es(ranked, ratings, k, normalize):
    hits = ranked[:k]
    dcg = sum((2 ** ratings[d] - 1) / (math.log(r + 1) / math.log(2))
              for r, d in enumerate(hits, 1) if d in ratings)
    if not normalize:
        return dcg
    ideal = sorted(ratings.values(), reverse=True)[: min(len(hits), len(ratings))]
    idcg = sum((2 ** g - 1) / (math.log(r + 1) / math.log(2)) for r, g in enumerate(ideal, 1))
    return dcg / idcg if idcg != 0 else 0.0


def _opensearch(ranked, ratings, k):
    dcg = sum((2 ** ratings[d] - 1) / (math.log(i + 2) / math.log(2))
              for i, d in enumerate(ranked[:k]) if d in ratings)
    ideal = sorted(ratings.values(), reverse=True)[:k]
    idcg = sum((2 ** g - 1) / (math.log(i + 2) / math.log(2)) for i, g in enumerate(ideal))
    ndcg = dcg / idcg if idcg > 0 else 0.0
    return math.floor(ndcg * 100 + 0.5) / 100  # Java Math.round(x * 100) / 100.0


@pytest.mark.parametrize("k", [1, 3, 10])
def test_elasticsearch_and_opensearch_brute_force(k):
    qrels, ranking = _generated()
    ratings = {}
    for q, d, g in qrels:
        ratings.setdefault(q, {})[d] = g
    es_dcg = _run(qrels, ranking, f"elasticsearch.dcg@{k}")
    es_ndcg = _run(qrels, ranking, f"elasticsearch.ndcg@{k}")
    osr = _run(qrels, ranking, f"opensearch.ndcg@{k}")
    assert set(es_dcg) == set(es_ndcg) == set(osr) == set(ranking)
    for q, ranked in ranking.items():
        assert es_dcg[q] == pytest.approx(_es(ranked, ratings[q], k, False), rel=1e-12, abs=1e-15), q
        assert es_ndcg[q] == pytest.approx(_es(ranked, ratings[q], k, True), rel=1e-12, abs=1e-15), q
        assert osr[q] == _opensearch(ranked, ratings[q], k), q


def test_run_filters_come_before_depth():
    """run_filter drops documents first and renumbers; depth then keeps the first n."""
    qrels = [("q", "a", 1), ("q", "b", 1), ("q", "q", 1)]
    ranking = {"q": ["q", "x", "a", "b"]}
    base = "ndcg(gain=linear,discount=log2,idcg=judged,ties=stable,{})"
    # query_id: ranking x, a, b -> depth 2 keeps x, a: DCG = 1/log2(3), IDCG = 1 + 1/log2(3) + 1/2
    got = _run(qrels, ranking, base.format("run_filter=query_id,depth=2"))["q"]
    assert got == pytest.approx((1 / L2(3)) / (1 + 1 / L2(3) + 0.5), rel=1e-12)
    # first: the same here (the first document is 'q')
    assert _run(qrels, ranking, base.format("run_filter=first,depth=2"))["q"] == got
    # without a filter, depth 2 keeps q, x: DCG = 1
    assert _run(qrels, ranking, base.format("depth=2"))["q"] == pytest.approx(1 / (1 + 1 / L2(3) + 0.5))


# ----------------------------------------------------------------------------- Pyserini
# pyserini/eval/trec_eval.py (v1.6): -remove-unjudged filters the run file, then trec_eval

@pytest.mark.parametrize("k", [5, 10])
def test_pyserini_remove_unjudged_is_trec_eval_on_the_filtered_run(k):
    """The oracle is pytrec_eval (trec_eval) on the run with the unjudged rows removed by
    hand: a query left with no row is absent and leaves the mean; scores are integers,
    so pytrec_eval's float32 scores order them as trec_eval does."""
    import pytrec_eval

    rng = np.random.default_rng(8)
    qrels, rows = [], []
    for q in range(25):
        qid = f"q{q}"
        judged = {f"d{i}": int(rng.integers(0, 4)) for i in range(int(rng.integers(1, 8)))}
        qrels += [(qid, d, g) for d, g in judged.items()]
        pool = (list(judged) if q % 5 else []) + [f"u{i}" for i in range(4)]
        for d in rng.permutation(pool):
            rows.append((qid, str(d), float(rng.integers(0, 6))))
    judged_pairs = {(q, d) for q, d, _ in qrels}
    kept = [r for r in rows if (r[0], r[1]) in judged_pairs]
    qd = {}
    for q, d, g in qrels:
        qd.setdefault(q, {})[d] = g
    rd = {}
    for q, d, s in kept:
        rd.setdefault(q, {})[d] = s
    theirs = pytrec_eval.RelevanceEvaluator(qd, {f"ndcg_cut.{k}"}).evaluate(rd)
    ours = evaluate(Qrels.from_rows(qrels), Run.from_rows(rows, name="r"),
                    [f"pyserini.ndcg_cut_remove_unjudged@{k}"])
    per_q = ours.per_query("r", 0)
    assert per_q.keys() == theirs.keys()  # the queries without a judged row are left out
    for q, m in theirs.items():
        assert per_q[q] == pytest.approx(m[f"ndcg_cut_{k}"], abs=1e-12), q
    # -c: the emptied queries score 0 and count
    complete = evaluate(Qrels.from_rows(qrels), Run.from_rows(rows, name="r"),
                        [f"ndcg(idcg=judged,ties=trec_eval,run_filter=unjudged,missing=zero)@{k}"])
    assert complete.mean("r", 0) == pytest.approx(
        sum(m[f"ndcg_cut_{k}"] for m in theirs.values()) / len(qd), abs=1e-12)


# ----------------------------------------------------------------------------- components

def test_threshold_gains():
    from evalkit.builtins.gains import binary
    from evalkit.libraries.recsys import exp2_from

    g = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    assert binary(g).tolist() == [0, 1, 1, 1, 1]
    # the default is every positive grade (Spark MLlib's binary NDCG), also a fractional one
    assert binary(np.array([-1.0, 0.0, 1e-300, 0.5, 1.0])).tolist() == [0, 0, 1, 1, 1]
    assert binary(g, threshold=0.0).tolist() == [1, 1, 1, 1, 1]  # recommenders, Elliot: every test item
    assert binary(g, threshold=3.0).tolist() == [0, 0, 0, 1, 1]
    assert exp2_from(g).tolist() == [1, 3, 7, 15, 31]  # Elliot's default threshold 0
    assert exp2_from(g, threshold=1.0).tolist() == [0, 1, 3, 7, 15]  # = 2^rel - 1 above 0
    assert exp2_from(g, threshold=3.0).tolist() == [0, 0, 0, 1, 3]


def test_new_conventions_are_validated_and_canonical():
    from evalkit.errors import FlavourError
    from evalkit.flavour import parse_flavour

    fl = parse_flavour("ndcg(rounding=half_up,round=2,complement=yes,run_filter=query_id,round_mean=5)@10")
    # the older keys are rewritten to the outcome / aggregate components (issue 23)
    assert str(fl) == ("ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval,run_filter=query_id,"
                       "outcome=round(complement=yes,decimals=2,rounding=half_up),"
                       "aggregate=round_mean(decimals=5,rounding=half_up))@10")
    assert parse_flavour(str(fl)) == fl
    assert str(parse_flavour("ndcg(run_filter=none,complement=no,rounding=half_even)")) == \
        "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval)"
    for bad in ("ndcg(round=-1)", "ndcg(round=1.5)", "ndcg(run_filter=second)", "ndcg(rounding=up)",
                "ndcg(complement=maybe)", "ndcg(round_mean=16)"):
        with pytest.raises(FlavourError):
            parse_flavour(bad)


def test_round_mean_rounds_only_the_mean():
    qrels = [("q1", "a", 1), ("q2", "b", 1)]
    rows = [("q1", "x", 2.0), ("q1", "a", 1.0), ("q2", "b", 1.0)]
    res = evaluate(Qrels.from_rows(qrels), Run.from_rows(rows, name="r"),
                   ["ndcg(ties=stable,round_mean=3)", "ndcg(ties=stable)"])
    assert res.per_query("r", 0)["q1"] == pytest.approx(1 / L2(3), rel=1e-15)  # not rounded
    assert res.mean("r", 0) == round((1 / L2(3) + 1) / 2, 3) == 0.815
    assert res.mean("r", 1) == pytest.approx((1 / L2(3) + 1) / 2, rel=1e-15)


def test_round_means_is_pythons_round():
    """round_means gives exactly what BEIR's and MTEB's round(x, d) gives, value for value,
    including 0.285 and 2.675, whose binary values lie just below the printed half."""
    from evalkit.rounding import round_means

    rng = np.random.default_rng(0)
    x = np.concatenate([rng.random(2000), [0.285, 2.675, 1.0005, 0.125, np.nan]])
    for d in (2, 3, 5):
        got = round_means(x, d)
        want = [math.nan if math.isnan(v) else round(v, d) for v in x.tolist()]
        assert np.array_equal(got, np.array(want), equal_nan=True), d
