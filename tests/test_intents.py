"""Intent-aware NDCG (``ia_ndcg``, Agrawal et al. 2009):
IA-NDCG@k = sum_intents P(intent | topic) * NDCG@k(intent's judgments).

Fixture C (``fixtureC_diversity.qrels``, from ir_measures' pyndeval test) with the
run of fixture A, computed here by hand with a plain-Python NDCG."""

from __future__ import annotations

import dataclasses
import importlib
import math

import pytest

import evalkit
from evalkit import EvaluationError, read_qrels, read_run, read_subtopic_qrels

pytestmark = pytest.mark.shared

# fixture A's run sorted by score (its rank column disagrees with the scores)
RANKING = {"0": ["D0", "D2", "D3", "D1", "D4"], "1": ["D1", "D3", "D2", "D4"]}
# fixture C: topic -> subtopic -> {docno: grade}
INTENTS = {
    "0": {"0": {"D0": 0, "D1": 1, "D2": 1, "D4": 0}, "1": {"D2": 1, "D3": 2}},
    "1": {"0": {"D0": 1, "D3": 2}, "1": {"D5": 2}},
}


def hand_ndcg(ranking, judged, k=None, gain=lambda g: g):
    top = ranking if k is None else ranking[:k]
    dcg = sum(gain(judged.get(d, 0)) / math.log2(i + 2) for i, d in enumerate(top))
    ideal = sorted((gain(g) for g in judged.values() if g > 0), reverse=True)
    ideal = ideal if k is None else ideal[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def hand_ia(topic, weights=None, **kw):
    subs = INTENTS[topic]
    w = weights or {s: 1 / len(subs) for s in subs}
    return sum(w[s] * hand_ndcg(RANKING[topic], subs[s], **kw) for s in subs)


@pytest.fixture(scope="module")
def data(ir_measures_dir):
    return (read_qrels(ir_measures_dir / "fixtureA.qrels"), read_run(ir_measures_dir / "fixtureA.run"),
            read_subtopic_qrels(ir_measures_dir / "fixtureC_diversity.qrels"))


@pytest.mark.parametrize("k", [None, 1, 2, 3, 20])
def test_hand_helper_is_pytrec_eval_per_intent(k):
    """The oracle helper ``hand_ndcg`` (used by the tests below) is trec_eval's ndcg /
    ndcg_cut (linear gain, ideal from the judged positive grades) for each intent alone:
    checked against pytrec_eval, so the IA tests rest on a peer, not on this file."""
    pytrec_eval = importlib.import_module("pytrec_eval")
    measure, key = ("ndcg", "ndcg") if k is None else (f"ndcg_cut.{k}", f"ndcg_cut_{k}")
    for topic, subs in INTENTS.items():
        run = {"q": {d: float(len(RANKING[topic]) - i) for i, d in enumerate(RANKING[topic])}}
        for s, judged in subs.items():
            want = pytrec_eval.RelevanceEvaluator({"q": dict(judged)}, {measure}).evaluate(run)["q"][key]
            assert hand_ndcg(RANKING[topic], judged, k=k) == pytest.approx(want, abs=1e-12), (topic, s)


def test_hand_values_are_what_we_think():
    # topic 0: intent 0 -> (1/log2 3 + 1/log2 5) / (1 + 1/log2 3); intent 1 -> (1/log2 3 + 2/2) / (2 + 1/log2 3)
    n00 = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    n01 = (1 / math.log2(3) + 1.0) / (2 + 1 / math.log2(3))
    assert hand_ia("0") == pytest.approx((n00 + n01) / 2, abs=1e-15)
    # topic 1: intent 0 -> (2/log2 3) / (2 + 1/log2 3); intent 1 (D5 not retrieved) -> 0
    assert hand_ia("1") == pytest.approx((2 / math.log2(3)) / (2 + 1 / math.log2(3)) / 2, abs=1e-15)


@pytest.mark.parametrize("k", [None, 1, 2, 3, 20])
def test_ia_ndcg_uniform_intents(data, k):
    qrels, run, sub = data
    spec = "ia_ndcg" + (f"@{k}" if k else "")
    res = evalkit.evaluate(qrels, run, [spec], subtopics=sub)
    got = res.per_query(0, 0)
    assert set(got) == {"0", "1"}
    for topic in ("0", "1"):
        assert got[topic] == pytest.approx(hand_ia(topic, k=k), abs=1e-12)
    assert res.means()[0, 0] == pytest.approx((hand_ia("0", k=k) + hand_ia("1", k=k)) / 2, abs=1e-12)


def test_ia_ndcg_explicit_weights(data):
    qrels, run, sub = data
    weights = {("0", "0"): 0.25, ("0", "1"): 0.75, ("1", "0"): 0.9, ("1", "1"): 0.1}
    weighted = dataclasses.replace(sub, weights=weights)
    res = evalkit.evaluate(qrels, run, ["ia_ndcg(gain=exp2)@3", "ia_ndcg@3"], subtopics=weighted)
    exp2 = lambda g: 2**g - 1  # noqa: E731
    for topic in ("0", "1"):
        w = {s: weights[(topic, s)] for s in INTENTS[topic]}
        assert res.per_query(0, 0)[topic] == pytest.approx(hand_ia(topic, w, k=3, gain=exp2), abs=1e-12)
        assert res.per_query(0, 1)[topic] == pytest.approx(hand_ia(topic, w, k=3), abs=1e-12)
    uniform = evalkit.evaluate(qrels, run, ["ia_ndcg@3"], subtopics=sub)
    assert abs(uniform.means()[0, 0] - res.means()[0, 1]) > 1e-3  # the weights matter


def test_ia_ndcg_weights_from_rows():
    """Same through SubtopicQrels.from_rows, with one intent-less topic left out."""
    rows = [(t, s, d, g) for t, subs in INTENTS.items() for s, docs in subs.items() for d, g in docs.items()]
    sub = evalkit.SubtopicQrels.from_rows(rows, weights={("0", "0"): 0.5, ("0", "1"): 0.5,
                                                         ("1", "0"): 0.2, ("1", "1"): 0.8})
    qrels = evalkit.Qrels.from_rows([("0", "D1", 1), ("1", "D3", 2), ("2", "D0", 1)])
    run = evalkit.Run.from_rows([(t, d, float(10 - i)) for t, docs in RANKING.items() for i, d in enumerate(docs)]
                                + [("2", "D0", 1.0)])
    res = evalkit.evaluate(qrels, run, ["ia_ndcg", "ia_ndcg(empty=skip)"], subtopics=sub)
    got = res.per_query(0, 0)
    assert got["0"] == pytest.approx(hand_ia("0"), abs=1e-12)
    assert got["1"] == pytest.approx(hand_ia("1", {"0": 0.2, "1": 0.8}), abs=1e-12)
    # topic 2 has no subtopic judgments: undefined -> the empty convention
    assert got["2"] == 0.0
    assert "2" not in res.per_query(0, 1)


def test_topic_qrels_do_not_change_intent_values(data):
    """Only the subtopic judgments enter IA-NDCG; the topic-level qrels decide which
    topics are evaluated."""
    qrels, run, sub = data
    other = evalkit.Qrels.from_rows([("0", "D9", 4), ("1", "D9", 1)])
    a = evalkit.evaluate(qrels, run, ["ia_ndcg@5"], subtopics=sub).values
    b = evalkit.evaluate(other, run, ["ia_ndcg@5"], subtopics=sub).values
    assert a.tolist() == b.tolist()


def test_ia_ndcg_needs_subtopics(data):
    qrels, run, _ = data
    with pytest.raises(EvaluationError, match="subtopic"):
        evalkit.evaluate(qrels, run, ["ia_ndcg"])


def test_partial_weights_are_an_error(data):
    qrels, run, sub = data
    bad = dataclasses.replace(sub, weights={("0", "0"): 1.0})
    with pytest.raises(evalkit.InputFormatError, match="weight"):
        evalkit.evaluate(qrels, run, ["ia_ndcg"], subtopics=bad)


def test_intent_expansion_built_once_per_tie_policy(data, monkeypatch):
    """Every intent-aware flavour with the same tie policy reuses one expansion."""
    from evalkit.engine import intents

    qrels, run, sub = data
    calls = []
    build = intents.IntentProblem.build.__func__

    def counting(cls, *args):
        calls.append(1)
        return build(cls, *args)

    monkeypatch.setattr(intents.IntentProblem, "build", classmethod(counting))
    specs = ["ia_ndcg@3", "ia_ndcg(gain=exp2)@5", "ia_ndcg(discount=jarvelin)", "ia_ndcg(ties=average)@3"]
    res = evalkit.evaluate(qrels, run, specs, subtopics=sub)
    assert len(calls) == 2  # trec_eval ties, average ties
    alone = evalkit.evaluate(qrels, run, ["ia_ndcg(gain=exp2)@5"], subtopics=sub)
    assert res.values[0, 1].tolist() == alone.values[0, 0].tolist()
