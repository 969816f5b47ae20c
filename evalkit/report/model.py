"""The report of a comparison: a data object that computes, never prints.

A :class:`Report` holds the :class:`~evalkit.results.Results` of several systems
under several flavours, the flavour labels and canonical strings, the config's
metadata, the evalkit version and the optional baseline run. Its views are computed
on demand: the means table (systems x flavours), the per-query long table, the
differences from the baseline and the **flavour agreement** (does the choice of
flavour change the conclusion?). Rendering is a function of the report,
:func:`evalkit.report.render.render` ``(report, fmt)`` over the formats' modules;
writing files is :func:`evalkit.report.write.write_report` ``(report, directory,
formats)`` (the split ranx uses between its ``Report`` data and its output code). Only
the deprecated forwarding methods ``Report.render``/``Report.write`` import them, when
called; neither imports this module (only for type checking).

Later additions (significance tests, more output formats) add views here and
renderers in :data:`evalkit.report.render.RENDERERS` without reshaping this class.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping, Sequence

import numpy as np

from .._version import __version__
from ..errors import ReportError, UnknownNameError
from ..results import Results
from .stats import Significance, StatSettings, compute_significance

#: Means are rounded to this many decimals before systems are ordered, so that two
#: flavours that are mathematically equal but summed in another order (differences
#: of ~1e-16) do not produce spurious order flips.
ORDER_DECIMALS = 12


@dataclass(frozen=True)
class PairAgreement:
    """How two flavours order the systems.

    :param first, second: flavour labels.
    :param tau: Kendall's tau-b between the systems' means under the two flavours
        (``scipy.stats.kendalltau``; Kendall 1945 tau-b corrects for ties); ``NaN``
        when undefined (fewer than two systems, or every system tied under one flavour).
    :param p_value: scipy's two-sided p-value for tau (``NaN`` when undefined).
    :param n_pairs: number of system pairs compared (systems with a mean under both).
    :param flips: system pairs whose order is strictly reversed, each as
        ``(ahead under first, ahead under second)``.
    :param best_first, best_second: the system(s) with the highest mean under each.
    :param verdict: one line summarising the above.
    """

    first: str
    second: str
    tau: float
    p_value: float
    n_pairs: int
    flips: tuple[tuple[str, str], ...]
    best_first: tuple[str, ...]
    best_second: tuple[str, ...]
    verdict: str

    @property
    def same_best(self) -> bool:
        return set(self.best_first) == set(self.best_second)


@dataclass(frozen=True)
class BaselineChange:
    """A system that beats the baseline under some flavours and loses under others."""

    system: str
    better_under: tuple[str, ...]
    worse_under: tuple[str, ...]


@dataclass(frozen=True)
class Agreement:
    """Flavour agreement over all pairs of flavours.

    :param pairs: one :class:`PairAgreement` per unordered pair of flavours, in label order.
    :param best: ``{label: systems with the highest mean}``.
    :param baseline_changes: systems whose win/loss against the baseline depends on the flavour.
    :param changes_conclusion: ``True`` if the best system differs between flavours or
        a system's comparison with the baseline changes sign.
    :param statement: one sentence saying whether the flavour changes the conclusion.
    """

    systems: tuple[str, ...]
    labels: tuple[str, ...]
    pairs: tuple[PairAgreement, ...]
    best: Mapping[str, tuple[str, ...]]
    baseline: str | None
    baseline_changes: tuple[BaselineChange, ...]
    changes_conclusion: bool
    statement: str

    def pair(self, first: str, second: str) -> PairAgreement:
        for p in self.pairs:
            if (p.first, p.second) == (first, second):
                return p
            if (p.first, p.second) == (second, first):
                return PairAgreement(p.second, p.first, p.tau, p.p_value, p.n_pairs,
                                     tuple((b, a) for a, b in p.flips), p.best_second, p.best_first,
                                     p.verdict)
        raise UnknownNameError(f"no flavour pair {first!r}, {second!r} (flavours: {', '.join(self.labels)})")


def _best(column: np.ndarray, systems: Sequence[str]) -> tuple[str, ...]:
    ok = ~np.isnan(column)
    if not ok.any():
        return ()
    top = np.max(column[ok])
    return tuple(s for s, v, good in zip(systems, column, ok) if good and v == top)


def _names(systems: Sequence[str]) -> str:
    return ", ".join(systems) if systems else "none"


def flavour_agreement(
    means: np.ndarray,
    systems: Sequence[str],
    labels: Sequence[str],
    baseline: str | None = None,
) -> Agreement:
    """Compare the system orderings that each flavour induces.

    :param means: ``float64`` ``(s, f)`` mean per system and flavour (``NaN`` = no
        value; such a system is left out of the pairs involving that flavour).
    :param systems: ``s`` system names; :param labels: ``f`` flavour labels.
    :param baseline: optional system name; systems whose comparison with it changes
        sign between flavours are reported.
    :returns: :class:`Agreement`. For each pair of flavours: Kendall's tau-b of the two
        columns (``scipy.stats.kendalltau``, ``variant="b"``) and the system pairs
        ``(i, j)`` with ``(m_a[i] - m_a[j]) * (m_b[i] - m_b[j]) < 0`` (ties are not flips).
        Means are rounded to :data:`ORDER_DECIMALS` decimals first.
    :raises ReportError: shapes of ``means``, ``systems`` and ``labels`` disagree, or
        ``baseline`` is not a system.

    Three systems, two flavours; ``bm25`` and ``dense`` swap places, so of the 3 system
    pairs 2 are concordant and 1 discordant: tau = (2 - 1) / 3.

    >>> ag = flavour_agreement(np.array([[0.52, 0.31], [0.48, 0.35], [0.30, 0.20]]),
    ...                        ["bm25", "dense", "tfidf"], ["ndcg@10", "exp@10"])
    >>> pair = ag.pairs[0]
    >>> round(pair.tau, 4), pair.flips, pair.n_pairs
    (0.3333, (('bm25', 'dense'),), 3)
    >>> ag.best, ag.changes_conclusion
    ({'ndcg@10': ('bm25',), 'exp@10': ('dense',)}, True)
    """
    from scipy.stats import kendalltau

    systems, labels = tuple(systems), tuple(labels)
    m = np.round(np.asarray(means, dtype=np.float64), ORDER_DECIMALS)
    if m.shape != (len(systems), len(labels)):
        raise ReportError(f"means has shape {m.shape}, expected ({len(systems)}, {len(labels)})")
    best = {label: _best(m[:, f], systems) for f, label in enumerate(labels)}
    pairs = []
    for a in range(len(labels)):
        for b in range(a + 1, len(labels)):
            ok = ~np.isnan(m[:, a]) & ~np.isnan(m[:, b])
            idx = np.flatnonzero(ok)
            x, y = m[idx, a], m[idx, b]
            if len(idx) >= 2 and np.ptp(x) > 0 and np.ptp(y) > 0:
                res = kendalltau(x, y, variant="b")
                tau, p = float(res.statistic), float(res.pvalue)
            else:
                tau, p = float("nan"), float("nan")
            dx = np.sign(x[:, None] - x[None, :])
            dy = np.sign(y[:, None] - y[None, :])
            ii, jj = np.nonzero(np.triu(dx * dy < 0, 1))
            flips = tuple(
                (systems[idx[i]], systems[idx[j]]) if dx[i, j] > 0 else (systems[idx[j]], systems[idx[i]])
                for i, j in zip(ii, jj)
            )
            n_pairs = len(idx) * (len(idx) - 1) // 2
            ba, bb = best[labels[a]], best[labels[b]]
            pairs.append(PairAgreement(labels[a], labels[b], tau, p, n_pairs, flips, ba, bb,
                                       _verdict(labels[a], labels[b], tau, flips, n_pairs, ba, bb)))

    changes: list[BaselineChange] = []
    if baseline is not None:
        if baseline not in systems:
            raise ReportError(f"baseline {baseline!r} is not one of the systems ({_names(systems)})")
        base = m[systems.index(baseline)]
        for s, name in enumerate(systems):
            if name == baseline:
                continue
            d = m[s] - base
            better = tuple(l for l, v in zip(labels, d) if v > 0)
            worse = tuple(l for l, v in zip(labels, d) if v < 0)
            if better and worse:
                changes.append(BaselineChange(name, better, worse))

    best_sets = {frozenset(v) for v in best.values()}
    changes_conclusion = len(best_sets) > 1 or bool(changes)
    statement = _statement(systems, labels, best, pairs, baseline, changes)
    return Agreement(systems, labels, tuple(pairs), best, baseline, tuple(changes),
                     changes_conclusion, statement)


def _verdict(a: Any, b: Any, tau: Any, flips: Any, n_pairs: Any, best_a: Any, best_b: Any) -> str:
    if n_pairs == 0:
        return "fewer than two systems have a value under both flavours: nothing to compare"
    tau_text = "τ undefined (all systems tie under one flavour)" if np.isnan(tau) else f"τ = {tau:.3f}"
    if not flips:
        order = "no system pair flips"
    else:
        order = f"{len(flips)} of {n_pairs} system pairs flip"
    if set(best_a) == set(best_b):
        best = f"same best system ({_names(best_a)})"
    else:
        best = f"best system differs: {_names(best_a)} under {a}, {_names(best_b)} under {b}"
    return f"{tau_text}; {order}; {best}"


def _statement(systems: Any, labels: Any, best: Any, pairs: Any, baseline: Any, changes: Any) -> str:
    if len(systems) < 2:
        return "Only one system: there is no ordering for the flavours to disagree on."
    if len(labels) < 2:
        return "Only one flavour: there is nothing to compare it with."
    parts = []
    groups: dict[tuple[str, ...], list[str]] = {}
    for label, b in best.items():
        groups.setdefault(b, []).append(label)
    flipping = [p for p in pairs if p.flips]
    if len(groups) > 1:
        detail = "; ".join(f"{_names(b)} under {', '.join(ls)}" for b, ls in groups.items())
        parts.append(f"The choice of flavour changes the conclusion: the best system is {detail}.")
    elif flipping:
        worst = min(pairs, key=lambda p: (np.inf if np.isnan(p.tau) else p.tau, -len(p.flips)))
        tau = "undefined" if np.isnan(worst.tau) else f"{worst.tau:.3f}"
        parts.append(
            f"The choice of flavour does not change the best system ({_names(next(iter(groups)))} under "
            f"every flavour), but it reorders others: {len(flipping)} of {len(pairs)} flavour pairs flip "
            f"at least one system pair (lowest τ = {tau}, {worst.first} vs {worst.second}, "
            f"{len(worst.flips)} flips)."
        )
    else:
        parts.append(
            f"The choice of flavour does not change the conclusion: every flavour orders the "
            f"{len(systems)} systems the same way (best: {_names(next(iter(groups)))})."
        )
    if baseline is not None:
        if changes:
            detail = "; ".join(
                f"{c.system} (better under {', '.join(c.better_under)}; worse under {', '.join(c.worse_under)})"
                for c in changes
            )
            parts.append(f"Against the baseline {baseline}, the verdict depends on the flavour for: {detail}.")
        else:
            parts.append(f"Every system compares with the baseline {baseline} the same way under every flavour.")
    return " ".join(parts)


@dataclass(frozen=True, eq=False)
class Report:
    """Results of comparing systems under flavours, with computed views.

    :param results: per-query values ``(s, f, q)``; ``results.labels`` are the flavour
        labels, ``results.flavours`` the :class:`~evalkit.flavour.Flavour` values.
    :param baseline: name of the baseline system or ``None``.
    :param metadata: JSON-friendly facts about the inputs (config file, qrels and run
        paths, flavour specs, output settings, title). Keys starting with ``_`` are for
        this process only (the absolute ``_output_dir`` :meth:`write` uses) and are not
        written to the report files.
    :param version: the evalkit version that produced the report.
    :param statistics: :class:`~evalkit.report.stats.StatSettings` (or a mapping of
        them) for the significance tests; ``None`` means the defaults when there is a
        baseline and no tests otherwise (see :attr:`significance`).
    :param baselines: several baselines, each compared with every other system
        (:attr:`Significance.by_baseline`); the first is ``baseline`` (set from it when
        ``baseline`` is ``None``), the one the tables mark and the deltas use.
    :param tie_bounds: ``(low, high)``, each ``float64`` ``(s, f, q)``: every value under
        the worst and the best ordering of tied scores
        (:func:`evalkit.sensitivity.tie_bounds`), or ``None`` (not computed).
    :param judged: :class:`evalkit.sensitivity.JudgedAtK` of the systems, or ``None``.
    :raises ReportError: a baseline is not one of the systems or is repeated, ``baseline``
        is not the first of ``baselines``, or invalid statistics settings.

    Two systems, two queries, two flavours (values ``(s, f, q)``):

    >>> from evalkit import Results, parse_flavour
    >>> flavours = (parse_flavour("ndcg@10"), parse_flavour("ndcg(gain=exp2)@10"))
    >>> values = np.array([[[0.6, 0.4], [0.3, 0.5]],    # bm25 under lin@10, exp@10
    ...                    [[0.7, 0.1], [0.2, 0.2]]])   # dense
    >>> res = Results(np.array(["q1", "q2"], dtype=object), ("bm25", "dense"), flavours,
    ...               ("lin@10", "exp@10"), values)
    >>> report = Report(res, statistics=None)
    >>> report.means.round(4).tolist(), report.system_order(0)
    ([[0.5, 0.4], [0.4, 0.2]], [0, 1])
    >>> from evalkit.report.render import render
    >>> print(render(report, "csv")["means.csv"], end="")
    system,lin@10,exp@10
    bm25,0.5,0.4
    dense,0.39999999999999997,0.2
    >>> report.agreement.changes_conclusion
    False
    """

    results: Results
    baseline: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    version: str = ""
    statistics: Any = None
    baselines: Sequence[str] = ()
    tie_bounds: Any = None
    judged: Any = None
    #: ``(lower, upper)``, each ``float64`` ``(s, f, q)``: the unjudged bounds
    #: (:func:`evalkit.bounds.unjudged_bounds`; :mod:`evalkit.report.unjudged`), or ``None``
    unjudged_bounds: Any = None

    def __post_init__(self) -> None:
        if not self.version:
            object.__setattr__(self, "version", __version__)
        if self.statistics is not None and not isinstance(self.statistics, StatSettings):
            if not isinstance(self.statistics, Mapping):
                raise ReportError(f"statistics must be StatSettings or a mapping of its settings; "
                                  f"got {type(self.statistics).__name__}")
            object.__setattr__(self, "statistics", StatSettings.from_mapping(self.statistics))
        bases = tuple(self.baselines)
        if bases and self.baseline is None:
            object.__setattr__(self, "baseline", bases[0])
        if bases and bases[0] != self.baseline:
            raise ReportError(f"baseline {self.baseline!r} must be the first of the baselines ({', '.join(bases)})")
        if len(set(bases)) != len(bases):
            raise ReportError(f"a baseline is listed twice: {', '.join(bases)}")
        for b in bases[1:]:
            if b not in self.results.systems:
                raise ReportError(f"baseline {b!r} is not one of the systems ({', '.join(self.results.systems)})")
        object.__setattr__(self, "baselines", bases or ((self.baseline,) if self.baseline is not None else ()))
        if self.baseline is not None and self.baseline not in self.results.systems:
            raise ReportError(f"baseline {self.baseline!r} is not one of the systems "
                             f"({', '.join(self.results.systems)})")

    # ----------------------------------------------------------------- basic facts
    @property
    def systems(self) -> tuple[str, ...]:
        return self.results.systems

    @property
    def labels(self) -> tuple[str, ...]:
        return self.results.labels

    @property
    def canonical(self) -> tuple[str, ...]:
        """Canonical flavour strings, one per label."""
        return tuple(str(f) for f in self.results.flavours)

    @property
    def qids(self) -> np.ndarray:
        return self.results.qids

    @property
    def title(self) -> str:
        return self.metadata.get("title") or "evalkit report"

    # ----------------------------------------------------------------- views
    @cached_property
    def tie_spread(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(low, high)`` means, each ``float64`` ``(s, f)``: the mean over the included
        queries of every value under the worst and the best ordering of tied scores
        (``None`` without :attr:`tie_bounds`)."""
        if self.tie_bounds is None:
            return None
        from .unjudged import bound_means  # the same means as the unjudged bounds'

        out = []
        for bound in self.tie_bounds:
            b = np.asarray(bound, dtype=np.float64)
            if b.shape != self.results.values.shape:
                raise ReportError(f"tie_bounds have shape {b.shape}, expected {self.results.values.shape}")
            out.append(bound_means(self.results.values, b))
        return out[0], out[1]

    @cached_property
    def tie_dependent(self) -> np.ndarray | None:
        """``bool`` ``(s, s, f)``: the sign of ``mean(row) - mean(column)`` (over the
        queries both include, as the tests pair them) depends on how tied scores are
        ordered: ``lo <= 0 <= hi`` and ``lo < hi``, with ``lo`` the mean of
        ``low(row) - high(column)`` and ``hi`` of ``high(row) - low(column)`` (rounded
        to :data:`ORDER_DECIMALS`); ``False`` on the diagonal. ``None`` without
        :attr:`tie_bounds`."""
        if self.tie_bounds is None:
            return None
        from .unjudged import paired_dependent  # the same test as for the unjudged bounds

        low, high = (np.asarray(b, dtype=np.float64) for b in self.tie_bounds)
        return paired_dependent(self.results.values, low, high, ORDER_DECIMALS)

    @cached_property
    def unjudged_spread(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(lower, upper)`` means, each ``float64`` ``(s, f)``, over the queries each
        mean includes (``None`` without :attr:`unjudged_bounds`)."""
        if self.unjudged_bounds is None:
            return None
        from .unjudged import bound_means

        values = self.results.values
        for b in self.unjudged_bounds:
            if np.shape(b) != values.shape:
                raise ReportError(f"unjudged_bounds have shape {np.shape(b)}, expected {values.shape}")
        lower, upper = (bound_means(values, np.asarray(b, dtype=np.float64)) for b in self.unjudged_bounds)
        return lower, upper

    @cached_property
    def unjudged_dependent(self) -> np.ndarray | None:
        """``bool`` ``(s, s, f)``: the order of ``mean(row)`` and ``mean(column)`` (over
        the queries both include) could change within the unjudged bounds
        (:func:`evalkit.report.unjudged.paired_dependent`); ``None`` without them."""
        if self.unjudged_spread is None:
            return None
        from .unjudged import paired_dependent

        low, high = (np.asarray(b, dtype=np.float64) for b in self.unjudged_bounds)
        return paired_dependent(self.results.values, low, high, ORDER_DECIMALS)

    @cached_property
    def means(self) -> np.ndarray:
        """Mean over included queries, ``float64`` ``(s, f)``."""
        return self.results.means()

    @cached_property
    def counts(self) -> np.ndarray:
        """Queries included in each mean, ``int64`` ``(s, f)``."""
        return self.results.counts()

    def means_records(self) -> list[dict[str, Any]]:
        """Wide table: one dict per system, ``{"system": name, label: mean, ...}``."""
        return [
            {"system": s, **{l: float(v) for l, v in zip(self.labels, row)}}
            for s, row in zip(self.systems, self.means)
        ]

    def per_query_records(self) -> list[dict[str, Any]]:
        """Long table: ``{"system", "flavour", "canonical", "qid", "value"}`` per included query."""
        return self.results.to_records()

    @cached_property
    def deltas(self) -> np.ndarray | None:
        """``means - means[baseline]``, ``float64`` ``(s, f)``; ``None`` without a baseline."""
        if self.baseline is None:
            return None
        return self.means - self.means[self.systems.index(self.baseline)]

    @cached_property
    def agreement(self) -> Agreement:
        """Flavour agreement of the systems' orderings (see :func:`flavour_agreement`)."""
        return flavour_agreement(self.means, self.systems, self.labels, self.baseline)

    @property
    def changes_conclusion(self) -> bool:
        """The headline's verdict (:attr:`verdict`)."""
        return self.verdict[0]

    @cached_property
    def flip_evidence(self) -> tuple[tuple[object, bool], ...] | None:
        """Each tested flip (:class:`~evalkit.report.stats.FlipSignificance`) with whether
        it is *distinguishable*: significant under both flavours after the correction,
        and under neither flavour does the sign of the difference depend on how tied
        scores are ordered (:attr:`tie_dependent`). ``None`` without significance tests."""
        sig = self.significance
        if sig is None:
            return None
        dep = self.tie_dependent
        out = []
        for f in sig.flips:
            inside = False
            if dep is not None:
                a, b = self.systems.index(f.ahead_first), self.systems.index(f.ahead_second)
                inside = bool(dep[a, b, self.labels.index(f.first)] or dep[a, b, self.labels.index(f.second)])
            out.append((f, bool(f.under_first.significant and f.under_second.significant and not inside)))
        return tuple(out)

    @cached_property
    def verdict(self) -> tuple[bool, str]:
        """``(changes, statement)``: :meth:`_flavour_verdict`, then, with
        :attr:`unjudged_bounds`, a sentence on whether a conclusion depends on the
        unjudged documents (:func:`evalkit.report.unjudged.verdict_sentence`)."""
        changes, text = self._flavour_verdict()
        if self.unjudged_bounds is not None:
            from .unjudged import verdict_sentence

            text = f"{text} {verdict_sentence(self)}"
        return changes, text

    def _flavour_verdict(self) -> tuple[bool, str]:
        """``(changes, statement)``: whether the choice of flavour changes the conclusion,
        in one or two sentences. With significance tests, a flip (two systems ordered
        differently by two flavours) counts only when it is distinguishable
        (:attr:`flip_evidence`); the others are listed as not distinguishable. Without
        tests, :attr:`agreement`'s verdict on the means."""
        ag = self.agreement
        evidence = self.flip_evidence
        if evidence is None or not evidence:
            return ag.changes_conclusion, ag.statement

        def name(f: Any) -> str:
            return f"{f.ahead_first} vs {f.ahead_second} ({f.first} / {f.second})"

        counted = [f for f, ok in evidence if ok]
        other = [f for f, ok in evidence if not ok]
        rule = ("significant under both flavours after the correction and outside the tie spread")
        if counted:
            text = (f"The choice of flavour changes the conclusion: {len(counted)} of {len(evidence)} flipped "
                    f"system pairs are distinguishable ({rule}): {'; '.join(name(f) for f in counted)}.")
        else:
            text = (f"The choice of flavour does not change the conclusion on this evidence: the flavours order "
                    f"{len(evidence)} system pair(s) differently, but no flip is {rule}.")
        if other:
            text += f" Not distinguishable: {'; '.join(name(f) for f in other)}."
        return bool(counted), text

    @property
    def stat_settings(self) -> StatSettings | None:
        """The settings of the significance tests: :attr:`statistics`, or the defaults
        when there is a baseline; ``None`` (no tests) without either."""
        if self.statistics is not None:
            return self.statistics
        return StatSettings() if self.baseline is not None else None

    @cached_property
    def significance(self) -> Significance | None:
        """Significance tests (:func:`evalkit.report.stats.compute_significance`): every
        system against the baseline under every flavour, and both systems of every
        flipped pair against each other under the two flavours; ``None`` when
        :attr:`stat_settings` is ``None``."""
        return self._significance(None)

    def compute_significance(self, progress: Any = None) -> Significance | None:
        """Compute (once) and return :attr:`significance`, reporting progress as
        ``progress("statistics", done, total)``."""
        if "significance" not in self.__dict__:
            self.__dict__["significance"] = self._significance(progress)
        return self.__dict__["significance"]

    def _significance(self, progress: Any) -> Significance | None:
        settings = self.stat_settings
        if settings is None:
            return None
        flips = [(p.first, p.second, p.flips) for p in self.agreement.pairs]
        return compute_significance(self.results, self.baseline, flips, settings, progress,
                                    baselines=self.baselines)

    def system_order(self, by: int | str = 0) -> list[int]:
        """System indices sorted by the mean under flavour ``by`` (descending, ``NaN``
        last, ties in input order)."""
        f = self.results.flavour_index(by)
        col = self.means[:, f]
        key = np.where(np.isnan(col), np.inf, -np.round(col, ORDER_DECIMALS))
        return [int(i) for i in np.argsort(key, kind="stable")]

    # ----------------------------------------------------------------- output
    # Rendering and writing are functions of the report (evalkit.report.render.render,
    # evalkit.report.write.write_report); these two methods only forward to them.
    def render(self, fmt: str) -> dict[str, str]:
        """``{file name: text}`` of output format ``fmt``.

        .. deprecated:: use :func:`evalkit.report.render.render` ``(report, fmt)``.
        """
        import warnings

        from .render import render

        warnings.warn("Report.render(fmt) is deprecated: use evalkit.report.render.render(report, fmt)",
                      DeprecationWarning, stacklevel=2)
        return render(self, fmt)

    def write(self, directory: Any = None, formats: Sequence[str] | None = None) -> list[Any]:
        """Write the report files atomically.

        .. deprecated:: use :func:`evalkit.report.write_report` ``(report, directory, formats)``
           (same defaults: the config's ``output.dir`` and ``output.formats``).
        :raises ReportError: no directory given and none in the config.
        """
        import warnings

        from .write import write_report

        warnings.warn("Report.write() is deprecated: use evalkit.report.write_report(report, directory, formats)",
                      DeprecationWarning, stacklevel=2)
        return write_report(self, directory, formats)
