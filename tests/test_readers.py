"""TREC readers: qrels, subtopic qrels and runs, from paths (plain or gzip), open
files and literal strings; comments, ``#`` inside docnos, extra trailing columns,
blank lines; errors naming the file, the line and the field.

Inputs are written both in the canonical layout (one space between fields, no
comments: the form a fast reader may take) and in irregular layouts, so that every
reading path is checked against the same expectations.
"""

from __future__ import annotations

import gzip
import io

import numpy as np
import pytest

import evalkit
from evalkit import InputFormatError, read_qrels, read_run, read_subtopic_qrels

QRELS_TEXT = "301 0 d1 2\n301 0 d2 0\n302 0 d1 1\n302 0 msmarco#4_16 -1\n"
RUN_TEXT = (
    "301 Q0 d1 1 2.5 sysA\n"
    "301 Q0 d3 2 1.25 sysA\n"
    "302 Q0 msmarco#4_16 1 0.75 sysA\n"
    "302 Q0 d1 2 0.5 sysA\n"
)


def _qrels_tuple(q):
    return sorted(zip(q.qid.tolist(), q.docno.tolist(), q.grade.tolist()))


def _run_tuple(r):
    return sorted(zip(r.qid.tolist(), r.docno.tolist(), r.score.tolist()))


EXPECTED_QRELS = [("301", "d1", 2.0), ("301", "d2", 0.0), ("302", "d1", 1.0), ("302", "msmarco#4_16", -1.0)]
EXPECTED_RUN = [("301", "d1", 2.5), ("301", "d3", 1.25), ("302", "d1", 0.5), ("302", "msmarco#4_16", 0.75)]


# --------------------------------------------------------------------------- sources
@pytest.mark.parametrize("kind", ["path", "gzip", "text-stream", "binary-stream", "literal", "pathlike-str"])
def test_sources(tmp_path, kind):
    def source(text, stem):
        if kind == "literal":
            return text
        if kind == "text-stream":
            return io.StringIO(text)
        if kind == "binary-stream":
            return io.BytesIO(text.encode())
        path = tmp_path / (stem + (".gz" if kind == "gzip" else ""))
        if kind == "gzip":
            path.write_bytes(gzip.compress(text.encode()))
        else:
            path.write_text(text)
        return str(path) if kind == "pathlike-str" else path

    q = read_qrels(source(QRELS_TEXT, "qrels"))
    r = read_run(source(RUN_TEXT, "run"))
    assert _qrels_tuple(q) == EXPECTED_QRELS
    assert _run_tuple(r) == EXPECTED_RUN
    assert r.name == "sysA"


def test_gzip_detected_by_magic_bytes_not_name(tmp_path):
    path = tmp_path / "run.txt"  # no .gz suffix
    path.write_bytes(gzip.compress(RUN_TEXT.encode()))
    assert _run_tuple(read_run(path)) == EXPECTED_RUN


def test_run_name_argument_overrides_runid():
    assert read_run(RUN_TEXT, name="mine").name == "mine"


def test_missing_file_names_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        read_qrels(tmp_path / "nope.txt")


# --------------------------------------------------------------------------- tolerated layout
def test_comments_blank_lines_hash_in_docnos_and_whitespace():
    text = (
        "# a comment line\n"
        "\n"
        "301\t0\td1\t2\n"
        "   # an indented comment\n"
        "301  0   d2 0   \n"
        "\n"
        "302 0 d1 1\r\n"
        "302 0 msmarco#4_16 -1\n"
    )
    q = read_qrels(text)
    assert _qrels_tuple(q) == EXPECTED_QRELS
    # line numbers refer to the file's lines (comments and blank lines count)
    assert sorted(q.line.tolist()) == [3, 5, 7, 8]


def test_extra_trailing_run_columns_are_ignored():
    text = "".join(line + " junk more junk\n" for line in RUN_TEXT.splitlines())
    assert _run_tuple(read_run(text)) == EXPECTED_RUN


def test_rank_column_is_ignored():
    """trec_eval ranks by score; the rank column does not matter."""
    text = RUN_TEXT.replace(" 1 2.5 ", " 7 2.5 ").replace(" 2 1.25 ", " 1 1.25 ")
    a = evalkit.evaluate(read_qrels(QRELS_TEXT), read_run(text), ["ndcg"]).values
    b = evalkit.evaluate(read_qrels(QRELS_TEXT), read_run(RUN_TEXT), ["ndcg"]).values
    np.testing.assert_array_equal(a, b)


def test_scores_in_exponent_notation_and_signs():
    r = read_run("1 Q0 a 1 1e3 x\n1 Q0 b 2 -2.5E-1 x\n1 Q0 c 3 +7 x\n")
    assert _run_tuple(r) == [("1", "a", 1000.0), ("1", "b", -0.25), ("1", "c", 7.0)]


def test_subtopic_qrels():
    s = read_subtopic_qrels("0 0 D0 0\n0 1 D2 1\n# c\n0 0 D2 1\n1 0 D3 2\n")
    assert sorted(zip(s.qid.tolist(), s.subtopic.tolist(), s.docno.tolist(), s.grade.tolist())) == [
        ("0", "0", "D0", 0.0), ("0", "0", "D2", 1.0), ("0", "1", "D2", 1.0), ("1", "0", "D3", 2.0)]


def test_empty_input_gives_empty_containers():
    assert len(read_qrels("# nothing\n\n")) == 0
    assert len(read_run("\n")) == 0


# --------------------------------------------------------------------------- errors
def _error(reader, text, tmp_path, name="input.txt"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(InputFormatError) as err:
        reader(path)
    return err.value, str(path)


@pytest.mark.parametrize("canonical", [True, False])
def test_too_few_fields(tmp_path, canonical):
    sep = " " if canonical else "\t "
    text = f"301{sep}0{sep}d1{sep}1\n301{sep}0{sep}d2\n"
    exc, path = _error(read_qrels, text, tmp_path)
    assert exc.path == path and exc.line == 2 and exc.field == "grade"  # the first missing field
    assert path in str(exc) and ":2" in str(exc) and "field 'grade'" in str(exc)
    assert "found 3" in str(exc)


def test_too_many_qrels_fields(tmp_path):
    exc, path = _error(read_qrels, "301 0 d1 1\n301 0 d2 1 extra\n", tmp_path)
    assert exc.line == 2 and "found 5" in str(exc)


def test_run_too_few_fields(tmp_path):
    exc, path = _error(read_run, "301 Q0 d1 1 2.0 x\n301 Q0 d2 2 1.0 x\n301 Q0 d3 3 0.5\n", tmp_path)
    assert exc.path == path and exc.line == 3 and exc.field == "runid" and "found 5" in str(exc)


@pytest.mark.parametrize("bad", ["abc", "nan", "inf", "1.0.0", "-"])
@pytest.mark.parametrize("canonical", [True, False])
def test_non_numeric_score(tmp_path, bad, canonical):
    sep = " " if canonical else "  "
    text = f"301{sep}Q0{sep}d1{sep}1{sep}2.0{sep}x\n301{sep}Q0{sep}d2{sep}2{sep}{bad}{sep}x\n"
    exc, path = _error(read_run, text, tmp_path)
    assert (exc.path, exc.line, exc.field) == (path, 2, "score")
    assert repr(bad) in str(exc) and "field 'score'" in str(exc)


@pytest.mark.parametrize("bad", ["1.5", "x", "nan", "2e-1"])
@pytest.mark.parametrize("canonical", [True, False])
def test_non_integer_grade(tmp_path, bad, canonical):
    sep = " " if canonical else "\t"
    text = f"301{sep}0{sep}d1{sep}1\n301{sep}0{sep}d2{sep}0\n301{sep}0{sep}d3{sep}{bad}\n"
    exc, path = _error(read_qrels, text, tmp_path)
    assert (exc.path, exc.line, exc.field) == (path, 3, "grade")
    assert repr(bad) in str(exc)


def test_integer_valued_grade_forms_are_accepted():
    q = read_qrels("1 0 a 2.0\n1 0 b +1\n1 0 c -1\n")
    assert sorted(q.grade.tolist()) == [-1.0, 1.0, 2.0]


@pytest.mark.parametrize("canonical", [True, False])
def test_duplicate_docno_in_run_names_both_lines(tmp_path, canonical):
    sep = " " if canonical else "\t"
    lines = ["301 Q0 d1 1 3.0 x", "301 Q0 d2 2 2.0 x", "302 Q0 d1 1 2.0 x", "301 Q0 d1 3 1.0 x"]
    text = "".join(line.replace(" ", sep) + "\n" for line in lines)
    exc, path = _error(read_run, text, tmp_path)
    assert exc.path == path and exc.line == 4 and exc.field == "docno"
    assert "line 1" in str(exc) and "'d1'" in str(exc) and "'301'" in str(exc)


@pytest.mark.parametrize("canonical", [True, False])
def test_duplicate_judgment_in_qrels_names_both_lines(tmp_path, canonical):
    sep = " " if canonical else "\t"
    lines = ["7 0 a 1", "7 0 b 0", "8 0 a 1", "7 0 b 2"]
    text = "".join(line.replace(" ", sep) + "\n" for line in lines)
    exc, path = _error(read_qrels, text, tmp_path)
    assert exc.path == path and exc.line == 4
    assert "line 2" in str(exc) and "'b'" in str(exc)


def test_duplicate_subtopic_judgment(tmp_path):
    exc, path = _error(read_subtopic_qrels, "0 0 D0 0\n0 1 D0 1\n0 0 D0 1\n", tmp_path)
    assert exc.line == 3 and "line 1" in str(exc)


def test_same_docno_in_two_queries_is_fine():
    r = read_run("1 Q0 a 1 1 x\n2 Q0 a 1 1 x\n")
    assert len(r) == 2


def test_bad_utf8_names_line(tmp_path):
    raw = b"301 0 d1 1\n301 0 d2 0\n301 0 d\xff3 1\n"
    exc, path = _error(read_qrels, raw, tmp_path)
    assert exc.path == path and exc.line == 3
    assert "UTF-8" in str(exc)


def test_bad_utf8_in_gzip_run(tmp_path):
    raw = gzip.compress(b"301 Q0 d1 1 2.0 x\n301 Q0 d\xc3\x283 2 1.0 x\n")
    exc, path = _error(read_run, raw, tmp_path, name="run.gz")
    assert exc.path == path and exc.line == 2


def test_utf8_docnos_are_data():
    q = read_qrels("1 0 dé 1\n1 0 d€ 0\n")
    assert sorted(q.docno.tolist()) == ["dé", "d€"]


def test_literal_string_errors_say_string():
    with pytest.raises(InputFormatError) as err:
        read_run("1 Q0 a 1 x run\n")
    assert err.value.path == "<string>" and err.value.line == 1 and err.value.field == "score"


def test_corrupt_gzip(tmp_path):
    path = tmp_path / "bad.gz"
    path.write_bytes(gzip.compress(QRELS_TEXT.encode())[:20])
    with pytest.raises(InputFormatError) as err:
        read_qrels(path)
    assert err.value.path == str(path) and "gzip" in str(err.value)


# --------------------------------------------------------------------------- real data
@pytest.mark.shared
def test_trec_eval_results_trunc_junk_columns(trec_eval_dir):
    run = read_run(trec_eval_dir / "results.trunc")
    assert len(run) == 584 and run.name == "STANDARD"


@pytest.mark.shared
def test_msmarco_docnos_with_hash(trec_eval_dir):
    q = read_qrels(trec_eval_dir / "qrels.comment.test")
    assert len(q) == 5890
    assert "msmarco_v2.1_doc_00_880019750#4_1633802806" in set(q.docno.tolist())


@pytest.mark.shared
def test_gzipped_robust03_run(shared_data):
    runs = sorted((shared_data / "trectools_robust03" / "runs").glob("*.gz"))
    assert runs, "no gzip runs in ../shared/data/trectools_robust03/runs"
    small = min(runs, key=lambda p: p.stat().st_size)
    run = read_run(small)
    plain = read_run(io.BytesIO(gzip.decompress(small.read_bytes())))
    assert len(run) > 0
    assert _run_tuple(run) == _run_tuple(plain)


def test_run_and_qrels_to_dict_invert_from_rows():
    qrels = {"q1": {"d1": 2.0, "d2": 0.0}, "q2": {"d3": -1.0}}
    run = {"q1": {"d1": 1.5, "d9": 0.25}, "q2": {"d3": 3.0}}
    assert evalkit.Qrels.from_rows(qrels).to_dict() == qrels
    assert evalkit.Run.from_rows(run).to_dict() == run


def test_write_run_round_trips_scores_exactly():
    """Scores are written as Python floats' shortest repr (not numpy's 'np.float64(...)'),
    ranks from score order with ties by docno descending (trec_eval's order)."""
    import io as _io

    from evalkit.io import write_run

    scores = [0.1 + 0.2, 1 / 3, 1 / 3, 2.5e-17]
    run = evalkit.Run.from_rows([("q1", "a", scores[0]), ("q1", "b", scores[1]), ("q1", "c", scores[2]),
                                 ("q2", "d", scores[3])], name="sys")
    buf = _io.StringIO()
    write_run(run, buf)
    assert buf.getvalue().splitlines() == [
        "q1 Q0 c 1 0.3333333333333333 sys", "q1 Q0 b 2 0.3333333333333333 sys",
        "q1 Q0 a 3 0.30000000000000004 sys", "q2 Q0 d 1 2.5e-17 sys"]
    back = evalkit.read_run(buf.getvalue())
    assert back.to_dict() == run.to_dict()
