"""The first implementation of :func:`evalkit.bounds.unjudged_bounds` (session 7), kept
as the tests' reference: it evaluates *augmented qrels* (the unjudged retrieved
documents appended as judgments with the substituted grade) through the public
:func:`evalkit.evaluate`, a run and group at a time, so it shares nothing with the
engine's in-place substitution (:mod:`evalkit.engine.substitute`) but the metrics.
``tests/test_bounds.py`` checks that both give the same values.
"""

from __future__ import annotations

import warnings

import numpy as np

from evalkit.bounds import UnjudgedBounds  # the result container; the computation below is the oracle's own
from evalkit.data import Qrels
from evalkit.errors import ArgumentError
from evalkit.results import Results


#: tie policies whose order is not by score: every retrieved document is substituted
_UNORDERED_TIES = ("input", "rank")
#: metrics whose grades are per subtopic: not substituted here
INTENT_AWARE = ("alpha_ndcg", "err_ia", "ia_ndcg")


def _lookup(keys: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Row of ``table`` holding each of ``keys`` (``uint64`` pair hashes), -1 if none:
    ``int64`` ``(len(keys),)``; callers compare the strings of every hit."""
    order = np.argsort(table, kind="stable")
    pos = np.searchsorted(table[order], keys)
    pos = np.minimum(pos, max(len(table) - 1, 0))
    hit = (table[order][pos] == keys) if len(table) else np.zeros(len(keys), bool)
    return np.where(hit, order[pos] if len(table) else -1, -1)


def _same(a_qid, a_doc, b_qid, b_doc, rows_a, rows_b) -> np.ndarray:
    """Exact check of hash hits: the pairs ``a[rows_a]`` and ``b[rows_b]`` are equal."""
    return (a_qid[rows_a] == b_qid[rows_b]) & (a_doc[rows_a] == b_doc[rows_b])


def _cut_of(flavour) -> tuple[int | None, bool, bool]:
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


def _high_grades(qrels: Qrels, high, qid: np.ndarray) -> np.ndarray:
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

    def __init__(self, qrels: Qrels, run, qhash: np.ndarray):
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


def _picked(qrels: Qrels, pairs: _Pairs, cut, everything, negative_judged) -> np.ndarray:
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


def _augmented(qrels: Qrels, pairs: _Pairs, cut, everything, negative_judged, grade_of,
               pick=None) -> tuple[Qrels, np.ndarray]:
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

        from evalkit.engine.factorize import as_arrow, take

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


def unjudged_bounds(qrels: Qrels, runs, flavours, *, low: float | None = None, high=None, labels=None,
                    search: bool = False, registry=None) -> UnjudgedBounds:
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
    from evalkit.data import Run
    from evalkit.engine.evaluate import evaluate

    from evalkit.resolve import resolve_measures

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

    def wrap(values):
        return Results(value.qids, value.systems, value.flavours, value.labels, values)

    return UnjudgedBounds(value=value, at_low=wrap(lo), at_high=wrap(hi), lower=wrap(lo_s),
                          upper=wrap(hi_s), condensed=wrap(condensed.values), unjudged=count)


