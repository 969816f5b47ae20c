"""``evalkit identify``: numbers produced by trec_eval, pytrec_eval, scikit-learn, ranx,
LightGBM and XGBoost on Robust 2003 runs are traced back to the preset that reproduces
them."""

from __future__ import annotations

import importlib
import numpy as np
import pytest

import evalkit
from evalkit.cli import main
from evalkit.errors import EvalkitError
from evalkit.identify import identify, parse_reported, read_reported_table
from evalkit.io.trec import read_qrels, read_run

from conftest import shared_path, to_pytrec

pytestmark = pytest.mark.shared

RUN = "humR03dc"  # a Robust 2003 run without tied scores, 100 topics, depth 100


@pytest.fixture(scope="module")
def qrels():
    return read_qrels(shared_path("trectools_robust03", "robust03_qrels.txt"))


@pytest.fixture(scope="module")
def run():
    return read_run(shared_path("trectools_robust03", "runs", f"input.{RUN}.gz"))


def names(result):
    """Every matching name, presets that compose the same flavour (aliases) included."""
    return [n for a in result.matches for n in (a.name, *a.aliases)]


# --------------------------------------------------------------------------- parsing
def test_parse_reported_precision():
    r = parse_reported("0.4021")
    assert r.value == 0.4021 and r.tolerance == pytest.approx(5e-5)
    assert r.matches(0.40214999) and r.matches(0.40205) and not r.matches(0.40216)
    p = parse_reported("40.21")  # > 1: a percentage
    assert p.value == pytest.approx(0.4021) and p.tolerance == pytest.approx(5e-5)
    assert parse_reported("40.2%").tolerance == pytest.approx(5e-4)
    assert parse_reported("0.43").tolerance == pytest.approx(5e-3)
    with pytest.raises(EvalkitError):
        parse_reported("abc")
    # a finite Decimal beyond a float: its window was [inf, inf] +- inf and matched every flavour
    for text in ("1e400", "1e400%", "2e310"):
        with pytest.raises(EvalkitError, match=f"'{text}' is out of range"):
            parse_reported(text)
    assert parse_reported("1e300").value == 1e298  # large but finite: a percentage, refused by no rule


def test_read_reported_table_errors(tmp_path):
    good = read_reported_table("# paper, table 2\nA 0.41\nB 0.3\n")
    assert list(good) == ["A", "B"] and good["B"].tolerance == pytest.approx(0.05)
    bad = tmp_path / "t.txt"
    bad.write_text("A 0.4\nB\n")
    with pytest.raises(EvalkitError, match=r"t\.txt:2"):
        read_reported_table(str(bad))


# --------------------------------------------------------------------------- libraries
def test_trec_eval_number_from_its_own_test_suite():
    """trec_eval's out.test.a prints ndcg 0.4021 for results.test (README sanity line)."""
    d = shared_path("trec_eval_test")
    res = identify(read_qrels(d / "qrels.test"), read_run(d / "results.test"), "0.4021")
    assert res.matches[0].name == "trec_eval.ndcg"


def test_pytrec_eval_number_is_identified(qrels, run):
    pytrec_eval = importlib.import_module("pytrec_eval")
    q, r = to_pytrec(qrels, run)
    per_q = pytrec_eval.RelevanceEvaluator(q, {"ndcg_cut.10"}).evaluate(r)
    value = f"{np.mean([m['ndcg_cut_10'] for m in per_q.values()]):.4f}"
    res = identify(qrels, run, value, k=10)
    assert "pytrec_eval.ndcg_cut@10" in names(res)
    assert res.matches[0].name == "trec_eval.ndcg_cut@10"  # the most common reading first


def test_sklearn_number_is_identified(qrels, run):
    metrics = importlib.import_module("sklearn.metrics")
    judged = qrels.to_dict()
    rows: dict = {}
    for qid, d, s in zip(run.qid, run.docno, run.score):
        if qid in judged:
            t, sc = rows.setdefault(qid, ([], []))
            t.append(max(judged[qid].get(d, 0.0), 0.0))
            sc.append(s)
    value = np.mean([metrics.ndcg_score([t], [s], k=10) for t, s in rows.values()])
    res = identify(qrels, run, f"{value:.4f}", k=10)
    assert "sklearn.ndcg_score@10" in names(res)
    # with linear gain and IDCG over the returned list, trec_eval's reading must not match
    assert "trec_eval.ndcg_cut@10" not in names(res)


def test_ranx_number_is_identified(qrels, run):
    ranx = importlib.import_module("ranx")
    q, r = to_pytrec(qrels, run)
    value = ranx.evaluate(ranx.Qrels(q), ranx.Run(r), "ndcg_burges@20", make_comparable=True)
    res = identify(qrels, run, f"{value:.4f}", k=20)
    assert "ranx.ndcg_burges@20" in names(res)
    assert "trec_eval.ndcg_cut@20" not in names(res)  # exponential gain differs on 0/1/2 grades


def test_table_of_several_systems(qrels):
    runs = [read_run(shared_path("trectools_robust03", "runs", f"input.{n}.gz")) for n in ("humR03dc", "uic0301")]
    # the numbers a user reads off pytrec_eval (independent of evalkit): mean ndcg_cut_10
    pytrec_eval = importlib.import_module("pytrec_eval")
    table = {}
    for r in runs:
        q, rr = to_pytrec(qrels, r)
        per = pytrec_eval.RelevanceEvaluator(q, {"ndcg_cut.10"}).evaluate(rr)
        table[r.name] = f"{np.mean([v['ndcg_cut_10'] for v in per.values()]):.4f}"
    out = identify(qrels, runs, table, k=10)
    assert out.matches[0].name == "trec_eval.ndcg_cut@10"
    assert out.systems == tuple(table)
    with pytest.raises(EvalkitError, match="without a run"):
        identify(qrels, runs, {"nope": "0.3"}, k=10)


def test_no_match_reports_closest(qrels, run):
    res = identify(qrels, run, "0.9999", k=10)
    assert res.matches == () and len(res.closest) == 10


# --------------------------------------------------------------------------- CLI
def test_cli_identify(capsys, tmp_path):
    d = shared_path("trec_eval_test")
    rc = main(["identify", str(d / "qrels.test"), str(d / "results.test"), "--value", "0.3016", "--k", "10",
               "--limit", "3"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "answer: trec_eval.ndcg_cut@10 (a preset)" in out
    rows = [line.split() for line in out.splitlines() if line[:1].isdigit() and "answer(s)" not in line]
    assert rows[0][:3] == ["1", "trec_eval.ndcg_cut@10", "0.301577"]  # out.test.a: ndcg_cut_10 0.3016
    table = tmp_path / "reported.txt"
    table.write_text("STANDARD 0.2299\n")  # out.test.aqcM ndcg_cut_100 (-c; -M100 does not change @100)
    rc = main(["identify", str(d / "qrels.test"), str(d / "results.trunc"), "--table", str(table),
               "--k", "100", "--format", "json"])
    import json

    data = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert data["matches"][0]["name"] == "trec_eval.ndcg_cut@100 with missing=zero"


def _ltr_groups(qrels, run):
    """The run as learning-to-rank groups: one group per judged query, its retrieved
    documents with their grades (unjudged and negative -> 0) and scores."""
    judged = qrels.to_dict()
    rows: dict = {}
    for qid, d, s in zip(run.qid, run.docno, run.score):
        if qid in judged:
            rows.setdefault(qid, []).append((max(judged[qid].get(d, 0.0), 0.0), s))
    y = np.array([g for q in sorted(rows) for g, _ in rows[q]])
    scores = np.array([s for q in sorted(rows) for _, s in rows[q]])
    groups = np.array([len(rows[q]) for q in sorted(rows)])
    return y, scores, groups


def test_lightgbm_number_is_identified(qrels, run):
    lgb = importlib.import_module("lightgbm")
    y, scores, groups = _ltr_groups(qrels, run)
    data = lgb.Dataset(np.zeros((len(y), 1)), label=y, group=groups, init_score=scores,
                       params={"verbose": -1})
    booster = lgb.Booster({"objective": "lambdarank", "metric": "ndcg", "eval_at": [10],
                           "verbose": -1}, data)
    value = {r.metric_name: r.metric_value for r in booster.eval_train()}["ndcg@10"]
    res = identify(qrels, run, f"{value:.4f}", k=10)
    assert "lightgbm.ndcg@10" in names(res)
    assert "trec_eval.ndcg_cut@10" not in names(res)


def test_xgboost_number_is_identified(qrels, run):
    xgb = importlib.import_module("xgboost")
    y, scores, groups = _ltr_groups(qrels, run)
    data = xgb.DMatrix(np.zeros((len(y), 1)), label=y, base_margin=scores)
    data.set_group(groups)
    booster = xgb.train({"objective": "rank:ndcg", "eval_metric": ["ndcg@10"]}, data,
                        num_boost_round=0)
    value = float(booster.eval(data).split("\t")[1].rsplit(":", 1)[1])
    res = identify(qrels, run, f"{value:.4f}", k=10)
    assert "xgboost.ndcg@10" in names(res)
    assert "trec_eval.ndcg_cut@10" not in names(res)


def test_gdeval_number_is_identified(qrels, run, tmp_path):
    """gdeval.pl (shipped inside ir_measures) on the run: the mean of its per-topic nDCG@20."""
    import os
    import shutil
    import subprocess

    ir_measures = importlib.import_module("ir_measures")
    script = os.path.join(os.path.dirname(ir_measures.__file__), "bin", "gdeval.pl")
    if not os.path.exists(script) or shutil.which("perl") is None:
        pytest.fail("gdeval.pl (inside ir_measures) or perl not available: both are needed (CI has perl)")
    qrels_path = shared_path("trectools_robust03", "robust03_qrels.txt")
    run_path = tmp_path / "run.txt"
    run_path.write_text("".join(f"{q} Q0 {d} 1 {float(s)!r} sys\n"
                                for q, d, s in zip(run.qid, run.docno, run.score)))
    out = subprocess.run(["perl", script, str(qrels_path), str(run_path), "20"],
                         capture_output=True, text=True, check=True).stdout
    per_topic = [float(line.split(",")[2]) for line in out.splitlines()[1:] if line.startswith("sys,")]
    assert len(per_topic) == 100
    # gdeval prints 5 decimals per topic and no mean here: report the mean to 4 decimals
    res = identify(qrels, run, f"{np.mean(per_topic):.4f}", k=20)
    assert "gdeval.ndcg@20" in names(res)
    assert "trec_eval.ndcg_cut@20" not in names(res)


def test_qrels_with_negative_grades_catboost_number_is_identified():
    """Qrels with negative grades (the TREC Web track's -2): presets with negative=error
    (scikit-learn ndcg_score, LightGBM, XGBoost) refuse them, so they are not
    candidates, and identify still runs; CatBoost's own NDCG:top=10 of the groups (every
    document judged, grades -2..4, tied scores) is found as catboost.ndcg@10."""
    from catboost.utils import eval_metric

    rng = np.random.default_rng(12)
    qrels_rows, run_rows, per_query = [], [], []
    for q in range(8):
        n = int(rng.integers(3, 15))
        y = rng.integers(-2, 5, size=n).astype(float)
        s = rng.integers(0, 3, size=n).astype(float)
        qrels_rows += [(f"q{q}", f"d{i}", int(y[i])) for i in range(n)]
        run_rows += [(f"q{q}", f"d{i}", float(s[i])) for i in range(n)]
        per_query.append(eval_metric(y, s, "NDCG:top=10;type=Base", group_id=np.zeros(n, dtype=np.int64))[0])
    qrels = evalkit.Qrels.from_rows(qrels_rows)
    run = evalkit.Run.from_rows(run_rows, name="cb")
    res = identify(qrels, run, f"{np.mean(per_query):.6f}", k=10)
    assert "catboost.ndcg@10" in names(res)
    assert not any(n.startswith(("sklearn.ndcg_score", "lightgbm.", "xgboost.")) for n in names(res))


def test_qrels_with_a_grade_lightgbm_refuses_xgboost_number_is_identified():
    """A grade of 31: LightGBM refuses it as a label (CheckLabel: "Label 31 is not less
    than the number of label mappings (31)"), so the grades=lightgbm presets are not
    candidates (they would raise) and identify still runs; XGBoost takes labels up to
    31, and its own ndcg@3 of the groups is found as xgboost.ndcg@3."""
    xgb = importlib.import_module("xgboost")
    rng = np.random.default_rng(31)
    qrels_rows, run_rows, ys, ss = [], [], [], []
    for q in range(6):
        n = int(rng.integers(3, 9))
        y = rng.integers(0, 4, size=n).astype(float)
        y[0] = 31 if q == 0 else y[0]
        s = rng.normal(size=n)
        qrels_rows += [(f"q{q}", f"d{i}", int(y[i])) for i in range(n)]
        run_rows += [(f"q{q}", f"d{i}", float(s[i])) for i in range(n)]
        ys.append(y)
        ss.append(s)
    data = xgb.DMatrix(np.zeros((sum(map(len, ys)), 1)), label=np.concatenate(ys), base_margin=np.concatenate(ss))
    data.set_group([len(y) for y in ys])
    booster = xgb.train({"objective": "rank:ndcg", "eval_metric": ["ndcg@3"]}, data, num_boost_round=0)
    value = float(booster.eval(data).split(":")[-1])
    qrels = evalkit.Qrels.from_rows(qrels_rows)
    run = evalkit.Run.from_rows(run_rows, name="xgb")
    res = identify(qrels, run, f"{value:.6f}", k=3)
    assert "xgboost.ndcg@3" in names(res)
    assert not any(n.startswith("lightgbm.") for n in names(res))


def test_torchmetrics_number_is_identified(qrels, run):
    torch = importlib.import_module("torch")
    retrieval = importlib.import_module("torchmetrics.retrieval")
    y, scores, groups = _ltr_groups(qrels, run)
    index = torch.tensor(np.repeat(np.arange(len(groups)), groups))
    metric = retrieval.RetrievalNormalizedDCG(top_k=10)
    value = float(metric(torch.tensor(scores, dtype=torch.float32),
                         torch.tensor(y, dtype=torch.long), indexes=index))
    res = identify(qrels, run, f"{value:.4f}", k=10)
    assert "torchmetrics.ndcg@10" in names(res)
    assert "trec_eval.ndcg_cut@10" not in names(res)


def test_err_with_the_2009_web_track_maximum_grade_is_identified(qrels, run):
    """ERR@20 with R = (2^g - 1) / 2^2 (the TREC 2009 Web track's maximum grade 2),
    brute-forced here from Chapelle et al.'s formula with gdeval's ordering (score
    then docno descending) and topics without a positive judgment left out."""
    grades: dict = {}
    for q, d, g in zip(qrels.qid, qrels.docno, qrels.grade):
        grades.setdefault(q, {})[d] = g
    ranked: dict = {}
    for q, d, s in zip(run.qid, run.docno, run.score):
        ranked.setdefault(q, []).append((float(s), d))
    values = []
    for q, judged in grades.items():
        if not any(g > 0 for g in judged.values()):
            continue
        err, p = 0.0, 1.0
        docs = sorted(ranked.get(q, []), reverse=True)[:20]
        for r, (_, d) in enumerate(docs, start=1):
            g = min(max(judged.get(d, 0), 0), 2)
            stop = (2 ** g - 1) / 4
            err += p * stop / r
            p *= 1 - stop
        values.append(err)
    res = identify(qrels, run, f"{np.mean(values):.4f}", k=20)
    assert "gdeval.err@20 with max_grade=2" in names(res)
    assert "gdeval.err@20" not in names(res)


# --------------------------------------------------------------------------- weighing the evidence
def _ranx_ndcg(qrels, run, k: int) -> float:
    ranx = importlib.import_module("ranx")
    q, r = to_pytrec(qrels, run)
    return ranx.evaluate(ranx.Qrels(q), ranx.Run(r), f"ndcg@{k}", make_comparable=True)


def _pytrec_per_query(qrels, run, measure: str) -> dict[str, float]:
    pytrec_eval = importlib.import_module("pytrec_eval")
    q, r = to_pytrec(qrels, run)
    key = measure.replace(".", "_")
    return {qid: m[key] for qid, m in pytrec_eval.RelevanceEvaluator(q, {measure}).evaluate(r).items()}


@pytest.mark.parametrize("system", ["humR03dc", "rutcor03100"])
def test_ranx_ndcg_of_one_robust03_run_names_ranx_or_says_too_weak(qrels, system):
    """The issue's case: a ranx nDCG@10 of one Robust 2003 run, cutoff not given.
    humR03dc has no tied scores; rutcor03100 has ties, which ranx orders with numba's
    quicksort. The answer is ranx's preset (first), or the evidence is called too
    weak; a lone chance composition is never named."""
    run = read_run(shared_path("trectools_robust03", "runs", f"input.{system}.gz"))
    value = _ranx_ndcg(qrels, run, 10)
    res = identify(qrels, run, f"{value:.4f}")
    assert res.status in ("preset", "weak")
    if res.status == "preset":
        assert "ranx.ndcg@10" in res.groups[0].names
        assert res.answer is res.groups[0]
    else:
        assert res.answer is None
        assert all(g.first.preset is None for g in res.groups)
    assert res.strength.n_distinct > 100 and 0 <= res.strength.chance < 0.01


def test_tie_free_run_groups_tie_policies(qrels, run):
    """humR03dc has no tied scores: every tie policy gives the same values, so they are
    one answer, with the reason; likewise ``missing`` (no query missing) and ``empty``
    (every Robust 2003 topic has a relevant document)."""
    per_q = _pytrec_per_query(qrels, run, "ndcg_cut.10")
    res = identify(qrels, run, f"{np.mean(list(per_q.values())):.4f}", k=10)
    first = res.groups[0]
    assert res.status == "preset" and first.name == "trec_eval.ndcg_cut@10"
    assert {"pytrec_eval.ndcg_cut@10", "ranx.ndcg@10"} <= set(first.names)
    assert set(first.varies["ties"]) >= {"trec_eval", "stable", "average", "input", "optimistic"}
    assert first.reasons["ties"] == "no run has tied scores"
    assert "missing" in first.reasons and "empty" in first.reasons
    assert "gain" not in first.varies  # grades 1 and 2: linear and exp2 differ
    facts = res.strength.facts
    assert facts["no_ties"] and facts["no_missing"] and not facts["binary_qrels"]


def test_run_with_ties_does_not_group_tie_policies(qrels):
    run = read_run(shared_path("trectools_robust03", "runs", "input.rutcor03100.gz"))
    per_q = _pytrec_per_query(qrels, run, "ndcg_cut.10")
    res = identify(qrels, run, f"{np.mean(list(per_q.values())):.4f}", k=10)
    assert res.status == "preset"
    assert "pytrec_eval.ndcg_cut@10" in res.groups[0].names
    assert not res.strength.facts["no_ties"]
    assert "ties" not in res.groups[0].reasons


def test_binary_qrels_group_gains():
    """trec_eval's test qrels are binary (-1/0/1): linear and exponential gains give
    the same values, so trec_eval.ndcg and burges2005.ndcg are one answer."""
    d = shared_path("trec_eval_test")
    res = identify(read_qrels(d / "qrels.test"), read_run(d / "results.test"), "0.4021")  # out.test.a
    first = res.groups[0]
    assert res.status == "preset" and first.name == "trec_eval.ndcg"
    # binary qrels: the binary gain (issue 12's MLlib presets) agrees with both too, and so
    # does Elliot's exp2_from(threshold=1) (a candidate as a one-convention change of its preset)
    assert set(first.varies["gain"]) == {"binary", "exp2", "exp2_from(threshold=1)", "linear"}
    assert "binary" in first.reasons["gain"]
    assert "burges2005.ndcg" in first.names
    assert res.strength.facts["binary_qrels"]
    # one answer per behaviour: no other group repeats trec_eval.ndcg's values with another gain
    assert len(res.groups) < len(res.matches)


def test_several_numbers_are_intersected(qrels, run):
    """One run at cutoff 5 and another at cutoff 10 (pytrec_eval's numbers, as in a
    paper's table): the answers are exactly the flavours that reproduce each number."""
    other = read_run(shared_path("trectools_robust03", "runs", "input.uic0301.gz"))
    table = {}
    for r, k in ((run, 5), (other, 10)):
        per_q = _pytrec_per_query(qrels, r, f"ndcg_cut.{k}")
        table[(r.name, k)] = f"{np.mean(list(per_q.values())):.4f}"
    both = identify(qrels, [run, other], table)
    assert both.status == "preset" and both.groups[0].name == "trec_eval.ndcg_cut@5,10"
    assert "pytrec_eval.ndcg_cut@5,10" in both.groups[0].names
    singles = [identify(qrels, [run, other], {key: value}) for key, value in table.items()]
    each = [{str(a.flavour.without_cutoff()) for a in s.matches} for s in singles]
    assert {str(a.flavour) for a in both.matches} == each[0] & each[1]
    for a in both.matches:
        assert all(t.matches(v) for t, v in zip(both.reported, a.values))
    # a number no flavour reproducing the others gives: nothing matches
    table[(run.name, 5)] = "0.9000"
    assert identify(qrels, [run, other], table).status == "none"


def test_ranx_numbers_at_two_cutoffs_are_intersected(qrels):
    """rutcor03100 (ties): ranx's @10 alone is matched by chance compositions; with its
    @5 as well, every answer must reproduce both, and none is a lone chance composition."""
    run = read_run(shared_path("trectools_robust03", "runs", "input.rutcor03100.gz"))
    v10, v5 = _ranx_ndcg(qrels, run, 10), _ranx_ndcg(qrels, run, 5)
    one = identify(qrels, run, {(run.name, 10): f"{v10:.4f}"})
    two = identify(qrels, run, {(run.name, 10): f"{v10:.4f}", (run.name, 5): f"{v5:.4f}"})
    assert two.status != "composition" or "ranx" in two.groups[0].name
    one_names = {str(a.flavour.without_cutoff()) for a in one.matches}
    assert {str(a.flavour) for a in two.matches} <= one_names
    for a in two.matches:
        assert abs(a.values[0] - v10) <= 5e-5 + 1e-12 and abs(a.values[1] - v5) <= 5e-5 + 1e-12


def test_per_query_file(qrels, run, tmp_path, capsys):
    """pytrec_eval's per-query ndcg_cut_10, written as trec_eval -q prints it: 100
    numbers leave one answer and no room for chance."""
    from evalkit.identify import read_per_query

    per_q = _pytrec_per_query(qrels, run, "ndcg_cut.10")
    path = tmp_path / "per_query.txt"
    path.write_text("".join(f"ndcg_cut_10\t{q}\t{v:.4f}\n" for q, v in sorted(per_q.items()))
                    + f"ndcg_cut_10\tall\t{np.mean(list(per_q.values())):.4f}\n")
    evidence = read_per_query(str(path), run.name)
    assert len(evidence) == 101 and {e.k for e in evidence} == {10}
    assert sum(e.qid is None for e in evidence) == 1  # the 'all' line is the mean
    res = identify(qrels, run, evidence)
    assert res.status == "preset" and res.groups[0].name == "trec_eval.ndcg_cut@10"
    assert len(res.groups) == 1
    assert res.strength.expected_by_chance < 1e-6
    # a per-query value changed: the flavour no longer matches
    bad = [e if e.qid != sorted(per_q)[0] else type(e)(e.system, parse_reported("0.9999"), e.k, e.qid)
           for e in evidence]
    assert "trec_eval.ndcg_cut@10" not in names(identify(qrels, run, bad))
    # the CLI, with plain 'qid value' lines and the cutoff unknown
    plain = tmp_path / "plain.txt"
    plain.write_text("".join(f"{q} {v:.4f}\n" for q, v in sorted(per_q.items())))
    rc = main(["identify", str(shared_path("trectools_robust03", "robust03_qrels.txt")),
               str(shared_path("trectools_robust03", "runs", f"input.{RUN}.gz")),
               "--per-query", str(plain), "--format", "json"])
    import json

    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and data["status"] == "preset"
    assert data["groups"][0]["name"] == "trec_eval.ndcg_cut@10"


def test_per_query_file_errors(tmp_path):
    from evalkit.identify import read_per_query

    bad = tmp_path / "pq.txt"
    bad.write_text("ndcg_cut_10 301 0.5\nP_10 301 0.3\n")
    with pytest.raises(EvalkitError, match=r"pq\.txt:2: several measures"):
        read_per_query(str(bad), "sys")
    bad.write_text("301 0.5\n301 0.4\n")
    with pytest.raises(EvalkitError, match=r"pq\.txt:2: query '301' listed twice"):
        read_per_query(str(bad), "sys")
    bad.write_text("ndcg_cut_10 301 0.5\n")
    with pytest.raises(EvalkitError, match="cutoff 10, not 5"):
        read_per_query(str(bad), "sys", k=5)


def test_cli_several_values_and_table_with_cutoffs(capsys, tmp_path):
    """trec_eval's out.test.a: ndcg_cut_5 0.3249... (three topics); given as two
    --value with their cutoffs, and as a table line."""
    d = shared_path("trec_eval_test")
    expected = {}
    for line in (d / "out.test.a").read_text().splitlines():
        measure, _, value = line.split()
        expected[measure] = value
    v5, v10 = expected["ndcg_cut_5"], expected["ndcg_cut_10"]
    rc = main(["identify", str(d / "qrels.test"), str(d / "results.test"),
               "--value", f"{v5}@5", "--value", f"{v10}@10"])
    out = capsys.readouterr().out
    assert rc == 0 and "answer: trec_eval.ndcg_cut@5,10 (a preset)" in out
    table = tmp_path / "t.txt"
    table.write_text(f"STANDARD {v5}@5 {v10}@10\n")
    rc = main(["identify", str(d / "qrels.test"), str(d / "results.test"), "--table", str(table),
               "--format", "json"])
    import json

    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and data["groups"][0]["name"] == "trec_eval.ndcg_cut@5,10"
    assert [e["k"] for e in data["evidence"]] == [5, 10]


def test_candidates_read_presets_from_the_registry_and_vary_err_max_grade():
    """A preset registered later (by a plugin) is a candidate without being listed in
    identify; ERR presets are also tried at other maximum grades."""
    from evalkit.components import Preset
    from evalkit.identify import candidate_flavours
    from evalkit.registry import build_registry

    reg = build_registry(disable_plugins=True)
    reg.add("preset", Preset(name="newlib.ndcg", spec="ndcg(gain=exp2,idcg=returned,ties=stable)"),
            "evalkit-newlib 1.0 (entry point 'newlib')")
    names_ = {c.name for c in candidate_flavours(reg, k=20)}
    assert "newlib.ndcg@20" in names_
    assert {"gdeval.err@20 with max_grade=2", "gdeval.err@20 with max_grade=1"} <= names_
    assert "gdeval.err@20 with max_grade=4" not in names_  # gdeval's own: the preset itself
    floats = {str(c.base.ties) for c in candidate_flavours(reg, k=20) if c.preset is None}
    assert {"stable(score=float32)", "trec_eval(score=float32)"} <= floats


def test_candidate_space_is_the_presets_and_their_one_choice_neighbours():
    """The bound: every composition tried differs from some preset in exactly one choice
    (a component or a convention, counted here on the flavours' fields), none is tried
    twice, a preset's one-choice neighbours are in and a flavour two choices from every
    preset is out."""
    from evalkit.flavour import parse_flavour
    from evalkit.identify import candidate_flavours
    from evalkit.registry import build_registry

    reg = build_registry(disable_plugins=True)
    presets = {parse_flavour(p.spec, reg).without_cutoff() for p in reg.components["preset"].values()}

    from evalkit.flavour import STAGE_KEYS

    def fields(fl):
        out = {key: getattr(fl, key) for key in ("metric", "gain", "discount", "idcg", "ties", "params")}
        out.update({f"convention {k}": v for k, v in fl.conventions})
        out.update({f"stage {k}": getattr(fl, k) for k in STAGE_KEYS})  # a stage component is one choice
        return out

    def changes(a, b):
        fa, fb = fields(a), fields(b)
        return sum(fa.get(key) != fb.get(key) for key in set(fa) | set(fb))

    comps = [c.base for c in candidate_flavours(reg, k=10) if c.preset is None]
    assert len(comps) == len(set(comps))
    assert not set(comps) & presets
    assert all(any(changes(fl, p) == 1 for p in presets) for fl in comps)
    near = {str(fl) for fl in comps}
    assert {"ndcg(gain=linear,discount=log2,idcg=judged,ties=average)",   # trec_eval.ndcg, ties
            "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval,empty=skip,missing=error)",  # an empty rule
            "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval)",  # trec_eval.ndcg, missing=skip (9.0.8's)
            "ndcg(gain=linear,discount=log2,idcg=judged,ties=stable(score=float32))"} <= near
    far = parse_flavour("ndcg(gain=linear,discount=reciprocal,idcg=listed,ties=docno_ascending,empty=one)", reg)
    assert min(changes(far, p) for p in presets) >= 2 and str(far) not in near
    # 6,480 at one cutoff before the bound (every gain x discount x IDCG x ties x empty x missing);
    # 1,996 before numba_quicksort's key/added choices and the ranx *_sorted_once presets (2,235)
    assert len(comps) < 2300


def test_docs_identify_example_is_what_the_cli_prints(capsys, monkeypatch):
    """docs/identify.md quotes the CLI on trec_eval's test suite: its lines (up to
    their '...') are what the command prints on a wide terminal, and its counts are true."""
    from pathlib import Path

    monkeypatch.setenv("COLUMNS", "1000")  # the docs quote unwrapped lines

    doc = (Path(__file__).resolve().parent.parent / "docs" / "identify.md").read_text()
    block = doc.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    d = shared_path("trec_eval_test")
    argv = block[0].split()[3:]  # after "$ evalkit identify"
    assert argv[:2] == ["qrels.test", "results.test"]
    rc = main(["identify", str(d / "qrels.test"), str(d / "results.test"), *argv[2:]])
    out = capsys.readouterr().out.splitlines()
    assert rc == 0
    import re

    for quoted, printed in zip(block[1:], out):  # counts may grow as presets arrive
        head = re.sub(r"^\d+ ", "N ", quoted.split("...", 1)[0])
        assert re.sub(r"^\d+ ", "N ", printed).startswith(head), (quoted, printed)
    table = [line.split() for line in out if line[:1].isdigit() and "answer(s)" not in line]
    assert table[0][1:3] == ["trec_eval.ndcg", "0.402110"]
    assert any(row[1] == "ndcg(gain=linear,discount=log2,idcg=judged,ties=average)" and row[2] == "0.402108"
               for row in table)


def test_lone_chance_composition_is_not_named(capsys):
    """0.58 (two decimals) on trec_eval's test run: no preset gives it, one group of
    compositions does, but at that precision several coincidences are expected among
    the candidates' distinct values; the verdict is 'too weak', no answer. (0.45 did
    this before the candidate space was bounded to the presets' neighbours; it now
    matches three groups.)"""
    d = shared_path("trec_eval_test")
    res = identify(read_qrels(d / "qrels.test"), read_run(d / "results.test"), "0.58")
    assert res.matches and all(a.preset is None for a in res.matches)
    assert len(res.groups) == 1
    assert res.strength.expected_by_chance > 1
    assert res.status == "weak" and res.answer is None
    rc = main(["identify", str(d / "qrels.test"), str(d / "results.test"), "--value", "0.58"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "the evidence is too weak to name a flavour" in out and "answer:" not in out


def test_cli_evidence_errors(capsys, tmp_path):
    d = shared_path("trec_eval_test")
    q, r = str(d / "qrels.test"), str(d / "results.test")
    assert main(["identify", q, r]) != 0
    assert "give the reported number(s)" in capsys.readouterr().err
    assert main(["identify", q, r, "--value", "0.4@0"]) != 0
    assert "cutoff after '@' must be an integer >= 1" in capsys.readouterr().err
    table = tmp_path / "t.txt"
    table.write_text("STANDARD 0.40@10 0.41@10\n")
    assert main(["identify", q, r, "--table", str(table)]) != 0
    err = capsys.readouterr().err
    assert "t.txt:1: system 'STANDARD' at cutoff 10 listed twice" in err and "Traceback" not in err


SIX_ROBUST03 = ("MU03rob01", "rutcor03100", "humR03dc", "InexpC2", "THUIRr0301", "uwmtCR0")


def test_ranx_default_call_on_six_robust03_runs_names_ranx_preset(qrels):
    """The issue's case: ranx's nDCG@10 of six Robust 2003 runs, each read with
    ``ranx.Run.from_file`` and scored by ``ranx.evaluate(qrels, run, "ndcg@10")``
    (make_comparable=False: the run sorted once; MU03rob01 and rutcor03100 have ties
    that make it differ from the ranx.ndcg preset). The answer is ranx's preset for
    that call, not the composition ``ndcg(...,ties=numba_quicksort)@10``."""
    ranx = importlib.import_module("ranx")
    base = shared_path("trectools_robust03")
    rq = ranx.Qrels.from_file(str(base / "robust03_qrels.txt"), kind="trec")
    reported, runs = {}, []
    for system in SIX_ROBUST03:
        path = base / "runs" / f"input.{system}.gz"
        reported[system] = f"{ranx.evaluate(rq, ranx.Run.from_file(str(path), kind='gz'), 'ndcg@10'):.4f}"
        runs.append(read_run(path))
    res = identify(qrels, runs, reported, k=10)
    assert res.status == "preset"
    assert res.groups[0].first.name == "ranx.ndcg_sorted_once@10"
    assert "ranx.ndcg@10" not in names(res)  # sorted twice: MU03rob01 0.3599, not 0.3604


def test_an_aggregate_declared_untried_is_skipped_and_one_without_the_flag_is_tried():
    """Which aggregates identify tries is the component's own declaration
    (``tried_by_identify``), not a list of names inside identify: the built-in
    ``gmean`` and ``sum`` declare it false; a plugin's aggregate is tried unless it
    declares the same."""
    from evalkit.components import Aggregate
    from evalkit.flavour import parse_flavour
    from evalkit.identify import neighbours
    from evalkit.registry import build_registry

    reg = build_registry(disable_plugins=True)
    assert not reg.get("aggregate", "gmean").tried_by_identify and not reg.get("aggregate", "sum").tried_by_identify
    assert reg.get("aggregate", "mean").tried_by_identify
    origin = "evalkit-aggregates-test 1.0 (entry point 'aggregates')"
    reg.add("aggregate", Aggregate(name="median", fn=lambda v: np.nanmedian(v, axis=-1), formula="median"), origin)
    reg.add("aggregate", Aggregate(name="maximum", fn=lambda v: np.nanmax(v, axis=-1), formula="max",
                                   tried_by_identify=False), origin)
    near = {str(fl) for fl in neighbours(reg, [parse_flavour("ndcg", reg)])}
    base = "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval,aggregate={})"
    assert base.format("median") in near
    for untried in ("maximum", "gmean", "sum"):
        assert base.format(untried) not in near


@pytest.mark.parametrize("columns", [80, 120])
def test_identify_fits_the_terminal_width(capsys, monkeypatch, columns):
    """Issue 25: identify printed lines of 232-346 characters whatever COLUMNS said.
    The prose is wrapped, flavours folded between parameters (never inside a name),
    and the answers table split into blocks of columns repeating # and flavour."""
    monkeypatch.setenv("COLUMNS", str(columns))
    d = shared_path("trec_eval_test")
    rc = main(["identify", str(d / "qrels.test"), str(d / "results.test"), "--value", "0.4021", "--k", "1000"])
    out = capsys.readouterr().out
    assert rc == 0
    assert max(len(line) for line in out.splitlines()) <= columns
    assert "trec_eval.ndcg" in out and "ties=trec_eval" in out  # names kept whole
