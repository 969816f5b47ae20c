"""The per-rank table behind one query's DCG/NDCG, from the engine's own computation.

:func:`explain_query` evaluates one flavour on one run with the engine
(:func:`evalkit.engine.evaluate.prepare_input` builds the metric's input exactly as
:func:`evalkit.evaluate` does: the run sorted under the tie policy, truncated by
``depth`` / ``judged_only``, gains with ``min_grade``, the discount, the IDCG strategy
and the cutoff) and returns, for the query, each ranked document's grade, gain,
discount (the position weight: under an averaged tie policy the mean discount over
its block of tied scores, McSherry & Najork 2008), contribution and running DCG, and
the ideal ranking the IDCG strategy built (recorded from
:func:`evalkit.kernel.ideal_dcg` while the strategy runs) with its gains,
discounts and running IDCG.

Only the CLI prints (``evalkit explain``, :mod:`evalkit.cli.explain`); this module
returns data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .data import Qrels, Run
from .errors import EvaluationError, FlavourError
from .flavour import STAGE_KEYS, Flavour, parse_flavour

if TYPE_CHECKING:
    from .registry import Registry

if TYPE_CHECKING:
    from .bounds import ExplainBounds
    from .registry import Registry

__all__ = ["ExplainRow", "Explanation", "explain_query", "explainable_metrics"]


@dataclass
class ExplainRow:
    """One rank of the table; ``None`` where the column has no entry at that rank.

    ``discount`` is the weight the engine gave the position (cutoff applied; the
    mean over a block of tied scores under an averaged tie policy), so
    ``contribution = gain * discount`` and ``running_dcg`` is their running sum.
    """

    rank: int
    docno: str | None = None
    score: float | None = None
    grade: float | None = None  # NaN = unjudged
    gain: float | None = None
    discount: float | None = None
    contribution: float | None = None
    running_dcg: float | None = None
    #: the grade whose gain is ``ideal_gain`` (``None`` if several of the query's
    #: grades have that gain, e.g. under ``gain=map``)
    ideal_grade: float | None = None
    ideal_gain: float | None = None
    ideal_discount: float | None = None
    ideal_contribution: float | None = None
    running_idcg: float | None = None


@dataclass
class Explanation:
    """The per-rank breakdown of one query under one flavour.

    :param value: what :func:`evalkit.evaluate` gives for the query (``NaN`` if a
        convention leaves it out).
    :param raw: the metric kernel's value before the ``empty``/``missing``
        conventions; ``defined``: the kernel's flag (``False``: IDCG = 0).
    :param dcg: the engine's DCG of the query (``float``).
    :param idcg: the engine's IDCG, ``None`` for metrics without an ideal (``dcg``).
    :param ideal_listed: the rows carry the ideal ranking (the IDCG strategy built
        it with :func:`~evalkit.kernel.ideal_dcg`).
    :param n_returned: documents of the query in the ranking the metric sees (after
        ``depth`` and ``judged_only``).
    """

    qid: str
    run: str
    flavour: Flavour
    rows: list[ExplainRow]
    dcg: float
    idcg: float | None
    value: float
    n_returned: int
    notes: list[str] = field(default_factory=list)
    raw: float = float("nan")
    defined: bool = True
    ideal_listed: bool = False
    #: rows of the whole table (``rows`` holds the first ``max_rows`` of them when
    #: :func:`explain_query` was asked for fewer); ``None``: ``len(rows)``
    total_rows: int | None = None
    #: the unjudged bounds (:func:`evalkit.bounds.explain_bounds`), else ``None``
    bounds: ExplainBounds | None = None

    @property
    def n_rows(self) -> int:
        """Rows of the whole table, listed or not."""
        return len(self.rows) if self.total_rows is None else self.total_rows

    @property
    def is_ratio(self) -> bool:
        """The metric's value is DCG / IDCG (``idcg > 0`` and the kernel returned exactly that)."""
        return bool(self.idcg is not None and self.idcg > 0 and self.raw == np.float64(self.dcg) / self.idcg)


def explainable_metrics(registry: Registry) -> list[str]:
    """Metrics :func:`explain_query` can tabulate: those composed of a gain and a
    discount (``dcg``, ``ndcg``, ``ndcg_rel``, ``rndcg``), not intent-aware ones."""
    return [n for n in registry.names("metric")
            if {"gain", "discount"} <= set(registry.metric(n).uses) and not registry.metric(n).needs_subtopics]


def _shown_positions(inp: Any, lo: int, hi: int) -> np.ndarray:
    """Positions of the query (``lo:hi``) that can carry a non-zero weight: ranks
    ``<= k`` and, under an averaged tie policy, the rest of the block of tied
    documents holding rank ``k`` (as :meth:`MetricInput.cut_positions`)."""
    r = inp.ranked
    idx = np.arange(lo, hi, dtype=np.int64)
    if inp.k is None or hi - lo <= inp.k:
        return idx
    keep = r.rank[idx] <= inp.k
    if r.averaged:
        keep |= r.block[idx] == r.block[lo + inp.k - 1]
    return idx[keep]


def explain_query(qrels: Qrels, run: Run, qid: str, flavour: Flavour | str, registry: Registry | None = None,
                  max_rows: int | None = None) -> Explanation:
    """Compute the per-rank table of ``qid`` under ``flavour``.

    :param max_rows: build only the first ``max_rows`` rows (``None``: all); the running
        DCG/IDCG of those rows, the totals and :attr:`Explanation.n_rows` still cover the
        whole list (cumulative sums over the query's arrays, no per-rank Python work
        beyond the rows built: a query of 2 M documents printed whole took 3 min and 5.2 GB).

    :param flavour: a resolved :class:`~evalkit.flavour.Flavour` or flavour string (a
        preset or measure name is resolved first: :func:`evalkit.resolve.resolve_flavour`);
        its metric must use a gain and a discount (:func:`explainable_metrics`).
    :returns: :class:`Explanation`; its ``dcg``, ``idcg`` and ``value`` are the
        engine's (``value == evaluate(...)`` for the query).
    :raises FlavourError: the flavour string is invalid, or its metric is not a
        DCG-family metric.
    :raises EvaluationError: ``qid`` is not a qrels query, or a convention set to
        ``error`` is triggered.
    """
    from .engine.evaluate import evaluate_problem, metric_output, prepare_input, resolve
    from .engine.problem import build_problem
    from .kernel import trace_ideal
    from .registry import registry_or_default

    registry = registry_or_default(registry)
    fl = flavour if isinstance(flavour, Flavour) else parse_flavour(flavour, registry)
    res = resolve(fl, registry)
    if fl.metric not in explainable_metrics(registry):
        raise FlavourError(f"explain shows gain x discount tables; metric '{fl.metric}' is not one of "
                           f"the metrics built that way ({', '.join(explainable_metrics(registry))})")

    problem = build_problem(qrels, run)
    hit = np.flatnonzero(problem.qids == str(qid))
    if not len(hit):
        where = ("is in the run but has no judgments" if (run.qid == str(qid)).any()
                 else "is neither in the qrels nor in the run")
        raise EvaluationError(f"query {qid!r} {where}; evaluated queries come from the qrels "
                              f"({len(problem.qids)} queries, e.g. {', '.join(map(str, problem.qids[:5]))})")
    qi = int(hit[0])

    inp = prepare_input(problem, res)
    ranked = inp.ranked
    lo, hi = int(ranked.offsets[qi]), int(ranked.offsets[qi + 1])
    idx = _shown_positions(inp, lo, hi)
    gains = inp.ranked_gain()[idx]
    weights = inp.position_weights(inp.discount_values(ranked.rank))[idx]
    contrib = gains * weights
    dcg = float(inp.dcg()[qi])
    idcg = None
    ideal = None
    if "idcg" in res.metric.uses:
        with trace_ideal() as trace:
            idcg = float(inp.ideal()[qi])
        if len(trace) == 1:
            t = trace[0]
            mine = t.query == qi
            ideal = (t.gain[mine], t.discount[mine])
    raw, defined = metric_output(problem, res, inp)
    value = float(evaluate_problem(problem, res, None, run.name, inp=inp)[qi])

    n_ideal = 0 if ideal is None else len(ideal[0])
    n_rows = max(len(idx), n_ideal)
    shown = n_rows if max_rows is None else min(max_rows, n_rows)
    m = min(shown, len(idx))  # ranked rows built
    running = np.cumsum(contrib)[:m]  # left to right, as a running Python sum
    codes = np.asarray(ranked.docno[idx[:m]], dtype=np.int64)
    docnos: Any = problem.docno_vocab[codes] if m else []
    keys = problem.keys
    mask = keys.query == qi
    query_codes, query_scores = keys.docno[mask], keys.score[mask]
    by_code = np.argsort(query_codes, kind="stable")
    scores = query_scores[by_code[np.searchsorted(query_codes[by_code], codes)]] if m else np.empty(0)
    grades = ranked.grade[idx[:m]]
    ranks = ranked.rank[idx[:m]]

    notes = _notes(fl, res, registry, ideal is not None, idcg, lo == hi, float(raw[qi]), dcg)
    grade_of = {} if ideal is None else _grades_by_gain(inp, problem, ranked, qi, lo, hi)
    mi = min(shown, n_ideal)  # ideal rows built
    if ideal is not None:
        ideal_gain, ideal_disc = ideal[0][:mi], ideal[1][:mi]
        ideal_contrib = ideal_gain * ideal_disc
        running_ideal = np.cumsum(ideal[0] * ideal[1])[:mi]
    rows = []
    for i in range(shown):
        row = ExplainRow(rank=i + 1)
        if i < m:
            row.rank = int(ranks[i])
            row.docno = str(docnos[i])
            row.score = float(scores[i])
            row.grade = float(grades[i])
            row.gain, row.discount = float(gains[i]), float(weights[i])
            row.contribution, row.running_dcg = float(contrib[i]), float(running[i])
        if i < mi:
            g = float(ideal_gain[i])
            row.ideal_grade = grade_of.get(g)
            row.ideal_gain, row.ideal_discount = g, float(ideal_disc[i])
            row.ideal_contribution, row.running_idcg = float(ideal_contrib[i]), float(running_ideal[i])
        rows.append(row)
    return Explanation(str(qid), run.name, fl, rows, dcg, idcg, value, hi - lo, notes,
                       raw=float(raw[qi]), defined=bool(defined[qi]), ideal_listed=ideal is not None,
                       total_rows=n_rows)


def _grades_by_gain(inp: Any, problem: Any, ranked: Any, qi: int, lo: int, hi: int) -> dict[float, float]:
    """``{gain: grade}`` over the query's judged and ranked grades, for the gains
    that exactly one of those grades has (an IDCG strategy sees gains only)."""
    from .kernel import apply_gain

    jlo, jhi = int(problem.judged_offsets[qi]), int(problem.judged_offsets[qi + 1])
    grades = np.concatenate([problem.judged_grade[jlo:jhi], ranked.grade[lo:hi]])
    grades = np.unique(grades[~np.isnan(grades)])
    gains = apply_gain(inp.gain, grades, inp.min_grade, inp.negative)
    out: dict[float, float] = {}
    for gain in np.unique(gains):
        match = grades[gains == gain]
        if len(match) == 1:
            out[float(gain)] = float(match[0])
    return out


def _notes(fl: Flavour, res: Any, registry: Registry, ideal_listed: bool, idcg: Any, missing: bool, raw: float,
           dcg: float) -> list[str]:
    notes = []
    if idcg is not None:
        assert fl.idcg is not None  # the flavour's IDCG strategy was resolved to idcg
        name = fl.idcg.name
        comp = registry.get("idcg", name)
        if ideal_listed:
            notes.append(f"ideal ranking (idcg={name}): {comp.description or comp.formula}")
        else:
            notes.append(f"IDCG strategy '{name}' does not build its ideal with ideal_dcg: only its total is shown")
    depth, judged_only = fl.convention("depth"), fl.convention("judged_only")
    if depth is not None:
        notes.append(f"depth={depth}: only the first {depth} documents after sorting are ranked")
    if judged_only == "yes":
        notes.append("judged_only=yes: unjudged documents are dropped and the ranks renumbered"
                     + ("; negative grades are judgments here (negative=gain) and stay"
                        if res.negative_gain else
                        "; a negative grade counts as unjudged"))
    min_grade = fl.convention("min_grade")
    if min_grade != 0:
        notes.append(f"min_grade={min_grade:g}: grades below it give gain 0 and leave the ideal ranking")
    for family in STAGE_KEYS:  # every stage component not at its default: its own note
        ref = getattr(fl, family)
        if ref is not None:
            comp = registry.get(family, ref.name)
            notes.append(f"{family}={ref}: {getattr(comp, 'note', '') or comp.description or comp.formula}")
    if res.ties.averaged:
        assert fl.ties is not None  # a validated flavour always names its tie policy
        notes.append(f"ties={fl.ties.name}: each discount is the mean over its block of tied scores "
                     f"(expected DCG over all orderings of the ties)")
    if fl.k is not None:
        notes.append(f"cutoff k={fl.k}: ranks after {fl.k} contribute 0")
    if missing:
        notes.append(f"the query is not in the run (missing={fl.convention('missing')})")
    if idcg is not None and idcg > 0 and raw != np.float64(dcg) / idcg:
        params = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in fl.params)
        params = params or "its definition"
        notes.append(f"metric '{fl.metric}' is not DCG/IDCG for this query ({params})")
    return notes
