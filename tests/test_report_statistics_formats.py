"""Several baselines, the all-pairs matrix and the Wilcoxon test in every report format.

Oracles: scipy's Wilcoxon signed-rank test called directly (exact null distribution:
30 continuous differences, no zero or tie, as R's ``wilcox.test`` chooses) and Holm's
step-down correction written out here.
"""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pytest
from scipy import stats

from evalkit import Results, build_registry, parse_flavour
from evalkit.report import Report
from evalkit.report.render import render, to_html, to_latex, to_markdown, to_text

SYSTEMS = ("a", "b", "c", "d")
LABELS = ("F@5", "G@5")


@pytest.fixture(scope="module")
def report():
    reg = build_registry(disable_plugins=True)
    rng = np.random.default_rng(0)
    flavours = tuple(parse_flavour(s, reg) for s in ("ndcg@5", "ndcg(gain=exp2)@5"))
    values = rng.uniform(0, 0.5, (4, 2, 30)) + np.array([0.4, 0.3, 0.2, 0.0])[:, None, None]  # no ties
    res = Results(np.array([f"q{i}" for i in range(30)], dtype=object), SYSTEMS, flavours, LABELS, values)
    return Report(res, baselines=("c", "d"), statistics={"test": "wilcoxon", "all_pairs": True})


def _holm(p):
    p = np.asarray(p, dtype=float)
    order = np.argsort(p)
    m = len(p)
    adj = np.minimum(1, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out = np.empty(m)
    out[order] = adj
    return out


def _oracle_pairs(report, f):
    """{(a, b): (mean a - b, p, p_holm)} over the 6 pairs of flavour ``f``, by scipy and by hand."""
    v = report.results.values[:, f]
    pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    p = [stats.wilcoxon(v[i] - v[j], method="exact").pvalue for i, j in pairs]
    adj = _holm(p)
    return {(SYSTEMS[i], SYSTEMS[j]): (float(np.mean(v[i] - v[j])), p[k], adj[k]) for k, (i, j) in enumerate(pairs)}


def test_all_pairs_csv_and_json_match_scipy_and_holm(report):
    files = render(report, "csv")
    rows = list(csv.DictReader(io.StringIO(files["all_pairs.csv"])))
    assert len(rows) == 2 * 6
    data = json.loads(render(report, "json")["report.json"])["statistics"]
    assert data["settings"]["test"] == "wilcoxon" and data["baselines"] == ["c", "d"]
    for f, label in enumerate(LABELS):
        oracle = _oracle_pairs(report, f)
        for r in (r for r in rows if r["flavour"] == label):
            diff, p, adj = oracle[(r["a"], r["b"])]
            assert float(r["mean_difference"]) == pytest.approx(diff, abs=1e-12)
            assert float(r["p_value"]) == pytest.approx(p, rel=1e-9)
            assert float(r["p_adjusted"]) == pytest.approx(adj, rel=1e-9)
            assert r["significant"] == str(adj <= 0.05).lower() and r["test"] == "wilcoxon"
        for rec in data["all_pairs"][label]:
            assert rec["p_adjusted"] == pytest.approx(oracle[(rec["a"], rec["b"])][2], rel=1e-9)


def test_second_baseline_in_csv_and_json(report):
    """Comparisons against d: scipy's Wilcoxon of each system minus d, Holm over the 3."""
    rows = [r for r in csv.DictReader(io.StringIO(render(report, "csv")["statistics.csv"])) if r["baseline"] == "d"]
    assert len(rows) == 3 * 2
    data = json.loads(render(report, "json")["report.json"])["statistics"]["by_baseline"]
    v = report.results.values
    for f, label in enumerate(LABELS):
        p = [stats.wilcoxon(v[i, f] - v[3, f], method="exact").pvalue for i in range(3)]
        adj = _holm(p)
        for i in range(3):
            (row,) = [r for r in rows if r["system"] == SYSTEMS[i] and r["flavour"] == label]
            assert float(row["p_adjusted"]) == pytest.approx(adj[i], rel=1e-9)
            (rec,) = [c for c in data["d"] if c["system"] == SYSTEMS[i] and c["flavour"] == label]
            assert rec["p_adjusted"] == pytest.approx(adj[i], rel=1e-9)


def test_matrices_and_second_baseline_in_text_markdown_html_latex(report):
    oracle = _oracle_pairs(report, 0)
    diff, _, adj = oracle[("a", "d")]
    cell = f"{diff:+.4f}" + ("▲" if adj <= 0.05 else "")
    md = to_markdown(report)
    assert "## Significance tests against the baseline `d`" in md and "## All pairs" in md
    row_a = next(l for l in md.splitlines() if l.startswith("| a ") and "(" in l)
    assert cell in row_a
    html = to_html(report)
    assert "Significance tests against the baseline d" in html and cell in html
    tex = to_latex(report)
    assert r"\label{tab:evalkit-baseline-2}" in tex and r"\label{tab:evalkit-all-pairs-1}" in tex
    assert f"{diff:+.3f}" + r"$^{\uparrow}$" in tex
    text = " ".join(to_text(report, width=80).split())
    assert "Difference from the baseline d" in text
    n_sig = sum(a <= 0.05 for _, _, a in oracle.values())
    assert re.search(rf"F@5 {n_sig}/6", text)
    for out in (md, html, tex, text):  # the test is named wherever results are shown
        assert "Wilcoxon signed-rank test" in out


def test_latex_with_all_pairs_compiles(report, tmp_path):
    from test_latex import compile_tex

    compile_tex(to_latex(report), tmp_path)
