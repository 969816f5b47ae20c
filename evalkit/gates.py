"""Quality gates of a config (``gates:``): pass/fail checks on a report, for CI.

A gate names a flavour (a label of the config such as ``trec@10``, or a flavour name,
which means each of its cutoffs) and exactly one check; each check is applied to every
system it names (``systems:``; default every run but the baseline), under each of its
flavours, and gives one verdict. With ``x`` the system's per-query values and ``y`` the
reference's, over the queries both include (paired, as the report's tests), and
``d = x - y``:

* ``min_mean: V`` -- the system's mean (:attr:`Report.means`) is at least ``V``;
* ``max_drop: M`` -- ``mean(y) - mean(x) = -mean(d) <= M``;
* ``non_inferiority: {margin: M, alpha: A, test: t|wilcoxon}`` -- a one-sided paired test
  rejects inferiority by more than the margin: H0 ``mean(d) <= -M`` against H1
  ``mean(d) > -M``, i.e. ``scipy.stats.ttest_1samp(d + M, 0, alternative="greater")``
  (or ``scipy.stats.wilcoxon(d + M, alternative="greater")``, zero differences dropped)
  gives ``p < A`` (defaults ``A = 0.05``, ``t``); the non-inferiority test of Wellek,
  "Testing Statistical Hypotheses of Equivalence and Noninferiority" (2nd ed., 2010), ch. 2;
* ``max_worse_queries: {count: N, by: D}`` -- at most ``N`` queries with ``d < -D``.

The reference (``against:``) is the config's baseline run (default), another run of the
config, or ``last``: the same system and flavour (by canonical flavour string) in the
latest invocation of the same config under another label in the results store
(:mod:`evalkit.store`); a gate with no earlier label to compare with is skipped.

**Ties.** A gate does not fail on a difference that lies inside the tie spread: when
the check fails on the values as scored but holds under the most favourable ordering
of tied scores -- the system's optimistic values and the reference's pessimistic ones
(:func:`evalkit.sensitivity.tie_bounds`; the report's tie-spread rule,
:attr:`evalkit.report.Report.tie_dependent`, applied to the gate's threshold) -- the
verdict is *pass, inside the tie spread*; ``fail_inside_tie_spread: true`` makes the
gate fail then. Without tie bounds (``report.sensitivity: false``) verdicts use the
values as scored. Differences are compared with a tolerance of :data:`EPS` (floating
point noise is not a drop).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

#: Absolute tolerance of every comparison with a threshold.
EPS = 1e-12
#: Kinds of check (the config's keys).
KINDS = ("min_mean", "max_drop", "non_inferiority", "max_worse_queries")
#: Queries named at most in one verdict line (the JUnit file and the summary list all).
SHOWN_QUERIES = 10


@dataclass(frozen=True)
class Gate:
    """One gate of a config.

    :param kind: one of :data:`KINDS`; :param params: its settings (``value`` for
        ``min_mean``, ``margin`` for ``max_drop``; ``margin``, ``alpha``, ``test``;
        ``count``, ``by``); :param flavours: flavour labels; :param systems: run names;
    :param against: ``None`` (``min_mean``), a run name, or ``"last"``;
    :param strict: ``fail_inside_tie_spread``; :param name: shown name;
    :param key: where it is in the config (``gates[0]``).
    """

    kind: str
    params: Mapping[str, Any]
    flavours: tuple[str, ...]
    systems: tuple[str, ...]
    against: str | None
    strict: bool = False
    name: str = ""
    key: str = ""

    def describe(self) -> str:
        """The check and its threshold, as the config gives them."""
        p = self.params
        if self.kind == "min_mean":
            return f"min_mean {_num(p['value'])}"
        if self.kind == "max_drop":
            return f"max_drop {_num(p['margin'])}"
        if self.kind == "non_inferiority":
            return f"non_inferiority margin {_num(p['margin'])} (one-sided paired {p['test']} test, alpha {p['alpha']:g})"
        return f"max_worse_queries {p['count']} by more than {_num(p['by'])}"


@dataclass(frozen=True)
class Verdict:
    """The outcome of one gate for one system under one flavour.

    :param status: ``"pass"``, ``"fail"`` or ``"skip"`` (nothing to compare with);
    :param inside_ties: failed as scored, passed under the most favourable ordering of
        tied scores (``status`` then ``"pass"``, or ``"fail"`` for a strict gate);
    :param reference: what the system was compared with (``"baseline bm25"``,
        ``"label v1.2"``), ``None`` for ``min_mean``;
    :param message: the numbers, one line; :param queries: ``(qid, d)`` of the queries
        that are worse than the threshold, worst first; :param numbers: the numbers.
    """

    gate: Gate
    system: str
    flavour: str
    status: str
    message: str
    reference: str | None = None
    inside_ties: bool = False
    queries: tuple[tuple[str, float], ...] = ()
    numbers: Mapping[str, Any] = field(default_factory=dict)

    @property
    def title(self) -> str:
        """``NAME: FLAVOUR, SYSTEM [vs REFERENCE]``."""
        return (f"{self.gate.name}: {self.flavour}, {self.system}"
                + (f" vs {self.reference}" if self.reference else ""))

    def line(self) -> str:
        """``PASS|FAIL|SKIP <title>: <check>: <numbers>`` (one line, user strings as given)."""
        return f"{self.status.upper()} {self.title}: {self.gate.describe()}: {self.message}"


@dataclass(frozen=True)
class GateReport:
    """Every verdict of a config's gates; :attr:`passed` when none failed."""

    config: str
    label: str | None
    verdicts: tuple[Verdict, ...]

    @property
    def passed(self) -> bool:
        return all(v.status != "fail" for v in self.verdicts)

    @property
    def failures(self) -> tuple[Verdict, ...]:
        return tuple(v for v in self.verdicts if v.status == "fail")

    def counts(self) -> dict[str, int]:
        out = {"pass": 0, "fail": 0, "skip": 0}
        for v in self.verdicts:
            out[v.status] += 1
        return out


def _num(v: float) -> str:
    return f"{v:.4f}" if isinstance(v, float) and not float(v).is_integer() else f"{v:g}"


# ----------------------------------------------------------------------------- config


def parse_gates(data: Sequence[Mapping[str, Any]], runs: Sequence[str], flavours: Any, baseline: str | None,
                loc: Any) -> tuple[Gate, ...]:
    """The ``gates:`` list of a config (already checked against the JSON schema) as
    :class:`Gate` values.

    :param runs: the config's run names; :param flavours: its
        :class:`~evalkit.runner.config.FlavourEntry` values; :param baseline: its baseline;
    :param loc: the config's locator (errors name the file, line and key).
    :raises ConfigError: an unknown flavour or system, ``against`` naming no run, or a
        comparison without a baseline.
    """
    labels = [f.label for f in flavours]
    out = []
    for i, g in enumerate(data):
        key = ["gates", i]
        kind = next(k for k in KINDS if k in g)
        spec = g[kind]
        if kind == "min_mean":
            params: dict[str, Any] = {"value": float(spec)}
        elif kind == "max_drop":
            params = {"margin": float(spec)}
        elif kind == "non_inferiority":
            params = {"margin": float(spec["margin"]), "alpha": float(spec.get("alpha", 0.05)),
                      "test": spec.get("test", "t")}
        else:
            params = {"count": int(spec["count"]), "by": float(spec.get("by", 0.0))}
        name = g["flavour"]
        chosen = tuple(f.label for f in flavours if f.label == name) or \
            tuple(f.label for f in flavours if f.name == name)
        if not chosen:
            raise loc.error(key + ["flavour"], f"no flavour labelled or named {name!r} "
                                               f"(labels: {', '.join(labels)})", value=True)
        against = None
        if kind != "min_mean":
            against = g.get("against", "baseline")
            if against == "baseline":
                if baseline is None:
                    raise loc.error(key, f"{kind} compares with the baseline, and the config has none: "
                                         "add baseline: RUN, or against: last (the previous label in the store) "
                                         "or against: RUN")
                against = baseline
            elif against != "last" and against not in runs:
                raise loc.error(key + ["against"], f"against {against!r} is neither baseline, last nor a run "
                                                   f"(runs: {', '.join(runs)})", value=True)
        given = g.get("systems")
        if given is None:
            systems = tuple(r for r in runs if against == "last" or r != (against or baseline))
            if not systems:
                systems = tuple(runs)
        else:
            systems = (given,) if isinstance(given, str) else tuple(given)
            for j, s in enumerate(systems):
                if s not in runs:
                    where = key + ["systems"] + ([] if isinstance(given, str) else [j])
                    raise loc.error(where, f"system {s!r} is not one of the runs ({', '.join(runs)})", value=True)
        out.append(Gate(kind, params, chosen, systems, against, bool(g.get("fail_inside_tie_spread", False)),
                        g.get("name") or f"gates[{i}]", f"gates[{i}]"))
    return tuple(out)


# ----------------------------------------------------------------------------- checks


def _p_noninferior(d: np.ndarray, margin: float, test: str) -> float:
    """One-sided p-value of H0 ``mean(d) <= -margin`` (``test``: ``t`` or ``wilcoxon``)."""
    import scipy.stats

    shifted = d + margin
    if shifted.size == 0:
        return math.nan
    if test == "wilcoxon":
        nz = shifted[np.abs(shifted) > EPS]
        if nz.size == 0:
            return 1.0
        return float(scipy.stats.wilcoxon(nz, alternative="greater").pvalue)
    if shifted.size < 2 or np.ptp(shifted) <= EPS:  # no variance: the sign decides
        return 0.0 if shifted.mean() > EPS else 1.0
    return float(scipy.stats.ttest_1samp(shifted, 0.0, alternative="greater").pvalue)


def _compare(gate: Gate, d: np.ndarray) -> tuple[bool, dict[str, Any]]:
    """Whether ``gate`` holds for the paired differences ``d`` (no NaN), and its numbers."""
    p = gate.params
    if gate.kind == "max_drop":
        drop = -float(d.mean()) + 0.0 if d.size else math.nan  # + 0.0: no "-0.0000"
        return (d.size > 0 and drop <= p["margin"] + EPS), {"drop": drop, "n": int(d.size)}
    if gate.kind == "non_inferiority":
        pv = _p_noninferior(d, p["margin"], p["test"])
        return (not math.isnan(pv) and pv < p["alpha"]), {"mean_difference": float(d.mean()) if d.size else math.nan,
                                                           "p": pv, "n": int(d.size)}
    worse = int((d < -p["by"] - EPS).sum())
    return worse <= p["count"], {"worse": worse, "n": int(d.size)}


def _limit(gate: Gate) -> float:
    """The per-query difference below which a query is named as worse."""
    p = gate.params
    return -(p["by"] if gate.kind == "max_worse_queries" else p["margin"])


def _message(gate: Gate, ok: bool, nums: Mapping[str, Any], ref_mean: float, sys_mean: float) -> str:
    p = gate.params
    if gate.kind == "max_drop":
        return (f"mean {sys_mean:.4f} against {ref_mean:.4f}: drop {nums['drop']:.4f} "
                f"{'<=' if ok else '>'} margin {p['margin']:.4f} over {nums['n']} queries")
    if gate.kind == "non_inferiority":
        return (f"mean difference {nums['mean_difference']:+.4f}, margin {p['margin']:.4f}: one-sided paired "
                f"{p['test']} test p = {nums['p']:.4g} {'<' if ok else '>='} alpha {p['alpha']:g} over "
                f"{nums['n']} queries ({'non-inferior' if ok else 'non-inferiority not shown'})")
    return (f"{nums['worse']} of {nums['n']} queries worse by more than {p['by']:.4f} "
            f"({'within' if ok else 'more than'} the {p['count']} allowed)")


def _worst(qids: np.ndarray, d: np.ndarray, limit: float) -> tuple[tuple[str, float], ...]:
    bad = np.flatnonzero(d < limit - EPS)
    bad = bad[np.argsort(d[bad], kind="stable")]
    return tuple((str(qids[i]), float(d[i])) for i in bad)


def _with_queries(message: str, gate: Gate, queries: Any) -> str:
    if not queries:
        return message
    what = "worse by more than" if gate.kind == "max_worse_queries" else "dropping more than the margin"
    shown = ", ".join(f"{q} ({d:+.4f})" for q, d in queries[:SHOWN_QUERIES])
    more = f" and {len(queries) - SHOWN_QUERIES} more" if len(queries) > SHOWN_QUERIES else ""
    return f"{message}; queries {what} {-_limit(gate):.4f}: {shown}{more}"


def _tie_note(strict: bool) -> str:
    return ("; fails as scored but holds under the most favourable ordering of tied scores (inside the tie spread)"
            + ("; fail_inside_tie_spread: true, so it fails" if strict else ", so it passes"))


@dataclass
class _Series:
    """A system's per-query values under one flavour, with tie bounds (or ``None``)."""

    qids: np.ndarray
    value: np.ndarray
    low: np.ndarray | None
    high: np.ndarray | None


def _paired(x: _Series, y: _Series) -> Any:
    """``(qids, d, d_favourable or None)`` over the queries both include."""
    common, ix, iy = np.intersect1d(np.asarray(x.qids, dtype=str), np.asarray(y.qids, dtype=str),
                                    return_indices=True)
    xv, yv = x.value[ix], y.value[iy]
    ok = ~np.isnan(xv) & ~np.isnan(yv)
    d = (xv - yv)[ok]
    fav = None
    if x.high is not None and y.low is not None:
        f = (x.high[ix] - y.low[iy])[ok]
        if not np.isnan(f).any():
            fav = f
    return common[ok], d, fav


def check_gate(gate: Gate, system: str, flavour: str, series: _Series, reference: _Series | None,
               reference_name: str | None, means: tuple[float, float | None], skip: str | None = None) -> Verdict:
    """The verdict of ``gate`` for one system under one flavour (see the module
    docstring). ``means``: the system's mean and its optimistic tie-spread mean (``None``
    without tie bounds), for ``min_mean``."""
    if gate.kind == "min_mean":
        mean, best = means
        value = gate.params["value"]
        ok = not math.isnan(mean) and mean >= value - EPS
        msg = f"mean {mean:.4f} {'>=' if ok else '<'} {value:.4f}"
        inside = not ok and best is not None and not math.isnan(best) and best >= value - EPS
        if inside:
            msg += f" (optimistic tie ordering: {best:.4f})" + _tie_note(gate.strict)
        status = "pass" if ok or (inside and not gate.strict) else "fail"
        return Verdict(gate, system, flavour, status, msg, None, inside, (), {"mean": mean, "optimistic": best})
    if reference is None:
        return Verdict(gate, system, flavour, "skip", skip or "no earlier label of this config in the results "
                       "store: nothing to compare with", reference_name)
    qids, d, fav = _paired(series, reference)
    if d.size == 0:
        return Verdict(gate, system, flavour, "fail", "no query has a value in both: nothing can be compared",
                       reference_name)
    ok, nums = _compare(gate, d)
    inside = False
    if not ok and fav is not None:
        inside, fav_nums = _compare(gate, fav)
        nums = {**nums, "favourable": fav_nums}
    both = np.intersect1d(np.asarray(series.qids, dtype=str), np.asarray(reference.qids, dtype=str),
                          return_indices=True)
    xv, yv = series.value[both[1]], reference.value[both[2]]
    keep = ~np.isnan(xv) & ~np.isnan(yv)
    sys_mean, ref_mean = float(xv[keep].mean()), float(yv[keep].mean())
    queries = _worst(qids, d, _limit(gate))
    msg = _with_queries(_message(gate, ok, nums, ref_mean, sys_mean), gate, queries)
    if inside:
        msg += _tie_note(gate.strict)
    status = "pass" if ok or (inside and not gate.strict) else "fail"
    return Verdict(gate, system, flavour, status, msg, reference_name, inside, queries, nums)


def _report_series(report: Any, system: str, label: str) -> _Series:
    s, f = report.systems.index(system), report.labels.index(label)
    low = high = None
    if report.tie_bounds is not None:
        low, high = (np.asarray(b, dtype=np.float64)[s, f] for b in report.tie_bounds)
    return _Series(np.asarray(report.qids, dtype=object), report.results.values[s, f], low, high)


def _last_series(store: Any, config: str, label: str | None, current: int | None) -> Any:
    """``(label, {(system, canonical): _Series})`` of the latest invocation of
    ``config`` under a label other than ``label`` (and not ``current``), or ``None``."""
    earlier = [inv for inv in store.latest_per_label(config) if inv.label != label and inv.id != current]
    if not earlier:
        return None
    inv = earlier[-1]
    rows = store.results(inv.id)
    ids = sorted({r[4] for r in rows})
    qids = store.qids(ids)
    values = store.values(ids, qids)
    row_of = {eid: i for i, eid in enumerate(ids)}
    by: dict[tuple[str, str], dict[str, np.ndarray]] = {}
    for system, _flavour, canonical, kind, eid in rows:
        by.setdefault((system, canonical), {})[kind] = values[row_of[eid]]
    out = {k: _Series(qids, v["value"], v.get("low"), v.get("high")) for k, v in by.items() if "value" in v}
    return inv.label, out


def check_gates(report: Any, gates: Sequence[Gate], *, store: Any = None, config: str = "", label: str | None = None,
                invocation: int | None = None, no_store: bool = False) -> GateReport:
    """Every verdict of ``gates`` on ``report`` (:class:`~evalkit.report.Report`).

    :param store: the open :class:`~evalkit.store.ResultsStore`, needed by gates
        ``against: last`` (without it they are skipped); :param config: the config's
        name in the store; :param label: the current label; :param invocation: the
        current invocation's id (both left out of ``last``); :param no_store: the
        evaluation used no store (``--no-store``): gates ``against: last`` say so when skipped.
    """
    last = None
    if store is not None and any(g.against == "last" for g in gates):
        last = _last_series(store, config, label, invocation)
    spread = report.tie_spread
    verdicts = []
    for gate in gates:
        for label_ in gate.flavours:
            f = report.labels.index(label_)
            canonical = report.canonical[f]
            for system in gate.systems:
                s = report.systems.index(system)
                series = _report_series(report, system, label_)
                ref = ref_name = skip = None
                if gate.against == "last":
                    if last is not None:
                        ref_name = f"label {last[0]}"
                        ref = last[1].get((system, canonical))
                        skip = f"label {last[0]} has no value of this system under this flavour"
                    else:
                        ref_name = "the previous label"
                        if no_store:
                            skip = "no results store (--no-store or store: false): no earlier label to compare with"
                elif gate.against is not None:
                    ref, ref_name = _report_series(report, gate.against, label_), f"baseline {gate.against}"
                    if gate.against != report.baseline:
                        ref_name = f"run {gate.against}"
                best = None if spread is None else float(spread[1][s, f])
                verdicts.append(check_gate(gate, system, label_, series, ref, ref_name,
                                           (float(report.means[s, f]), best), skip))
    return GateReport(config, label, tuple(verdicts))
