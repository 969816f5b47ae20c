"""A :class:`~evalkit.report.Report` is data; rendering and writing are functions of it
(:func:`evalkit.report.render.render`, :func:`evalkit.report.write_report`). The old
methods forward to them with a :class:`DeprecationWarning`."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from evalkit import Results, parse_flavour
from evalkit.report import Report, write_report
from evalkit.report.render import render

MODEL = Path(__file__).resolve().parent.parent / "evalkit" / "report" / "model.py"


@pytest.fixture
def report(tmp_path) -> Report:
    flavours = (parse_flavour("ndcg@10"), parse_flavour("ndcg(gain=exp2)@10"))
    values = np.array([[[0.6, 0.4], [0.3, 0.5]], [[0.7, 0.1], [0.2, 0.2]]])
    res = Results(np.array(["q1", "q2"], dtype=object), ("bm25", "dense"), flavours, ("lin", "exp"), values)
    return Report(res, metadata={"_output_dir": str(tmp_path / "out"), "formats": ["csv"]})


def test_render_is_a_function_of_the_report(report):
    means = render(report, "csv")["means.csv"]
    assert means.splitlines() == ["system,lin,exp", "bm25,0.5,0.4", "dense,0.39999999999999997,0.2"]
    with pytest.warns(DeprecationWarning, match=r"render\(report, fmt\)"):
        assert report.render("csv") == render(report, "csv")


def test_write_report_takes_the_configs_directory_and_formats(report, tmp_path):
    paths = write_report(report)
    assert sorted(p.name for p in paths) == ["means.csv", "per_query.csv"]
    assert all(p.parent == tmp_path / "out" for p in paths)
    assert (tmp_path / "out" / "means.csv").read_text() == render(report, "csv")["means.csv"]
    with pytest.warns(DeprecationWarning, match="write_report"):
        assert sorted(p.name for p in report.write(tmp_path / "other", ["json"])) == ["report.json"]


def test_the_data_module_imports_no_renderer_at_module_level():
    tree = ast.parse(MODEL.read_text())
    imported = {node.module for node in tree.body if isinstance(node, ast.ImportFrom)}
    assert not imported & {"render", "write", "text", "html", "latex", "csv_out", "json_out"}
