"""``evalkit identify``: numbers produced by trec_eval, pytrec_eval, scikit-learn, ranx,
LightGBM and XGBoost on Robust 2003 runs are traced back to the preset that reproduces
them."""

from __future__ import annotations

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
    pytrec_eval = pytest.importorskip("pytrec_eval")
    q, r = to_pytrec(qrels, run)
    per_q = pytrec_eval.RelevanceEvaluator(q, {"ndcg_cut.10"}).evaluate(r)
    value = f"{np.mean([m['ndcg_cut_10'] for m in per_q.values()]):.4f}"
    res = identify(qrels, run, value, k=10)
    assert "pytrec_eval.ndcg_cut@10" in names(res)
    assert res.matches[0].name == "trec_eval.ndcg_cut@10"  # the most common reading first


def test_sklearn_number_is_identified(qrels, run):
    metrics = pytest.importorskip("sklearn.metrics")
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
    ranx = pytest.importorskip("ranx")
    q, r = to_pytrec(qrels, run)
    value = ranx.evaluate(ranx.Qrels(q), ranx.Run(r), "ndcg_burges@20", make_comparable=True)
    res = identify(qrels, run, f"{value:.4f}", k=20)
    assert "ranx.ndcg_burges@20" in names(res)
    assert "trec_eval.ndcg_cut@20" not in names(res)  # exponential gain differs on 0/1/2 grades


def test_table_of_several_systems(qrels):
    runs = [read_run(shared_path("trectools_robust03", "runs", f"input.{n}.gz")) for n in ("humR03dc", "uic0301")]
    res = evalkit.evaluate(qrels, runs, ["trec_eval.ndcg_cut@10"])
    table = {r.name: f"{res.mean(i, 0):.4f}" for i, r in enumerate(runs)}
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
    assert out.splitlines()[3].split()[1] == "trec_eval.ndcg_cut@10"
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
    lgb = pytest.importorskip("lightgbm")
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
    xgb = pytest.importorskip("xgboost")
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

    ir_measures = pytest.importorskip("ir_measures")
    script = os.path.join(os.path.dirname(ir_measures.__file__), "bin", "gdeval.pl")
    if not os.path.exists(script) or shutil.which("perl") is None:
        pytest.skip("gdeval.pl (inside ir_measures) or perl not available")
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


def test_torchmetrics_number_is_identified(qrels, run):
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.retrieval")
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
