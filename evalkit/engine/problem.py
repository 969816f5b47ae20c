"""Joining a run with qrels.

A :class:`Problem` is one run against one set of qrels, restricted to the qrels'
queries (run queries without judgments are ignored, as trec_eval ignores them).
:meth:`Problem.ranked` sorts the run under a tie policy once and caches the
:class:`~evalkit.engine.ranking.RankedList` that every flavour with that tie policy
reuses (sorting lives in :mod:`evalkit.engine.ranking`).

The join reads the run and the qrels through the package-internal protocol of
:mod:`evalkit.engine.protocols`, not through :mod:`evalkit.data`.

Everything is columnar: no Python loop over queries or documents.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from ..columnar import concat_ranges, offsets_from_sorted
from .ranking import RankedList, SortKeys, _LazyCodes, restrict

if TYPE_CHECKING:
    from .protocols import QrelsColumns, RunColumns


class Problem:
    """One run joined with qrels.

    :param qids: evaluated query ids, sorted (``object`` ``(q,)``): the qrels' queries.
    :param judged_offsets: ``(q + 1,)`` offsets into ``judged_grade``.
    :param judged_grade: ``float64`` ``(m,)`` grades of every judged document, by query.
    :param keys: the run's rows restricted to evaluated queries, as :class:`SortKeys`.
    :param in_run: ``bool`` ``(q,)``: the query has at least one ranked document.
    :param docno_vocab: ``object`` array; ``docno_vocab[code]`` is the docno string
        (``None``: taken from ``keys`` on first access).

    ``_cache`` (engine-private) is a scratch dict shared by every flavour evaluated
    on this problem (gains, discounts and ideal rankings computed once, see
    :class:`evalkit.kernel.MetricInput`).
    """

    def __init__(self, qids, judged_offsets, judged_grade, keys, in_run, docno_vocab=None):
        self.qids = qids
        self.judged_offsets = judged_offsets
        self.judged_grade = judged_grade
        self.keys = keys
        self.in_run = in_run
        self._docno_vocab = docno_vocab
        self._ranked: dict = {}
        self._cache: dict = {}

    @property
    def docno_vocab(self) -> np.ndarray:
        if self._docno_vocab is None:
            self._docno_vocab = self.keys.docno_vocab
        return self._docno_vocab

    @property
    def n_queries(self) -> int:
        return len(self.qids)

    def ranked(self, policy, params: dict, *, depth: int | None = None,
               judged_only: bool = False, run_filter: str = "none",
               keep_negative: bool = False) -> RankedList:
        """The run sorted under ``policy`` (a :class:`~evalkit.components.TiePolicy`),
        computed once per policy and parameters and then reused.

        :param depth: keep only the first ``depth`` documents of each query after
            sorting (trec_eval ``-M``; ``None`` keeps all).
        :param judged_only: drop unjudged documents (no grade, or a negative grade)
            after sorting and truncation, and renumber the ranks (trec_eval ``-J``).
        :param keep_negative: with ``judged_only``, keep the documents with a negative
            grade (the ``negative=gain`` convention: a negative grade is a judgment
            with a negative gain, not trec_eval's "not in the pool").
        :param run_filter: ``none``; ``query_id``: drop the documents whose docno equals
            the qid (BEIR ``ignore_identical_ids``); ``first``: drop each query's first
            document; ``unjudged``: drop the documents absent from the qrels. Applied
            before ``depth`` and ``judged_only``; ranks renumbered.
        """
        if run_filter != "none":
            key = (policy.name, tuple(sorted(params.items())), run_filter)
            base = self._ranked.get(key)
            if base is None:
                base = self.ranked(policy, params)
                base = self._ranked[key] = restrict(base, None, False, drop=self._filtered(base, run_filter))
            if depth is None and not judged_only:
                return base
            key = key + (depth, bool(judged_only), bool(judged_only and keep_negative))
            hit = self._ranked.get(key)
            if hit is None:
                hit = self._ranked[key] = restrict(base, depth, judged_only, keep_negative=keep_negative)
            return hit
        if depth is not None or judged_only:
            key = (policy.name, tuple(sorted(params.items())), depth, bool(judged_only),
                   bool(judged_only and keep_negative))
            hit = self._ranked.get(key)
            if hit is None:
                hit = restrict(self.ranked(policy, params), depth, judged_only, keep_negative=keep_negative)
                self._ranked[key] = hit
            return hit
        cache_key = (policy.name, tuple(sorted(params.items())))
        hit = self._ranked.get(cache_key)
        if hit is not None:
            return hit
        keys = self.keys
        order = np.asarray(policy.fn(keys, **params), dtype=np.int64)
        if order.shape != keys.query.shape:
            raise ValueError(f"tie policy '{policy.name}' returned an order of shape {order.shape}")
        take, moved = keys.gatherer(order), keys.moved(order)
        if len(moved) == 0 or (len(moved) <= len(order) // 4
                               and np.array_equal(keys.query[order[moved]], keys.query[moved])):
            query = keys.query  # the order moves rows within their query only
        else:
            query = take(keys.query)
        ranked = RankedList(
            offsets=offsets_from_sorted(query, self.n_queries),
            query=query,
            rank=None,
            grade=None,
            docno=_LazyCodes(keys, order),
            averaged=bool(policy.averaged),
            source=lambda: (keys, order),
        )
        self._ranked[cache_key] = ranked
        return ranked

    def _filtered(self, ranked: RankedList, run_filter: str) -> np.ndarray:
        """``bool`` ``(n,)``: the positions of ``ranked`` that ``run_filter`` drops."""
        if run_filter == "first":
            return ranked.rank == 1
        if run_filter == "unjudged":
            return np.isnan(ranked.grade)
        if run_filter == "query_id":
            docno = self.docno_vocab[np.asarray(ranked.docno)]
            qid = np.asarray(self.qids, dtype=object)[ranked.query]
            return np.asarray(docno == qid, dtype=bool)
        raise ValueError(f"unknown run_filter {run_filter!r}")

def _by_query(query: np.ndarray, n_queries: int):
    """Stable layout of rows by query ascending: ``(perm, query[perm], new_position)``
    where ``new_position(p)`` maps old positions to new ones; ``None`` if the rows are
    already so laid out. Contiguous blocks (one per query) are moved whole; otherwise a
    stable sort of the query index (a radix sort for up to 65,536 queries)."""
    n = len(query)
    if n < 2 or not np.any(query[1:] < query[:-1]):
        return None
    starts = np.flatnonzero(np.concatenate(([True], query[1:] != query[:-1])))
    bq = query[starts]
    block_perm = np.argsort(bq, kind="stable")
    if not np.any(bq[block_perm][1:] == bq[block_perm][:-1]):  # one block per query
        lengths = np.diff(np.append(starts, n))
        new_lengths = lengths[block_perm]
        new_starts = np.zeros(len(starts), dtype=np.int64)
        np.cumsum(new_lengths[:-1], out=new_starts[1:])
        if (new_lengths == new_lengths[0]).all():  # equal blocks: one broadcast add
            perm = (starts[block_perm][:, None] + np.arange(new_lengths[0])).reshape(-1)
        else:
            perm = concat_ranges(starts[block_perm], new_lengths)
        block_new_start = np.empty(len(starts), dtype=np.int64)
        block_new_start[block_perm] = new_starts

        def new_position(pos):
            b = np.searchsorted(starts, pos, side="right") - 1
            return block_new_start[b] + (pos - starts[b])

        return perm, np.repeat(bq[block_perm], new_lengths), new_position
    small = query.astype(np.uint16) if n_queries <= 1 << 16 else query
    perm = np.argsort(small, kind="stable").astype(np.int64)
    inverse = np.empty(n, dtype=np.int64)
    inverse[perm] = np.arange(n, dtype=np.int64)
    return perm, query[perm], lambda pos: inverse[pos]


def _search_both(haystack: np.ndarray, left: np.ndarray, right: np.ndarray):
    """``(searchsorted(haystack, left, "left"), searchsorted(haystack, right, "right"))``
    (``int64`` each), the two searches on two threads when the needles are many
    (NumPy's searchsorted releases the GIL)."""
    if len(left) < (1 << 16) or (os.cpu_count() or 1) < 2:
        return np.searchsorted(haystack, left, "left"), np.searchsorted(haystack, right, "right")
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        lo = pool.submit(np.searchsorted, haystack, left, "left")
        hi = np.searchsorted(haystack, right, "right")
        return lo.result(), hi


def _run_matches(qrels: QrelsColumns, run: RunColumns, run_query: np.ndarray, qrels_query: np.ndarray):
    """The judged run rows and their grades: ``(rows int64, grades float64)``.

    Candidate matches come from the ``(qid, docno)`` pair hashes (the run's sorted
    hash index, built once for its duplicate check, is searched for every judgment);
    each candidate is then confirmed exactly: same query, same docno string.
    """
    if len(run) == 0 or len(qrels) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    from .factorize import strings_equal

    index = run._pair_index()
    h_q = qrels._pair_hashes()
    # the run's block (of rows of one query) that each judgment's query has, -1: none
    block_q = np.zeros(len(h_q), dtype=np.int64)
    if index.block_bits:
        block_of = np.full(int(qrels_query.max(initial=-1)) + 1, -1, dtype=np.int64)
        head = run_query[index.block_start]
        block_of[head[head >= 0]] = np.flatnonzero(head >= 0)
        block_q = block_of[qrels_query]
    keep = np.flatnonzero(block_q >= 0)
    q_low = index.probe(block_q[keep], h_q[keep])  # the smallest key a match can have
    q_order = np.argsort(q_low)
    q_low = q_low[q_order]
    q_order = keep[q_order]
    lo, hi = _search_both(index.keys, q_low, q_low | index.low_mask)
    count = hi - lo
    cand_q = np.repeat(q_order, count)
    cand_r = index.rows(index.keys[concat_ranges(lo, count)])
    # in run-row order, the gathers below (queries, string offsets and bytes) and the
    # caller's scatter of the grades walk memory forward instead of at random
    by_row = np.argsort(cand_r)
    cand_q, cand_r = cand_q[by_row], cand_r[by_row]
    ok = (run_query[cand_r] == qrels_query[cand_q]) & (run_query[cand_r] >= 0)
    cand_q, cand_r = cand_q[ok], cand_r[ok]
    ok = strings_equal(run._docno_arrow(), cand_r, qrels._docno_arrow(), cand_q)
    return cand_r[ok], qrels.grade[cand_q[ok]]


def build_problem(qrels: QrelsColumns, run: RunColumns) -> Problem:
    """Join ``run`` with ``qrels`` (vectorised; no sort of the docno strings).

    Run queries absent from the qrels are dropped; qrels queries absent from the run
    get an empty ranking (the ``missing`` convention decides their score).
    """
    q_qrels, qids = qrels._qid_codes()  # evaluated queries: the qrels', sorted
    nq = len(qids)
    q_run, run_vocab = run._qid_codes()
    remap = np.full(len(run_vocab), -1, dtype=np.int64)
    if nq and len(run_vocab):
        pos = np.minimum(np.searchsorted(qids, run_vocab), nq - 1)
        hit = qids[pos] == run_vocab
        remap[hit] = pos[hit]
    if len(remap) == nq and np.array_equal(remap, np.arange(nq)):
        rq_all = q_run  # the run has exactly the qrels' queries: codes agree
    else:
        rq_all = remap[q_run] if len(q_run) else np.zeros(0, dtype=np.int64)

    if len(q_qrels) < 2 or np.all(q_qrels[1:] >= q_qrels[:-1]):
        jq, judged_grade = q_qrels, qrels.grade
    else:
        jorder = np.argsort(q_qrels, kind="stable")
        jq, judged_grade = q_qrels[jorder], qrels.grade[jorder]
    judged_offsets = offsets_from_sorted(jq, nq)

    matched, matched_grade = _run_matches(qrels, run, rq_all, q_qrels)
    rows = None if (remap >= 0).all() else np.flatnonzero(rq_all >= 0).astype(np.int64)
    rq = rq_all if rows is None else rq_all[rows]
    where = matched if rows is None else np.searchsorted(rows, matched)  # position among kept rows
    # lay the rows out by query once (a TREC file sorted by numeric qid is not in
    # strcmp order), so that no tie policy has to move them again
    layout = _by_query(rq, nq)
    if layout is not None:
        perm, rq, new_position = layout
        rows = perm if rows is None else rows[perm]
        where = new_position(where)
    grade = np.full(len(rq), np.nan)
    grade[where] = matched_grade
    docno = run._docno_arrow()
    rank = getattr(run, "rank", None)  # kept only when a tie policy needs it (ties=rank)
    keys = SortKeys(query=rq, score=run.score if rows is None else run.score[rows], line=rows, grade=grade,
                    docno_strings=(docno, rows), rank=rank if rank is None or rows is None else rank[rows])
    in_run = np.zeros(nq, dtype=bool)
    in_run[rq] = True
    return Problem(qids, judged_offsets, judged_grade, keys, in_run)
