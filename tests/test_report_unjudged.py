"""The unjudged bounds in every report format (issue 30, ``evalkit.report.unjudged``).

A hand-made report whose marks are known: under ``P@10`` system A (0.5) is ahead of B
(0.4) but B's unjudged documents could lift it to 0.6, so A > B could change; A vs C
and B vs C cannot. Under ``ndcg@10`` B is ahead of A (a flip between the flavours)
with no unjudged document: the flip is marked because of ``P@10``. Then the same
through ``evalkit run --bounds`` on files, and the HTML page in real Chromium.
"""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest

import evalkit
from evalkit.report.model import Report
from evalkit.report.render import render
from evalkit.report.text import to_markdown, to_text
from evalkit.results import Results

from browser import open_page

LABELS = ("P@10", "ndcg@10")


@pytest.fixture()
def report() -> Report:
    values = np.array([[[0.6, 0.4], [0.3, 0.3]],     # A
                       [[0.5, 0.3], [0.5, 0.5]],     # B
                       [[0.1, 0.1], [0.0, 0.0]]])    # C
    upper = values.copy()
    upper[1, 0] = [0.7, 0.5]                         # B's unjudged documents under P@10
    flavours = tuple(evalkit.parse_flavour(s) for s in ("precision@10", "ndcg@10"))
    res = Results(np.array(["q1", "q2"], dtype=object), ("A", "B", "C"), flavours, LABELS, values)
    return Report(results=res, unjudged_bounds=(values.copy(), upper), metadata={"title": "bounds"})


def test_model_spread_dependent_and_verdict(report):
    low, high = report.unjudged_spread
    np.testing.assert_allclose(low, [[0.5, 0.3], [0.4, 0.5], [0.1, 0.0]])
    np.testing.assert_allclose(high, [[0.5, 0.3], [0.6, 0.5], [0.1, 0.0]])
    dep = report.unjudged_dependent
    assert dep[:, :, 0].tolist() == [[False, True, False], [True, False, False], [False, False, False]]
    assert not dep[:, :, 1].any()
    assert report.agreement.pairs[0].flips == (("A", "B"),)
    assert report.verdict[1].endswith(
        "The conclusion depends on unjudged documents: 1 comparison(s) (A > B under P@10) and 1 flipped "
        "system pair(s) could change order within the unjudged bounds (§).")


def test_no_dependence_sentence():
    values = np.array([[[0.6, 0.4]], [[0.1, 0.1]]])
    res = Results(np.array(["q1", "q2"], dtype=object), ("A", "B"), (evalkit.parse_flavour("precision@10"),),
                  ("P@10",), values)
    r = Report(results=res, unjudged_bounds=(values, values + 0.1))
    assert r.verdict[1].endswith("No comparison depends on the unjudged documents: every order of means holds "
                                 "within the unjudged bounds.")
    assert Report(results=res).unjudged_spread is None
    assert "unjudged" not in Report(results=res).verdict[1]


def test_terminal(report):
    out = to_text(report, width=200)
    assert "Unjudged bounds: each mean with [lower, upper]" in out
    row = next(ln.split() for ln in out.splitlines() if ln.startswith("B ") and "[" in ln)
    assert row == ["B", "0.4000", "[0.4000,", "0.6000]", "0.5000", "[0.5000,", "0.5000]"]
    assert "§ A > B under P@10" in out
    assert "A > B§" in out  # the flipped pair in the flavour-agreement section
    assert "could change order within the unjudged bounds (§)" in out


def test_markdown(report):
    md = to_markdown(report)
    assert "## Unjudged bounds" in md
    assert "| B        | 0.4000 [0.4000, 0.6000] | 0.5000 [0.5000, 0.5000] |" in md
    assert "- § A > B under P@10" in md
    assert "- § flipped: A > B under P@10, reversed under ndcg@10" in md


def test_csv(report):
    files = render(report, "csv")
    rows = list(csv.DictReader(io.StringIO(files["unjudged_bounds.csv"])))
    b = next(r for r in rows if r["system"] == "B" and r["flavour"] == "P@10")
    assert (float(b["mean"]), float(b["lower"]), float(b["upper"])) == pytest.approx((0.4, 0.4, 0.6))
    assert len(rows) == 6
    marks = list(csv.reader(io.StringIO(files["unjudged_marks.csv"])))
    assert marks == [["kind", "flavour", "other_flavour", "ahead", "behind"],
                     ["comparison", "P@10", "", "A", "B"], ["flip", "P@10", "ndcg@10", "A", "B"]]


def test_json(report):
    data = json.loads(render(report, "json")["report.json"])
    u = data["unjudged_bounds"]
    assert u["means"]["B"]["P@10"] == pytest.approx({"mean": 0.4, "lower": 0.4, "upper": 0.6})
    assert u["comparisons"] == [{"flavour": "P@10", "ahead": "A", "behind": "B"}]
    assert u["flips"] == [{"first": "P@10", "second": "ndcg@10", "ahead_first": "A", "ahead_second": "B"}]
    assert u["verdict"] in data["agreement"]["statement"]


def test_latex(report):
    tex = render(report, "latex")["report.tex"]
    assert r"\label{tab:evalkit-unjudged}" in tex
    assert r"B & 0.400 {[}0.400, 0.600{]} & 0.500 {[}0.500, 0.500{]} \\" in tex
    assert r"(\S{})" in tex and "§" not in tex
    assert (r"Could change: A \textgreater{} B under P@10; flipped: A \textgreater{} B under P@10, reversed under "
            "ndcg@10.") in tex


def test_html_and_in_chromium(report, tmp_path):
    html = render(report, "html")["report.html"]
    assert '<h2 id="unjudged-bounds">Unjudged bounds</h2>' in html
    assert "<li>§ A &gt; B under P@10</li>" in html
    path = tmp_path / "report.html"
    path.write_text(html, encoding="utf-8")
    page = open_page(path)
    assert page.errors == [], page.errors
    assert "Unjudged bounds" in page.text
    assert "0.4000 [0.4000, 0.6000]" in page.text
    assert "§ A > B under P@10" in page.text
    assert "§ flipped: A > B under P@10, reversed under ndcg@10" in page.text


def test_evalkit_run_bounds(tmp_path, capsys):
    """``evalkit run --bounds`` and ``report.unjudged_bounds`` on files: run b retrieves
    an unjudged document at rank 1 of q1, so under P@1 a (1/2) > b (0) could change."""
    from evalkit.cli import main

    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\nq2 0 d4 0\n")
    (tmp_path / "a").write_text("q1 Q0 d1 1 2 a\nq2 Q0 d4 1 2 a\n")
    (tmp_path / "b").write_text("q1 Q0 u 1 2 b\nq1 Q0 d1 2 1 b\nq2 Q0 d9 1 2 b\n")
    cfg = {"qrels": "qrels", "runs": [{"name": "a", "path": "a"}, {"name": "b", "path": "b"}],
           "flavours": {"P1": "precision@1"}, "report": {"sensitivity": False}}
    (tmp_path / "c.yaml").write_text(json.dumps(cfg))
    rep = evalkit.run_config(tmp_path / "c.yaml", store=False, unjudged_bounds=True)
    lo, hi = rep.unjudged_spread
    assert lo[:, 0].tolist() == [0.5, 0.0] and hi[:, 0].tolist() == [0.5, 1.0]  # b: both queries unjudged at 1
    assert rep.unjudged_dependent[0, 1, 0]
    assert evalkit.run_config(tmp_path / "c.yaml", store=False).unjudged_bounds is None
    cfg["report"]["unjudged_bounds"] = "query"
    (tmp_path / "c.yaml").write_text(json.dumps(cfg))
    assert evalkit.run_config(tmp_path / "c.yaml", store=False).unjudged_spread[1][1, 0] == 1.0
    assert main(["run", str(tmp_path / "c.yaml"), "--no-store", "--no-progress", "--no-bounds"]) == 0
    assert "Unjudged bounds" not in capsys.readouterr().out
    assert main(["run", str(tmp_path / "c.yaml"), "--no-store", "--no-progress", "--bounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "§ a > b under P1" in out and "The conclusion depends on unjudged documents" in out
    cfg["report"]["unjudged_bounds"] = "deep"
    (tmp_path / "c.yaml").write_text(json.dumps(cfg))
    assert main(["run", str(tmp_path / "c.yaml"), "--no-store", "--no-progress"]) == 2
    assert "c.yaml:1: report.unjudged_bounds: 'deep' is not one of: qrels, query" in capsys.readouterr().err
    assert not math.isnan(rep.means[0, 0])
