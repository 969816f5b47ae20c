"""ndeval's diversity measures (evalkit/builtins/diversity.py, presets in evalkit/libraries/ndeval.py): α-nDCG, ERR-IA, nERR-IA.

Checked against the ndeval values in ir_measures' fixtures (via pyndeval), against
pyndeval itself on the TREC 2013 Web diversity qrels, against a from-the-definition
computation written here with plain loops, and against a greedy ideal ranking built
here independently (which must score exactly 1).
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from evalkit import Run, SubtopicQrels, evaluate, read_run, read_subtopic_qrels
from evalkit.builtins.diversity import topic_qrels
from evalkit.errors import FlavourError

from conftest import shared_path

ALPHA = 0.5


def _evaluate(sub, run, specs):
    return evaluate(topic_qrels(sub), run, specs, subtopics=sub)


# ----------------------------------------------------------------------------- reference code

def _judgments(sub: SubtopicQrels):
    """{topic: {docno: {subtopic: binary rel}}} with ndeval's rule: grade > 0 -> 1."""
    out: dict = {}
    for t, s, d, g in zip(sub.qid, sub.subtopic, sub.docno, sub.grade):
        out.setdefault(t, {}).setdefault(d, {})[s] = 1 if g >= 1 else 0
    return out


def _gains(ranking, judged, subtopics):
    """Novelty gains G(i) = sum_s rel_s(i) (1-α)^{c_s(i)} of a ranking (loop version)."""
    seen = dict.fromkeys(subtopics, 0)
    out = []
    for d in ranking:
        g = 0.0
        for s in subtopics:
            if judged.get(d, {}).get(s, 0):
                g += (1 - ALPHA) ** seen[s]
                seen[s] += 1
        out.append(g)
    return out


def _greedy_ideal(judged, subtopics, depth):
    """ndeval's idealResult: repeatedly take the document with the largest gain given
    those already taken, ties to the larger docno."""
    weight = dict.fromkeys(subtopics, 1.0)
    left = set(judged)
    order = []
    while left and len(order) < depth:
        best = max(left, key=lambda d: (sum(weight[s] for s in subtopics if judged[d].get(s, 0)), d))
        order.append(best)
        left.remove(best)
        for s in subtopics:
            if judged[best].get(s, 0):
                weight[s] *= 1 - ALPHA
    return order


def _reference(sub: SubtopicQrels, ranking_by_topic: dict, k: int) -> dict:
    """{topic: (ERR-IA@k, alpha-nDCG@k, nERR-IA@k)} from the definitions."""
    out = {}
    for t, judged in _judgments(sub).items():
        if t not in ranking_by_topic:
            continue
        subtopics = sorted({s for d in judged.values() for s, r in d.items() if r})
        if not subtopics:
            out[t] = (0.0, 0.0, 0.0)
            continue
        g = _gains(ranking_by_topic[t][:k], judged, subtopics)
        ideal = _gains(_greedy_ideal(judged, subtopics, k), judged, subtopics)
        err = sum(x / (i + 1) for i, x in enumerate(g))
        norm = len(subtopics) * sum((1 - ALPHA) ** i / (i + 1) for i in range(k))
        dcg = sum(x / math.log2(i + 2) for i, x in enumerate(g))
        idcg = sum(x / math.log2(i + 2) for i, x in enumerate(ideal))
        ierr = sum(x / (i + 1) for i, x in enumerate(ideal))
        out[t] = (err / norm, dcg / idcg, err / ierr)
    return out


# ----------------------------------------------------------------------------- fixtures

@pytest.mark.shared
def test_err_ia_reproduces_ndeval_fixture(ir_measures_dir):
    """expected.tsv: ndeval (via pyndeval) ERR-IA@20 on fixtureC_diversity.qrels +
    fixtureA.run: q0 0.4659, q1 0.1803, mean 0.3231 (ir_measures tests/test_pyndeval.py:79-82)."""
    sub = read_subtopic_qrels(ir_measures_dir / "fixtureC_diversity.qrels")
    run = read_run(ir_measures_dir / "fixtureA.run")
    res = _evaluate(sub, run, ["pyndeval.err_ia@20", "pyndeval.alpha_ndcg@20", "pyndeval.nerr_ia@20"])
    err = res.per_query(0, 0)
    assert err["0"] == pytest.approx(0.4659, abs=1e-4)
    assert err["1"] == pytest.approx(0.1803, abs=1e-4)
    assert res.means()[0, 0] == pytest.approx(0.3231, abs=1e-4)
    # the same numbers, exactly, from the definitions (run order by score: the rank
    # column of fixtureA disagrees with the scores)
    ranking = {"0": ["D0", "D2", "D3", "D1", "D4"], "1": ["D1", "D3", "D2", "D4"]}
    ref = _reference(sub, ranking, 20)
    for f in range(3):
        for q in ("0", "1"):
            assert res.per_query(0, f)[q] == pytest.approx(ref[q][f], abs=1e-15), (f, q)


def test_hand_computed_small_topic():
    """Topic with subtopics A, B; ranking d1 (A), d2 (A, B), d3 (none), d4 (B).
    G = [1, 0.5 + 1, 0, 0.5]; ERR-IA@3 = (1 + 1.5/2) / (2 (1 + 0.5/2 + 0.25/3));
    greedy ideal: d2 (2), then d1 and d4 tie at 0.5 -> larger docno d4, then d1:
    G* = [2, 0.5, 0.5]; alpha-nDCG@3 = (1 + 1.5/log2 3) / (2 + 0.5/log2 3 + 0.5/2)."""
    sub = SubtopicQrels.from_rows([
        ("7", "A", "d1", 1), ("7", "A", "d2", 3), ("7", "B", "d2", 1), ("7", "B", "d4", 2),
        ("7", "A", "d3", 0),
    ])
    run = Run.from_rows([("7", "d1", 4.0), ("7", "d2", 3.0), ("7", "d3", 2.0), ("7", "d4", 1.0)])
    res = _evaluate(sub, run, ["ndeval_traditional.err_ia@3", "ndeval_traditional.alpha_ndcg@3", "ndeval_traditional.nerr_ia@3"])
    err = (1 + 1.5 / 2) / (2 * (1 + 0.5 / 2 + 0.25 / 3))
    ndcg = (1 + 1.5 / math.log2(3)) / (2 + 0.5 / math.log2(3) + 0.5 / 2)
    nerr = (1 + 1.5 / 2) / (2 + 0.5 / 2 + 0.5 / 3)
    got = [res.per_query(0, f)["7"] for f in range(3)]
    assert got == pytest.approx([err, ndcg, nerr], abs=1e-15)
    # alpha is a parameter: alpha = 1 counts each subtopic once
    res = _evaluate(sub, run, ["err_ia(alpha=1,ties=trec_eval)@3"])
    assert res.per_query(0, 0)["7"] == pytest.approx((1 + 1 / 2) / (2 * 1), abs=1e-15)


def test_ties_follow_the_tie_policy_and_conventions():
    """ndeval -traditional breaks score ties by docno descending (ties=trec_eval);
    a topic without a relevant subtopic scores 0 (ndeval) unless empty says otherwise;
    a topic absent from the run is left out (missing=skip) or scores 0 (-c)."""
    sub = SubtopicQrels.from_rows([
        ("1", "a", "x", 1), ("1", "b", "y", 1), ("1", "a", "z", 0),
        ("2", "a", "x", 0),
        ("3", "a", "x", 1),
    ])
    run = Run.from_rows([("1", "x", 1.0), ("1", "y", 1.0), ("1", "z", 1.0), ("2", "x", 1.0)])
    res = _evaluate(sub, run, ["ndeval_traditional.alpha_ndcg@1", "alpha_ndcg(discount=log2,ties=trec_eval,empty=skip,missing=zero)@1"])
    # docno descending: z (not relevant) first
    assert res.per_query(0, 0) == {"1": 0.0, "2": 0.0}
    assert res.per_query(0, 1) == {"1": 0.0, "3": 0.0}
    res = _evaluate(sub, run, ["alpha_ndcg(discount=log2,ties=pessimistic)@2",
                               "alpha_ndcg(discount=log2,ties=optimistic)@2"])
    # pessimistic: z (grade 0) first, then x; optimistic: x and y, the ideal
    third = 1 / math.log2(3)
    assert res.per_query(0, 0)["1"] == pytest.approx(third / (1 + third), abs=1e-15)
    assert res.per_query(0, 1)["1"] == pytest.approx(1.0, abs=1e-15)


def test_parameters_are_validated(registry):
    from evalkit import parse_flavour

    with pytest.raises(FlavourError):
        parse_flavour("alpha_ndcg(alpha=1.5)@20", registry)
    with pytest.raises(FlavourError):
        parse_flavour("err_ia(norm=collection)@20", registry)
    with pytest.raises(FlavourError):  # expectation over ties is not exact for novelty metrics
        parse_flavour("alpha_ndcg(ties=average)@20", registry)


def test_topic_qrels_take_the_largest_grade():
    sub = SubtopicQrels.from_rows([("1", "a", "x", 1), ("1", "b", "x", 3), ("1", "a", "y", 0),
                                   ("2", "a", "x", 2)])
    q = topic_qrels(sub)
    assert q.to_dict() == {"1": {"x": 3.0, "y": 0.0}, "2": {"x": 2.0}}


# ----------------------------------------------------------------------------- Web 2013

def _web2013():
    return read_subtopic_qrels(shared_path("anserini_tools_qrels", "qrels.web.201-250.ndeval.txt"))


def _sampled_run(sub, seed, drop=("203",)):
    """A synthetic run over the judged documents (40 per topic) and one unjudged
    document, with distinct scores; topics in ``drop`` are absent."""
    rng = np.random.default_rng(seed)
    q = topic_qrels(sub)
    rows = []
    for t in q.qids:
        if t in drop:
            continue
        docs = q.docno[q.qid == t]
        for d in list(rng.choice(docs, size=min(40, len(docs)), replace=False)) + [f"unjudged-{t}"]:
            rows.append((t, d, float(rng.random())))
    return rows


MEASURES = {"pyndeval.err_ia": "ERR-IA", "pyndeval.alpha_ndcg": "alpha-nDCG", "pyndeval.nerr_ia": "nERR-IA"}


@pytest.mark.shared
def test_matches_pyndeval_on_web_2013_diversity_qrels():
    pyndeval = importlib.import_module("pyndeval")
    sub = _web2013()
    rows = _sampled_run(sub, seed=12)
    specs = [f"{m}@{k}" for m in MEASURES for k in (5, 10, 20)]
    res = _evaluate(sub, Run.from_rows(rows, name="syn"), specs)
    qrels = [(t, s, d, int(g)) for t, s, d, g in zip(sub.qid, sub.subtopic, sub.docno, sub.grade)]
    names = [MEASURES[s.split("@")[0]] + "@" + s.split("@")[1] for s in specs]
    ref = pyndeval.ndeval(qrels, rows, measures=names)
    assert "203" not in ref
    for f, name in enumerate(names):
        got = res.per_query(0, f)
        assert set(got) == set(ref), name  # topic 203 is absent from the run: skipped
        for t, values in ref.items():
            assert got[t] == pytest.approx(values[name], abs=1e-12), (name, t)


@pytest.mark.shared
def test_definitions_and_ideal_ranking_on_web_2013():
    """The loop-based reference above on a sampled run; and the greedy ideal ranking
    itself, submitted as a run, scores exactly 1 in alpha-nDCG and nERR-IA."""
    sub = _web2013()
    judged = _judgments(sub)
    rows = _sampled_run(sub, seed=13, drop=())
    ranking: dict = {}
    for t, d, s in sorted(rows, key=lambda r: (r[0], -r[2])):
        ranking.setdefault(t, []).append(d)
    topics = sorted(ranking)[:12]
    ref = _reference(sub, {t: ranking[t] for t in topics}, 10)
    res = _evaluate(sub, Run.from_rows([r for r in rows if r[0] in topics]),
                    ["ndeval_traditional.err_ia@10", "ndeval_traditional.alpha_ndcg@10", "ndeval_traditional.nerr_ia@10"])
    for f in range(3):
        for t in topics:
            assert res.per_query(0, f)[t] == pytest.approx(ref[t][f], abs=1e-12), (f, t)

    ideal_rows = []
    for t in topics:
        subtopics = sorted({s for d in judged[t].values() for s, r in d.items() if r})
        if not subtopics:
            continue
        order = _greedy_ideal(judged[t], subtopics, 20)
        ideal_rows += [(t, d, float(100 - i)) for i, d in enumerate(order)]
    res = _evaluate(sub, Run.from_rows(ideal_rows), ["ndeval_traditional.alpha_ndcg@20", "ndeval_traditional.nerr_ia@20",
                                                     "ndeval_traditional.err_ia@20"])
    ideal_topics = sorted({r[0] for r in ideal_rows})
    assert ideal_topics
    for t in ideal_topics:
        assert res.per_query(0, 0)[t] == pytest.approx(1.0, abs=1e-12)
        assert res.per_query(0, 1)[t] == pytest.approx(1.0, abs=1e-12)
        assert 0 < res.per_query(0, 2)[t] <= 1.0 + 1e-12  # 1 when one subtopic has >= 20 relevant
    # reversing the ideal order can only lose
    reversed_rows = [(t, d, -s) for t, d, s in ideal_rows]
    rev = _evaluate(sub, Run.from_rows(reversed_rows), ["ndeval_traditional.alpha_ndcg@20"])
    reversed_values = [rev.per_query(0, 0)[t] for t in ideal_topics]
    assert max(reversed_values) <= 1.0 + 1e-12 and min(reversed_values) < 0.9
