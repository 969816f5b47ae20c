"""Columnar containers for qrels, subtopic qrels and runs.

All three hold one row per line of their TREC file, as NumPy columns of equal
length ``n``:

* ``qid``, ``docno``: ``object`` arrays of ``str``;
* ``grade`` (qrels): ``float64`` relevance grades (negative grades are kept; they
  count as judged non-relevant with gain 0, as trec_eval treats them);
* ``score`` (runs): ``float64`` retrieval scores, higher is better;
* ``line``: ``int64`` 1-based line numbers in the source file (for error messages).

They are plain values: evaluation never mutates them.

Internally :class:`Qrels` and :class:`Run` keep the string columns as Arrow string
arrays and the query ids as integer codes over a sorted vocabulary (a 10-million-line
run would otherwise hold 20 million Python ``str`` objects); the ``qid``, ``docno``
and ``line`` attributes are built from them on first access and cached.
"""

from __future__ import annotations

import functools
import re
import sys
from typing import Any, Iterable, Mapping

import numpy as np

from ._record import FrozenFields, lean_dataclass
from .errors import InputFormatError


#: Characters no field of a TREC file may hold: control characters other than the
#: ASCII whitespace that separates fields, and every Unicode space, line or paragraph
#: separator and invisible format character (a regular-expression character class
#: body, used by :mod:`evalkit.io.trec`).
FORBIDDEN_CHARACTERS = ("\x00-\x08\x0e-\x1f\x7f-\x9f\xa0\xad\u1680\u180e\u2000-\u200f\u2028-\u202f"
                        "\u205f-\u2064\u3000\ufeff\ufff9-\ufffb")
#: Ids built in memory may hold spaces (a query's text as its id is common in
#: learning-to-rank and recommender data) but no control character (a regular-expression
#: character class, compiled by :func:`_row_columns` when it runs, not at import).
_BAD_ID = "[\x00-\x1f\x7f-\x9f]"


def _missing(v: Any) -> bool:
    """``None``, a float NaN, or pandas' ``NA`` / ``NaT``: a missing id, not one named "None"."""
    return v is None or (isinstance(v, float) and v != v) or type(v).__name__ in ("NAType", "NaTType")


def _obj(values: Any, source: str = "<memory>", field: str | None = None) -> np.ndarray:
    """``object`` array of ``str(v)``; a missing value (:func:`_missing`) is refused with
    :class:`InputFormatError` naming ``field`` and its row (1-based), as
    :meth:`Run.from_df` refuses it, rather than becoming the id ``'None'`` or ``'nan'``."""
    arr = np.empty(len(values), dtype=object) if hasattr(values, "__len__") else None
    if arr is None:
        values = list(values)
        arr = np.empty(len(values), dtype=object)
    arr[:] = [str(v) for v in values]
    if isinstance(values, np.ndarray) and values.dtype.kind in "iuU":
        return arr  # integers and str arrays hold no missing value
    # only the rows whose text is that of a missing value are looked at again (C-speed scan)
    suspects = np.flatnonzero((arr == "None") | (arr == "nan") | (arr == "<NA>") | (arr == "NaT"))
    if suspects.size and not isinstance(values, (list, tuple, np.ndarray)):
        values = list(values)  # a Series indexes by label: read it by position
    bad = [int(i) for i in suspects if _missing(values[int(i)])] if suspects.size else []
    if bad:
        raise InputFormatError(source, None, field, f"row {bad[0] + 1}: missing value ({arr[bad[0]]}); "
                                                    "ids are non-empty strings")
    return arr


def _token_array(values: Any) -> Any:
    """``object`` array of a sequence of ``str`` that a reader split from a file: such
    tokens are never missing nor anything but ``str``, so :func:`_obj`'s ``str()`` of
    every value and its check for missing values are skipped (0.3 ms instead of 1.3 ms
    for 20 k ids). A reader's :class:`~evalkit.engine.factorize.Utf8Column` is kept as
    it is (the strings stay in NumPy buffers until asked for)."""
    from .engine.factorize import Utf8Column

    if isinstance(values, Utf8Column):
        return values
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


def _strings(values: Any, source: str = "<memory>", field: str | None = None) -> Any:
    """Arrow arrays stay Arrow (cast to string); anything else becomes ``object`` of ``str``
    (a missing value refused, naming ``field`` and its row)."""
    pa = sys.modules.get("pyarrow")  # not imported: the values cannot be Arrow arrays
    if pa is not None and isinstance(values, (pa.Array, pa.ChunkedArray)):
        from .engine.factorize import as_arrow

        return as_arrow(values)
    return _obj(values, source, field)


def _floats(values: Iterable[Any], source: str, field_name: str, integer: bool = False) -> np.ndarray:
    """``float64`` column of real numbers.

    Accepted: Python ``int``/``float`` and NumPy integer/float values or arrays. Refused
    (:class:`InputFormatError` naming the field and row): ``bool`` (``True`` is not a
    grade), strings (``"2"``: the readers parse text, the Python API takes numbers),
    complex numbers, ``None``, NaN and infinities and, with ``integer`` (grades), a
    fractional value: trec_eval reads grades as integers (``get_qrels.c``, ``atol``);
    graded fractional relevance is available through :func:`evalkit.arrays.score`.
    """
    import numbers

    ma = sys.modules.get("numpy.ma")  # not imported: no masked array exists (np.ma imports it: 0.05 s)
    if ma is not None and isinstance(values, ma.MaskedArray):
        raise InputFormatError(source, None, field_name, "masked arrays are not accepted; drop the masked rows")
    if isinstance(values, np.ndarray) and values.dtype.kind in "iuf":
        out = values.astype(np.float64)
    else:
        values = list(values) if not isinstance(values, np.ndarray) else values.tolist()
        for i, v in enumerate(values):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
                raise InputFormatError(
                    source, None, field_name,
                    f"row {i + 1}: expected a number, got {type(v).__name__} {v!r}")
        out = np.asarray(values, dtype=np.float64) if values else np.empty(0, np.float64)
    bad = ~np.isfinite(out)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputFormatError(source, None, field_name, f"row {i + 1}: not a finite number: {float(out[i])!r}")
    if integer:
        frac = out != np.round(out)
        if frac.any():
            i = int(np.flatnonzero(frac)[0])
            raise InputFormatError(
                source, None, field_name,
                f"row {i + 1}: grade {float(out[i])!r} is not an integer (trec_eval reads grades as "
                "integers; use evalkit.arrays.score for fractional relevance)")
    return out


def _row_columns(rows: Any, width: int, shape: str, source: str, nested: bool = True) -> list:
    """Columns of ``rows``: a ``{qid: {docno: value}}`` mapping (``nested``) or an
    iterable of ``width``-tuples. Anything else is an :class:`ArgumentError` (not a
    bare ``TypeError``); ids must be strings (or integers, written as text)."""
    from .errors import ArgumentError

    if nested and isinstance(rows, Mapping):
        out: list[tuple[Any, Any, Any]] = []
        for q, docs in rows.items():
            if not isinstance(docs, Mapping):
                raise ArgumentError(f"{source}: rows[{q!r}] must be a {{docno: value}} mapping, "
                                    f"got {type(docs).__name__}")
            out.extend((q, d, v) for d, v in docs.items())
        rows = out
    elif isinstance(rows, (str, bytes, Mapping)) or not isinstance(rows, Iterable):
        raise ArgumentError(f"{source}: expected {'a nested mapping or ' if nested else ''}an iterable of "
                            f"{shape} tuples, got {type(rows).__name__}")
    rows = list(rows)
    bad_id = re.compile(_BAD_ID)
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__") or len(row) != width:
            raise ArgumentError(f"{source}: row {i + 1}: expected a {shape} tuple, got {row!r}")
        for j, value in enumerate(row[: width - 1]):
            if isinstance(value, bool) or not isinstance(value, (str, int, np.integer)):
                raise ArgumentError(f"{source}: row {i + 1}: field {j + 1} of {shape} must be a string, "
                                    f"got {type(value).__name__} {value!r}")
            bad = bad_id.search(value) if isinstance(value, str) else None
            if bad is not None or value == "":
                field = shape.strip("()").split(", ")[j]
                what = f"holds U+{ord(bad.group()):04X}" if bad is not None else "is empty"
                raise InputFormatError(source, None, field, f"row {i + 1}: {value!r} {what}; ids are "
                                       "non-empty and hold no control characters")
    return list(zip(*rows)) if rows else [() for _ in range(width)]


def _check_unique(qid: np.ndarray, docno: np.ndarray, line: np.ndarray, source: str, what: str) -> None:
    """Raise if a (qid, docno) pair occurs twice; name both lines (exact, by sorting
    the factorised pairs; reports the pair first in (qid, docno) order)."""
    if len(qid) < 2:
        return
    from .engine.factorize import factorize

    (qc,), _ = factorize(qid)
    (dc,), vocab = factorize(docno)
    key = qc.astype(np.int64) * (len(vocab) + 1) + dc
    order = np.argsort(key, kind="stable")
    dup = np.flatnonzero(key[order][1:] == key[order][:-1])
    if dup.size:
        first, second = order[dup[0]], order[dup[0] + 1]
        raise InputFormatError(
            source,
            int(line[second]),
            "docno",
            f"duplicate {what} for query {qid[second]!r}, document {docno[second]!r} "
            f"(first seen at line {int(line[first])})",
        )


#: Qrels of at most this many rows keep their ``(qid, docno)`` pair hashes (``uint64``,
#: 8 bytes a row) between the duplicate check and the join (:meth:`_Columns._build_pair_index`).
HASH_CACHE_MAX_ROWS = 1 << 20


#: Qrels and runs a reader split into at most this many lines of ``str`` tokens are
#: checked for duplicate pairs by a Python set (:meth:`Qrels._from_tokens`,
#: :meth:`Run._from_tokens`): below it the set costs less than the hash index's NumPy
#: operations (the quick start's 38 judgments: 0.02 ms against 0.4 ms in a fresh
#: process). Qrels keep no index (the join searches the run's); a run's is built by
#: its first join if that needs it (the join of two such small tables does not:
#: :data:`evalkit.engine.problem.DICT_JOIN_MAX_ROWS`).
SET_CHECK_MAX_ROWS = 1 << 10


class _Columns:
    """Shared machinery of :class:`Qrels` and :class:`Run`: lazy string columns,
    query codes and the hash index of ``(qid, docno)`` pairs."""

    _what = "row"

    def _init_strings(self, qid: Any, docno: Any, line: Any) -> None:
        self._qid_in = qid          # object array, Arrow array or None (then codes/vocab)
        self._docno_in = docno      # object array or Arrow array
        self._qid_obj = qid if isinstance(qid, np.ndarray) else None
        self._docno_obj = docno if isinstance(docno, np.ndarray) else None
        self._line = None if line is None else np.asarray(line, np.int64)
        self._qcodes: np.ndarray | None = None
        self._qvocab: np.ndarray | None = None
        self._pairs = None
        self._checked_pairs = None  # the duplicate check's index, for the first join
        self._qhash: np.ndarray | None = None
        self._hashes: np.ndarray | None = None  # every row's pair hash (small qrels: see _build_pair_index)
        self._n = len(docno)

    def __len__(self) -> int:
        return self._n

    # ---------------------------------------------------------------- public columns
    @property
    def qid(self) -> np.ndarray:
        """Query id of every row: ``object`` array of ``str``, shape ``(n,)``."""
        if self._qid_obj is None:
            codes, vocab = self._qid_codes()
            self._qid_obj = vocab[codes] if len(codes) else np.empty(0, dtype=object)
        return self._qid_obj

    @property
    def docno(self) -> np.ndarray:
        """Document id of every row: ``object`` array of ``str``, shape ``(n,)``."""
        if self._docno_obj is None:
            from .engine.factorize import to_objects

            self._docno_obj = to_objects(self._docno_in)
        return self._docno_obj

    @property
    def line(self) -> np.ndarray:
        """1-based line number of every row in its source: ``int64`` ``(n,)``."""
        if self._line is None:
            self._line = np.arange(1, self._n + 1, dtype=np.int64)
        return self._line

    @property
    def qids(self) -> np.ndarray:
        """Sorted unique query ids (``object`` array of ``str``)."""
        return self._qid_codes()[1].copy()

    # ---------------------------------------------------------------- engine helpers
    def _qid_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """``(codes (n,), vocab object (u,))``: ``vocab`` sorted, ``vocab[codes] == qid``;
        the codes are ``int32`` from the fast reader, ``int64`` otherwise."""
        if self._qcodes is None:
            from .engine.factorize import encode

            self._qcodes, self._qvocab = encode(self._qid_in)
            self._qid_in = None  # the codes and vocabulary say it all
        assert self._qvocab is not None  # set with the codes
        return self._qcodes, self._qvocab

    def _docno_arrow(self) -> Any:
        """The docno column as an Arrow string array (possibly chunked), or, below
        :data:`~evalkit.engine.factorize.PLAIN_MAX` rows, the ``object`` array it was
        built from (no pyarrow; see :mod:`evalkit.engine.protocols`)."""
        from .engine.factorize import PLAIN_MAX, Utf8Column, as_arrow

        if isinstance(self._docno_in, Utf8Column):  # a small file's column, read without Arrow
            return self._docno_in
        if isinstance(self._docno_in, np.ndarray) and self._docno_in.dtype == object and self._n < PLAIN_MAX:
            return self._docno_in
        pa = sys.modules.get("pyarrow")
        if pa is None or not isinstance(self._docno_in, (pa.Array, pa.ChunkedArray)):
            self._docno_in = as_arrow(self._docno_in)
        return self._docno_in

    def _pair_hashes(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """``(qid, docno)`` pair hashes of rows ``start:stop``: ``uint64``."""
        from .engine.factorize import pair_hash, string_hash

        if self._hashes is not None:
            return self._hashes[start:stop]
        codes, vocab = self._qid_codes()
        stop = self._n if stop is None else stop
        if self._qhash is None:
            self._qhash = string_hash(vocab)
        docno = self._docno_arrow()[start:stop]
        return pair_hash(self._qhash[codes[start:stop]], string_hash(docno, final_mix=False))

    #: the index built by the duplicate check is kept for the first join (runs: the
    #: join searches the run's index; qrels are only hashed)
    _keep_checked_index = False

    def _build_pair_index(self) -> Any:
        """The pair index (:func:`evalkit.engine.pair_index.build`). Qrels of at most
        :data:`HASH_CACHE_MAX_ROWS` rows keep the pair hashes it is built from, which
        the join (:func:`evalkit.engine.problem.build_problem`) hashes again otherwise
        (8 bytes a row; Robust 2003's 128,796 judgments: 9 ms once instead of twice)."""
        from .engine.pair_index import build

        codes, _ = self._qid_codes()
        if self._qhash is None:
            self._pair_hashes(0, 0)  # hashes of the query vocabulary, once
        if not self._keep_checked_index and self._hashes is None and self._n <= HASH_CACHE_MAX_ROWS:
            self._hashes = self._pair_hashes()
        return build(codes, self._pair_hashes)

    def _pair_index(self) -> Any:
        """The sorted index of the ``(qid, docno)`` pair hashes
        (:class:`evalkit.engine.pair_index.PairIndex`). The index the duplicate check
        built is handed to the first call (the join with qrels) and then released: it
        holds 8 bytes per row at the evaluation's memory peak, and ``evalkit eval``
        joins each run once. A later call builds it again and keeps it."""
        if self._pairs is None:
            checked = self._checked_pairs
            if checked is not None:
                self._checked_pairs = None
                return checked
            self._pairs = self._build_pair_index()
        return self._pairs

    def _distinct_by_set(self) -> bool:
        """Whether a small table read as ``str`` tokens (at most :data:`SET_CHECK_MAX_ROWS`
        rows, ``object`` qid and docno columns) has distinct ``(qid, docno)`` pairs, found
        by a Python set: then no hash index is built for its duplicate check. ``False``
        for any other table, or when a pair repeats (:meth:`_check_unique_fast` then
        names it)."""
        return (len(self) <= SET_CHECK_MAX_ROWS and isinstance(self._docno_in, np.ndarray)
                and len(set(zip(self._qid_in, self._docno_in))) == len(self))

    def _check_unique_fast(self, source: str, what: str) -> None:
        """Raise :class:`InputFormatError` on a duplicate ``(qid, docno)``, with exactly
        the message of :func:`_check_unique` (which runs on the candidate rows only)."""
        if self._n < 2:
            return
        if not self._keep_checked_index and self._pairs is None and self._n <= HASH_CACHE_MAX_ROWS:
            # qrels keep no index, only the pair hashes (for the join): equal neighbours
            # in one sort of the hashes are the candidates, without the index's keys
            # and per-query sorts (dl20's 11,386 judgments: 0.75 -> 0.35 ms)
            self._pair_hashes(0, 0)  # hashes of the query vocabulary, once
            self._hashes = hashes = self._pair_hashes()
            ordered = np.sort(hashes)
            same = ordered[1:] == ordered[:-1]
            if not same.any():
                return
            rows = np.flatnonzero(np.isin(hashes, ordered[1:][same]))
        else:
            index = self._pairs if self._pairs is not None else self._build_pair_index()
            if self._keep_checked_index and self._pairs is None:
                self._checked_pairs = index
            rows = index.duplicate_candidates()
            del index
            if not len(rows):
                return
        from .engine.factorize import take, to_objects

        codes, vocab = self._qid_codes()
        docno = to_objects(take(self._docno_arrow(), rows))
        _check_unique(vocab[codes[rows]], docno, self.line[rows], source, what)


class Qrels(_Columns):
    """Relevance judgments: ``(qid, docno) -> grade``. See module docstring for columns.

    :param qid, docno: ``object`` arrays of ``str`` (or Arrow string arrays), ``(n,)``.
    :param grade: ``float64`` ``(n,)``. :param line: ``int64`` ``(n,)`` or ``None`` (1..n).
    """

    _what = "judgment"

    def __init__(self, qid: Any, docno: Any, grade: Any, line: Any = None, source: str = "<memory>") -> None:
        self._init_strings(qid, docno, line)
        self.grade = grade
        self.source = source

    def __repr__(self) -> str:
        return f"Qrels({self._n} judgments, source={self.source!r})"

    @classmethod
    def from_columns(cls, qid: Any, docno: Any, grade: Any, *, source: str = "<memory>", line: Any = None) -> "Qrels":
        """Build from columns; raises :class:`InputFormatError` on a non-numeric grade
        or a duplicate ``(qid, docno)``."""
        qid, docno = _strings(qid, source, "qid"), _strings(docno, source, "docno")
        grade = _floats(grade, source, "grade", integer=True)
        if not (len(qid) == len(docno) == len(grade)):
            raise InputFormatError(source, None, None, "qid, docno and grade columns differ in length")
        line = None if line is None else np.asarray(line, np.int64)
        out = cls(qid, docno, grade, line, source)
        out._check_unique_fast(source, "judgment")
        return out

    @classmethod
    def _from_tokens(cls, qid: Any, docno: Any, grade: np.ndarray, *, source: str, line: np.ndarray | None,
                     codes: tuple[np.ndarray, np.ndarray] | None = None) -> "Qrels":
        """Internal: :meth:`from_columns` for a reader's columns: ``qid``, ``docno``
        sequences of ``str`` tokens (or ``qid=None`` and ``codes=(codes, sorted
        vocab)``, as :meth:`_qid_codes` gives them), ``grade`` finite integral ``float64`` (already
        checked by the reader), ``line`` ``int64`` (``None``: 1..n, made when asked for); checks duplicates."""
        out = cls(None if codes is not None else _token_array(qid), _token_array(docno), grade, line, source)
        if codes is not None:
            out._qcodes, out._qvocab = codes
        elif out._distinct_by_set():
            return out  # no duplicate (else the index below finds it and words the error)
        out._check_unique_fast(source, "judgment")
        return out

    @classmethod
    def _from_codes(cls, qcodes: Any, qvocab: Any, docno: Any, grade: Any, *, source: Any, line: Any = None) -> "Qrels":
        """Internal: build from query codes over a sorted vocabulary and an Arrow
        docno column (the fast reader's output); checks duplicates."""
        out = cls(None, docno, grade, line, source)
        out._qcodes, out._qvocab = qcodes, qvocab
        out._check_unique_fast(source, "judgment")
        return out

    @classmethod
    def from_rows(cls, rows: Any, *, source: str = "<memory>") -> "Qrels":
        """From ``{qid: {docno: grade}}`` (pytrec_eval/ranx style) or an iterable of
        ``(qid, docno, grade)`` tuples."""
        cols = _row_columns(rows, 3, "(qid, docno, grade)", source)
        return cls.from_columns(*cols, source=source)

    @classmethod
    def from_df(cls, df: Any, *, qid: str | None = None, docno: str | None = None, grade: str | None = None,
                source: str = "<DataFrame>") -> "Qrels":
        """From a pandas DataFrame, one row per judgment; column names default to
        ``qid``/``docno``/``grade`` or ir_measures' and ranx's names
        (:func:`evalkit.frames.columns_from_df`);
        raises :class:`InputFormatError` as :meth:`from_columns` does, naming the row."""
        from .frames import columns_from_df

        cols = columns_from_df(df, "grade", qid=qid, docno=docno, number=grade, source=source)
        return cls.from_columns(*cols, source=source)

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{qid: {docno: grade}}`` (pytrec_eval/ranx style), the inverse of :meth:`from_rows`."""
        out: dict[str, dict[str, float]] = {}
        for q, d, g in zip(self.qid, self.docno, self.grade):
            out.setdefault(q, {})[d] = float(g)
        return out


@lean_dataclass(eq=False)  # its __init__ below, the rest from FrozenFields (issue 27: nothing generated)
class SubtopicQrels(FrozenFields):
    """Subtopic (intent) judgments ``topic subtopic docno grade`` (ndeval format).

    :param weights: optional ``{(topic, subtopic): probability}``; intents of a topic
        without weights are equally likely.
    """

    qid: np.ndarray
    subtopic: np.ndarray
    docno: np.ndarray
    grade: np.ndarray
    line: np.ndarray
    source: str = "<memory>"
    weights: Mapping[tuple[str, str], float] | None = None

    def __init__(self, qid: np.ndarray, subtopic: np.ndarray, docno: np.ndarray, grade: np.ndarray,
                 line: np.ndarray, source: str = "<memory>",
                 weights: Mapping[tuple[str, str], float] | None = None) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "qid", qid)
        setattr_(self, "subtopic", subtopic)
        setattr_(self, "docno", docno)
        setattr_(self, "grade", grade)
        setattr_(self, "line", line)
        setattr_(self, "source", source)
        setattr_(self, "weights", weights)

    def __len__(self) -> int:
        return len(self.qid)

    @classmethod
    def from_columns(cls, qid: Any, subtopic: Any, docno: Any, grade: Any, *, source: str = "<memory>", line: Any = None, weights: Any = None) -> Any:
        qid, subtopic, docno = _obj(qid, source, "qid"), _obj(subtopic, source, "subtopic"), _obj(docno, source, "docno")
        grade = _floats(grade, source, "grade", integer=True)
        line = np.arange(1, len(qid) + 1, dtype=np.int64) if line is None else np.asarray(line, np.int64)
        pair = np.array([f"{q}\x1f{s}" for q, s in zip(qid, subtopic)], dtype=object)
        _check_unique(pair, docno, line, source, "subtopic judgment")
        return cls(qid, subtopic, docno, grade, line, source, weights)

    @classmethod
    def from_rows(cls, rows: Any, *, source: str = "<memory>", weights: Any = None) -> Any:
        """From ``(topic, subtopic, docno, grade)`` tuples."""
        cols = _row_columns(rows, 4, "(topic, subtopic, docno, grade)", source, nested=False)
        return cls.from_columns(*cols, source=source, weights=weights)

    def intent_qrels(self) -> tuple[Qrels, np.ndarray, np.ndarray]:
        """Qrels keyed by pseudo-query ``"topic\x1fsubtopic"``, plus the topic and
        intent probability of each pseudo-query (sorted like ``Qrels.qids``).

        Computed once per object and cached (every intent-aware flavour uses it).

        :raises InputFormatError: ``weights`` cover only some intents of a topic.
        """
        return self._intent_qrels

    @functools.cached_property
    def _intent_qrels(self) -> tuple[Qrels, np.ndarray, np.ndarray]:
        pair = np.array([f"{q}\x1f{s}" for q, s in zip(self.qid, self.subtopic)], dtype=object)
        qrels = Qrels(pair, self.docno, self.grade, self.line, self.source)
        pairs = qrels.qids
        split = [p.split("\x1f", 1) for p in pairs]
        topic = np.array([t for t, _ in split], dtype=object)
        if not len(topic):
            return qrels, topic, np.empty(0, dtype=np.float64)
        _, tcode = np.unique(topic, return_inverse=True)
        tcode = tcode.reshape(-1)
        per_topic = np.bincount(tcode)
        weights = self.weights or {}
        w = np.array([weights.get((t, s), np.nan) for t, s in split], dtype=np.float64)
        given = ~np.isnan(w)
        n_given = np.bincount(tcode, weights=given.astype(np.float64))
        partial = (n_given > 0) & (n_given < per_topic)
        if partial.any():
            t = topic[np.flatnonzero(partial[tcode])[0]]
            raise InputFormatError(self.source, None, "weight", f"topic {t!r}: some intents have no weight")
        prob = np.where(given, w, 1.0 / per_topic[tcode])
        return qrels, topic, prob


def _rank_column(values: Any, source: str) -> np.ndarray:
    """``int32`` column of ranks: non-negative integers (as ndeval's ``naturalNumber``
    reads them, ndeval.c:218-237) up to ``2**31 - 1``; anything else raises
    :class:`InputFormatError` naming the field ``rank`` and the row."""
    out = _floats(values, source, "rank")
    bad = (out != np.round(out)) | (out < 0) | (out > np.iinfo(np.int32).max)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputFormatError(source, None, "rank", f"row {i + 1}: expected a non-negative integer rank, "
                                                     f"got {float(out[i])!r}")
    return out.astype(np.int32)


class Run(_Columns):
    """A system's ranked results. Ranks are derived from scores by the tie policy;
    the file's rank column is ignored, as trec_eval ignores it, unless the run was
    read with it (``read_run(..., keep_rank=True)``, ``rank=`` of :meth:`from_columns`
    and :meth:`from_df`) for a tie policy that orders by it (``ties=rank``: ndeval).

    :param qid, docno: ``object`` arrays of ``str`` (or Arrow string arrays), ``(n,)``.
    :param score: ``float64`` ``(n,)``. :param line: ``int64`` ``(n,)`` or ``None`` (1..n).
    :param rank: ``int32`` ``(n,)`` rank column, or ``None`` (not kept: the default).
    """

    _what = "document"
    _keep_checked_index = True

    def __init__(self, qid: Any, docno: Any, score: Any, line: Any = None, name: str = "run", source: str = "<memory>", rank: Any = None) -> None:
        self._init_strings(qid, docno, line)
        self.score = score
        self.rank = rank
        self.name = name
        self.source = source

    def __repr__(self) -> str:
        return f"Run({self.name!r}, {self._n} rows, source={self.source!r})"

    @classmethod
    def from_columns(cls, qid: Any, docno: Any, score: Any, *, name: str = "run", source: str = "<memory>", line: Any = None,
                     rank: Any = None) -> "Run":
        """Build from columns; raises :class:`InputFormatError` on a non-finite score
        or a duplicate ``(qid, docno)`` (trec_eval refuses those too), or a ``rank``
        (optional, ``(n,)``: the TREC rank column) that is not a non-negative integer."""
        qid, docno = _strings(qid, source, "qid"), _strings(docno, source, "docno")
        score = _floats(score, source, "score")
        rank = None if rank is None else _rank_column(rank, source)
        if not (len(qid) == len(docno) == len(score)) or (rank is not None and len(rank) != len(score)):
            raise InputFormatError(source, None, None, "qid, docno, score (and rank) columns differ in length")
        line = None if line is None else np.asarray(line, np.int64)
        out = cls(qid, docno, score, line, name, source, rank)
        out._check_unique_fast(source, "document")
        return out

    @classmethod
    def _from_tokens(cls, qid: Any, docno: Any, score: np.ndarray, *, name: str, source: str, line: np.ndarray | None,
                     rank: np.ndarray | None = None, codes: tuple[np.ndarray, np.ndarray] | None = None) -> "Run":
        """Internal: :meth:`from_columns` for a reader's columns: ``qid``, ``docno``
        sequences of ``str`` tokens (or ``qid=None`` and ``codes=(codes, sorted
        vocab)``, as :meth:`_qid_codes` gives them), ``score`` finite ``float64`` and ``rank``
        ``int32`` or ``None`` (already checked by the reader), ``line`` ``int64``
        (``None``: 1..n, made when asked for); checks duplicates."""
        out = cls(None if codes is not None else _token_array(qid), _token_array(docno), score, line, name, source, rank)
        if codes is not None:
            out._qcodes, out._qvocab = codes
        elif out._distinct_by_set():
            return out  # no duplicate (else the index below finds it and words the error)
        out._check_unique_fast(source, "document")
        return out

    @classmethod
    def _from_codes(cls, qcodes: Any, qvocab: Any, docno: Any, score: Any, *, name: Any, source: Any, line: Any = None, rank: Any = None) -> "Run":
        """Internal: build from query codes over a sorted vocabulary and an Arrow
        docno column (the fast reader's output); checks duplicates."""
        out = cls(None, docno, score, line, name, source, rank)
        out._qcodes, out._qvocab = qcodes, qvocab
        out._check_unique_fast(source, "document")
        return out

    @classmethod
    def from_rows(cls, rows: Any, *, name: str = "run", source: str = "<memory>") -> "Run":
        """From ``{qid: {docno: score}}`` or ``(qid, docno, score)`` tuples."""
        cols = _row_columns(rows, 3, "(qid, docno, score)", source)
        return cls.from_columns(*cols, name=name, source=source)

    @classmethod
    def from_df(cls, df: Any, *, qid: str | None = None, docno: str | None = None, score: str | None = None,
                name: str = "run", source: str = "<DataFrame>", rank: str | None = None) -> "Run":
        """From a pandas DataFrame, one row per retrieved document; column names default
        to ``qid``/``docno``/``score`` or ir_measures' and ranx's names
        (:func:`evalkit.frames.columns_from_df`); ``rank`` names a rank column to keep
        (for ``ties=rank``; by default no rank is kept, whatever the columns);
        raises :class:`InputFormatError` as :meth:`from_columns` does, naming the row."""
        from .frames import columns_from_df

        cols = columns_from_df(df, "score", qid=qid, docno=docno, number=score, source=source)
        if rank is not None and rank not in df.columns:
            raise InputFormatError(source, None, "rank", f"no column {rank!r} (columns: "
                                   + ", ".join(map(str, df.columns)) + ")")
        ranks = None if rank is None else df[rank].to_numpy()
        return cls.from_columns(*cols, name=name, source=source, rank=ranks)

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{qid: {docno: score}}`` (pytrec_eval/ranx style), the inverse of :meth:`from_rows`."""
        out: dict[str, dict[str, float]] = {}
        for q, d, s in zip(self.qid, self.docno, self.score):
            out.setdefault(q, {})[d] = float(s)
        return out

    def renamed(self, name: str) -> "Run":
        """The same rows under another system name (shares the columns)."""
        out = object.__new__(Run)
        out.__dict__.update(self.__dict__)
        out.name = name
        return out
