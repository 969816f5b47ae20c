"""Grades are read as trec_eval reads them (``get_qrels.c``: ``atol``) or refused with a
clear error: a grade written with a fraction or an exponent whose value differs from
atol's reading (``1e1``: 10 as a number, 1 to trec_eval) is an error naming the file,
line and field; one that agrees (``2.0``, ``1e0``) gives trec_eval's number. The exact
reader and the Arrow reader (files of 1 MiB or more) agree."""

from __future__ import annotations

import pytest

import evalkit
from evalkit.errors import InputFormatError
from evalkit.io import trec
from evalkit.io.trec import atol

from reference_programs import ReferenceUnavailable, parse_trec_eval_q, run_trec_eval


@pytest.fixture(autouse=True)
def _arrow_from_one_mib(monkeypatch):
    """The "big" files below (``FAST_MIN_BYTES`` or more) go to Arrow's reader even when
    canonical (not to NumPy's, see ``CANONICAL_MAX_BYTES``)."""
    monkeypatch.setattr(trec, "CANONICAL_MAX_BYTES", 0)

RUN = "1 Q0 a 1 5 r\n1 Q0 b 2 4 r\n1 Q0 c 3 3 r\n"


@pytest.mark.parametrize("token, expected", [("1e1", 1), (".2e1", 0), ("1e-400", 1), ("2.0", 2), ("+3", 3),
                                             ("-1", -1), ("1.5", 1), ("2e0", 2), ("99999999999999999999", 2 ** 63 - 1)])
def test_atol(token, expected):
    assert atol(token) == expected


@pytest.mark.parametrize("token, refused", [("1e1", True), (".2e1", True), ("1e-400", True), ("1.5", True),
                                            ("2.0", False), ("1e0", False), ("+2", False), ("3", False)])
def test_grade_tokens_as_trec_eval_reads_them(tmp_path, token, refused):
    qrels = tmp_path / "qrels"
    qrels.write_text(f"1 0 a {token}\n1 0 b 1\n1 0 c 0\n")
    run = tmp_path / "run"
    run.write_text(RUN)
    if refused:
        with pytest.raises(InputFormatError, match=r"qrels:1: field 'grade'"):
            evalkit.read_qrels(qrels)
        return
    got = evalkit.evaluate(evalkit.read_qrels(qrels), [evalkit.read_run(run)], ["trec_eval9.ndcg_cut@10"]).mean("r", 0)
    try:
        out = run_trec_eval("9.0.8", ["-q", "-m", "ndcg_cut.10", str(qrels), str(run)])
    except ReferenceUnavailable as exc:
        pytest.skip(str(exc))
    assert f"{got:.4f}" == parse_trec_eval_q(out.stdout)[("ndcg_cut_10", "all")]


def test_refused_grades_would_differ_from_trec_eval(tmp_path):
    """The refusals are not arbitrary: trec_eval reads 1e1 as grade 1, not 10."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1e1\n1 0 b 2\n")
    run = tmp_path / "run"
    run.write_text(RUN)
    try:
        out = run_trec_eval("9.0.8", ["-q", "-m", "ndcg_cut.10", str(qrels), str(run)])
    except ReferenceUnavailable as exc:
        pytest.skip(str(exc))
    ten = evalkit.evaluate(evalkit.Qrels.from_rows({"1": {"a": 10, "b": 2}}), [evalkit.read_run(run)],
                           ["trec_eval9.ndcg_cut@10"]).mean("r", 0)
    one = evalkit.evaluate(evalkit.Qrels.from_rows({"1": {"a": 1, "b": 2}}), [evalkit.read_run(run)],
                           ["trec_eval9.ndcg_cut@10"]).mean("r", 0)
    assert parse_trec_eval_q(out.stdout)[("ndcg_cut_10", "all")] == f"{one:.4f}" != f"{ten:.4f}"


@pytest.mark.parametrize("token, refused", [("1e1", True), ("2.0", False), ("+2", False)])
def test_fast_and_exact_readers_agree(tmp_path, token, refused):
    """A file of 1 MiB or more goes through Arrow; the same line is refused or read the
    same way there, with the same line number."""
    body = "".join(f"q{i} 0 d{i} {i % 2}\n" for i in range(trec.FAST_MIN_BYTES // 12))
    big = tmp_path / "big.qrels"
    big.write_text(body + f"last 0 x {token}\n")
    assert big.stat().st_size >= trec.FAST_MIN_BYTES
    n = body.count("\n") + 1
    small = tmp_path / "small.qrels"
    small.write_text(f"last 0 x {token}\n")
    if refused:
        for path, line in ((big, n), (small, 1)):
            with pytest.raises(InputFormatError, match=rf":{line}: field 'grade'.*atol"):
                evalkit.read_qrels(path)
        return
    q_big, q_small = evalkit.read_qrels(big), evalkit.read_qrels(small)
    assert q_big.grade.max() == q_small.grade[0] == 2.0  # the body's grades are 0 and 1


@pytest.mark.parametrize("big", [False, True])
@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_cr_only_line_ends_refused_by_run_and_qrels_readers(tmp_path, big, kind):
    """Issue 25: a run with CR-only line ends read as one line (extra columns are
    ignored), while the qrels reader refused it; both now name the line. CRLF is fine."""
    line = "1 Q0 a 1 5 r" if kind == "run" else "1 0 a 1"
    body = ""
    if big:
        body = "".join((f"q{i} Q0 d{i} 1 {i} r\n" if kind == "run" else f"q{i} 0 d{i} 1\n")
                       for i in range(trec.FAST_MIN_BYTES // 10))
    path = tmp_path / f"cr.{kind}"
    path.write_text(body + f"{line}\r{line.replace('a', 'b')}\r", newline="")
    read = evalkit.read_run if kind == "run" else evalkit.read_qrels
    with pytest.raises(InputFormatError, match=rf":{body.count(chr(10)) + 1}: a carriage return"):
        read(path)
    crlf = tmp_path / f"crlf.{kind}"
    crlf.write_text(f"{line}\r\n{line.replace('a', 'b')}\r\n", newline="")
    assert len(read(crlf).docno if kind == "qrels" else read(crlf).score) == 2


@pytest.mark.parametrize("rank", ["-0", "+1", "-1"])
def test_signed_rank_refused_in_small_and_large_runs(tmp_path, rank):
    """Issue 25: rank -0 was refused in small files and accepted in large ones (Arrow's
    integer parser). ndeval's naturalNumber reads digits only; both readers refuse."""
    body = "".join(f"q{i} Q0 d{i} {i % 50 + 1} {i} r\n" for i in range(trec.FAST_MIN_BYTES // 16))
    for text, line in ((body, body.count("\n") + 1), ("", 1)):
        path = tmp_path / "ranked.run"
        path.write_text(text + f"z Q0 a {rank} 5 r\n")
        with pytest.raises(InputFormatError, match=rf":{line}: field 'rank'"):
            evalkit.read_run(path, keep_rank=True)
