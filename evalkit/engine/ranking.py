"""A run sorted under a tie policy: the sort keys a tie policy reads
(:class:`SortKeys`) and the sorted positions a metric reads (:class:`RankedList`).

Everything is columnar: no Python loop over queries or documents.
"""

from __future__ import annotations

import sys

import numpy as np

from ..columnar import concat_ranges, offsets_from_sorted
from .factorize import _by_block_then_value, tie_groups
from typing import Any

__all__ = ["RankedList", "SortKeys", "restrict"]


class SortKeys:
    """Per-row sort keys handed to tie policies (all shape ``(n,)``).

    :param query: ``int64`` query index (position in :attr:`Problem.qids`).
    :param score: ``float64`` score, higher first.
    :param docno: ``int64`` docno code in ``strcmp`` order. When the keys are built
        from a run, the codes are computed on first access (they cost a sort of all
        the run's docnos); :meth:`docno_key` orders a few rows without them.
    :param line: ``int64`` input order.
    :param grade: ``float64`` grade, ``NaN`` if unjudged.
    :param rank: ``int32`` rank column of the run (``None``: the run has none; reading
        :attr:`rank` then raises :class:`~evalkit.errors.RankColumnError`).
    :param judged: instead of ``grade``, ``(rows, grades)``: the judged rows
        (``int64``, ascending) and their grades (``float64``); :attr:`grade` is then
        built on first access, and :meth:`grade_at` reads a few rows without it (a
        DCG@10 reads 10 rows a query, not all of them).
    :param width: the rows form a grid (dense arrays): query ``i`` owns rows
        ``i * width`` to ``(i + 1) * width - 1``, in input order (``query`` must say the
        same; ``line`` is ``None``). :meth:`score_order` then sorts the grid's rows as
        the rows of one 2-D array without looking for the queries' blocks, and
        ``docno`` may be ``None`` (the column index, built on first access).

    The helpers :meth:`score_order`, :meth:`query_order` and :meth:`refine_ties` give
    tie policies the usual orders in ``O(n)`` when the run is already sorted (a TREC
    file usually is), and by a stable ``np.lexsort`` otherwise.
    """

    def __init__(self, query: np.ndarray, score: np.ndarray, docno: np.ndarray | None = None,
                 line: np.ndarray | None = None, grade: np.ndarray | None = None, *,
                 docno_strings: tuple | None = None, rank: np.ndarray | None = None,
                 judged: tuple[np.ndarray, np.ndarray] | None = None, width: int | None = None) -> None:
        self.query = query
        self.score = score
        self._rank = rank
        self._line = line  # None: rows are in input order (line = 0, 1, 2, ...)
        self._grade: Any = grade  # None until built from ``judged`` (or no grades at all)
        self._judged = judged
        #: times a grade was read (:attr:`grade`, :meth:`grade_at`, :meth:`graded`): the
        #: engine learns that way whether a tie policy's order depends on the grades
        self.grade_reads = 0
        self._identity: np.ndarray | None = None
        self._docno = None if docno is None else np.asarray(docno)
        self._docno_vocab: np.ndarray | None = None
        # (Arrow string array, rows or None): the docno of row i is strings[rows[i]]
        self._docno_strings = docno_strings
        self._width = None if width is None else int(width)
        if self._width is not None and (line is not None or self._width < 1 or len(query) % self._width):
            raise ValueError("SortKeys(width=...) needs rows in input order (line=None) filling whole rows")
        self._within: np.ndarray | None = None  # the last order known to move rows within their query only
        self._offsets: tuple[int, np.ndarray] | None = None  # (n_queries, query offsets), cached
        if docno is None and docno_strings is None and self._width is None:
            raise TypeError("SortKeys needs docno codes or docno_strings")

    @property
    def rank(self) -> np.ndarray:
        """The run's rank column, ``int32`` ``(n,)``.

        :raises RankColumnError: the run was read without it."""
        if self._rank is None:
            from ..errors import HOW_TO_KEEP_RANK, RankColumnError

            raise RankColumnError(f"this tie policy orders the run by its rank column, which the run does "
                                  f"not have: {HOW_TO_KEEP_RANK}")
        return self._rank

    @property
    def grade(self) -> np.ndarray:
        """``float64`` ``(n,)`` grade of every row, ``NaN`` if unjudged."""
        self.grade_reads += 1
        if self._grade is None and self._judged is not None:
            rows, grades = self._judged
            grade = np.full(len(self.query), np.nan)
            grade[rows] = grades
            self._grade = grade
        return self._grade

    @grade.setter
    def grade(self, value: Any) -> None:
        self._grade, self._judged = value, None

    def grade_at(self, rows: np.ndarray) -> np.ndarray:
        """``grade[rows]`` (``float64``), without building :attr:`grade`."""
        self.grade_reads += 1
        if self._grade is not None or self._judged is None:
            return self.grade[rows]
        judged, grades = self._judged
        rows = np.asarray(rows)
        if len(judged) == 0:
            return np.full(rows.shape, np.nan)
        at = np.minimum(np.searchsorted(judged, rows), len(judged) - 1)
        return np.where(judged[at] == rows, grades[at], np.nan)

    def graded(self, floor: float) -> tuple[np.ndarray | None, np.ndarray]:
        """``(rows, grades)``: the rows whose grade is ``>= floor`` (``int64``,
        ascending; ``None`` when that is every row) and their grades (``float64``: a
        fresh array the caller may keep or overwrite, or :attr:`grade` itself when it
        is read-only, as from dense arrays). Reads only the judged rows when
        :attr:`grade` is not built (a run joined with qrels)."""
        self.grade_reads += 1
        if self._grade is None and self._judged is not None:
            rows, grades = self._judged
            ok = grades >= floor
            if ok.all():
                return rows.copy(), grades.copy()
            return rows[ok], grades[ok]
        grade = self.grade
        ok = grade >= floor  # False for NaN (unjudged)
        if ok.all():
            return None, grade if not grade.flags.writeable else grade.copy()
        rows = np.flatnonzero(ok)
        return rows, grade[rows]

    @property
    def line(self) -> np.ndarray:
        if self._line is None:
            self._line = self.identity()
        return self._line

    def identity(self) -> np.ndarray:
        """``np.arange(n)`` (cached: the order of rows already in order)."""
        if self._identity is None:
            self._identity = np.arange(len(self.query), dtype=np.int64)
        return self._identity

    def query_offsets(self, n_queries: int) -> np.ndarray:
        """``offsets_from_sorted(query, n_queries)`` (``int64`` ``(n_queries + 1,)``) for
        rows laid out by query, computed once (every tie policy's order keeps rows in
        their query, so every ranked list of these keys shares it)."""
        hit = self._offsets
        if hit is None or hit[0] != n_queries:
            width = self._width
            if width is not None and len(self.query) == n_queries * width:
                offsets = np.arange(n_queries + 1, dtype=np.int64) * width
            else:
                offsets = offsets_from_sorted(self.query, n_queries)
            hit = self._offsets = (n_queries, offsets)
        return hit[1]

    def moved(self, order: np.ndarray, limit: int | None = None) -> np.ndarray | None:
        """Positions ``i`` with ``order[i] != i`` (``int64``; cached for the last order).

        :param limit: return ``None`` as soon as more than ``limit`` positions are found
            to move (counted a chunk at a time: an order that moves most rows is not
            scanned to its end)."""
        if order is self._identity or len(order) == 0:
            return np.zeros(0, dtype=np.int64)
        hit = getattr(self, "_moved", None)
        if hit is not None and hit[0] is order:
            return None if limit is not None and len(hit[1]) > limit else hit[1]
        identity = self.identity()
        if limit is None:
            moved = np.flatnonzero(order != identity)
        else:
            parts, count = [], 0
            for start in range(0, len(order), _CHUNK):
                part = np.flatnonzero(order[start: start + _CHUNK] != identity[start: start + _CHUNK])
                count += len(part)
                if count > limit:
                    return None
                parts.append(part + start)
            moved = np.concatenate(parts)
        self._moved = (order, moved)
        return moved

    def gatherer(self, order: np.ndarray) -> Any:
        """``f(a) == a[order]`` for row arrays ``a``, cheap when ``order`` moves few rows
        (the rows already in place are copied, the others gathered)."""
        n = len(order)
        moved = self.moved(order, limit=n // 4)
        if moved is None:
            return lambda a: a[order]
        if len(moved) == 0:
            return lambda a: a
        src = order[moved]

        def take(a: Any) -> Any:
            out = a.copy()
            out[moved] = a[src]
            return out
        return take

    @property
    def docno(self) -> np.ndarray:
        if self._docno is None and self._docno_strings is None:  # a grid: the column index
            assert self._width is not None  # no docno codes nor strings: a grid (__init__)
            self._docno = np.tile(np.arange(self._width, dtype=np.int64), len(self.query) // self._width)
        if self._docno is None:
            from .factorize import encode

            assert self._docno_strings is not None  # neither codes nor a grid: strings (__init__)
            strings, rows = self._docno_strings
            if rows is not None:
                from .factorize import take

                strings = take(strings, rows)
            self._docno, self._docno_vocab = encode(strings)
        return self._docno

    @property
    def docno_vocab(self) -> np.ndarray | None:
        """Sorted docno strings when the codes came from strings (``docno_vocab[code]``)."""
        if self._docno is None:
            self.docno
        return self._docno_vocab

    def _codes_at(self, rows: np.ndarray) -> np.ndarray:
        """``docno[rows]``; a grid's column index without building :attr:`docno`."""
        if self._docno is None and self._docno_strings is None:
            assert self._width is not None  # no docno codes nor strings: a grid (__init__)
            return np.asarray(rows, dtype=np.int64) % self._width
        return self.docno[rows]

    def docno_key(self, rows: np.ndarray) -> np.ndarray:
        """``int64`` values ordering ``rows`` by docno in ``strcmp`` order (equal docnos,
        equal values); only those rows' strings are read."""
        if self._docno is not None or self._docno_strings is None:
            return self._codes_at(rows)
        from .factorize import byte_order_ranks

        strings, src = self._docno_strings
        if len(rows) == 0:
            return np.zeros(0, dtype=np.int64)
        # byte order, as strcmp (and Python's str order) compare
        return byte_order_ranks(strings, rows if src is None else src[rows])

    def docno_sorter(self, descending: bool = False) -> Any:
        """A ``sort`` for :meth:`refine_ties`: ``f(rows, block)`` gives the positions
        ordering ``rows`` by ``block`` then docno (``strcmp`` order, reversed if
        ``descending``), stably: ``np.lexsort((±docno_key(rows), block))`` in one sort
        of the strings' words, no ranks (:func:`~evalkit.engine.factorize.byte_order_sort`)."""
        def sort(rows: np.ndarray, block: np.ndarray) -> np.ndarray:
            if self._docno is not None or self._docno_strings is None:
                codes = self._codes_at(rows)
                return _by_block_then_value(block, -codes if descending else codes)
            from .factorize import byte_order_sort

            strings, src = self._docno_strings
            return byte_order_sort(strings, rows if src is None else src[rows], block, descending)
        return sort

    def _line_increasing(self, new_q: np.ndarray | None = None) -> bool:
        """``line`` increases along the rows (within each query if ``new_q``, the
        ``bool`` ``(n - 1,)`` flags of query changes, is given)."""
        if self._line is None:
            return True
        line = self._line
        if len(line) < 2:
            return True
        up = line[1:] > line[:-1]
        if new_q is not None:
            up |= new_q
        return bool(np.all(up))

    def _blocks_in_query_order(self, within_ok: np.ndarray | None) -> np.ndarray | None:
        """If rows form one contiguous block per query, each already in the wanted
        order (``within_ok[i]``: row ``i + 1`` may follow row ``i``), return the order
        that lays the blocks out by query; else ``None``."""
        q = self.query
        n = len(q)
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        new_q = q[1:] != q[:-1]
        if within_ok is not None and not np.all(within_ok | new_q):
            return None
        if not self._line_increasing(new_q):
            return None
        starts = np.flatnonzero(np.concatenate(([True], new_q)))
        bq = q[starts]
        if len(bq) == 1 or np.all(bq[1:] > bq[:-1]):
            return self.identity()
        perm = np.argsort(bq, kind="stable")
        if np.any(bq[perm][1:] == bq[perm][:-1]):
            return None  # a query in several blocks
        lengths = np.diff(np.append(starts, n))
        return concat_ranges(starts[perm], lengths[perm])

    def query_order(self) -> np.ndarray:
        """Rows grouped by query (ascending), input (``line``) order within a query."""
        out = self._blocks_in_query_order(None)
        return out if out is not None else np.lexsort((self.line, self.query))

    def score_order(self, score: np.ndarray | None = None) -> np.ndarray:
        """Rows by query ascending, then score descending, ties in ``line`` order:
        ``np.lexsort((line, -score, query))``, in ``O(n)`` when already so sorted.

        :param score: ``float64`` ``(n,)`` scores to use instead of :attr:`score`.
        """
        s = self.score if score is None else score
        if self._width is not None and len(s) > 1:
            return self._sort_grid(s)
        if len(s) > 1:
            within = s[1:] <= s[:-1]
            out = self._blocks_in_query_order(within)
            if out is not None:
                return out
            out = self._sort_rows(s)
            if out is not None:
                return out
        return np.lexsort((self.line, -s, self.query))

    def rank_order(self) -> np.ndarray:
        """Rows by query ascending, then :attr:`rank` ascending, equal ranks in ``line``
        order: ``np.lexsort((line, rank, query))``, in ``O(n)`` when the rows are
        already so laid out (a run written in rank order), else one stable argsort of
        a folded ``(query, rank)`` key when the rows are grouped by query.

        :raises RankColumnError: the run has no rank column."""
        r = self.rank
        q = self.query
        if len(r) > 1:
            out = self._blocks_in_query_order(r[1:] > r[:-1])
            if out is not None:
                return out
            if np.all(q[1:] >= q[:-1]) and self._line_increasing(q[1:] != q[:-1]):
                return _by_block_then_value(q, r)
            return np.lexsort((self.line, r, q))
        return self.identity()

    def _sort_rows(self, s: np.ndarray, max_lengths: int = 64) -> np.ndarray | None:
        """Stable descending sort of ``s`` within each query when the rows are sorted
        by query and in ``line`` order (dense arrays, a run sorted by query only): the
        queries of each length are sorted together as the rows of one 2-D array, so
        the loop runs over distinct query lengths (at most ``max_lengths``), never over
        queries. ``None`` if the rows are not laid out so."""
        q = self.query
        n = len(q)
        if not np.all(q[1:] >= q[:-1]) or not self._line_increasing(q[1:] != q[:-1]):
            return None
        starts = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))
        lengths = np.diff(np.append(starts, n))
        if (lengths == lengths[0]).all():  # one length: the rows reshape to 2-D
            out = _argsort_rows_descending(s.reshape(-1, int(lengths[0])), starts).reshape(-1)
            self._within = out
            return out
        distinct = np.unique(lengths)
        if len(distinct) > max_lengths:
            return None
        out = np.empty(n, dtype=np.int64)
        for length in distinct:
            first = starts[lengths == length]
            idx = first[:, None] + np.arange(length)[None, :]
            order = np.argsort(-s[idx], axis=1, kind="stable")
            out[idx] = np.take_along_axis(idx, order, axis=1)
        self._within = out
        return out

    def _sort_grid(self, s: np.ndarray) -> np.ndarray:
        """:meth:`score_order` of a grid (``width``): each row of ``s.reshape(-1, width)``
        sorted by score descending, stably; the identity when every row already is."""
        width = self._width
        assert width is not None  # called for a grid only
        grid = s.reshape(-1, width)
        if width == 1 or (np.all(grid[0, 1:] <= grid[0, :-1]) and np.all(grid[:, 1:] <= grid[:, :-1])):
            return self.identity()
        out = _argsort_rows_descending(grid, np.arange(len(grid), dtype=np.int64) * width).reshape(-1)
        self._within = out
        return out

    def refined_score_order(self, score: np.ndarray | None = None, key: Any = None, *, sort: Any = None) -> np.ndarray:
        """``refine_ties(score_order(score), score, key, sort=sort)``, the usual order of
        a tie policy, without keeping :meth:`score_order`'s result: when the rows are
        already in score order, the identity permutation is refined in place (not
        copied, not cached), one ``int64`` array of ``n`` less at the evaluation's
        memory peak."""
        order = self.score_order(score)
        refs = getattr(sys, "getrefcount", lambda _: 0)(order)
        if order is not self._identity:
            # a fresh sort's result (held by ``order`` and getrefcount's argument only)
            # is refined in place too
            return self.refine_ties(order, score, key, sort=sort, _owned=refs == 2)
        # in place only if nothing else holds the cached identity (a caller may keep
        # what score_order or identity() returned): CPython's reference count is then
        # 3 (the cache, ``order``, getrefcount's argument); elsewhere, copy
        if order is self._line or refs != 3:
            return self.refine_ties(order, score, key, sort=sort)
        self._identity = None
        out = self.refine_ties(order, score, key, sort=sort, _in_place=True)
        if getattr(self, "_moved", (None,))[0] is not out:  # no ties: still the identity
            self._identity = out
        return out

    def refine_ties(self, order: np.ndarray, score: np.ndarray | None, key: Any = None, *,
                    sort: Any = None, _in_place: bool = False, _owned: bool = False) -> np.ndarray:
        """Reorder each block of equal ``(query, score)`` in ``order`` by ``key``
        ascending, stably (rows with equal keys keep their order).

        :param key: ``(n,)`` array, or a callable ``rows -> values`` called with the
            tied rows only (so a costly key is computed for the ties alone), a chunk of
            them at a time (no tie block is split between two calls).
        :param sort: instead of ``key``, a callable ``(rows, block) -> positions`` that
            orders the tied rows (``int64``) by their block (``int64``, non-decreasing)
            and then by the key itself, stably (e.g. :meth:`docno_sorter`).

        The ties are found and reordered in chunks of about ``2**17`` positions (never
        splitting a tie block), so a run in which almost every row ties (scores with one
        decimal) needs no ``n``-sized temporaries.
        """
        n = len(order)
        if n < 2:
            return order
        identity = _in_place or order is self._identity  # in place: order is the identity
        same = self._tied(order, self.score if score is None else score, identity)
        if not same.any():
            return order
        out = order if (_in_place or _owned) else order.copy()
        moved = []
        for start, stop in _tie_chunks(same, _CHUNK):
            pos, block = tie_groups(same[start: stop - 1])  # tied positions and their tie blocks
            if not len(pos):
                continue
            pos += start
            rows = pos if identity else order[pos]
            if sort is not None:
                new_rows = rows[sort(rows, block)]
            else:
                values = key(rows) if callable(key) else np.asarray(key)[rows]
                new_rows = rows[_by_block_then_value(block, values)]
            out[pos] = new_rows
            if identity:
                moved.append(pos[new_rows != pos])
        if identity:  # remember what moved: saves a pass in moved()
            self._moved = (out, np.concatenate(moved) if moved else np.zeros(0, dtype=np.int64))
            self._refined = out  # rows moved within tie blocks only: within their query
        return out

    def _tied(self, order: np.ndarray, score: np.ndarray, identity: bool) -> np.ndarray:
        """``bool`` ``(n - 1,)``: position ``i`` of ``order`` has the query and score of
        position ``i + 1`` (gathered in chunks: no ``n``-sized gathered copies)."""
        n = len(order)
        same = np.empty(n - 1, dtype=bool)
        query = self.query
        for start in range(0, n - 1, _CHUNK):
            stop = min(n - 1, start + _CHUNK)
            if identity:
                s, q = score[start: stop + 1], query[start: stop + 1]
            else:
                rows = order[start: stop + 1]
                s, q = score[rows], query[rows]
            part = same[start: stop]
            np.equal(s[1:], s[:-1], out=part)
            part &= q[1:] == q[:-1]
        return same

    def same_queries(self, order: np.ndarray) -> bool:
        """``query[order] == query``: ``order`` moves rows within their query only (a
        tie policy's order of rows laid out by query), checked in chunks."""
        n = len(order)
        hit = getattr(self, "_moved", None)
        if order is self._identity or order is self._within or order is getattr(self, "_refined", None):
            return True
        if hit is not None and hit[0] is order:
            moved = hit[1]
            return bool(np.array_equal(self.query[order[moved]], self.query[moved]))
        query = self.query
        for start in range(0, n, _CHUNK):
            if not np.array_equal(query[order[start: start + _CHUNK]], query[start: start + _CHUNK]):
                return False
        return True


_CHUNK = 1 << 17  # positions per chunk of the tie refinement


def _argsort_rows_descending(grid: np.ndarray, row_start: np.ndarray | None = None) -> np.ndarray:
    """``np.argsort(-grid, axis=1, kind="stable")`` (``int64``, the column index of
    each rank of each row: scores descending, equal scores by column ascending, NaN
    last), plus ``row_start[i]`` on row ``i`` if given; a few thousand rows at a time
    (small temporaries).

    NumPy's stable sort of ``float64`` is a timsort; sorting ``int64`` values (not
    indices) is a SIMD sort, several times faster. So each score becomes an
    ``int64`` that orders as the score descending (the IEEE bits, sign-folded; -0.0
    as 0.0) with its low bits replaced by the column index: one sort of those keys
    orders a row by score, equal scores by column. Two distinct scores of a row that
    agree but for those low bits (relative difference below about ``2**-45``) could
    come out in column order: the sorted scores are checked to be non-increasing, and
    a chunk where they are not (or holding a NaN) is sorted by the timsort instead.
    """
    rows, width = grid.shape
    out = np.empty((rows, width), dtype=np.int64)
    if width == 0:
        return out
    step = max(1, _CHUNK // width)
    bits = max(1, (width - 1).bit_length())
    columns = np.arange(width, dtype=np.int64)
    for first in range(0, rows, step):
        neg = -grid[first: first + step]
        neg += 0.0  # -0.0 -> 0.0: equal scores, equal bits
        part = out[first: first + step]
        key = neg.view(np.int64)
        np.bitwise_xor(key, (key >> 63) & _NOT_SIGN, out=part)  # ascending as -score
        part >>= bits
        part <<= bits
        part |= columns
        part.sort(axis=1)
        part &= (1 << bits) - 1  # the columns, by -score then column
        at = part + (np.arange(len(part), dtype=np.int64) * width)[:, None]
        by_score = neg.reshape(-1)[at.reshape(-1)].reshape(part.shape)
        if not np.all(by_score[:, 1:] >= by_score[:, :-1]):  # a NaN, or two scores folded together
            part[:] = np.argsort(neg, axis=1, kind="stable")
        if row_start is not None:
            part += row_start[first: first + step, None]
    return out


_NOT_SIGN = np.int64(0x7FFFFFFFFFFFFFFF)


def _tie_chunks(same: np.ndarray, size: int) -> Any:
    """``(start, stop)`` ranges of about ``size`` positions covering ``0 .. len(same)``,
    each cut where ``same`` is false (a tie block is never split)."""
    n = len(same) + 1
    start = 0
    while start < n:
        stop = start + size
        while stop < n and same[stop - 1]:  # positions stop - 1 and stop tie: cut later
            window = same[stop - 1: stop - 1 + size]
            free = np.flatnonzero(~window)
            stop += int(free[0]) if len(free) else len(window)
        stop = min(stop, n)
        yield start, stop
        start = stop


class _LazyCodes:
    """``keys.docno[index]`` computed on first use: an array-like (``np.asarray``
    works; indexing returns another lazy view). Docno codes cost a sort of all the
    run's docno strings, which no built-in metric needs."""

    dtype = np.dtype(np.int64)
    ndim = 1

    def __init__(self, keys: SortKeys, index: np.ndarray) -> None:
        self._keys, self._index = keys, index

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        out = self._keys.docno[self._index]
        return out if dtype is None else out.astype(dtype)

    def __len__(self) -> int:
        return len(self._index)

    @property
    def shape(self) -> tuple[int]:
        return (len(self._index),)

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, (int, np.integer)):
            return self._keys.docno[self._index[item]]
        return _LazyCodes(self._keys, self._index[item])

    def __iter__(self) -> Any:
        return iter(np.asarray(self))


class RankedList:
    """A run sorted under one tie policy, over all evaluated queries.

    Position arrays (shape ``(n,)``, query-contiguous, rank 1 first):
    ``query`` (``int64``), ``rank`` (1-based ``int64``), ``grade`` (``float64``, ``NaN`` =
    unjudged), ``docno`` (``int64`` code), ``block`` (``int64`` id of the block of equal
    scores the position belongs to; unique per position when scores differ).
    ``offsets`` (``(q + 1,)``) delimits queries; ``averaged`` is the tie policy's flag.

    ``rank``, ``grade`` and ``block`` may be given as ``None`` together with ``source``
    (a zero-argument callable returning ``(keys, order)``, the :class:`SortKeys` and
    the tie policy's order): they are then computed on first access, and
    :meth:`rank_at` / :meth:`grade_at` read single positions without building the
    whole arrays (a DCG@10 needs 10 positions per query, not all of them).
    """

    def __init__(self, offsets: Any, query: Any, rank: Any, grade: Any, docno: Any, block: Any = None, averaged: bool = False, *,
                 score: Any = None, source: Any = None, scores: Any = None) -> None:
        self.offsets = offsets
        self.query = query
        self._rank = rank
        self._grade = grade
        self.docno = docno
        self.averaged = averaged
        self._block = block
        self._score = score
        self._source = source
        self._scores = scores  # zero-argument callable giving the scores (restrict)
        if (rank is None or grade is None or (block is None and score is None)) and source is None:
            raise TypeError("RankedList needs rank, grade and block (or score), or a source")

    def _keys_order(self) -> Any:
        return self._source()

    @property
    def rank(self) -> np.ndarray:
        if self._rank is None:
            rank = np.arange(len(self.query), dtype=np.int64)
            rank -= np.repeat(self.offsets[:-1] - 1, np.diff(self.offsets))
            self._rank = rank
        return self._rank

    def rank_at(self, idx: np.ndarray) -> np.ndarray:
        """``rank[idx]``."""
        if self._rank is not None:
            return self._rank[idx]
        return idx - self.offsets[self.query[idx]] + 1

    @property
    def grade(self) -> np.ndarray:
        if self._grade is None:
            keys, order = self._keys_order()
            self._grade = keys.gatherer(order)(keys.grade)
        return self._grade

    def grade_at(self, idx: np.ndarray) -> np.ndarray:
        """``grade[idx]``."""
        if self._grade is not None:
            return self._grade[idx]
        keys, _ = self._keys_order()
        return keys.grade_at(self._rows_at(idx))

    def _rows_at(self, idx: np.ndarray) -> np.ndarray:
        """The keys' rows at the positions ``idx`` (``order[idx]``; the last ``idx``'s
        rows are kept, as the DCG reads their scores and grades)."""
        hit = getattr(self, "_rows_hit", None)
        if hit is not None and hit[0] is idx:
            return hit[1]
        _, order = self._keys_order()
        rows = order[idx]
        self._rows_hit = (idx, rows)
        return rows

    @property
    def score(self) -> np.ndarray:
        """``float64`` ``(n,)`` score of each position (computed on first access)."""
        if not isinstance(self._scores, np.ndarray):
            if self._scores is not None:
                self._scores = self._scores()
            else:
                keys, order = self._keys_order()
                self._scores = keys.gatherer(order)(keys.score)
        return self._scores

    @property
    def block(self) -> np.ndarray:
        if self._block is None:
            query, score = self.query, self._score
            if score is None:
                keys, order = self._keys_order()
                score = keys.gatherer(order)(keys.score)
            new_block = np.ones(len(query), dtype=bool)
            if len(query) > 1:
                np.not_equal(query[1:], query[:-1], out=new_block[1:])
                new_block[1:] |= score[1:] != score[:-1]
            self._block = np.cumsum(new_block) - 1
            self._score = None
        return self._block

    def _block_score_at(self, idx: np.ndarray) -> np.ndarray:
        """The scores :attr:`block` compares, at the positions ``idx`` (any shape)."""
        if self._score is not None:  # the policy's precision (``score=float32``)
            return self._score[idx]
        if isinstance(self._scores, np.ndarray):
            return self._scores[idx]
        keys, _ = self._keys_order()
        return keys.score[self._rows_at(idx)]

    def block_end(self, pos: np.ndarray) -> np.ndarray:
        """One past the last position of the tie block holding each position of ``pos``
        (``int64``): ``searchsorted(block, block[pos], "right")``, without building
        :attr:`block` when it is not built yet: the scores after each position are
        read in windows (the rows of a 2-D array) that double until every block has
        ended (a block of equal ``(query, score)`` ends at its query's end at the
        latest)."""
        pos = np.asarray(pos, dtype=np.int64)
        if self._block is not None or len(pos) == 0:
            return np.searchsorted(self.block, self.block[pos], side="right")
        end = self.offsets[self.query[pos] + 1]  # the query's end
        head = self._block_score_at(pos)
        out = end.copy()
        todo = np.arange(len(pos), dtype=np.int64)
        at = pos + 1  # the first position not yet compared
        step = 8
        while len(todo):
            first, stop = at[todo], end[todo]
            window = first[:, None] + np.arange(step, dtype=np.int64)
            outside = window >= stop[:, None]
            np.minimum(window, np.maximum(stop - 1, 0)[:, None], out=window)  # in bounds
            differ = self._block_score_at(window) != head[todo][:, None]
            differ |= outside
            found = differ.any(axis=1)
            out[todo[found]] = first[found] + differ[found].argmax(axis=1)
            at[todo] += step
            todo = todo[~found]
            step *= 2
        return out

    def block_at(self, idx: np.ndarray, query: np.ndarray | None = None, *, runs: bool = False) -> np.ndarray:
        """Tie block ids of the positions ``idx`` (``int64``, ascending positions): equal
        exactly where ``block[idx]`` is. When :attr:`block` is not built yet and ``idx``
        skips positions only between queries (``runs``: the caller knows it, as
        ``MetricInput.cut_positions`` does; else it is checked), the ids are computed
        from the scores at ``idx`` alone, numbered from 0; otherwise they are
        ``block[idx]``.

        :param query: ``query[idx]`` if the caller has it.
        """
        idx = np.asarray(idx, dtype=np.int64)
        if self._block is not None or len(idx) < 2:
            return self.block[idx]
        if query is None:
            query = self.query[idx]
        new_block = np.empty(len(idx), dtype=bool)
        new_block[0] = True
        np.not_equal(query[1:], query[:-1], out=new_block[1:])
        if not runs and not np.all((idx[1:] == idx[:-1] + 1) | new_block[1:]):
            return self.block[idx]
        score = self._block_score_at(idx)
        new_block[1:] |= score[1:] != score[:-1]
        return np.cumsum(new_block) - 1

    def __repr__(self) -> str:
        return f"RankedList({self.n_queries} queries, {len(self.query)} positions, averaged={self.averaged})"

    @property
    def n_queries(self) -> int:
        return len(self.offsets) - 1

    @property
    def length(self) -> np.ndarray:
        """Number of ranked documents per query, ``int64`` ``(q,)``."""
        return np.diff(self.offsets)

def restrict(ranked: RankedList, depth: int | None, judged_only: bool,
             drop: np.ndarray | None = None, *, keep_negative: bool = False) -> RankedList:
    """Keep part of each query's ranking and renumber the ranks (vectorised).

    ``depth``: positions with rank > depth are dropped (truncated right after sorting).
    ``judged_only``: positions whose grade is NaN or negative are then dropped and the
    remaining documents ranked 1, 2, ... in their original order (a negative grade
    counts as "not in the pool"). ``keep_negative`` (the
    ``negative=gain`` convention, where a negative grade is a real judgment with a
    negative gain): only the NaN (unjudged) positions are dropped. Tie blocks are
    renumbered so block ids stay dense. ``drop`` (``bool`` ``(n,)``): positions removed
    as well (the ``run_filter`` convention).
    """
    keep = np.ones(len(ranked.rank), dtype=bool) if drop is None else ~drop
    if depth is not None:
        keep &= ranked.rank <= depth
    if judged_only:
        # False for NaN (unjudged); negative grades too unless keep_negative
        keep &= ~np.isnan(ranked.grade) if keep_negative else ranked.grade >= 0
    if keep.all():
        return ranked
    query = ranked.query[keep]
    n_queries = ranked.n_queries
    offsets = offsets_from_sorted(query, n_queries)
    rank = np.arange(len(query), dtype=np.int64) - offsets[query] + 1
    old_block = ranked.block[keep]
    new_block = np.ones(len(query), dtype=bool)
    if len(query) > 1:
        new_block[1:] = old_block[1:] != old_block[:-1]
    return RankedList(
        offsets=offsets,
        query=query,
        rank=rank,
        grade=ranked.grade[keep],
        docno=ranked.docno[keep],
        block=np.cumsum(new_block) - 1,
        averaged=ranked.averaged,
        scores=lambda: ranked.score[keep],
    )
