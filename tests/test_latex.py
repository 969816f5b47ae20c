"""LaTeX output: escaping, booktabs structure, bold best values, significance
superscripts; compiled with pdflatex when a LaTeX engine is installed."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

from evalkit import Results, parse_flavour
from evalkit.report import Report, to_latex
from evalkit.report.latex import DOWN, UP, latex_escape

from conftest import missing_tool


def make_report(registry, systems=("base", "sys_1&2", "[x] 100%", "weak"), test="t") -> Report:
    rng = np.random.default_rng(1)
    q = 25
    labels = ("lin@5", "lin@10", "exp@5", "full")
    flavours = (parse_flavour("ndcg@5", registry), parse_flavour("ndcg@10", registry),
                parse_flavour("ndcg(gain=exp2)@5", registry), parse_flavour("ndcg(gain=exp2)", registry))
    base = rng.uniform(0.2, 0.6, size=(len(labels), q))
    values = np.stack([base, base + 0.2 + rng.normal(0, 0.05, base.shape),
                       base + 0.01 + rng.normal(0, 0.05, base.shape), base - 0.15 + rng.normal(0, 0.05, base.shape)])
    values[2, 3] += 0.4  # "[x] 100%" is best under "full" only
    res = Results(np.array([f"q{i}" for i in range(q)], dtype=object), tuple(systems), flavours, labels, values)
    return Report(res, baseline="base", metadata={"title": "Runs & flavours: 100% #1"}, statistics={"test": test})


def rows_of(tex: str, label: str) -> list[str]:
    """The data rows (between \\midrule and \\bottomrule) of the table with \\label{label}."""
    block = tex[tex.index(rf"\label{{{label}}}"):]
    block = block[: block.index(r"\end{table}")]
    body = block[block.index(r"\midrule") + len(r"\midrule"): block.index(r"\bottomrule")]
    return [r.strip() for r in body.split(r"\\") if r.strip()]


def cells(row: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)&", row)]


def test_latex_escape():
    assert latex_escape("a_b & 50% #1 {x} $y ~ ^") == \
        r"a\_b \& 50\% \#1 \{x\} \$y \textasciitilde{} \textasciicircum{}"
    assert latex_escape(r"C:\path") == r"C:\textbackslash{}path"
    assert latex_escape("[1] τ α – ▲") == r"{[}1{]} $\tau$ $\alpha$ -- $\uparrow$"


def test_structure_bold_and_superscripts(registry):
    rep = make_report(registry)
    tex = to_latex(rep)
    assert tex.count(r"\begin{document}") == 1 and tex.rstrip().endswith(r"\end{document}")
    assert r"\usepackage{booktabs}" in tex
    for env in ("table", "tabular"):
        assert tex.count(rf"\begin{{{env}}}") == tex.count(rf"\end{{{env}}}") == 3
    assert tex.count("{") - tex.count(r"\{") == tex.count("}") - tex.count(r"\}")
    # booktabs rules in order in every table, no vertical rules or \hline
    for block in tex.split(r"\begin{tabular}")[1:]:
        block = block[: block.index(r"\end{tabular}")]
        assert block.index(r"\toprule") < block.index(r"\midrule") < block.index(r"\bottomrule")
        assert r"\hline" not in block and "|" not in block.split("\n")[0]
    # grouped header: lin over @5 @10 (a cmidrule), exp@5 and full alone
    assert r"\multicolumn{2}{c}{lin} & exp@5 & full \\" in tex
    assert r"\cmidrule(lr){2-3}" in tex
    assert r"\section*{Runs \& flavours: 100\% \#1}" in tex

    rows = rows_of(tex, "tab:evalkit-means")
    assert len(rows) == len(rep.systems)
    order = [rep.systems[i] for i in rep.system_order(0)]
    shown = np.round(rep.means, 3)
    sig = rep.significance
    for row, system in zip(rows, order):
        c = cells(row)
        assert len(c) == 1 + len(rep.labels)
        assert c[0].startswith(latex_escape(system))
        s = rep.systems.index(system)
        for f, label in enumerate(rep.labels):
            cell = c[f + 1]
            value = float(re.search(r"\d+\.\d+", cell).group())
            assert value == pytest.approx(shown[s, f])
            assert (r"\textbf{" in cell) == (shown[s, f] == shown[:, f].max())
            comp = sig.comparison(system, label)
            direction = 0 if comp is None else comp.direction
            assert cell.endswith({1: UP, -1: DOWN, 0: rf"\phantom{{{UP}}}"}[direction])
    # the data are built so that these hold; they make the checks above bite
    assert sig.comparison("sys_1&2", "lin@5").direction == 1
    assert sig.comparison("weak", "lin@10").direction == -1
    assert cells(rows[order.index("[x] 100%")])[4].startswith(r"\textbf{")
    assert "paired t-test, Holm--Bonferroni correction over 3 comparisons per flavour" in tex

    flav = rows_of(tex, "tab:evalkit-flavours")
    assert cells(flav[0]) == ["lin@5", r"\texttt{ndcg(gain=linear,discount=log2,idcg=judged,ties=trec\_eval)@5}"]
    agreement = rows_of(tex, "tab:evalkit-agreement")
    assert cells(agreement[0])[0] == "{[}1{]} lin@5"  # a bracket at a row start is braced


def compile_tex(tex: str, tmp_path) -> str:
    engine = shutil.which("pdflatex")
    if engine is None:
        missing_tool("no LaTeX engine (pdflatex) installed; the structure tests still ran "
                     "(Debian: apt-get install texlive-latex-base texlive-latex-recommended)")
    (tmp_path / "report.tex").write_text(tex, encoding="utf-8")
    proc = subprocess.run([engine, "-halt-on-error", "-interaction=nonstopmode", "-no-shell-escape", "report.tex"],
                          cwd=tmp_path, capture_output=True, text=True, errors="replace", timeout=120)
    log = (tmp_path / "report.log").read_text(errors="replace")
    assert proc.returncode == 0, log[-3000:]
    assert (tmp_path / "report.pdf").stat().st_size > 1000
    return log


def test_compiles_with_pdflatex(registry, tmp_path):
    log = compile_tex(to_latex(make_report(registry)), tmp_path)
    assert "Overfull \\hbox" not in log
    assert "Undefined control sequence" not in log


def test_compiles_with_cjk_emoji_and_bidi_names(registry, tmp_path):
    """Issue 25: LaTeX reports failed to compile on CJK, emoji and U+202E in names
    (pdflatex: "Unicode character ... not set up for use with LaTeX"). Characters
    beyond Latin-1 are written as their code point; U+202E is a control character."""
    systems = ("base", "系统二", "run🚀", "evil\u202egnp.exe")
    report = make_report(registry, systems)
    report.metadata["title"] = "Résumé 评测 🚀 \u202eright-to-left"
    tex = to_latex(report)
    assert r"\textless{}U+7CFB\textgreater{}" in tex and r"run\textless{}U+1F680\textgreater{}" in tex
    assert "Résumé" in tex  # Latin-1 kept
    body = "\n".join(line for line in tex.splitlines() if not line.lstrip().startswith("%"))
    assert not re.search(r"[^\x00-\x7f\u00a0-\u00ff]", body)
    log = compile_tex(tex, tmp_path)
    assert "not set up for use with LaTeX" not in log
