"""float32 arithmetic as PyTorch's CPU kernels do it, vectorised over segments.

torchmetrics computes NDCG on ``float32`` tensors; its values depend on how torch
rounds and in which order it adds. Two kernels matter:

* ``torch.cumsum`` of ``float32`` on the CPU accumulates in ``double`` (``acc_type``)
  and rounds each output to ``float32`` (:func:`cumsum_float32`);
* ``torch.sum`` of a contiguous ``float32`` vector is a cascade sum
  (aten/src/ATen/native/cpu/SumKernel.cpp ``vectorized_inner_sum``, ``row_sum``,
  ``multi_row_sum``): the vector is read as ``V = n // 8`` vectors of 8 lanes, grouped
  four at a time (``ilp_factor = 4``) into a 4-level cascade of accumulators
  (``level_power = max(4, ceil(log2(V // 4)) // 4)``); leftover vectors go to the first
  accumulator, the four accumulators are added, the ``n - 8 V`` leftover scalars are
  summed first and the 8 lanes are then added in order, all in ``float32``
  (:func:`torch_sum_float32`). Verified bit-for-bit against torch 2.13 on x86-64.

Every ``float32`` product, quotient or difference of two ``float32`` values equals
the ``float64`` operation rounded once to ``float32`` (``float64`` has more than
twice the bits), which is how the helpers below compute them.
"""

from __future__ import annotations

import numpy as np

from .columnar import distinct

_LANES = 8
_ILP = 4
_LEVELS = 4

f32 = np.float32


def scores_as_float32(score: np.ndarray) -> np.ndarray:
    """``score`` (``float64``, any shape) rounded to ``float32``, as a library that stores
    scores (or labels: LightGBM, XGBoost) in a C ``float`` (or a ``float32`` tensor)
    reads them: round to nearest even; a score beyond ``float32``'s range
    (|x| > 3.4028235e38, e.g. ``1e308``) becomes ``±inf`` and a subnormal ``float64`` (``1e-320``) becomes ``±0.0`` -- the IEEE 754
    conversion C, numpy and torch all perform. No overflow warning is printed: the
    conversion is the reference's own behaviour, not an accident of evalkit's.

    :returns: ``float32`` array of ``score``'s shape.
    """
    with np.errstate(over="ignore"):
        return np.asarray(score, dtype=np.float64).astype(np.float32)


def _ceil_log2(x: int) -> int:
    return 0 if x <= 1 else int(x - 1).bit_length()


def _multi_row_sum(rows: np.ndarray) -> np.ndarray:
    """``multi_row_sum`` over axis 1 of ``rows`` (``(m, size, 4, 8)``): ``(m, 4, 8)``."""
    m, size = rows.shape[:2]
    level_power = max(4, _ceil_log2(size) // _LEVELS)
    step = 1 << level_power
    mask = step - 1
    acc = np.zeros((_LEVELS, m) + rows.shape[2:], dtype=f32)
    i = 0
    while i + step <= size:
        for j in range(step):
            acc[0] += rows[:, i]
            i += 1
        for j in range(1, _LEVELS):
            acc[j] += acc[j - 1]
            acc[j - 1] = 0
            if i & (mask << (j * level_power)):
                break
    while i < size:
        acc[0] += rows[:, i]
        i += 1
    for j in range(1, _LEVELS):
        acc[0] += acc[j]
    return acc[0]


def _torch_sum_rows(x: np.ndarray) -> np.ndarray:
    """torch's ``float32`` sum of each row of ``x`` (``(m, n)`` ``float32``): ``(m,)``."""
    m, n = x.shape
    v = n // _LANES
    vecs = x[:, : v * _LANES].reshape(m, v, _LANES)
    size_ilp = v // _ILP
    if size_ilp:
        partial = _multi_row_sum(vecs[:, : size_ilp * _ILP].reshape(m, size_ilp, _ILP, _LANES))
    else:
        partial = np.zeros((m, _ILP, _LANES), dtype=f32)
    for i in range(size_ilp * _ILP, v):
        partial[:, 0] += vecs[:, i]
    for k in range(1, _ILP):
        partial[:, 0] += partial[:, k]
    total = np.zeros(m, dtype=f32)
    for k in range(v * _LANES, n):
        total += x[:, k]
    if v:
        for k in range(_LANES):
            total += partial[:, 0, k]
    return total


def torch_sum_float32(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``torch.sum`` of each segment of ``values``, in ``float32`` and torch's order.

    :param values: ``float32`` ``(n,)``, segment-contiguous.
    :param offsets: ``int64`` ``(q + 1,)``.
    :returns: ``float32`` ``(q,)``.

    The order of additions depends on the segment's length only, so segments of equal
    length are summed together as the rows of one 2-D array: the loop runs over
    distinct lengths (and, inside, over blocks of 32 elements), never over segments.
    """
    values = np.asarray(values, dtype=f32)
    lengths = np.diff(offsets)
    out = np.zeros(len(lengths), dtype=f32)
    for length in distinct(lengths):
        if length == 0:
            continue
        segs = np.flatnonzero(lengths == length)
        idx = offsets[segs][:, None] + np.arange(length)[None, :]
        out[segs] = _torch_sum_rows(values[idx])
    return out


def cumsum_float32(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``torch.cumsum`` of each segment of ``float32`` ``values``: a ``float64`` running
    sum rounded to ``float32`` at each position (``float32`` ``(n,)``)."""
    from .columnar import segment_cumsum

    return segment_cumsum(np.asarray(values, dtype=np.float64), offsets).astype(f32)


def log2_discount_float32(rank: np.ndarray) -> np.ndarray:
    """``1.0 / torch.log2(arange(n) + 2.0)`` at 1-based ``rank``: ``float32``
    (torch's ``float32`` ``log2`` equals ``float64`` ``log2`` rounded to ``float32``)."""
    log = np.log2(np.asarray(rank, dtype=np.float64) + 1.0).astype(f32)
    return (1.0 / log.astype(np.float64)).astype(f32)
