"""Rendering a :class:`~evalkit.report.model.Report`: terminal text, Markdown, CSV, JSON.

Renderers are pure functions of the report that return text. The file renderers are
registered by format name in :data:`RENDERERS`, each returning ``{file name: text}``;
:mod:`evalkit.report.write` renders every requested format in memory and then writes
the files. A later format (LaTeX, HTML) is one more :func:`register_renderer` call.

Tables use :mod:`tabulate`; CSV uses :mod:`csv`; JSON uses :mod:`json` with ``NaN``
written as ``null``.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any, Callable

import numpy as np
from tabulate import tabulate

from .model import Report

Renderer = Callable[[Report], dict[str, str]]

#: ``{format name: renderer}``; a renderer returns ``{file name: text}``.
RENDERERS: dict[str, Renderer] = {}


def register_renderer(fmt: str, fn: Renderer | None = None):
    """Register ``fn`` as the renderer of output format ``fmt`` (usable as a decorator).

    :raises ValueError: ``fmt`` already has a renderer.
    """

    def deco(f: Renderer) -> Renderer:
        if fmt in RENDERERS:
            raise ValueError(f"output format {fmt!r} already has a renderer")
        RENDERERS[fmt] = f
        return f

    return deco(fn) if fn is not None else deco


def render(report: Report, fmt: str) -> dict[str, str]:
    """``{file name: text}`` for format ``fmt``.

    :raises ValueError: unknown format (the message lists the known ones).
    """
    try:
        fn = RENDERERS[fmt]
    except KeyError:
        raise ValueError(f"unknown output format {fmt!r} (known: {', '.join(RENDERERS)})") from None
    return fn(report)


# ----------------------------------------------------------------------------- helpers


def _fmt(v: float, digits: int, signed: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:+.{digits}f}" if signed else f"{v:.{digits}f}"


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _system_name(report: Report, name: str) -> str:
    return f"{name} (baseline)" if name == report.baseline else name


def _values_table(report: Report, values: np.ndarray, tablefmt: str, digits: int, signed=False) -> str:
    order = report.system_order(0)
    rows = [
        [_system_name(report, report.systems[i])] + [_fmt(v, digits, signed) for v in values[i]]
        for i in order
    ]
    headers = ["system"] + list(report.labels)
    return tabulate(rows, headers=headers, tablefmt=tablefmt, disable_numparse=True,
                    colalign=("left",) + ("right",) * len(report.labels))


def flavour_legend(report: Report, tablefmt: str = "simple") -> str:
    """Table of flavour label -> canonical flavour string."""
    rows = [[label, canon] for label, canon in zip(report.labels, report.canonical)]
    return tabulate(rows, headers=["flavour", "canonical form"], tablefmt=tablefmt)


def to_table(report: Report, tablefmt: str = "simple", digits: int = 4) -> str:
    """Side-by-side means: one row per system, one column per flavour (tabulate).

    Systems are sorted by their mean under the first flavour, best first.
    """
    return _values_table(report, report.means, tablefmt, digits)


def deltas_table(report: Report, tablefmt: str = "simple", digits: int = 4) -> str:
    """Mean minus the baseline's mean per system and flavour ('' without a baseline)."""
    if report.deltas is None:
        return ""
    return _values_table(report, report.deltas, tablefmt, digits, signed=True)


def agreement_table(report: Report, tablefmt: str = "simple") -> str:
    """One row per pair of flavours: tau, number of flips, verdict."""
    ag = report.agreement
    rows = [
        [p.first, p.second, "-" if math.isnan(p.tau) else f"{p.tau:.3f}", f"{len(p.flips)}/{p.n_pairs}",
         "yes" if p.same_best else "no"]
        for p in ag.pairs
    ]
    return tabulate(rows, headers=["flavour A", "flavour B", "Kendall τ", "flips", "same best"],
                    tablefmt=tablefmt, disable_numparse=True)


def _flip_text(flips, max_flips: int | None) -> str:
    shown = flips if max_flips is None else flips[:max_flips]
    text = ", ".join(f"{a} > {b}" for a, b in shown)
    more = len(flips) - len(shown)
    return text + (f", ... ({more} more)" if more else "")


def _flip_lines(report: Report, max_flips: int | None, bullet: str = "  ", code=lambda s: s) -> list[str]:
    """One line per flavour pair with flips: ``A vs B: X > Y, ... under A; reversed under B``."""
    lines = []
    for p in report.agreement.pairs:
        if p.flips:
            lines.append(f"{bullet}{code(p.first)} vs {code(p.second)}: under {code(p.first)} "
                         f"{_flip_text(p.flips, max_flips)}; reversed under {code(p.second)}")
    return lines


def agreement_matrix(report: Report, tablefmt: str = "simple") -> str:
    """Square table over flavours: Kendall's tau below the diagonal, number of flipped
    system pairs above it. Columns are numbered like the rows, to stay narrow."""
    ag = report.agreement
    n = len(ag.labels)
    cells = [["" if i != j else "-" for j in range(n)] for i in range(n)]
    for p in ag.pairs:
        i, j = ag.labels.index(p.first), ag.labels.index(p.second)
        cells[j][i] = "n/a" if math.isnan(p.tau) else f"{p.tau:.3f}"
        cells[i][j] = str(len(p.flips))
    rows = [[f"[{i + 1}] {label}"] + cells[i] for i, label in enumerate(ag.labels)]
    return tabulate(rows, headers=["flavour"] + [f"[{i + 1}]" for i in range(n)], tablefmt=tablefmt,
                    disable_numparse=True, colalign=("left",) + ("right",) * n)


def agreement_text(report: Report, max_flips: int | None = 5, max_pairs: int = 5) -> str:
    """The flavour-agreement section for a terminal: the tau/flips matrix, the
    ``max_pairs`` most disagreeing flavour pairs with up to ``max_flips`` flipped
    system pairs each, and the overall statement."""
    ag = report.agreement
    out = ["Flavour agreement", ""]
    if len(ag.labels) >= 2 and len(ag.systems) >= 2:
        n_pairs = max(p.n_pairs for p in ag.pairs)
        out += [f"Kendall's τ-b between the system orderings by mean (below the diagonal) and the number of "
                f"system pairs whose order flips (above it, out of {n_pairs}):", "",
                agreement_matrix(report), ""]
        worst = sorted((p for p in ag.pairs if p.flips),
                       key=lambda p: (np.inf if math.isnan(p.tau) else p.tau, -len(p.flips)))[:max_pairs]
        if worst:
            out.append("Largest disagreements:" if len(worst) > 1 else "Disagreement:")
            for p in worst:
                out.append(f"  {p.first} vs {p.second}: {p.verdict}")
                out.append(f"    under {p.first}: {_flip_text(p.flips, max_flips)}; reversed under {p.second}")
            out.append("")
    out.append(ag.statement)
    return "\n".join(out)


def to_text(report: Report, digits: int = 4, max_flips: int | None = 5) -> str:
    """Everything ``evalkit run`` prints: legend, means table, baseline differences,
    flavour agreement."""
    q = len(report.qids)
    parts = [
        report.title,
        "",
        flavour_legend(report),
        "",
        f"Mean over queries ({_count(len(report.systems), 'system')}, {_count(q, 'qrels query', 'qrels queries')}; "
        f"sorted by {report.labels[0]})",
        "",
        to_table(report, digits=digits),
    ]
    if report.baseline is not None:
        parts += ["", f"Difference from the baseline {report.baseline}", "", deltas_table(report, digits=digits)]
    parts += ["", agreement_text(report, max_flips=max_flips)]
    return "\n".join(parts)


def to_markdown(report: Report, digits: int = 4) -> str:
    """The full report as GitHub-flavoured Markdown."""
    md = report.metadata
    code = lambda s: f"`{s}`"  # noqa: E731
    out = [f"# {report.title}", ""]
    facts = [f"evalkit {report.version}"]
    if md.get("config"):
        facts.append(f"config {code(md['config'])}")
    if md.get("qrels"):
        facts.append(f"qrels {code(md['qrels'])}")
    facts.append(f"{_count(len(report.systems), 'system')}, {_count(len(report.qids), 'qrels query', 'qrels queries')}")
    out += [" · ".join(facts), ""]
    out += ["## Flavours", "",
            tabulate([[label, code(c)] for label, c in zip(report.labels, report.canonical)],
                     headers=["flavour", "canonical form"], tablefmt="github"), ""]
    out += [f"## Mean over queries", "",
            f"Systems sorted by {code(report.labels[0])}, best first.", "",
            to_table(report, tablefmt="github", digits=digits), ""]
    if report.baseline is not None:
        out += [f"## Difference from the baseline {code(report.baseline)}", "",
                deltas_table(report, tablefmt="github", digits=digits), ""]
    ag = report.agreement
    out += ["## Flavour agreement", "", f"**{ag.statement}**", ""]
    if len(ag.labels) >= 2 and len(ag.systems) >= 2:
        out += ["Kendall's τ-b between the orderings of the systems by mean, for every pair of "
                "flavours; a *flip* is a system pair whose order is reversed.", ""]
        rows = [[code(p.first), code(p.second), "-" if math.isnan(p.tau) else f"{p.tau:.3f}",
                 f"{len(p.flips)}/{p.n_pairs}", p.verdict] for p in ag.pairs]
        out += [tabulate(rows, headers=["flavour A", "flavour B", "Kendall τ", "flips", "verdict"],
                         tablefmt="github", disable_numparse=True), ""]
        flips = _flip_lines(report, None, bullet="- ", code=code)
        if flips:
            out += ["### Flipped system pairs", ""] + flips + [""]
    out += ["## Per-query values", "",
            "See `per_query.csv` (system, flavour, qid, value) and `report.json`."]
    return "\n".join(out) + "\n"


def _num(v: float) -> str:
    return "" if math.isnan(v) else repr(float(v))


def to_csv(report: Report) -> str:
    """Means as CSV: header ``system,<label>,...``; full precision; empty = no value."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["system", *report.labels])
    for s, row in zip(report.systems, report.means):
        w.writerow([s, *(_num(v) for v in row)])
    return buf.getvalue()


def per_query_csv(report: Report) -> str:
    """Per-query values as CSV: ``system,flavour,qid,value``, one row per included query."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["system", "flavour", "qid", "value"])
    values = report.results.values
    for s, system in enumerate(report.systems):
        for f, label in enumerate(report.labels):
            for qid, v in zip(report.qids, values[s, f]):
                if not math.isnan(v):
                    w.writerow([system, label, qid, repr(float(v))])
    return buf.getvalue()


def _jnum(v: float) -> float | None:
    v = float(v)
    return None if math.isnan(v) else v


def to_dict(report: Report) -> dict[str, Any]:
    """The report as JSON-ready data (``NaN`` -> ``None``)."""
    ag = report.agreement
    values = report.results.values
    data: dict[str, Any] = {
        "evalkit_version": report.version,
        "title": report.title,
        "metadata": dict(report.metadata),
        "flavours": [{"label": l, "canonical": c} for l, c in zip(report.labels, report.canonical)],
        "systems": list(report.systems),
        "baseline": report.baseline,
        "qids": [str(q) for q in report.qids],
        "means": {s: {l: _jnum(v) for l, v in zip(report.labels, row)}
                  for s, row in zip(report.systems, report.means)},
        "counts": {s: {l: int(v) for l, v in zip(report.labels, row)}
                   for s, row in zip(report.systems, report.counts)},
        "deltas": None if report.deltas is None else {
            s: {l: _jnum(v) for l, v in zip(report.labels, row)} for s, row in zip(report.systems, report.deltas)
        },
        "agreement": {
            "statement": ag.statement,
            "changes_conclusion": ag.changes_conclusion,
            "best": {l: list(b) for l, b in ag.best.items()},
            "pairs": [
                {"first": p.first, "second": p.second, "kendall_tau_b": _jnum(p.tau), "p_value": _jnum(p.p_value),
                 "n_pairs": p.n_pairs, "flips": [list(f) for f in p.flips], "best_first": list(p.best_first),
                 "best_second": list(p.best_second), "verdict": p.verdict}
                for p in ag.pairs
            ],
            "baseline_changes": [
                {"system": c.system, "better_under": list(c.better_under), "worse_under": list(c.worse_under)}
                for c in ag.baseline_changes
            ],
        },
        "per_query": {
            s: {l: {str(q): float(v) for q, v in zip(report.qids, values[i, f]) if not math.isnan(v)}
                for f, l in enumerate(report.labels)}
            for i, s in enumerate(report.systems)
        },
    }
    return data


def to_json(report: Report, indent: int | None = 1) -> str:
    """:func:`to_dict` as JSON text (strict JSON: no ``NaN``)."""
    return json.dumps(to_dict(report), indent=indent, ensure_ascii=False, allow_nan=False) + "\n"


@register_renderer("markdown")
def _markdown_files(report: Report) -> dict[str, str]:
    return {"report.md": to_markdown(report)}


@register_renderer("csv")
def _csv_files(report: Report) -> dict[str, str]:
    return {"means.csv": to_csv(report), "per_query.csv": per_query_csv(report)}


@register_renderer("json")
def _json_files(report: Report) -> dict[str, str]:
    return {"report.json": to_json(report)}
