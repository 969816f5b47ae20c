"""``evalkit run configs/robust03.yaml`` on the 17 TREC 2003 Robust runs (../shared/data).

One run of the config (about 20-40 s: 17 runs x 12 flavours); the checks share it.
"""

from __future__ import annotations

import importlib
import contextlib
import io
import json
import os
from pathlib import Path

import numpy as np
import pytest

from evalkit import build_registry, evaluate, read_qrels, read_run
from evalkit.cli import main

from conftest import shared_path, to_pytrec

pytestmark = [pytest.mark.shared, pytest.mark.slow]

WIDTH = 100  # COLUMNS while the config runs
CONFIG = Path(__file__).resolve().parent.parent / "configs" / "robust03.yaml"
LABELS = [f"{name}@{k}" for name in ("trec", "exp2", "jarvelin", "returned", "avg_ties", "ltr") for k in (10, 100)]
SYSTEMS = {
    "InexpC2", "MU03rob01", "NLPR03vb10", "SABIR03BASE", "Sel50", "THUIRr0301", "UAmsT03RDesc", "UIUC03Rd1",
    "VTcdhgp1", "aplrob03a", "fub03IeOLKe3", "humR03dc", "oce03noXbmD", "pircRBa1", "rutcor03100", "uic0301",
    "uwmtCR0",
}


@pytest.fixture(scope="module")
def robust03(shared_data, tmp_path_factory):
    """Runs the config once through the CLI; fails (by ``shared_path``) without ../shared."""
    data = shared_path("trectools_robust03")
    out_dir = tmp_path_factory.mktemp("robust03")
    stdout, stderr = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COLUMNS", str(WIDTH))  # the terminal width evalkit run fits its output to
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
    assert canon["trec@10"] == "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval,missing=error)@10"  # trec_eval 10.0
    assert canon["exp2@100"] == "ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval)@100"
    assert canon["jarvelin@10"] == "ndcg(gain=linear,discount=jarvelin,idcg=judged,ties=trec_eval)@10"
    assert canon["returned@10"] == "ndcg(gain=linear,discount=log2,idcg=returned,ties=trec_eval)@10"
    assert canon["avg_ties@10"] == "ndcg(gain=linear,discount=log2,idcg=judged,ties=average)@10"
    assert len(report["qids"]) == 100
    # paths are recorded relative to the config (as it writes them), never as this machine's absolute paths
    # (the config's paths are resolved, so where ../shared is a symlink -- a worktree beside a
    # linked shared/ -- the relative path goes through its target: compare with the resolved one)
    md = report["metadata"]
    assert md["config"] == "robust03.yaml"
    data = shared_path("trectools_robust03").resolve()
    base = CONFIG.parent.resolve()
    assert md["qrels"] == os.path.relpath(data / "robust03_qrels.txt", base).replace(os.sep, "/")
    assert md["runs"]["InexpC2"] == os.path.relpath(data / "runs" / "input.InexpC2.gz", base).replace(os.sep, "/")
    assert md["qrels"].endswith("/shared/data/trectools_robust03/robust03_qrels.txt")
    assert md["output_dir"] == "../out/robust03"
    for name in ("report.json", "report.md", "report.html", "report.tex"):
        assert str(CONFIG.parent.parent) not in (out_dir / name).read_text(), name
    assert sorted(p.name for p in out_dir.iterdir()) == [
        "flips.csv", "judged_at_k.csv", "means.csv", "per_query.csv", "report.html", "report.json", "report.md",
        "report.tex", "statistics.csv", "tie_spread.csv"]
    # every system has a value for every flavour and all 100 topics
    assert all(report["counts"][s][l] == 100 for s in SYSTEMS for l in LABELS)
    pairs = report["agreement"]["pairs"]
    assert len(pairs) == len(LABELS) * (len(LABELS) - 1) // 2


def test_table_and_agreement_printed(robust03):
    """COLUMNS=100: no line is longer than 100 characters; the means table is split into
    blocks of flavours that each list the 17 systems, and together every flavour once,
    in order; the verdict is the best system per flavour (the full statement is in
    report.md)."""
    _, out_dir, out, report = robust03
    lines = out.splitlines()
    assert max(len(l) for l in lines) <= WIDTH
    means_at = lines.index(next(l for l in lines if l.startswith("Mean over queries")))
    end = lines.index(next(l for l in lines[means_at:] if l.startswith("▲ / ▼")))
    headers = [i for i in range(means_at, end) if lines[i].startswith("system ")]
    assert len(headers) > 1  # 12 flavours do not fit in 100 columns
    labels = [label for i in headers for label in lines[i].split()[1:]]
    assert labels == LABELS
    for i in headers:
        rows = lines[i + 2:i + 2 + 17]
        assert {r.split()[0] for r in rows} == SYSTEMS
        # the values are the report's means, 4 decimals
        head = lines[i].split()[1:]
        for r in rows:
            cells = r.replace(" (baseline)", "").split()
            for label, cell in zip(head, cells[1:]):
                assert cell.rstrip("▲▼") == f"{report['means'][cells[0]][label]:.4f}"
    assert "Flavour agreement" in out
    assert "Kendall's τ-b" in out
    best_at = lines.index("Best system per flavour:")
    best = {l.split()[0]: l.split()[1] for l in lines[best_at + 4:best_at + 4 + len(LABELS)]}
    for label in LABELS:
        top = max(report["means"], key=lambda s: report["means"][s][label])
        assert best[label] == top
    flat = " ".join(out.split())
    # with significance tests the headline counts only distinguishable flips (issue 25)
    assert " ".join(report["agreement"]["statement"].split()) in flat
    assert report["agreement"]["changes_conclusion_by_means"] is True
    assert report["agreement"]["statement"] in (out_dir / "report.md").read_text()


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
    pytrec_eval = importlib.import_module("pytrec_eval")
    qd, rd = to_pytrec(qrels, run)
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
    assert report["agreement"]["changes_conclusion_by_means"] is True
    pair = next(p for p in report["agreement"]["pairs"] if (p["first"], p["second"]) == ("trec@100", "returned@100"))
    assert pair["kendall_tau_b"] < 0.9 and len(pair["flips"]) > 0


# ----------------------------------------------------------------------------- statistics and formats


def _pytrec_ndcg_cut_10(data, run_file):
    pytrec_eval = importlib.import_module("pytrec_eval")
    qrels = read_qrels(data / "robust03_qrels.txt")
    run = read_run(data / "runs" / run_file)
    qd, rd = to_pytrec(qrels, run)
    got = pytrec_eval.RelevanceEvaluator(qd, {"ndcg_cut.10"}).evaluate(rd)
    return {q: v["ndcg_cut_10"] for q, v in got.items()}


def test_significance_against_the_baseline(robust03):
    """The t-test of InexpC2 against SABIR03BASE under trec@10, recomputed from
    pytrec_eval's per-query values with the textbook formula, and Holm over the 16."""
    from scipy.stats import t as t_dist

    data, _, out, report = robust03
    st = report["statistics"]
    assert report["baseline"] == "SABIR03BASE"
    assert st["settings"] == {"test": "t", "alpha": 0.05, "correction": "holm", "family": "flavour", "seed": 42,
                              "n_resamples": 10000, "ci_method": "percentile", "all_pairs": False,
                              "confidence": 0.95}
    comps = [c for c in st["comparisons"] if c["flavour"] == "trec@10"]
    assert len(comps) == 16 and len(st["comparisons"]) == 16 * len(LABELS)
    a = _pytrec_ndcg_cut_10(data, "input.InexpC2.gz")
    b = _pytrec_ndcg_cut_10(data, "input.SABIR03BASE.gz")
    qids = sorted(set(report["qids"]))
    d = np.array([a.get(q, 0.0) - b.get(q, 0.0) for q in qids])  # trec_eval scores absent queries 0
    t = d.mean() / (d.std(ddof=1) / np.sqrt(len(d)))
    p = 2 * t_dist.sf(abs(t), len(d) - 1)
    c = next(c for c in comps if c["system"] == "InexpC2")
    assert c["n"] == 100
    assert c["mean_difference"] == pytest.approx(d.mean(), abs=1e-12)
    assert c["p_value"] == pytest.approx(p, rel=1e-9)
    assert c["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-9)
    assert (c["wins"], c["losses"]) == (int(np.sum(d > 1e-12)), int(np.sum(d < -1e-12)))
    assert c["ci_low"] < c["mean_difference"] < c["ci_high"]
    # Holm over the 16 comparisons of trec@10
    raw = np.array([x["p_value"] for x in comps])
    order = np.argsort(raw)
    holm = np.minimum(1, np.maximum.accumulate(raw[order] * (16 - np.arange(16))))
    np.testing.assert_allclose(np.array([x["p_adjusted"] for x in comps])[order], holm, rtol=1e-12)
    assert [x["significant"] for x in comps] == [x["p_adjusted"] <= 0.05 for x in comps]
    # flips carry their tests; the markers and the legend are printed
    pair = next(p for p in report["agreement"]["pairs"] if (p["first"], p["second"]) == ("trec@100", "returned@100"))
    assert len(pair["flip_tests"]) == len(pair["flips"])
    assert any(f["significant_under_either"] for f in pair["flip_tests"])
    flat = " ".join(out.split())  # prose is wrapped to the width
    assert "▲ / ▼: significantly better / worse than the baseline SABIR03BASE" in flat
    assert "†: the two systems differ significantly" in flat


def test_latex_compiles(robust03, tmp_path):
    from test_latex import compile_tex, rows_of

    _, out_dir, _, report = robust03
    tex = (out_dir / "report.tex").read_text(encoding="utf-8")
    assert len(rows_of(tex, "tab:evalkit-means")) == 17
    assert r"\textbf{0.457}" in tex  # THUIRr0301 / pircRBa1 lead trec@10 (0.4574 / 0.4572)
    log = compile_tex(tex, tmp_path)
    assert "Overfull \\hbox" not in log


def test_html_in_headless_chromium(robust03):
    importlib.import_module("matplotlib")
    from browser import open_page

    _, out_dir, _, report = robust03
    page = open_page(out_dir / "report.html")
    assert page.errors == [], page.errors
    assert len(page.images) == 1 + len(LABELS) + 1  # curves, a box plot per flavour, heatmap
    assert all(i["complete"] and i["naturalWidth"] > 0 for i in page.images), page.images
    assert [u for u in page.requests if not u.startswith(("file://", "data:", "chrome://", "chrome-"))] == []
    assert report["title"] in page.text and "SABIR03BASE (baseline)" in page.text
