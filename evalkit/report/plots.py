"""Plots of a report as PNG bytes (matplotlib, an optional dependency: ``pip install 'evalkit-ndcg[report]'``).

Figures are drawn with matplotlib's object API (:class:`matplotlib.figure.Figure`
and the Agg canvas): no ``pyplot``, no global state, no display needed. PNGs are
written without a timestamp or software tag, so the same report gives the same bytes.

* :func:`cutoff_curves` -- mean per system over the cutoffs k of each flavour
  family (flavours equal up to the cutoff), one panel per family;
* :func:`difference_boxplot` -- distribution of the per-query differences from
  the baseline under one flavour, one box per system;
* :func:`agreement_heatmap` -- Kendall's tau-b between every pair of flavours.
"""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np

from .escape import mpl_text
from .views import agreement_matrix

if TYPE_CHECKING:  # pragma: no cover - annotations only (no import cycle with .model)
    from .model import Report


def matplotlib_available() -> bool:
    """``True`` if matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def _png(fig: Any) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def _colors(n: int) -> list:
    from matplotlib import colormaps

    cmap = colormaps["tab20" if n > 10 else "tab10"]
    return [cmap(i % cmap.N) for i in range(n)]


def cutoff_families(report: Report) -> list[tuple[str, list[int], list[int]]]:
    """Flavours grouped by everything but the cutoff.

    :returns: ``(name, cutoffs, flavour indices)`` per family that has at least one
        cutoff, cutoffs ascending; ``name`` is the common label prefix before ``@`` (or
        the canonical form without cutoff when labels differ).
    """
    groups: dict[str, list[tuple[int, int]]] = {}  # (cutoff, flavour index)
    for f, fl in enumerate(report.results.flavours):
        if fl.k is not None:
            groups.setdefault(str(fl.with_cutoff(None)), []).append((fl.k, f))
    out = []
    for canon, members in groups.items():
        members = sorted(members)  # by cutoff; equal cutoffs keep the flavours' order
        idx = [f for _, f in members]
        prefixes = {report.labels[f].rsplit("@", 1)[0] for f in idx}
        name = prefixes.pop() if len(prefixes) == 1 else canon
        out.append((name, [k for k, _ in members], idx))
    return out


def cutoff_curves(report: Report) -> bytes | None:
    """Mean per system against the cutoff k, one panel per flavour family (``None``
    when no flavour has a cutoff). The baseline is drawn in black; with a single
    cutoff per family the panel shows points."""
    families = cutoff_families(report)
    if not families:
        return None
    n = len(families)
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig = _figure(3.6 * cols + 1.8, 2.8 * rows + 0.3)
    axes = fig.subplots(rows, cols, squeeze=False, sharey=True)
    colors = _colors(len(report.systems))
    order = report.system_order(0)
    handles = {}
    for ax, (name, ks, idx) in zip(axes.flat, families):
        for i in order:
            s = report.systems[i]
            base = s == report.baseline
            (line,) = ax.plot(ks, report.means[i, idx], marker="o", markersize=3,
                              color="black" if base else colors[i], linewidth=2.2 if base else 1.1,
                              linestyle="--" if base else "-", zorder=3 if base else 2)
            handles[s] = line
        ax.set_title(mpl_text(name), fontsize=10)
        ax.set_xlabel("cutoff k", fontsize=9)
        if len(ks) > 1 and ks[-1] / ks[0] >= 10:
            ax.set_xscale("log")
        ax.set_xticks(ks, [str(k) for k in ks])
        ax.minorticks_off()
        ax.grid(True, alpha=0.3)
        ax.tick_params(labelsize=8)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel("mean", fontsize=9)
    labels = [mpl_text(report.systems[i]) + (" (baseline)" if report.systems[i] == report.baseline else "") for i in order]
    fig.legend([handles[report.systems[i]] for i in order], labels, loc="outside right center", fontsize=7,
               frameon=False)
    return _png(fig)


def difference_boxplot(report: Report, label: str | int) -> bytes | None:
    """Box plot of the per-query differences ``system - baseline`` under flavour
    ``label`` (queries both include), one box per non-baseline system, sorted by the
    mean difference (drawn as a white diamond); ``None`` without a baseline."""
    if report.baseline is None:
        return None
    f = report.results.flavour_index(label)
    values = report.results.values[:, f, :]
    b = values[report.systems.index(report.baseline)]
    data, names = [], []
    for i, s in enumerate(report.systems):
        if s == report.baseline:
            continue
        ok = ~np.isnan(values[i]) & ~np.isnan(b)
        data.append(values[i][ok] - b[ok])
        names.append(s)
    if not data:
        return None
    means = [d.mean() if d.size else np.nan for d in data]
    order = np.argsort(np.where(np.isnan(means), np.inf, -np.asarray(means)), kind="stable")
    data = [data[j] for j in order]
    names = [names[j] for j in order]
    sig = report.significance
    colors = []
    for s in names:
        c = sig.comparison(s, report.labels[f]) if sig is not None else None
        d = c.direction if c is not None else 0
        colors.append({1: "#4c9a2a", -1: "#c0392b", 0: "#9aa5b1"}[d])
    fig = _figure(max(6.0, 0.42 * len(names) + 2.0), 3.4)
    ax = fig.add_subplot()
    box = ax.boxplot(data, patch_artist=True, showmeans=True, widths=0.6,
                     meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": "black",
                                "markersize": 4},
                     flierprops={"marker": ".", "markersize": 3, "alpha": 0.5},
                     medianprops={"color": "black"})
    for patch, color in zip(box["boxes"], colors):
        patch.set_facecolor(color)
        patch.set_alpha(0.8)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(1, len(names) + 1), [mpl_text(s) for s in names], rotation=45, ha="right", fontsize=8)
    ax.set_ylabel(f"{mpl_text(report.labels[f])} − {mpl_text(report.baseline)}", fontsize=9)
    ax.set_title(f"Per-query differences from the baseline {mpl_text(report.baseline)} under "
                 f"{mpl_text(report.labels[f])}",
                 fontsize=10)
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    return _png(fig)


def agreement_heatmap(report: Report) -> bytes | None:
    """Heatmap of Kendall's tau-b between the system orderings of every pair of
    flavours (diagonal 1), values written in the cells; ``None`` with fewer than two
    flavours or systems."""
    m = agreement_matrix(report)
    if m is None:
        return None
    n, tau = len(m.labels), m.tau
    size = max(4.0, 0.5 * n + 2.2)
    fig = _figure(size + 0.8, size)
    ax = fig.add_subplot()
    lo = min(0.0, float(np.nanmin(tau))) if not np.isnan(tau).all() else -1.0
    im = ax.imshow(np.ma.masked_invalid(tau), cmap="viridis", vmin=lo, vmax=1.0)
    ax.set_xticks(range(n), [mpl_text(l) for l in m.labels], rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(n), [mpl_text(l) for l in m.labels], fontsize=8)
    for i in range(n):
        for j in range(n):
            v = tau[i, j]
            text = "n/a" if np.isnan(v) else f"{v:.2f}"
            shade = 0.0 if np.isnan(v) else (v - lo) / (1.0 - lo if lo < 1 else 1.0)
            ax.text(j, i, text, ha="center", va="center", fontsize=7 if n > 8 else 8,
                    color="black" if shade > 0.6 else "white")
    ax.set_title("Kendall's τ-b between flavours' system orderings", fontsize=10)
    fig.colorbar(im, ax=ax, shrink=0.8, label="τ-b")
    return _png(fig)


class ReportFigures(TypedDict):
    """The figures of the HTML report (PNG bytes): see :func:`report_figures`."""

    curves: bytes | None
    differences: list[tuple[str, bytes]]
    heatmap: bytes | None


def report_figures(report: Report) -> ReportFigures:
    """Every figure of the HTML report: ``{"curves": png, "differences": [(label, png), ...],
    "heatmap": png}`` (entries ``None`` / empty when not applicable).

    :raises ImportError: matplotlib is not installed.
    """
    import matplotlib  # noqa: F401  (raise ImportError early)

    diffs: list[tuple[str, bytes | None]] = []
    if report.baseline is not None:
        diffs = [(label, difference_boxplot(report, label)) for label in report.labels]
    return {"curves": cutoff_curves(report), "differences": [(label, png) for label, png in diffs if png is not None],
            "heatmap": agreement_heatmap(report)}
