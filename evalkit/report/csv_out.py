"""CSV output: ``means.csv``, ``per_query.csv`` and, with significance tests,
``statistics.csv`` (every baseline's comparisons), ``flips.csv`` and, with
``statistics.all_pairs``, ``all_pairs.csv``; with tie bounds ``tie_spread.csv``, with
judged@k ``judged_at_k.csv`` (the runner computes both).

Numbers are written at full precision (``repr`` of the float); an empty cell means
no value. Every user string (run names, flavour labels, qids) goes through
:func:`.escape.csv_cell`, so no cell starts a spreadsheet formula; quoting is
:mod:`csv`'s.
"""

from __future__ import annotations

import csv
import io
import math
from typing import Any, TYPE_CHECKING

from .escape import csv_cell
from .unjudged import csv_files as unjudged_csv_files
from .views import tie_dependent
from .views import tests_of

if TYPE_CHECKING:  # pragma: no cover
    from .model import Report


def _num(v: float) -> str:
    return "" if math.isnan(v) else repr(float(v))


class _Writer:
    """:func:`csv.writer` with ``\n`` line ends that also quotes a field holding a
    carriage return (Python < 3.12 quotes only the characters of the line terminator):
    such a row is written with every field quoted."""

    def __init__(self, buf: io.StringIO) -> None:
        self._minimal = csv.writer(buf, lineterminator="\n")
        self._all = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL)

    def writerow(self, row: Any) -> None:
        cr = any(isinstance(c, str) and "\r" in c for c in row)
        (self._all if cr else self._minimal).writerow(row)


def _writer() -> Any:
    buf = io.StringIO()
    return buf, _Writer(buf)


def to_csv(report: Report) -> str:
    """Means as CSV: header ``system,<label>,...``; full precision; empty = no value."""
    buf, w = _writer()
    w.writerow(["system", *(csv_cell(l) for l in report.labels)])
    for s, row in zip(report.systems, report.means):
        w.writerow([csv_cell(s), *(_num(v) for v in row)])
    return buf.getvalue()


def per_query_csv(report: Report) -> str:
    """Per-query values as CSV: ``system,flavour,qid,value``, one row per included query."""
    buf, w = _writer()
    w.writerow(["system", "flavour", "qid", "value"])
    values = report.results.values
    qids = [csv_cell(q) for q in report.qids]
    for s, system in enumerate(report.systems):
        system = csv_cell(system)
        for f, label in enumerate(report.labels):
            label = csv_cell(label)
            for qid, v in zip(qids, values[s, f]):
                if not math.isnan(v):
                    w.writerow([system, label, qid, repr(float(v))])
    return buf.getvalue()


STATISTICS_COLUMNS = ("system", "baseline", "flavour", "canonical", "n", "mean_system", "mean_baseline",
                      "mean_difference", "ci_low", "ci_high", "p_value", "p_adjusted", "significant",
                      "wins", "ties", "losses", "effect_size", "test", "correction", "alpha", "tie_dependent")


def statistics_csv(report: Report) -> str:
    """One row per baseline comparison, of every baseline (columns
    :data:`STATISTICS_COLUMNS`; the first baseline's rows first); empty cell = undefined."""
    buf, w = _writer()
    w.writerow(STATISTICS_COLUMNS)
    sig = tests_of(report)
    st = sig.settings
    comparisons = list(sig.comparisons) + [c for b, comps in sig.by_baseline.items() if b != sig.baseline
                                           for c in comps]
    for c in comparisons:
        w.writerow([csv_cell(c.system), csv_cell(c.baseline), csv_cell(c.label),
                    csv_cell(report.canonical[report.labels.index(c.label)]), c.n,
                    _num(c.mean_system), _num(c.mean_baseline), _num(c.mean_difference), _num(c.ci_low),
                    _num(c.ci_high), _num(c.p_value), _num(c.p_adjusted), str(c.significant).lower(),
                    c.wins, c.ties, c.losses, _num(c.effect_size), st.test, st.correction, repr(st.alpha),
                    str(tie_dependent(report, c.system, c.baseline, c.label)).lower()])
    return buf.getvalue()


FLIPS_COLUMNS = ("flavour_a", "flavour_b", "ahead_under_a", "ahead_under_b", "p_under_a", "p_adjusted_under_a",
                 "significant_under_a", "p_under_b", "p_adjusted_under_b", "significant_under_b",
                 "significant_under_either")


def flips_csv(report: Report) -> str:
    """One row per flipped system pair of each flavour pair, with the pair's test under
    both flavours (columns :data:`FLIPS_COLUMNS`)."""
    buf, w = _writer()
    w.writerow(FLIPS_COLUMNS)
    for f in tests_of(report).flips:
        a, b = f.under_first, f.under_second
        w.writerow([csv_cell(f.first), csv_cell(f.second), csv_cell(f.ahead_first), csv_cell(f.ahead_second),
                    _num(a.p_value), _num(a.p_adjusted), str(a.significant).lower(), _num(b.p_value),
                    _num(b.p_adjusted), str(b.significant).lower(), str(f.significant_under_either).lower()])
    return buf.getvalue()


ALL_PAIRS_COLUMNS = ("flavour", "canonical", "a", "b", "n", "mean_difference", "p_value", "p_adjusted",
                     "significant", "test", "correction", "alpha", "tie_dependent")


def all_pairs_csv(report: Report) -> str:
    """One row per unordered system pair and flavour of the all-pairs tests (columns
    :data:`ALL_PAIRS_COLUMNS`; ``mean_difference`` is ``a`` minus ``b``)."""
    buf, w = _writer()
    w.writerow(ALL_PAIRS_COLUMNS)
    sig = tests_of(report)
    st = sig.settings
    for label, m in sig.all_pairs.items():
        canonical = csv_cell(report.canonical[report.labels.index(label)])
        for r in m.records():
            w.writerow([csv_cell(label), canonical, csv_cell(r["a"]), csv_cell(r["b"]), r["n"],
                        _num(r["mean_difference"]), _num(r["p_value"]), _num(r["p_adjusted"]),
                        str(r["significant"]).lower(), st.test, st.correction, repr(st.alpha),
                        str(tie_dependent(report, r["a"], r["b"], label)).lower()])
    return buf.getvalue()


TIE_SPREAD_COLUMNS = ("system", "flavour", "canonical", "mean", "pessimistic", "optimistic")


def tie_spread_csv(report: Report) -> str:
    """Per system and flavour: the mean, and the mean under the worst (pessimistic)
    and the best (optimistic) ordering of tied scores (columns :data:`TIE_SPREAD_COLUMNS`)."""
    buf, w = _writer()
    w.writerow(TIE_SPREAD_COLUMNS)
    spread = report.tie_spread
    assert spread is not None  # written only when the report has tie bounds
    low, high = spread
    for s, system in enumerate(report.systems):
        for f, label in enumerate(report.labels):
            w.writerow([csv_cell(system), csv_cell(label), csv_cell(report.canonical[f]), _num(report.means[s, f]),
                        _num(low[s, f]), _num(high[s, f])])
    return buf.getvalue()


def judged_csv(report: Report) -> str:
    """Judged@k per system, cutoff and query: ``system,cutoff,qid,judged`` (cutoff empty:
    the whole list; queries the system retrieved nothing for are left out)."""
    buf, w = _writer()
    w.writerow(["system", "cutoff", "qid", "judged"])
    j = report.judged
    qids = [csv_cell(q) for q in j.qids]
    for s, system in enumerate(j.systems):
        for c, k in enumerate(j.cutoffs):
            for qid, v in zip(qids, j.values[s, c]):
                if not math.isnan(v):
                    w.writerow([csv_cell(system), "" if k is None else k, qid, repr(float(v))])
    return buf.getvalue()


def csv_files(report: Report) -> dict[str, str]:
    """The ``csv`` format: means and per-query values, plus the tests when there are any."""
    files = {"means.csv": to_csv(report), "per_query.csv": per_query_csv(report)}
    if report.tie_spread is not None:
        files["tie_spread.csv"] = tie_spread_csv(report)
    if report.judged is not None:
        files["judged_at_k.csv"] = judged_csv(report)
    files.update(unjudged_csv_files(report))
    sig = report.significance
    if sig is not None:
        if sig.baseline is not None:
            files["statistics.csv"] = statistics_csv(report)
        files["flips.csv"] = flips_csv(report)
        if sig.all_pairs:
            files["all_pairs.csv"] = all_pairs_csv(report)
    return files
