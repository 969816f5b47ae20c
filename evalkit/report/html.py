"""HTML output: ``report.html``, one self-contained page (no network resources).

The page holds the tables (flavours, means with significance markers and the best
value per column in bold, differences from the baseline, significance tests, flavour
agreement, flipped system pairs with their tests) and, when matplotlib is installed,
the plots of :mod:`evalkit.report.plots` as inline base64 PNG ``<img>`` elements. CSS
is inline in a ``<style>`` element; there is no script, no external stylesheet, font
or image, so the file can be mailed, archived or opened offline. Without matplotlib
the page says so (and how to install it) and still renders every table.
"""

from __future__ import annotations

import base64
from typing import Any, TYPE_CHECKING

import numpy as np

from .escape import html_escape as _e
from .unjudged import UNJUDGED_LEGEND, UNJUDGED_MARK, marked_comparisons, marked_flips
from .unjudged import interval_rows as unjudged_interval_rows
from .unjudged import note as unjudged_note
from .views import (
    tests_of,
    FLIP_MARK,
    TIE_MARK,
    tie_dependent,
    agreement_matrix,
    comparison_headers,
    comparison_rows,
    other_baselines,
    pair_matrix_views,
    TIE_LEGEND,
    has_tie_marks,
    judged_headers,
    judged_rows,
    judged_warnings,
    tie_spread_note,
    tie_spread_rows,
    flip_counts,
    flip_legend,
    fmt_value,
    header_facts,
    p_text,
    tau_text,
    values_view,
)

if TYPE_CHECKING:  # pragma: no cover
    from .model import Report

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 0;
       color: #1f2933; background: #fff; line-height: 1.45; }
main { max-width: 1440px; margin: 0 auto; padding: 1.2rem 2rem 3rem; }
h1 { font-size: 1.55rem; margin: 0.2rem 0 0.3rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #d9e2ec; padding-bottom: 0.2rem; }
h3 { font-size: 1.02rem; margin-top: 1.2rem; }
.facts { color: #52606d; font-size: 0.9rem; }
.verdict { background: #fff8e1; border-left: 4px solid #f0b429; padding: 0.6rem 0.9rem; margin: 1rem 0; }
.verdict.same { background: #e3f9e5; border-left-color: #3f9142; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 0.4rem 0 0.6rem; }
th, td { padding: 0.2rem 0.45rem; border-bottom: 1px solid #e4e7eb; text-align: right; white-space: nowrap; }
th { border-bottom: 2px solid #9aa5b1; background: #f5f7fa; position: sticky; top: 0; }
th:first-child, td:first-child, td.text, th.text { text-align: left; }
th.num { text-align: right; }
td.num { font-variant-numeric: tabular-nums; font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
tr.baseline td { background: #f0f4f8; font-style: italic; }
td.best { font-weight: 700; }
.up { color: #2f8132; } .down { color: #b42318; }
.mark { display: inline-block; width: 0.9em; text-align: left; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.82rem; background: #f5f7fa;
       padding: 0 0.2rem; border-radius: 3px; }
.legend, .note { color: #52606d; font-size: 0.85rem; max-width: 60rem; }
.missing { background: #fde8e8; border-left: 4px solid #b42318; padding: 0.6rem 0.9rem; }
figure { margin: 0.6rem 0 1rem; }
figure img { max-width: 100%; height: auto; border: 1px solid #e4e7eb; }
figcaption { color: #52606d; font-size: 0.85rem; }
details { margin: 0.3rem 0; } summary { cursor: pointer; color: #243b53; }
ul.flips { font-size: 0.85rem; }
"""


def _img(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{data}">'


def _table(headers: Any, rows: Any, classes: Any = None, row_classes: Any = None) -> str:
    """``rows`` are lists of already-escaped HTML cells."""
    ths = "".join(f'<th class="{classes[c]}">{h}</th>' if classes and classes[c] else f"<th>{h}</th>"
                  for c, h in enumerate(headers))
    out = ['<div class="scroll"><table>', f"<thead><tr>{ths}</tr></thead>", "<tbody>"]
    for r, row in enumerate(rows):
        cls = f' class="{row_classes[r]}"' if row_classes and row_classes[r] else ""
        tds = []
        for c, cell in enumerate(row):
            k = classes[c] if classes else ""
            if isinstance(cell, tuple):  # (html, extra class)
                cell, extra = cell
                k = f"{k} {extra}".strip()
            tds.append(f'<td class="{k}">{cell}</td>' if k else f"<td>{cell}</td>")
        out.append(f"<tr{cls}>" + "".join(tds) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def _mark_html(direction: int) -> str:
    if direction == 1:
        return '<span class="mark up" title="significantly better than the baseline">▲</span>'
    if direction == -1:
        return '<span class="mark down" title="significantly worse than the baseline">▼</span>'
    return '<span class="mark"></span>'


def _values(report: Report, values: np.ndarray, digits: int, signed: bool, bold_best: bool) -> str:
    view = values_view(report, values, digits, bold_best)
    rows, row_classes = [], []
    ties = signed and report.baseline is not None  # differences from the baseline: the ‡ of the other formats
    for r in view.rows:
        row: list[str | tuple[str, str]] = [_e(r.system) + (" (baseline)" if r.baseline else "")]
        for v, best, d, label in zip(r.values, r.best, r.directions, view.labels):
            text = _e(fmt_value(v, digits, signed))
            if view.marked:
                text += _mark_html(int(d))
            if ties and report.baseline is not None and tie_dependent(report, r.system, report.baseline, label):
                text += _e(TIE_MARK)
            row.append((text, "best" if best else ""))
        rows.append(row)
        row_classes.append("baseline" if r.baseline else "")
    headers = ["system"] + [_e(l) for l in view.labels]
    return _table(headers, rows, ["text"] + ["num"] * len(view.labels), row_classes)


def _figures(report: Report) -> list[str]:
    from .plots import matplotlib_available, report_figures

    if not matplotlib_available():
        return ['<p class="missing"><strong>Plots are not included:</strong> matplotlib is not installed. '
                'Install it with <code>pip install "evalkit-ndcg[report]"</code> (or <code>pip install matplotlib</code>) '
                "and run the report again; the tables above and below are complete without it.</p>"]
    figs = report_figures(report)
    out = []
    if figs["curves"] is not None:
        out += ["<h3>Mean against the cutoff k</h3>",
                "<figure>" + _img(figs["curves"], "Mean per system against the cutoff k, one panel per flavour")
                + "<figcaption>One panel per flavour family (flavours equal up to the cutoff), one line per "
                  "system; the baseline is the dashed black line. Only the cutoffs of the config are "
                  "plotted.</figcaption></figure>"]
    if figs["differences"]:
        out.append("<h3>Per-query differences from the baseline</h3>")
        out.append('<p class="note">One box per system: the per-query differences from the baseline '
                   f"{_e(report.baseline)} over the queries both include (box: quartiles; whiskers: 1.5 IQR; "
                   "white diamond: mean). Green: significantly better, red: significantly worse, grey: no "
                   "significant difference.</p>")
        for n, (label, png) in enumerate(figs["differences"]):
            img = "<figure>" + _img(png, f"Per-query differences from the baseline under {label}") + "</figure>"
            out.append(f'<details{" open" if n == 0 else ""}><summary>{_e(label)}</summary>{img}</details>')
    if figs["heatmap"] is not None:
        out += ["<h3>Flavour agreement (Kendall's τ-b)</h3>",
                "<figure>" + _img(figs["heatmap"], "Kendall's tau-b between every pair of flavours")
                + "<figcaption>Kendall's τ-b between the system orderings by mean under each pair of "
                  "flavours (1: same order).</figcaption></figure>"]
    return out


def unjudged_section(report: Report, digits: int = 4) -> list[str]:
    """The HTML section (elements; empty without the bounds)."""
    if report.unjudged_spread is None:
        return []
    out = ['<h2 id="unjudged-bounds">Unjudged bounds</h2>', f'<p class="note">{_e(unjudged_note(report))}</p>',
           _table(["system", *(_e(l) for l in report.labels)],
                  [[_e(c) for c in r] for r in unjudged_interval_rows(report, digits)],
                  ["text"] + ["num"] * len(report.labels))]
    comps, flips = marked_comparisons(report), marked_flips(report)
    if comps or flips:
        items = [f"<li>{UNJUDGED_MARK} {_e(a)} &gt; {_e(b)} under {_e(l)}</li>" for l, a, b in comps]
        items += [f"<li>{UNJUDGED_MARK} flipped: {_e(a)} &gt; {_e(b)} under {_e(f)}, reversed under {_e(s)}</li>"
                  for f, s, a, b in flips]
        out += [f'<p class="legend">{_e(UNJUDGED_LEGEND)}</p>', '<ul class="unjudged">', *items, "</ul>"]
    return out

def to_html(report: Report, digits: int = 4) -> str:
    """The whole ``report.html`` (see the module docstring)."""
    sig = report.significance
    ag = report.agreement
    styled = {"code": lambda v: f"<code>{_e(v)}</code>", "strong": lambda v: f"<strong>{_e(v)}</strong>",
              "": _e}
    facts = [_e(f.text) if f.value is None else f"{_e(f.text)} {styled[f.style](f.value)}"
             for f in header_facts(report)]
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="evalkit {_e(report.version)}">',
        f"<title>{_e(report.title)}</title>",
        f"<style>{CSS}</style>",
        "</head>",
        "<body><main>",
        f"<h1>{_e(report.title)}</h1>",
        f'<p class="facts">{" · ".join(facts)}</p>',
        f'<p class="verdict{"" if report.verdict[0] else " same"}">{_e(report.verdict[1])}</p>',
        "<h2>Flavours</h2>",
        _table(["flavour", "canonical form"],
               [[_e(l), f"<code>{_e(c)}</code>"] for l, c in zip(report.labels, report.canonical)],
               ["text", "text"]),
        "<h2>Mean over queries</h2>",
        f'<p class="note">Systems sorted by {_e(report.labels[0])}, best first; bold: best value per column.</p>',
        _values(report, report.means, digits, False, True),
    ]
    if sig is not None and sig.comparisons:
        out.append(f'<p class="legend">{_e(sig.legend())}.</p>')
    if report.deltas is not None:
        out += [f"<h2>Difference from the baseline {_e(report.baseline)}</h2>",
                _values(report, report.deltas, digits, True, False)]
        if has_tie_marks(report):
            out.append(f'<p class="legend">{_e(TIE_LEGEND)}</p>')
    if sig is not None and sig.comparisons:
        rows: list[list[str | tuple[str, str]]] = []  # cells: HTML, or (HTML, class)
        for r in comparison_rows(report, digits):
            cls = {"▲": "up", "▼": "down"}.get(r[6], "")
            rows.append([_e(r[0]), _e(r[1])] + [_e(v) for v in r[2:6]] + [(_e(r[6]), cls)] + [_e(v) for v in r[7:]])
        out += [f"<h2>Significance tests against the baseline {_e(report.baseline)}</h2>",
                f'<p class="note">{_e(sig.describe())}. Δ mean and the bootstrap confidence interval are over the '
                "queries both systems include (n); p is the two-sided p-value, the next column the corrected one; "
                "W/T/L: queries won / tied / lost against the baseline; d_z: Cohen's d for paired samples (mean / "
                "standard deviation of the per-query differences).</p>",
                "<details><summary>All comparisons "
                f"({len(sig.comparisons)})</summary>",
                _table([_e(h) for h in comparison_headers(report)], rows,
                       ["text", "text", "num", "num", "num", "num", "", "num", "num", "num", ""]),
                "</details>"]
    for b in other_baselines(report):
        rows = []
        for r in comparison_rows(report, digits, baseline=b):
            cls = {"▲": "up", "▼": "down"}.get(r[6], "")
            rows.append([_e(r[0]), _e(r[1])] + [_e(v) for v in r[2:6]] + [(_e(r[6]), cls)] + [_e(v) for v in r[7:]])
        out += [f"<h2>Significance tests against the baseline {_e(b)}</h2>",
                f'<p class="note">{_e(tests_of(report).describe())}; columns as above.</p>',
                _table([_e(h) for h in comparison_headers(report)], rows,
                       ["text", "text", "num", "num", "num", "num", "", "num", "num", "num", ""])]
    if has_tie_marks(report):
        out.append(f'<p class="legend">{_e(TIE_LEGEND)}</p>')
    if report.tie_spread is not None:
        out += ["<h2>Tie spread</h2>", f'<p class="note">{_e(tie_spread_note(report))}</p>',
                _table(["system", *(_e(l) for l in report.labels)],
                       [[_e(c) for c in r] for r in tie_spread_rows(report, digits)],
                       ["text"] + ["num"] * len(report.labels))]
    out += unjudged_section(report, digits)
    if report.judged is not None:
        headers = judged_headers(report)
        out += ["<h2>Judged@k</h2>",
                '<p class="note">The fraction of each system\'s top k that has a judgment (mean over the queries it '
                "retrieves for; per query in <code>judged_at_k.csv</code> and <code>report.json</code>).</p>",
                _table([_e(h) for h in headers], [[_e(c) for c in r] for r in judged_rows(report)],
                       ["text"] + ["num"] * (len(headers) - 1))]
        out += [f'<p class="verdict">{_e(w)}</p>' for w in judged_warnings(report)]
    views = pair_matrix_views(report, digits)
    if views:
        out += ["<h2>All pairs</h2>",
                f'<p class="note">Every system against every other: {_e(tests_of(report).settings.describe())}. A cell is the '
                "mean of the row system minus the column system over the queries both include, ▲ / ▼ when the row "
                "is significantly better / worse, and the corrected p-value below it.</p>"]
        for v in views:
            rows = []
            for system, cells, ps in zip(v.systems, v.cells, v.p_cells):
                row: list[str | tuple[str, str]] = [_e(system)]
                for c, pval in zip(cells, ps):
                    if c is None:
                        row.append("–")
                        continue
                    cls = "up" if "▲" in c else "down" if "▼" in c else ""
                    row.append((f"{_e(c)}<br><small>{_e(pval)}</small>", cls))
                rows.append(row)
            out.append(f"<details><summary>{_e(v.label)}: {v.n_significant} of {v.n_pairs} pairs differ "
                       f"significantly</summary>"
                       + _table(["system", *(_e(x) for x in v.systems)], rows, ["text"] + ["num"] * len(v.systems))
                       + "</details>")
    out += ["<h2>Plots</h2>", *_figures(report)]
    out.append("<h2>Flavour agreement</h2>")
    if agreement_matrix(report) is not None:
        counts = flip_counts(report)
        headers = ["flavour A", "flavour B", "Kendall τ-b", "flips"]
        if sig is not None:
            headers.append(f"flips {FLIP_MARK}")
        headers.append("verdict")
        rows = []
        for p in ag.pairs:
            row = [_e(p.first), _e(p.second), _e(tau_text(p.tau, "-")),
                   _e(f"{len(p.flips)}/{p.n_pairs}")]
            if sig is not None:
                row.append(_e(counts.get((p.first, p.second), 0)))
            rows.append(row + [_e(p.verdict)])
        out.append(_table(headers, rows, ["text", "text", "num", "num"] + (["num"] if sig else []) + ["text"]))
        flipping = [p for p in ag.pairs if p.flips]
        if flipping:
            out.append("<h3>Flipped system pairs</h3>")
            if flip_legend(report):
                out.append(f'<p class="legend">{_e(flip_legend(report))}</p>')
            tests = {}
            if sig is not None:
                tests = {(f.first, f.second, f.ahead_first, f.ahead_second): f for f in sig.flips}
            for p in flipping:
                items = []
                for a, b in p.flips:
                    f = tests.get((p.first, p.second, a, b))
                    text = f"{_e(a)} &gt; {_e(b)} under {_e(p.first)}, reversed under {_e(p.second)}"
                    if f is not None:
                        text += (f" — p<sub>adj</sub> = {_e(p_text(f.under_first.p_adjusted))} / "
                                 f"{_e(p_text(f.under_second.p_adjusted))}"
                                 + (f" <strong>{FLIP_MARK}</strong>" if f.significant_under_either else ""))
                    items.append(f"<li>{text}</li>")
                n_sig = counts.get((p.first, p.second))
                extra = f", {n_sig} {FLIP_MARK}" if n_sig is not None else ""
                out.append(f"<details><summary>{_e(p.first)} vs {_e(p.second)}: {len(p.flips)} "
                           f"flip{'s' if len(p.flips) != 1 else ''}{extra}</summary>"
                           f'<ul class="flips">{"".join(items)}</ul></details>')
    else:
        out.append('<p class="note">Fewer than two systems or flavours: nothing to compare.</p>')
    out.append("<h2>Reproducibility</h2>")
    repro = [f"evalkit {_e(report.version)}"]
    if sig is not None:
        st = sig.settings
        repro.append(f"statistics: test <code>{_e(st.test)}</code>, alpha {_e(f'{st.alpha:g}')}, correction "
                     f"<code>{_e(st.correction)}</code>, family <code>{_e(st.family)}</code>, seed {st.seed}, "
                     f"n_resamples {st.n_resamples}, ci_method <code>{_e(st.ci_method)}</code>")
        repro.append(", ".join(f"{_e(k)} {_e(v)}" for k, v in sig.versions.items()))
    else:
        repro.append("no significance tests (no baseline and no statistics section)")
    out.append('<p class="note">' + "; ".join(repro) + ". Every number of this page is in "
               "<code>report.json</code>.</p>")
    out += ["</main></body>", "</html>", ""]
    return "\n".join(out)


def html_files(report: Report) -> dict[str, str]:
    """The ``html`` format: ``{"report.html": ...}``."""
    return {"report.html": to_html(report)}
