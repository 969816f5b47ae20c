"""Every user-supplied string of a report (run names, flavour labels, title, qids) is
escaped for the format it is written into (issue 9): hostile names per format, each
checked by an independent reader of that format -- markdown-it-py (GFM tables) for
Markdown, :mod:`csv` for CSV, pdflatex for LaTeX, :mod:`html.parser` for HTML,
:mod:`json` for JSON."""

from __future__ import annotations

import csv
import io
import json
import re
import textwrap
from html.parser import HTMLParser

import numpy as np
import pytest
from markdown_it import MarkdownIt

from evalkit import Results, parse_flavour
from evalkit.cli import main
from evalkit.report import Report, to_html, to_json, to_latex, to_markdown, to_text
from evalkit.report.render import render

from test_latex import cells, compile_tex, rows_of

SYSTEMS = (
    "base",
    "a|b\nc",
    '=HYPERLINK("http://evil.example","click")',
    "<script>alert(1)</script> & `x` *y* _z_ [l](http://u)",
    "\\input{/etc/passwd}%$#_^~",
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)",
    "-2+3",
    "\x1b[31mred\r",
    "$\\frac{$ 1e3",
)
LABELS = ("p|ipe@5", "=1+1", "-x", "\\z%&")
TITLE = "Title line\n\\input{/etc/passwd}\n# not a heading\r\n|x|"
QIDS = ("=q1", "-q2", "+3", "@4", "q|5", "-7")


def one_line(s: str) -> str:
    """What a one-line format shows of ``s``: every control character a space."""
    return re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", " ", s)


@pytest.fixture(scope="module")
def report(registry) -> Report:
    rng = np.random.default_rng(3)
    flavours = tuple(parse_flavour(s, registry) for s in ("ndcg@5", "ndcg@10", "ndcg(gain=exp2)@5", "ndcg"))
    values = rng.uniform(0, 1, size=(len(SYSTEMS), len(LABELS), len(QIDS)))
    values[1] += 0.3  # a clear winner, so markers and flips appear
    res = Results(np.array(QIDS, dtype=object), SYSTEMS, flavours, LABELS, values)
    return Report(res, baseline="base", metadata={"title": TITLE, "config": "c|`f`.yaml"},
                  statistics={"test": "t"})


# ----------------------------------------------------------------------------- Markdown


class _Cells(HTMLParser):
    """Text of every table cell and every heading of an HTML page, and its tags."""

    def __init__(self):
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.headings: list[str] = []
        self.tags: list[str] = []
        self._cell: list[str] | None = None
        self._heading: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag in ("h1", "h2", "h3"):
            self._heading = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag in ("h1", "h2", "h3") and self._heading is not None:
            self.headings.append("".join(self._heading).strip())
            self._heading = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._heading is not None:
            self._heading.append(data)


def parse_html(page: str) -> _Cells:
    p = _Cells()
    p.feed(page)
    return p


def test_markdown_tables_keep_their_shape_and_show_names_literally(report):
    md = to_markdown(report)
    page = MarkdownIt("commonmark", {"html": True}).enable("table").render(md)
    parsed = parse_html(page)
    # no user string became HTML, a link, emphasis or a heading
    assert "script" not in parsed.tags and "a" not in parsed.tags
    assert parsed.tags.count("em") == 1  # evalkit's own "a *flip* is ..."; none from `*y* _z_`
    assert parsed.headings[0] == one_line(TITLE)
    assert all(not h.startswith("not a heading") for h in parsed.headings)
    # every table row has as many cells as its header
    assert parsed.tables
    for table in parsed.tables:
        assert all(len(row) == len(table[0]) for row in table), table
    flavours, means = parsed.tables[0], parsed.tables[1]
    assert [row[0] for row in flavours[1:]] == [one_line(l) for l in LABELS]
    assert means[0][1:] == [one_line(l) for l in LABELS]
    assert {row[0].removesuffix(" (baseline)") for row in means[1:]} == {one_line(s).strip() for s in SYSTEMS}
    # the config path is a code span with the pipe inside it
    assert "c|`f`.yaml" in page.replace("&quot;", '"').replace("<code>", "").replace("</code>", "")


# ----------------------------------------------------------------------------- CSV


def csv_rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("name", ["means.csv", "per_query.csv", "statistics.csv", "flips.csv"])
def test_csv_cells_never_start_a_formula(report, name):
    rows = csv_rows(render(report, "csv")[name])
    assert len(rows) > 1
    for row in rows:
        for cell in row:
            # OWASP CSV injection: = + - @ tab CR start a formula unless the cell is a plain number
            assert not cell or cell[0] not in "=+-@\t\r" or is_number(cell), (name, cell)


def test_csv_keeps_the_names_behind_the_quote(report):
    rows = csv_rows(render(report, "csv")["means.csv"])
    unquote = lambda c: c[1:] if c[:1] == "'" and c[1:2] in ("=", "+", "-", "@", "\t", "\r") else c  # noqa: E731
    assert [unquote(c) for c in rows[0][1:]] == list(LABELS)
    # ESC (and any control character but tab and line breaks) is written as a visible escape (issue 25)
    assert {unquote(r[0]) for r in rows[1:]} == {n.replace("\x1b", "\\x1b") for n in SYSTEMS}
    assert "\x1b" not in render(report, "csv")["means.csv"]
    per_query = csv_rows(render(report, "csv")["per_query.csv"])
    assert {r[2] for r in per_query[1:]} == {"'=q1", "'-q2", "+3", "'@4", "q|5", "-7"}


# ----------------------------------------------------------------------------- LaTeX


def test_latex_multiline_title_writes_no_live_line(report):
    tex = to_latex(report)
    for line in tex.splitlines():
        if "/etc/passwd" in line:
            # only inside a comment, or escaped (\textbackslash{}input)
            assert line.startswith("%") or r"\textbackslash{}input" in line, line
        assert not line.startswith("# not a heading") and not line.startswith("|x|")
    assert "\x1b" not in tex and "\r" not in tex
    means = rows_of(tex, "tab:evalkit-means")
    assert len(means) == len(SYSTEMS)
    assert all(len(cells(r)) == 1 + len(LABELS) for r in means)


def test_latex_with_hostile_names_compiles(report, tmp_path):
    log = compile_tex(to_latex(report), tmp_path)
    assert "Undefined control sequence" not in log
    assert "/etc/passwd" not in log.split("\n(./report.aux")[0].split("report.tex")[-1]  # nothing \input


# ----------------------------------------------------------------------------- HTML


def test_html_shows_names_as_text(report):
    page = to_html(report)
    parsed = parse_html(page)
    assert "script" not in parsed.tags and "a" not in parsed.tags
    assert parsed.headings[0] == TITLE.strip()  # HTML text keeps line breaks harmlessly
    means = next(t for t in parsed.tables if t[0][0] == "system")
    assert {row[0].removesuffix(" (baseline)") for row in means[1:]} == {s.strip() for s in SYSTEMS}


# ----------------------------------------------------------------------------- JSON and terminal


def test_json_keeps_every_string_verbatim(report):
    data = json.loads(to_json(report))
    assert data["systems"] == list(SYSTEMS)
    assert [f["label"] for f in data["flavours"]] == list(LABELS)
    assert data["title"] == TITLE and data["qids"] == list(QIDS)


def test_terminal_text_has_no_control_characters_and_one_row_per_system(report):
    text = to_text(report)
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text)  # only \n and \t-free output
    assert "\\x1b[31mred\\r" in text and "a|b\\nc" in text
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("Mean over queries"))
    table = lines[start + 2: lines.index("", start + 2)]
    assert len(table) == 2 + len(SYSTEMS)  # header, rule, one line per system


# ----------------------------------------------------------------------------- through the CLI


def test_cli_multiline_title_and_hostile_run_names(tmp_path, capsys):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2.0 a\nq1 Q0 d2 2 1.0 a\nq2 Q0 d1 1 1.0 a\n")
    (tmp_path / "b.run").write_text("q1 Q0 d2 1 2.0 b\nq1 Q0 d1 2 1.0 b\nq2 Q0 d1 1 1.0 b\n")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(textwrap.dedent("""
        title: "Report\\n\\\\input{/etc/passwd}\\n\\\\end{document}"
        qrels: qrels.txt
        runs:
          - {name: "=cmd|x", path: a.run}
          - {name: "b|<i>", path: b.run}
        flavours:
          "=ndcg": trec_eval.ndcg_cut@2
        output:
          dir: out
          formats: [markdown, csv, json, latex, html]
    """))
    assert main(["--no-plugins", "run", str(cfg), "--no-progress"]) == 0, capsys.readouterr().err
    out = tmp_path / "out"
    tex = (out / "report.tex").read_text()
    assert not any(l.startswith((r"\input", r"\end{document}")) for l in tex.splitlines()[:-2])
    body = [l for l in tex.splitlines() if not l.startswith("%")]
    assert body[-1] == r"\end{document}" and sum(r"\end{document}" in l for l in body) == 1
    means = csv_rows((out / "means.csv").read_text())
    assert means[0] == ["system", "'=ndcg"] and {r[0] for r in means[1:]} == {"'=cmd|x", "b|<i>"}
    assert "<i>" not in (out / "report.html").read_text()
    md = (out / "report.md").read_text()
    assert "b\\|\\<i\\>" in md


def test_cli_eval_table_and_tsv_escape_run_names(tmp_path, capsys):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d2 2\n")
    hostile = tmp_path / "evil\x1b[2J\t.run"  # same runid as the other file: named by file
    hostile.write_text("q1 Q0 d1 1 2.0 same\nq1 Q0 d2 2 1.0 same\n")
    (tmp_path / "b.run").write_text("q1 Q0 d2 1 2.0 same\nq1 Q0 d1 2 1.0 same\n")
    for fmt in ("table", "tsv"):
        code = main(["--no-plugins", "eval", str(tmp_path / "qrels.txt"), str(hostile), str(tmp_path / "b.run"),
                     "-m", "ndcg@2", "--format", fmt])
        out = capsys.readouterr().out
        assert code == 0 and "\x1b" not in out
        lines = out.splitlines()
        assert len(lines) == (4 if fmt == "table" else 2)  # header, rule, 2 runs / one line per run
        assert any(l.startswith("evil\\x1b[2J\\t") for l in lines)


def test_markdown_names_make_no_links_or_math():
    """Issue 25: bare URLs in names became live links on GitHub (extended autolinks) and
    ``$...$`` became math."""
    from evalkit.report.escape import md_escape

    out = md_escape("run https://evil.example www.evil.example me@evil.example $x^2$")
    assert "https://" not in out and "www.evil" not in out and "me@evil" not in out
    assert "$x" not in out.replace("\\$", "") and out.count("\\$") == 2
    assert md_escape("ndcg@10") == "ndcg@10"  # no e-mail address: unchanged
