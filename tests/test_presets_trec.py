"""Presets against the libraries they name: trec_eval's expected outputs, pytrec_eval,
scikit-learn and ranx, on real data (``../shared/data``) and random graded lists with
and without ties. Agreement is 1e-9 per query (trec_eval's files: its printed 4
decimals). Each library is imported directly: a missing reference fails the test (they are in the ``test`` extra).

Plain ``ndcg``/``ndcg_cut`` lines written as raw flavours are checked in
test_trec_eval_outputs.py; here every NDCG-family line goes through the presets and
:func:`evalkit.libraries.trec_eval.trec_eval_flavours` (the flags -c, -M, -l), and the
lines that file does not cover (``ndcg_rel``, ``Rndcg``, ``-M``) are included.
"""

from __future__ import annotations

import importlib
import math
import re

import numpy as np
import pytest

import evalkit
import evalkit.arrays as ea
from evalkit.libraries.trec_eval import trec_eval_flavours
from evalkit.data import Qrels, Run
from evalkit.io.trec import read_qrels, read_run
from evalkit.presets import preset_flavour

from conftest import assert_per_query, shared_path, to_pytrec
from trec_eval_out import values as trec_eval_values

TOL = 1e-9
ROBUST_RUNS = ("InexpC2", "oce03noXbmD", "humR03dc", "NLPR03vb10")


# --------------------------------------------------------------------------- data
@pytest.fixture(scope="module")
def robust_qrels():
    return read_qrels(shared_path("trectools_robust03", "robust03_qrels.txt"))


_RUNS: dict[str, Run] = {}


def robust_run(name: str) -> Run:
    if name not in _RUNS:
        _RUNS[name] = read_run(shared_path("trectools_robust03", "runs", f"input.{name}.gz"))
    return _RUNS[name]


def random_problem(seed: int, n_queries=40, max_docs=60, ties=True, min_docs=1):
    """Random qrels and run: grades -1..3, unjudged documents, optional tied scores."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(n_queries):
        qid = f"q{q:02d}"
        n = int(rng.integers(min_docs, max_docs + 1))
        docs = [f"d{d:03d}" for d in rng.permutation(2 * max_docs)[: n + 10]]
        for d in docs[:n]:
            score = float(rng.integers(0, 6)) if ties else float(rng.random())
            run.append((qid, d, score))
        for d in docs[5: n + 10]:  # some retrieved documents stay unjudged
            qrels.append((qid, d, int(rng.choice([-1, 0, 0, 1, 1, 2, 3]))))
    return Qrels.from_rows(qrels), Run.from_rows(run, name="random")


# --------------------------------------------------------------------------- trec_eval files
NDCG_LINE = re.compile(r"^(ndcg|ndcg_cut_\d+|ndcg_rel|Rndcg|ndcg_p|ndcg_[-\d.=,]+)$")

TREC_EVAL_FILES = [
    # expected file, qrels, run, flags (data README: the quicktest Makefile target)
    ("out.test.aq", "qrels.test", "results.test", {}),
    ("out.test.aqc", "qrels.test", "results.trunc", {"complete": True}),
    ("out.test.aqcM", "qrels.test", "results.trunc", {"complete": True, "max_docs": 100}),
    ("out.test.aql", "qrels.rel_level", "results.test", {"rel_level": 2}),
    ("out.test.meas_params", "qrels.test", "results.test", {}),
]


def _te_measure(line_name: str) -> str:
    """trec_eval -m argument for a printed measure name."""
    m = re.fullmatch(r"ndcg_cut_(\d+)", line_name)
    if m:
        return f"ndcg_cut.{m.group(1)}"
    m = re.fullmatch(r"ndcg_([-\d.]+=.*)", line_name)
    if m:
        return f"ndcg.{m.group(1)}"
    return line_name


@pytest.mark.shared
@pytest.mark.parametrize("out_name,qrels_name,run_name,flags", TREC_EVAL_FILES,
                         ids=[f[0] for f in TREC_EVAL_FILES])
def test_trec_eval_expected_outputs(out_name, qrels_name, run_name, flags):
    d = shared_path("trec_eval_test")
    expected = trec_eval_values(d / out_name)
    names = sorted({m for m, _ in expected if NDCG_LINE.match(m)})
    assert names, f"no NDCG-family line in {out_name}"
    labels, flavours = [], []
    for name in names:
        (printed, fl), = trec_eval_flavours(_te_measure(name), **flags)
        assert printed == name
        labels.append(name)
        flavours.append(fl)
    res = evalkit.evaluate(read_qrels(d / qrels_name), read_run(d / run_name), flavours, labels=labels)
    means = res.means()[0]
    for f, name in enumerate(labels):
        want = {qid: v for (m, qid), v in expected.items() if m == name and qid != "all"}
        assert_per_query(res.per_query(0, f), want, abs_tol=5e-5, context=f"{out_name} {name}")
        if (name, "all") in expected:
            assert abs(means[f] - expected[name, "all"]) <= 5e-5, (out_name, name, means[f])


@pytest.mark.shared
def test_meas_params_fractional_cutoff_and_custom_gains():
    """``-mndcg_cut.10,20,23.4`` prints ``ndcg_cut_23``; ``-mndcg.1=3,2=9,4=4.5``
    keeps grade 0 at gain 0 (gain_init.c: unlisted levels keep their value)."""
    pairs = trec_eval_flavours("ndcg_cut.10,20,23.4")
    assert [p for p, _ in pairs] == ["ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23"]
    assert pairs[2][1].k == 23
    (name, fl), = trec_eval_flavours("ndcg.1=3,2=9,4=4.5")
    assert name == "ndcg_1=3,2=9,4=4.5"
    assert str(fl.gain) == "map(1=3,2=9,4=4.5)"


# --------------------------------------------------------------------------- ndcg_p by hand
def ndcg_p_reference(qrels: Qrels, run: Run, rel_level: int = 1) -> dict[str, float]:
    """A line-by-line port of trec_eval m_ndcg_p.c (te_calc_ndcg_p) and the parts of
    form_res_rels.c it relies on (sort by score then docno descending; num_rel_ret)."""
    judged = qrels.to_dict()
    by_q: dict = {}
    for qid, d, s in zip(run.qid, run.docno, run.score):
        by_q.setdefault(qid, []).append((s, d))
    out = {}
    for qid, docs in by_q.items():
        if qid not in judged:
            continue
        docs.sort(key=lambda t: (-t[0], [-ord(c) for c in t[1]]))  # docno descending
        rels = [judged[qid].get(d, -1) for _, d in docs]
        num_rel_ret = sum(1 for r in rels if r >= rel_level)
        total = 0.0
        for i, r in enumerate(rels):
            gain = r if r > 0 else 0  # default gains: the level itself; -1/-2 -> 0
            if gain != 0:
                total += gain if i == 0 else gain / math.log2(i + 1)
        ideal_gains = sorted((g for g in judged[qid].values() if g > 0), reverse=True)
        ideal = sum(g if i == 0 else g / math.log2(i + 1) for i, g in enumerate(ideal_gains))
        out[qid] = total / ideal if num_rel_ret > 0 else 0.0
    return out


@pytest.mark.shared
@pytest.mark.parametrize("rel_level", [1, 2])
def test_ndcg_p_against_port_of_m_ndcg_p(rel_level):
    d = shared_path("trec_eval_test")
    qrels, run = read_qrels(d / "qrels.rel_level"), read_run(d / "results.test")
    (_, fl), = trec_eval_flavours("ndcg_p", rel_level=rel_level)
    got = evalkit.evaluate(qrels, run, [fl]).per_query(0, 0)
    want = ndcg_p_reference(qrels, run, rel_level)
    assert got.keys() == want.keys()
    for qid in want:
        assert got[qid] == pytest.approx(want[qid], abs=TOL), qid


@pytest.mark.parametrize("seed", range(4))
def test_ndcg_p_random_lists(seed):
    qrels, run = random_problem(seed, ties=True)
    for rel_level in (1, 2):
        (_, fl), = trec_eval_flavours("ndcg_p", rel_level=rel_level)
        got = evalkit.evaluate(qrels, run, [fl]).per_query(0, 0)
        want = ndcg_p_reference(qrels, run, rel_level)
        assert_per_query(got, want, abs_tol=TOL, context=f"ndcg_p rel_level={rel_level}")


def test_ndcg_p_discount_is_the_original_jarvelin_one():
    """Ranks 1 and 2 are both undiscounted in ndcg_p (log2(2) = 1), unlike ndcg."""
    qrels = Qrels.from_rows([("q", "a", 1), ("q", "b", 1)])
    run = Run.from_rows([("q", "x", 3.0), ("q", "a", 2.0), ("q", "b", 1.0)])
    res = evalkit.evaluate(qrels, run, ["trec_eval.ndcg_p", "trec_eval.ndcg"])
    # ndcg_p: DCG = 1/log2(2) + 1/log2(3); IDCG = 1 + 1/log2(2) = 2
    assert res.mean(0, 0) == pytest.approx((1 + 1 / math.log2(3)) / 2, abs=1e-15)
    assert res.mean(0, 1) == pytest.approx((1 / math.log2(3) + 0.5) / (1 + 1 / math.log2(3)), abs=1e-15)


# --------------------------------------------------------------------------- pytrec_eval
PYTREC_MEASURES = {"ndcg", "ndcg_cut.5,10,20,100,1000", "ndcg_rel", "Rndcg"}


def pytrec_flavours(**flags):
    out = []
    for m in ("ndcg", "ndcg_cut.5,10,20,100,1000", "ndcg_rel", "Rndcg"):
        out.extend(trec_eval_flavours(m, float32=True, **flags))
    return out


def compare_pytrec(qrels: Qrels, run: Run, *, relevance_level=1, judged_only=False):
    pytrec_eval = importlib.import_module("pytrec_eval")
    q, r = to_pytrec(qrels, run)
    ev = pytrec_eval.RelevanceEvaluator(q, PYTREC_MEASURES, relevance_level=relevance_level,
                                        judged_docs_only_flag=int(judged_only))
    want = ev.evaluate(r)
    pairs = pytrec_flavours(rel_level=relevance_level, judged_only=judged_only)
    res = evalkit.evaluate(qrels, run, [fl for _, fl in pairs], labels=[n for n, _ in pairs])
    for f, (name, _) in enumerate(pairs):
        assert_per_query(res.per_query(0, f), {qid: m[name] for qid, m in want.items()}, abs_tol=TOL,
                         context=f"pytrec_eval {name} relevance_level={relevance_level} judged_only={judged_only}")
    return res, want


@pytest.mark.shared
@pytest.mark.parametrize("name", ROBUST_RUNS)
def test_pytrec_eval_robust03(robust_qrels, name):
    compare_pytrec(robust_qrels, robust_run(name))


@pytest.mark.shared
def test_pytrec_eval_relevance_level_and_judged_only(robust_qrels):
    compare_pytrec(robust_qrels, robust_run("InexpC2"), relevance_level=2)
    compare_pytrec(robust_qrels, robust_run("InexpC2"), judged_only=True)


@pytest.mark.shared
def test_pytrec_eval_float32_ties_matter(robust_qrels):
    """oce03noXbmD has scores that are distinct in float64 but equal in float32:
    pytrec_eval ranks them by docno, so trec_eval's float64 preset differs while the
    pytrec_eval preset matches."""
    pytrec_eval = importlib.import_module("pytrec_eval")
    run = robust_run("oce03noXbmD")
    q, r = to_pytrec(robust_qrels, run)
    want = pytrec_eval.RelevanceEvaluator(q, {"ndcg"}).evaluate(r)
    res = evalkit.evaluate(robust_qrels, run, ["trec_eval.ndcg", "pytrec_eval.ndcg"])
    f64, f32 = res.per_query(0, 0), res.per_query(0, 1)
    assert_per_query(f32, {qid: m["ndcg"] for qid, m in want.items()}, abs_tol=TOL, context="pytrec_eval.ndcg")
    assert set(f64) == set(want)
    assert max(abs(f64[qid] - m["ndcg"]) for qid, m in want.items()) > 1e-6


TREC_EVAL9_PRESETS = {"ndcg": "trec_eval9.ndcg", "ndcg_cut_10": "trec_eval9.ndcg_cut@10",
                      "ndcg_cut_100": "trec_eval9.ndcg_cut@100", "ndcg_rel": "trec_eval9.ndcg_rel",
                      "Rndcg": "trec_eval9.Rndcg"}


def compare_trec_eval9(qrels: Qrels, run: Run) -> None:
    """The trec_eval9.* presets per query against pytrec_eval, which wraps trec_eval 9
    (scores stored as C float, trec_format.h)."""
    pytrec_eval = importlib.import_module("pytrec_eval")
    q, r = to_pytrec(qrels, run)
    want = pytrec_eval.RelevanceEvaluator(q, {"ndcg", "ndcg_cut.10,100", "ndcg_rel", "Rndcg"}).evaluate(r)
    res = evalkit.evaluate(qrels, run, list(TREC_EVAL9_PRESETS.values()))
    for f, name in enumerate(TREC_EVAL9_PRESETS):
        assert_per_query(res.per_query(0, f), {qid: m[name] for qid, m in want.items()}, abs_tol=TOL,
                         context=TREC_EVAL9_PRESETS[name])


@pytest.mark.shared
@pytest.mark.parametrize("name", ["oce03noXbmD", "InexpC2"])
def test_trec_eval9_presets_robust03(robust_qrels, name):
    compare_trec_eval9(robust_qrels, robust_run(name))


def test_trec_eval9_issue_example_and_float32_near_ties():
    """The issue's example: 9.0.8 ties 1.0000000001 with 1.0 (float), 10.0 does not."""
    qrels = Qrels.from_rows([("q1", "d1", 1), ("q1", "d2", 0)])
    run = Run.from_rows([("q1", "d1", 1.0000000001), ("q1", "d2", 1.0)], name="r")
    res = evalkit.evaluate(qrels, run, ["trec_eval9.ndcg", "trec_eval.ndcg"])
    assert res.mean(0, 0) == pytest.approx(1 / math.log2(3), abs=1e-12)  # 0.6309
    assert res.mean(0, 1) == 1.0
    compare_trec_eval9(qrels, run)
    # generated runs whose scores differ only beyond float32 precision
    rng = np.random.default_rng(9)
    rows_q, rows_r = [], []
    for qn in range(30):
        base = rng.integers(0, 5, 40).astype(np.float64) + 1000.0
        for d in range(40):
            rows_r.append((f"q{qn}", f"d{d:02d}", float(base[d] + rng.integers(0, 3) * 1e-9)))
            rows_q.append((f"q{qn}", f"d{d:02d}", int(rng.choice([0, 0, 1, 2]))))
    compare_trec_eval9(Qrels.from_rows(rows_q), Run.from_rows(rows_r, name="near"))


@pytest.mark.shared
def test_pytrec_eval_trec_eval_test_and_cast():
    d = shared_path("trec_eval_test")
    compare_pytrec(read_qrels(d / "qrels.rel_level"), read_run(d / "results.test"))
    cast = shared_path("trec_cast_2021")
    qrels = read_qrels(cast / "trec-cast-qrels-docs.2021.qrel")
    run = read_run(next(iter(sorted((cast / "document_runs").glob("*bm25*")))))
    assert any("_" in q for q in qrels.qids)  # string topic ids such as 106_1
    compare_pytrec(qrels, run)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ties", [True, False])
def test_pytrec_eval_random_lists(seed, ties):
    qrels, run = random_problem(seed, ties=ties)
    compare_pytrec(qrels, run)
    compare_pytrec(qrels, run, relevance_level=2)
    compare_pytrec(qrels, run, judged_only=True)


# --------------------------------------------------------------------------- scikit-learn
def _random_arrays(seed, n_queries, n_docs, ties):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, (n_queries, n_docs)).astype(np.float64)
    y_true[0] = 0  # an all-irrelevant row scores 0
    y_score = (rng.integers(0, 4, (n_queries, n_docs)) if ties else rng.random((n_queries, n_docs)))
    return y_true, y_score.astype(np.float64)


@pytest.mark.parametrize("n_docs", [2, 5, 16, 17, 40, 120])
@pytest.mark.parametrize("ties", [True, False])
@pytest.mark.parametrize("k", [None, 1, 5, 10])
def test_sklearn_random_arrays(n_docs, ties, k):
    metrics = importlib.import_module("sklearn.metrics")
    y_true, y_score = _random_arrays(n_docs * 7 + (k or 0), 25, n_docs, ties)
    cases = [
        ("sklearn.ndcg_score", lambda t, s: metrics.ndcg_score(t, s, k=k)),
        ("sklearn.ndcg_score_ignore_ties", lambda t, s: metrics.ndcg_score(t, s, k=k, ignore_ties=True)),
        ("sklearn.dcg_score", lambda t, s: metrics.dcg_score(t, s, k=k)),
        ("sklearn.dcg_score_ignore_ties", lambda t, s: metrics.dcg_score(t, s, k=k, ignore_ties=True)),
    ]
    for preset, fn in cases:
        got = ea.score(y_true, y_score, k=k, flavour=preset)
        want = np.array([fn(y_true[i: i + 1], y_score[i: i + 1]) for i in range(len(y_true))])
        np.testing.assert_allclose(got, want, rtol=0, atol=TOL, err_msg=preset)
        # the mean sklearn reports, from the 2-D call
        assert got.mean() == pytest.approx(fn(y_true, y_score), abs=TOL)


@pytest.mark.parametrize("log_base", [2, 10, math.e, 1.5])
@pytest.mark.parametrize("ignore_ties", [False, True])
def test_sklearn_dcg_log_base(log_base, ignore_ties):
    metrics = importlib.import_module("sklearn.metrics")
    y_true, y_score = _random_arrays(3, 20, 12, ties=True)
    ties = "numpy_argsort" if ignore_ties else "average"
    fl = f"dcg(gain=linear,discount=log(base={log_base!r}),ties={ties})"
    for k in (None, 4):
        got = ea.score(y_true, y_score, k=k, flavour=fl)
        want = metrics.dcg_score(y_true, y_score, k=k, log_base=log_base, ignore_ties=ignore_ties)
        assert got.mean() == pytest.approx(want, abs=TOL)


@pytest.mark.shared
@pytest.mark.parametrize("name", ["InexpC2", "humR03dc"])
def test_sklearn_on_robust03_runs(robust_qrels, name):
    """Per query, y_true = the grades of the retrieved documents (unjudged 0) in run
    order; the file-based presets (IDCG over the returned list) agree."""
    metrics = importlib.import_module("sklearn.metrics")
    run = robust_run(name)
    judged = robust_qrels.to_dict()
    rows: dict = {}
    for qid, d, s in zip(run.qid, run.docno, run.score):
        if qid in judged:
            rows.setdefault(qid, ([], []))
            rows[qid][0].append(max(judged[qid].get(d, 0.0), 0.0))
            rows[qid][1].append(s)
    specs = ["sklearn.ndcg_score@10", "sklearn.ndcg_score_ignore_ties@10", "sklearn.ndcg_score",
             "sklearn.dcg_score@20"]
    res = evalkit.evaluate(robust_qrels, run, specs)
    for f, spec in enumerate(specs):
        want = {}
        for qid, (t, s) in rows.items():
            t, s = np.array([t]), np.array([s])
            if spec.startswith("sklearn.dcg_score"):
                want[qid] = metrics.dcg_score(t, s, k=20)
            else:
                want[qid] = metrics.ndcg_score(t, s, k=10 if "@10" in spec else None,
                                               ignore_ties="ignore_ties" in spec)
        assert_per_query(res.per_query(0, f), want, abs_tol=TOL, context=spec)


def test_sklearn_ndcg_score_gain_is_linear():
    """Evidence for docs/flavours.md: ndcg_score does not use 2^rel - 1."""
    metrics = importlib.import_module("sklearn.metrics")
    y_true, y_score = np.array([[3.0, 2.0, 0.0]]), np.array([[0.1, 0.9, 0.5]])
    want = metrics.ndcg_score(y_true, y_score)
    assert ea.score(y_true, y_score, flavour="ndcg(gain=linear,idcg=returned,ties=average)")[0] == \
        pytest.approx(want, abs=1e-15)
    assert abs(ea.score(y_true, y_score, flavour="ndcg(gain=exp2,idcg=returned,ties=average)")[0] - want) > 1e-3


# --------------------------------------------------------------------------- ranx
@pytest.fixture(scope="module")
def ranx():
    return importlib.import_module("ranx")


def ranx_per_query(ranx, qrels: Qrels, run: Run, metrics: list[str]) -> dict[str, dict[str, float]]:
    q, r = to_pytrec(qrels, run)
    rq, rr = ranx.Qrels(q), ranx.Run(r)
    ranx.evaluate(rq, rr, metrics, make_comparable=True, return_mean=False)
    return {m: {qid: float(v) for qid, v in rr.scores[m].items()} for m in metrics}


def _ranx_spec(metric: str):
    """ranx metric name -> (preset spec, min_grade)."""
    m = re.fullmatch(r"(ndcg|ndcg_burges)(?:@(\d+))?(?:-l(\d+))?", metric)
    spec = f"ranx.{m.group(1)}" + (f"@{m.group(2)}" if m.group(2) else "")
    return spec, int(m.group(3) or 1)


def compare_ranx(ranx, qrels, run, metrics):
    want = ranx_per_query(ranx, qrels, run, metrics)
    for metric in metrics:
        spec, level = _ranx_spec(metric)
        fl = preset_flavour(spec.split("@")[0], int(spec.split("@")[1]) if "@" in spec else None)
        if level != 1:
            fl = fl.replace(min_grade=level)
        got = evalkit.evaluate(qrels, run, [fl]).per_query(0, 0)
        assert_per_query(got, want[metric], abs_tol=TOL, context=f"ranx {metric}")


RANX_METRICS = ["ndcg", "ndcg@10", "ndcg@100", "ndcg_burges", "ndcg_burges@10", "ndcg@10-l2",
                "ndcg_burges@20-l2"]


@pytest.mark.shared
@pytest.mark.parametrize("name", ["humR03dc", "uic0301"])  # the robust03 runs without tied scores
def test_ranx_robust03(ranx, robust_qrels, name):
    compare_ranx(ranx, robust_qrels, robust_run(name), RANX_METRICS)


@pytest.mark.parametrize("seed", range(3))
def test_ranx_random_short_lists_with_ties(ranx, seed):
    """Lists of at most 15 documents: numba's argsort is an insertion sort there, so
    ranx keeps tied documents in input order (ties=stable)."""
    qrels, run = random_problem(seed, max_docs=15, ties=True)
    compare_ranx(ranx, qrels, run, RANX_METRICS)


@pytest.mark.parametrize("seed", range(4))
def test_ranx_random_long_lists_with_ties(ranx, seed):
    """Lists of 16 to 300 documents with 1 to 20 tie levels: numba's quicksort
    reorders tied documents (unstable), reproduced by ties=numba_quicksort."""
    rng = np.random.default_rng(100 + seed)
    qrels, run = [], []
    for q in range(30):
        n = int(rng.integers(16, 301))
        levels = int(rng.integers(1, 21))
        for d in rng.permutation(n):
            run.append((f"q{q}", f"d{d:03d}", float(rng.integers(0, levels)) / 7))
            if rng.random() < 0.6:
                qrels.append((f"q{q}", f"d{d:03d}", int(rng.choice([0, 1, 2, 3]))))
    qrels, run = Qrels.from_rows(qrels), Run.from_rows(run, name="tied")
    compare_ranx(ranx, qrels, run, RANX_METRICS + ["ndcg@1", "ndcg@5"])
    # without make_comparable, ranx.Run is sorted once: ties=numba_quicksort(sorts=1)
    q, r = to_pytrec(qrels, run)
    rr = ranx.Run(r)
    ranx.evaluate(ranx.Qrels(q), rr, ["ndcg@5", "ndcg_burges@20"], return_mean=False)
    res = evalkit.evaluate(qrels, run, ["ndcg(ties=numba_quicksort)@5",
                                        "ndcg(gain=exp2,ties=numba_quicksort)@20"])
    for f, metric in enumerate(["ndcg@5", "ndcg_burges@20"]):
        assert_per_query(res.per_query(0, f), dict(rr.scores[metric]), abs_tol=TOL, context=f"ranx once {metric}")


def test_ranx_sixteen_tied_documents_first_relevant(ranx):
    """The issue's example: 16 equally scored documents, only the first relevant.
    ``ranx.Run`` sorts once: ndcg@1 is 0 (the quicksort moves d00), a stable sort
    would give 1; ``make_comparable=True`` sorts the sorted run again."""
    qrels = Qrels.from_rows([("q", "d00", 1)])
    run = Run.from_rows([("q", f"d{i:02d}", 1.0) for i in range(16)], name="r")
    compare_ranx(ranx, qrels, run, ["ndcg@1", "ndcg@5", "ndcg"])  # make_comparable=True
    q, r = to_pytrec(qrels, run)
    once = ranx.evaluate(ranx.Qrels(q), ranx.Run(r), ["ndcg@1", "ndcg@5"])
    res = evalkit.evaluate(qrels, run, ["ndcg(ties=numba_quicksort,missing=zero)@1",
                                        "ndcg(ties=numba_quicksort,missing=zero)@5"])
    assert once["ndcg@1"] == 0.0
    assert res.mean(0, 0) == 0.0
    assert res.mean(0, 1) == pytest.approx(once["ndcg@5"], abs=TOL)
    assert evalkit.evaluate(qrels, run, ["ndcg(ties=stable)@1"]).mean(0, 0) == 1.0


@pytest.mark.shared
@pytest.mark.parametrize("name", ["InexpC2", "oce03noXbmD", "NLPR03vb10"])  # runs with tied scores
def test_ranx_robust03_tied_runs(ranx, robust_qrels, name):
    compare_ranx(ranx, robust_qrels, robust_run(name), ["ndcg@10", "ndcg@100", "ndcg_burges", "ndcg@1"])


@pytest.mark.parametrize("seed", range(2))
def test_ranx_random_long_lists_without_ties(ranx, seed):
    qrels, run = random_problem(seed + 10, max_docs=80, ties=False)
    compare_ranx(ranx, qrels, run, RANX_METRICS)
