"""JSON output: ``report.json``, every number of the report as strict JSON.

``NaN`` is written as ``null``; strings are escaped by :mod:`json` (non-ASCII kept
as UTF-8). :func:`to_dict` gives the same data as Python objects.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from .unjudged import json_section
from .views import tie_dependent

if TYPE_CHECKING:  # pragma: no cover
    from .model import Report


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
        "metadata": {k: v for k, v in report.metadata.items() if not str(k).startswith("_")},
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
            "statement": report.verdict[1],
            "changes_conclusion": report.verdict[0],
            "changes_conclusion_by_means": ag.changes_conclusion,
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
        "tie_spread": None if report.tie_spread is None else {
            s: {l: {"pessimistic": _jnum(report.tie_spread[0][i, f]), "optimistic": _jnum(report.tie_spread[1][i, f])}
                for f, l in enumerate(report.labels)}
            for i, s in enumerate(report.systems)
        },
        "judged_at_k": _judged_dict(report),
        "unjudged_bounds": json_section(report),
    }
    sig = report.significance
    if sig is not None:
        by_pair: dict[tuple[str, str], list] = {}
        for f in sig.flips:
            by_pair.setdefault((f.first, f.second), []).append(_flip_dict(f))
        for p in data["agreement"]["pairs"]:
            p["flip_tests"] = by_pair.get((p["first"], p["second"]), [])
    return data


def _test_dict(t: Any) -> dict[str, Any]:
    return {"n": t.n, "mean_difference": _jnum(t.mean_difference), "p_value": _jnum(t.p_value),
            "p_adjusted": _jnum(t.p_adjusted), "significant": t.significant}


def _flip_dict(f: Any) -> dict[str, Any]:
    return {"ahead_under_first": f.ahead_first, "ahead_under_second": f.ahead_second,
            "under_first": _test_dict(f.under_first), "under_second": _test_dict(f.under_second),
            "significant_under_either": f.significant_under_either}


def _judged_dict(report: Report) -> dict[str, Any] | None:
    j = report.judged
    if j is None:
        return None
    from ..sensitivity import JudgedAtK

    labels = [JudgedAtK.label(k) for k in j.cutoffs]
    means = j.means()
    return {
        "definition": "fraction of the top k documents (score descending, docno ascending) that have a judgment, "
                      "over min(k, documents retrieved) (ir_measures Judged@k)",
        "cutoffs": list(j.cutoffs),
        "mean": {s: {l: _jnum(v) for l, v in zip(labels, means[i])} for i, s in enumerate(j.systems)},
        "per_query": {s: {l: {str(q): float(v) for q, v in zip(j.qids, j.values[i, c]) if not math.isnan(v)}
                          for c, l in enumerate(labels)}
                      for i, s in enumerate(j.systems)},
        "low": [{"system": s, "cutoff": k, "mean": v, "others_median": med} for s, k, v, med in j.low()],
    }


def _comparison_dict(report: Report, c: Any) -> dict[str, Any]:
    return {"system": c.system, "baseline": c.baseline, "flavour": c.label,
            "canonical": report.canonical[report.labels.index(c.label)], "n": c.n,
            "mean_system": _jnum(c.mean_system), "mean_baseline": _jnum(c.mean_baseline),
            "mean_difference": _jnum(c.mean_difference), "ci_low": _jnum(c.ci_low), "ci_high": _jnum(c.ci_high),
            "p_value": _jnum(c.p_value), "p_adjusted": _jnum(c.p_adjusted), "significant": c.significant,
            "direction": c.direction, "wins": c.wins, "ties": c.ties, "losses": c.losses,
            "effect_size": _jnum(c.effect_size), "tie_dependent": tie_dependent(report, c.system, c.baseline, c.label)}


def statistics_dict(report: Report) -> dict[str, Any] | None:
    """The significance tests as JSON-ready data (``None`` without tests): settings
    (test, alpha, correction, family, seed, n_resamples, ci_method, confidence), library
    versions, one record per baseline comparison (``comparisons``: the first baseline;
    ``by_baseline``: every baseline), per flipped-pair test and, with
    ``all_pairs``, per system pair and flavour (``all_pairs``: ``{label: records}``,
    ``mean_difference`` = ``a`` minus ``b``)."""
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
        "comparisons": [_comparison_dict(report, c) for c in sig.comparisons],
        "baselines": list(sig.baselines),
        "by_baseline": {b: [_comparison_dict(report, c) for c in comps] for b, comps in sig.by_baseline.items()},
        "all_pairs": {label: [{**{k: (_jnum(v) if isinstance(v, float) else v) for k, v in r.items()},
                               "tie_dependent": tie_dependent(report, r["a"], r["b"], label)}
                              for r in m.records()]
                      for label, m in sig.all_pairs.items()},
        "pair_tests": [
            {"flavour": t.label, "a": t.a, "b": t.b, **_test_dict(t)} for t in sig.pair_tests
        ],
    }


def to_json(report: Report, indent: int | None = 1) -> str:
    """:func:`to_dict` as JSON text (strict JSON: no ``NaN``)."""
    return json.dumps(to_dict(report), indent=indent, ensure_ascii=False, allow_nan=False) + "\n"


def json_files(report: Report) -> dict[str, str]:
    """The ``json`` format: ``{"report.json": ...}``."""
    return {"report.json": to_json(report)}
