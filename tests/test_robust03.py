"""``evalkit run configs/robust03.yaml`` on the 17 TREC 2003 Robust runs (../shared/data).

One run of the config (about 20-40 s: 17 runs x 12 flavours); the checks share it.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest

from evalkit import build_registry, evaluate, read_qrels, read_run
from evalkit.cli import main

pytestmark = [pytest.mark.shared, pytest.mark.slow]

CONFIG = Path(__file__).resolve().parent.parent / "configs" / "robust03.yaml"
LABELS = [f"{name}@{k}" for name in ("trec", "exp2", "jarvelin", "returned", "avg_ties", "ltr") for k in (10, 100)]
SYSTEMS = {
    "InexpC2", "MU03rob01", "NLPR03vb10", "SABIR03BASE", "Sel50", "THUIRr0301", "UAmsT03RDesc", "UIUC03Rd1",
    "VTcdhgp1", "aplrob03a", "fub03IeOLKe3", "humR03dc", "oce03noXbmD", "pircRBa1", "rutcor03100", "uic0301",
    "uwmtCR0",
}


@pytest.fixture(scope="module")
def robust03(shared_data, tmp_path_factory):
    """Runs the config once through the CLI; skipped (by ``shared_data``) without ../shared."""
    data = shared_data / "trectools_robust03"
    if not data.is_dir():
        pytest.skip(f"{data} not found (TREC 2003 Robust runs from ../shared/data)")
    out_dir = tmp_path_factory.mktemp("robust03")
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["--no-plugins", "run", str(CONFIG), "--output-dir", str(out_dir)])
    assert code == 0, stderr.getvalue()
    report = json.loads((out_dir / "report.json").read_text())
    return data, out_dir, stdout.getvalue(), report


def test_all_systems_and_flavours(robust03):
    _, out_dir, _, report = robust03
    assert set(report["systems"]) == SYSTEMS and len(report["systems"]) == 17
    assert [f["label"] for f in report["flavours"]] == LABELS
    canon = {f["label"]: f["canonical"] for f in report["flavours"]}
    assert canon["trec@10"] == "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval)@10"
    assert canon["exp2@100"] == "ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval)@100"
    assert canon["jarvelin@10"] == "ndcg(gain=linear,discount=jarvelin,idcg=judged,ties=trec_eval)@10"
    assert canon["returned@10"] == "ndcg(gain=linear,discount=log2,idcg=returned,ties=trec_eval)@10"
    assert canon["avg_ties@10"] == "ndcg(gain=linear,discount=log2,idcg=judged,ties=average)@10"
    assert len(report["qids"]) == 100
    assert sorted(p.name for p in out_dir.iterdir()) == [
        "flips.csv", "means.csv", "per_query.csv", "report.html", "report.json", "report.md", "report.tex",
        "statistics.csv"]
    # every system has a value for every flavour and all 100 topics
    assert all(report["counts"][s][l] == 100 for s in SYSTEMS for l in LABELS)
    pairs = report["agreement"]["pairs"]
    assert len(pairs) == len(LABELS) * (len(LABELS) - 1) // 2


def test_table_and_agreement_printed(robust03):
    _, _, out, report = robust03
    lines = out.splitlines()
    header = next(l for l in lines if l.startswith("system ") and "trec@10" in l)
    assert header.split() == ["system"] + LABELS
    start = lines.index(header) + 2  # skip the dashes
    rows = lines[start:start + 17]
    assert {r.split()[0] for r in rows} == SYSTEMS
    assert "Flavour agreement" in out
    assert "Kendall's τ-b" in out
    assert report["agreement"]["statement"] in out


def test_trec_flavour_equals_trec_eval_preset(robust03):
    data, _, _, report = robust03
    registry = build_registry(disable_plugins=True)
    qrels = read_qrels(data / "robust03_qrels.txt")
    run = read_run(data / "runs" / "input.InexpC2.gz")
    direct = evaluate(qrels, [run], ["trec_eval.ndcg_cut@10"], registry=registry)
    assert report["means"]["InexpC2"]["trec@10"] == pytest.approx(direct.mean(0, 0), rel=1e-12)
    per_query = report["per_query"]["InexpC2"]["trec@10"]
    assert per_query == pytest.approx(direct.per_query(0, 0), rel=1e-12)

    # independent check: pytrec_eval (trec_eval's C code) on the same run
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qd: dict = {}
    for q, d, g in zip(qrels.qid, qrels.docno, qrels.grade):
        qd.setdefault(q, {})[d] = int(g)
    rd: dict = {}
    for q, d, s in zip(run.qid, run.docno, run.score):
        rd.setdefault(q, {})[d] = float(s)
    got = pytrec_eval.RelevanceEvaluator(qd, {"ndcg_cut.10"}).evaluate(rd)
    assert report["means"]["InexpC2"]["trec@10"] == pytest.approx(
        np.mean([v["ndcg_cut_10"] for v in got.values()]), abs=1e-12)


def test_flavour_changes_the_conclusion(robust03):
    """NLPR03vb10 returns at most 12 documents per topic: under idcg=returned its short
    list is its own ideal, so it jumps to the top; under judged IDCG it does not."""
    _, _, _, report = robust03
    means = report["means"]
    assert means["NLPR03vb10"]["returned@100"] == max(m["returned@100"] for m in means.values())
    assert means["NLPR03vb10"]["trec@100"] < np.median([m["trec@100"] for m in means.values()])
    assert report["agreement"]["changes_conclusion"] is True
    pair = next(p for p in report["agreement"]["pairs"] if (p["first"], p["second"]) == ("trec@100", "returned@100"))
    assert pair["kendall_tau_b"] < 0.9 and len(pair["flips"]) > 0
