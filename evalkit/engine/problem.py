"""Joining a run with qrels.

A :class:`Problem` is one run against one set of qrels, restricted to the qrels'
queries (run queries without judgments are ignored).
:meth:`Problem.ranked` sorts the run under a tie policy once and caches the
:class:`~evalkit.engine.ranking.RankedList` that every flavour with that tie policy
reuses (sorting lives in :mod:`evalkit.engine.ranking`).

The join reads the run and the qrels through the package-internal protocol of
:mod:`evalkit.engine.protocols`, not through :mod:`evalkit.data`.

Everything is columnar: no Python loop over queries or documents.
"""

from __future__ import annotations

import copy
import os
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..columnar import concat_ranges, offsets_from_sorted, query_blocks
from ..float32 import scores_as_float32
from .checks import call_component
from .ranking import RankedList, SortKeys, _LazyCodes, restrict

if TYPE_CHECKING:
    from .protocols import QrelsColumns, RunColumns


class Problem:
    """One run joined with qrels.

    :param qids: evaluated query ids (``object`` ``(q,)``): the qrels' queries, sorted
        unless ``sorted_queries`` is given.
    :param judged_offsets: ``(q + 1,)`` offsets into ``judged_grade``.
    :param judged_grade: ``float64`` ``(m,)`` grades of every judged document, by query.
    :param keys: the run's rows restricted to evaluated queries, as :class:`SortKeys`.
    :param in_run: ``bool`` ``(q,)``: the query has at least one ranked document.
    :param docno_vocab: ``object`` array; ``docno_vocab[code]`` is the docno string
        (``None``: taken from ``keys`` on first access).
    :param sorted_queries: ``int64`` ``(q,)``: the index in ``qids`` of each query of
        the sorted qids (``values[sorted_queries]`` puts per-query values in sorted qid
        order), or ``None`` when ``qids`` is sorted
        (:func:`build_problem` with ``block_order``).

    ``_cache`` (engine-private) is a scratch dict shared by every flavour evaluated
    on this problem (gains, discounts and ideal rankings computed once, see
    :class:`evalkit.kernel.MetricInput`).
    """

    def __init__(self, qids: np.ndarray, judged_offsets: np.ndarray, judged_grade: np.ndarray, keys: SortKeys,
                 in_run: np.ndarray, docno_vocab: np.ndarray | None = None, *,
                 sorted_queries: np.ndarray | None = None,
                 judged_at: tuple[np.ndarray, np.ndarray | None] | None = None) -> None:
        self.qids = qids
        #: ``(qrels rows, order)`` or ``None``: the qrels row of each judged row of
        #: ``keys`` (aligned with its judged rows) and the permutation that laid the
        #: qrels out by query (``None``: none), from which :meth:`judged_positions`
        #: finds a judged row's place in ``judged_grade`` (grade substitution)
        self._judged_at = judged_at
        #: the problem whose sorts this one reuses (:func:`evalkit.engine.substitute.substituted`)
        self._parent: Problem | None = None
        #: per sort (cache key): the tie policy read no grade, so its order holds for
        #: any grades (a substituted problem reuses it)
        self._grade_free: dict = {}
        self.sorted_queries = sorted_queries
        self.judged_offsets = judged_offsets
        self.judged_grade = judged_grade
        self.keys = keys
        self.in_run = in_run
        self._docno_vocab: Any = docno_vocab  # None until read from the keys
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

    def judged_positions(self, rows: np.ndarray) -> np.ndarray:
        """Index into :attr:`judged_grade` of the judgment of each of the judged key
        rows ``rows`` (``int64``, ascending, each judged): ``int64`` ``(len(rows),)``.

        :raises ValueError: the problem was not built from qrels (no record of where
            its judgments came from)."""
        if self._judged_at is None:
            raise ValueError("this problem keeps no record of its judgments' places")
        qrows, jorder = self._judged_at
        judged_rows = self.keys._judged[0] if self.keys._judged is not None else np.flatnonzero(
            ~np.isnan(self.keys.grade))
        q = qrows[np.searchsorted(judged_rows, rows)]
        if jorder is None:
            return q
        inverse = np.empty(len(jorder), dtype=np.int64)
        inverse[jorder] = np.arange(len(jorder), dtype=np.int64)
        return inverse[q]

    def ranked(self, policy: Any, params: dict, *, depth: int | None = None, judged_only: bool = False,
               drop: tuple[Any, Callable[[RankedList], np.ndarray]] | None = None,
               keep_negative: bool = False) -> RankedList:
        """The run sorted under ``policy`` (a :class:`~evalkit.components.TiePolicy`),
        computed once per policy and parameters and then reused.

        :param depth: keep only the first ``depth`` documents of each query after
            sorting (the ``depth`` convention; ``None`` keeps all).
        :param judged_only: drop unjudged documents (no grade, or a negative grade)
            after sorting and truncation, and renumber the ranks (the ``judged_only`` convention).
        :param keep_negative: with ``judged_only``, keep the documents with a negative
            grade (a negative rule with negative gains: a negative grade is a judgment,
            not "not in the pool").
        :param drop: ``(key, fn)`` or ``None``: ``fn(ranked) -> bool (n,)`` gives the
            positions of the sorted run that leave it (the run filter and the judgment
            rules' drops), before ``depth`` and ``judged_only``; ranks renumbered.
            ``key`` (hashable) names the filters in the cache.
        """
        if drop is not None:
            drop_key, drop_fn = drop
            key: tuple = (policy.name, tuple(sorted(params.items())), "drop", drop_key)
            base = self._ranked.get(key)
            if base is None:
                base = self.ranked(policy, params)
                base = self._ranked[key] = restrict(base, None, False, drop=drop_fn(base))
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
        parent = self._parent
        if parent is not None:  # grades substituted: the parent's sort, if it read no grade
            base = parent.ranked(policy, params)
            if parent._grade_free.get(cache_key):
                order = base._source()[1]
                hit = copy.copy(base)
                hit._grade, hit._source = None, (lambda: (keys, order))
                self._ranked[cache_key] = hit
                self._grade_free[cache_key] = True
                return hit
        reads = keys.grade_reads
        order = np.asarray(call_component("ties", policy, keys, **params), dtype=np.int64)
        self._grade_free[cache_key] = keys.grade_reads == reads
        if order.shape != keys.query.shape:
            raise ValueError(f"tie policy '{policy.name}' returned an order of shape {order.shape}")
        if keys.same_queries(order):
            query = keys.query  # the order moves rows within their query only
            offsets = keys.query_offsets(self.n_queries)
        else:
            query = keys.gatherer(order)(keys.query)
            offsets = offsets_from_sorted(query, self.n_queries)
        # an averaged policy's tie blocks are runs of equal scores at the precision the
        # policy compared them (``score=float32``: scores equal as float32 form one block)
        block_score = None
        if policy.averaged and params.get("score") == "float32":
            block_score = keys.gatherer(order)(scores_as_float32(keys.score).astype(np.float64))
        ranked = RankedList(
            offsets=offsets,
            query=query,
            rank=None,
            grade=None,
            docno=_LazyCodes(keys, order),
            averaged=bool(policy.averaged),
            score=block_score,
            source=lambda: (keys, order),
        )
        self._ranked[cache_key] = ranked
        return ranked

def _by_query(query: np.ndarray, n_queries: int) -> Any:
    """Stable layout of rows by query ascending: ``(perm, query[perm])``, or ``None``
    if the rows are already so laid out. For rows whose queries are interleaved (one
    contiguous block per query is laid out by :func:`build_problem` itself): a
    stable sort of the query index (a radix sort for up to 65,536 queries)."""
    n = len(query)
    if n < 2 or not np.any(query[1:] < query[:-1]):
        return None
    small = query.astype(np.uint16) if n_queries <= 1 << 16 else query
    perm = np.argsort(small, kind="stable").astype(np.int64)
    return perm, query[perm]


#: rounds of :func:`_right_of`'s step before it searches for the rest
RIGHT_STEPS = 4


def _right_of(haystack: np.ndarray, lo: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``searchsorted(haystack, right, "right")`` (``int64``) given ``lo``, the
    positions ``searchsorted(haystack, left, "left")`` of needles ``left <= right``:
    each position stepped forward over the keys ``<= right`` that follow it, one
    vectorised step per key (a range holds 0 or 1 key but for a hash collision or a
    pair given twice); needles still moving after :data:`RIGHT_STEPS` steps are
    searched. The same positions as the search for a fraction of its cost (a binary
    search per needle is ~15 mispredicted branches on dl20's 19,900 keys)."""
    hi = lo.astype(np.int64, copy=True)
    n = len(haystack)
    live = np.flatnonzero(hi < n)
    for _ in range(RIGHT_STEPS):
        if not len(live):
            return hi
        live = live[haystack[hi[live]] <= right[live]]
        hi[live] += 1
        live = live[hi[live] < n]
    if len(live):
        hi[live] = np.searchsorted(haystack, right[live], "right")
    return hi


def _search_both(haystack: np.ndarray, left: np.ndarray, right: np.ndarray) -> Any:
    """``(searchsorted(haystack, left, "left"), searchsorted(haystack, right, "right"))``
    (``int64`` each, ``left <= right``, ``haystack`` sorted): below 2^18 needles one
    search and :func:`_right_of`; above, the two searches on two threads (NumPy's
    searchsorted releases the GIL). Below 2^18 needles both searches take a few ms
    (Robust 2003's 128,796 judgments: 5 ms), less than importing
    :mod:`concurrent.futures` (6 ms) and starting a thread for half of it."""
    if len(left) < (1 << 18) or (os.cpu_count() or 1) < 2:
        lo = np.searchsorted(haystack, left, "left")
        return lo, _right_of(haystack, lo, right)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        low = pool.submit(np.searchsorted, haystack, left, "left")
        hi = np.searchsorted(haystack, right, "right")
        return low.result(), hi


#: joins of at most this many judgments and run rows order their candidates with the
#: small-table sorts below (:func:`_probe_order`, :func:`_row_order`)
SMALL_ROWS = 1 << 20


#: below this many probes per block on average, :func:`_probe_order` sorts them in one
#: :func:`_packed_order` (dl20: 11,386 probes in 54 blocks, 0.40 -> 0.34 ms) instead of
#: one ``argsort`` per block (Robust 2003: 128,796 in 100 blocks, 4.0 ms against 5.7)
PACKED_PROBES = 512


def _packed_order(q_low: np.ndarray) -> np.ndarray:
    """A permutation (``int64``) sorting ``q_low`` (``uint64``) but for its lowest
    ``b`` bits, where ``2^b >= len(q_low)``: the position of each key is packed into
    them and the keys are sorted by value (``np.sort``: cheaper than ``np.argsort``).
    Keys that differ in those bits only may come in either order."""
    bits = max(1, int(len(q_low) - 1).bit_length())
    low = np.uint64((1 << bits) - 1)
    packed = q_low & ~low
    packed |= np.arange(len(q_low), dtype=np.uint64)
    packed.sort()
    return (packed & low).astype(np.int64)


def _probe_order(q_low: np.ndarray, block: np.ndarray, n_blocks: int) -> np.ndarray:
    """A permutation sorting the probe keys ``q_low`` (``uint64``, the run block
    ``block`` (``int64``, ``< n_blocks``) in their top bits): ``np.argsort(q_low)``,
    or, for a small join of fewer than 2^16 blocks, :func:`_packed_order` when the
    blocks hold few probes, else a radix sort by block and one ``argsort`` per block
    (Robust 2003: 128,796 probes in 100 blocks, about half the time). Equal keys
    (packed: keys equal but for their lowest bits) may come in another order than
    ``argsort``'s, which no result depends on (the searches take the needles in any
    order; every candidate is confirmed, then ordered by run row)."""
    if len(q_low) > SMALL_ROWS or n_blocks >= 1 << 16:
        return np.argsort(q_low)
    if len(q_low) < PACKED_PROBES * n_blocks:  # short blocks: one sort, no Python loop
        return _packed_order(q_low)
    by_block = np.argsort(block.astype(np.uint16), kind="stable")  # a radix sort
    out = np.empty_like(by_block)
    start = 0
    for stop in np.cumsum(np.bincount(block, minlength=n_blocks)).tolist():
        if stop > start:
            part = by_block[start:stop]
            out[start:stop] = part[np.argsort(q_low[part])]
        start = stop
    return out


def _row_order(rows: np.ndarray, n: int) -> np.ndarray:
    """``np.argsort(rows)`` of candidate run rows (``int64``, ``< n``): for a small
    run whose candidates are distinct rows (the usual case), by counting (one
    ``bincount``, no comparison sort)."""
    if n > SMALL_ROWS or not len(rows):
        return np.argsort(rows)
    counts = np.bincount(rows, minlength=n)
    if counts.max() > 1:  # a row with two candidates (a hash collision): argsort's order
        return np.argsort(rows)
    first = np.cumsum(counts)
    first -= counts
    out = np.empty(len(rows), dtype=np.int64)
    out[first[rows]] = np.arange(len(rows), dtype=np.int64)
    return out


#: a join of qrels and a run of at most this many rows each whose docno columns are
#: ``object`` arrays (small files, split by ``str`` methods) looks the run's
#: ``(query, docno)`` pairs up in a dict of the qrels' (:func:`_dict_matches`) instead
#: of hashing both and searching the run's sorted index
DICT_JOIN_MAX_ROWS = 1 << 10


def _dict_matches(qrels: QrelsColumns, run: RunColumns, run_codes: np.ndarray, remap: np.ndarray,
                  qrels_query: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`_run_matches` of two small tables by a dict: the judged run rows (in row
    order), their grades and their qrels rows; the dict is built and probed by
    ``zip``/``map`` (no Python code per row). ``None`` (the hash join then runs) unless
    both docno columns are ``object`` arrays and the qrels' pairs are distinct."""
    qrels_docno, run_docno = qrels._docno_arrow(), run._docno_arrow()
    if not (isinstance(qrels_docno, np.ndarray) and qrels_docno.dtype == object
            and isinstance(run_docno, np.ndarray) and run_docno.dtype == object):
        return None
    judged = dict(zip(zip(qrels_query.tolist(), qrels_docno.tolist()), range(len(qrels_docno))))
    if len(judged) != len(qrels_docno):
        return None  # a pair judged twice (never from a reader): the hash join keeps every match
    import itertools

    pairs = zip(remap[run_codes].tolist(), run_docno.tolist())  # query -1: not in the qrels, never judged
    qrow = np.fromiter(map(judged.get, pairs, itertools.repeat(-1)), dtype=np.int64, count=len(run_docno))
    rows = np.flatnonzero(qrow >= 0)
    qrows = qrow[rows]
    return rows, qrels.grade[qrows], qrows


def _run_matches(qrels: QrelsColumns, run: RunColumns, run_codes: np.ndarray, remap: np.ndarray,
                 qrels_query: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The judged run rows, their grades and their qrels rows: ``(rows int64,
    grades float64, qrels rows int64)``.

    Candidate matches come from the ``(qid, docno)`` pair hashes (the run's sorted
    hash index, built once for its duplicate check, is searched for every judgment);
    each candidate is then confirmed exactly: same query, same docno string.

    :param run_codes: the run's query codes (``(n,)``, any integer dtype) and
        ``remap`` (``int64``) their qrels query index (``-1``: not in the qrels): the
        query of run row ``i`` is ``remap[run_codes[i]]``, read at the candidates only.
    """
    if len(run) == 0 or len(qrels) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0, dtype=np.int64)
    if len(run) <= DICT_JOIN_MAX_ROWS and len(qrels) <= DICT_JOIN_MAX_ROWS:
        small = _dict_matches(qrels, run, run_codes, remap, qrels_query)
        if small is not None:
            return small
    from .factorize import strings_equal

    index = run._pair_index()
    h_q = qrels._pair_hashes()
    # the run's block (of rows of one query) that each judgment's query has, -1: none
    block_q = np.zeros(len(h_q), dtype=np.int64)
    if index.block_bits:
        block_of = np.full(int(qrels_query.max(initial=-1)) + 1, -1, dtype=np.int64)
        head = remap[run_codes[index.block_start]]
        block_of[head[head >= 0]] = np.flatnonzero(head >= 0)
        block_q = block_of[qrels_query]
    keep = np.flatnonzero(block_q >= 0)
    q_low = index.probe(block_q[keep], h_q[keep])  # the smallest key a match can have
    q_order = _probe_order(q_low, block_q[keep], len(index.block_start)) if index.block_bits else np.argsort(q_low)
    q_low = q_low[q_order]
    q_order = keep[q_order]
    lo, hi = _search_both(index.keys, q_low, q_low | index.low_mask)
    count = hi - lo
    if len(count) and count.max() <= 1:  # the usual case: a range holds 0 or 1 key
        found = count.astype(bool)
        cand_q, cand_r = q_order[found], index.rows(index.keys[lo[found]])
    else:
        cand_q = np.repeat(q_order, count)
        cand_r = index.rows(index.keys[concat_ranges(lo, count)])
    del index  # the run lets its index go after the first join (8 bytes a row)
    # in run-row order, the gathers below (queries, string offsets and bytes) and the
    # caller's scatter of the grades walk memory forward instead of at random
    by_row = _row_order(cand_r, len(run))
    cand_q, cand_r = cand_q[by_row], cand_r[by_row]
    rq = remap[run_codes[cand_r]]
    ok = (rq == qrels_query[cand_q]) & (rq >= 0)
    cand_q, cand_r = cand_q[ok], cand_r[ok]
    ok = strings_equal(run._docno_arrow(), cand_r, qrels._docno_arrow(), cand_q)
    cand_q = cand_q[ok]
    return cand_r[ok], qrels.grade[cand_q], cand_q


def _blocks(codes: np.ndarray, remap: np.ndarray) -> Any:
    """The run's rows as blocks of one query each: ``(starts, lengths, query)``
    (``int64``: first row, row count and qrels query index, ``-1`` if not in the
    qrels, of every block in file order), or ``None`` if a query's rows are not
    contiguous (interleaved queries)."""
    n = len(codes)
    starts = query_blocks(codes)
    if starts is None:
        return None
    starts = starts.astype(np.int64, copy=False)
    lengths = np.diff(np.append(starts, n))
    return starts, lengths, remap[codes[starts]] if n else np.zeros(0, dtype=np.int64)


def build_problem(qrels: QrelsColumns, run: RunColumns, *, block_order: bool = False) -> Problem:
    """Join ``run`` with ``qrels`` (vectorised; no sort of the docno strings).

    Run queries absent from the qrels are dropped; qrels queries absent from the run
    get an empty ranking (the ``missing`` convention decides their score).

    :param block_order: number the problem's queries in the order of the run's query
        blocks (the file's order) when every query's rows are contiguous, instead of
        sorted qid order: the rows then stay where they are (no layout permutation,
        no copy of the scores, query indices or row numbers). The problem's
        :attr:`Problem.sorted_queries` maps the values back to ``qrels.qids`` order
        (every value of a query depends on that query's rows alone, so the values
        are the same bit for bit).
    """
    q_qrels, qids = qrels._qid_codes()  # evaluated queries: the qrels', sorted
    nq = len(qids)
    q_run, run_vocab = run._qid_codes()
    remap = np.full(len(run_vocab), -1, dtype=np.int64)
    if nq and len(run_vocab):
        pos = np.minimum(np.searchsorted(qids, run_vocab), nq - 1)
        hit = qids[pos] == run_vocab
        remap[hit] = pos[hit]

    matched, matched_grade, matched_qrow = _run_matches(qrels, run, q_run, remap, q_qrels)
    blocks = _blocks(q_run, remap)
    sorted_queries = None  # problem index of each qrels query (None: the same)
    if blocks is not None:
        # one contiguous block per query: the rows stay in file order; query indices
        # from the blocks (a file whose blocks follow the qids' strcmp order keeps them)
        starts, lengths, bq = blocks
        rows_sorted = True
        kept = bq >= 0
        if kept.all():
            rows = None
        else:
            starts, lengths, bq = starts[kept], lengths[kept], bq[kept]
            rows = concat_ranges(starts, lengths)
        if len(bq) > 1 and not np.all(bq[1:] > bq[:-1]):
            if block_order:
                present = np.zeros(nq, dtype=bool)
                present[bq] = True
                old_of_new = np.concatenate((bq, np.flatnonzero(~present)))
                sorted_queries = np.empty(nq, dtype=np.int64)
                sorted_queries[old_of_new] = np.arange(nq, dtype=np.int64)
                qids = qids[old_of_new]
                bq = np.arange(len(bq), dtype=np.int64)
            else:  # lay the blocks out by query (a TREC file sorted by numeric qid is not in strcmp order)
                block_perm = np.argsort(bq, kind="stable")
                rows = concat_ranges(starts[block_perm], lengths[block_perm])
                bq, lengths = bq[block_perm], lengths[block_perm]
                rows_sorted = False
        rq = np.repeat(bq, lengths)
    else:
        rq_all = remap[q_run] if len(q_run) else np.zeros(0, dtype=np.int64)
        rows = None if (remap >= 0).all() else np.flatnonzero(rq_all >= 0).astype(np.int64)
        rq = rq_all if rows is None else rq_all[rows]
        layout = _by_query(rq, nq)
        rows_sorted = layout is None
        if layout is not None:
            perm, rq = layout
            rows = perm if rows is None else rows[perm]
    # the judged rows' positions among the kept rows, ascending (every matched row is
    # a kept row: its query is in the qrels); the grade column is built only if read
    if rows is None:
        where = matched  # ascending: the join returns them in row order
    elif rows_sorted:
        where = np.searchsorted(rows, matched)
    else:  # laid out by query
        inverse = np.empty(len(q_run), dtype=np.int64)
        inverse[rows] = np.arange(len(rows), dtype=np.int64)
        where = inverse[matched]
        del inverse
        by_position = np.argsort(where)
        where, matched_grade = where[by_position], matched_grade[by_position]
        matched_qrow = matched_qrow[by_position]

    jq = q_qrels if sorted_queries is None else sorted_queries[q_qrels]
    jorder = None
    if len(jq) < 2 or np.all(jq[1:] >= jq[:-1]):
        judged_grade = qrels.grade
    else:
        # a radix sort for up to 65,536 queries (the same stable permutation)
        jorder = np.argsort(jq.astype(np.uint16) if nq <= 1 << 16 else jq, kind="stable").astype(np.int64)
        jq, judged_grade = jq[jorder], qrels.grade[jorder]
    judged_offsets = offsets_from_sorted(jq, nq)

    docno = run._docno_arrow()
    rank = getattr(run, "rank", None)  # kept only when a tie policy needs it (ties=rank)
    keys = SortKeys(query=rq, score=run.score if rows is None else run.score[rows], line=rows,
                    judged=(where, matched_grade), docno_strings=(docno, rows),
                    rank=rank if rank is None or rows is None else rank[rows])
    in_run = np.zeros(nq, dtype=bool)
    in_run[rq] = True
    return Problem(qids, judged_offsets, judged_grade, keys, in_run, sorted_queries=sorted_queries,
                   judged_at=(matched_qrow, jorder))
