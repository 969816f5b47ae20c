"""Readers for TREC qrels (``qid iter docno grade``), subtopic qrels
(``topic subtopic docno grade``, ndeval's format) and runs
(``qid Q0 docno rank score runid``).

Accepted sources: a path (plain or gzip, detected by its magic bytes), ``"-"`` for
standard input, a FIFO or pipe (``/dev/stdin``, ``<(cat run)``: read once, never
reopened), an open text or binary file, or a literal string holding the file's text
(any string that contains a newline). A UTF-8 byte-order mark is stripped. Fields
are separated by ASCII whitespace (C ``isspace``, as trec_eval splits them); a control
character or a Unicode space inside a field is an error, and numbers are ASCII
decimal as C's ``atof``/``atol`` read them (``docs/input-rules.md``). A line whose first
non-blank character is ``#`` is a comment; a ``#`` inside a field (MS MARCO v2.1
docnos such as ``msmarco_v2.1_doc_00_880019750#4_1633802806``) is data. Blank lines
are skipped. Runs may carry extra trailing columns, which are ignored as trec_eval
ignores them; the rank column is not read (trec_eval derives ranks from scores) unless
``read_run(..., keep_rank=True)`` asks for it (ndeval's default order; a flavour whose tie
policy ``needs_rank``).

Errors raise :class:`evalkit.errors.InputFormatError` naming the file, the 1-based
line number and the field.
"""

from __future__ import annotations

import functools
import io
import math
import os
import re
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Union
from typing import Callable, TypeGuard

import numpy as np

from ..data import FORBIDDEN_CHARACTERS, Qrels, Run, SubtopicQrels
from ..engine.memory import without_hugepage_advice
from ..errors import InputFormatError

Source = Union[str, os.PathLike, IO]

RUN_FIELDS = ("qid", "Q0", "docno", "rank", "score", "runid")
QRELS_FIELDS = ("qid", "iteration", "docno", "grade")
SUBTOPIC_FIELDS = ("topic", "subtopic", "docno", "grade")

#: Inputs smaller than this many bytes are read without Arrow (a canonical file by
#: :func:`_canonical_columns` or :func:`_canonical_tokens`, any other by the exact
#: line-by-line reader): importing pyarrow costs more than its CSV reader saves on them.
#: Measured (session 9, CPU in one process, reading one canonical run): 1.5 MB without
#: Arrow 22-24 ms, with Arrow and its import 41-51 ms. Non-canonical files (comment
#: lines, CRLF, tabs inside lines) of this size or more go to Arrow: the exact reader
#: takes about 5 ms per 1,000 lines (Robust 2003's run with one comment line: 0.59 s
#: against 0.37 s through Arrow).
FAST_MIN_BYTES = 1 << 20
#: *Canonical* files (:func:`_canonical_tokens` defines them) smaller than this many
#: bytes are read by NumPy (:func:`_canonical_columns`) even above
#: :data:`FAST_MIN_BYTES`: their docnos stay in NumPy buffers
#: (:class:`evalkit.engine.factorize.Utf8Column`), which the engine hashes, compares and
#: sorts without Arrow, so a Robust 2003 evaluation (2.7 MB qrels, 4-5.5 MB runs,
#: 100-130 k lines each) imports no pyarrow. Measured (session 9, whole process, paired
#: medians of 9): 0.34 -> 0.29 s with the 4.6 MB SABIR03BASE run, 0.325 -> 0.31 s with
#: the 5 MB InexpC2 run (17-digit scores); inside one process a 10.8 MB run (half of
#: it 17-digit scores) took 180-190 ms through NumPy against 60-70 ms through Arrow
#: once imported, hence 8 MiB.
CANONICAL_MAX_BYTES = 8 << 20


#: *Canonical* files smaller than this many bytes are checked and split by ``bytes``
#: and ``str`` methods alone (:func:`_tiny_fields`) and their numbers read by
#: ``float()`` (:func:`_tiny_numbers`): on them NumPy's fixed costs (10-30 us for
#: the first call of each operation in a process) exceed Python's work per value.
#: Measured (session 10, first read in a process, GC off, min of 9; both readers'
#: total, duplicate check included): 100 lines (2 KB qrels, 3.4 KB run) 1.63 -> 1.27
#: ms; 300 lines (6 KB, 10 KB) 1.84 -> 1.71 ms; 600 lines (12 KB, 20 KB) 2.02 -> 2.15
#: ms, hence 8 KiB (the quick start's files are 1 KB).
TINY_MAX_BYTES = 1 << 13


def _numpy_max_bytes() -> int:
    """Files of this many bytes or more are never read by :func:`_canonical_ends`'s
    callers (:data:`FAST_MIN_BYTES`, :data:`CANONICAL_MAX_BYTES`)."""
    return max(FAST_MIN_BYTES, CANONICAL_MAX_BYTES)
#: Bytes per block of Arrow's CSV reader (each block is parsed on a thread and
#: becomes one chunk of every column).
BLOCK_SIZE = 1 << 22


_BOM = b"\xef\xbb\xbf"
_GZIP_MAGIC = b"\x1f\x8b"


#: gzip data may expand to at most this many times its compressed size (and always
#: to :data:`GUNZIP_MIN_BYTES`): TREC runs and qrels compress 4-20 times; a "gzip
#: bomb" (3 MB holding 3 GB of newlines) 1000 times. ``EVALKIT_GUNZIP_MAX_RATIO``
#: (an integer) overrides it.
GUNZIP_MAX_RATIO = 200
#: gzip data may always expand to this many bytes, whatever the ratio.
GUNZIP_MIN_BYTES = 64 << 20
_GUNZIP_PIECE = 1 << 24  # bytes decompressed per step (the bound is checked after each)


def _gunzip_ratio() -> int:
    """:data:`GUNZIP_MAX_RATIO`, or ``EVALKIT_GUNZIP_MAX_RATIO`` when set (a positive integer)."""
    text = os.environ.get("EVALKIT_GUNZIP_MAX_RATIO")
    if text is None:
        return GUNZIP_MAX_RATIO
    if not text.strip().isdigit() or int(text) < 1:
        raise InputFormatError("EVALKIT_GUNZIP_MAX_RATIO", None, None,
                               f"must be a positive integer; got {text!r}")
    return int(text)


def _gunzip(raw: bytes, name: str) -> bytes:
    """Decompress gzip data (every member, as :func:`gzip.decompress`) in steps of
    :data:`_GUNZIP_PIECE` bytes, stopping with an :class:`InputFormatError` naming the
    file once the output passes ``max(GUNZIP_MIN_BYTES, ratio x len(raw))`` (see
    :data:`GUNZIP_MAX_RATIO`) or memory runs out, instead of decompressing a bomb whole.
    A corrupt or truncated body is an :class:`InputFormatError` naming the file."""
    import zlib

    ratio = _gunzip_ratio()
    limit = max(GUNZIP_MIN_BYTES, ratio * len(raw))
    pieces: list[bytes] = []
    total = 0
    data = raw
    try:
        while True:
            member = zlib.decompressobj(wbits=31)  # one gzip member: header, deflate body, CRC
            while not member.eof:
                piece = member.decompress(data, _GUNZIP_PIECE)
                data = member.unconsumed_tail
                total += len(piece)
                if total > limit:
                    raise InputFormatError(
                        name, None, None,
                        f"gzip data expands to more than {limit:,} bytes ({ratio} times its {len(raw):,} "
                        "compressed bytes; a gzip bomb?); decompress it yourself (gunzip -c) or set "
                        f"EVALKIT_GUNZIP_MAX_RATIO above {ratio} to read it")
                pieces.append(piece)
                if not piece and not data and not member.eof:
                    raise EOFError("compressed file ended before the end-of-stream marker was reached")
            data = member.unused_data.lstrip(b"\x00")
            if not data:
                break
            if data[:2] != _GZIP_MAGIC:
                raise OSError(f"not a gzipped file ({data[:2]!r}) after a gzip member")
        return b"".join(pieces)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputFormatError(name, None, None, f"corrupt gzip data: {exc}") from None
    except MemoryError:
        raise InputFormatError(name, None, None,
                               f"not enough memory to decompress it ({total:,} bytes so far)") from None


def _from_bytes(raw: bytes, name: str) -> bytes:
    """Gunzip (by magic bytes) and strip a UTF-8 byte-order mark."""
    if raw[:2] == _GZIP_MAGIC:
        raw = _gunzip(raw, name)
    return raw[3:] if raw[:3] == _BOM else raw


def _read_raw(source: Source, lazy: bool = True) -> tuple[bytes | Path | None, str | None, str]:
    """Return ``(raw, text, display_name)``: ``raw`` is the bytes when the source gave
    bytes (a gzip file, a binary stream, a pipe) or, with ``lazy``, the :class:`Path` of a
    plain regular file (not read yet); else ``text`` (a literal or text stream).

    Every source is read exactly once, from its beginning: ``"-"`` is standard input;
    a FIFO, ``/dev/stdin`` or a process substitution (``<(cat run)``) is read whole,
    then sniffed in memory (never reopened). Only a regular file is opened twice (a
    two-byte sniff, then the reader). A UTF-8 byte-order mark is stripped; gzip data
    (recognised by its magic bytes, not the name) is decompressed.
    """
    if hasattr(source, "read"):
        data = source.read()
        name = str(getattr(source, "name", "<stream>"))
        if isinstance(data, (bytes, bytearray)):
            return _from_bytes(bytes(data), name), None, name
        if not isinstance(data, str):
            raise InputFormatError(name, None, None, f"the stream returned {type(data).__name__}, not text or bytes")
        return None, data[1:] if data[:1] == "\ufeff" else data, name
    if isinstance(source, str) and "\n" in source:
        return None, source[1:] if source[:1] == "\ufeff" else source, "<string>"
    if isinstance(source, bytes):
        raise InputFormatError("<bytes>", None, None,
                               "pass a path, an open file or the file's text, not bytes (wrap them in io.BytesIO)")
    if source == "-":
        import sys

        return _from_bytes(sys.stdin.buffer.read(), "<stdin>"), None, "<stdin>"
    if not isinstance(source, (str, os.PathLike)):
        raise InputFormatError(str(type(source).__name__), None, None,
                               f"expected a path, an open file or the file's text, got {type(source).__name__}")
    path = Path(source)
    name = str(path)
    try:
        with open(path, "rb") as f:
            mode = os.fstat(f.fileno()).st_mode
            if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(f.fileno())):
                return _from_bytes(f.read(), name), None, name  # pipe, FIFO, terminal: read once
            if not stat.S_ISREG(mode):  # /dev/zero, /dev/urandom, a disk: would never end
                raise InputFormatError(name, None, None, "is a device, not a file")
            magic = f.read(3)
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputFormatError(name, None, None, "is a directory, not a file") from None
    if magic[:2] != _GZIP_MAGIC and magic != _BOM and lazy:
        return path, None, name  # read by the fast reader itself
    return _from_bytes(path.read_bytes(), name), None, name


def _read_text(source: Source) -> tuple[str, str]:
    """Return ``(text, display_name)`` (see :func:`_read_raw`)."""
    raw, text, name = _read_raw(source, lazy=False)
    if text is not None:
        return text, name
    assert isinstance(raw, bytes)  # lazy=False: a source that gave no text gave bytes
    return _decode(raw, name), name


class _Scan:
    """Byte statistics of a file, gathered in one vectorised pass over fixed-size chunks
    (the file is never held in memory as a whole)."""

    def __init__(self) -> None:
        self.ok = True          # ASCII without DEL, no two adjacent bytes <= 32, no '#' at a line start
        self.low = 0            # bytes <= 32: delimiters, newlines, any other control byte
        self.first: int | None = None  # first byte
        self.last: int | None = None   # last byte
        self._prev_low = True   # the byte before the first counts as a line start
        self.comment = False    # stopped at a '#' that starts a line (a comment line)
        # the masks of a chunk, allocated once and reused: fresh 1 MB temporaries per
        # chunk cost about two page faults per page of the file (the scan of a 10 M-line
        # run alone: 165,000 faults and 0.35 s of system time, against 7,000 and 0.1 s)
        self._low = np.empty(0, dtype=bool)
        self._pair = np.empty(0, dtype=bool)

    def feed(self, chunk: np.ndarray, has_hash: bool = True, has_cr: bool = False) -> bool:
        """Add one chunk (``uint8``); ``has_hash=False`` promises it has no ``#``;
        ``has_cr`` says it holds a ``\\r``: the CSV reader ends a line there, the
        exact reader (like trec_eval) only at ``\\n``, so such files are not canonical."""
        if not self.ok or len(chunk) == 0:
            return self.ok
        if has_cr:
            self.ok = False
            return False
        if self.first is None:
            self.first = int(chunk[0])
            if self.first == 35:  # '#'
                self.ok, self.comment = False, True
                return False
        if int(chunk.max()) >= 127:  # non-ASCII, or DEL (a control character no field may hold)
            self.ok = False
            return False
        n = len(chunk)
        if len(self._low) < n:
            self._low, self._pair = np.empty(n, dtype=bool), np.empty(n, dtype=bool)
        low = np.less_equal(chunk, 32, out=self._low[:n])  # space, tab, newline, every other control byte
        if (self._prev_low and low[0]) or np.logical_and(low[1:], low[:-1], out=self._pair[: n - 1]).any():
            self.ok = False
            return False
        if self.last == 10 and chunk[0] == 35:
            self.ok, self.comment = False, True
            return False
        if has_hash and ((chunk[:-1] == 10) & (chunk[1:] == 35)).any():
            self.ok, self.comment = False, True
            return False
        self.low += int(np.count_nonzero(low))
        self._prev_low = bool(low[-1])
        self.last = int(chunk[-1])
        return True

    def canonical(self, n_fields: int, n_rows: int, delim: int) -> bool:
        """True if every byte <= 32 is a delimiter or a newline of the ``n_rows`` rows of
        ``n_fields`` fields the CSV reader found (a tab or control byte inside a field,
        where ``str.split`` would split, makes the count larger), and the last byte is
        not a delimiter."""
        if not self.ok or self.first is None or self.last == delim:
            return False
        newlines = n_rows - (0 if self.last == 10 else 1)
        return self.low == (n_fields - 1) * n_rows + newlines


_CHUNK = 1 << 20  # bytes per scanned chunk: 1 MB temporaries (4 MB ones: 3-4x slower here)


def _scan_bytes(raw: bytes) -> _Scan:
    scan = _Scan()
    data = np.frombuffer(raw, dtype=np.uint8)
    for start in range(0, len(data), _CHUNK):
        if not scan.feed(data[start: start + _CHUNK], raw.find(b"#", start, start + _CHUNK) >= 0,
                         raw.find(b"\r", start, start + _CHUNK) >= 0):
            break
    return scan


def _scan_file(path: Path) -> tuple[_Scan, bytes]:
    """Scan a plain file in chunks; also return its first line (for the runid)."""
    scan = _Scan()
    buf = bytearray(_CHUNK)
    first_line = b""
    with open(path, "rb", buffering=0) as f:
        while True:
            n = f.readinto(buf)
            if not n:
                break
            view = np.frombuffer(buf, dtype=np.uint8, count=n)
            if scan.first is None:
                first_line = bytes(buf[: min(n, 4096)]).split(b"\n", 1)[0]
            if not scan.feed(view, buf.find(b"#", 0, n) >= 0, buf.find(b"\r", 0, n) >= 0):  # memchr
                break
    return scan, first_line


#: positions per step of :func:`_canonical_ends`'s check of the gaps between them
#: (a 64 KB buffer: below glibc's threshold for a fresh mapping, reused from the heap)
_GAP_STEP = 1 << 13


def _canonical_ends(raw: bytes, n_fields: int) -> np.ndarray | None:
    """Where every field of a small *canonical* file ends (see :func:`_canonical_tokens`):
    ``int64 (n_rows, n_fields)``, the offset in ``raw`` of the delimiter or newline
    after each field (``len(raw)`` for the last field of a last line without
    newline); a field runs from the previous end + 1 to its end and is never empty.
    ``None`` for a file of :func:`_numpy_max_bytes` or more or one that is not canonical.

    The checks of :class:`_Scan` (ASCII without DEL, no two adjacent bytes <= 32, no
    ``#`` starting a line, no delimiter at the end) without its passes over the bytes:
    ``bytes`` methods for the characters, and the positions of the bytes <= 32 (which
    NumPy finds for the layout anyway) for the rest."""
    if not raw or len(raw) >= _numpy_max_bytes():
        return None
    if not raw.isascii() or b"\x7f" in raw or raw[0] <= 32:
        return None  # not ASCII, DEL, a blank or indented first line
    end = raw.find(b"\n")
    delim = _delimiter(raw if end < 0 else raw[:end])
    if raw[-1] == delim:
        return None
    data = np.frombuffer(raw, dtype=np.uint8)
    at = np.flatnonzero(data <= 32)  # the delimiters and newlines, in file order
    low = data[at]
    if raw[-1] != 10:
        at, low = np.append(at, len(raw)), np.append(low, np.uint8(10))
    if len(low) % n_fields:
        return None
    # each line: n_fields - 1 delimiters, then its newline
    layout = low.reshape(-1, n_fields)
    if not (bool((layout[:, -1] == 10).all()) and bool((layout[:, :-1] == delim).all())):
        return None
    ends = at.reshape(-1, n_fields)
    # no two adjacent (an empty field: a blank line, two delimiters, a blank at a line's
    # end): every field is at least one byte (the first: the first byte is not a blank,
    # checked above), so consecutive positions differ by 2 or more; in steps of
    # _GAP_STEP positions through one small reused buffer (np.diff(at) would be a fresh
    # array of 8 bytes a field: its page faults cost more than the subtraction;
    # contiguous steps, not strided columns: dl20's run 2.5M -> 0.3M instructions)
    gap = np.empty(min(len(at) - 1, _GAP_STEP), dtype=np.int64)
    for first in range(0, len(at) - 1, _GAP_STEP):
        last = min(first + _GAP_STEP, len(at) - 1)
        step = gap[: last - first]
        np.subtract(at[first + 1: last + 1], at[first: last], out=step)
        if int(step.min()) < 2:
            return None
    if b"#" in raw and (raw[0] == 35 or bool((data[ends[:-1, -1] + 1] == 35).any())):
        return None  # a comment line
    return ends


def _field_bounds(ends: np.ndarray, column: int) -> tuple[np.ndarray, np.ndarray]:
    """Where column ``column``'s values start and stop (the delimiter or newline after
    each) in a canonical file whose field ends are ``ends`` (:func:`_canonical_ends`,
    ``(n, n_fields)``): two ``(n,)`` arrays of byte offsets."""
    stop = ends[:, column]
    if column:
        return ends[:, column - 1] + 1, stop
    start = np.empty_like(stop)
    start[0] = 0
    start[1:] = ends[:-1, -1] + 1
    return start, stop


def _field_text(data: np.ndarray, ends: np.ndarray, column: int) -> tuple[str, np.ndarray, np.ndarray]:
    """Column ``column`` of a canonical file (``ends`` from :func:`_canonical_ends`;
    ``data`` its bytes, with a newline appended if it has none at the end) as one text,
    every value followed by ``"\\n"`` (the bytes gathered by NumPy, decoded once), with
    the offset of each value in that text and its length (``int64 (n,)`` each)."""
    start, stop = _field_bounds(ends, column)
    length = stop - start
    size = length + 1  # the value and the byte after it (a delimiter or newline)
    after = np.cumsum(size)  # offset of the next value in the text
    # the offsets in ``data`` of the text's bytes: +1 within a value, a jump to the next one
    at = np.ones(int(after[-1]), dtype=np.int32 if len(data) < 1 << 31 else np.int64)
    at[0] = start[0]
    at[after[:-1]] = start[1:] - stop[:-1]
    picked = data[np.cumsum(at, out=at)]
    picked[after - 1] = 10
    return picked.tobytes().decode("ascii"), after - size, length


#: Digits (at most) of a decimal parsed in NumPy: the integer of its digits stays below
#: 2^53, exact in float64, so one IEEE division by an exact power of ten rounds it
#: correctly, as ``float()`` and C's ``strtod`` do (Clinger's fast path).
_EXACT_DIGITS = 15


#: Digits (at most) of a decimal parsed in NumPy through ``long double`` (x87's 64-bit
#: mantissa; see :func:`_wide_decimals`), as full-precision scores have (17 digits:
#: ``10.031979740362001``, Terrier's and Lucene's float64 scores printed in full).
_WIDE_DIGITS = 18


@functools.cache
def _pow10_float() -> np.ndarray:
    """Powers of ten exactly representable as float64 (10^0 .. 10^22)."""
    return np.array([float(10 ** k) for k in range(23)])


@functools.cache
def _byte_classes(integer: bool) -> np.ndarray:
    """``uint8 (256,)``: the class of every byte in a number column: its digit value
    (0-9), 10 for ``.`` (12 when ``integer``: grades have no point), 11 for a sign, 12
    for any other byte (an exponent's ``e`` included)."""
    classes = np.full(256, 12, dtype=np.uint8)
    classes[48:58] = np.arange(10, dtype=np.uint8)
    classes[ord("+")] = classes[ord("-")] = 11
    if not integer:
        classes[ord(".")] = 10
    return classes


def _decimal_column(data: np.ndarray, start: np.ndarray, length: np.ndarray,
                    integer: bool = False) -> np.ndarray | None:
    """``float64 (n,)`` of the numbers ``data[start[i]: start[i] + length[i]]``
    (``data`` ``uint8``, ASCII; ``start``, ``length`` ``int64 (n,)``, every length >= 1),
    equal to ``float()`` of each; ``None`` if one is not a number as trec_eval reads it (:func:`_number_re`;
    with ``integer``, :func:`_integer_re`) or is not finite.

    One pass per character position (Horner's scheme) reads each value's bytes and
    checks them: a *plain* value (an optional sign, ASCII digits, at most one point,
    at least one digit; no point if ``integer``; at most 20 characters) is in the
    grammar and parsed in NumPy: with at most :data:`_EXACT_DIGITS` digits as its
    digits' integer divided by 10^fraction digits (exact, see :data:`_EXACT_DIGITS`),
    with up to :data:`_WIDE_DIGITS` through ``long double`` where that provably rounds
    as ``float()`` does (:func:`_wide_decimals`). Any other value (an exponent, more
    digits, anything else) is checked by the regular expression, compiled only then,
    and read by ``float()``."""
    n = len(start)
    if n == 0:
        return np.empty(0, dtype=np.float64)
    width = min(int(length.max()), _WIDE_DIGITS + 2)  # digits, a sign and a point
    classes = _byte_classes(integer)
    if width == 1:  # one character each (grades 0-9): digits are their values
        single = classes[data[start]]
        if bool((single < 10).all()):
            return single.astype(np.float64)
    last = len(data) - 1
    clamp = int(start.max()) + width - 1 > last  # the last values end near the end of the data
    mantissa = np.zeros(n, dtype=np.int64)  # the first 18 digits at most: below 2^63
    fraction = np.zeros(n, dtype=np.uint8)  # digits after the point (at most 20)
    digits = np.zeros(n, dtype=np.uint8)
    point = np.zeros(n, dtype=bool)
    odd = np.zeros(n, dtype=bool)  # a byte a plain value has not there, or a second point
    # buffers reused at every position (fresh temporaries cost page faults and cache
    # misses); the offsets int64 (NumPy converts a narrower index array to intp first).
    # Three arrays of 8 bytes a value in all (``mantissa``, ``at``, the result): dl20's
    # run's 19,900 scores fault in 128 pages instead of 299 (1.33 -> 1.0 ms first call)
    first = start.astype(np.int64, copy=False)
    at = np.empty(n, dtype=np.int64)
    byte, c = np.empty(n, dtype=np.uint8), np.empty(n, dtype=np.uint8)
    inside, digit, dot, flag = (np.empty(n, dtype=bool) for _ in range(4))
    for j in range(width):
        np.add(first, j, out=at)
        if clamp:
            np.minimum(at, last, out=at)
        np.take(data, at, out=byte, mode="clip")  # in range; "clip" writes out unbuffered
        np.take(classes, byte, out=c, mode="clip")
        np.greater(length, j, out=inside)
        np.less(c, 10, out=digit)
        digit &= inside
        if j == 0:
            np.equal(c, 12, out=flag)  # a sign or a point may come first
        else:
            np.greater(c, 10, out=flag)
            flag &= inside
        odd |= flag
        if not integer:
            np.equal(c, 10, out=dot)
            dot &= inside
            np.logical_and(point, dot, out=flag)
            odd |= flag
            point |= dot
        if j >= _WIDE_DIGITS:  # a 19th or 20th digit is counted (the value then goes to float()) but not added
            kept = digit & (digits < _WIDE_DIGITS)
        else:
            kept = digit
        np.multiply(mantissa, 10, out=mantissa, where=kept)
        np.add(mantissa, c, out=mantissa, where=kept)
        digits += digit
        if not integer:
            np.logical_and(kept, point, out=flag)
            fraction += flag
    plain = (length <= width) & ~odd & (digits > 0)
    exact = plain & (digits <= _EXACT_DIGITS)
    out = mantissa.astype(np.float64)
    wide = np.flatnonzero(plain & ~exact & (digits <= _WIDE_DIGITS))
    if len(wide):
        values, ok = _wide_decimals(mantissa[wide], fraction[wide])
    # 10^fraction into the buffers of ``at`` (the index) and ``mantissa`` (read above)
    np.minimum(fraction, 22, out=at)
    divisor = mantissa.view(np.float64)
    np.take(_pow10_float(), at, out=divisor, mode="clip")  # in range; "clip" writes out unbuffered
    out /= divisor
    if len(wide):
        out[wide[ok]] = values[ok]
        exact[wide[ok]] = True
    np.negative(out, out=out, where=data[start] == 45)
    rows = np.flatnonzero(~exact)
    if len(rows):
        tokens = [data[a: a + k].tobytes().decode("ascii")
                  for a, k in zip(start[rows].tolist(), length[rows].tolist())]
        check = _integer_lines_re() if integer else _number_lines_re()
        if not (plain[rows].all() or check.fullmatch("\n".join(tokens) + "\n")):
            return None  # the callers' exact path words the error
        out[rows] = [float(t) for t in tokens]
        if not np.isfinite(out[rows]).all():
            return None
    return out


def _wide_decimals(mantissa: np.ndarray, fraction: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``mantissa / 10**fraction`` (``int64`` below 10^18, ``fraction <= 18``) correctly
    rounded to ``float64`` where it can be shown to be: ``(values float64, ok bool)``.

    The quotient is taken in ``long double`` (64-bit mantissa: both operands exact, the
    quotient ``q`` within 2^-64 relative of the true value ``v``), then rounded to
    ``float64`` (``d``). ``d`` is the correctly rounded ``v`` unless a ``float64``
    rounding midpoint lies within that error of ``q``: such values (distance from
    ``|q - d|`` to half an ulp of ``d`` at most ``|q| 2^-61``, 8 times the bound), and
    those whose ``d`` is a power of two (unequal ulps on either side) are not ``ok``
    and go to ``float()``. Without an x87 ``long double`` nothing is ``ok``."""
    ok = np.zeros(len(mantissa), dtype=bool)
    if np.finfo(np.longdouble).nmant < 63:  # long double is float64 here (ARM, Windows)
        return np.zeros(len(mantissa)), ok
    q = mantissa.astype(np.longdouble) / _pow10_long()[fraction]
    d = q.astype(np.float64)
    off = np.abs(q - d.astype(np.longdouble))  # exact (Sterbenz): d is within a factor 2 of q
    half = np.spacing(np.abs(d)).astype(np.longdouble) / 2
    ok = np.abs(off - half) > np.abs(q) * np.longdouble(2.0 ** -61)
    ok &= np.frexp(d)[0] != 0.5  # not a power of two (0.0 passes: its frexp is 0)
    return d, ok


def _pow10_long() -> np.ndarray:
    """10^0 .. 10^18 as ``long double`` (exact: below 2^64)."""
    return np.array([10 ** k for k in range(_WIDE_DIGITS + 1)], dtype=np.longdouble)


def _first_column_codes(raw: bytes, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Query codes of a canonical file's first column (``ends`` from
    :func:`_canonical_ends`), as :func:`evalkit.engine.factorize.encode` gives them for
    the column's ``str`` values: ``(codes int64 (n,), vocab object (u,))``, ``vocab``
    sorted. Each value of at most 16 bytes is read as two little-endian words (its
    bytes, then zeros: a field holds no byte <= 32, so equal words are equal values);
    runs of equal neighbours are found on the words and only their first values
    become ``str``. ``None`` for longer values (the caller splits the column)."""
    from ..engine.factorize import _KEEP_LE  # keeps the first r bytes of a little-endian word (r = 0..8)

    start, stop = _field_bounds(ends, 0)
    length = stop - start
    if int(length.max()) > 16:
        return None
    n = len(stop)

    def windows(buf: bytes) -> np.ndarray:  # the 16 bytes at every offset, as one item each
        return np.ndarray(shape=(len(buf) - 15,), dtype="V16", buffer=buf, strides=(1,))

    # values with 16 readable bytes are read in place; the last few (within 16 bytes of
    # the end) from a zero-padded copy of the file's tail, not of the whole file; one
    # gather of 16 bytes a row, then read as two little-endian words
    k = int(np.searchsorted(start, len(raw) - 15))
    tail = int(start[k]) if k < n else len(raw)
    pairs = np.empty(n, dtype="V16")
    if k:
        pairs[:k] = windows(raw)[start[:k]]  # (np.take would copy the view whole)
    if k < n:
        pairs[k:] = windows(raw[tail:] + bytes(16))[start[k:] - tail]
    words = pairs.view("<u8").reshape(n, 2)
    low, high = words[:, 0], words[:, 1]
    low &= _KEEP_LE[np.minimum(length, 8)]
    high &= _KEEP_LE[np.clip(length - 8, 0, 8)]
    heads = np.flatnonzero(np.concatenate(([True], (low[1:] != low[:-1]) | (high[1:] != high[:-1]))))
    text = [raw[i: j].decode("ascii") for i, j in zip(start[heads].tolist(), stop[heads].tolist())]
    uniq = sorted(set(text))
    position = {v: i for i, v in enumerate(uniq)}
    head_codes = np.fromiter(map(position.__getitem__, text), dtype=np.int64, count=len(text))
    vocab = np.empty(len(uniq), dtype=object)
    vocab[:] = uniq
    return np.repeat(head_codes, np.diff(np.append(heads, n))), vocab


def _field_bytes(data: np.ndarray, ends: np.ndarray, column: int) -> Any:
    """Column ``column`` of a canonical file (as :func:`_field_text` reads it) as a
    :class:`evalkit.engine.factorize.Utf8Column`: the values' bytes gathered end to end
    by NumPy, no Python object per value (the engine hashes and compares them in
    place; ``str`` objects are made only if asked for)."""
    from ..engine.factorize import Utf8Column, gather_bytes

    start, stop = _field_bounds(ends, column)
    return Utf8Column(*gather_bytes(data, start, stop - start))


def _canonical_columns(raw: bytes, n_fields: int,
                       number: int) -> tuple[list[str] | tuple[np.ndarray, np.ndarray], Any, np.ndarray, str] | None:
    """The columns of a small canonical file (see :func:`_canonical_tokens`) that the
    readers keep, without a Python object per field: ``(qid, docno, values, first
    line's field 6)``: ``qid`` as ``(codes, vocab)`` (:func:`_first_column_codes`) or,
    for ids over 16 bytes, a ``list[str]`` (n,); ``docno`` a
    :class:`~evalkit.engine.factorize.Utf8Column` (n,) (:func:`_field_bytes`);
    ``values`` ``float64`` (n,); the runid of a run (``""`` for qrels). Only the kept
    columns are gathered (NumPy gathers their bytes) and split, and the numbers are
    parsed in NumPy (:func:`_decimal_column`). ``None`` when :func:`_canonical_tokens` would
    give ``None``, or when a number is not what the readers accept without comment (not
    a finite decimal; for grades, ``number == 3``, not an integer): the callers then
    read the file by :func:`_canonical_tokens` and :func:`_numbers`, which word the
    error. Values equal theirs (tests/test_readers_small.py)."""
    if len(raw) < TINY_MAX_BYTES:
        return _tiny_columns(raw, n_fields, number)
    ends = _canonical_ends(raw, n_fields)
    if ends is None or not len(ends):
        return None
    data = np.frombuffer(raw if raw[-1:] == b"\n" else raw + b"\n", dtype=np.uint8)
    start, stop = _field_bounds(ends, number)
    values = _decimal_column(data, start, stop - start, integer=number == 3)
    if values is None:
        return None
    qid: list[str] | tuple[np.ndarray, np.ndarray] | None = _first_column_codes(raw, ends)
    if qid is None:
        qid = _field_text(data, ends, 0)[0].split("\n")
        qid.pop()  # the empty string after the last newline
    docno = _field_bytes(data, ends, 2)
    runid = raw[int(ends[0, 4]) + 1: int(ends[0, 5])].decode("ascii") if n_fields == 6 else ""
    return qid, docno, values, runid


#: every byte above 32 (deleted by ``bytes.translate`` to leave the delimiters and newlines)
_ABOVE_32 = bytes(range(33, 256))


def _tiny_fields(raw: bytes, n_fields: int) -> list[str] | None:
    """:func:`_canonical_tokens`'s fields of a file under :data:`TINY_MAX_BYTES`
    (``str.split`` of the whole text), with :func:`_canonical_ends`'s checks made by
    ``bytes`` methods instead of NumPy: the bytes <= 32 (``bytes.translate``) must be
    the delimiter ``n_fields - 1`` times, then a newline, on every line, and the
    split must give ``n_fields`` fields a line (fewer: two of those bytes adjacent,
    an empty field). ``None`` for any other file, or one of :func:`_numpy_max_bytes`
    or more (as :func:`_canonical_ends`)."""
    if not raw or len(raw) >= _numpy_max_bytes():
        return None
    if not raw.isascii() or b"\x7f" in raw or raw[0] <= 32 or raw[0] == 35 or b"\n#" in raw:
        return None  # not ASCII, DEL, a blank or indented first line, a comment line
    end = raw.find(b"\n")
    delim = _delimiter(raw if end < 0 else raw[:end])
    newline = raw[-1] == 10
    rows = raw.count(b"\n") + (0 if newline else 1)
    line = bytes((delim,)) * (n_fields - 1) + b"\n"
    if raw.translate(None, _ABOVE_32) != (line * rows if newline else (line * rows)[:-1]):
        return None
    fields = raw.decode("ascii").split()
    return fields if len(fields) == n_fields * rows else None


def _tiny_numbers(tokens: list[str], integer: bool) -> np.ndarray | None:
    """``float64`` of number tokens, as :func:`_decimal_column` reads them (``float()``
    of each; ``None`` if one is not in the grammar or not finite), by ``str``
    methods: a plain decimal (an optional sign, digits, at most one point and at least
    one digit; no point if ``integer``) needs no regular expression."""
    def plain(token: str) -> bool:
        body = token[1:] if token[0] in "+-" else token
        return (body if integer else body.replace(".", "", 1)).isdigit()  # ASCII: 0-9 only

    odd = [t for t in tokens if not plain(t)]
    if odd:
        check = _integer_re() if integer else _number_re()
        if not all(check.fullmatch(t) for t in odd):
            return None
    values = [float(t) for t in tokens]
    if math.inf in values or -math.inf in values:
        return None
    return np.array(values, dtype=np.float64)


def _tiny_columns(raw: bytes, n_fields: int,
                  number: int) -> tuple[list[str], list[str], np.ndarray, str] | None:
    """:func:`_canonical_columns` of a file under :data:`TINY_MAX_BYTES`: the query ids
    and docnos as lists of ``str`` (:func:`_tiny_fields`), the numbers by
    :func:`_tiny_numbers`; ``None`` when :func:`_canonical_columns` gives ``None``."""
    fields = _tiny_fields(raw, n_fields)
    if not fields:
        return None
    values = _tiny_numbers(fields[number::n_fields], integer=number == 3)
    if values is None:
        return None
    return fields[0::n_fields], fields[2::n_fields], values, fields[5] if n_fields == 6 else ""


def _canonical_first(raw: bytes | Path, n_fields: int,
                     number: int) -> tuple[tuple[Any, Any, np.ndarray, str] | None, bytes | Path]:
    """:func:`_canonical_columns` of an input under :data:`CANONICAL_MAX_BYTES`, tried
    before Arrow's reader: ``(columns or None, raw)``, ``raw`` the bytes (read once
    from a path) or the path of a larger file, left to Arrow."""
    size = raw.stat().st_size if isinstance(raw, Path) else len(raw)
    if size >= CANONICAL_MAX_BYTES:
        return None, raw
    data = raw.read_bytes() if isinstance(raw, Path) else raw
    return _canonical_columns(data, n_fields, number), data


def _canonical_tokens(raw: bytes, n_fields: int) -> tuple[list[str], np.ndarray] | None:
    """The fields of a small *canonical* file (as :func:`_fast_table` defines it:
    ASCII, one space or one tab between fields, no blank or comment line, exactly
    ``n_fields`` fields on every line), split in one call: ``(fields, line_numbers)``,
    ``fields`` a flat ``list[str]`` of ``n_fields`` per line (``str.split`` of the
    whole text, which on such a file equals the exact reader's per-line split) and
    ``line_numbers`` ``int64 (n,)`` = ``1..n``. ``None`` for a file of
    :data:`FAST_MIN_BYTES` or more (Arrow's) or one that is not canonical (the exact
    line-by-line reader's, which also words the errors). About 3x faster than the
    per-line reader on a 20 k-line run, and no pyarrow import (issue 27)."""
    if len(raw) < TINY_MAX_BYTES:
        tiny = _tiny_fields(raw, n_fields)
        return None if tiny is None else (tiny, np.arange(1, len(tiny) // n_fields + 1, dtype=np.int64))
    ends = _canonical_ends(raw, n_fields)
    if ends is None:
        return None
    n_rows = len(ends)
    fields = raw.decode("ascii").split()
    if len(fields) != n_fields * n_rows:  # pragma: no cover - implied by the layout
        return None
    return fields, np.arange(1, n_rows + 1, dtype=np.int64)


def _delimiter(sample: bytes) -> int:
    """Tab if the first line has a tab and no space, else space (the byte count in
    :meth:`_Scan.canonical` catches a file that mixes them)."""
    return 9 if (b"\t" in sample and b" " not in sample) else 32


def _csv_pool() -> Any:
    import pyarrow as pa

    # mimalloc (Arrow's default pool) is several times slower on its first large
    # allocations on some machines; jemalloc or the system allocator are not
    for make in ("jemalloc_memory_pool", "system_memory_pool"):
        try:
            return getattr(pa, make)()
        except (AttributeError, NotImplementedError, pa.ArrowNotImplementedError):
            continue
    return None


_DECAY_SET = False


@contextmanager
def _reading_pool(pool: Any) -> Any:
    """Within the block, Arrow allocates from ``pool`` (the CSV reader's pool, see
    :func:`_csv_pool`) by default too, so the reader's file buffers come from the same
    allocator as its columns and are reused by them; and a jemalloc ``pool`` returns
    freed pages to the system at once (decay time 0, set once per process, for
    Arrow's own jemalloc instance only: the process's ``malloc`` is not touched).
    Measured on W1 (whole process, medians of 5): peak RSS 203 -> 146 MB at 1 M lines,
    330 -> 250 MB at 3 M, CPU time +2-5 %. The user's choice wins: nothing is changed
    if ``ARROW_DEFAULT_MEMORY_POOL`` or ``JE_ARROW_MALLOC_CONF`` is set."""
    global _DECAY_SET
    import pyarrow as pa

    if pool is None or "ARROW_DEFAULT_MEMORY_POOL" in os.environ or "JE_ARROW_MALLOC_CONF" in os.environ:
        yield
        return
    if pool.backend_name == "jemalloc" and not _DECAY_SET:
        _DECAY_SET = True
        try:
            pa.jemalloc_set_decay_ms(0)
        except (AttributeError, NotImplementedError, pa.ArrowNotImplementedError):
            pass
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pool)
    try:
        yield
    finally:
        pa.set_memory_pool(previous)


def _strip_comments(raw: bytes) -> tuple[bytes, np.ndarray, bytes]:
    """Remove the comment lines (``#`` as the line's first byte) from ``raw``.

    Returns ``(data, lines, comments)``: the bytes without those lines (every other line
    unchanged, its ``\\n`` kept), the 1-based line number in ``raw`` of every remaining
    line (``int64``; one per ``\\n``-separated line of ``data``), and the removed lines
    joined (for the character checks the exact reader applies to the whole file). The
    search is ``bytes.find`` (C); Python runs once per comment line only.
    """
    keep: list[memoryview] = []
    dropped: list[bytes] = []
    comment_lines: list[int] = []
    view = memoryview(raw)
    kept_from, counted, line = 0, 0, 1
    if raw[:1] == b"#":
        start = 0
    else:
        found = raw.find(b"\n#")
        start = found + 1 if found >= 0 else -1
    while start >= 0:
        line += raw.count(b"\n", counted, start)
        counted = start
        end = raw.find(b"\n", start)
        end = len(raw) if end < 0 else end + 1
        keep.append(view[kept_from:start])
        dropped.append(raw[start:end])
        comment_lines.append(line)
        kept_from = end
        if end >= len(raw):
            break
        start = raw.find(b"\n#", end - 1)
        start = start + 1 if start >= 0 else -1
    keep.append(view[kept_from:])
    data = b"".join(keep)
    del keep, view
    n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    every = np.arange(1, n_lines + len(comment_lines) + 1, dtype=np.int64)
    lines = np.delete(every, np.asarray(comment_lines, dtype=np.int64) - 1)
    return data, lines, b"".join(dropped)


def _fast_without_comments(raw: bytes | Path, names: tuple[str, ...], number_field: str,
                           keep_rank: bool) -> tuple[Any, bytes, np.ndarray] | None:
    """:func:`_fast_table` on the file with its comment lines removed (a header line
    or a comment among millions of lines must not send the whole file to the
    line-by-line reader); the rows keep their line numbers in the file. ``None`` when a
    removed line holds what the exact reader refuses anywhere in a file (not UTF-8, a
    control character, a lone ``\\r``) or the rest is not canonical: the exact reader
    then reads the file and names the line."""
    data = raw.read_bytes() if isinstance(raw, Path) else raw
    stripped, lines, comments = _strip_comments(data)
    del data
    if b"\r" in comments:
        return None
    try:
        text = comments.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if _bad_char_re().search(text) is not None:
        return None
    parsed = _fast_table(stripped, names, number_field, keep_rank, comments=False)
    if parsed is None:
        return None
    table, first_line, _ = parsed
    return table, first_line, lines


def _fast_table(raw: bytes | Path, names: tuple[str, ...], number_field: str, keep_rank: bool = False, *,
                comments: bool = True) -> tuple[Any, bytes, np.ndarray | None] | None:
    """Parse a *canonical* file with Arrow's multi-threaded CSV reader.

    :param raw: the file's bytes, or a :class:`~pathlib.Path` of a plain (not gzip)
        file, which Arrow then reads itself (the file is never held whole in memory).

    Canonical: ASCII; fields separated by exactly one space (or exactly one tab);
    no blank, comment or whitespace-only lines; exactly ``len(names)`` fields on every
    line; every typed field parses. On such files ``str.split()`` and the CSV reader
    split identically, and Arrow's float parser rounds correctly as ``float()`` does,
    so the result equals the exact reader's. Returns ``None`` for anything else (the
    caller then runs the exact line-by-line reader, which also produces the error
    message and line number). Inputs under :data:`FAST_MIN_BYTES` go to the exact
    reader too (``None``), so a small evaluation does not import pyarrow.

    Comment lines (``#`` as the first byte of a line) are removed first
    (:func:`_fast_without_comments`) and the rest read as above; a comment indented by
    blanks is not canonical (the exact reader skips it).

    :param number_field: ``"grade"`` or ``"score"``, the column parsed as a number.
    :param keep_rank: also parse the ``rank`` column (``int64``) of a run.
    :param comments: look for comment lines (``False`` once they are removed).
    :returns: ``(table, first data line, line numbers)`` or ``None``; the line numbers
        are ``None`` (1..n) unless comment lines were removed.
    """
    if (raw.stat().st_size if isinstance(raw, Path) else len(raw)) < FAST_MIN_BYTES:
        return None
    import pyarrow as pa
    import pyarrow.csv as pcsv

    types = _types(number_field, keep_rank)

    if isinstance(raw, Path):
        with open(raw, "rb") as f:
            first_line = f.readline().rstrip(b"\n")  # whole: a long docno may come first
        scan_job: tuple[Callable[[Any], _Scan | tuple[_Scan, bytes]], Any] = (_scan_file, raw)
        source = str(raw)
    else:
        if not raw:
            return None
        end = raw.find(b"\n")
        first_line = raw if end < 0 else raw[:end]
        scan_job, source = (_scan_bytes, raw), pa.py_buffer(raw)
    if first_line[:1] == b"#" and comments:
        return _fast_without_comments(raw, names, number_field, keep_rank)
    if not first_line or first_line[:1] == b"#":
        return None  # blank first line: the exact reader's job
    delim = _delimiter(first_line)
    # The canonical scan (NumPy, one core) runs on a thread while Arrow parses: the
    # CSV reader does not keep both cores busy, so the scan costs almost no wall time
    # (W1 10M: 0.5 s sequential, hidden when overlapped). Its verdict is checked
    # before the table is used.
    from concurrent.futures import ThreadPoolExecutor

    csv_pool = _csv_pool()
    with ThreadPoolExecutor(1) as pool, _reading_pool(csv_pool):
        pending = pool.submit(scan_job[0], scan_job[1])
        try:
            table = pcsv.read_csv(
                source,
                read_options=pcsv.ReadOptions(column_names=list(names), block_size=BLOCK_SIZE),
                parse_options=pcsv.ParseOptions(delimiter=chr(delim), quote_char=False, double_quote=False,
                                                escape_char=False, newlines_in_values=False,
                                                ignore_empty_lines=False),
                convert_options=pcsv.ConvertOptions(column_types=types, include_columns=list(types),
                                                    null_values=[], true_values=[], false_values=[],
                                                    strings_can_be_null=False,
                                                    quoted_strings_can_be_null=False),
                memory_pool=csv_pool,
            )
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            table = None
        scanned = pending.result()
    scan: _Scan = scanned[0] if isinstance(scanned, tuple) else scanned
    if scan.comment and comments:
        del table
        return _fast_without_comments(raw, names, number_field, keep_rank)
    if table is None or not scan.ok or scan.first is None:
        return None
    if not scan.canonical(len(names), table.num_rows, delim):
        return None
    return table, first_line, None


def _types(number_field: str, keep_rank: bool = False) -> dict:
    import pyarrow as pa

    # query ids are dictionary-encoded while parsing (few distinct values)
    # a grade is parsed as an integer: a token Arrow does not read as one ("1e1", "2.0",
    # "+1") sends the file to the exact reader, which applies trec_eval's atol rule
    number_type = pa.int64() if number_field == "grade" else pa.float64()
    types = {"qid": pa.dictionary(pa.int32(), pa.string()), "docno": pa.string(), number_field: number_type}
    if keep_rank:
        # as text: Arrow's integer parser takes "-0" and "+5", which ndeval's
        # naturalNumber (and the exact reader) refuse; _fast_ranks checks the digits
        types["rank"] = pa.string()
    return types


def _qid_codes(column: Any) -> Any:
    """``(codes int32, sorted vocab object)`` of the parsed, dictionary-encoded qid column."""
    from ..engine.factorize import encode_dictionary

    return encode_dictionary(column)


def _docnos(columns: dict, name: str = "docno") -> Any:
    """The string column ``name``, popped from ``columns``, as one Arrow string array
    (chunks copied and let go one at a time: :func:`~evalkit.engine.factorize.combine_strings`)."""
    import pyarrow as pa

    from ..engine.factorize import as_arrow, combine_strings

    column = columns.pop(name)
    if (isinstance(column, pa.ChunkedArray) and column.num_chunks > 1
            and (pa.types.is_string(column.type) or pa.types.is_large_string(column.type))):
        chunks = column.chunks
        del column
        return combine_strings(chunks)
    return as_arrow(column)


def _columns(parsed: tuple[Any, bytes, np.ndarray | None]) -> tuple[dict, bytes, np.ndarray | None]:
    """The parsed table's columns by name, the first line and the rows' line numbers
    (``None``: 1..n); the table itself is let go, so that each column's chunks are
    freed as soon as the caller has converted it (rather than all of them at the end
    of the read)."""
    table, first_line, line = parsed
    return {name: table.column(name) for name in table.column_names}, first_line, line


def _numpy_column(columns: dict, name: str) -> np.ndarray:
    """NumPy values of the primitive Arrow (chunked) column ``name`` without nulls,
    popped from ``columns``: a view of a single chunk, or the chunks copied into one
    NumPy array, each let go once copied (NumPy's heap, not an Arrow pool: its memory
    goes back to the system when the array is freed)."""
    import pyarrow as pa

    from ..engine.factorize import numpy_view

    column = columns.pop(name)
    if not isinstance(column, pa.ChunkedArray) or column.num_chunks == 1:
        return numpy_view(column)
    chunks = column.chunks
    del column
    out = np.empty(sum(len(c) for c in chunks), dtype=np.dtype(chunks[0].type.to_pandas_dtype()))
    done = 0
    for i in range(len(chunks)):
        chunk, chunks[i] = chunks[i], None
        out[done: done + len(chunk)] = numpy_view(chunk)
        done += len(chunk)
        del chunk
    return out


def _fast_numbers(columns: dict, name: str, integer: bool = False) -> np.ndarray | None:
    """Float64 values of the parsed column ``name`` (popped from ``columns``), or
    ``None`` if one is not finite (or not an integer when ``integer``): the exact
    reader then names the line."""
    out = _numpy_column(columns, name)
    if out.dtype.kind == "i":  # grades: parsed as integers (plain ASCII decimal digits)
        return out.astype(np.float64)
    if not np.isfinite(out).all():
        return None
    if integer and not (out == np.round(out)).all():
        return None
    return out


#: The largest rank kept (ranks are stored as ``int32``).
MAX_RANK = (1 << 31) - 1  # np.iinfo(np.int32).max


@functools.cache
def _rank_re() -> re.Pattern[str]:
    """A rank as ndeval reads it (``naturalNumber``, ndeval.c:218-237): ASCII digits only."""
    return re.compile(r"[0-9]{1,10}", re.ASCII)


@functools.cache
def _rank_lines_re() -> re.Pattern[str]:
    """Lines of :func:`_rank_re` ranks, each ended by ``\\n``."""
    return re.compile(r"(?:[0-9]{1,10}\n)*", re.ASCII)


def _fast_ranks(columns: dict) -> np.ndarray | None:
    """``int32`` ranks of the parsed column ``rank`` (popped from ``columns``), or
    ``None`` if one is negative or too large (the exact reader then names the line)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    column = columns.pop("rank")
    if len(column) and not pc.all(pc.match_substring_regex(column, r"^[0-9]{1,10}$")).as_py():
        return None  # a sign, a non-digit or too many digits: the exact reader names the line
    columns["rank"] = pc.cast(column, pa.int64())
    out = _numpy_column(columns, "rank")
    if len(out) and out.max() > MAX_RANK:
        return None
    return out.astype(np.int32)


def _ranks(values: list[str], lines: np.ndarray, name: str) -> np.ndarray:
    """Parse the rank column as ndeval does (``naturalNumber``: a non-negative decimal
    integer, ASCII digits only); anything else raises :class:`InputFormatError` naming
    the line and the field ``rank``. Returns ``int32``."""
    if not values:
        return np.empty(0, np.int32)
    ok = _rank_lines_re().fullmatch("\n".join(values) + "\n") is not None
    if ok:
        out = np.asarray(values, dtype=np.int64)
        if out.max() <= MAX_RANK:
            return out.astype(np.int32)
    rank = _rank_re()
    i = next(j for j, v in enumerate(values) if rank.fullmatch(v) is None or int(v) > MAX_RANK)
    raise InputFormatError(name, int(lines[i]), "rank",
                           f"expected a non-negative integer rank (at most {MAX_RANK}), got {values[i]!r}; "
                           "the rank column is read because a flavour orders the run by it (ndeval's default)")


def _decode(raw: bytes, name: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputFormatError(name, line, None, f"not valid UTF-8 (byte {raw[exc.start]:#04x})") from None


# The regular expressions below are compiled on first use (``functools.cache``): a
# canonical file read by NumPy needs none of them (0.1-0.3 ms each per process).


@functools.cache
def _bad_char_re() -> re.Pattern[str]:
    """Characters no field may hold: control characters other than the ASCII whitespace
    trec_eval splits on (C ``isspace``: space, \\t \\n \\v \\f \\r), and every Unicode
    space, line or paragraph separator or invisible format character (which Python's
    ``str.split`` would silently treat as a separator, or keep inside a docno)."""
    return re.compile(f"[{FORBIDDEN_CHARACTERS}]")


@functools.cache
def _number_re() -> re.Pattern[str]:
    """A number as C's ``strtod``/``atof`` reads it in trec_eval (ASCII digits only; no
    ``nan``/``inf``, no ``_`` separators, no full-width digits, which ``float()`` accepts)."""
    return re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


@functools.cache
def _number_lines_re() -> re.Pattern[str]:
    """Lines of :func:`_number_re` numbers, each ended by ``\\n``; possessive
    quantifiers: the same language, without a backtracking record per line (7 -> 1 ms
    on a 20 k-line run's scores)."""
    return re.compile(r"(?:[+-]?+(?:\d++\.?+\d*+|\.\d++)(?:[eE][+-]?+\d++)?+\n)*+", re.ASCII)


def _field_name(fields: tuple[str, ...], index: int) -> str:
    return fields[index] if index < len(fields) else f"column {index + 1}"


def _check_characters(text: str, name: str, fields: tuple[str, ...]) -> None:
    """Raise :class:`InputFormatError` naming the line and field of the first
    character no field may hold (see :func:`_bad_char_re`)."""
    bad = _bad_char_re().search(text)
    if bad is None:
        return
    at = bad.start()
    line_start = text.rfind("\n", 0, at) + 1
    number = text.count("\n", 0, at) + 1
    before = text[line_start:at]
    index = len(before.split()) - (1 if before and not before[-1].isspace() else 0)
    char = bad.group()
    import unicodedata

    label = unicodedata.name(char, None) or f"control character {ord(char):#04x}"
    raise InputFormatError(
        name, number, _field_name(fields, max(index, 0)),
        f"contains U+{ord(char):04X} ({label}); fields hold no control characters or "
        "Unicode spaces and are separated by ASCII spaces or tabs",
    )


def _split(text: str, name: str, min_fields: int, max_fields: int | None, fields: tuple[str, ...]) -> Any:
    """Split lines (at ``\\n``) into fields at ASCII whitespace. Returns (rows, line_numbers)."""
    _check_characters(text, name, fields)
    if "\r" in text:
        lone = re.search(r"\r(?!\n)", text)
        if lone is not None:  # CR-only line ends would join lines into one (runs and qrels alike)
            raise InputFormatError(name, text.count("\n", 0, lone.start()) + 1, None,
                                   "a carriage return (\\r) that does not end a \\r\\n line: CR-only line ends "
                                   "are not read as line ends; convert the file (tr '\\r' '\\n')")
    rows: list[list[str]] = []
    lines: list[int] = []
    for number, line in enumerate(text.split("\n"), start=1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        n = len(parts)
        if n < min_fields or (max_fields is not None and n > max_fields):
            expect = f"{min_fields}" if max_fields == min_fields else f"at least {min_fields}"
            raise InputFormatError(
                name, number, fields[n] if n < min_fields else None,  # the first missing field
                f"expected {expect} whitespace-separated fields ({' '.join(fields)}), found {n}",
            )
        rows.append(parts)
        lines.append(number)
    return rows, np.asarray(lines, dtype=np.int64)


def _numbers(values: list[str], lines: np.ndarray, name: str, field: str, integer: bool = False) -> np.ndarray:
    """Parse a number column as trec_eval does (ASCII decimal, optional exponent);
    anything else, a value that overflows to infinity, or (``integer``) a fractional
    grade raises :class:`InputFormatError` naming the line and ``field``."""
    if values and _number_lines_re().fullmatch("\n".join(values) + "\n") is None:
        number = _number_re()
        i = next(j for j, v in enumerate(values) if number.fullmatch(v) is None)
        kind = "an integer grade" if integer else "a finite number"
        raise InputFormatError(name, int(lines[i]), field,
                               f"expected {kind}, got {values[i]!r} (ASCII decimal notation, as trec_eval reads it)")
    out = np.asarray(values, dtype=np.float64) if values else np.empty(0, np.float64)
    bad = ~np.isfinite(out)
    if integer:
        bad |= out != np.round(out)
    if not bad.any():
        if integer and values and _integer_lines_re().fullmatch("\n".join(values) + "\n") is None:
            _check_atol(values, out, lines, name, field)
        return out
    i = int(np.flatnonzero(bad)[0])
    kind = "an integer grade" if integer else "a finite number"
    raise InputFormatError(name, int(lines[i]), field, f"expected {kind}, got {values[i]!r}")


def _is_dataset_id(source: Any) -> TypeGuard[str]:
    """``irds:DATASET_ID`` (:mod:`evalkit.ecosystem.ir_datasets`), not a path or file text."""
    return isinstance(source, str) and source.startswith("irds:") and "\n" not in source


@functools.cache
def _integer_re() -> re.Pattern[str]:
    """An integer grade as trec_eval's ``atol`` reads it whole (ASCII digits, a sign)."""
    return re.compile(r"[+-]?[0-9]+", re.ASCII)


@functools.cache
def _integer_lines_re() -> re.Pattern[str]:
    """Lines of :func:`_integer_re` integers, each ended by ``\\n`` (possessive, as
    :func:`_number_lines_re`)."""
    return re.compile(r"(?:[+-]?+[0-9]++\n)*+", re.ASCII)


_LONG_MAX = 2 ** 63 - 1


def atol(text: str) -> int:
    """C ``atol`` (``strtol(text, NULL, 10)``) on an ASCII token: the optional sign and
    the leading decimal digits, 0 without digits, clamped to ``long`` (64 bits): how
    trec_eval reads a grade (``get_qrels.c``: ``rel = atol(lines[i].rel)``, 9.0.8 line
    175, 10.0 line 192). ``atol("1e1") == 1``, ``atol(".2e1") == 0``, ``atol("1e-400") == 1``."""
    m = re.match(r"[+-]?[0-9]*", text, re.ASCII)
    assert m is not None  # the pattern matches the empty string
    digits = m.group().lstrip("+-")
    if not digits:
        return 0
    value = int(m.group())
    return max(-_LONG_MAX - 1, min(_LONG_MAX, value))


def _check_atol(values: list[str], out: np.ndarray, lines: np.ndarray, name: str, field: str) -> None:
    """Refuse a grade written with a fraction or exponent whose value differs from what
    trec_eval's ``atol`` reads (``1e1`` is 10 as a number, 1 to trec_eval): evalkit
    would score another grade than trec_eval. Tokens that agree (``2.0``, ``1e0``) pass.

    :raises InputFormatError: naming the line, the field, both readings."""
    integer = _integer_re()
    for i, token in enumerate(values):
        if integer.fullmatch(token) is None and atol(token) != out[i]:
            raise InputFormatError(
                name, int(lines[i]), field,
                f"grade {token!r} is {out[i]:g} as a number, but trec_eval reads grades with C atol, "
                f"which gives {atol(token)}; write the grade as an integer")


@without_hugepage_advice
def read_qrels(source: Source) -> Qrels:
    """Read TREC qrels: 4 fields ``qid iteration docno grade`` per line.

    Grades must be integers (as trec_eval requires); negative grades are kept and
    count as judged with gain 0.

    ``"irds:DATASET_ID"`` reads the qrels ir_datasets provides for that dataset
    (:func:`evalkit.ecosystem.ir_datasets.read_qrels`; the ``irds`` extra).

    :raises InputFormatError: wrong field count, non-integer grade, duplicate judgment;
        an ``irds:`` dataset that cannot be read (``DatasetError``).
    :raises FileNotFoundError: the path does not exist.
    """
    if _is_dataset_id(source):
        from ..ecosystem.ir_datasets import read_qrels as read_dataset_qrels

        return read_dataset_qrels(source)
    raw, text, name = _read_raw(source)
    if raw is None:
        assert text is not None  # _read_raw gives the bytes, the path or the text
        if text.isascii():
            raw = text.encode("ascii")
    if raw is not None:
        small, raw = _canonical_first(raw, 4, 3)
        if small is None:
            parsed = _fast_table(raw, QRELS_FIELDS, "grade")
            if parsed is not None:
                columns, _, line = _columns(parsed)
                del parsed
                grade = _fast_numbers(columns, "grade", integer=True)
                if grade is not None:
                    qcodes, qvocab = _qid_codes(columns.pop("qid"))
                    docno = _docnos(columns)
                    return Qrels._from_codes(qcodes, qvocab, docno, grade, source=name, line=line)
                del columns
        data = raw.read_bytes() if isinstance(raw, Path) else raw
        if small is None and len(data) >= CANONICAL_MAX_BYTES:
            small = _canonical_columns(data, 4, 3)
        if small is not None:  # a small canonical file: only the kept columns, numbers parsed in NumPy
            qid, docno, grade, _ = small
            codes = qid if isinstance(qid, tuple) else None
            # line None: lines 1..n, made only if asked for (Qrels.line)
            return Qrels._from_tokens(None if codes else qid, docno, grade, source=name,
                                      line=None, codes=codes)
        flat = _canonical_tokens(data, 4)
        if flat is not None:  # a small canonical file: split at once (the same fields as _split's)
            fields, lines = flat
            grade = _numbers(fields[3::4], lines, name, "grade", integer=True)
            return Qrels._from_tokens(fields[0::4], fields[2::4], grade, source=name, line=lines)
        text = _decode(data, name)
    assert text is not None  # read or decoded above
    rows, lines = _split(text, name, 4, 4, QRELS_FIELDS)
    cols = list(zip(*rows)) if rows else [(), (), (), ()]
    grade = _numbers(list(cols[3]), lines, name, "grade", integer=True)
    return Qrels._from_tokens(cols[0], cols[2], grade, source=name, line=lines)


def read_subtopic_qrels(source: Source) -> SubtopicQrels:
    """Read subtopic qrels ``topic subtopic docno grade`` (ndeval's format).

    ``"irds:DATASET_ID"`` reads the subtopic judgments ir_datasets provides
    (:func:`evalkit.ecosystem.ir_datasets.read_subtopic_qrels`).

    :raises InputFormatError: wrong field count, non-integer grade, duplicate judgment.
    """
    if _is_dataset_id(source):
        from ..ecosystem.ir_datasets import read_subtopic_qrels as read_dataset_subtopics

        return read_dataset_subtopics(source)
    text, name = _read_text(source)
    rows, lines = _split(text, name, 4, 4, SUBTOPIC_FIELDS)
    cols = list(zip(*rows)) if rows else [(), (), (), ()]
    grade = _numbers(list(cols[3]), lines, name, "grade", integer=True)
    return SubtopicQrels.from_columns(cols[0], cols[1], cols[2], grade, source=name, line=lines)


@without_hugepage_advice
def read_run(source: Source, name: str | None = None, *, keep_rank: bool = False) -> Run:
    """Read a TREC run: ``qid Q0 docno rank score runid`` (extra columns ignored).

    :param name: system name; default: the runid of the first line, else the file stem.
    :param keep_rank: keep the rank column as :attr:`Run.rank` (``int32`` ``(n,)``),
        for tie policies that order the run by it (``ties=rank``, the ``ndeval.*``
        presets). Off by default: trec_eval ignores the column, so a run whose ranks
        are not integers reads fine without it.
    :raises InputFormatError: fewer than 6 fields, non-numeric or non-finite score,
        a document retrieved twice for one query; with ``keep_rank``, a rank that is
        not a non-negative integer (ndeval's ``naturalNumber``, ndeval.c:218-237).
    """
    raw, text, src = _read_raw(source)
    if raw is None:
        assert text is not None  # _read_raw gives the bytes, the path or the text
        if text.isascii():
            raw = text.encode("ascii")
    if raw is not None:
        small, raw = (None, raw) if keep_rank else _canonical_first(raw, 6, 4)
        parsed = None if small is not None else _fast_table(raw, RUN_FIELDS, "score", keep_rank)
        if parsed is not None:
            columns, first_line, line = _columns(parsed)
            del parsed
            # the docno strings are copied on a thread while this one converts the
            # scores and query ids (copies and gathers that release the GIL: W1 30 M,
            # 0.65 -> 0.4 s)
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(1) as pool:
                docno_job = pool.submit(_docnos, {"docno": columns.pop("docno")})
                score = _fast_numbers(columns, "score")
                rank = _fast_ranks(columns) if keep_rank else None
                converted = score is not None and (rank is not None or not keep_rank)
                if converted:
                    qcodes, qvocab = _qid_codes(columns.pop("qid"))
                docno = docno_job.result()
            if converted:
                if name is None:
                    name = first_line.split()[5].decode()
                return Run._from_codes(qcodes, qvocab, docno, score, name=name, source=src, rank=rank, line=line)
            del columns, docno
        data = raw.read_bytes() if isinstance(raw, Path) else raw
        if small is None and not keep_rank and len(data) >= CANONICAL_MAX_BYTES:
            small = _canonical_columns(data, 6, 4)
        if small is not None:  # a small canonical file: only the kept columns, numbers parsed in NumPy
            qid, docno, score, runid = small
            codes = qid if isinstance(qid, tuple) else None
            return Run._from_tokens(None if codes else qid, docno, score, name=runid if name is None else name,
                                    source=src, line=None, codes=codes)  # lines 1..n when asked for
        flat = _canonical_tokens(data, 6)
        if flat is not None:  # a small canonical file: split at once (the same fields as _split's)
            fields, lines = flat
            score = _numbers(fields[4::6], lines, src, "score")
            rank = _ranks(fields[3::6], lines, src) if keep_rank else None
            return Run._from_tokens(fields[0::6], fields[2::6], score, name=fields[5] if name is None else name,
                                    source=src, line=lines, rank=rank)
        text = _decode(data, src)
    assert text is not None  # read or decoded above
    rows, lines = _split(text, src, 6, None, RUN_FIELDS)
    if rows:
        qid = [r[0] for r in rows]
        docno = [r[2] for r in rows]
        score = _numbers([r[4] for r in rows], lines, src, "score")
    else:
        qid, docno, score = [], [], np.empty(0)
    rank = _ranks([r[3] for r in rows], lines, src) if keep_rank else None
    if name is None:
        name = rows[0][5] if rows else Path(src).name
    return Run._from_tokens(qid, docno, score, name=name, source=src, line=lines, rank=rank)


def write_run(run: Run, target: Union[str, os.PathLike, IO], runid: str | None = None) -> None:
    """Write ``run`` in TREC format, ranks from score order (ties by docno descending)."""
    from ..engine.factorize import factorize

    runid = runid or run.name
    (qc,), qv = factorize(run.qid)
    (dc,), _ = factorize(run.docno)
    order = np.lexsort((-dc, -run.score, qc))
    out = io.StringIO()
    prev, rank = None, 0
    for i in order:
        q = run.qid[i]
        rank = rank + 1 if q == prev else 1
        prev = q
        out.write(f"{q} Q0 {run.docno[i]} {rank} {float(run.score[i])!r} {runid}\n")
    if hasattr(target, "write"):
        target.write(out.getvalue())
    else:
        Path(target).write_text(out.getvalue())
