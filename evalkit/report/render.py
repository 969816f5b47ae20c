"""Rendering a :class:`~evalkit.report.model.Report`: terminal text, Markdown, CSV, JSON
(LaTeX in :mod:`evalkit.report.latex`, HTML in :mod:`evalkit.report.html`).

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


MARKERS = {1: "▲", -1: "▼", 0: ""}


def marker(report: Report, system: str, label: str, symbols: dict[int, str] = MARKERS) -> str:
    """The significance marker of ``system`` under ``label``: ``▲`` significantly better
    than the baseline, ``▼`` significantly worse, ``""`` otherwise or without tests."""
    sig = report.significance
    if sig is None or system == report.baseline:
        return ""
    c = sig.comparison(system, label)
    return symbols[c.direction] if c is not None else ""


def _has_markers(report: Report) -> bool:
    sig = report.significance
    return sig is not None and bool(sig.comparisons)


def _values_table(report: Report, values: np.ndarray, tablefmt: str, digits: int, signed=False) -> str:
    order = report.system_order(0)
    marked = _has_markers(report)
    rows = [
        [_system_name(report, report.systems[i])]
        + [_fmt(v, digits, signed) + (marker(report, report.systems[i], l) if marked else "")
           for v, l in zip(values[i], report.labels)]
        for i in order
    ]
    headers = ["system"] + list(report.labels)
    # markers trail the numbers; numbers have a fixed width, so left alignment keeps them aligned
    align = "left" if marked else "right"
    return tabulate(rows, headers=headers, tablefmt=tablefmt, disable_numparse=True,
                    colalign=("left",) + (align,) * len(report.labels))


def significance_legend(report: Report) -> str:
    """One sentence on the markers and the test ('' without baseline tests)."""
    return report.significance.legend() if _has_markers(report) else ""


def wtl_table(report: Report, tablefmt: str = "simple") -> str:
    """Per system and flavour: ``wins/ties/losses`` of the per-query values against the
    baseline ('' without baseline tests)."""
    if not _has_markers(report):
        return ""
    grid = report.significance.grid()
    rows = []
    for i in report.system_order(0):
        s = report.systems[i]
        if s == report.baseline:
            continue
        rows.append([s] + [f"{c.wins}/{c.ties}/{c.losses}" for c in (grid[(s, l)] for l in report.labels)])
    return tabulate(rows, headers=["system"] + list(report.labels), tablefmt=tablefmt, disable_numparse=True,
                    colalign=("left",) + ("right",) * len(report.labels))


def _p(v: float) -> str:
    if v is None or math.isnan(v):
        return "-"
    return "<0.0001" if v < 1e-4 else f"{v:.4f}"


def comparison_rows(report: Report, digits: int = 4) -> list[list[str]]:
    """Rows ``flavour, system, Δ mean, CI, p, p adjusted, sig., W/T/L, d_z, n`` of every
    baseline comparison (flavour by flavour, systems in table order)."""
    sig = report.significance
    if sig is None:
        return []
    grid = sig.grid()
    rows = []
    for label in report.labels:
        for i in report.system_order(0):
            c = grid.get((report.systems[i], label))
            if c is None:
                continue
            ci = "-" if math.isnan(c.ci_low) else f"[{c.ci_low:+.{digits}f}, {c.ci_high:+.{digits}f}]"
            rows.append([label, c.system, _fmt(c.mean_difference, digits, True), ci, _p(c.p_value),
                         _p(c.p_adjusted), MARKERS[c.direction] or ("·" if not c.significant else "="),
                         f"{c.wins}/{c.ties}/{c.losses}", _fmt(c.effect_size, 2, True), str(c.n)])
    return rows


def comparison_headers(report: Report) -> list[str]:
    sig = report.significance
    level = f"{100 * sig.settings.confidence:g}% CI" if sig is not None else "CI"
    return ["flavour", "system", "Δ mean", level, "p", f"p ({sig.settings.correction})" if sig else "p adj.",
            "sig.", "W/T/L", "d_z", "n"]


def flip_counts(report: Report) -> dict[tuple[str, str], int]:
    """``{(flavour A, flavour B): flips significant under either flavour}`` (empty without tests)."""
    sig = report.significance
    if sig is None:
        return {}
    out: dict[tuple[str, str], int] = {}
    for f in sig.flips:
        out[(f.first, f.second)] = out.get((f.first, f.second), 0) + int(f.significant_under_either)
    return out


def _flip_significant(report: Report) -> set[tuple[str, str, str, str]]:
    sig = report.significance
    if sig is None:
        return set()
    return {(f.first, f.second, f.ahead_first, f.ahead_second) for f in sig.flips if f.significant_under_either}


FLIP_MARK = "†"


def flip_legend(report: Report) -> str:
    sig = report.significance
    if sig is None or not sig.flips:
        return ""
    n = len(sig.flips)
    m = sum(f.significant_under_either for f in sig.flips)
    family = ("the flipped pairs tested under one flavour" if sig.settings.family == "flavour"
              else "every flipped-pair test")
    return (f"{FLIP_MARK}: the two systems differ significantly under at least one of the two flavours "
            f"({m} of {n} flipped pairs; {sig.settings.describe()}; correction family: {family}). "
            f"A flip without {FLIP_MARK} is between systems that no test tells apart.")


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


def _flip_text(flips, max_flips: int | None, significant=frozenset(), pair=("", "")) -> str:
    shown = flips if max_flips is None else flips[:max_flips]
    text = ", ".join(f"{a} > {b}" + (FLIP_MARK if (*pair, a, b) in significant else "") for a, b in shown)
    more = len(flips) - len(shown)
    return text + (f", ... ({more} more)" if more else "")


def _flip_lines(report: Report, max_flips: int | None, bullet: str = "  ", code=lambda s: s) -> list[str]:
    """One line per flavour pair with flips: ``A vs B: X > Y, ... under A; reversed under B``
    (``†`` marks a flip whose systems differ significantly under A or B)."""
    lines = []
    sig = _flip_significant(report)
    for p in report.agreement.pairs:
        if p.flips:
            lines.append(f"{bullet}{code(p.first)} vs {code(p.second)}: under {code(p.first)} "
                         f"{_flip_text(p.flips, max_flips, sig, (p.first, p.second))}; "
                         f"reversed under {code(p.second)}")
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
            sig = _flip_significant(report)
            counts = flip_counts(report)
            out.append("Largest disagreements:" if len(worst) > 1 else "Disagreement:")
            for p in worst:
                extra = ""
                if (p.first, p.second) in counts:
                    extra = f"; {counts[(p.first, p.second)]} of the flips significant under either flavour"
                out.append(f"  {p.first} vs {p.second}: {p.verdict}{extra}")
                out.append(f"    under {p.first}: {_flip_text(p.flips, max_flips, sig, (p.first, p.second))}; "
                           f"reversed under {p.second}")
            out.append("")
            if flip_legend(report):
                out += [flip_legend(report), ""]
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
    if significance_legend(report):
        parts += ["", significance_legend(report)]
    if report.baseline is not None:
        parts += ["", f"Difference from the baseline {report.baseline}", "", deltas_table(report, digits=digits)]
    if _has_markers(report):
        parts += ["", f"Queries won / tied / lost against the baseline {report.baseline}", "", wtl_table(report)]
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
    if significance_legend(report):
        out += [significance_legend(report), ""]
    if report.baseline is not None:
        out += [f"## Difference from the baseline {code(report.baseline)}", "",
                deltas_table(report, tablefmt="github", digits=digits), ""]
    if _has_markers(report):
        sig = report.significance
        out += [f"## Significance tests against the baseline {code(report.baseline)}", "",
                f"{sig.describe()}. Δ mean and the bootstrap confidence interval are over the queries both "
                f"systems include (n); p is the test's two-sided p-value, the next column the corrected one; "
                f"sig.: ▲ / ▼ significant, · not; W/T/L: queries won / tied / lost; d_z: Cohen's d for "
                f"paired samples (mean / standard deviation of the per-query differences).", "",
                tabulate(comparison_rows(report, digits), headers=comparison_headers(report), tablefmt="github",
                         disable_numparse=True), ""]
    ag = report.agreement
    out += ["## Flavour agreement", "", f"**{ag.statement}**", ""]
    if len(ag.labels) >= 2 and len(ag.systems) >= 2:
        out += ["Kendall's τ-b between the orderings of the systems by mean, for every pair of "
                "flavours; a *flip* is a system pair whose order is reversed.", ""]
        counts = flip_counts(report)
        headers = ["flavour A", "flavour B", "Kendall τ", "flips"]
        if report.significance is not None:
            headers.append(f"flips {FLIP_MARK}")
        rows = []
        for p in ag.pairs:
            row = [code(p.first), code(p.second), "-" if math.isnan(p.tau) else f"{p.tau:.3f}",
                   f"{len(p.flips)}/{p.n_pairs}"]
            if report.significance is not None:
                row.append(str(counts.get((p.first, p.second), 0)))
            rows.append(row + [p.verdict])
        out += [tabulate(rows, headers=headers + ["verdict"], tablefmt="github", disable_numparse=True), ""]
        flips = _flip_lines(report, None, bullet="- ", code=code)
        if flips:
            out += ["### Flipped system pairs", ""]
            if flip_legend(report):
                out += [flip_legend(report), ""]
            out += flips + [""]
    if report.significance is not None:
        st = report.significance.settings
        out += ["## Reproducibility", "",
                f"Significance settings: test `{st.test}`, alpha {st.alpha:g}, correction `{st.correction}`, "
                f"family `{st.family}`, seed {st.seed}, n_resamples {st.n_resamples}, ci_method `{st.ci_method}`; "
                + ", ".join(f"{k} {v}" for k, v in report.significance.versions.items()) + ".", ""]
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
        "statistics": statistics_dict(report),
    }
    sig = report.significance
    if sig is not None:
        by_pair: dict[tuple[str, str], list] = {}
        for f in sig.flips:
            by_pair.setdefault((f.first, f.second), []).append(_flip_dict(f))
        for p in data["agreement"]["pairs"]:
            p["flip_tests"] = by_pair.get((p["first"], p["second"]), [])
    return data


def _test_dict(t) -> dict[str, Any]:
    return {"n": t.n, "mean_difference": _jnum(t.mean_difference), "p_value": _jnum(t.p_value),
            "p_adjusted": _jnum(t.p_adjusted), "significant": t.significant}


def _flip_dict(f) -> dict[str, Any]:
    return {"ahead_under_first": f.ahead_first, "ahead_under_second": f.ahead_second,
            "under_first": _test_dict(f.under_first), "under_second": _test_dict(f.under_second),
            "significant_under_either": f.significant_under_either}


def statistics_dict(report: Report) -> dict[str, Any] | None:
    """The significance tests as JSON-ready data (``None`` without tests): settings
    (test, alpha, correction, family, seed, n_resamples, ci_method, confidence), library
    versions, one record per baseline comparison and per flipped-pair test."""
    sig = report.significance
    if sig is None:
        return None
    return {
        "settings": sig.settings.to_dict(),
        "description": sig.describe(),
        "versions": dict(sig.versions),
        "baseline": sig.baseline,
        "family_size": sig.family_size,
        "queries": "intersection of the queries both systems include",
        "effect_size": "Cohen's d_z: mean / sample standard deviation (ddof=1) of the per-query differences",
        "comparisons": [
            {"system": c.system, "baseline": c.baseline, "flavour": c.label,
             "canonical": report.canonical[report.labels.index(c.label)], "n": c.n,
             "mean_system": _jnum(c.mean_system), "mean_baseline": _jnum(c.mean_baseline),
             "mean_difference": _jnum(c.mean_difference), "ci_low": _jnum(c.ci_low), "ci_high": _jnum(c.ci_high),
             "p_value": _jnum(c.p_value), "p_adjusted": _jnum(c.p_adjusted), "significant": c.significant,
             "direction": c.direction, "wins": c.wins, "ties": c.ties, "losses": c.losses,
             "effect_size": _jnum(c.effect_size)}
            for c in sig.comparisons
        ],
        "pair_tests": [
            {"flavour": t.label, "a": t.a, "b": t.b, **_test_dict(t)} for t in sig.pair_tests
        ],
    }


STATISTICS_COLUMNS = ("system", "baseline", "flavour", "canonical", "n", "mean_system", "mean_baseline",
                      "mean_difference", "ci_low", "ci_high", "p_value", "p_adjusted", "significant",
                      "wins", "ties", "losses", "effect_size", "test", "correction", "alpha")


def statistics_csv(report: Report) -> str:
    """One row per baseline comparison (columns :data:`STATISTICS_COLUMNS`); empty
    cell = undefined."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(STATISTICS_COLUMNS)
    sig = report.significance
    st = sig.settings
    for c in sig.comparisons:
        w.writerow([c.system, c.baseline, c.label, report.canonical[report.labels.index(c.label)], c.n,
                    _num(c.mean_system), _num(c.mean_baseline), _num(c.mean_difference), _num(c.ci_low),
                    _num(c.ci_high), _num(c.p_value), _num(c.p_adjusted), str(c.significant).lower(),
                    c.wins, c.ties, c.losses, _num(c.effect_size), st.test, st.correction, repr(st.alpha)])
    return buf.getvalue()


FLIPS_COLUMNS = ("flavour_a", "flavour_b", "ahead_under_a", "ahead_under_b", "p_under_a", "p_adjusted_under_a",
                 "significant_under_a", "p_under_b", "p_adjusted_under_b", "significant_under_b",
                 "significant_under_either")


def flips_csv(report: Report) -> str:
    """One row per flipped system pair of each flavour pair, with the pair's test under
    both flavours (columns :data:`FLIPS_COLUMNS`)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(FLIPS_COLUMNS)
    for f in report.significance.flips:
        a, b = f.under_first, f.under_second
        w.writerow([f.first, f.second, f.ahead_first, f.ahead_second, _num(a.p_value), _num(a.p_adjusted),
                    str(a.significant).lower(), _num(b.p_value), _num(b.p_adjusted), str(b.significant).lower(),
                    str(f.significant_under_either).lower()])
    return buf.getvalue()


def to_json(report: Report, indent: int | None = 1) -> str:
    """:func:`to_dict` as JSON text (strict JSON: no ``NaN``)."""
    return json.dumps(to_dict(report), indent=indent, ensure_ascii=False, allow_nan=False) + "\n"


@register_renderer("markdown")
def _markdown_files(report: Report) -> dict[str, str]:
    return {"report.md": to_markdown(report)}


@register_renderer("csv")
def _csv_files(report: Report) -> dict[str, str]:
    files = {"means.csv": to_csv(report), "per_query.csv": per_query_csv(report)}
    sig = report.significance
    if sig is not None:
        if sig.baseline is not None:
            files["statistics.csv"] = statistics_csv(report)
        files["flips.csv"] = flips_csv(report)
    return files


@register_renderer("json")
def _json_files(report: Report) -> dict[str, str]:
    return {"report.json": to_json(report)}
