"""The unjudged bounds in a report (issue 30): views and one renderer per format.

A :class:`~evalkit.report.Report` built with ``unjudged_bounds=(lower, upper)``
(per-query values, each ``float64`` ``(s, f, q)``, from
:func:`evalkit.bounds.unjudged_bounds`: every unjudged retrieved document at the
lowest / the highest grade) shows, in every format, each mean with its interval
``[lower, upper]`` (the mean of the per-query bounds over the queries the mean
includes), the comparisons and flipped system pairs whose order could change within
those bounds (marked :data:`UNJUDGED_MARK`), and a sentence in the verdict
(:func:`verdict_sentence`) when a conclusion depends on the unjudged documents.

A comparison ``a`` vs ``b`` under a flavour *could change* when, over the queries
both include (as the tests pair them), the mean of ``lower(a) - upper(b)`` is at most 0
and the mean of ``upper(a) - lower(b)`` at least 0, with the two apart
(:attr:`Report.unjudged_dependent`, the tie spread's rule on other bounds): each
system's bound is taken alone, so the mark is conservative.

Everything is additive: :func:`csv_files` and :func:`json_section` here, and
``unjudged_text_lines`` / ``unjudged_markdown_lines`` (:mod:`.text`),
``unjudged_table`` (:mod:`.latex`) and ``unjudged_section`` (:mod:`.html`), each
empty without the bounds.
"""

from __future__ import annotations

import csv
import io
import math
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - annotations only (no import cycle with .model)
    from .model import Report

#: Marks a comparison or a flipped pair whose order could change within the unjudged bounds.
UNJUDGED_MARK = "§"

#: The sentence explaining :data:`UNJUDGED_MARK`.
UNJUDGED_LEGEND = (f"{UNJUDGED_MARK}: the order could change with the grades of the documents nobody judged "
                   "(within the unjudged bounds: each system's unjudged retrieved documents at the lowest / the "
                   "highest grade).")


def paired_dependent(values: np.ndarray, low: np.ndarray, high: np.ndarray, decimals: int) -> np.ndarray:
    """``bool`` ``(s, s, f)``: the sign of ``mean(row) - mean(column)`` over the queries
    both include can change within per-query bounds ``low`` / ``high`` (``float64``
    ``(s, f, q)`` each, like ``values``): ``lo <= 0 <= hi`` and ``lo < hi`` with ``lo``
    the mean of ``low(row) - high(column)``, ``hi`` of ``high(row) - low(column)``
    (rounded to ``decimals``); ``False`` on the diagonal."""
    ok = ~np.isnan(values) & ~np.isnan(low) & ~np.isnan(high)  # (s, f, q)
    m = ok.astype(np.float64).transpose(1, 0, 2)                 # (f, s, q)
    lo0 = np.where(ok, low, 0.0).transpose(1, 0, 2)
    hi0 = np.where(ok, high, 0.0).transpose(1, 0, 2)
    n = m @ m.transpose(0, 2, 1)                                # (f, s, s) paired queries
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = (lo0 @ m.transpose(0, 2, 1) - m @ hi0.transpose(0, 2, 1)) / n
        hi = (hi0 @ m.transpose(0, 2, 1) - m @ lo0.transpose(0, 2, 1)) / n
    lo, hi = np.round(lo, decimals), np.round(hi, decimals)
    dep = (n > 0) & (lo <= 0) & (hi >= 0) & (lo < hi)
    dep[:, np.arange(dep.shape[1]), np.arange(dep.shape[1])] = False
    return dep.transpose(1, 2, 0)


def bound_means(values: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """Mean of ``bound`` (``(s, f, q)``) over the queries ``values`` includes (not
    ``NaN``): ``float64`` ``(s, f)``, ``NaN`` where none is included or a bound of an
    included query is ``NaN``."""
    included = ~np.isnan(values)
    n = included.sum(axis=2)
    b = np.where(included, bound, 0.0)
    out = np.full(n.shape, np.nan)
    np.divide(b.sum(axis=2), n, out=out, where=(n > 0) & ~np.isnan(b).any(axis=2))
    return out


def dependent(report: Report, a: str, b: str, label: str) -> bool:
    """``a`` vs ``b`` under ``label`` could change order within the unjudged bounds
    (``False`` without them)."""
    dep = report.unjudged_dependent
    if dep is None:
        return False
    return bool(dep[report.systems.index(a), report.systems.index(b), report.labels.index(label)])


def marked_comparisons(report: Report) -> list[tuple[str, str, str]]:
    """The comparisons the report shows whose order could change: ``(flavour, ahead,
    behind)`` by mean. With significance tests, each tested comparison (against the
    baselines, or every pair); without, every pair of systems under every flavour."""
    dep = report.unjudged_dependent
    if dep is None:
        return []
    means = report.means
    pairs: list[tuple[int, int]]
    sig = report.significance
    s = len(report.systems)
    if sig is not None and not sig.all_pairs and sig.baselines:
        cols = [report.systems.index(b) for b in sig.baselines]
        pairs = [(i, j) for j in cols for i in range(s) if i != j]
    else:
        pairs = [(i, j) for i in range(s) for j in range(i + 1, s)]
    out = []
    seen = set()
    for f, label in enumerate(report.labels):
        for i, j in pairs:
            if not dep[i, j, f] or (f, min(i, j), max(i, j)) in seen:
                continue
            seen.add((f, min(i, j), max(i, j)))
            a, b = (i, j) if not means[j, f] > means[i, f] else (j, i)
            out.append((label, report.systems[a], report.systems[b]))
    return out


def marked_flips(report: Report) -> list[tuple[str, str, str, str]]:
    """The flipped system pairs of the flavour agreement (``a`` ahead under ``first``,
    ``b`` under ``second``) whose order could change within the unjudged bounds under
    either flavour: ``(first, second, a, b)``."""
    if report.unjudged_dependent is None:
        return []
    return [(p.first, p.second, a, b) for p in report.agreement.pairs for a, b in p.flips
            if dependent(report, a, b, p.first) or dependent(report, a, b, p.second)]


def flip_mark(report: Report, first: str, second: str, a: str, b: str) -> str:
    """:data:`UNJUDGED_MARK` for a flipped pair that could change, else ``""``."""
    return UNJUDGED_MARK if (dependent(report, a, b, first) or dependent(report, a, b, second)) else ""


def comparison_mark(report: Report, a: str, b: str, label: str) -> str:
    """:data:`UNJUDGED_MARK` for a comparison that could change, else ``""``."""
    return UNJUDGED_MARK if dependent(report, a, b, label) else ""


def interval_rows(report: Report, digits: int = 4) -> list[list[str]]:
    """Per system (table order): name, then per flavour ``"mean [lower, upper]"``."""
    spread = report.unjudged_spread
    if spread is None:
        return []
    low, high = spread
    means = report.means
    rows = []
    for i in report.system_order(0):
        cells = [f"{_num(means[i, f], digits)} [{_num(low[i, f], digits)}, {_num(high[i, f], digits)}]"
                 for f in range(len(report.labels))]
        rows.append([report.systems[i]] + cells)
    return rows


def _num(v: float, digits: int) -> str:
    return "-" if math.isnan(v) else f"{v:.{digits}f}"


def note(report: Report) -> str:
    """One sentence on the bounds ('' without them)."""
    spread = report.unjudged_spread
    if spread is None:
        return ""
    low, high = spread
    wide = int((np.round(high - low, 12) > 0).sum())
    return (f"Unjudged bounds: each mean with [lower, upper], the means with every unjudged retrieved document at "
            f"the lowest and at the highest grade (the ideal DCG recomputed with them, as each flavour defines "
            f"it); {wide} of {low.size} system-flavour means depend on documents nobody judged; "
            f"{len(marked_comparisons(report))} comparisons and {len(marked_flips(report))} flipped system pairs "
            f"could change order ({UNJUDGED_MARK}).")


def verdict_sentence(report: Report) -> str:
    """The verdict's sentence on the unjudged documents ('' without the bounds)."""
    if report.unjudged_dependent is None:
        return ""
    comps, flips = marked_comparisons(report), marked_flips(report)
    if not comps and not flips:
        return ("No comparison depends on the unjudged documents: every order of means holds within the "
                "unjudged bounds.")
    parts = []
    if comps:
        parts.append(f"{len(comps)} comparison(s) ({'; '.join(f'{a} > {b} under {l}' for l, a, b in comps[:3])}"
                     f"{'; ...' if len(comps) > 3 else ''})")
    if flips:
        parts.append(f"{len(flips)} flipped system pair(s)")
    return (f"The conclusion depends on unjudged documents: {' and '.join(parts)} could change order within the "
            f"unjudged bounds ({UNJUDGED_MARK}).")


# ----------------------------------------------------------------------------- formats
def csv_files(report: Report) -> dict[str, str]:
    """``unjudged_bounds.csv`` (system, flavour, mean, lower, upper) and
    ``unjudged_marks.csv`` (kind ``comparison`` / ``flip``, flavour, other flavour,
    ahead, behind: the orders that could change); ``{}`` without the bounds."""
    spread = report.unjudged_spread
    if spread is None:
        return {}
    from .escape import csv_cell

    low, high = spread
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["system", "flavour", "mean", "lower", "upper"])
    for i, system in enumerate(report.systems):
        for f, label in enumerate(report.labels):
            w.writerow([csv_cell(system), csv_cell(label)] + [
                "" if math.isnan(v) else repr(float(v)) for v in (report.means[i, f], low[i, f], high[i, f])])
    marks = io.StringIO()
    m = csv.writer(marks, lineterminator="\n")
    m.writerow(["kind", "flavour", "other_flavour", "ahead", "behind"])
    for label, a, b in marked_comparisons(report):
        m.writerow(["comparison", csv_cell(label), "", csv_cell(a), csv_cell(b)])
    for first, second, a, b in marked_flips(report):
        m.writerow(["flip", csv_cell(first), csv_cell(second), csv_cell(a), csv_cell(b)])
    return {"unjudged_bounds.csv": buf.getvalue(), "unjudged_marks.csv": marks.getvalue()}


def json_section(report: Report) -> dict[str, Any] | None:
    """``{"note", "means": {system: {flavour: {mean, lower, upper}}}, "comparisons":
    [{flavour, ahead, behind}], "flips": [{first, second, ahead_first, ahead_second}],
    "verdict"}`` (``None`` without the bounds; ``null`` for NaN)."""
    spread = report.unjudged_spread
    if spread is None:
        return None
    low, high = spread

    def num(v: float) -> float | None:
        return None if math.isnan(v) else float(v)

    return {
        "note": note(report),
        "means": {s: {l: {"mean": num(report.means[i, f]), "lower": num(low[i, f]), "upper": num(high[i, f])}
                      for f, l in enumerate(report.labels)} for i, s in enumerate(report.systems)},
        "comparisons": [{"flavour": l, "ahead": a, "behind": b} for l, a, b in marked_comparisons(report)],
        "flips": [{"first": f, "second": s, "ahead_first": a, "ahead_second": b}
                  for f, s, a, b in marked_flips(report)],
        "verdict": verdict_sentence(report),
    }
