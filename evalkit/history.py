"""The history of a config in the results store: each flavour's mean per label, the
significant changes between consecutive labels, and an HTML page with the trend plot.

Labels are ordered by the time of their latest invocation (a label evaluated again
moves to the end); each label's values are those of its latest invocation. For every
system and flavour (matched by label; the canonical flavour string is shown), the
change between two consecutive labels is tested on the queries both include with a
paired t-test (``scipy.stats.ttest_rel``; or ``wilcoxon``,
``scipy.stats.wilcoxon``, zero differences dropped), and the p-values of one flavour
corrected together (Holm by default, :func:`evalkit.report.stats.adjust_pvalues`). A
change is significant when its corrected p-value is at most ``alpha``.

A mean is the mean over the included queries, with the flavour's ``round_mean``
convention applied when the flavour can be parsed (:meth:`evalkit.Results.means`).
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass

import numpy as np

from .report.escape import html_escape, mpl_text
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from .registry import Registry


@dataclass(frozen=True)
class Change:
    """A change of ``system`` under ``flavour`` from label ``before`` to ``after``:
    the means, the mean paired difference over ``n`` queries, the p-value and its
    corrected value."""

    flavour: str
    system: str
    before: str
    after: str
    mean_before: float
    mean_after: float
    difference: float
    n: int
    p: float
    p_adjusted: float


@dataclass(frozen=True)
class History:
    """Means of a config's systems per label.

    :param config: the config's name; :param labels: ``l`` labels, oldest first;
    :param times: the time of each label's latest invocation; :param systems: ``s``
        names; :param flavours: ``f`` labels; :param canonical: ``f`` canonical strings;
    :param means: ``float64`` ``(l, s, f)``, ``NaN`` where a label has no such value;
    :param changes: every tested change (:attr:`significant` keeps those at most ``alpha``).
    """

    config: str
    labels: tuple[str, ...]
    times: tuple[str, ...]
    systems: tuple[str, ...]
    flavours: tuple[str, ...]
    canonical: tuple[str, ...]
    means: np.ndarray
    changes: tuple[Change, ...]
    alpha: float
    test: str
    correction: str

    @property
    def significant(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if not math.isnan(c.p_adjusted) and c.p_adjusted <= self.alpha)


def _mean(values: np.ndarray, canonical: str, registry: Registry | None) -> float:
    from .results import Results

    # a Flavour, or the string of a plugin flavour whose plugin is absent: Results.means()
    # does not read the flavours
    flavour: Any = canonical
    try:
        from .flavour import parse_flavour

        flavour = parse_flavour(canonical, registry)
    except Exception:  # noqa: BLE001 - a plugin flavour without its plugin: the plain mean
        pass
    res = Results(np.array(["q"] * values.shape[-1], dtype=object), ("s",), (flavour,), ("f",),
                  values.reshape(1, 1, -1))
    return float(res.means()[0, 0])


def _p(d: np.ndarray, test: str) -> float:
    import scipy.stats

    if d.size < 2:
        return math.nan
    if test == "wilcoxon":
        nz = d[d != 0]
        return math.nan if nz.size == 0 else float(scipy.stats.wilcoxon(nz).pvalue)
    if np.ptp(d) == 0:
        return math.nan if d[0] == 0 else 0.0
    return float(scipy.stats.ttest_rel(d, np.zeros_like(d)).pvalue)


def history(store: Any, config: str | None = None, *, alpha: float = 0.05, test: str = "t",
            correction: str = "holm", registry: Registry | None = None) -> History:
    """The :class:`History` of ``config`` (default: the only config in ``store``).

    :raises StoreError: ``config`` has no invocation in the store, or ``config`` is
        ``None`` and the store holds several (the message lists them).
    """
    from .report.stats import adjust_pvalues
    from .store import StoreError

    names = store.configs()
    if config is None:
        if len(names) != 1:
            raise StoreError(f"results store {store.path}: " + (
                "no evaluation recorded yet" if not names else
                f"holds the history of several configs ({', '.join(names)}): name one"))
        config = names[0]
    invs = store.latest_per_label(config)
    if not invs:
        raise StoreError(f"results store {store.path}: no evaluation of config {config!r} recorded "
                         f"(configs: {', '.join(names) or 'none'})")
    systems: dict[str, None] = {}
    flavours: dict[str, str] = {}
    per_label = []
    for inv in invs:
        rows = [r for r in store.results(inv.id) if r[3] == "value"]
        for system, flavour, canonical, _kind, _eid in rows:
            systems.setdefault(system)
            flavours.setdefault(flavour, canonical)
        ids = sorted({r[4] for r in rows})
        qids = store.qids(ids)
        vals = store.values(ids, qids)
        row = {eid: i for i, eid in enumerate(ids)}
        per_label.append({(r[0], r[1]): (qids, vals[row[r[4]]]) for r in rows})
    sys_t, fl_t = tuple(systems), tuple(flavours)
    means = np.full((len(invs), len(sys_t), len(fl_t)), np.nan)
    for li, data in enumerate(per_label):
        for (system, flavour), (_q, v) in data.items():
            means[li, sys_t.index(system), fl_t.index(flavour)] = _mean(v, flavours[flavour], registry)
    changes = []
    for fi, flavour in enumerate(fl_t):
        found = []
        for li in range(1, len(invs)):
            for system in sys_t:
                a, b = per_label[li - 1].get((system, flavour)), per_label[li].get((system, flavour))
                if a is None or b is None:
                    continue
                _common, ia, ib = np.intersect1d(a[0].astype(str), b[0].astype(str), return_indices=True)
                x, y = a[1][ia], b[1][ib]
                ok = ~np.isnan(x) & ~np.isnan(y)
                d = y[ok] - x[ok]
                found.append((system, li, d))
        if not found:
            continue
        ps = np.array([_p(d, test) for _s, _l, d in found])
        adj = adjust_pvalues(ps, correction)
        for (system, li, d), p, pa in zip(found, ps, adj):
            si = sys_t.index(system)
            changes.append(Change(flavour, system, invs[li - 1].label, invs[li].label, float(means[li - 1, si, fi]),
                                  float(means[li, si, fi]), float(d.mean()) if d.size else math.nan, int(d.size),
                                  float(p), float(pa)))
    return History(config, tuple(i.label for i in invs), tuple(i.time for i in invs), sys_t, fl_t,
                   tuple(flavours[f] for f in fl_t), means, tuple(changes), alpha, test, correction)


# ----------------------------------------------------------------------------- output


def _labels(h: History) -> str:
    return f"{len(h.labels)} label" + ("" if len(h.labels) == 1 else "s")


def text(h: History, digits: int = 4) -> str:
    """The terminal form: one table per flavour (labels x systems), then the
    significant changes."""
    from tabulate import tabulate

    from .report.escape import text_escape

    out = [text_escape(f"History of {h.config}: {_labels(h)}, oldest first")]
    for f, flavour in enumerate(h.flavours):
        rows = [[text_escape(label)] + [("" if math.isnan(v) else f"{v:.{digits}f}") for v in h.means[i, :, f]]
                for i, label in enumerate(h.labels)]
        out += ["", text_escape(f"{flavour}  ({h.canonical[f]})"),
                tabulate(rows, headers=["label"] + [text_escape(s) for s in h.systems], disable_numparse=True)]
    sig = h.significant
    out += ["", f"Significant changes between consecutive labels (paired {h.test} test, {h.correction} "
                f"correction per flavour, alpha {h.alpha:g}): " + (str(len(sig)) if sig else "none")]
    for c in sig:
        out.append(text_escape(f"  {c.flavour}, {c.system}: {c.before} -> {c.after}: {c.mean_before:.{digits}f} -> "
                               f"{c.mean_after:.{digits}f} (mean paired difference {c.difference:+.{digits}f}, "
                               f"n = {c.n}, p = {c.p:.3g}, adjusted {c.p_adjusted:.3g})"))
    return "\n".join(out)


def trend_plot(h: History, f: int) -> bytes | None:
    """PNG of flavour ``f``'s mean per label, one line per system (``None`` without
    matplotlib). Drawn as :mod:`evalkit.report.plots` draws (object API, Agg, no
    timestamp); every user string through :func:`~evalkit.report.escape.mpl_text`."""
    from .report.plots import _colors, _figure, _png, matplotlib_available

    if not matplotlib_available():
        return None
    fig = _figure(max(5.0, 0.9 * len(h.labels) + 2), 3.6)
    ax = fig.add_subplot()
    x = np.arange(len(h.labels))
    for s, (system, color) in enumerate(zip(h.systems, _colors(len(h.systems)))):
        y = h.means[:, s, f]
        if np.isnan(y).all():
            continue
        ax.plot(x, y, marker="o", color=color, label=mpl_text(system))
    ax.set_xticks(x, [mpl_text(label) for label in h.labels], rotation=30, ha="right")
    ax.set_ylabel(mpl_text(h.flavours[f]))
    ax.set_title(mpl_text(f"{h.flavours[f]} per label"))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return _png(fig)


def html_page(h: History, digits: int = 4) -> str:
    """A self-contained HTML page: per flavour the trend plot (PNG, base64) and the
    means table; the significant changes. Every user string is HTML-escaped."""
    e = html_escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{e('evalkit history: ' + h.config)}</title>",
           "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}th:first-child,td:first-child"
           "{text-align:left}code{font-size:90%}</style></head><body>",
           f"<h1>{e('History of ' + h.config)}</h1>",
           f"<p>{_labels(h)}, oldest first (by the time of their latest evaluation).</p>"]
    for f, flavour in enumerate(h.flavours):
        out.append(f"<h2>{e(flavour)}</h2><p><code>{e(h.canonical[f])}</code></p>")
        png = trend_plot(h, f)
        if png is not None:
            out.append(f'<img alt="{e("trend of " + flavour)}" src="data:image/png;base64,'
                       f'{base64.b64encode(png).decode("ascii")}">')
        out.append("<table><tr><th>label</th>" + "".join(f"<th>{e(s)}</th>" for s in h.systems) + "</tr>")
        for i, label in enumerate(h.labels):
            cells = "".join(f"<td>{'' if math.isnan(v) else f'{v:.{digits}f}'}</td>" for v in h.means[i, :, f])
            out.append(f"<tr><td>{e(label)}</td>{cells}</tr>")
        out.append("</table>")
    sig = h.significant
    out.append(f"<h2>Significant changes</h2><p>Paired {e(h.test)} test between consecutive labels, "
               f"{e(h.correction)} correction per flavour, alpha {h.alpha:g}.</p>")
    if sig:
        out.append("<table><tr><th>flavour</th><th>system</th><th>from</th><th>to</th><th>means</th>"
                   "<th>difference</th><th>n</th><th>p (adjusted)</th></tr>")
        for c in sig:
            out.append(f"<tr><td>{e(c.flavour)}</td><td>{e(c.system)}</td><td>{e(c.before)}</td><td>{e(c.after)}</td>"
                       f"<td>{c.mean_before:.{digits}f} &rarr; {c.mean_after:.{digits}f}</td>"
                       f"<td>{c.difference:+.{digits}f}</td><td>{c.n}</td><td>{c.p_adjusted:.3g}</td></tr>")
        out.append("</table>")
    else:
        out.append("<p>None.</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
