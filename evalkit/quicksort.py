"""numba's quicksort ``np.argsort``, reproduced exactly and vectorised over segments.

numba (``numba/misc/quicksort.py``, ``make_quicksort_impl``; numba 0.58-0.68) sorts
``A[low:high + 1]`` (inclusive bounds) as follows, keeping the permutation in ``R``:

* while ``high - low >= SMALL_QUICKSORT`` (15), i.e. segments of 16 elements or more,
  ``partition``: median of three (``R[mid] < R[low]`` swap, ``R[high] < R[mid]`` swap,
  ``R[mid] < R[low]`` swap, ``mid = (low + high) >> 1``), the pivot stashed at
  ``high``, then a Hoare scan: ``i`` moves right past elements ``< pivot``, ``j`` moves
  left past elements ``> pivot``, ``R[i]`` and ``R[j]`` are swapped while ``i < j``;
  the pivot is put back at the final ``i``; both sides are sorted the same way;
* segments of at most 15 elements get an insertion sort (stable).

Equal keys are therefore *not* kept in input order in segments of 16 or more. The
result does not depend on the order the sub-segments are processed in (they are
disjoint), so every segment of every query is partitioned at once, level by level:
the Python loop runs over recursion levels (``O(log n)`` expected, as the scan stops
at keys equal to the pivot, which balances tied segments), never over queries or
elements. The scan of one partition is computed in closed form: with ``L`` the
positions holding keys ``>= pivot`` (ascending, then ``high``) and ``M`` the positions
holding keys ``<= pivot`` (descending), the ``t``-th swap exchanges ``L[t]`` and
``M[t]`` for every ``t`` with ``L[t] < M[t]`` (these ``t`` form a prefix, of length
``T``), and the pivot lands at ``L[0]`` if ``T = 0``, else at ``min(L[T], M[T - 1])``.
"""

from __future__ import annotations

import numpy as np

from .columnar import concat_ranges
from typing import Any

#: numba's SMALL_QUICKSORT: segments with ``high - low < 15`` get an insertion sort.
SMALL_QUICKSORT = 15


def _swap(R: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """``R[a], R[b] = R[b], R[a]`` for disjoint pairs (vectorised)."""
    if len(a):
        ra = R[a]
        R[a] = R[b]
        R[b] = ra


def _per_segment(flat_seg: np.ndarray, n_segments: int) -> tuple[np.ndarray, np.ndarray]:
    """``(counts, starts)`` of a segment-sorted id array."""
    counts = np.bincount(flat_seg, minlength=n_segments)
    starts = np.cumsum(counts) - counts
    return counts, starts


def quicksort_argsort(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """numba's ``np.argsort(values[s:e])`` (kind ``quicksort``) of every segment.

    :param values: ``float64`` ``(n,)`` keys, segment-contiguous, no ``NaN``.
    :param offsets: ``int64`` ``(s + 1,)`` segment bounds.
    :returns: ``int64`` ``(n,)``: positions into ``values``; within each segment, the
        positions in the order numba's argsort returns them (ascending keys).
    """
    n = len(values)
    R = np.arange(n, dtype=np.int64)
    lo = np.asarray(offsets[:-1], dtype=np.int64)
    hi = np.asarray(offsets[1:], dtype=np.int64) - 1
    keep = hi > lo
    lo, hi = lo[keep], hi[keep]
    small_lo, small_hi = [], []
    while len(lo):
        big = hi - lo >= SMALL_QUICKSORT
        small_lo.append(lo[~big])
        small_hi.append(hi[~big])
        lo, hi = lo[big], hi[big]
        if not len(lo):
            break
        lo, hi = _partition_level(values, R, lo, hi)
    if small_lo:
        slo, shi = np.concatenate(small_lo), np.concatenate(small_hi)
        length = shi - slo + 1
        idx = concat_ranges(slo, length)
        seg = np.repeat(np.arange(len(slo)), length)
        rows = R[idx]
        R[idx] = rows[np.lexsort((values[rows], seg))]  # insertion sort = stable sort
    return R


def _partition_level(values: Any, R: Any, low: Any, high: Any) -> Any:
    """One ``partition`` of every segment ``[low, high]``; the sub-segments left to sort."""
    S = len(low)
    mid = (low + high) >> 1

    def lt(a: Any, b: Any) -> Any:
        return values[R[a]] < values[R[b]]

    sw = lt(mid, low)
    _swap(R, low[sw], mid[sw])
    sw = lt(high, mid)
    _swap(R, high[sw], mid[sw])
    sw = lt(mid, low)
    _swap(R, low[sw], mid[sw])
    pivot = values[R[mid]]
    _swap(R, high, mid)  # stash the pivot at the end (mid < high: segments have >= 16)

    m = high - low  # scanned positions low .. high - 1
    idx = concat_ranges(low, m)
    seg = np.repeat(np.arange(S), m)
    v = values[R[idx]]
    p = pivot[seg]
    ge = ~(v < p)  # where i stops
    le = ~(p < v)  # where j stops
    L, L_seg = idx[ge], seg[ge]
    cL, sL = _per_segment(L_seg, S)
    M_asc, M_seg = idx[le], seg[le]
    cM, sM = _per_segment(M_seg, S)
    # M in descending order within each segment
    within = np.arange(len(M_asc)) - sM[M_seg]
    M = np.empty_like(M_asc)
    M[sM[M_seg] + (cM[M_seg] - 1 - within)] = M_asc

    c = np.minimum(cL, cM)
    pair_seg = np.repeat(np.arange(S), c)
    t = np.arange(len(pair_seg)) - (np.cumsum(c) - c)[pair_seg]
    Lt, Mt = L[sL[pair_seg] + t], M[sM[pair_seg] + t]
    swapped = Lt < Mt  # a prefix of each segment's pairs
    _swap(R, Lt[swapped], Mt[swapped])
    T = np.bincount(pair_seg[swapped], minlength=S)

    i = high.copy()  # L's sentinel: the scan stops at the stashed pivot at the latest
    has = T < cL
    i[has] = L[sL[has] + T[has]]
    moved = T > 0
    i[moved] = np.minimum(i[moved], M[sM[moved] + T[moved] - 1])
    _swap(R, i, high)
    return np.concatenate([low, i + 1]), np.concatenate([i - 1, high])
