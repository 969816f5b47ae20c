"""Bounds on every number for the documents nobody judged (issue 30).

A run retrieves documents that the judgment pool never saw. Every flavour scores
them as non-relevant; :func:`unjudged_bounds` says what they could do to the number.
For each run it joins and sorts the run once and
evaluates every flavour on it, then again with the grades of the unjudged retrieved
documents (below) substituted inside the engine after that sort
(:mod:`evalkit.engine.substitute`): the ranked documents read the substituted grade
and the judged pool (the ideal's, a recall denominator's) holds those documents, so
every metric, plugin metrics included, goes through the same path with no
metric-specific code:

* ``at_low``: today's value (every flavour reads an unjudged document as
  non-relevant, the lowest grade there is: even ``ap(threshold=0)``, for which a
  judged grade 0 is relevant); with ``low`` given, the value when every
  *unjudged retrieved* document (below) is judged ``low``;
* ``at_high``: the same documents judged with the highest grade ``high`` (default:
  the largest grade of the qrels; ``"query"``: each query's own largest judged
  grade, at least 1), so the ideal ranking is recomputed from the judged pool plus
  those documents exactly as the flavour's IDCG strategy builds it (and AP's number
  of relevant documents, ERR's and RBP's grade normalisation, ... move with them);
* ``condensed``: the flavour with ``judged_only=yes`` (unjudged documents removed,
  ranks closed up: trec_eval ``-J``, form_res_rels.c).

``lower``/``upper`` are the per-query minimum/maximum of ``at_low`` and ``at_high``
(NaN only where both are NaN), so ``lower <= value <= upper`` whenever ``value``
equals ``at_low`` (every flavour that does not drop unjudged documents itself).

**Unjudged** documents: absent from the qrels, or judged with a negative grade
(to trec_eval a negative grade means "not in the pool", form_res_rels.c) unless
the flavour has ``negative=gain``. **Retrieved**: the run's documents of a qrels
query that can sit within the first ``min(k, depth)`` ranks: those with fewer than
``min(k, depth)`` documents of a strictly higher ``float32`` score (a superset of
the top ``k`` under every score-ordered tie policy, tied documents at the boundary
included; one more rank under ``run_filter=first``/``first_stable``). Documents
below the cutoff cannot change an @k value but would enter the ideal DCG under
``idcg=judged`` and lower it: they keep their judgment state, so the bounds are
those of the documents the value reads. Under the ``input`` and ``rank`` tie
policies, whose order is not the score's, every retrieved document is substituted.

**Not the extremes in general.** The substitution is the extreme of every metric
that is non-decreasing in each grade with a fixed normaliser: DCG, P, RR, recall
without cutoff, ERR (``max_grade`` given: ``dERR/dR_j >= 0`` since
``sum_{r>j} R_r/r prod (1-R_i) < 1/j``) (all checked by exhaustive enumeration) and
RBP with ``high="query"`` (checked against trec_eval 10.0's ``rbp_resid``). It is
**not** the extreme of NDCG, whose ideal moves with the grades, nor of AP or
recall@k, whose denominators do (relevant documents below the cutoff). Counterexamples (linear gain,
log2 discount, ``idcg=judged``; exhaustive enumeration in
``tests/test_bounds.py``):

* upper: run ``[d1 (grade 1), u]``, ``u`` unjudged, highest grade 3. ``u = 0``:
  NDCG@2 = 1; ``u = 3``: DCG = 1 + 3/log2 3 = 2.893, IDCG = 3 + 1/log2 3 = 3.631,
  NDCG = 0.797. ``at_high`` is *below* today's value: the maximum over assignments
  (1) is ``at_low``, the reported ``upper`` (hull) is right here.
* upper, strictly inside: ten documents ranked ``u1, d1, ..., d8, u2`` (``d``
  judged 0, ``u`` unjudged), a document ``x`` judged 1 and not retrieved, highest
  grade 1. Both ``u`` at 1: DCG = 1 + 1/log2 11, IDCG = 1 + 1/log2 3 + 1/2,
  NDCG = 0.6049 (``upper``); only ``u1`` at 1: 1 / (1 + 1/log2 3) = 0.6131, the true
  maximum: ``u2`` adds 0.289 to the DCG but a whole third ideal position (0.5).
  The true maximum over ``{low, high}`` assignments is, for NDCG (a sum over ranks
  over an ideal that depends only on the multiset of grades), the best of ``n + 1``
  assignments: the first ``i`` unjudged documents (by rank) at ``high``
  (``i = 0..n``); the minimum, the last ``i``. ``unjudged_bounds(..., search=True)``
  evaluates these assignments too (``2 (n - 1)`` more evaluations per run and group)
  and reports their extremes; the tests check it against exhaustive enumeration and
  count how often the default hull misses.

**Intent-aware metrics** (α-nDCG, ERR-IA, IA-nDCG; ``subtopics`` given): the unjudged
documents are judged ``high`` for every subtopic of their topic in the subtopic qrels
the engine reads; not an extreme either (redundancy: docs/bounds.md).

Cost: one join and one sort per run and tie policy for everything; besides the
value, the flavours evaluated once more (twice with ``low``) per distinct ``(cutoff,
tie order, negative)`` group, on a substituted problem built in O(judged +
substituted), and the condensed evaluation; no per-query Python loop. Measured
(``benchmarks/bounds.py``): 17 Robust 2003 runs x 4 flavours, 1.38x the evaluation
alone (it was 5.8x evaluating augmented qrels through the public API).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, Sequence

import numpy as np

from .data import Qrels, Run, SubtopicQrels
from .errors import ArgumentError
from .flavour import Flavour
from .registry import Registry
from .results import Results
from typing import Any

if TYPE_CHECKING:
    from .data import Run
    from .registry import Registry

if TYPE_CHECKING:
    from .explain import Explanation

__all__ = ["ExplainBounds", "UnjudgedBounds", "could_flip", "explain_bounds", "unjudged_bounds"]

#: tie policies whose order is not by score: every retrieved document is substituted
_UNORDERED_TIES = ("input", "rank")


@dataclass(frozen=True, eq=False)
class UnjudgedBounds:
    """Per-query values (every :class:`Results` of shape ``(s, f, q)``, same axes).

    :param value: the flavours as evaluated today.
    :param at_low: unjudged retrieved documents judged ``low``.
    :param at_high: unjudged retrieved documents judged ``high``.
    :param lower: ``fmin(at_low, at_high)``; :param upper: ``fmax(at_low, at_high)``.
    :param condensed: the flavours with ``judged_only=yes`` (trec_eval ``-J``).
    :param unjudged: ``int64`` ``(s, f, q)``, number of documents substituted.
    """

    value: Results
    at_low: Results
    at_high: Results
    lower: Results
    upper: Results
    condensed: Results
    unjudged: np.ndarray


def _cut_of(flavour: Flavour) -> tuple[int | None, bool, bool]:
    """``(ranks that count or None for all, substitute everything, negative counts as judged)``."""
    ties = flavour.ties.name if flavour.ties is not None else "trec_eval"
    negative_judged = flavour.convention("negative") == "gain"
    if ties in _UNORDERED_TIES:
        return None, True, negative_judged
    cuts = [c for c in (flavour.k, flavour.convention("depth")) if c is not None]
    cut = min(cuts) if cuts else None
    if cut is not None and flavour.convention("run_filter") in ("first", "first_stable"):
        cut += 1
    return cut, False, negative_judged


def unjudged_bounds(qrels: Qrels, runs: Run | Sequence[Run] | Mapping[str, Run],
                    flavours: Flavour | str | Iterable[Flavour | str], *,
                    low: float | None = None, high: float | str | None = None,
                    labels: Sequence[str] | None = None, search: bool = False,
                    registry: Registry | None = None, subtopics: SubtopicQrels | None = None) -> UnjudgedBounds:
    """Lower/upper bounds and the condensed value of every flavour (module docstring).

    :param qrels: judgments; :param runs: a :class:`~evalkit.data.Run`, a list of
        runs with distinct names or ``{name: run}``; :param flavours: as :func:`evalkit.evaluate`.
    :param low: ``None`` (default): ``at_low`` is today's value; a grade: the grade of
        an unjudged retrieved document in ``at_low``.
    :param high: the grade in ``at_high``: ``None`` (the qrels' largest grade), a
        number, or ``"query"`` (each query's largest judged grade, at least 1).
    :param search: also evaluate, for ``i = 1 .. n - 1`` (``n``: a query's unjudged
        retrieved documents), the first ``i`` of them (by score) at ``high`` and the last
        ``i``, and widen ``lower``/``upper`` to the extremes found: the exact extremes
        over ``{unjudged, high}`` assignments for NDCG (ideal from the multiset of
        grades; tied documents taken in line order), achievable values for any metric.
        Costs ``2 (n_max - 1)`` more evaluations per run and group.
    :returns: :class:`UnjudgedBounds`; every array ``(n_runs, n_flavours, n_queries)``.
    :param subtopics: subtopic qrels, for intent-aware metrics (α-nDCG, ERR-IA): the
        unjudged documents are judged ``high`` for every subtopic of their topic
        (``high``: the subtopic qrels' largest grade by default); an upper bound then
        is one achievable assignment, not the maximum (module docstring).
    :raises ArgumentError: a bad ``high``.
    :raises FlavourError, EvaluationError: as :func:`evalkit.evaluate`.
    """
    from .engine.substitute import evaluate_bounds
    from .registry import registry_or_default
    from .resolve import resolve_measures

    if isinstance(high, str) and high != "query":
        raise ArgumentError(f"unjudged_bounds: high={high!r}: a grade, None or 'query'")
    registry = registry_or_default(registry)
    measures = resolve_measures(flavours, registry)  # specs resolved here, at the edge
    if labels is None:
        labels = [m.label for m in measures]
    out = evaluate_bounds(qrels, runs, [m.flavour for m in measures], labels=labels, plan=_cut_of,
                          condensed=lambda f: f.replace(registry, judged_only="yes"), high=high, low=low,
                          search=search, registry=registry, subtopics=subtopics)
    systems = tuple(r.name for r in out.setup.runs)

    def wrap(values: np.ndarray) -> Results:
        return Results(qrels.qids, systems, out.setup.flavours, out.setup.labels, values)

    return UnjudgedBounds(value=wrap(out.value), at_low=wrap(out.at_low), at_high=wrap(out.at_high),
                          lower=wrap(out.lower), upper=wrap(out.upper), condensed=wrap(out.condensed),
                          unjudged=out.unjudged)


def could_flip(b: UnjudgedBounds) -> np.ndarray:
    """Which comparisons of means the unjudged documents could reverse: ``bool``
    ``(f, s, s)``, ``[f, i, j]`` true when system ``i``'s mean is at least ``j``'s under
    flavour ``f`` and ``lower[i] <= upper[j]`` (each system's mean bound taken alone:
    a conservative mark, as the two runs' unjudged documents are not tied together).
    The diagonal and NaN means are false.

    >>> import numpy as np
    >>> from evalkit import parse_flavour
    >>> from evalkit.results import Results
    >>> def res(v):
    ...     return Results(np.array(["q1"], dtype=object), ("a", "b"), (parse_flavour("ndcg@10"),),
    ...                    ("ndcg@10",), np.array(v).reshape(2, 1, 1))
    >>> b = UnjudgedBounds(res([0.5, 0.3]), res([0.5, 0.3]), res([0.6, 0.55]), res([0.5, 0.3]),
    ...                    res([0.6, 0.55]), res([0.5, 0.3]), np.zeros((2, 1, 1), np.int64))
    >>> could_flip(b)[0].tolist()  # a > b, but b's upper bound 0.55 passes a's lower 0.5
    [[False, True], [False, False]]
    """
    mean, lower, upper = b.value.means(), b.lower.means(), b.upper.means()  # (s, f)
    ahead = mean.T[:, :, None] >= mean.T[:, None, :]
    reach = lower.T[:, :, None] <= upper.T[:, None, :]
    out = ahead & reach
    idx = np.arange(mean.shape[0])
    out[:, idx, idx] = False
    return out


@dataclass
class ExplainBounds:
    """The unjudged bounds of the explained query (:func:`evalkit.bounds.unjudged_bounds`).

    :param unjudged_ranks: ranks (of the rows shown) whose document has no judgment
        (or a negative grade: trec_eval's "not in the pool", unless ``negative=gain``).
    :param substituted: documents the upper bound judges ``high`` (the unjudged ones
        that can sit within the cutoff, tied ones at the boundary included).
    :param high: the grade they take; ``assumes``: that grade in words.
    :param lower, upper: the interval; ``at_high``: the value with them at ``high``
        (below today's value when the ideal gains more than the DCG: ``lower``);
        ``condensed``: with the unjudged documents removed (``judged_only=yes``).
    """

    unjudged_ranks: list[int]
    substituted: int
    high: float
    assumes: str
    lower: float
    upper: float
    at_high: float
    condensed: float


def explain_bounds(qrels: Qrels, run: Run, explanation: Explanation, high: float | str | None = None,
                   registry: Registry | None = None) -> ExplainBounds:
    """:class:`ExplainBounds` of the query of ``explanation`` (from
    :func:`evalkit.explain.explain_query` on ``qrels`` and ``run``), to set as its
    ``bounds`` (``evalkit explain --bounds``): its unjudged ranks (grade ``NaN``, or
    negative unless ``negative=gain``) among the rows shown, and its values from
    :func:`unjudged_bounds` (every query evaluated, the one read back).

    :param high: as :func:`unjudged_bounds`.
    """
    import warnings

    fl, qid = explanation.flavour, explanation.qid
    negative_judged = fl.convention("negative") == "gain"
    ranks = [r.rank for r in explanation.rows if r.grade is not None
             and (math.isnan(r.grade) or (r.grade < 0 and not negative_judged))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = unjudged_bounds(qrels, run, [fl], high=high, registry=registry)
    q = int(np.flatnonzero(b.value.qids == qid)[0])
    if high is None:
        grade = float(np.max(qrels.grade))
        assumes = f"the qrels' largest grade ({grade:g})"
    elif isinstance(high, str):
        grade = max(float(np.max(qrels.grade[qrels.qid == qid])), 1.0)
        assumes = f"this query's largest judged grade, at least 1 ({grade:g})"
    else:
        grade = float(high)
        assumes = f"grade {grade:g}"
    return ExplainBounds(ranks, int(b.unjudged[0, 0, q]), grade, assumes, float(b.lower.values[0, 0, q]),
                         float(b.upper.values[0, 0, q]), float(b.at_high.values[0, 0, q]),
                         float(b.condensed.values[0, 0, q]))


# ---------------------------------------------------------------- output (evalkit eval --bounds)
def parse_high(text: str) -> float | str | None:
    """``--bounds`` argument: ``qrels`` (the qrels' largest grade) -> ``None``,
    ``query`` -> ``"query"``, else a finite number.

    :raises ArgumentError: anything else (the CLI reports it with exit status 2).
    """
    if text in ("qrels", "query"):
        return None if text == "qrels" else "query"
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ArgumentError(f"--bounds: {text!r} is not a grade (a finite number), 'qrels' or 'query'")
    return value


def _rows(b: UnjudgedBounds, per_query: bool) -> Iterator[tuple[str, str | None, int, float, float, float, float, int]]:
    """``(system, qid or None for the mean, f, lower, value, upper, condensed, unjudged or -1)``."""
    means = {name: getattr(b, name).means() for name in ("lower", "value", "upper", "condensed")}
    for s, system in enumerate(b.value.systems):
        if per_query:
            for q, qid in enumerate(b.value.qids):
                for f in range(len(b.value.flavours)):
                    v = b.value.values[s, f, q]
                    if not (math.isnan(v) and math.isnan(b.upper.values[s, f, q])):
                        yield (system, str(qid), f, b.lower.values[s, f, q], v, b.upper.values[s, f, q],
                               b.condensed.values[s, f, q], int(b.unjudged[s, f, q]))
        for f in range(len(b.value.flavours)):
            yield (system, None, f, means["lower"][s, f], means["value"][s, f], means["upper"][s, f],
                   means["condensed"][s, f], int(b.unjudged[s, f].sum()))


def bounds_table(b: UnjudgedBounds, per_query: bool, digits: int = 4, width: int | None = None) -> str:
    """Terminal block: one row per run (, query) and measure: lower, value, upper,
    condensed and the number of unjudged documents substituted (summed for ``all``)."""
    from .report.escape import text_escape as _t
    from .report.layout import fit_table

    def num(v: float) -> str:
        return "-" if math.isnan(v) else f"{v:.{digits}f}"

    rows = [[_t(system), "all" if qid is None else _t(qid), _t(b.value.labels[f]),
             num(lo), num(v), num(hi), num(c), str(n)]
            for system, qid, f, lo, v, hi, c, n in _rows(b, per_query)]
    headers = ["run", "qid", "measure", "lower", "value", "upper", "condensed", "unjudged"]
    return "unjudged bounds (unjudged retrieved documents at the lowest / highest grade; condensed: " \
           "judged_only=yes)\n" + fit_table(rows, headers, ["left"] * 3 + ["right"] * 5, width, keep=3)


def bounds_tsv(b: UnjudgedBounds, natives: Sequence[str], per_query: bool) -> list[str]:
    """trec_eval-style lines ``<native>_lower|_upper|_condensed<TAB>qid<TAB>value``
    (prefixed by the run name when there are several runs)."""
    from .report.escape import text_escape as _t

    multi = len(b.value.systems) > 1
    out = []
    for system, qid, f, lo, _v, hi, c, _n in _rows(b, per_query):
        pre = f"{_t(system)}\t" if multi else ""
        for suffix, v in (("lower", lo), ("upper", hi), ("condensed", c)):
            if not math.isnan(v):
                name = "all" if qid is None else _t(qid)
                out.append(f"{pre}{_t(natives[f]) + '_' + suffix:<22}\t{name}\t{v:.4f}")
    return out


def bounds_json(b: UnjudgedBounds, per_query: bool) -> dict:
    """``{run: {"all": {label: {...}}, "per_query": {qid: {label: {...}}}}}``, each
    ``{...}`` holding ``lower``, ``upper``, ``condensed`` (``null`` for NaN) and ``unjudged``."""
    def num(v: float) -> float | None:
        return None if math.isnan(v) else float(v)

    out: dict = {}
    for system, qid, f, lo, _v, hi, c, n in _rows(b, per_query):
        entry = out.setdefault(system, {"all": {}})
        cell = {"lower": num(lo), "upper": num(hi), "condensed": num(c), "unjudged": n}
        if qid is None:
            entry["all"][b.value.labels[f]] = cell
        else:
            entry.setdefault("per_query", {}).setdefault(qid, {})[b.value.labels[f]] = cell
    return out
