"""``evalkit.compat.pytrec_eval`` against pytrec_eval 0.5.11 itself (trec_eval 9.0.8
inside), per query, over every measure it supports; and BEIR's and MTEB's evaluators
with it substituted for pytrec_eval give identical results."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import pytrec_eval
from evalkit.compat import pytrec_eval as compat
from evalkit.io.trec import read_qrels, read_run

from conftest import shared_path

ALL = set(pytrec_eval.supported_measures)
PARAMETRISED = {"ndcg_cut.10,20", "map", "recall.100", "P_5", "P.10,7", "iprec_at_recall.0.15,0.5", "success.3",
                "Rprec_mult.0.5", "relative_P.4", "map_cut.1,1000", "11pt_avg.0.3,0.6"}


def _same(ours: dict, theirs: dict) -> None:
    assert set(ours) == set(theirs)
    for qid, want in theirs.items():
        assert set(ours[qid]) == set(want), (qid, set(ours[qid]) ^ set(want))
        for name, v in want.items():
            assert ours[qid][name] == pytest.approx(v, rel=1e-12, abs=1e-12, nan_ok=True), \
                (qid, name, ours[qid][name], v)


def _generated(seed: int):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for t in range(12):
        qid = f"q{t}"
        docs = [f"d{j}" for j in rng.choice(200, 60, replace=False)]
        judged = docs[:int(rng.integers(1, 30))]
        grades = rng.choice([-1, 0, 0, 1, 2, 3, 7], len(judged))
        if t == 4:
            grades = np.zeros(len(judged), dtype=int)  # no relevant judgment
        if t != 7:
            qrels[qid] = {d: int(g) for d, g in zip(judged, grades)}
        if t != 9:  # q9: judged, not retrieved
            depth = int(rng.integers(1, 60))
            scores = np.round(rng.random(depth), 1)  # ties
            run[qid] = {d: float(s) + (1e-12 if i % 5 == 0 else 0.0)  # ties in float32 only
                        for i, (d, s) in enumerate(zip(rng.permutation(docs)[:depth], scores))}
    qrels["empty"] = {}  # pytrec_eval drops queries without judgments
    return qrels, run


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("measures", [ALL, {"all_trec"}, {"official"}, {"set"}, PARAMETRISED], ids=str)
@pytest.mark.parametrize("level, judged_only", [(1, False), (2, True)])
def test_equals_pytrec_eval_per_query(seed, measures, level, judged_only):
    qrels, run = _generated(seed)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level,
                                            judged_docs_only_flag=judged_only).evaluate(run)
    ours = compat.RelevanceEvaluator(qrels, measures, relevance_level=level,
                                     judged_docs_only_flag=judged_only).evaluate(run)
    _same(ours, theirs)


def test_measure_strings_and_errors_as_pytrec_eval():
    qrels, run = _generated(3)
    # pytrec_eval's re.match reads "utility.2,-1,0,0" as utility.2 (one coefficient: 0)
    _same(compat.RelevanceEvaluator(qrels, {"utility.2,-1,0,0", "P_5"}).evaluate(run),
          pytrec_eval.RelevanceEvaluator(qrels, {"utility.2,-1,0,0", "P_5"}).evaluate(run))
    for bad in ({"ndcg_cutt.10"}, {"rbp"}, {"P@10"}):
        with pytest.raises(ValueError, match="unsupported measure"):
            pytrec_eval.RelevanceEvaluator(qrels, bad)
        with pytest.raises(ValueError, match="unsupported measure"):
            compat.RelevanceEvaluator(qrels, bad)
    assert compat.supported_measures == set(pytrec_eval.supported_measures)
    assert compat.RelevanceEvaluator(qrels, {"map"}).evaluate({}) == {} == \
        pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate({})


@pytest.mark.shared
@pytest.mark.parametrize("name", ["oce03noXbmD", "InexpC2", "NLPR03vb10"])
def test_robust03_all_measures(name):
    """TREC 2003 Robust: 100 topics, tied scores, a run of depth 12."""
    qrels = read_qrels(shared_path("trectools_robust03", "robust03_qrels.txt"))
    run = read_run(shared_path("trectools_robust03", "runs", f"input.{name}.gz"))
    q = {}
    for a, b, c in zip(qrels.qid, qrels.docno, qrels.grade):
        q.setdefault(a, {})[b] = int(c)
    r = {}
    for a, b, c in zip(run.qid, run.docno, run.score):
        r.setdefault(a, {})[b] = float(c)
    _same(compat.RelevanceEvaluator(q, ALL).evaluate(r), pytrec_eval.RelevanceEvaluator(q, ALL).evaluate(r))


@pytest.mark.shared
def test_dl2020_all_measures():
    """TREC DL 2020 passage qrels (grades 0-3) with a generated run: every judged passage
    and as many unjudged ones, scores with ties (no DL 2020 run is in ../shared/data)."""
    qrels = read_qrels(shared_path("anserini_tools_qrels", "qrels.dl20-passage.txt"))
    q = {}
    for a, b, c in zip(qrels.qid, qrels.docno, qrels.grade):
        q.setdefault(a, {})[b] = int(c)
    rng = np.random.default_rng(2020)
    r = {}
    for qid, docs in q.items():
        names = list(docs) + [f"unjudged{i}" for i in range(len(docs))]
        r[qid] = {d: float(s) for d, s in zip(names, np.round(rng.random(len(names)), 2))}
    _same(compat.RelevanceEvaluator(q, ALL).evaluate(r), pytrec_eval.RelevanceEvaluator(q, ALL).evaluate(r))


def test_beir_evaluate_retrieval_through_compat(monkeypatch):
    """BEIR 2.2.0 ``EvaluateRetrieval.evaluate`` with pytrec_eval replaced by the compat
    module (``beir.retrieval.evaluation.pytrec_eval``): identical results."""
    evaluation = importlib.import_module("beir.retrieval.evaluation")
    qrels, run = _generated(4)
    qrels = {k: v for k, v in qrels.items() if v}
    want = evaluation.EvaluateRetrieval.evaluate(qrels, run, [1, 3, 5, 10, 100])
    monkeypatch.setattr(evaluation, "pytrec_eval", compat)
    got = evaluation.EvaluateRetrieval.evaluate(qrels, run, [1, 3, 5, 10, 100])
    assert got == want


def test_mteb_retrieval_scores_through_compat(monkeypatch):
    """MTEB 2.26.24's retrieval evaluator (``calculate_retrieval_scores``, what
    ``RetrievalEvaluator`` calls) with pytrec_eval replaced by the compat module:
    identical results, per query and averaged."""
    metrics = importlib.import_module("mteb._evaluators.retrieval_metrics")
    qrels, run = _generated(5)
    qrels = {k: v for k, v in qrels.items() if v}
    run = {k: v for k, v in run.items() if k in qrels}  # MTEB reads qrels[qid] for every run query
    want = metrics.calculate_retrieval_scores(run, qrels, [1, 3, 5, 10, 100])
    monkeypatch.setattr(metrics, "pytrec_eval", compat)
    got = metrics.calculate_retrieval_scores(run, qrels, [1, 3, 5, 10, 100])
    # the averaged numbers MTEB reports are identical; per-query NDCG may differ in the
    # last bit: trec_eval divides gain / log2(r + 1), evalkit multiplies by the discount
    for field in ("ndcg", "map", "recall", "precision", "mrr", "hit_rate"):
        assert getattr(got, field) == getattr(want, field), field
    _same(got.all_scores, want.all_scores)
    assert got.naucs == pytest.approx(want.naucs, rel=1e-9, abs=1e-12)
    assert got.naucs_mrr == want.naucs_mrr


def test_query_given_with_no_document_scores_as_pytrec_eval():
    """pytrec_eval evaluates a run query given as an empty dict on no documents (0 for these
    measures); the stand-in did not report it, so BEIR's mean (ignore_identical_ids can leave a
    query empty) came out 1.0 instead of 0.5 through it."""
    import pytrec_eval

    qrels = {"a": {"a": 1, "d1": 1}, "b": {"d2": 2, "x": 0}, "c": {"z": 1}}
    run = {"a": {}, "b": {"d2": 1.0, "x": 1.0, "y": 0.5}}
    measures = {"ndcg_cut.10", "map", "P.10", "recall.100", "recip_rank", "ndcg"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    ours = compat.RelevanceEvaluator(qrels, measures).evaluate(run)
    assert sorted(ours) == sorted(theirs) == ["a", "b"]
    for q in theirs:
        assert ours[q] == pytest.approx(theirs[q], abs=1e-15)
    assert ours["a"]["ndcg_cut_10"] == 0.0 and ours["b"]["P_10"] == pytest.approx(0.1)
