"""HTML report: self-contained (no network resources), tables, plots as inline PNGs,
a page without matplotlib, atomic writing with the new formats, and the page in real
headless Chromium (no console errors, every image decoded, no request leaves the file)."""

from __future__ import annotations

import importlib
import base64
import builtins
import re
import struct
from html.parser import HTMLParser

import numpy as np
import pytest

from browser import open_page
from evalkit import Results, parse_flavour
from evalkit.report import RENDERERS, Report, to_html, write_report
from evalkit.report import plots as plots_mod


@pytest.fixture(scope="module")
def report(registry) -> Report:
    rng = np.random.default_rng(5)
    q = 20
    labels = ("trec@5", "trec@10", "trec@20", "exp2@10", "all")
    flavours = tuple(parse_flavour(s, registry) for s in
                     ("ndcg@5", "ndcg@10", "ndcg@20", "ndcg(gain=exp2)@10", "ndcg(gain=exp2)"))
    base = rng.uniform(0.2, 0.6, size=(len(labels), q))
    values = np.stack([base, base + 0.1 + rng.normal(0, 0.05, base.shape), base + rng.normal(0, 0.05, base.shape),
                       base - 0.1 + rng.normal(0, 0.05, base.shape)])
    values[3, 0, :3] = np.nan  # 'c<d>' skips three queries under trec@5
    res = Results(np.array([f"q{i}" for i in range(q)], dtype=object), ("base", "a", "b & co", "c<d>"),
                  flavours, labels, values)
    return Report(res, baseline="base", metadata={"title": "Four <systems>"}, statistics={"test": "t"})


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def parse(html: str) -> list[tuple[str, dict]]:
    p = _Collect()
    p.feed(html)
    return p.tags


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_self_contained_with_tables_and_plots(report):
    importlib.import_module("matplotlib")
    html = to_html(report)
    tags = parse(html)
    names = [t for t, _ in tags]
    assert "script" not in names and "link" not in names and "iframe" not in names
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "url(" not in html and "@import" not in html
    imgs = [a for t, a in tags if t == "img"]
    # curves (one family with 3 cutoffs, one with 1) + one box plot per flavour + heatmap
    assert len(imgs) == 1 + len(report.labels) + 1
    for a in imgs:
        assert a["src"].startswith("data:image/png;base64,")
        w, h = png_size(base64.b64decode(a["src"].split(",", 1)[1]))
        assert w > 200 and h > 100 and a["alt"]
    # escaped names, markers, the legend and the settings
    assert "Four &lt;systems&gt;" in html and "b &amp; co" in html and "c&lt;d&gt;" in html
    assert "<systems>" not in html
    assert "significantly better / worse than the baseline base" in html
    assert "▲" in html and "▼" in html
    assert "seed 42" in html and "n_resamples 10000" in html
    assert html == to_html(report)  # deterministic (PNGs carry no timestamp)


def test_cutoff_families(report):
    fams = plots_mod.cutoff_families(report)
    assert fams == [("trec", [5, 10, 20], [0, 1, 2]), ("exp2", [10], [3])]


def test_without_matplotlib_the_page_says_so(report, monkeypatch):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    html = to_html(report)
    assert "Plots are not included" in html and "matplotlib is not installed" in html
    assert 'pip install "evalkit-ndcg[report]"' in html
    assert "<img" not in html
    assert "Mean over queries" in html and "Significance tests against the baseline" in html


def test_failing_html_leaves_no_report(report, tmp_path, monkeypatch):
    out = tmp_path / "out"
    write_report(report, out, ["markdown", "latex"])
    before = {p.name: p.read_text() for p in out.iterdir()}

    def boom(rep):
        raise RuntimeError("plotting failed")

    monkeypatch.setattr(plots_mod, "agreement_heatmap", boom)
    monkeypatch.setattr(plots_mod, "matplotlib_available", lambda: True)
    other = Report(report.results, baseline="a")
    with pytest.raises(RuntimeError, match="plotting failed"):
        write_report(other, out, ["markdown", "latex", "html"])
    assert {p.name: p.read_text() for p in out.iterdir()} == before  # nothing replaced, no temp files


def test_all_formats_registered(report, tmp_path):
    assert {"markdown", "csv", "json", "latex", "html"} <= set(RENDERERS)
    paths = write_report(report, tmp_path, ["latex", "html"])
    assert [p.name for p in paths] == ["report.tex", "report.html"]


# ----------------------------------------------------------------------------- real browser


def test_page_in_headless_chromium(report, tmp_path):
    importlib.import_module("matplotlib")
    path = tmp_path / "report.html"
    path.write_text(to_html(report), encoding="utf-8")
    page = open_page(path)
    assert page.title == "Four <systems>"
    assert page.errors == [], page.errors
    assert len(page.images) == 1 + len(report.labels) + 1
    for img in page.images:
        assert img["complete"] and img["naturalWidth"] > 0 and img["naturalHeight"] > 0, img
    # nothing but the file itself (and data: URLs) is requested
    outside = [u for u in page.requests if not u.startswith(("file://", "data:", "chrome://", "chrome-"))]
    assert outside == []
    assert "Mean over queries" in page.text and "b & co" in page.text


def test_chromium_check_catches_broken_pages(tmp_path):
    """The browser check is not vacuous: a console error and an undecodable image are seen."""
    path = tmp_path / "broken.html"
    path.write_text('<!DOCTYPE html><html><head><title>x</title></head><body>'
                    '<img alt="bad" src="data:image/png;base64,AAAA">'
                    '<script>console.error("boom")</script></body></html>')
    page = open_page(path)
    assert any("boom" in e["message"] for e in page.errors)
    assert page.images[0]["naturalWidth"] == 0
