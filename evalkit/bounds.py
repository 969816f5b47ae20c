"""Bounds on every number for the documents nobody judged (issue 30).

A run retrieves documents that the judgment pool never saw. Every flavour scores
them as non-relevant; :func:`unjudged_bounds` says what they could do to the number.
For each run and flavour it evaluates the flavour twice more (three times with
``low``) through the public :func:`evalkit.evaluate`, for all queries at once, with
no metric-specific code (plugin metrics included):

* ``at_low``: today's value (every flavour reads an unjudged document as
  non-relevant, the lowest grade there is: even ``ap(threshold=0)``, for which a
  judged grade 0 is relevant); with ``low`` given, augmented qrels in which every
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

Cost: besides the value, one evaluation (two with ``low``) per run and distinct
``(cutoff, tie order, negative)`` group of flavours, and the condensed evaluation;
no per-query Python loop. Measured: 17 Robust 2003 runs x 4 flavours (3 groups),
2.3 s to evaluate, 13.4 s with the bounds (5.8x; the issue's 2x needs the grades
substituted inside the engine after its one sort, not through the public API).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from .data import Qrels
from .errors import ArgumentError
from .results import Results
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from .data import Run
    from .registry import Registry

__all__ = ["UnjudgedBounds", "could_flip", "unjudged_bounds"]

#: tie policies whose order is not by score: every retrieved document is substituted
_UNORDERED_TIES = ("input", "rank")
#: metrics whose grades are per subtopic: not substituted here
INTENT_AWARE = ("alpha_ndcg", "err_ia", "ia_ndcg")


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


def _lookup(keys: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Row of ``table`` holding each of ``keys`` (``uint64`` pair hashes), -1 if none:
    ``int64`` ``(len(keys),)``; callers compare the strings of every hit."""
    order = np.argsort(table, kind="stable")
    pos = np.searchsorted(table[order], keys)
    pos = np.minimum(pos, max(len(table) - 1, 0))
    hit = (table[order][pos] == keys) if len(table) else np.zeros(len(keys), bool)
    return np.where(hit, order[pos] if len(table) else -1, -1)


def _same(a_qid: Any, a_doc: Any, b_qid: Any, b_doc: Any, rows_a: Any, rows_b: Any) -> np.ndarray:
    """Exact check of hash hits: the pairs ``a[rows_a]`` and ``b[rows_b]`` are equal."""
    return (a_qid[rows_a] == b_qid[rows_b]) & (a_doc[rows_a] == b_doc[rows_b])


def _cut_of(flavour: Any) -> tuple[int | None, bool, bool]:
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


def _within(qcode: np.ndarray, score: np.ndarray, cut: int | None) -> np.ndarray:
    """Rows with fewer than ``cut`` rows of the same query with a strictly higher
    ``float32`` score: boolean ``(n,)``."""
    n = len(score)
    if cut is None or n == 0:
        return np.ones(n, dtype=bool)
    s32 = score.astype(np.float32).astype(np.float64)
    order = np.lexsort((-s32, qcode))
    q, s = qcode[order], s32[order]
    new_block = np.ones(n, dtype=bool)
    new_block[1:] = (q[1:] != q[:-1]) | (s[1:] != s[:-1])
    new_query = np.ones(n, dtype=bool)
    new_query[1:] = q[1:] != q[:-1]
    pos = np.arange(n)
    query_start = np.maximum.accumulate(np.where(new_query, pos, 0))
    block_start = np.maximum.accumulate(np.where(new_block, pos, 0))
    out = np.empty(n, dtype=bool)
    out[order] = (block_start - query_start) < cut
    return out


def _high_grades(qrels: Qrels, high: Any, qid: np.ndarray) -> np.ndarray:
    if high is None:
        return np.full(len(qid), float(np.max(qrels.grade)) if len(qrels) else 1.0)
    if isinstance(high, str):
        if high != "query":
            raise ArgumentError(f"unjudged_bounds: high={high!r}: a grade, None or 'query'")
        codes, vocab = qrels._qid_codes()
        top = np.full(len(vocab), -np.inf)
        np.maximum.at(top, codes, qrels.grade)
        pos = np.searchsorted(vocab, qid)
        return np.maximum(top[pos], 1.0)
    return np.full(len(qid), float(high))


class _Pairs:
    """The run's rows of qrels queries and where each is judged (computed once per run)."""

    def __init__(self, qrels: Qrels, run: Run, qhash: np.ndarray) -> None:
        vocab = qrels.qids
        rq_all = run.qid
        pos = np.minimum(np.searchsorted(vocab, rq_all), max(len(vocab) - 1, 0))
        in_qrels = vocab[pos] == rq_all if len(vocab) else np.zeros(len(rq_all), dtype=bool)
        self.run, self.rows = run, np.flatnonzero(in_qrels)
        self.rq, self.rd = rq_all[in_qrels], run.docno[in_qrels]
        self.rs = np.asarray(run.score, np.float64)[in_qrels]
        self.rcode = pos[in_qrels]
        self.rhash = run._pair_hashes()[in_qrels]
        row = _lookup(self.rhash, qhash)
        hit = row >= 0
        hit[hit] = _same(self.rq, self.rd, qrels.qid, qrels.docno, np.flatnonzero(hit), row[hit])
        self.qrow = np.where(hit, row, -1)  # the judgment of each run row, -1 if none


def _picked(qrels: Qrels, pairs: _Pairs, cut: Any, everything: Any, negative_judged: Any) -> np.ndarray:
    """The run rows (of ``pairs``) to substitute: ``bool``."""
    judged = pairs.qrow >= 0
    if not negative_judged:
        judged[judged] = np.asarray(qrels.grade, np.float64)[pairs.qrow[judged]] >= 0
    return ~judged & (everything | _within(pairs.rcode, pairs.rs, cut))


def _order_in_query(pairs: _Pairs, pick: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the picked rows: their 0-based position among the query's picked rows by
    ``float32`` score descending (tied rows in line order), and the query's number of
    picked rows: two ``int64`` arrays of ``pick.sum()``."""
    rows = np.flatnonzero(pick)
    code, s32 = pairs.rcode[rows], pairs.rs[rows].astype(np.float32)
    order = np.lexsort((rows, -s32.astype(np.float64), code))
    n = np.bincount(code, minlength=int(code.max()) + 1 if len(code) else 0)
    start = np.concatenate(([0], np.cumsum(n)[:-1]))
    pos = np.empty(len(rows), dtype=np.int64)
    pos[order] = np.arange(len(rows)) - start[code[order]]
    return pos, n[code]


def _augmented(qrels: Qrels, pairs: _Pairs, cut: Any, everything: Any, negative_judged: Any, grade_of: Any,
               pick: Any = None) -> tuple[Qrels, np.ndarray]:
    """Qrels in which the run's unjudged retrieved documents (or the rows ``pick``)
    are judged ``grade_of(qids)``, and the number of them per qrels query."""
    grade_all = np.asarray(qrels.grade, np.float64)
    if pick is None:
        pick = _picked(qrels, pairs, cut, everything, negative_judged)
    keep = np.ones(len(qrels), dtype=bool)
    keep[pairs.qrow[pick & (pairs.qrow >= 0)]] = False  # negative-graded judgments replaced
    grade = np.concatenate([grade_all[keep], grade_of(pairs.rq[pick])])
    count = np.bincount(pairs.rcode[pick], minlength=len(qrels.qids))
    codes, vocab = qrels._qid_codes()
    qdoc = qrels._docno_arrow()
    if isinstance(qdoc, np.ndarray):  # small qrels: object columns
        docno = np.concatenate([qdoc[keep], pairs.rd[pick]])
    else:  # Arrow columns: no string conversion (the engine hashes Arrow buffers)
        import pyarrow as pa

        from .engine.factorize import as_arrow, take

        rdoc = pairs.run._docno_arrow()
        rdoc = take(rdoc, pairs.rows[pick]) if not isinstance(rdoc, np.ndarray) else as_arrow(pairs.rd[pick])
        left = take(qdoc, np.flatnonzero(keep))
        parts = [a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a for a in (left, rdoc)]
        parts = [a.cast(pa.large_string()) for a in parts]
        docno = pa.concat_arrays(parts)
    out = Qrels(None, docno, grade, None, qrels.source)
    out._qcodes = np.concatenate([codes[keep], pairs.rcode[pick].astype(codes.dtype)])
    out._qvocab = vocab
    return out, count


def unjudged_bounds(qrels: Qrels, runs: Any, flavours: Any, *, low: float | None = None, high: Any = None, labels: Any = None,
                    search: bool = False, registry: Registry | None = None) -> UnjudgedBounds:
    """Lower/upper bounds and the condensed value of every flavour (module docstring).

    :param qrels: judgments; :param runs: a :class:`~evalkit.data.Run` or a list of
        runs with distinct names; :param flavours: as :func:`evalkit.evaluate`.
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
    :raises ArgumentError: a bad ``high``; intent-aware (subtopic) metrics, whose
        grades are per subtopic, are refused (not substituted here).
    :raises FlavourError, EvaluationError: as :func:`evalkit.evaluate`.
    """
    from .data import Run
    from .engine.evaluate import evaluate

    from .resolve import resolve_measures

    run_list = [runs] if isinstance(runs, Run) else list(runs.values()) if isinstance(runs, dict) else list(runs)
    measures = resolve_measures(flavours, registry)  # specs resolved here, at the edge
    if labels is None:
        labels = [m.label for m in measures]
    value = evaluate(qrels, run_list, [m.flavour for m in measures], labels=labels, registry=registry)
    flist = list(value.flavours)
    for f in flist:
        if f.metric in INTENT_AWARE:
            raise ArgumentError(f"unjudged_bounds: {f}: intent-aware metrics are not supported "
                                "(their grades are per subtopic)")
    s, nf, nq = value.values.shape
    lo = np.full((s, nf, nq), np.nan)
    hi = np.full((s, nf, nq), np.nan)
    count = np.zeros((s, nf, nq), dtype=np.int64)
    hi_s = np.full((s, nf, nq), np.nan)  # the prefix / suffix search (search=True)
    lo_s = np.full((s, nf, nq), np.nan)
    groups: dict[tuple, list[int]] = {}
    for i, f in enumerate(flist):
        groups.setdefault(_cut_of(f), []).append(i)
    qhash = qrels._pair_hashes()
    for r, run in enumerate(run_list):
        pairs = _Pairs(qrels, run, qhash)
        for (cut, everything, negative_judged), idx in groups.items():
            sub = [flist[i] for i in idx]
            todo = [(lambda q: _high_grades(qrels, high, q), hi)]
            if low is not None:
                todo.append((lambda q: np.full(len(q), float(low)), lo))
            else:
                lo[r, idx] = value.values[r, idx]
            for grade_of, out in todo:
                aug, n = _augmented(qrels, pairs, cut, everything, negative_judged, grade_of)
                with warnings.catch_warnings():  # the value's evaluation warned already
                    warnings.simplefilter("ignore")
                    res = evaluate(aug, [run], sub, registry=registry)
                out[r, idx] = res.values[0]
                count[r, idx] = n
            if search:  # the first / last i unjudged documents at high, i = 1..max
                pick = _picked(qrels, pairs, cut, everything, negative_judged)
                pos, n_q = _order_in_query(pairs, pick)
                rows = np.flatnonzero(pick)
                for i in range(1, int(n_q.max(initial=0))):
                    for chosen, better in ((pos < i, np.fmax), (pos >= n_q - i, np.fmin)):
                        sub_pick = np.zeros_like(pick)
                        sub_pick[rows[chosen]] = True
                        aug, _ = _augmented(qrels, pairs, cut, everything, negative_judged,
                                            lambda q: _high_grades(qrels, high, q), pick=sub_pick)
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            res = evaluate(aug, [run], sub, registry=registry)
                        target = hi_s if better is np.fmax else lo_s
                        target[r, idx] = better(target[r, idx], res.values[0])
    hi_s, lo_s = np.fmax(hi_s, np.fmax(lo, hi)), np.fmin(lo_s, np.fmin(lo, hi))
    cond_fl = [f.replace(registry, judged_only="yes") for f in flist]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        condensed = evaluate(qrels, run_list, cond_fl, registry=registry)

    def wrap(values: Any) -> Any:
        return Results(value.qids, value.systems, value.flavours, value.labels, values)

    return UnjudgedBounds(value=value, at_low=wrap(lo), at_high=wrap(hi), lower=wrap(lo_s),
                          upper=wrap(hi_s), condensed=wrap(condensed.values), unjudged=count)


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


# ---------------------------------------------------------------- output (evalkit eval --bounds)
def parse_high(text: str) -> Any:
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


def _rows(b: UnjudgedBounds, per_query: bool) -> Any:
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
    from .report.text import fit_table

    def num(v: Any) -> Any:
        return "-" if math.isnan(v) else f"{v:.{digits}f}"

    rows = [[_t(system), "all" if qid is None else _t(qid), _t(b.value.labels[f]),
             num(lo), num(v), num(hi), num(c), str(n)]
            for system, qid, f, lo, v, hi, c, n in _rows(b, per_query)]
    headers = ["run", "qid", "measure", "lower", "value", "upper", "condensed", "unjudged"]
    return "unjudged bounds (unjudged retrieved documents at the lowest / highest grade; condensed: " \
           "judged_only=yes)\n" + fit_table(rows, headers, ["left"] * 3 + ["right"] * 5, width, keep=3)


def bounds_tsv(b: UnjudgedBounds, natives: Any, per_query: bool) -> list[str]:
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
    def num(v: Any) -> Any:
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
