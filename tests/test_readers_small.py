"""The small-file path of the TREC readers (:func:`evalkit.io.trec._canonical_tokens`):
a canonical file under ``FAST_MIN_BYTES`` is split in one call instead of line by
line. It must read exactly what the line-by-line reader reads (every column, in file
order, the run name, the rank column, the line numbers in error messages), and hand
every other file to that reader; Arrow's reader (``FAST_MIN_BYTES = 0``) agrees too."""

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


def three_ways(monkeypatch: pytest.MonkeyPatch, read: Callable[[], Any]) -> tuple[Any, Any, Any]:
    """``(small path, line-by-line reader, Arrow)`` results of ``read()``; an error is returned as its message."""
    def attempt() -> Any:
        try:
            return columns(read())
        except InputFormatError as exc:
            return str(exc)

    calls: list[bool] = []
    real = trec._canonical_tokens

    def spy(raw: bytes, n_fields: int) -> Any:
        out = real(raw, n_fields)
        calls.append(out is not None)
        return out

    with monkeypatch.context() as m:
        m.setattr(trec, "_canonical_tokens", spy)
        small = attempt()
    with monkeypatch.context() as m:
        m.setattr(trec, "_canonical_tokens", lambda raw, n_fields: None)
        exact = attempt()
    with monkeypatch.context() as m:
        m.setattr(trec, "FAST_MIN_BYTES", 0)
        arrow = attempt()
    return small, exact, arrow, calls


@pytest.mark.parametrize("keep_rank", [False, True])
def test_canonical_run_reads_as_the_exact_reader_reads_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Any,
                                                          keep_rank: bool) -> None:
    path = tmp_path / "run.txt"
    for text in (RUN, RUN.rstrip("\n"), RUN.replace(" ", "\t")):
        path.write_text(text)
        small, exact, arrow, calls = three_ways(monkeypatch, lambda: read_run(path, keep_rank=keep_rank))
        assert calls == [True]
        assert small == exact == arrow
        assert small[0][:2] == ["301", "301"] and small[3] == "sysA" and small[2][1] == 9.5
    small, exact, _, calls = three_ways(monkeypatch, lambda: read_run(RUN, name="given"))  # a literal string
    assert calls == [True] and small == exact and small[3] == "given"


def test_canonical_qrels_read_as_the_exact_reader_reads_them(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text(QRELS)
    small, exact, arrow, calls = three_ways(monkeypatch, lambda: read_qrels(path))
    assert calls == [True] and small == exact == arrow
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
    small, exact, _, calls = three_ways(monkeypatch, lambda: read_run(path))
    assert calls in ([False], [])  # not taken (or not reached: a non-ASCII file is decoded first)
    assert small == exact


BAD = {
    "a score that is not a number": (RUN.replace(" 8.50 ", " 8.5x ", 1), ":4:", "score"),
    "a fractional rank with keep_rank": (RUN.replace(" 3 ", " 3.5 ", 1), ":3:", "rank"),
    "a document retrieved twice": (RUN.replace("doc-302-4", "doc-302-2"), ":11:", None),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_errors_name_the_same_line_and_field(monkeypatch: pytest.MonkeyPatch, tmp_path: Any, case: str) -> None:
    text, line, field = BAD[case]
    path = tmp_path / "run.txt"
    path.write_text(text)
    small, exact, _, calls = three_ways(monkeypatch, lambda: read_run(path, keep_rank=True))
    assert calls == [True]
    assert isinstance(small, str) and small == exact
    assert line in small and (field is None or field in small)


def test_bad_grade_in_small_qrels(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text(QRELS.replace(" 2\n", " 2.5\n", 1))
    small, exact, _, calls = three_ways(monkeypatch, lambda: read_qrels(path))
    assert calls == [True] and isinstance(small, str) and small == exact and ":3:" in small


def test_large_files_are_left_to_arrow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trec, "FAST_MIN_BYTES", len(RUN))
    assert trec._canonical_tokens(RUN.encode(), 6) is None
    monkeypatch.setattr(trec, "FAST_MIN_BYTES", len(RUN) + 1)
    fields, lines = trec._canonical_tokens(RUN.encode(), 6)
    assert fields == RUN.split() and np.array_equal(lines, np.arange(1, 19))


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.text(alphabet="0123456789.eE+-x ", max_size=8), max_size=6))
def test_whole_column_number_check_equals_the_per_value_one(values: list[str]) -> None:
    """The readers check a whole column with one (possessive) regular expression;
    it accepts exactly the columns whose every value matches the per-value grammar
    (the one that words the error), integers likewise."""
    joined = "".join(v + "\n" for v in values)
    assert (trec._NUMBER_LINES.fullmatch(joined) is not None) == all(trec._NUMBER.fullmatch(v) for v in values)
    integer = re.compile(r"[+-]?[0-9]+", re.ASCII)
    assert (trec._INTEGER_LINES.fullmatch(joined) is not None) == all(integer.fullmatch(v) for v in values)
