"""The sorted index of ``(qid, docno)`` pair hashes of a run or of qrels.

One index serves two purposes: the duplicate check (equal neighbours are candidate
duplicate pairs) and the join (each judgment binary-searches the run's index). Every
candidate is confirmed exactly by the callers, so hash collisions cost time, never
correctness.

Key layout (``uint64``), for a table whose rows form one contiguous block per query
(every TREC file written by a retrieval system)::

    block ordinal (block_bits) | high bits of the pair hash | offset in the block (low_bits)

The block ordinals increase along the rows, so sorting each block's keys on its own
sorts the whole array: the blocks (1,000 keys each in a typical run) are sorted as
the rows of a 2-D array, which stays in the CPU caches (measured 4-5x faster than one
``np.sort`` of 3 M keys on the development machine; see ``benchmarks/README.md``).
A table whose queries are interleaved is one block (``block_bits == 0``): the key is
then ``high bits of the hash | row``, one global sort, as before this layout.
"""

from __future__ import annotations

import os
from typing import Any, Callable

import numpy as np

# the query blocks of a table's rows live in the leaf module :mod:`evalkit.columnar`
# (the join reads them without importing this module: a small join builds no index)
from ..columnar import query_blocks as _query_blocks

#: the fewest hash bits a key keeps; with fewer, the table is indexed as one block
MIN_HASH_BITS = 24
#: rows above which the per-block sort is split between two threads
THREAD_MIN_ROWS = 1 << 20
#: tables of at most this many rows sort their blocks of unequal lengths one by one
#: (:func:`_sort_blocks`)
SMALL_ROWS = 1 << 20
_ROWS = 1 << 17  # rows per chunk of the hashing: 1 MB temporaries (see factorize._ROWS)


class PairIndex:
    """Sorted pair keys of ``n`` rows (see the module docstring for the layout).

    :param keys: ``uint64`` ``(n,)``, sorted.
    :param block_start: ``int64`` ``(b,)``: first row of every block (``[0]`` when
        the table is indexed as one block).
    :param block_bits: bits of the block ordinal at the top of the key (0: one block).
    :param low_bits: bits of the offset within a block (the row when one block).
    """

    def __init__(self, keys: np.ndarray, block_start: np.ndarray, block_bits: int, low_bits: int) -> None:
        self.keys = keys
        self.block_start = block_start
        self.block_bits = block_bits
        self.low_bits = low_bits
        self.low_mask = np.uint64((1 << low_bits) - 1)

    def rows(self, keys: np.ndarray) -> np.ndarray:
        """Row numbers (``int64``) of index keys."""
        offset = (keys & self.low_mask).astype(np.int64)
        if self.block_bits == 0:
            return offset
        return self.block_start[(keys >> np.uint64(64 - self.block_bits)).astype(np.int64)] + offset

    def probe(self, block: np.ndarray | None, hashes: np.ndarray) -> np.ndarray:
        """The smallest key a row of ``block`` (``int64`` ordinals) with pair hash
        ``hashes`` (``uint64``) can have; the largest is this ``| low_mask``."""
        mid = hashes >> np.uint64(self.block_bits) if self.block_bits else hashes.copy()
        mid &= ~self.low_mask
        if self.block_bits:
            assert block is not None  # given whenever the index has block bits
            mid |= block.astype(np.uint64) << np.uint64(64 - self.block_bits)
        return mid

    def duplicate_candidates(self) -> np.ndarray:
        """Rows (``int64``, sorted, unique) whose key shares its block and hash bits
        with a neighbour's: every duplicate pair is among them."""
        keys, s = self.keys, np.uint64(self.low_bits)
        same = []
        for start in range(0, len(keys) - 1, _ROWS):  # in chunks: no n-sized temporaries
            high = keys[start: start + _ROWS + 1] >> s
            hit = np.flatnonzero(high[1:] == high[:-1])
            if len(hit):
                same.append(hit + start)
        if not same:
            return np.zeros(0, dtype=np.int64)
        at = np.concatenate(same)
        return np.unique(np.concatenate((self.rows(keys[at]), self.rows(keys[at + 1]))))


def _map(fn: Any, items: Any, rows: int) -> None:
    """``fn(item)`` for every item, on two threads when there are many rows (NumPy's
    sorts, gathers and ufuncs release the GIL; items write disjoint slices)."""
    items = list(items)
    workers = min(2, os.cpu_count() or 1, len(items))
    if workers > 1 and rows >= THREAD_MIN_ROWS:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(fn, items))
    else:
        for item in items:
            fn(item)


def build(codes: np.ndarray, pair_hashes: Callable[[int, int], np.ndarray]) -> PairIndex:
    """Build the sorted index of a table.

    :param codes: query code of every row (``int64`` ``(n,)``, non-negative).
    :param pair_hashes: ``(start, stop) -> uint64`` pair hashes of rows ``start:stop``.
    """
    n = len(codes)
    starts = _query_blocks(codes) if n else None
    low_bits = block_bits = 0
    if starts is not None and len(starts) > 1:
        lengths = np.diff(np.append(starts, n))
        block_bits = int(len(starts) - 1).bit_length()
        low_bits = max(1, int(lengths.max() - 1).bit_length())
        if 64 - block_bits - low_bits < MIN_HASH_BITS:
            block_bits = 0
    if block_bits == 0:
        starts, lengths = np.zeros(1, dtype=np.int64), np.array([n], dtype=np.int64)
        low_bits = max(1, int(n - 1).bit_length()) if n else 1
    assert starts is not None  # block_bits > 0 only where query blocks were found
    index = PairIndex(np.empty(n, dtype=np.uint64), starts.astype(np.int64), block_bits, low_bits)
    keys = index.keys
    if block_bits:  # each code has one block: a row's block is its code's (a gather, not a search)
        block_of_code = np.zeros(int(codes[index.block_start].max()) + 1, dtype=np.int64)
        block_of_code[codes[index.block_start]] = np.arange(len(index.block_start), dtype=np.int64)

    def fill(start: int) -> None:
        stop = min(n, start + _ROWS)
        rows = np.arange(start, stop, dtype=np.int64)
        if block_bits:
            block = block_of_code[codes[start:stop]]
            rows -= index.block_start[block]  # offset within the block
        else:
            block = None
        out = keys[start:stop]
        out[:] = index.probe(block, pair_hashes(start, stop))
        out |= rows.astype(np.uint64)

    _map(fill, range(0, n, _ROWS), n)
    _sort_blocks(keys, index.block_start, lengths)
    return index


def _sort_blocks(keys: np.ndarray, starts: np.ndarray, lengths: np.ndarray, max_lengths: int = 64) -> None:
    """Sort ``keys`` in place, block by block (the block ordinals in the keys' top bits
    make that a global sort): blocks of one length as the rows of a 2-D array, split
    between two threads; blocks of other lengths, in a table of at most
    :data:`SMALL_ROWS` rows, one at a time (Robust 2003's qrels, 128,796 keys in 100
    blocks of 98 lengths: 1.8 ms instead of 9 ms for one global sort); else at most
    ``max_lengths`` distinct lengths, else one global sort."""
    n = len(keys)
    if len(starts) == 1:
        keys.sort()
        return
    if (lengths == lengths[0]).all():
        grid = keys.reshape(-1, int(lengths[0]))
        half = (len(grid) + 1) // 2
        _map(lambda part: part.sort(axis=1), [grid[:half], grid[half:]], n)
        return
    if n <= SMALL_ROWS:
        for start, stop in zip(starts.tolist(), (starts + lengths).tolist()):
            keys[start:stop].sort()
        return
    distinct = np.sort(lengths)  # np.unique would import numpy.ma
    distinct = distinct[np.concatenate(([True], distinct[1:] != distinct[:-1]))]
    if len(distinct) > max_lengths:
        keys.sort()
        return
    for length in distinct:
        first = starts[lengths == length]
        idx = first[:, None] + np.arange(length)[None, :]
        part = keys[idx]
        part.sort(axis=1)
        keys[idx] = part
