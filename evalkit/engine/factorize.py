"""String columns: factorisation into integer codes, and fast hashing.

Two tools live here:

* :func:`factorize` gives exact integer codes whose order is the byte order of the
  UTF-8 strings (C ``strcmp``'s order, which trec_eval uses to break score ties).
* :func:`string_hash` and :func:`pair_hash` give 64-bit hashes of string columns,
  computed with NumPy straight from the Arrow buffers (no Python object per row).
  Hashes are only ever used to find *candidate* equal pairs; every candidate is then
  compared exactly (:func:`strings_equal`), so results never depend on the absence
  of hash collisions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
# _KEEP[r]: mask keeping the first r bytes of a big-endian 8-byte word (r = 0..8)
_KEEP = np.array([0] + [((1 << (8 * r)) - 1) << (8 * (8 - r)) for r in range(1, 9)], dtype=np.uint64)


# pyarrow imports pandas (seconds) on pa.array(), pa.scalar() and Array.to_numpy();
# the helpers below move data between NumPy and Arrow through buffers instead.


def arrow_indices(rows: np.ndarray) -> pa.Array:
    """Zero-copy Arrow ``int64`` array of ``rows``."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(rows), [None, pa.py_buffer(rows)])


def numpy_view(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """NumPy view of a primitive Arrow array without nulls (bools are unpacked)."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    if arr.null_count:
        raise ValueError("unexpected nulls")
    n = len(arr)
    buf = arr.buffers()[1]
    if pa.types.is_boolean(arr.type):
        if n == 0:
            return np.zeros(0, dtype=bool)
        bits = np.unpackbits(np.frombuffer(buf, np.uint8), bitorder="little")
        return bits[arr.offset: arr.offset + n].astype(bool)
    dtype = np.dtype(arr.type.to_pandas_dtype())
    if n == 0:
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(buf, dtype=dtype)[arr.offset: arr.offset + n]


def take(arr: pa.Array, rows: np.ndarray) -> pa.Array:
    """``arr[rows]`` for a NumPy index array."""
    return arr.take(arrow_indices(rows))


def _from_objects(values) -> pa.Array:
    """Arrow string array from a sequence of ``str`` (built from one joined bytes
    buffer; ``pa.array`` would import pandas)."""
    values = [v if isinstance(v, str) else str(v) for v in values]
    n = len(values)
    joined = "".join(values)
    if joined.isascii():
        lengths = np.fromiter(map(len, values), dtype=np.int64, count=n)
        data = joined.encode("ascii")
    else:
        data_parts = [v.encode("utf-8") for v in values]
        lengths = np.fromiter(map(len, data_parts), dtype=np.int64, count=n)
        data = b"".join(data_parts)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if offsets[-1] < (1 << 31) - 1:
        return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets.astype(np.int32)),
                                                       pa.py_buffer(data)])
    return pa.Array.from_buffers(pa.large_string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def as_arrow(values: Any) -> pa.Array:
    """A non-chunked Arrow ``string`` or ``large_string`` array without nulls.

    :param values: an Arrow (chunked) array, or a sequence / ``object`` array of ``str``.
    """
    if isinstance(values, pa.ChunkedArray):
        if values.num_chunks == 1:
            values = values.chunk(0)
        else:
            if values.nbytes > (1 << 30):
                values = values.cast(pa.large_string())
            values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        values = _from_objects(values)
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        values = values.cast(pa.string())
    return values


def _buffers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, data)`` of a string array: ``int64`` ``(n + 1,)`` and ``uint8``."""
    bufs = arr.buffers()
    off_type = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    offsets = np.frombuffer(bufs[1], dtype=off_type)[arr.offset: arr.offset + len(arr) + 1] \
        if len(arr) else np.zeros(1, off_type)
    data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None else np.empty(0, np.uint8)
    return offsets.astype(np.int64, copy=False), data


def _mix(z: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser (Steele, Lea & Flood, OOPSLA 2014), in place on ``uint64``."""
    z ^= z >> np.uint64(30)
    z *= _M1
    z ^= z >> np.uint64(27)
    z *= _M2
    z ^= z >> np.uint64(31)
    return z


def string_hash(values: Any) -> np.ndarray:
    """64-bit hash of every string: ``uint64`` ``(n,)``.

    Reads 8 bytes at a time from the Arrow data buffer (one vectorised gather per
    8-byte word of the longest string), folds the words and the length with the
    splitmix64 finaliser. Equal strings get equal hashes; unequal strings collide
    with probability about 2^-64 per pair (callers verify candidates exactly).
    """
    arr = as_arrow(values)
    n = len(arr)
    if n == 0:
        return np.empty(0, np.uint64)
    offsets, data = _buffers(arr)
    starts = offsets[:-1]
    lengths = offsets[1:] - starts
    n_words = int((int(lengths.max()) + 7) // 8) if n else 0
    lo = int(starts.min()) if n else 0
    hi = int(offsets[-1]) if n else 0
    region = np.zeros(hi - lo + 8, dtype=np.uint8)
    region[: hi - lo] = data[lo:hi]
    words = np.ndarray(shape=(hi - lo + 1,), dtype="<u8", buffer=region, strides=(1,))
    rel = starts - lo
    h = lengths.astype(np.uint64) * _GOLDEN
    shortest = int(lengths.min())
    for j in range(n_words):
        # only strings longer than 8 * j bytes have a word j, so a string's hash does
        # not depend on the other strings of the column
        active = None if j == 0 else np.flatnonzero(lengths > 8 * j)
        if active is not None and len(active) == n:
            active = None
        pos = rel + 8 * j if active is None else rel[active] + 8 * j
        w = words[pos].byteswap()  # big-endian: the first byte is the most significant
        rem = lengths - 8 * j if active is None else lengths[active] - 8 * j
        if shortest < 8 * (j + 1):  # some strings end inside word j: zero the bytes after
            w &= _KEEP[np.clip(rem, 0, 8)]
        if active is None:
            h ^= w
            _mix(h)
        else:
            hj = h[active]
            hj ^= w
            h[active] = _mix(hj)
    return h


def pair_hash(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Hash of a pair of ``uint64`` hashes (order matters): ``uint64``."""
    z = first * _GOLDEN
    z ^= second
    return _mix(z)


def strings_equal(a: Any, rows_a: np.ndarray, b: Any, rows_b: np.ndarray) -> np.ndarray:
    """Exact comparison ``a[rows_a] == b[rows_b]``: ``bool`` ``(len(rows_a),)``."""
    if len(rows_a) == 0:
        return np.zeros(0, dtype=bool)
    x = take(as_arrow(a), rows_a)
    y = take(as_arrow(b), rows_b)
    if x.type != y.type:
        x, y = x.cast(pa.large_string()), y.cast(pa.large_string())
    return numpy_view(pc.equal(x, y))


def to_objects(values: Any) -> np.ndarray:
    """``object`` array of ``str`` from an Arrow string array (or pass through)."""
    if isinstance(values, np.ndarray) and values.dtype == object:
        return values
    arr = as_arrow(values)
    out = np.empty(len(arr), dtype=object)
    out[:] = arr.to_pylist()
    return out


def encode(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """Exact codes of one string column: ``(codes int64 (n,), vocab object (u,))`` with
    ``vocab`` sorted in ``strcmp`` order, ``vocab[codes]`` equal to the input.

    Runs of equal adjacent strings (a TREC file's query ids) are hashed once per run,
    so a column of ``n`` rows in ``b`` runs costs ``O(n)`` comparisons plus ``O(b)``
    hashing; the distinct values are then sorted (``O(u log u)``).
    """
    arr = as_arrow(values)
    n = len(arr)
    if n == 0:
        return np.empty(0, np.int64), np.empty(0, dtype=object)
    if n > 1:
        change = numpy_view(pc.indices_nonzero(pc.not_equal(arr.slice(1), arr.slice(0, n - 1))))
        starts = np.concatenate(([0], change.astype(np.int64) + 1))
    else:
        starts = np.zeros(1, np.int64)
    heads = take(arr, starts) if len(starts) < n else arr
    enc = pc.dictionary_encode(heads)
    uniq = to_objects(enc.dictionary)
    order = np.argsort(uniq, kind="stable")  # Python str order = code-point = UTF-8 byte order
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    head_codes = rank[numpy_view(enc.indices)]
    if len(starts) < n:
        codes = np.repeat(head_codes, np.diff(np.append(starts, n)))
    else:
        codes = head_codes
    return codes, uniq[order]


def factorize(*columns: Any) -> tuple[list[np.ndarray], np.ndarray]:
    """Encode one or more string columns with a shared vocabulary.

    :param columns: ``object`` arrays of ``str`` or Arrow string arrays (any lengths).
    :returns: ``(codes, vocab)``: one ``int64`` code array per column and the sorted
        vocabulary (``object`` array). Codes follow the byte order of the UTF-8
        strings (code-point order), the order C's ``strcmp`` gives, so comparing codes
        compares docnos as trec_eval does.
    """
    sizes = [len(c) for c in columns]
    if sum(sizes) == 0:
        return [np.empty(0, np.int64) for _ in columns], np.empty(0, dtype=object)
    arrays = [as_arrow(c) for c in columns if len(c)]
    if len(arrays) > 1 and len({a.type for a in arrays}) > 1:
        arrays = [a.cast(pa.large_string()) for a in arrays]
    joined = arrays[0] if len(arrays) == 1 else pa.concat_arrays(arrays)
    inverse, vocab = encode(joined)
    out, start = [], 0
    for n in sizes:
        out.append(inverse[start: start + n])
        start += n
    return out, vocab
