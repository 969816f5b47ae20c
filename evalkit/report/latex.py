"""LaTeX output: ``report.tex``, a standalone document whose tables can be pasted into a paper.

The document (``\\documentclass{article}``, packages ``booktabs``, ``graphicx``,
``fontenc``, ``inputenc``; compiles with ``pdflatex``) holds ``table``
environments, each between ``% --- evalkit table: NAME ---`` comment lines:

* ``means`` -- systems x flavours with booktabs rules (``\\toprule``, ``\\midrule``,
  ``\\cmidrule``, ``\\bottomrule``); flavours that differ only by cutoff share a
  header (``trec`` over ``@10 @100``); the **best value per column is bold** (the
  highest value after rounding to the printed digits; ties are all bold); a system
  significantly better / worse than the baseline carries ``$^{\\uparrow}$`` /
  ``$^{\\downarrow}$`` (the caption names the test, correction and alpha); unmarked
  cells carry an invisible ``\\phantom`` of the marker so the digits stay aligned;
* ``flavours`` -- label -> canonical flavour string;
* ``agreement`` -- Kendall's tau-b between the flavours' system orderings (lower
  triangle) and the number of flipped system pairs (upper triangle);
* ``tie spread`` -- every system's mean under the worst and the best ordering of
  tied scores; ``judged`` -- judged@k per system and cutoff, the pool-bias warnings
  in the caption (both when the report has them);
* ``baseline N`` -- with several baselines, the differences from the N-th one with
  its significance arrows;
* ``all pairs N`` -- with ``statistics.all_pairs``, the N-th flavour's matrix of
  mean differences (row minus column) with arrows where the corrected test is
  significant.

A table wider than the line is scaled down to the line width with ``\\resizebox``
(graphicx; narrower tables keep their natural size). All text is escaped
(:func:`latex_escape`).
"""

from __future__ import annotations

import re
from typing import Any, TYPE_CHECKING

from .escape import latex_comment, latex_escape
from .unjudged import UNJUDGED_MARK, marked_comparisons, marked_flips
from .unjudged import interval_rows as unjudged_interval_rows
from .unjudged import note as unjudged_note
from .views import (TIE_MARK, tests_of, agreement_matrix, baseline_rows, fmt_value, has_tie_marks, header_facts,
                    judged_headers, judged_rows, judged_warnings, other_baselines, pair_matrix_views, tie_dependent,
                    tie_spread_note, tie_spread_rows, values_view)

if TYPE_CHECKING:  # pragma: no cover
    from .model import Report

UP = r"$^{\uparrow}$"
DOWN = r"$^{\downarrow}$"
MARK = {1: UP, -1: DOWN}
DAG = r"$^{\ddagger}$"


def _split_label(label: str) -> tuple[str, str]:
    """``"trec@10"`` -> ``("trec", "@10")``; a label without a numeric ``@k`` -> ``(label, "")``."""
    m = re.fullmatch(r"(.+)(@\d+)", label)
    return (m.group(1), m.group(2)) if m else (label, "")


def _header(labels: Any) -> list[str]:
    """One or two header lines: grouped flavour names with \\cmidrule, then the cutoffs."""
    parts = [_split_label(l) for l in labels]
    groups: list[list] = []  # [name, first column, n]
    for i, (name, k) in enumerate(parts):
        if groups and groups[-1][0] == name and k and parts[i - 1][1]:
            groups[-1][2] += 1
        else:
            groups.append([name, i, 1])
    if all(n == 1 for _, _, n in groups):
        return ["System & " + " & ".join(latex_escape(l) for l in labels) + r" \\"]
    top, rules = [""], []
    for name, first, n in groups:
        if n == 1:
            top.append(latex_escape(labels[first]))
        else:
            top.append(rf"\multicolumn{{{n}}}{{c}}{{{latex_escape(name)}}}")
            rules.append(rf"\cmidrule(lr){{{first + 2}-{first + n + 1}}}")
    size = {col: n for _, first, n in groups for col in range(first, first + n)}
    bottom = ["System"] + [latex_escape(k) if size[i] > 1 else "" for i, (_, k) in enumerate(parts)]
    return [" & ".join(top) + r" \\", " ".join(rules), " & ".join(bottom) + r" \\"]


#: ``\resizebox`` that only shrinks: the natural width if it fits, else the line width.
SHRINK = r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%"


def _tabular(colspec: str, lines: list[str]) -> list[str]:
    return [SHRINK, rf"\begin{{tabular}}{{{colspec}}}", *lines, r"\end{tabular}", "}"]


def means_table(report: Report, digits: int = 3) -> str:
    """The ``table`` environment of the means (see the module docstring)."""
    view = values_view(report, report.means, digits)
    marked = view.marked
    rows = []
    for r in view.rows:
        cells = [latex_escape(r.system) + (" (baseline)" if r.baseline else "")]
        for v, best, d, label in zip(r.values, r.best, r.directions, view.labels):
            text = fmt_value(v, digits) if v == v else "--"
            if best:
                text = rf"\textbf{{{text}}}"
            if marked:
                m = MARK.get(int(d))
                text += m if m else rf"\phantom{{{UP}}}"
            if r.system != report.baseline and report.baseline is not None and tie_dependent(
                    report, r.system, report.baseline, label):
                text += DAG
            cells.append(text)
        rows.append(" & ".join(cells) + r" \\")
    n = len(report.labels)
    caption = (f"Mean over the queries each system is evaluated on ({len(report.qids)} queries in the qrels). "
               "Bold: best value per column.")
    if marked:
        caption += (rf" {UP}\,/\,{DOWN}: significantly better\,/\,worse than the baseline "
                    rf"\emph{{{latex_escape(report.baseline)}}} ({latex_escape(tests_of(report).describe())}; "
                    "queries compared on the intersection of the queries both systems include).")
    if has_tie_marks(report):
        caption += (f" {DAG}: the difference from the baseline lies inside the tie spread (its sign depends on "
                    "how tied scores are ordered).")
    lines = [r"\toprule", *_header(report.labels), r"\midrule", *rows, r"\bottomrule"]
    return "\n".join([
        r"\begin{table}[htbp]",
        r"\centering",
        rf"\caption{{{caption}}}",
        r"\label{tab:evalkit-means}",
        *_tabular("l" + "r" * n, lines),
        r"\end{table}",
    ])


def flavours_table(report: Report) -> str:
    """The ``table`` environment mapping labels to canonical flavour strings."""
    rows = [rf"{latex_escape(l)} & \texttt{{{latex_escape(c)}}} \\" for l, c in zip(report.labels, report.canonical)]
    return "\n".join([
        r"\begin{table}[htbp]",
        r"\centering",
        r"\caption{Flavours: the canonical evalkit form of each column (gain, discount, IDCG, tie policy, "
        r"conventions, cutoff).}",
        r"\label{tab:evalkit-flavours}",
        r"\footnotesize",
        *_tabular("ll", [r"\toprule", r"Flavour & Canonical form \\", r"\midrule", *rows, r"\bottomrule"]),
        r"\end{table}",
    ])


def agreement_table(report: Report) -> str:
    """The ``table`` environment of the flavour agreement matrix ('' with fewer than
    two flavours or systems)."""
    m = agreement_matrix(report)
    if m is None:
        return ""
    n = len(m.labels)
    rows = [" & ".join([latex_escape(f"{num} {l}")] + ["--" if c is None else c for c in cells]) + r" \\"
            for num, l, cells in zip(m.numbers, m.labels, m.cells)]
    head = " & ".join(["Flavour"] + [latex_escape(num) for num in m.numbers]) + r" \\"
    n_pairs = m.n_pairs
    caption = (r"Flavour agreement: Kendall's $\tau_b$ between the system orderings by mean (below the "
               f"diagonal) and the number of system pairs, out of {n_pairs}, whose order flips (above it).")
    return "\n".join([
        r"\begin{table}[htbp]",
        r"\centering",
        rf"\caption{{{caption}}}",
        r"\label{tab:evalkit-agreement}",
        *_tabular("l" + "r" * n, [r"\toprule", head, r"\midrule", *rows, r"\bottomrule"]),
        r"\end{table}",
    ])


def _marked(cell: str) -> str:
    """``"+0.123▲"`` -> the number and :data:`UP` (``▼``: :data:`DOWN`; no marker: a phantom)."""
    if cell.endswith(TIE_MARK):
        return _marked(cell[:-1]) + DAG
    if cell.startswith("-") and cell != "-":
        cell = "$-$" + cell[1:]  # a minus sign, not a hyphen
    for symbol, mark in (("▲", UP), ("▼", DOWN)):
        if cell.endswith(symbol):
            return cell[:-1] + mark
    return cell + (rf"\phantom{{{UP}}}" if cell != "-" else "")


def baseline_table(report: Report, baseline: str, digits: int = 3, number: int = 2) -> str:
    """The ``table`` environment of the differences from another baseline (``baseline``
    after the first; ``number`` its place in the list, for the ``\\label``), with that
    baseline's significance arrows."""
    rows = [" & ".join([latex_escape(r[0]), *(_marked(c) if c != "-" else "--" for c in r[1:])]) + r" \\"
            for r in baseline_rows(report, baseline, digits)]
    caption = (f"Mean difference from the baseline \\emph{{{latex_escape(baseline)}}}; {UP}\\,/\\,{DOWN}: "
               f"significantly better\\,/\\,worse than it ({latex_escape(tests_of(report).describe())}).")
    return "\n".join([
        r"\begin{table}[htbp]", r"\centering", rf"\caption{{{caption}}}",
        rf"\label{{tab:evalkit-baseline-{number}}}",
        *_tabular("l" + "r" * len(report.labels),
                  [r"\toprule", *_header(report.labels), r"\midrule", *rows, r"\bottomrule"]),
        r"\end{table}",
    ])


def all_pairs_tables(report: Report, digits: int = 3) -> list[str]:
    """One ``table`` environment per flavour of the all-pairs tests: row minus column,
    arrows where the row system is significantly better / worse (corrected)."""
    out = []
    for i, v in enumerate(pair_matrix_views(report, digits)):
        rows = [" & ".join([latex_escape(s), *("--" if c is None else _marked(c) for c in cells)]) + r" \\"
                for s, cells in zip(v.systems, v.cells)]
        head = " & ".join(["System", *(latex_escape(s) for s in v.systems)]) + r" \\"
        caption = (f"All pairs under {latex_escape(v.label)}: mean of the row system minus the column system; "
                   f"{UP}\\,/\\,{DOWN}: the row is significantly better\\,/\\,worse "
                   f"({latex_escape(tests_of(report).settings.describe())}); {v.n_significant} of "
                   f"{v.n_pairs} pairs differ significantly.")
        out.append("\n".join([
            r"\begin{table}[htbp]", r"\centering", rf"\caption{{{caption}}}",
            rf"\label{{tab:evalkit-all-pairs-{i + 1}}}",
            *_tabular("l" + "r" * len(v.systems), [r"\toprule", head, r"\midrule", *rows, r"\bottomrule"]),
            r"\end{table}",
        ]))
    return out


def _en_dash(cell: str) -> str:
    return latex_escape(cell).replace("–", "--")


def unjudged_table(report: Report, digits: int = 3) -> str:
    """The ``table`` environment of the bounds ('' without them); the orders that
    could change are listed in the caption."""
    rows = unjudged_interval_rows(report, digits)
    if not rows:
        return ""
    body = [" & ".join([latex_escape(r[0]), *(latex_escape(c) for c in r[1:])]) + r" \\" for r in rows]
    marks = [f"{a} > {b} under {l}" for l, a, b in marked_comparisons(report)]
    marks += [f"flipped: {a} > {b} under {f}, reversed under {s}" for f, s, a, b in marked_flips(report)]
    caption = latex_escape(unjudged_note(report) + (" Could change: " + "; ".join(marks) + "." if marks else ""))
    caption = caption.replace(UNJUDGED_MARK, r"\S{}")
    return "\n".join([
        r"\begin{table}[htbp]", r"\centering", rf"\caption{{{caption}}}", r"\label{tab:evalkit-unjudged}",
        *_tabular("l" + "r" * len(report.labels),
                  [r"\toprule", *_header(report.labels), r"\midrule", *body, r"\bottomrule"]),
        r"\end{table}",
    ])


def tie_spread_table(report: Report, digits: int = 3) -> str:
    """The ``table`` environment of the tie spread ('' without tie bounds)."""
    rows = [" & ".join([latex_escape(r[0]), *(_en_dash(c) for c in r[1:])]) + r" \\"
            for r in tie_spread_rows(report, digits)]
    if not rows:
        return ""
    caption = latex_escape(tie_spread_note(report))
    return "\n".join([
        r"\begin{table}[htbp]", r"\centering", rf"\caption{{{caption}}}", r"\label{tab:evalkit-tie-spread}",
        *_tabular("l" + "r" * len(report.labels),
                  [r"\toprule", *_header(report.labels), r"\midrule", *rows, r"\bottomrule"]),
        r"\end{table}",
    ])


def judged_table(report: Report) -> str:
    """The ``table`` environment of judged@k ('' without it); the pool-bias warnings
    in the caption."""
    rows = [" & ".join(latex_escape(c) for c in r) + r" \\" for r in judged_rows(report)]
    if not rows:
        return ""
    headers = judged_headers(report)
    caption = " ".join(["Judged@k: the fraction of each system's top $k$ that has a judgment (mean over the "
                        "queries it retrieves for)."] + [latex_escape(w) for w in judged_warnings(report)])
    return "\n".join([
        r"\begin{table}[htbp]", r"\centering", rf"\caption{{{caption}}}", r"\label{tab:evalkit-judged}",
        *_tabular("l" + "r" * (len(headers) - 1),
                  [r"\toprule", " & ".join(latex_escape(h) for h in headers) + r" \\", r"\midrule", *rows,
                   r"\bottomrule"]),
        r"\end{table}",
    ])


def to_latex(report: Report, digits: int = 3) -> str:
    """The whole ``report.tex`` (see the module docstring)."""
    header = [f"% {latex_comment(report.title)}"]
    header += [f"% {f.text}" if f.value is None else f"% {f.text} {latex_comment(f.value)}"
               for f in header_facts(report)]
    sig = report.significance
    if sig is not None:
        st = sig.settings
        header.append(latex_comment(
            f"% statistics: test={st.test} alpha={st.alpha:g} correction={st.correction} "
            f"family={st.family} seed={st.seed} n_resamples={st.n_resamples} ci_method={st.ci_method} "
            + " ".join(f"{k}={v}" for k, v in sig.versions.items())))
    header.append("% Paste a table environment into a paper with \\usepackage{booktabs} "
                  "(and graphicx for \\resizebox).")
    parts = [
        *header,
        r"\documentclass{article}",
        r"\usepackage[T1]{fontenc}",
        r"\usepackage[utf8]{inputenc}",
        r"\usepackage{booktabs}",
        r"\usepackage{graphicx}",
        r"\begin{document}",
        rf"\section*{{{latex_escape(report.title)}}}",
        "",
        "% --- evalkit table: means ---",
        means_table(report, digits),
        "% --- end table: means ---",
        "",
        "% --- evalkit table: flavours ---",
        flavours_table(report),
        "% --- end table: flavours ---",
    ]
    agreement = agreement_table(report)
    if agreement:
        parts += ["", "% --- evalkit table: agreement ---", agreement, "% --- end table: agreement ---"]
    for name, table in (("tie spread", tie_spread_table(report, digits)), ("judged", judged_table(report)),
                        ("unjudged bounds", unjudged_table(report, digits))):
        if table:
            parts += ["", f"% --- evalkit table: {name} ---", table, f"% --- end table: {name} ---"]
    for i, b in enumerate(other_baselines(report)):
        parts += ["", f"% --- evalkit table: baseline {i + 2} ---", baseline_table(report, b, digits, i + 2),
                  f"% --- end table: baseline {i + 2} ---"]
    for i, table in enumerate(all_pairs_tables(report, digits)):
        parts += ["", f"% --- evalkit table: all pairs {i + 1} ---", table, f"% --- end table: all pairs {i + 1} ---"]
    parts += ["", r"\end{document}", ""]
    return "\n".join(parts)


def latex_files(report: Report) -> dict[str, str]:
    """The ``latex`` format: ``{"report.tex": ...}``."""
    return {"report.tex": to_latex(report)}
