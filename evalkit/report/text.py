"""Terminal text and Markdown: what ``evalkit run`` prints and ``report.md``.

Layout only: the numbers, markers, best values and the agreement matrix come from
:mod:`.views`; every user string is escaped (:func:`.escape.text_escape` for the
terminal, :func:`.escape.md_escape` / :func:`.escape.md_code` for Markdown). Tables
use :mod:`tabulate`; :func:`fit_table` and the terminal width live in :mod:`.layout`.
"""

from __future__ import annotations

import math
import re
import textwrap
from typing import TYPE_CHECKING, Callable, Collection, Sequence
from typing import Any, MutableSequence

import numpy as np
from tabulate import tabulate

from .escape import md_code, md_escape, text_escape
from .layout import (  # noqa: F401 - laid out there, kept importable from here
    _GAP, _MIN_ROOM, _PAD, MIN_WIDTH, _column_width, _longest, _wrap_keys, fit_table, fold, terminal_width,
)
from .unjudged import UNJUDGED_LEGEND, UNJUDGED_MARK, comparison_mark, marked_comparisons, marked_flips
from .unjudged import interval_rows as unjudged_interval_rows
from .unjudged import note as unjudged_note
from .unjudged import verdict_sentence
from .views import (
    tests_of,
    FLIP_MARK,
    TIE_LEGEND,
    TIE_MARK,
    has_tie_marks,
    judged_headers,
    judged_rows,
    judged_warnings,
    tie_dependent,
    tie_spread_note,
    tie_spread_rows,
    baseline_rows,
    other_baselines,
    pair_matrix_views,
    agreement_summary,
    best_per_flavour,
    MARKERS,
    agreement_matrix as agreement_view,
    comparison_headers,
    comparison_rows,
    count_phrase,
    flip_counts,
    flip_legend,
    flip_significant,
    fmt_value,
    has_markers,
    header_facts,
    significance_legend,
    tau_text,
    values_view,
    wtl_rows,
)

if TYPE_CHECKING:  # pragma: no cover
    from .model import Report

Escape = Callable[[object], str]

#: Stands for " > " while a line is wrapped (a private-use character: no word breaks inside).
_KEEP = "\ue000>\ue000"


def wrap(text: str, width: int | None, indent: str = "", subsequent: str | None = None) -> str:
    """``text`` wrapped to ``width`` (:func:`textwrap.fill`, words kept whole unless one
    is longer than a line); unchanged when ``width`` is ``None``."""
    if width is None:
        return indent + text
    return textwrap.fill(text, width, initial_indent=indent,
                         subsequent_indent=indent if subsequent is None else subsequent,
                         break_on_hyphens=False)


def _system_cell(name: str, baseline: bool, esc: Escape) -> str:
    return esc(name) + (" (baseline)" if baseline else "")


def values_table(report: Report, values: np.ndarray, tablefmt: str = "simple", digits: int = 4,
                 signed: bool = False, esc: Escape = text_escape, width: int | None = None) -> str:
    """A systems x flavours table of ``values`` (:func:`.views.values_view`) with the
    significance markers after the numbers."""
    view = values_view(report, values, digits, bold_best=False)
    baseline = report.baseline or ""
    ties = signed and report.baseline is not None  # differences from the baseline: mark tie-dependent ones
    rows = [
        [_system_cell(r.system, r.baseline, esc)]
        + [fmt_value(v, digits, signed) + (MARKERS[int(d)] if view.marked else "")
           + (TIE_MARK if ties and tie_dependent(report, r.system, baseline, label) else "")
           + (comparison_mark(report, r.system, baseline, label) if ties else "")
           for v, d, label in zip(r.values, r.directions, view.labels)]
        for r in view.rows
    ]
    headers = ["system"] + [esc(l) for l in view.labels]
    # markers trail the numbers; numbers have a fixed width, so left alignment keeps them aligned
    align = "left" if view.marked or ties else "right"
    return fit_table(rows, headers, ("left",) + (align,) * len(view.labels), width, tablefmt=tablefmt)


def to_table(report: Report, tablefmt: str = "simple", digits: int = 4, width: int | None = None) -> str:
    """Side-by-side means: one row per system, one column per flavour (tabulate),
    split into blocks of flavours to fit ``width`` (:func:`fit_table`).

    Systems are sorted by their mean under the first flavour, best first.
    """
    esc = md_escape if tablefmt == "github" else text_escape
    return values_table(report, report.means, tablefmt, digits, esc=esc, width=width)


def deltas_table(report: Report, tablefmt: str = "simple", digits: int = 4, width: int | None = None) -> str:
    """Mean minus the baseline's mean per system and flavour ('' without a baseline)."""
    if report.deltas is None:
        return ""
    esc = md_escape if tablefmt == "github" else text_escape
    return values_table(report, report.deltas, tablefmt, digits, signed=True, esc=esc, width=width)


def wtl_table(report: Report, tablefmt: str = "simple", width: int | None = None) -> str:
    """Per system and flavour: ``wins/ties/losses`` of the per-query values against the
    baseline ('' without baseline tests)."""
    rows = wtl_rows(report)
    if not rows:
        return ""
    esc = md_escape if tablefmt == "github" else text_escape
    rows = [[esc(r[0])] + r[1:] for r in rows]
    return fit_table(rows, ["system"] + [esc(l) for l in report.labels],
                     ("left",) + ("right",) * len(report.labels), width, tablefmt=tablefmt)


def flavour_legend(report: Report, tablefmt: str = "simple", width: int | None = None) -> str:
    """Table of flavour label -> canonical flavour string (the canonical form wrapped
    to fit ``width``)."""
    rows = [[text_escape(label), text_escape(canon)] for label, canon in zip(report.labels, report.canonical)]
    headers = ["flavour", "canonical form"]
    if width is not None:  # the label column as tabulate lays it out (its header padded by _PAD)
        first = _column_width(rows, headers, 0)
        room = max(10, width - first - _GAP - _PAD)
        rows = [[label, fold_flavour(canon, room)] for label, canon in rows]
    return tabulate(rows, headers=headers, tablefmt=tablefmt, disable_numparse=True)


_FLAVOUR_BREAK = re.compile(r"(?<=[,(])")


def fold_flavour(text: str, room: int) -> str:
    """A canonical flavour string on lines of at most ``room`` characters, broken only
    after a ``,`` or ``(`` (never inside a name or number: ``trec_eval`` stays whole); a
    piece longer than ``room`` keeps its own line.

    >>> print(fold_flavour("ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval)@10", 30))
    ndcg(gain=exp2,discount=log2,
    idcg=judged,ties=trec_eval)@10
    """
    lines, line = [], ""
    for piece in _FLAVOUR_BREAK.split(text):
        if line and len(line) + len(piece) > room:
            lines.append(line)
            line = ""
        line += piece
    lines.append(line)
    return "\n".join(lines)


def agreement_table(report: Report, tablefmt: str = "simple") -> str:
    """One row per pair of flavours: tau, number of flips, verdict."""
    rows = [
        [text_escape(p.first), text_escape(p.second), tau_text(p.tau, "-"), f"{len(p.flips)}/{p.n_pairs}",
         "yes" if p.same_best else "no"]
        for p in report.agreement.pairs
    ]
    return tabulate(rows, headers=["flavour A", "flavour B", "Kendall τ", "flips", "same best"],
                    tablefmt=tablefmt, disable_numparse=True)


def agreement_matrix(report: Report, tablefmt: str = "simple", width: int | None = None) -> str:
    """Square table over flavours (:func:`.views.agreement_matrix`): Kendall's tau below
    the diagonal, number of flipped system pairs above it ('' with fewer than two
    flavours or systems)."""
    m = agreement_view(report)
    if m is None:
        return ""
    rows = [[f"{num} {text_escape(label)}"] + ["-" if c is None else c for c in cells]
            for num, label, cells in zip(m.numbers, m.labels, m.cells)]
    return fit_table(rows, ["flavour", *m.numbers], ("left",) + ("right",) * len(m.labels), width,
                     tablefmt=tablefmt)


def _flip_text(flips: Sequence[tuple[str, str]], max_flips: int | None, esc: Escape,
               significant: Collection[tuple[str, str, str, str]] = frozenset(), pair: tuple[str, str] = ("", ""),
               unjudged: Collection[tuple[str, str, str, str]] = frozenset()) -> str:
    shown = flips if max_flips is None else flips[:max_flips]
    text = ", ".join(f"{esc(a)} > {esc(b)}" + (FLIP_MARK if (*pair, a, b) in significant else "")
                     + (UNJUDGED_MARK if (*pair, a, b) in unjudged else "")
                     for a, b in shown)
    more = len(flips) - len(shown)
    return text + (f", ... ({more} more)" if more else "")


def best_table(report: Report, digits: int = 4, width: int | None = None) -> str:
    """The best system(s) per flavour with their mean (:func:`.views.best_per_flavour`):
    the compact form of the flavour-agreement verdict."""
    esc = text_escape
    rows = [[esc(label), ", ".join(esc(s) for s in systems) or "-", fmt_value(mean, digits)]
            for label, systems, mean in best_per_flavour(report)]
    headers = ["flavour", "best system", "mean"]
    maxcol = None
    if width is not None:  # the flavour and mean columns as tabulate lays them out
        fixed = _column_width(rows, headers, 0) + _column_width(rows, headers, 2) + 2 * _GAP
        maxcol = [None, max(10, width - fixed - _PAD), None]
    return tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True,
                    colalign=("left", "left", "right"), maxcolwidths=maxcol)


def agreement_text(report: Report, max_flips: int | None = 5, max_pairs: int = 5,
                   width: int | None = None, digits: int = 4) -> str:
    """The flavour-agreement section for a terminal: the tau/flips matrix, the
    ``max_pairs`` most disagreeing flavour pairs with up to ``max_flips`` flipped
    system pairs each, the best system per flavour and a short verdict
    (:func:`.views.agreement_summary`; the full lists are in the report files). With a
    ``width``, tables are split and prose wrapped to fit it."""
    ag = report.agreement
    esc = text_escape
    out = ["Flavour agreement", ""]
    m = agreement_view(report)
    if m is not None:
        out += [wrap(f"Kendall's τ-b between the system orderings by mean (below the diagonal) and the number "
                     f"of system pairs whose order flips (above it, out of {m.n_pairs}):", width), "",
                agreement_matrix(report, width=width), ""]
        worst = sorted((p for p in ag.pairs if p.flips),
                       key=lambda p: (np.inf if math.isnan(p.tau) else p.tau, -len(p.flips)))[:max_pairs]
        if worst:
            sig = flip_significant(report)
            counts = flip_counts(report)
            out.append("Largest disagreements:" if len(worst) > 1 else "Disagreement:")
            for p in worst:
                extra = ""
                if (p.first, p.second) in counts:
                    extra = f"; {counts[(p.first, p.second)]} of the flips significant under either flavour"
                out.append(wrap(f"{esc(p.first)} vs {esc(p.second)}: {esc(p.verdict)}{extra}", width,
                                "  ", "      "))
                # a flipped pair "X > Y" is never split across lines
                flips = _flip_text(p.flips, max_flips, esc, sig, (p.first, p.second),
                                   frozenset(marked_flips(report))).replace(" > ", _KEEP)
                out.append(wrap(f"under {esc(p.first)}: {flips}; reversed under {esc(p.second)}",
                                width, "    ", "      ").replace(_KEEP, " > "))
            out.append("")
            if flip_legend(report):
                out += [wrap(esc(flip_legend(report)), width), ""]
    if len(report.labels) > 1 and len(report.systems) > 1:
        out += ["Best system per flavour:", "", best_table(report, digits, width), ""]
    if width is None:
        out.append(esc(report.verdict[1]))
    else:
        out += [wrap(esc(sentence), width) for sentence in agreement_summary(report)]
        if verdict_sentence(report):
            out.append(wrap(esc(verdict_sentence(report)), width))
    return "\n".join(out)


def to_text(report: Report, digits: int = 4, max_flips: int | None = 5, width: int | None = None) -> str:
    """Everything ``evalkit run`` prints: legend, means table, baseline differences,
    flavour agreement.

    :param width: the line width to fit (``evalkit run`` passes :func:`terminal_width`):
        tables wider than it are split into blocks of flavours (:func:`fit_table`),
        prose is wrapped, and the flavour-agreement verdict takes its compact form (the
        best system per flavour; the full lists are in the report files). ``None``
        lays everything out on unbounded lines.
    """
    esc = text_escape
    parts = [
        wrap(esc(report.title), width),
        "",
        flavour_legend(report, width=width),
        "",
        wrap(f"Mean over queries ({count_phrase(len(report.systems), 'system')}, "
             f"{count_phrase(len(report.qids), 'qrels query', 'qrels queries')}; sorted by {esc(report.labels[0])})",
             width),
        "",
        to_table(report, digits=digits, width=width),
    ]
    if significance_legend(report):
        parts += ["", wrap(esc(significance_legend(report)), width)]
    if report.baseline is not None:
        parts += ["", wrap(f"Difference from the baseline {esc(report.baseline)}", width), "",
                  deltas_table(report, digits=digits, width=width)]
    if has_markers(report):
        parts += ["", wrap(f"Queries won / tied / lost against the baseline {esc(report.baseline)}", width), "",
                  wtl_table(report, width=width)]
    if has_tie_marks(report):
        parts += ["", wrap(TIE_LEGEND, width)]
    parts += sensitivity_text(report, width, digits)
    parts += unjudged_text_lines(report, digits, width)
    for b in other_baselines(report):
        parts += ["", wrap(f"Difference from the baseline {esc(b)} (▲ / ▼: significantly better / worse "
                           f"than {esc(b)})", width), "",
                  fit_table([[esc(r[0])] + r[1:] for r in baseline_rows(report, b, digits)],
                            ["system"] + [esc(l) for l in report.labels],
                            ("left",) + ("left",) * len(report.labels), width)]
    if pair_matrix_views(report):
        parts += ["", all_pairs_text(report, width)]
    parts += ["", agreement_text(report, max_flips=max_flips, width=width, digits=digits)]
    return "\n".join(parts)


def tie_spread_table(report: Report, tablefmt: str = "simple", digits: int = 4, width: int | None = None,
                     only_spread: bool = False) -> str:
    """Systems x flavours: ``worst–best`` mean over the orderings of tied scores
    (:func:`.views.tie_spread_rows`; '' without tie bounds). ``only_spread``: only the
    systems with a spread under some flavour (the terminal's compact form)."""
    rows = tie_spread_rows(report, digits)
    if only_spread:
        rows = [r for r in rows if any("–" in c for c in r[1:])]
    if not rows:
        return ""
    esc = md_escape if tablefmt == "github" else text_escape
    return fit_table([[esc(r[0])] + r[1:] for r in rows], ["system"] + [esc(l) for l in report.labels],
                     ("left",) + ("right",) * len(report.labels), width, tablefmt=tablefmt)


def unjudged_text_lines(report: Report, digits: int = 4, width: int | None = None) -> list[str]:
    """The terminal's section (lines; empty without the bounds)."""
    if report.unjudged_spread is None:
        return []
    rows = [[text_escape(r[0])] + r[1:] for r in unjudged_interval_rows(report, digits)]
    out = ["", wrap(unjudged_note(report), width), "",
           fit_table(rows, ["system"] + [text_escape(l) for l in report.labels],
                     ("left",) + ("right",) * len(report.labels), width)]
    comps = marked_comparisons(report)
    if comps:
        out += ["", wrap(UNJUDGED_LEGEND, width)]
        out += [wrap(f"{UNJUDGED_MARK} {text_escape(a)} > {text_escape(b)} under {text_escape(l)}", width, "  ")
                for l, a, b in comps]
    return out


def unjudged_markdown_lines(report: Report, digits: int = 4) -> list[str]:
    """The Markdown section (lines; empty without the bounds)."""
    if report.unjudged_spread is None:
        return []
    rows = [[md_escape(r[0])] + r[1:] for r in unjudged_interval_rows(report, digits)]
    out = ["## Unjudged bounds", "", md_escape(unjudged_note(report)), "",
           tabulate(rows, headers=["system"] + [md_escape(l) for l in report.labels], tablefmt="github",
                    disable_numparse=True), ""]
    comps, flips = marked_comparisons(report), marked_flips(report)
    if comps or flips:
        out += [md_escape(UNJUDGED_LEGEND), ""]
        out += [f"- {UNJUDGED_MARK} {md_escape(a)} > {md_escape(b)} under {md_escape(l)}" for l, a, b in comps]
        out += [f"- {UNJUDGED_MARK} flipped: {md_escape(a)} > {md_escape(b)} under {md_escape(f)}, reversed under "
                f"{md_escape(s)}" for f, s, a, b in flips]
        out += [""]
    return out


def judged_table(report: Report, tablefmt: str = "simple", width: int | None = None) -> str:
    """Systems x cutoffs: mean judged@k (:func:`.views.judged_rows`; '' without it)."""
    rows = judged_rows(report)
    if not rows:
        return ""
    esc = md_escape if tablefmt == "github" else text_escape
    headers = judged_headers(report)
    return fit_table([[esc(r[0])] + r[1:] for r in rows], headers, ("left",) + ("right",) * (len(headers) - 1),
                     width, tablefmt=tablefmt)


def sensitivity_text(report: Report, width: int | None = None, digits: int = 4) -> list[str]:
    """The terminal's tie-spread and judged@k sections (lines; empty without them)."""
    out: list[str] = []
    if report.tie_spread is not None:
        table = tie_spread_table(report, digits=digits, width=width, only_spread=True)
        out += ["", wrap(tie_spread_note(report) + (" Systems whose means do not depend on it are left out "
                                                    "(all are in tie_spread.csv)." if table else ""), width)]
        if table:
            out += ["", table]
    if report.judged is not None:
        out += ["", wrap("Judged@k: the fraction of each system's top k that has a judgment (mean over the "
                         "queries it retrieves for; per query in judged_at_k.csv)", width), "",
                judged_table(report, width=width)]
        warnings = judged_warnings(report)
        if warnings:
            out += [""] + [wrap(text_escape(w), width) for w in warnings]
    return out


def all_pairs_text(report: Report, width: int | None = None) -> str:
    """The all-pairs tests for a terminal: per flavour, how many system pairs differ
    significantly (the matrices are in report.md, report.html and all_pairs.csv)."""
    views = pair_matrix_views(report)
    if not views:
        return ""
    rows = [[text_escape(v.label), f"{v.n_significant}/{v.n_pairs}"] for v in views]
    return "\n".join([
        wrap(f"All pairs: system pairs that differ significantly ({tests_of(report).settings.describe()}; the matrices "
             f"with the corrected p-values are in the report files)", width), "",
        fit_table(rows, ["flavour", "significant pairs"], ("left", "right"), width)])


# ----------------------------------------------------------------------------- Markdown


def _md_facts(report: Report) -> str:
    styled = {"code": md_code, "strong": lambda v: f"**{md_escape(v)}**", "": md_escape}
    return " · ".join(f.text if f.value is None else f"{f.text} {styled[f.style](f.value)}"
                      for f in header_facts(report))


def _md_flip_lines(report: Report) -> list[str]:
    """One bullet per flavour pair with flips: ``A vs B: X > Y, ... under A; reversed
    under B`` (``†`` marks a flip whose systems differ significantly under A or B)."""
    lines = []
    sig = flip_significant(report)
    for p in report.agreement.pairs:
        if p.flips:
            lines.append(f"- {md_code(p.first)} vs {md_code(p.second)}: under {md_code(p.first)} "
                         f"{_flip_text(p.flips, None, md_escape, sig, (p.first, p.second), frozenset(marked_flips(report)))}; "
                         f"reversed under {md_code(p.second)}")
    return lines


def to_markdown(report: Report, digits: int = 4) -> str:
    """The full report as GitHub-flavoured Markdown."""
    code, esc = md_code, md_escape
    out = [f"# {esc(report.title)}", "", _md_facts(report), ""]
    out += ["## Flavours", "",
            tabulate([[esc(label), code(c, table=True)] for label, c in zip(report.labels, report.canonical)],
                     headers=["flavour", "canonical form"], tablefmt="github", disable_numparse=True), ""]
    out += ["## Mean over queries", "",
            f"Systems sorted by {code(report.labels[0])}, best first.", "",
            to_table(report, tablefmt="github", digits=digits), ""]
    if significance_legend(report):
        out += [esc(significance_legend(report)), ""]
    if report.baseline is not None:
        out += [f"## Difference from the baseline {code(report.baseline)}", "",
                deltas_table(report, tablefmt="github", digits=digits), ""]
    if has_markers(report):
        rows = [[esc(r[0]), esc(r[1]), *r[2:]] for r in comparison_rows(report, digits)]
        out += [f"## Significance tests against the baseline {code(report.baseline)}", "",
                f"{esc(tests_of(report).describe())}. Δ mean and the bootstrap confidence interval are over the queries both "
                f"systems include (n); p is the test's two-sided p-value, the next column the corrected one; "
                f"sig.: ▲ / ▼ significant, · not; W/T/L: queries won / tied / lost; d_z: Cohen's d for "
                f"paired samples (mean / standard deviation of the per-query differences).", "",
                tabulate(rows, headers=comparison_headers(report), tablefmt="github", disable_numparse=True), ""]
    if has_tie_marks(report):
        out += [esc(TIE_LEGEND), ""]
    if report.tie_spread is not None:
        out += ["## Tie spread", "", esc(tie_spread_note(report)), "",
                tie_spread_table(report, tablefmt="github", digits=digits), ""]
    out += unjudged_markdown_lines(report, digits)
    if report.judged is not None:
        out += ["## Judged@k", "",
                "The fraction of each system's top k that has a judgment (mean over the queries it retrieves "
                "for; per query in `judged_at_k.csv`).", "", judged_table(report, tablefmt="github"), ""]
        out += [f"**{esc(w)}**\n" for w in judged_warnings(report)]
    for b in other_baselines(report):
        rows = [[esc(r[0]), esc(r[1]), *r[2:]] for r in comparison_rows(report, digits, baseline=b)]
        out += [f"## Significance tests against the baseline {code(b)}", "",
                f"{esc(tests_of(report).describe())}; columns as above.", "",
                tabulate(rows, headers=comparison_headers(report), tablefmt="github", disable_numparse=True), ""]
    views = pair_matrix_views(report, digits)
    if views:
        out += ["## All pairs", "",
                f"Every system against every other: {esc(tests_of(report).settings.describe())}. A cell is the mean "
                f"of the row system minus the column system over the queries both include, ▲ / ▼ when the row "
                f"is significantly better / worse, and the corrected p-value in parentheses.", ""]
        for v in views:
            rows = [[esc(s)] + ["-" if c is None else f"{c} ({p})" for c, p in zip(cells, ps)]
                    for s, cells, ps in zip(v.systems, v.cells, v.p_cells)]
            out += [f"### {code(v.label)}: {v.n_significant} of {v.n_pairs} pairs differ significantly", "",
                    tabulate(rows, headers=["system", *(esc(s) for s in v.systems)], tablefmt="github",
                             disable_numparse=True), ""]
    ag = report.agreement
    out += ["## Flavour agreement", "", f"**{esc(report.verdict[1])}**", ""]
    if agreement_view(report) is not None:
        out += ["Kendall's τ-b between the orderings of the systems by mean, for every pair of "
                "flavours; a *flip* is a system pair whose order is reversed.", ""]
        counts = flip_counts(report)
        headers = ["flavour A", "flavour B", "Kendall τ", "flips"]
        if report.significance is not None:
            headers.append(f"flips {FLIP_MARK}")
        rows = []
        for p in ag.pairs:
            row = [code(p.first, table=True), code(p.second, table=True), tau_text(p.tau, "-"), f"{len(p.flips)}/{p.n_pairs}"]
            if report.significance is not None:
                row.append(str(counts.get((p.first, p.second), 0)))
            rows.append(row + [esc(p.verdict)])
        out += [tabulate(rows, headers=headers + ["verdict"], tablefmt="github", disable_numparse=True), ""]
        flips = _md_flip_lines(report)
        if flips:
            out += ["### Flipped system pairs", ""]
            if flip_legend(report):
                out += [esc(flip_legend(report)), ""]
            out += flips + [""]
    if report.significance is not None:
        st = report.significance.settings
        out += ["## Reproducibility", "",
                f"Significance settings: test `{st.test}`, alpha {st.alpha:g}, correction `{st.correction}`, "
                f"family `{st.family}`, seed {st.seed}, n_resamples {st.n_resamples}, ci_method `{st.ci_method}`; "
                + ", ".join(f"{esc(k)} {esc(v)}" for k, v in report.significance.versions.items()) + ".", ""]
    out += ["## Per-query values", "",
            "See `per_query.csv` (system, flavour, qid, value) and `report.json`."]
    return "\n".join(out) + "\n"


def markdown_files(report: Report) -> dict[str, str]:
    """The ``markdown`` format: ``{"report.md": ...}``."""
    return {"report.md": to_markdown(report)}
