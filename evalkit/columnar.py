"""Columnar helpers on segment-contiguous arrays (a leaf module: numpy only).

A *segment* is one query's slice of a flat array; segments are described by
``offsets`` (``int64``, shape ``(q + 1,)``): segment ``i`` owns positions
``offsets[i]:offsets[i + 1]``. Every helper is vectorised over segments: no
Python loop over queries or documents.
"""

from __future__ import annotations

import numpy as np
from typing import Any

__all__ = ["code_runs", "concat_ranges", "distinct", "offsets_from_sorted", "query_blocks", "segment_cumsum",
           "segment_ids", "segment_sum"]


def segment_ids(offsets: np.ndarray) -> np.ndarray:
    """Segment index of every element: ``int64`` of shape ``(offsets[-1],)``."""
    counts = np.diff(offsets)
    return np.repeat(np.arange(len(counts), dtype=np.int64), counts)


def offsets_from_sorted(ids: np.ndarray, n_segments: int) -> np.ndarray:
    """``offsets`` (``(n_segments + 1,)``) for a sorted array of segment ids."""
    counts = np.bincount(ids, minlength=n_segments) if len(ids) else np.zeros(n_segments, np.int64)
    out = np.zeros(n_segments + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def concat_ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + l) for s, l in zip(starts, lengths)])``, vectorised."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    shift = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    return np.arange(total, dtype=np.int64) + shift


def distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values of an integer array: ``np.unique(values)``, which in
    NumPy 2 imports ``numpy.ma`` on its first call (20-40 ms of an ``evalkit eval``)."""
    out = np.sort(values, axis=None)
    if len(out) > 1:
        out = out[np.concatenate(([True], out[1:] != out[:-1]))]
    return out


def isin_ids(values: np.ndarray, ids: Any) -> np.ndarray:
    """Boolean mask, shape ``values.shape``: which of ``values`` (query ids, an ``object``
    array of ``str``) occur in ``ids`` (any iterable of ``str``). A hash set, linear in
    both sizes: ``np.isin`` on ``object`` arrays compares every pair (it took 8.5 s for
    30,000 query ids against 30,000)."""
    lookup = set(ids.tolist() if isinstance(ids, np.ndarray) else ids)
    return np.fromiter((v in lookup for v in values.tolist()), dtype=bool, count=values.size)


def segment_sum(values: np.ndarray, segment: np.ndarray, n_segments: int) -> np.ndarray:
    """Sum of ``values`` per segment id.

    :param values: ``float64`` ``(n,)``.
    :param segment: ``int64`` ``(n,)`` segment id of every value, in ``[0, n_segments)``.
    :returns: ``float64`` ``(n_segments,)`` (0 for an empty segment).
    """
    if len(values) == 0:
        return np.zeros(n_segments, dtype=np.float64)
    return np.bincount(segment, weights=values, minlength=n_segments)


def segment_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum restarting at every segment start.

    Each segment is summed on its own (segments of similar length are padded into one
    2-D block per power-of-two width and summed along rows), so a query's values never
    depend on the other queries evaluated with it: evaluating a query partition gives
    bit-identical results, as a distributed evaluation needs.

    :param values: ``float64`` ``(n,)``, segment-contiguous.
    :param offsets: ``int64`` ``(q + 1,)``.
    :returns: ``float64`` ``(n,)``.
    """
    out = np.zeros(len(values), dtype=np.float64)
    if len(values) == 0:
        return out
    lengths = np.diff(offsets)
    segs = np.flatnonzero(lengths)
    width = np.left_shift(1, np.ceil(np.log2(lengths[segs])).astype(np.int64))
    for w in distinct(width):
        these = segs[width == w]
        cols = np.arange(w)
        valid = cols[None, :] < lengths[these][:, None]
        idx = (offsets[these][:, None] + cols[None, :])[valid]
        block = np.zeros((len(these), w))
        block[valid] = values[idx]
        out[idx] = np.cumsum(block, axis=1)[valid]
    return out


def code_runs(codes: np.ndarray) -> np.ndarray:
    """First row of every run of equal codes (``int64`` ``(r,)``; empty for no rows)."""
    if not len(codes):
        return np.zeros(0, np.int64)
    return np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))


def query_blocks(codes: np.ndarray) -> np.ndarray | None:
    """First row of every run of equal codes (non-negative integers, ``(n,)``):
    ``int64`` ``(r,)``, or ``None`` if a code has two runs (its rows are not one
    contiguous block)."""
    starts = code_runs(codes)
    heads = codes[starts]
    if len(heads) and np.bincount(heads).max() > 1:
        return None
    return starts
