"""Format-neutral views of a :class:`~evalkit.report.model.Report`: the data a table
shows, computed once and rendered by every format.

The formats (:mod:`.text` for the terminal and Markdown, :mod:`.csv_out`,
:mod:`.json_out`, :mod:`.latex`, :mod:`.html`) only lay these views out and escape
their strings; none of them recomputes the best value of a column, a significance
marker or the agreement matrix:

* :func:`values_view` -- a systems x flavours table of values (means or differences
  from the baseline) in display order, with the best-per-column mask and the
  significance direction of every cell;
* :func:`agreement_matrix` -- Kendall's tau-b below the diagonal, flipped system
  pairs above it;
* :func:`header_facts` -- the facts a report states under its title;
* :func:`comparison_rows`, :func:`flip_counts`, :func:`flip_significant` and the
  legends -- the significance tests as rows of text.

Strings in these views are plain text (run names, labels and titles exactly as the
user wrote them); each format escapes them for its own syntax.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - annotations only (no import cycle with .model)
    from .model import Report
    from .stats import Significance

#: Decimals a tie spread must show to count as one (as the model orders means).
ORDER_DECIMALS_VIEW = 12

#: Significance markers in text: better / worse than the baseline, or nothing.
MARKERS = {1: "▲", -1: "▼", 0: ""}

#: Marks a flipped system pair whose systems differ significantly under either flavour.
FLIP_MARK = "†"

#: Marks a comparison whose difference lies inside the tie spread (its sign depends on
#: how tied scores are ordered; :attr:`Report.tie_dependent`).
TIE_MARK = "‡"

#: The sentence explaining :data:`TIE_MARK`.
TIE_LEGEND = (f"{TIE_MARK}: the difference lies inside the tie spread: under some ordering of the tied scores "
              f"it vanishes or changes sign (this win depends on how ties were broken).")


# ----------------------------------------------------------------------------- numbers and words



def tests_of(report: Report) -> Significance:
    """``report.significance`` where the caller knows the tests were run (a baseline
    with markers, all-pairs matrices, statistics rows).

    :raises ValueError: the report has no significance tests."""
    sig = report.significance
    if sig is None:
        raise ValueError("the report has no significance tests")
    return sig

def fmt_value(v: float | None, digits: int, signed: bool = False) -> str:
    """A value with ``digits`` decimals (``+`` sign when ``signed``); ``"-"`` for ``NaN``/``None``.

    >>> fmt_value(0.123456, 3), fmt_value(0.05, 2, signed=True), fmt_value(float("nan"), 4)
    ('0.123', '+0.05', '-')
    """
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:+.{digits}f}" if signed else f"{v:.{digits}f}"


def p_text(v: float | None) -> str:
    """A p-value with 4 decimals, ``"<0.0001"`` below that, ``"-"`` when undefined.

    >>> p_text(0.01234), p_text(3e-7), p_text(float("nan"))
    ('0.0123', '<0.0001', '-')
    """
    if v is None or math.isnan(v):
        return "-"
    return "<0.0001" if v < 1e-4 else f"{v:.4f}"


def count_phrase(n: int, one: str, many: str | None = None) -> str:
    """``"1 system"``, ``"3 systems"``, ``"2 qrels queries"``.

    >>> count_phrase(1, "system"), count_phrase(3, "system"), count_phrase(2, "query", "queries")
    ('1 system', '3 systems', '2 queries')
    """
    return f"{n} {one if n == 1 else (many or one + 's')}"


def tau_text(tau: float, undefined: str = "n/a") -> str:
    """Kendall's tau with 3 decimals, ``undefined`` for ``NaN``."""
    return undefined if math.isnan(tau) else f"{tau:.3f}"


def best_mask(values: np.ndarray, digits: int) -> np.ndarray:
    """``bool`` ``(s, f)``: the highest value of each column after rounding to the
    printed ``digits`` (ties are all best; an all-``NaN`` column has no best).

    >>> best_mask(np.array([[0.31, np.nan], [0.3099, np.nan], [0.2, np.nan]]), 3).tolist()
    [[True, False], [True, False], [False, False]]
    """
    shown = np.round(np.asarray(values, dtype=np.float64), digits)
    best = np.zeros(shown.shape, dtype=bool)
    for f in range(shown.shape[1]):
        col = shown[:, f]
        if (~np.isnan(col)).any():
            best[:, f] = col == np.nanmax(col)
    return best


# ----------------------------------------------------------------------------- significance


def has_markers(report: Report) -> bool:
    """``True`` when the report has baseline comparisons (and so significance markers)."""
    sig = report.significance
    return sig is not None and bool(sig.comparisons)


def directions(report: Report) -> np.ndarray:
    """``int8`` ``(s, f)``: ``1`` significantly better than the baseline, ``-1``
    significantly worse, ``0`` otherwise, for the baseline itself or without tests."""
    out = np.zeros((len(report.systems), len(report.labels)), dtype=np.int8)
    if not has_markers(report):
        return out
    grid = tests_of(report).grid()
    for i, s in enumerate(report.systems):
        for f, label in enumerate(report.labels):
            c = grid.get((s, label))
            if c is not None and s != report.baseline:
                out[i, f] = c.direction
    return out


def marker(report: Report, system: str, label: str, symbols: dict[int, str] = MARKERS) -> str:
    """The significance marker of ``system`` under ``label``: ``▲`` significantly better
    than the baseline, ``▼`` significantly worse, ``""`` otherwise or without tests."""
    sig = report.significance
    if sig is None or system == report.baseline:
        return ""
    c = sig.comparison(system, label)
    return symbols[c.direction] if c is not None else ""


def significance_legend(report: Report) -> str:
    """One sentence on the markers and the test ('' without baseline tests)."""
    return tests_of(report).legend() if has_markers(report) else ""


def comparison_headers(report: Report) -> list[str]:
    """Column names of :func:`comparison_rows`."""
    sig = report.significance
    level = f"{100 * sig.settings.confidence:g}% CI" if sig is not None else "CI"
    return ["flavour", "system", "Δ mean", level, "p", f"p ({sig.settings.correction})" if sig else "p adj.",
            "sig.", "W/T/L", "d_z", "n", "ties"]


def comparison_rows(report: Report, digits: int = 4, baseline: str | None = None) -> list[list[str]]:
    """Rows ``flavour, system, Δ mean, CI, p, p adjusted, sig., W/T/L, d_z, n`` of every
    comparison with ``baseline`` (default: the first baseline; see
    :attr:`Significance.by_baseline`), flavour by flavour, systems in table order."""
    sig = report.significance
    if sig is None:
        return []
    if baseline is None or baseline == sig.baseline:
        grid = sig.grid()
    else:
        grid = {(c.system, c.label): c for c in sig.by_baseline.get(baseline, ())}
    rows = []
    for label in report.labels:
        for i in report.system_order(0):
            c = grid.get((report.systems[i], label))
            if c is None:
                continue
            ci = "-" if math.isnan(c.ci_low) else f"[{c.ci_low:+.{digits}f}, {c.ci_high:+.{digits}f}]"
            rows.append([label, c.system, fmt_value(c.mean_difference, digits, True), ci, p_text(c.p_value),
                         p_text(c.p_adjusted), MARKERS[c.direction] or ("·" if not c.significant else "="),
                         f"{c.wins}/{c.ties}/{c.losses}", fmt_value(c.effect_size, 2, True), str(c.n),
                         TIE_MARK if tie_dependent(report, c.system, c.baseline, label) else ""])
    return rows


def tie_dependent(report: Report, a: str, b: str, label: str) -> bool:
    """``True`` when the sign of ``a - b`` under ``label`` depends on how tied scores
    are ordered (:attr:`Report.tie_dependent`; ``False`` without tie bounds)."""
    dep = report.tie_dependent
    if dep is None:
        return False
    return bool(dep[report.systems.index(a), report.systems.index(b), report.labels.index(label)])


def has_tie_marks(report: Report) -> bool:
    """Some comparison the report shows (against a baseline, or all pairs) is tie-dependent."""
    dep = report.tie_dependent
    if dep is None or report.significance is None:
        return False
    if report.significance.all_pairs:
        return bool(dep.any())
    cols = [report.systems.index(b) for b in report.significance.baselines]
    return bool(dep[:, cols, :].any())


def tie_spread_rows(report: Report, digits: int = 4) -> list[list[str]]:
    """Per system (table order): name, then per flavour ``"low–high"``, the mean under
    the worst and the best ordering of tied scores (one number when they are equal at
    ``digits``); empty without tie bounds."""
    spread = report.tie_spread
    if spread is None:
        return []
    low, high = spread
    rows = []
    for i in report.system_order(0):
        cells = []
        for lo, hi in zip(low[i], high[i]):
            a, b = fmt_value(float(lo), digits), fmt_value(float(hi), digits)
            cells.append(a if a == b else f"{a}–{b}")
        rows.append([report.systems[i]] + cells)
    return rows


def tie_spread_note(report: Report) -> str:
    """One sentence on the tie spread ('' without tie bounds)."""
    spread = report.tie_spread
    if spread is None:
        return ""
    low, high = spread
    wide = np.round(high - low, ORDER_DECIMALS_VIEW) > 0
    return (f"Tie spread: each system's mean under the worst and the best ordering of tied scores (pessimistic / "
            f"optimistic tie policy); {int(wide.sum())} of {wide.size} system-flavour means depend on the "
            f"order of ties.")


def judged_headers(report: Report) -> list[str]:
    """``["system", "judged@10", ...]`` for :func:`judged_rows`."""
    from ..sensitivity import JudgedAtK

    return ["system"] + [JudgedAtK.label(k) for k in report.judged.cutoffs] if report.judged is not None else []


def judged_rows(report: Report, digits: int = 3) -> list[list[str]]:
    """Per system (table order): name, then its mean judged@k per cutoff (empty
    without judged@k)."""
    j = report.judged
    if j is None:
        return []
    means = j.means()
    index = {s: i for i, s in enumerate(j.systems)}
    return [[report.systems[i]] + [fmt_value(float(v), digits) for v in means[index[report.systems[i]]]]
            for i in report.system_order(0)]


def judged_warnings(report: Report) -> list[str]:
    """One sentence per system whose judged@k is far below the others'
    (:meth:`evalkit.sensitivity.JudgedAtK.low`): the pool-bias warning."""
    j = report.judged
    if j is None:
        return []
    from ..sensitivity import JudgedAtK

    return [f"Warning: {s} has {JudgedAtK.label(k)} {v:.3f}, far below the other systems' median {med:.3f}: "
            f"many of its top documents are unjudged, so flavours that count them as irrelevant may "
            f"underrate it (pool bias)." for s, k, v, med in j.low()]



def wtl_rows(report: Report) -> list[list[str]]:
    """Per non-baseline system (table order): name, then ``wins/ties/losses`` against
    the baseline per flavour (empty without baseline tests)."""
    if not has_markers(report):
        return []
    grid = tests_of(report).grid()
    rows = []
    for i in report.system_order(0):
        s = report.systems[i]
        if s == report.baseline:
            continue
        rows.append([s] + [f"{c.wins}/{c.ties}/{c.losses}" for c in (grid[(s, l)] for l in report.labels)])
    return rows


def flip_counts(report: Report) -> dict[tuple[str, str], int]:
    """``{(flavour A, flavour B): flips significant under either flavour}`` (empty without tests)."""
    sig = report.significance
    if sig is None:
        return {}
    out: dict[tuple[str, str], int] = {}
    for f in sig.flips:
        out[(f.first, f.second)] = out.get((f.first, f.second), 0) + int(f.significant_under_either)
    return out


def flip_significant(report: Report) -> set[tuple[str, str, str, str]]:
    """``(flavour A, flavour B, ahead under A, ahead under B)`` of every flip whose
    systems differ significantly under either flavour."""
    sig = report.significance
    if sig is None:
        return set()
    return {(f.first, f.second, f.ahead_first, f.ahead_second) for f in sig.flips if f.significant_under_either}


def flip_legend(report: Report) -> str:
    """One paragraph on the :data:`FLIP_MARK` ('' without flip tests)."""
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


def other_baselines(report: Report) -> tuple[str, ...]:
    """The baselines after the first (each compared with every other system;
    :attr:`Significance.by_baseline`); ``()`` without tests or with one baseline."""
    sig = report.significance
    if sig is None:
        return ()
    return tuple(b for b in sig.by_baseline if b != sig.baseline)


def baseline_rows(report: Report, baseline: str, digits: int = 4) -> list[list[str]]:
    """Per system other than ``baseline`` (table order): name, then per flavour the
    mean difference from ``baseline`` (signed, ``digits`` decimals) followed by its
    :data:`MARKERS` (significance against that baseline)."""
    sig = report.significance
    comps = {(c.system, c.label): c for c in sig.by_baseline.get(baseline, ())} if sig is not None else {}
    rows = []
    for i in report.system_order(0):
        s = report.systems[i]
        if s == baseline:
            continue
        cells = []
        for label in report.labels:
            c = comps.get((s, label))
            cells.append("-" if c is None else fmt_value(c.mean_difference, digits, True) + MARKERS[c.direction]
                         + (TIE_MARK if tie_dependent(report, s, baseline, label) else ""))
        rows.append([s] + cells)
    return rows


@dataclass(frozen=True)
class PairMatrixView:
    """One flavour's all-pairs tests (:class:`~evalkit.report.stats.PairMatrix`) in
    display order, as text.

    :param label: the flavour label; :param systems: the ``s`` systems in table order;
    :param cells: ``s x s`` text ``"+0.0123▲"``: mean of row minus column over the paired
        queries, ``▲`` / ``▼`` when the row system is significantly better / worse after
        the correction, :data:`TIE_MARK` when the difference lies inside the tie spread;
        ``None`` on the diagonal;
    :param p_cells: ``s x s`` corrected p-values (:func:`p_text`), ``None`` on the diagonal;
    :param n_significant: significantly different unordered pairs; :param n_pairs: pairs tested.
    """

    label: str
    systems: tuple[str, ...]
    cells: tuple[tuple[str | None, ...], ...]
    p_cells: tuple[tuple[str | None, ...], ...]
    n_significant: int
    n_pairs: int


def pair_matrix_views(report: Report, digits: int = 4) -> list[PairMatrixView]:
    """One :class:`PairMatrixView` per flavour with all-pairs tests (empty without
    ``statistics.all_pairs``)."""
    sig = report.significance
    if sig is None or not sig.all_pairs:
        return []
    out = []
    for label in report.labels:
        m = sig.all_pairs.get(label)
        if m is None:
            continue
        order = [m.systems.index(report.systems[i]) for i in report.system_order(0)]
        diff = m.mean_difference[np.ix_(order, order)]
        padj = m.p_adjusted[np.ix_(order, order)]
        signif = m.significant[np.ix_(order, order)]
        n = len(order)
        dep = report.tie_dependent
        if dep is not None:
            idx = [report.systems.index(x) for x in (m.systems[k] for k in order)]
            dep = dep[np.ix_(idx, idx, [report.labels.index(label)])][:, :, 0]
        cells = tuple(
            tuple(None if i == j else fmt_value(float(diff[i, j]), digits, True)
                  + (MARKERS[int(np.sign(diff[i, j]))] if signif[i, j] else "")
                  + (TIE_MARK if dep is not None and dep[i, j] else "") for j in range(n))
            for i in range(n))
        p_cells = tuple(tuple(None if i == j else p_text(float(padj[i, j])) for j in range(n)) for i in range(n))
        iu = np.triu_indices(n, 1)
        out.append(PairMatrixView(label, tuple(m.systems[k] for k in order), cells, p_cells,
                                  int(signif[iu].sum()), len(iu[0])))
    return out


# ----------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class ValuesRow:
    """One system's row of a :class:`ValuesView`.

    :param system: the run name as given (not escaped); :param baseline: it is the baseline;
    :param values: ``float64`` ``(f,)``; :param best: ``bool`` ``(f,)`` best of its column;
    :param directions: ``int8`` ``(f,)`` significance direction (see :func:`directions`).
    """

    system: str
    baseline: bool
    values: np.ndarray
    best: np.ndarray
    directions: np.ndarray


@dataclass(frozen=True)
class ValuesView:
    """A systems x flavours table in display order (best system under the first flavour
    first). ``marked``: the report has significance markers."""

    labels: tuple[str, ...]
    rows: tuple[ValuesRow, ...]
    marked: bool


def values_view(report: Report, values: np.ndarray, digits: int, bold_best: bool = True) -> ValuesView:
    """The view of ``values`` (``float64`` ``(s, f)``: :attr:`Report.means` or
    :attr:`Report.deltas`) printed with ``digits`` decimals; the best mask is
    :func:`best_mask` (all ``False`` unless ``bold_best``)."""
    best = best_mask(values, digits) if bold_best else np.zeros(np.shape(values), dtype=bool)
    dirs = directions(report)
    rows = tuple(ValuesRow(report.systems[i], report.systems[i] == report.baseline, values[i], best[i], dirs[i])
                 for i in report.system_order(0))
    return ValuesView(tuple(report.labels), rows, has_markers(report))


@dataclass(frozen=True)
class AgreementMatrix:
    """The flavour agreement as a square matrix over the flavours.

    :param labels: the ``n`` flavour labels;
    :param tau: ``float64`` ``(n, n)`` Kendall's tau-b of every flavour pair (symmetric,
        ``1`` on the diagonal, ``NaN`` when undefined);
    :param flips: ``int64`` ``(n, n)`` number of flipped system pairs (symmetric, ``0``
        on the diagonal);
    :param n_pairs: the most system pairs any flavour pair compares.
    """

    labels: tuple[str, ...]
    tau: np.ndarray
    flips: np.ndarray
    n_pairs: int

    @property
    def numbers(self) -> tuple[str, ...]:
        """Column headings ``[1] ... [n]`` (columns are numbered like the rows, to stay narrow)."""
        return tuple(f"[{i + 1}]" for i in range(len(self.labels)))

    @property
    def cells(self) -> tuple[tuple[str | None, ...], ...]:
        """``n x n`` text: tau (3 decimals, ``"n/a"`` when undefined) below the diagonal,
        the number of flips above it, ``None`` on the diagonal (each format prints its
        own dash)."""
        n = len(self.labels)
        return tuple(
            tuple(None if i == j else tau_text(self.tau[i, j]) if i > j else str(int(self.flips[i, j]))
                  for j in range(n))
            for i in range(n)
        )


def agreement_matrix(report: Report) -> AgreementMatrix | None:
    """The :class:`AgreementMatrix` of the report; ``None`` with fewer than two flavours
    or systems (nothing to compare)."""
    ag = report.agreement
    n = len(ag.labels)
    if n < 2 or len(ag.systems) < 2:
        return None
    tau = np.eye(n)
    flips = np.zeros((n, n), dtype=np.int64)
    for p in ag.pairs:
        i, j = ag.labels.index(p.first), ag.labels.index(p.second)
        tau[i, j] = tau[j, i] = p.tau
        flips[i, j] = flips[j, i] = len(p.flips)
    return AgreementMatrix(tuple(ag.labels), tau, flips, max(p.n_pairs for p in ag.pairs))


def best_per_flavour(report: Report) -> list[tuple[str, tuple[str, ...], float]]:
    """``(label, best systems, their mean)`` per flavour, in label order (the best
    systems are :attr:`Agreement.best`, those with the highest mean; ``()`` and ``NaN``
    when no system has a value)."""
    out = []
    for f, label in enumerate(report.labels):
        best = tuple(report.agreement.best.get(label, ()))
        mean = float(report.means[report.systems.index(best[0]), f]) if best else float("nan")
        out.append((label, best, mean))
    return out


def agreement_summary(report: Report) -> list[str]:
    """The flavour-agreement verdict in short sentences, for a terminal: the same
    conclusion as :attr:`Agreement.statement` without its lists of flavours (the best
    system per flavour is :func:`best_per_flavour`; the report files give the lists).

    Plain text, one sentence (or two) per item."""
    ag = report.agreement
    if len(report.systems) < 2 or len(report.labels) < 2:
        return [ag.statement]
    distinct = {frozenset(b) for b in ag.best.values()}
    out = []
    if report.flip_evidence:  # tested flips: only distinguishable ones count (Report.verdict)
        out.append(report.verdict[1])
    elif len(distinct) > 1:
        out.append(f"The choice of flavour changes the conclusion: {len(distinct)} different best systems "
                   f"under the {len(report.labels)} flavours (table above).")
    else:
        flipping = [p for p in ag.pairs if p.flips]
        best = ", ".join(sorted(next(iter(distinct)))) or "none"
        if flipping:
            out.append(f"The choice of flavour does not change the best system ({best} under every flavour), "
                       f"but it reorders others: {len(flipping)} of {len(ag.pairs)} flavour pairs flip at least "
                       f"one system pair.")
        else:
            out.append(f"The choice of flavour does not change the conclusion: every flavour orders the "
                       f"{len(report.systems)} systems the same way (best: {best}).")
    if report.baseline is not None:
        changes = ag.baseline_changes
        if changes:
            out.append(f"Against the baseline {report.baseline}, the verdict depends on the flavour for "
                       f"{count_phrase(len(changes), 'system')}: {', '.join(c.system for c in changes)} "
                       f"(the flavours of each are in the report files).")
        else:
            out.append(f"Every system compares with the baseline {report.baseline} the same way under every "
                       f"flavour.")
    return out


# ----------------------------------------------------------------------------- header


@dataclass(frozen=True)
class Fact:
    """One fact under a report's title: ``text`` alone, or ``text`` followed by a
    user-supplied ``value`` shown in ``style`` (``"code"``, ``"strong"`` or ``""``)."""

    text: str
    value: str | None = None
    style: str = ""


def header_facts(report: Report) -> list[Fact]:
    """The facts every format states under the title: evalkit version, config, qrels,
    the numbers of systems, qrels queries and flavours, the baseline."""
    md = report.metadata
    facts = [Fact("evalkit", str(report.version))]
    if md.get("config"):
        facts.append(Fact("config", str(md["config"]), "code"))
    if md.get("qrels"):
        facts.append(Fact("qrels", str(md["qrels"]), "code"))
    facts.append(Fact(f"{count_phrase(len(report.systems), 'system')}, "
                      f"{count_phrase(len(report.qids), 'qrels query', 'qrels queries')}, "
                      f"{count_phrase(len(report.labels), 'flavour')}"))
    if report.baseline is not None:
        facts.append(Fact("baseline", report.baseline, "strong"))
    return facts

