"""The small-file paths of the TREC readers: a canonical file under ``FAST_MIN_BYTES``
has its kept columns gathered by NumPy and its numbers parsed in NumPy
(:func:`evalkit.io.trec._canonical_columns`) or, when that declines (a rank column to
keep, a number it leaves to the exact check), is split in one call
(:func:`evalkit.io.trec._canonical_tokens`) instead of line by line. Both must read
exactly what the line-by-line reader reads (every column, in file order, the run name,
the rank column, the line numbers in error messages), and hand every other file to
that reader; Arrow's reader (``FAST_MIN_BYTES = 0``) agrees too."""

from __future__ import annotations

import re
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit import InputFormatError, read_qrels, read_run
from evalkit.io import trec

RUN = "".join(f"{q} Q0 doc-{q}-{d} {d + 1} {10 - d * 0.5:.2f} sysA\n" for q in (301, 302, 3030) for d in range(6))
QRELS = "".join(f"{q} 0 doc-{q}-{d} {d % 3 - (d == 5)}\n" for q in (301, 302) for d in range(6))


def columns(obj: Any) -> tuple:
    """Everything a reader fills, in file order."""
    values = obj.score if hasattr(obj, "score") else obj.grade
    rank = getattr(obj, "rank", None)
    return (obj.qid.tolist(), obj.docno.tolist(), values.tolist(), getattr(obj, "name", None),
            None if rank is None else rank.tolist())


def three_ways(monkeypatch: pytest.MonkeyPatch, read: Callable[[], Any]) -> tuple[Any, Any, Any, list[str]]:
    """``(small paths, line-by-line reader, Arrow, small paths taken)``: the results of
    ``read()`` (an error is returned as its message); the split-only small path
    (``_canonical_columns`` off) must give the same result as the two small paths
    together, and the small paths the same with ``bytes`` methods (files under
    ``TINY_MAX_BYTES``) as with NumPy. ``taken`` names the small paths that returned
    the file's contents."""
    def attempt() -> Any:
        try:
            return columns(read())
        except InputFormatError as exc:
            return str(exc)

    taken: list[str] = []
    real_columns, real_tokens = trec._canonical_columns, trec._canonical_tokens

    def spy_columns(raw: bytes, n_fields: int, number: int) -> Any:
        out = real_columns(raw, n_fields, number)
        if out is not None:
            taken.append("columns")
        return out

    def spy_tokens(raw: bytes, n_fields: int) -> Any:
        out = real_tokens(raw, n_fields)
        if out is not None:
            taken.append("tokens")
        return out

    with monkeypatch.context() as m:
        m.setattr(trec, "_canonical_columns", spy_columns)
        m.setattr(trec, "_canonical_tokens", spy_tokens)
        small = attempt()
        tiny_taken, taken = taken, []
        m.setattr(trec, "TINY_MAX_BYTES", 0)  # the NumPy checks and parser, as for larger files
        numpy_read = attempt()
    assert numpy_read == small and tiny_taken == taken
    with monkeypatch.context() as m:
        m.setattr(trec, "_canonical_columns", lambda raw, n_fields, number: None)
        split_only = attempt()
    with monkeypatch.context() as m:
        m.setattr(trec, "_canonical_columns", lambda raw, n_fields, number: None)
        m.setattr(trec, "_canonical_tokens", lambda raw, n_fields: None)
        exact = attempt()
    with monkeypatch.context() as m:
        m.setattr(trec, "FAST_MIN_BYTES", 0)
        m.setattr(trec, "CANONICAL_MAX_BYTES", 0)
        arrow = attempt()
    assert split_only == exact
    return small, exact, arrow, taken


@pytest.mark.parametrize("keep_rank", [False, True])
def test_canonical_run_reads_as_the_exact_reader_reads_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Any,
                                                          keep_rank: bool) -> None:
    path = tmp_path / "run.txt"
    for text in (RUN, RUN.rstrip("\n"), RUN.replace(" ", "\t")):
        path.write_text(text)
        small, exact, arrow, taken = three_ways(monkeypatch, lambda: read_run(path, keep_rank=keep_rank))
        assert taken == (["tokens"] if keep_rank else ["columns"])
        assert small == exact == arrow
        assert small[0][:2] == ["301", "301"] and small[3] == "sysA" and small[2][1] == 9.5
    small, exact, _, taken = three_ways(monkeypatch, lambda: read_run(RUN, name="given"))  # a literal string
    assert taken == ["columns"] and small == exact and small[3] == "given"


def test_canonical_qrels_read_as_the_exact_reader_reads_them(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text(QRELS)
    small, exact, arrow, taken = three_ways(monkeypatch, lambda: read_qrels(path))
    assert taken == ["columns"] and small == exact == arrow
    assert small[2] == [0.0, 1.0, 2.0, 0.0, 1.0, 1.0] * 2


IRREGULAR = {
    "two spaces": RUN.replace("Q0 doc-301-0", "Q0  doc-301-0"),
    "a comment line": "# written by hand\n" + RUN,
    "a blank line": RUN.replace("\n", "\n\n", 1),
    "an extra column": RUN.replace("sysA\n", "sysA extra\n", 1),
    "7 and 5 fields": RUN.replace("sysA\n", "sysA x\n", 1).replace(" sysA\n", "\n", 1).replace("\n", "\n", 1),
    "tabs and spaces": RUN.replace(" ", "\t", 5),
    "a trailing space": RUN.replace("sysA\n", "sysA \n", 1),
    "CRLF": RUN.replace("\n", "\r\n"),
    "non-ASCII docno": RUN.replace("doc-302-1", "doc-302-\u00e9"),
}


@pytest.mark.parametrize("case", sorted(IRREGULAR))
def test_other_files_go_to_the_exact_reader(monkeypatch: pytest.MonkeyPatch, tmp_path: Any, case: str) -> None:
    path = tmp_path / "run.txt"
    path.write_bytes(IRREGULAR[case].encode("utf-8"))
    small, exact, _, taken = three_ways(monkeypatch, lambda: read_run(path))
    assert taken == []  # not taken (or not reached: a non-ASCII file is decoded first)
    assert small == exact


BAD = {
    "a score that is not a number": (RUN.replace(" 8.50 ", " 8.5x ", 1), ":4:", "score"),
    "a fractional rank with keep_rank": (RUN.replace(" 3 ", " 3.5 ", 1), ":3:", "rank"),
    "a document retrieved twice": (RUN.replace("doc-302-4", "doc-302-2"), ":11:", None),
}


@pytest.mark.parametrize("keep_rank", [False, True])
@pytest.mark.parametrize("case", sorted(BAD))
def test_errors_name_the_same_line_and_field(monkeypatch: pytest.MonkeyPatch, tmp_path: Any, case: str,
                                             keep_rank: bool) -> None:
    text, line, field = BAD[case]
    if field == "rank" and not keep_rank:
        return  # the rank column is not read
    path = tmp_path / "run.txt"
    path.write_text(text)
    small, exact, _, taken = three_ways(monkeypatch, lambda: read_run(path, keep_rank=keep_rank))
    # a bad number is left to the split path, which words the error; a duplicate is found after either
    assert taken == (["columns"] if field is None and not keep_rank else ["tokens"])
    assert isinstance(small, str) and small == exact
    assert line in small and (field is None or field in small)


QRELS_BAD = {
    "a fractional grade": (QRELS.replace(" 2\n", " 2.5\n", 1), ":3:"),
    "an exponent grade": (QRELS.replace(" 2\n", " 1e1\n", 1), ":3:"),
    "an infinite grade": (QRELS.replace(" 2\n", " " + "9" * 400 + "\n", 1), ":3:"),
    "a grade that is not a number": (QRELS.replace(" 2\n", " two\n", 1), ":3:"),
}


@pytest.mark.parametrize("case", sorted(QRELS_BAD))
def test_bad_grade_in_small_qrels(monkeypatch: pytest.MonkeyPatch, tmp_path: Any, case: str) -> None:
    text, line = QRELS_BAD[case]
    path = tmp_path / "qrels.txt"
    path.write_text(text)
    small, exact, _, taken = three_ways(monkeypatch, lambda: read_qrels(path))
    assert taken == ["tokens"] and isinstance(small, str) and small == exact and line in small


def test_odd_numbers_read_as_the_exact_reader_reads_them(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """Signs, a bare point, leading zeros, exponents, 16+ digits: the NumPy-parsed
    scores equal the exact reader's ``float()`` ones, bit for bit (``-0.0`` too)."""
    odd = ["+.5E+1", "-0.0", "-0", "12345678901234567890.123", "00029.5", "5.", ".5", "-.25", "1e-5",
           "123456789012345", "1234567890123456", "9007199254740993", "0.30000000000000004", "+7", "1E300",
           "000000000000000000001", "-999999999999999.9", "0.1", "2.675", "1.0000000000000002"]
    text = "".join(f"{301 + i // 6} Q0 d{i} {i + 1} {v} sysA\n" for i, v in enumerate(odd))
    path = tmp_path / "run.txt"
    path.write_text(text)
    small, exact, arrow, taken = three_ways(monkeypatch, lambda: read_run(path))
    assert taken == ["columns"] and small == exact == arrow
    bits = read_run(path).score.view(np.uint64).tolist()
    assert bits == np.array([float(v) for v in odd]).view(np.uint64).tolist()


def test_large_files_are_left_to_arrow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trec, "CANONICAL_MAX_BYTES", 0)
    monkeypatch.setattr(trec, "FAST_MIN_BYTES", len(RUN))
    assert trec._canonical_tokens(RUN.encode(), 6) is None
    assert trec._canonical_columns(RUN.encode(), 6, 4) is None
    monkeypatch.setattr(trec, "FAST_MIN_BYTES", len(RUN) + 1)
    fields, lines = trec._canonical_tokens(RUN.encode(), 6)
    assert fields == RUN.split() and np.array_equal(lines, np.arange(1, 19))


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.text(alphabet="0123456789.eE+-x ", max_size=8), max_size=6))
def test_whole_column_number_check_equals_the_per_value_one(values: list[str]) -> None:
    """The exact reader checks a whole column with one (possessive) regular expression;
    it accepts exactly the columns whose every value matches the per-value grammar
    (the one that words the error), integers likewise."""
    joined = "".join(v + "\n" for v in values)
    number = trec._number_re()
    assert (trec._number_lines_re().fullmatch(joined) is not None) == all(number.fullmatch(v) for v in values)
    integer = re.compile(r"[+-]?[0-9]+", re.ASCII)
    assert (trec._integer_lines_re().fullmatch(joined) is not None) == all(integer.fullmatch(v) for v in values)


def decimal_column(values: list[str], integer: bool = False) -> Any:
    """:func:`trec._decimal_column` of ``values`` laid out one per line."""
    text = "".join(v + "\n" for v in values)
    length = np.array([len(v) for v in values], dtype=np.int64)
    start = np.cumsum(length + 1) - (length + 1)
    return trec._decimal_column(np.frombuffer(text.encode("ascii"), dtype=np.uint8), start, length, integer)


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.text(alphabet="0123456789.eE+-x", min_size=1, max_size=24), min_size=1, max_size=6),
       st.booleans())
def test_numpy_number_check_equals_the_regular_expression(values: list[str], integer: bool) -> None:
    """The small-file reader checks a number column in NumPy (regular expressions only
    for values that are not plain decimals), or by ``str`` methods under
    ``TINY_MAX_BYTES``: both take exactly the columns whose every value matches the
    grammar the exact reader's error names (integers for grades) and is finite, and
    then read ``float()`` of each."""
    grammar = re.compile(r"[+-]?[0-9]+" if integer else r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
    ok = all(grammar.fullmatch(v) for v in values) and all(np.isfinite(float(v)) for v in values)
    got = decimal_column(values, integer)
    assert (got is not None) == ok, values
    tiny = trec._tiny_numbers(values, integer)  # the same check by str methods (files under TINY_MAX_BYTES)
    assert (tiny is not None) == ok, values
    if ok:
        assert got.view(np.uint64).tolist() == np.array([float(v) for v in values]).view(np.uint64).tolist()
        assert tiny.view(np.uint64).tolist() == got.view(np.uint64).tolist()


DIGITS = st.text(alphabet="0123456789", max_size=22)
NUMBER = st.builds(
    lambda sign, whole, point, fraction, exponent: sign + whole + point + fraction + exponent,
    st.sampled_from(["", "+", "-"]), DIGITS, st.sampled_from(["", "."]), DIGITS,
    st.sampled_from(["", "e5", "E-3", "e+300", "e-330", "e400"]),
).filter(lambda v: trec._number_re().fullmatch(v) is not None)  # the tokens the reader's check accepts


@settings(max_examples=2000, deadline=None)
@given(st.lists(NUMBER, min_size=1, max_size=8))
def test_numpy_parsed_numbers_equal_float(values: list[str]) -> None:
    """:func:`trec._decimal_column` (digits as an integer over a power of ten where that
    is exact, ``float()`` elsewhere) gives ``float()`` of every token, bit for bit,
    finite or not (a column with an infinite value is refused)."""
    got = decimal_column(values)
    if not all(np.isfinite(float(v)) for v in values):
        assert got is None
        return
    assert got.view(np.uint64).tolist() == np.array([float(v) for v in values]).view(np.uint64).tolist()


def test_full_precision_and_near_midpoint_scores_equal_float() -> None:
    """Scores of 16-18 digits (full-precision float64 scores, read through ``long
    double`` by :func:`trec._wide_decimals`) and decimals cut from the exact midpoint
    between two neighbouring doubles (where a double rounding would go wrong; those go
    to ``float()``) equal ``float()``, bit for bit; so do 19-21 digit values."""
    rng = np.random.default_rng(7)
    values = []
    for v in rng.uniform(-1e4, 1e4, 3000) * 10.0 ** rng.integers(-6, 3, 3000):
        values.append(f"{v:.17g}")
        mid = (v + np.nextafter(v, np.inf)) / 2  # rounded, but its decimal digits sit next to a midpoint
        values += [f"{mid:.30f}"[:k].rstrip(".") for k in (18, 19, 20, 21)]
    values = [v for v in values if "e" not in v] + ["0.061885662275017239", "-10.031979740362001"]
    got = decimal_column(values)
    assert got.view(np.uint64).tolist() == np.array([float(v) for v in values]).view(np.uint64).tolist()


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_query_ids_of_every_length(monkeypatch: pytest.MonkeyPatch, tmp_path: Any, kind: str) -> None:
    """Query ids of 1 to 20 bytes (read as two 8-byte words up to 16 bytes, split
    above), sharing prefixes, interleaved: the same ids, codes and order as the
    line-by-line reader and Arrow."""
    ids = ["7", "12345678", "123456789", "1234567", "abcdefghijklmnop", "abcdefghijklmnopq", "abcdefghijklmno",
           "q" * 20, "12345678"]
    short = [i for i in ids if len(i) <= 16]
    for chosen in (ids, short):
        rows = [(q, f"d{j}-{k}") for k, q in enumerate(chosen) for j in range(3)]
        rows += [(q, f"e{k}") for k, q in enumerate(reversed(chosen))]  # queries come back: not contiguous
        if kind == "run":
            text = "".join(f"{q} Q0 {d} {i + 1} {i * 0.25} sys\n" for i, (q, d) in enumerate(rows))
        else:
            text = "".join(f"{q} 0 {d} {i % 3}\n" for i, (q, d) in enumerate(rows))
        path = tmp_path / "file.txt"
        path.write_text(text)
        read = (lambda: read_run(path)) if kind == "run" else (lambda: read_qrels(path))
        small, exact, arrow, taken = three_ways(monkeypatch, read)
        assert taken == ["columns"] and small == exact == arrow
        assert small[0] == [q for q, _ in rows]
        got = read()
        codes, vocab = got._qid_codes()
        assert vocab.tolist() == sorted(set(chosen)) and vocab[codes].tolist() == [q for q, _ in rows]
