"""evalkit against reference implementations (test-only dependencies):

* pytrec_eval (trec_eval's C code): ``ndcg`` and ``ndcg_cut.k`` on random graded
  qrels (grades -1..4) and runs with many tied scores and unjudged documents;
* scikit-learn ``ndcg_score`` / ``dcg_score`` with ``ignore_ties=False`` over a grid
  of cutoffs, shapes and tie densities, and ``log_base``;
* the expected values transcribed from ir_measures' tests
  (``../shared/data/ir_measures_fixtures/expected.tsv``): ranx, pytrec_eval, gdeval.

Note on pytrec_eval and ties: pytrec_eval stores run scores at float32 precision, so
two scores that differ only below float32 resolution (1 + 1e-9 vs 1 + 2e-9) tie
there but not in evalkit (float64, like trec_eval reading the text file). The random
runs therefore use scores that are exact in float32 (multiples of 1/8), which still
produce plenty of ties; ``test_pytrec_eval_float32_ties_preset`` checks the
float32 ties themselves against the ``pytrec_eval.*`` presets. pytrec_eval also misbehaves when hundreds of evaluators are
created in one process (it hung in our trials), so each test builds one evaluator
over many random queries instead of one evaluator per case.
"""

from __future__ import annotations

import importlib
import csv
import math

import numpy as np
import pytest

import evalkit
from evalkit.resolve import resolve_flavour
import evalkit.arrays as ea

# --------------------------------------------------------------------------- pytrec_eval
CUTS = (1, 3, 5, 10, 20)


def _random_trec(seed: int, n_queries: int = 300):
    """Random graded qrels ``{qid: {docno: grade}}`` (grades -1..4, some queries with
    no relevant document) and a run ``{qid: {docno: score}}`` with scores on a 1/8 grid
    (many ties), unjudged documents, judged documents not retrieved, run-only queries."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        nd = int(rng.integers(1, 30))
        docs = [f"d{i:02d}" for i in range(nd)]
        judged = rng.random(nd) < 0.7
        grades = {d: int(rng.integers(-1, 5)) for d, j in zip(docs, judged) if j}
        if grades:
            qrels[qid] = grades
        retrieved = rng.random(nd) < 0.8
        levels = int(rng.integers(1, 40))  # 1 level: every score tied
        scores = {d: float(rng.integers(-levels, levels + 1) / 8) for d, r in zip(docs, retrieved) if r}
        if scores:
            run[qid] = scores
    return qrels, run


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_pytrec_eval_ndcg_random(seed):
    pytrec_eval = importlib.import_module("pytrec_eval")
    qrels, run = _random_trec(seed)
    measures = {"ndcg", "ndcg_cut." + ",".join(map(str, CUTS))}
    expected = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    labels = ["ndcg"] + [f"ndcg_cut_{k}" for k in CUTS]
    # pytrec_eval (trec_eval 9.0.8) leaves a qrels topic the run lacks out, where the trec_eval.*
    # presets refuse it as trec_eval 10.0 does: their flavours with missing=skip
    specs = [resolve_flavour(s).replace(missing="skip")
             for s in ["trec_eval.ndcg"] + [f"trec_eval.ndcg_cut@{k}" for k in CUTS]]
    res = evalkit.evaluate(evalkit.Qrels.from_rows(qrels), evalkit.Run.from_rows(run), specs, labels=labels)
    # queries evaluated by both: in the qrels and in the run
    assert len(expected) > 200
    n_ties = sum(len(s) - len(set(s.values())) for s in run.values())
    assert n_ties > 500  # the comparison exercises tie breaking
    for f, label in enumerate(labels):
        got = res.per_query(0, f)
        assert set(got) == set(expected), label
        diffs = {q: (expected[q][label], got[q]) for q in expected if abs(expected[q][label] - got[q]) > 1e-12}
        assert not diffs, f"{label}: {list(diffs.items())[:5]}"


def test_pytrec_eval_float32_ties_preset():
    """Scores that differ only below float32 resolution tie in pytrec_eval; the
    ``pytrec_eval.*`` presets (``ties=trec_eval(score=float32)``) reproduce that, the
    ``trec_eval.*`` presets (float64, as trec_eval reads the text file) do not."""
    pytrec_eval = importlib.import_module("pytrec_eval")
    registry = evalkit.default_registry()
    assert "pytrec_eval.ndcg" in registry.names("preset"), "pytrec_eval presets not registered"
    rng = np.random.default_rng(11)
    qrels, run = {}, {}
    for q in range(200):
        docs = [f"d{i:02d}" for i in range(int(rng.integers(2, 30)))]
        grades = {d: int(rng.integers(-1, 5)) for d in docs if rng.random() < 0.7}
        if grades:
            qrels[f"q{q}"] = grades
        run[f"q{q}"] = {d: float(rng.integers(0, 3) + 1 + rng.integers(0, 4) * 1e-9) for d in docs}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "ndcg_cut.3,10"}).evaluate(run)
    q, r = evalkit.Qrels.from_rows(qrels), evalkit.Run.from_rows(run)
    specs = ["pytrec_eval.ndcg", "pytrec_eval.ndcg_cut@3", "pytrec_eval.ndcg_cut@10", "trec_eval.ndcg_cut@10"]
    res = evalkit.evaluate(q, r, specs, labels=["ndcg", "ndcg_cut_3", "ndcg_cut_10", "float64"])
    for f, label in enumerate(["ndcg", "ndcg_cut_3", "ndcg_cut_10"]):
        got = res.per_query(0, f)
        assert all(abs(got[x] - expected[x][label]) <= 1e-12 for x in expected), label
    float64 = res.per_query(0, 3)
    assert sum(abs(float64[x] - expected[x]["ndcg_cut_10"]) > 1e-12 for x in expected) > 50


def test_pytrec_eval_means_over_queries_in_both():
    """trec_eval 9.0.8 (pytrec_eval) averages over queries in both run and qrels: a qrels
    query without results (relevant documents or not) is left out, a run query without
    qrels too (trec_eval9.*; trec_eval 10.0 refuses such a qrels query)."""
    pytrec_eval = importlib.import_module("pytrec_eval")
    qrels = {"a": {"d1": 1, "d2": 0}, "b": {"d1": 2}, "c": {"d1": 0}, "e": {"d9": 1}}
    run = {"a": {"d1": 0.5, "d2": 0.25}, "b": {"d2": 1.0, "d1": 0.5}, "d": {"d1": 1.0}, "c": {"d1": 1.0}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg"}).evaluate(run)
    res = evalkit.evaluate(evalkit.Qrels.from_rows(qrels), evalkit.Run.from_rows(run), ["trec_eval9.ndcg"])
    got = res.per_query(0, 0)
    assert set(got) == set(expected) == {"a", "b", "c"}
    for q in expected:
        assert got[q] == pytest.approx(expected[q]["ndcg"], abs=1e-12)
    assert res.means()[0, 0] == pytest.approx(np.mean([v["ndcg"] for v in expected.values()]), abs=1e-12)


# --------------------------------------------------------------------------- scikit-learn
def _sk():
    return importlib.import_module("sklearn.metrics")


def _random_arrays(rng, n_queries, n_docs, n_levels, max_grade=4):
    y_true = rng.integers(0, max_grade + 1, size=(n_queries, n_docs)).astype(float)
    y_score = rng.integers(0, n_levels, size=(n_queries, n_docs)) / n_levels
    return y_true, y_score


GRID = [
    # (n_queries, n_docs, score levels: few levels = many ties)
    (1, 2, 2), (1, 7, 3), (5, 10, 2), (20, 15, 4), (40, 30, 1000), (8, 50, 3), (3, 100, 10),
]


@pytest.mark.parametrize("n_queries, n_docs, n_levels", GRID)
@pytest.mark.parametrize("k", [None, 1, 2, 3, 5, 10, 60])
def test_sklearn_ndcg_score_grid(n_queries, n_docs, n_levels, k):
    sk = _sk()
    rng = np.random.default_rng(1000 * n_docs + n_levels + (k or 0))
    y_true, y_score = _random_arrays(rng, n_queries, n_docs, n_levels)
    y_true[0] = 0.0 if n_queries > 2 else y_true[0]  # an all-zero row: IDCG = 0 scores 0
    per_query = ea.score(y_true, y_score, k=k)
    assert per_query.shape == (n_queries,)
    want = sk.ndcg_score(y_true, y_score, k=k, ignore_ties=False)
    assert per_query.mean() == pytest.approx(want, abs=1e-12)
    # row by row too (sklearn averages rows; check each row on its own)
    for i in range(min(n_queries, 5)):
        row = sk.ndcg_score(y_true[i : i + 1], y_score[i : i + 1], k=k, ignore_ties=False)
        assert per_query[i] == pytest.approx(row, abs=1e-12)


@pytest.mark.parametrize("n_queries, n_docs, n_levels", GRID)
@pytest.mark.parametrize("k", [None, 1, 3, 10])
def test_sklearn_dcg_score_grid(n_queries, n_docs, n_levels, k):
    sk = _sk()
    rng = np.random.default_rng(7 * n_docs + n_levels + (k or 0))
    y_true, y_score = _random_arrays(rng, n_queries, n_docs, n_levels)
    got = ea.score(y_true, y_score, k=k, flavour="dcg(gain=linear,discount=log2,ties=average)")
    want = sk.dcg_score(y_true, y_score, k=k, ignore_ties=False)
    assert got.mean() == pytest.approx(want, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("base", [2, 3, math.e, 10, 1.5])
def test_sklearn_dcg_log_base(base):
    sk = _sk()
    rng = np.random.default_rng(int(base * 100))
    y_true, y_score = _random_arrays(rng, 10, 12, 4)
    flavour = f"dcg(gain=linear,discount=log(base={float(base)!r}),ties=average)"
    for k in (None, 3, 7):
        got = ea.score(y_true, y_score, k=k, flavour=flavour).mean()
        want = sk.dcg_score(y_true, y_score, k=k, log_base=base, ignore_ties=False)
        assert got == pytest.approx(want, rel=1e-12)
    if base != 2:  # the base matters for DCG (it cancels in NDCG)
        assert ea.score(y_true, y_score, flavour=flavour).mean() != pytest.approx(
            ea.score(y_true, y_score, flavour="dcg(ties=average)").mean())


def test_sklearn_exp_gain_is_not_sklearn():
    """scikit-learn's ndcg_score uses the grade as gain (linear); exp2 gain differs."""
    sk = _sk()
    rng = np.random.default_rng(5)
    y_true, y_score = _random_arrays(rng, 10, 10, 100)
    want = sk.ndcg_score(y_true, y_score, k=5)
    assert ea.score(y_true, y_score, k=5, flavour="ndcg(gain=exp2,ties=average)").mean() != pytest.approx(want)


# --------------------------------------------------------------------------- ir_measures fixtures
#: (library, measure) of expected.tsv -> evalkit flavour; the library is read from the
#: row's source file (tests/test_<library>.py). gdeval's nDCG is exp2 gain, log2
#: discount, ideal from all judged documents; its ERR uses max grade 4. ranx's and
#: pytrec_eval's nDCG is trec_eval's (linear gain).
FIXTURE_FLAVOURS = {
    ("gdeval", "nDCG@20"): "ndcg(gain=exp2,discount=log2,idcg=judged)@20",
    ("gdeval", "nDCG@2"): "ndcg(gain=exp2,discount=log2,idcg=judged)@2",
    ("gdeval", "ERR@20"): "err(max_grade=4)@20",
    ("gdeval", "ERR@2"): "err(max_grade=4)@2",
    ("ranx", "nDCG"): "ndcg(gain=linear)",
    ("ranx", "nDCG@5"): "ndcg(gain=linear)@5",
    ("ranx", "nDCG@2"): "ndcg(gain=linear)@2",
    ("ranx", "nDCG_exp"): "ndcg(gain=exp2)",
    ("ranx", "nDCG_exp@5"): "ndcg(gain=exp2)@5",
    ("ranx", "nDCG_exp@2"): "ndcg(gain=exp2)@2",
    ("ranx", "P@5"): "precision@5",
    ("ranx", "P(rel=2)@5"): "precision(threshold=2)@5",
    ("ranx", "R@2"): "recall@2",
    ("ranx", "RR"): "rr",
    ("ranx", "RR(rel=2)"): "rr(threshold=2)",
    ("ranx", "AP"): "ap",
    ("ranx", "AP(rel=2)"): "ap(threshold=2)",
    ("ranx", "AP@2"): "ap@2",
    ("pytrec_eval", "nDCG"): "ndcg(gain=linear)",
    ("pytrec_eval", "nDCG@3"): "ndcg(gain=linear)@3",
    ("pytrec_eval", "nDCG(gains={0:1,1:4})"): "ndcg(gain=map(0=1,1=4))",
    # ndeval's ERR-IA (alpha = 0.5, collection-independent normalisation) over subtopics
    ("pyndeval", "ERR-IA@20"): "err_ia(alpha=0.5,norm=independent)@20",
}
#: rows evalkit cannot express yet (Rprec: no metric)
NOT_EXPRESSIBLE = {("ranx", "Rprec")}
SOURCE = "source (terrierteam/ir_measures @ dc04a88)"


def _library(row) -> str:
    return row[SOURCE].split("tests/test_", 1)[1].split(".py", 1)[0]


def _fixture_rows(ir_measures_dir):
    with open(ir_measures_dir / "expected.tsv", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


@pytest.mark.shared
def test_ir_measures_fixture_rows_known(ir_measures_dir):
    rows = _fixture_rows(ir_measures_dir)
    assert len(rows) == 36
    keys = {(_library(r), r["measure"]) for r in rows}
    assert keys - set(FIXTURE_FLAVOURS) - NOT_EXPRESSIBLE == set()
    assert set(FIXTURE_FLAVOURS) <= keys


@pytest.mark.shared
@pytest.mark.parametrize("library, measure", sorted(FIXTURE_FLAVOURS))
def test_ir_measures_fixture(ir_measures_dir, library, measure):
    rows = [r for r in _fixture_rows(ir_measures_dir) if (_library(r), r["measure"]) == (library, measure)]
    assert rows
    spec = FIXTURE_FLAVOURS[(library, measure)]
    assert spec.split("(")[0].split("@")[0] in evalkit.default_registry().names("metric"), \
        f"metric for {library} {measure} is not registered"
    for row in rows:
        run = evalkit.read_run(ir_measures_dir / row["fixture_run"].split("[")[0])
        path = ir_measures_dir / row["fixture_qrels"].split("[")[0]
        subtopics = None
        if library == "pyndeval":  # subtopic qrels: topic subtopic docno grade
            subtopics = evalkit.read_subtopic_qrels(path)
            best: dict = {}
            for t, d, g in zip(subtopics.qid, subtopics.docno, subtopics.grade):
                best[(t, d)] = max(best.get((t, d), g), g)
            qrels = evalkit.Qrels.from_rows([(t, d, g) for (t, d), g in best.items()])
        else:
            qrels = evalkit.read_qrels(path)
        res = evalkit.evaluate(qrels, run, [spec], subtopics=subtopics)
        # ranx's rows use topic 0 alone; its per-query value does not depend on topic 1
        got = res.means()[0, 0] if row["topic"] == "mean" else res.per_query(0, 0)[row["topic"]]
        assert got == pytest.approx(float(row["expected"]), abs=float(row["tolerance"])), (
            f"{library} {measure} topic {row['topic']} ({row['semantics']}, {row[SOURCE]})"
        )


@pytest.mark.shared
def test_ir_measures_fixture_b_negative_labels(ir_measures_dir):
    """Fixture B: a label of -1 counts as gain 0, even under a gain map that gives
    grade 0 a gain of 1 (-1 is not in the map)."""
    qrels = evalkit.read_qrels(ir_measures_dir / "fixtureB.qrels")
    assert (qrels.grade < 0).sum() == 2
    clipped = evalkit.Qrels.from_columns(qrels.qid, qrels.docno, np.maximum(qrels.grade, 0))
    run = evalkit.read_run(ir_measures_dir / "fixtureB.run")
    a = evalkit.evaluate(qrels, run, ["ndcg"]).values
    b = evalkit.evaluate(clipped, run, ["ndcg"]).values
    np.testing.assert_array_equal(a, b)
    # under map(0=1,...) a -1 is NOT a 0: it keeps gain 0, while a 0 gets gain 1
    c = evalkit.evaluate(qrels, run, ["ndcg(gain=map(0=1,1=4))"]).values
    d = evalkit.evaluate(clipped, run, ["ndcg(gain=map(0=1,1=4))"]).values
    assert not np.allclose(c, d)
