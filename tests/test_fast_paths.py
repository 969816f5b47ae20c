"""The performance paths (issue 4) give exactly what the plain paths give.

* the Arrow CSV reader vs the exact line-by-line reader (values, line numbers, errors);
* hash-indexed duplicate check and qrels join, also when every hash collides;
* O(n) tie-policy orders vs the ``np.lexsort`` formulas they replace;
* top-k / shared-cache DCG and IDCG vs the full-array computation.

No timings are asserted here; ``benchmarks/run.py`` measures speed.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

import evalkit
from evalkit.data import Qrels, Run
from evalkit.engine import factorize as fz
from evalkit.engine.evaluate import resolve
from evalkit.engine.problem import build_problem
from evalkit.kernel import MetricInput, SortKeys
from evalkit.errors import InputFormatError
from evalkit.io import trec

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _slow(monkeypatch):
    """Force the exact line-by-line reader."""
    monkeypatch.setattr(trec, "_fast_table", lambda *a, **k: None)


def _cols(x):
    cols = [list(x.qid), list(x.docno), list(x.line)]
    cols.append(list(x.grade) if isinstance(x, Qrels) else list(x.score) + [x.name])
    return cols


def _read_both(monkeypatch, reader, source):
    """(fast result or exception text, exact result or exception text); the fast
    attempt reads even a small input with Arrow's reader (``FAST_MIN_BYTES = 0``)."""
    def attempt():
        try:
            return _cols(reader(source))
        except InputFormatError as exc:
            return ("error", str(exc))
    with monkeypatch.context() as m:
        m.setattr(trec, "FAST_MIN_BYTES", 0)
        m.setattr(trec, "CANONICAL_MAX_BYTES", 0)
        fast = attempt()
        # small CSV blocks: every column in many chunks, combined chunk by chunk
        m.setattr(trec, "BLOCK_SIZE", 48 if isinstance(source, str) else 1 << 16)
        assert attempt() == fast
    with monkeypatch.context() as m:
        _slow(m)
        exact = attempt()
    return fast, exact


RUN_TEXTS = {
    "plain": "1 Q0 d1 1 1.5 r\n1 Q0 d2 2 0.5 r\n10 Q0 d1 1 3 r\n2 Q0 x 1 -1e-3 r\n",
    "no_final_newline": "1 Q0 d1 1 1.5 r\n1 Q0 d2 2 0.5 r",
    "tabs": "1\tQ0\td1\t1\t1.5\tr\n1\tQ0\td2\t2\t0.5\tr\n",
    "double_space": "1 Q0 d1 1 1.5 r\n1  Q0 d2 2 0.5 r\n",
    "missing_field_compensated": "1 Q0 d1 1 1.5 r\n1 Q0 d2  0.5 r\n",
    "leading_space": " 1 Q0 d1 1 1.5 r\n",
    "trailing_space": "1 Q0 d1 1 1.5 r \n",
    "blank_line": "1 Q0 d1 1 1.5 r\n\n1 Q0 d2 2 0.5 r\n",
    "comment": "# header\n1 Q0 d1 1 1.5 r\n",
    "comments_between_and_last": "#\n1 Q0 d1 1 1.5 r\n#a b\n#c\n1 Q0 d#2 2 0.5 r\n# end",
    "comment_with_bell": "1 Q0 d1 1 1.5 r\n# a\x07\n1 Q0 d2 2 0.5 r\n",
    "comment_with_lone_cr": "1 Q0 d1 1 1.5 r\n# a\rb\n1 Q0 d2 2 0.5 r\n",
    "comment_utf8": "# évaluation\n1 Q0 d1 1 1.5 r\n",
    "indented_comment": "1 Q0 d1 1 1.5 r\n  # c\n1 Q0 d2 2 0.5 r\n",
    "hash_in_docno": "1 Q0 a#1 1 1.5 r\n1 Q0 #b 2 0.5 r\n",
    "crlf": "1 Q0 d1 1 1.5 r\r\n1 Q0 d2 2 0.5 r\r\n",
    "vertical_tab": "1 Q0 d\x0b1 1 1.5 r\n",
    "extra_columns": "1 Q0 d1 1 1.5 r x\n1 Q0 d2 2 0.5 r\n",
    "bad_score": "1 Q0 d1 1 1.5 r\n1 Q0 d2 2 abc r\n",
    "nan_score": "1 Q0 d1 1 nan r\n",
    "inf_score": "1 Q0 d1 1 1e999 r\n",
    "underscore_score": "1 Q0 d1 1 1_0 r\n",
    "duplicate": "1 Q0 d1 1 1.5 r\n2 Q0 d1 1 1 r\n1 Q0 d2 2 0.5 r\n1 Q0 d1 3 0.1 r\n",
    "non_ascii": "1 Q0 dé 1 1.5 r\n1 Q0 d\u00a0x 2 0.5 r\n",
    "five_fields": "1 Q0 d1 1 1.5\n",
}

QRELS_TEXTS = {
    "plain": "1 0 d1 1\n1 0 d2 0\n10 0 d1 2\n2 0 x -1\n",
    "float_grade": "1 0 d1 1.0\n1 0 d2 2.5\n",
    "bad_grade": "1 0 d1 1\n1 0 d2 x\n",
    "duplicate": "1 0 d1 1\n2 0 d1 1\n1 0 d2 0\n1 0 d1 2\n",
    "three_fields": "1 0 d1\n",
    "comment": "1 0 d1 1\n# c\n1 0 d2 0\n",
}


@pytest.mark.parametrize("name", sorted(RUN_TEXTS))
def test_run_reader_fast_path_equals_exact_reader(monkeypatch, name, tmp_path):
    text = RUN_TEXTS[name]
    fast, exact = _read_both(monkeypatch, evalkit.read_run, text)
    assert fast == exact
    # the same through a path and a gzip path (the bytes route)
    p = tmp_path / "run.txt"
    p.write_bytes(text.encode())
    fast_p, exact_p = _read_both(monkeypatch, evalkit.read_run, p)
    assert fast_p == exact_p
    g = tmp_path / "run.gz"
    g.write_bytes(gzip.compress(text.encode()))
    fast_g, exact_g = _read_both(monkeypatch, evalkit.read_run, g)
    assert fast_g == exact_g


@pytest.mark.parametrize("name", sorted(QRELS_TEXTS))
def test_qrels_reader_fast_path_equals_exact_reader(monkeypatch, name):
    fast, exact = _read_both(monkeypatch, evalkit.read_qrels, QRELS_TEXTS[name])
    assert fast == exact


def test_csv_reader_allocates_from_one_pool_and_restores_the_default(monkeypatch):
    """While Arrow's CSV reader runs, its pool is Arrow's default pool too (its file
    buffers and columns share one allocator); the previous default comes back after,
    and ``ARROW_DEFAULT_MEMORY_POOL`` (the user's choice) turns that off."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    seen = []
    read_csv = pcsv.read_csv

    def spy(*args, **kwargs):
        seen.append((pa.default_memory_pool().backend_name, kwargs["memory_pool"].backend_name))
        return read_csv(*args, **kwargs)

    monkeypatch.setattr(pcsv, "read_csv", spy)
    monkeypatch.setattr(trec, "FAST_MIN_BYTES", 0)
    monkeypatch.setattr(trec, "CANONICAL_MAX_BYTES", 0)
    before = pa.default_memory_pool().backend_name
    assert evalkit.read_run(RUN_TEXTS["plain"]).docno.tolist() == ["d1", "d2", "d1", "x"]
    assert seen[-1][0] == seen[-1][1] and pa.default_memory_pool().backend_name == before
    monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", before)
    evalkit.read_qrels(QRELS_TEXTS["plain"])
    assert seen[-1][0] == before and pa.default_memory_pool().backend_name == before


def test_error_messages_name_the_line():
    with pytest.raises(InputFormatError, match=r"<string>:4: field 'docno': duplicate document for query '1', "
                                                r"document 'd1' \(first seen at line 1\)"):
        evalkit.read_run(RUN_TEXTS["duplicate"])
    with pytest.raises(InputFormatError, match=r"<string>:2: field 'score': expected a finite number, got 'abc'"):
        evalkit.read_run(RUN_TEXTS["bad_score"])


def _shared(*parts):
    return DATA.joinpath(*parts)


@pytest.mark.shared
@pytest.mark.parametrize("qrels, run", [
    ("trec_eval_test/qrels.test", "trec_eval_test/results.test"),
    ("trec_eval_test/qrels.comment.test", "trec_eval_test/results.comment.test"),
    ("trec_cast_2021/trec-cast-qrels-docs.2021.qrel", "trec_cast_2021/document_runs/org_convdr.run"),
    ("trectools_robust03/robust03_qrels.txt", "trectools_robust03/runs/input.InexpC2.gz"),
])
def test_real_files_read_identically(monkeypatch, qrels, run):
    assert _shared(qrels).exists(), f"shared data not beside the checkout: {_shared(qrels)}"
    for reader, path in ((evalkit.read_qrels, qrels), (evalkit.read_run, run)):
        fast, exact = _read_both(monkeypatch, reader, _shared(path))
        assert fast == exact


# --------------------------------------------------------------------------- hashing
def test_string_hash_does_not_depend_on_the_other_strings():
    strings = ["KILT_10074847", "x", "", "abcdefgh", "abcdefghi", "abc\x00", "é" * 9, "a" * 40]
    together = fz.string_hash(strings)
    alone = np.array([fz.string_hash([s])[0] for s in strings], dtype=np.uint64)
    assert (together == alone).all()
    assert len(set(together.tolist())) == len(strings)
    # Arrow slices and large_string give the same hashes
    import pyarrow as pa

    arr = fz.as_arrow(["zz"] + strings)
    assert (fz.string_hash(arr.slice(1)) == together).all()
    assert (fz.string_hash(arr.cast(pa.large_string()).slice(1)) == together).all()


def test_encode_matches_numpy_unique():
    rng = np.random.default_rng(3)
    alphabet = list("ab#é0Z")
    strings = ["".join(rng.choice(alphabet, rng.integers(0, 6))) for _ in range(2000)]
    codes, vocab = fz.encode(strings)
    u, inv = np.unique(np.array(strings, dtype=object), return_inverse=True)
    assert list(vocab) == list(u)
    assert (codes == inv.reshape(-1)).all()


def test_strings_equal_matches_python_comparison():
    """NumPy word-by-word comparison from the Arrow buffers vs Python ``==``: lengths
    around the 8-byte word size, NUL and multi-byte characters, strings ending at the
    very end of the data buffer, sliced and large_string arrays."""
    import pyarrow as pa

    rng = np.random.default_rng(5)
    alphabet = list("ab\x00é#")
    a = ["".join(rng.choice(alphabet, rng.integers(0, 19))) for _ in range(300)] + ["abcdefgh"]
    b = [s if rng.random() < 0.5 else s[:-1] + "a" if s else "x" for s in a] + ["abcdefgh"]
    b += ["abcdefgi", "abcdefg", "abcdefgh\x00"]
    arr_a = fz.as_arrow(["pad"] + a).slice(1)  # offset != 0
    for arr_b in (fz.as_arrow(b), fz.as_arrow(b).cast(pa.large_string())):
        rows_a = rng.integers(0, len(a), 2000)
        rows_b = np.where(rng.random(2000) < 0.5, np.minimum(rows_a, len(b) - 1), rng.integers(0, len(b), 2000))
        rows_a[:4], rows_b[:4] = len(a) - 1, [len(b) - 4, len(b) - 3, len(b) - 2, len(b) - 1]
        got = fz.strings_equal(arr_a, rows_a, arr_b, rows_b)
        assert got.tolist() == [a[i] == b[j] for i, j in zip(rows_a, rows_b)]
        assert got[:4].tolist() == [True, False, False, False]


def test_byte_order_ranks_match_sorted_strings():
    """Dense ranks from big-endian words + length vs Python's ``sorted`` (code-point
    order = UTF-8 byte order = strcmp's): prefixes, NUL bytes, multi-byte characters,
    strings longer than one word, sliced and large_string arrays."""
    import pyarrow as pa

    rng = np.random.default_rng(9)
    alphabet = list("ab\x00é#Z")
    strings = ["".join(rng.choice(alphabet, rng.integers(0, 20))) for _ in range(400)]
    strings += ["abcdefgh", "abcdefgh\x00", "abcdefg", "abcdefghi", "D0000001", "D0000010", ""]
    for arr in (fz.as_arrow(["pad"] + strings).slice(1), fz.as_arrow(strings).cast(pa.large_string())):
        rows = rng.integers(0, len(strings), 3000)
        rows[-7:] = np.arange(len(strings) - 7, len(strings))
        picked = [strings[i] for i in rows]
        distinct = sorted(set(picked))
        assert fz.byte_order_ranks(arr, rows).tolist() == [distinct.index(s) for s in picked]
    # words equal in every row (a common prefix, one length) are left out of the sort
    for strings in (["clueweb12-%04dtw-%02d" % (i % 37, i % 11) for i in range(400)], ["same-docno"] * 5):
        rows = rng.integers(0, len(strings), 1000)
        picked = [strings[i] for i in rows]
        distinct = sorted(set(picked))
        assert fz.byte_order_ranks(fz.as_arrow(strings), rows).tolist() == [distinct.index(s) for s in picked]



def _block_then_bytes(strings, rows, block, descending):
    """Oracle for ``byte_order_sort``: Python's stable sorts (UTF-8 byte order)."""
    enc = [strings[i].encode() for i in rows]
    by_string = sorted(range(len(rows)), key=lambda p: enc[p], reverse=descending)  # stable
    return sorted(by_string, key=lambda p: int(block[p]))


@pytest.mark.parametrize("descending", [False, True])
def test_byte_order_sort_matches_python_sorts(monkeypatch, descending):
    """(block, docno) order in one sort of folded words vs Python's stable ``sorted``
    by bytes then by block: prefixes, NUL bytes, multi-byte characters, a common
    prefix, equal strings (kept in their order), one block, blocks too wide for the
    folded key (top bits only, ties refined), equal words (lengths decide); sliced,
    ``large_string``, chunked, small ``object`` and over-long-string inputs."""
    import pyarrow as pa

    rng = np.random.default_rng(11)
    alphabet = list("ab\x00é#Z")
    mixed = ["".join(rng.choice(alphabet, rng.integers(0, 20))) for _ in range(300)]
    mixed += ["abcdefgh", "abcdefgh\x00", "abcdefg", "abcdefghi", "D0000001", "D0000010", ""]
    prefixed = ["clueweb12-%04dtw-%02d-%05d" % (i % 37, i % 11, i % 5) for i in range(400)]
    lengths_only = ["a" * (i % 5) for i in range(50)]
    for strings in (mixed, prefixed, lengths_only, ["same-docno"] * 5):
        inputs = [fz.as_arrow(["pad"] + strings).slice(1), fz.as_arrow(strings).cast(pa.large_string()),
                  pa.chunked_array([fz.as_arrow(strings)]), np.array(strings, dtype=object)]
        for arr in inputs:
            rows = rng.integers(0, len(strings), 2000)
            for block in (np.zeros(len(rows), dtype=np.int64),
                          np.sort(rng.integers(0, 300, len(rows))),
                          np.sort(rng.integers(0, 40, len(rows))) << 50):  # wider than the key
                got = fz.byte_order_sort(arr, rows, block, descending)
                assert got.tolist() == _block_then_bytes(strings, rows, block, descending)
    monkeypatch.setattr(fz, "LONG_STRING", 8)  # the Arrow rank path for long strings
    rows = rng.integers(0, len(prefixed), 500)
    block = np.sort(rng.integers(0, 30, len(rows)))
    got = fz.byte_order_sort(fz.as_arrow(prefixed), rows, block, descending)
    assert got.tolist() == _block_then_bytes(prefixed, rows, block, descending)
    assert fz.byte_order_sort(fz.as_arrow(prefixed), rows[:0], block[:0], descending).tolist() == []


def test_long_strings_hash_compare_and_order_like_python(monkeypatch):
    """Strings longer than ``LONG_STRING`` take the one-at-a-time path (issue 9: one
    1 MB docno made the word loops pass over every row 131,072 times); hashes still
    depend on the string alone, equality and byte order still match Python's."""
    import pyarrow as pa

    monkeypatch.setattr(fz, "LONG_STRING", 16)  # exercise both paths on small data
    base = "abcdefghijklmnopqrstuvwxyz"
    strings = [base, base[:16], base[:17], base[:17] + "\x00", base + "é", "x", "", base[:15] + "Z" * 30, base]
    together = fz.string_hash(strings)
    alone = np.array([fz.string_hash([s])[0] for s in strings], dtype=np.uint64)
    assert (together == alone).all()
    assert together[0] == together[-1] and len(set(together.tolist())) == len(strings) - 1
    assert (fz.string_hash(fz.as_arrow(["pad"] + strings).cast(pa.large_string()).slice(1)) == together).all()
    rows_a = np.repeat(np.arange(len(strings)), len(strings))
    rows_b = np.tile(np.arange(len(strings)), len(strings))
    arr = fz.as_arrow(strings)
    got = fz.strings_equal(arr, rows_a, arr, rows_b)
    assert got.tolist() == [strings[i] == strings[j] for i, j in zip(rows_a, rows_b)]
    distinct = sorted(set(strings))
    assert fz.byte_order_ranks(arr, np.arange(len(strings))).tolist() == [distinct.index(s) for s in strings]


def test_one_megabyte_docno_reads_and_joins(tmp_path):
    """A 1 MB docno (judged and retrieved) gives the same values as a short name for
    the same document (the oracle: renaming a document changes nothing)."""
    long_name = "L" * (1 << 20)
    qrels = "q1 0 {d} 2\nq1 0 b 1\nq2 0 c 1\n"
    run = "q1 Q0 {d} 1 3 s\nq1 Q0 b 2 2 s\nq2 Q0 c 1 1 s\n"
    for name in ("a", long_name):
        (tmp_path / f"q{len(name)}").write_text(qrels.format(d=name))
        (tmp_path / f"r{len(name)}").write_text(run.format(d=name))
    res = [evalkit.evaluate(evalkit.read_qrels(tmp_path / f"q{n}"), evalkit.read_run(tmp_path / f"r{n}"),
                            "trec_eval.ndcg_cut@10") for n in (1, 1 << 20)]
    assert res[0].per_query("s", res[0].flavours[0]) == res[1].per_query("s", res[1].flavours[0])
    assert res[1].mean("s", res[1].flavours[0]) == 1.0


def test_combine_strings_equals_the_concatenated_chunks():
    """Chunks (empty ones, empty strings, non-ASCII, sliced arrays) copied into one
    array, each chunk let go once copied."""
    import pyarrow as pa

    parts = [["a", "", "dé"], [], ["日本語", "x" * 40], ["", ""], ["last"]]
    sliced = fz.as_arrow(["skip", "kept", "too"]).slice(1, 1)
    chunks = [fz.as_arrow(p) if p else pa.array([], pa.string()) for p in parts] + [sliced]
    out = fz.combine_strings(chunks)
    assert chunks == [None] * len(chunks)
    assert out.type == pa.string() and out.to_pylist() == [v for p in parts for v in p] + ["kept"]
    np.testing.assert_array_equal(fz.string_hash(out), fz.string_hash(np.array(out.to_pylist(), dtype=object)))


def test_encode_dictionary_matches_encode():
    """Per-chunk dictionaries (as the CSV reader makes them), including a dictionary
    value that no row uses, give the codes and sorted vocabulary of :func:`encode`."""
    import pyarrow as pa

    chunks = [["10", "2", "10", "é"], ["2", "1"], ["zz", "10"]]
    unused = pa.DictionaryArray.from_arrays(pa.array(np.array([0, 0, 2], np.int32)), fz.as_arrow(["3", "x", "1"]))
    column = pa.chunked_array([fz.as_arrow(c).dictionary_encode() for c in chunks] + [unused])
    codes, vocab = fz.encode_dictionary(column)
    flat = [v for c in chunks for v in c] + ["3", "3", "1"]
    exp_codes, exp_vocab = fz.encode(flat)
    assert list(vocab) == list(exp_vocab) and "x" not in list(vocab)
    assert codes.tolist() == exp_codes.tolist()


def _random_data(rng, n_queries=30, depth=40, corpus=200):
    q_rows, r_rows = [], []
    for q in range(n_queries):
        docs = rng.choice(corpus, size=depth + 10, replace=False)
        scores = np.round(rng.random(depth), 1)  # many ties
        r_rows += [(f"q{q}", f"doc{d}", float(s)) for d, s in zip(docs[:depth], scores)]
        judged = rng.choice(docs, size=15, replace=False)
        q_rows += [(f"q{q}", f"doc{d}", int(g)) for d, g in zip(judged, rng.integers(0, 4, 15))]
    q_rows += [("only_in_qrels", "doc1", 1)]
    r_rows += [("only_in_run", "doc1", 1.0)]
    return q_rows, r_rows


#: the first: trec_eval's ndcg_cut.10 leaving a qrels topic the run lacks out, as 9.0.8 and
#: pytrec_eval do (the trec_eval.* presets refuse it, as 10.0 does)
FLAVOURS = [
    "ndcg(ties=trec_eval)@10", "ndcg(gain=exp2,idcg=returned)@5", "ndcg(ties=average)@10",
    "ndcg(gain=map(1=1,2=3,3=7),discount=jarvelin(base=2),ties=optimistic)@20",
    "ndcg(ties=pessimistic,idcg=returned_top_k)@3", "dcg(ties=input)@7", "ndcg()", "err(max_grade=3)@10",
    "precision(ties=average)@5", "ap", "rr(ties=stable)",
]


def test_hash_collisions_change_nothing(monkeypatch):
    """With a hash that maps every string to 0, every pair is a candidate; the exact
    verification must still give the same join, duplicate errors and values."""
    rng = np.random.default_rng(7)
    q_rows, r_rows = _random_data(rng)
    expected = evalkit.evaluate(Qrels.from_rows(q_rows), Run.from_rows(r_rows), FLAVOURS).values
    monkeypatch.setattr(fz, "string_hash", lambda values, **kw: np.zeros(len(values), dtype=np.uint64))
    got = evalkit.evaluate(Qrels.from_rows(q_rows), Run.from_rows(r_rows), FLAVOURS).values
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(InputFormatError, match="duplicate document for query 'q0'"):
        Run.from_rows(r_rows + [r_rows[3]])


def test_join_grades_match_a_dictionary_lookup():
    rng = np.random.default_rng(11)
    q_rows, r_rows = _random_data(rng)
    qrels, run = Qrels.from_rows(q_rows), Run.from_rows(r_rows)
    problem = build_problem(qrels, run)
    lookup = {(q, d): g for q, d, g in q_rows}
    keys = problem.keys
    qids = problem.qids[keys.query]
    docnos = run.docno[keys.line]
    expected = np.array([lookup.get((q, d), np.nan) for q, d in zip(qids, docnos)])
    # a few rows' grades are read without building the column (a DCG@k reads k a query)
    rows = rng.integers(0, len(expected), 200)
    np.testing.assert_array_equal(keys.grade_at(rows), expected[rows])
    assert keys._grade is None
    np.testing.assert_array_equal(keys.grade, expected)
    # lazy docno codes are strcmp-ordered codes of those docnos
    assert (problem.docno_vocab[keys.docno] == docnos).all()
    assert list(problem.docno_vocab) == sorted(set(docnos))


@pytest.mark.parametrize("interleaved", [False, True])
def test_small_join_by_dict_equals_the_hash_join(monkeypatch, interleaved):
    """Tables of at most ``DICT_JOIN_MAX_ROWS`` rows with ``object`` docno columns (small
    files) are joined by a dict: the same judged rows, grades and qrels rows, hence the
    same problem, as the hash index's join; and the same as a Python lookup."""
    from evalkit.engine import problem as pr

    rng = np.random.default_rng(13)
    q_rows, r_rows = _random_data(rng, n_queries=12, depth=30)
    if interleaved:
        r_rows = [r_rows[i] for i in rng.permutation(len(r_rows))]
    qrels, run = Qrels.from_rows(q_rows), Run.from_rows(r_rows)
    assert len(run) <= pr.DICT_JOIN_MAX_ROWS and len(qrels) <= pr.DICT_JOIN_MAX_ROWS
    calls = []
    real = pr._dict_matches
    monkeypatch.setattr(pr, "_dict_matches", lambda *a: calls.append(1) or real(*a))
    by_dict = build_problem(qrels, run)
    assert calls and real(qrels, run, *_join_args(qrels, run)) is not None  # the dict join ran
    monkeypatch.setattr(pr, "DICT_JOIN_MAX_ROWS", 0)
    by_hash = build_problem(qrels, run)
    for a, b in ((by_dict.keys.grade, by_hash.keys.grade), (by_dict.keys.line, by_hash.keys.line),
                 (by_dict.judged_grade, by_hash.judged_grade), (by_dict._judged_at[0], by_hash._judged_at[0]),
                 (by_dict.qids, by_hash.qids)):
        np.testing.assert_array_equal(a, b)
    lookup = {(q, d): g for q, d, g in q_rows}
    docnos = run.docno[by_dict.keys.line] if by_dict.keys.line is not None else run.docno
    expected = [lookup.get((q, d), np.nan) for q, d in zip(by_dict.qids[by_dict.keys.query], docnos)]
    np.testing.assert_array_equal(by_dict.keys.grade, expected)


def _join_args(qrels, run):
    """``(run codes, remap, qrels query codes)`` as :func:`build_problem` hands them to the join."""
    q_qrels, qids = qrels._qid_codes()
    q_run, vocab = run._qid_codes()
    pos = np.minimum(np.searchsorted(qids, vocab), len(qids) - 1)
    remap = np.where(qids[pos] == vocab, pos, -1).astype(np.int64)
    return q_run, remap, q_qrels


def _laid_out(rows, layout, rng):
    """The run rows in a layout: ``blocks`` (one block per query, equal lengths: the
    2-D per-block sort; the query absent from the qrels left out), ``ragged`` (one block per query, lengths differ), ``interleaved``
    (a query's rows in several places: the one-block index)."""
    rows = list(rows)
    if layout == "ragged":
        return [r for i, r in enumerate(rows) if i % 40 < 40 - (i // 40) % 7]  # 40 rows a query
    if layout == "interleaved":
        return [rows[i] for i in rng.permutation(len(rows))]
    return [r for r in rows if r[0] != "only_in_run"]  # 40 rows in every query


@pytest.mark.parametrize("layout", ["blocks", "ragged", "interleaved", "few_hash_bits"])
@pytest.mark.parametrize("collide", [False, True])
def test_pair_index_join_and_duplicates_equal_a_dictionary(monkeypatch, layout, collide):
    """The pair index (per-block keys or one block) against a Python dictionary: the
    join's grades, and the duplicate error naming both lines of a planted duplicate."""
    from evalkit.engine import pair_index

    rng = np.random.default_rng(5)
    q_rows, r_rows = _random_data(rng)
    r_rows = _laid_out(r_rows, "interleaved" if layout == "interleaved" else layout, rng)
    if layout == "few_hash_bits":  # the table is indexed as one block
        monkeypatch.setattr(pair_index, "MIN_HASH_BITS", 64)
    if collide:
        monkeypatch.setattr(fz, "string_hash", lambda values, **kw: np.zeros(len(values), dtype=np.uint64))
    qrels, run = Qrels.from_rows(q_rows), Run.from_rows(r_rows)
    index = run._pair_index()
    assert (index.block_bits > 0) == (layout in ("blocks", "ragged"))
    assert (np.diff(index.keys.astype(object)) >= 0).all()  # sorted as Python integers
    assert sorted(index.rows(index.keys)) == list(range(len(r_rows)))
    problem = build_problem(qrels, run)
    lookup = {(q, d): g for q, d, g in q_rows}
    docnos = run.docno[problem.keys.line]
    expected = [lookup.get((q, d), np.nan) for q, d in zip(problem.qids[problem.keys.query], docnos)]
    np.testing.assert_array_equal(problem.keys.grade, expected)
    # the duplicate check's index serves one join, then is released; later joins rebuild it
    fresh = Run.from_rows(r_rows)
    assert fresh._checked_pairs is not None and fresh._pairs is None
    for _ in range(3):
        again = build_problem(qrels, fresh)
        assert fresh._checked_pairs is None
        np.testing.assert_array_equal(again.keys.grade, expected)
    # a planted duplicate (another score), anywhere in the file
    for at in (0, len(r_rows) // 2, len(r_rows)):
        first = 7
        q, d, _ = r_rows[first]
        planted = r_rows[:at] + [(q, d, 0.123)] + r_rows[at:]
        lines = sorted([first + 1 + (at <= first), at + 1])
        with pytest.raises(InputFormatError, match=rf":{lines[1]}: field 'docno': duplicate document for "
                                                   rf"query '{q}', document '{d}' \(first seen at line {lines[0]}\)"):
            Run.from_rows(planted)


@pytest.mark.parametrize("small_rows", [0, 1 << 20])
def test_join_orders_equal_argsort(monkeypatch, small_rows):
    """The join's small-table orders (radix by block then per block, or one packed
    sort; counting by run row) sort what ``np.argsort`` sorts: the probe keys ascending, the candidate rows
    in argsort's permutation (distinct rows) or argsort's own (a repeated row)."""
    from evalkit.engine import problem

    monkeypatch.setattr(problem, "SMALL_ROWS", small_rows)
    monkeypatch.setattr(problem, "PACKED_PROBES", 0)  # the per-block sorts (packed: below)
    rng = np.random.default_rng(3)
    block = rng.integers(0, 37, size=500)
    block[:3] = 36  # blocks out of order, one block never probed (0 .. 36 of 40)
    q_low = (block.astype(np.uint64) << np.uint64(58)) | rng.integers(0, 1 << 20, size=500, dtype=np.uint64)
    order = problem._probe_order(q_low, block, 40)
    assert sorted(order.tolist()) == list(range(500))
    np.testing.assert_array_equal(q_low[order], np.sort(q_low))
    # few probes a block: one sort of the keys with each probe's position in their
    # lowest 9 bits (2^9 >= 500): sorted but for those bits (a join's keys have their
    # offset bits at 0), and exactly sorted where the keys' low bits are 0
    monkeypatch.setattr(problem, "PACKED_PROBES", 1 << 10)
    order = problem._probe_order(q_low, block, 40)
    assert sorted(order.tolist()) == list(range(500))
    np.testing.assert_array_equal(q_low[order] >> np.uint64(9), np.sort(q_low >> np.uint64(9)))
    masked = q_low & ~np.uint64((1 << 9) - 1)
    np.testing.assert_array_equal(masked[problem._probe_order(masked, block, 40)], np.sort(masked))
    rows = rng.permutation(900)[:400].astype(np.int64)
    np.testing.assert_array_equal(problem._row_order(rows, 900), np.argsort(rows))
    rows[5] = rows[6]  # a repeated row
    np.testing.assert_array_equal(problem._row_order(rows, 900), np.argsort(rows))
    assert problem._row_order(np.zeros(0, np.int64), 3).tolist() == []


@pytest.mark.parametrize("small_rows", [0, 1 << 20])
@pytest.mark.parametrize("max_lengths", [2, 64])
def test_sort_blocks_is_a_global_sort(monkeypatch, small_rows, max_lengths):
    """Every way :func:`pair_index._sort_blocks` sorts blocks of unequal lengths (one
    by one in a small table, grouped by length, one global sort) gives ``np.sort``
    of keys whose top bits number the blocks."""
    from evalkit.engine import pair_index

    monkeypatch.setattr(pair_index, "SMALL_ROWS", small_rows)
    rng = np.random.default_rng(11)
    lengths = rng.integers(1, 9, size=40)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    block = np.repeat(np.arange(40, dtype=np.uint64), lengths)
    keys = (block << np.uint64(58)) | rng.integers(0, 1 << 58, size=int(lengths.sum()), dtype=np.uint64)
    expected = np.sort(keys)
    pair_index._sort_blocks(keys, starts, lengths, max_lengths)
    np.testing.assert_array_equal(keys, expected)


@pytest.mark.parametrize("layout", ["blocks", "shuffled_blocks", "ragged", "interleaved"])
@pytest.mark.parametrize("chunk", [None, 3])
def test_block_order_evaluation_equals_pytrec_eval_and_the_sorted_file(monkeypatch, layout, chunk):
    """:func:`evaluate` numbers the queries in the run's block order (the rows stay in
    file order: no layout permutation) when every query's rows are contiguous; the
    values come back in sorted qid order, bit for bit those of the same rows written
    in sorted qid order, and equal to pytrec_eval's per query. Interleaved queries
    take the sorted layout. ``chunk``: the tie refinement in chunks of that many
    positions."""
    import pytrec_eval
    from conftest import to_pytrec
    from evalkit.engine import ranking

    rng = np.random.default_rng(21)
    q_rows, r_rows = _random_data(rng)  # q0..q29 in numeric order: not strcmp order
    if layout == "shuffled_blocks":
        blocks = [r_rows[i: i + 40] for i in range(0, len(r_rows) - 1, 40)] + [r_rows[-1:]]
        r_rows = [r for b in rng.permutation(len(blocks)) for r in blocks[b]]
    else:
        r_rows = _laid_out(r_rows, layout, rng)
    qrels, run = Qrels.from_rows(q_rows), Run.from_rows(r_rows, name="r")
    problem = build_problem(qrels, run, block_order=True)
    assert (problem.sorted_queries is None) == (layout == "interleaved")
    if layout == "blocks":  # every run query is judged: the rows are used as they are
        assert problem.keys._line is None and problem.keys.score is run.score
    by_qid = sorted(r_rows, key=lambda r: r[0])  # stable: each query's rows keep their order
    want = evalkit.evaluate(qrels, Run.from_rows(by_qid, name="r"), FLAVOURS)
    if chunk is not None:
        monkeypatch.setattr(ranking, "_CHUNK", chunk)
    got = evalkit.evaluate(qrels, run, FLAVOURS)
    assert build_problem(qrels, Run.from_rows(by_qid), block_order=True).sorted_queries is None
    assert list(got.qids) == list(want.qids) == sorted({q for q, _, _ in q_rows})
    np.testing.assert_array_equal(got.values, want.values)
    ref = pytrec_eval.RelevanceEvaluator(*to_pytrec(qrels, Run.from_rows(r_rows))[:1], {"ndcg_cut.10"})
    ref = ref.evaluate(to_pytrec(qrels, run)[1])
    mine = got.per_query("r", got.flavours[0])
    assert set(mine) == set(ref)
    for q, v in ref.items():
        assert mine[q] == pytest.approx(v["ndcg_cut_10"], abs=1e-12), q


def test_block_order_negative_grade_error_names_the_first_in_qid_order():
    """Under ``negative=error`` the first negative judgment in sorted qid order is
    named, whatever the order of the run's blocks."""
    qrels = Qrels.from_rows([("b", "d1", -1), ("b", "d2", 1), ("a", "d1", -2), ("a", "d3", 1)])
    run = Run.from_rows([("b", "d1", 2.0), ("b", "d2", 1.0), ("a", "d3", 2.0), ("a", "d1", 1.0)])
    assert build_problem(qrels, run, block_order=True).sorted_queries is not None
    with pytest.raises(evalkit.errors.EvaluationError, match=r"grade -2 is negative.*query 'a', document 'd1'"):
        evalkit.evaluate(qrels, run, ["ndcg(negative=error)@10"])


# --------------------------------------------------------------------------- tie orders
def _keys(rng, layout):
    nq, n = 12, 300
    query = rng.integers(0, nq, n)
    score = np.round(rng.random(n), 1)
    docno = rng.permutation(n)
    grade = np.where(rng.random(n) < 0.3, np.nan, rng.integers(-1, 4, n).astype(float))
    if layout == "sorted":  # a TREC file: query blocks, scores descending
        order = np.lexsort((-score, query))
    elif layout == "blocks":  # query blocks in another order, scores descending
        perm = rng.permutation(nq)
        order = np.lexsort((-score, perm[query]))
    elif layout == "dense":  # query-sorted, scores unsorted, equal lengths
        query = np.repeat(np.arange(nq), n // nq)
        order = np.arange(n)
    elif layout in ("grid", "grid_sorted"):  # dense arrays: rows of equal length, docno = column
        width = n // nq
        query = np.repeat(np.arange(nq), width)
        if layout == "grid_sorted":
            score = -np.sort(-score.reshape(nq, width), axis=1).reshape(-1)
        return SortKeys(query=query, score=score, grade=grade, width=width)
    else:  # shuffled
        order = rng.permutation(n)
    line = np.arange(n)
    return SortKeys(query=query[order], score=score[order], docno=docno[order], line=line,
                    grade=grade[order])


@pytest.mark.parametrize("layout", ["sorted", "blocks", "dense", "grid", "grid_sorted", "shuffled"])
@pytest.mark.parametrize("chunk", [None, 1, 5])
def test_tie_policies_equal_their_lexsort_formulas(monkeypatch, layout, chunk):
    """Each policy against its ``np.lexsort`` formula; ``chunk``: the tie refinement in
    chunks of that many positions (cut only between tie blocks)."""
    from evalkit.builtins import ties
    from evalkit.engine import ranking

    if chunk is not None:
        monkeypatch.setattr(ranking, "_CHUNK", chunk)
    rng = np.random.default_rng(5)
    for _ in range(5):
        k = _keys(rng, layout)
        filled = np.where(np.isnan(k.grade) | (k.grade < 0), 0.0, k.grade)
        signed = np.where(np.isnan(k.grade), 0.0, k.grade)  # negative=gain: -1 ties below 0
        expected = {
            "trec_eval": np.lexsort((-k.docno, -k.score, k.query)),
            "stable": np.lexsort((k.line, -k.score, k.query)),
            "by_score": np.lexsort((k.line, -k.score, k.query)),
            "optimistic": np.lexsort((k.line, -filled, -k.score, k.query)),
            "pessimistic": np.lexsort((k.line, filled, -k.score, k.query)),
            "optimistic(negative=gain)": np.lexsort((k.line, -signed, -k.score, k.query)),
            "pessimistic(negative=gain)": np.lexsort((k.line, signed, -k.score, k.query)),
            "input_order": np.lexsort((k.line, k.query)),
        }
        # the two variants of a grade-reading policy differ on these keys (a tie between
        # a negative grade and 0 or an unjudged document occurs), so both are exercised
        assert not np.array_equal(expected["pessimistic"], expected["pessimistic(negative=gain)"])

        def policy(name, keys):
            base, _, arg = name.partition("(negative=")
            return getattr(ties, base)(keys, negative=arg[:-1]) if arg else getattr(ties, base)(keys)

        for name, want in expected.items():
            np.testing.assert_array_equal(policy(name, k), want, err_msg=f"{layout} {name}")
        # again, in the other order and with line=None (rows in input order): a policy
        # that refines the identity permutation in place leaves nothing changed behind
        k2 = SortKeys(query=k.query, score=k.score, docno=k.docno, grade=k.grade)
        for keys in (k, k2):
            held = keys.score_order()
            copy = held.copy()
            for name, want in reversed(expected.items()):
                np.testing.assert_array_equal(policy(name, keys), want, err_msg=f"{layout} {name}")
                np.testing.assert_array_equal(policy(name, keys), want, err_msg=f"{layout} {name}")
            np.testing.assert_array_equal(held, copy)


def test_grid_trec_eval_ties_by_column_without_docno_codes():
    """Dense arrays (``SortKeys(width=...)``): ``trec_eval`` breaks ties by the column
    index descending, read from the row number, the ``docno`` column never built."""
    from evalkit.builtins import ties

    rng = np.random.default_rng(8)
    nq, width = 40, 25
    score = np.round(rng.random(nq * width), 1)
    keys = SortKeys(query=np.repeat(np.arange(nq), width), score=score, grade=np.zeros(nq * width), width=width)
    column = np.tile(np.arange(width), nq)
    got = ties.trec_eval(keys)
    assert keys._docno is None
    np.testing.assert_array_equal(got, np.lexsort((-column, -score, np.repeat(np.arange(nq), width))))


@pytest.mark.parametrize("width", [1, 2, 7, 100, 300])
def test_row_sort_equals_numpy_stable_argsort(width):
    """The grid's row sort (a SIMD sort of score-and-column keys) against NumPy's
    stable argsort, on ties, -0.0 and 0.0, infinities, NaN, negative and huge scores,
    and scores one ulp apart (which share the keys' high bits: the timsort fallback)."""
    from evalkit.engine.ranking import _argsort_rows_descending

    rng = np.random.default_rng(width)
    shape = (3000 // width + 3, width)
    cases = [rng.random(shape), np.round(rng.random(shape), 1), rng.integers(-3, 3, shape) * 1.0,
             rng.normal(size=shape) * 1e300]
    signed = np.round(rng.random(shape), 1) - 0.5
    signed[signed == 0] = -0.0
    signed[rng.random(shape) < 0.05] = np.inf
    signed[rng.random(shape) < 0.05] = -np.inf
    near = np.choose(rng.integers(0, 3, shape), [1.0, np.nextafter(1.0, 2.0), np.nextafter(1.0, 0.0)])
    nan = rng.random(shape)
    nan[rng.random(shape) < 0.05] = np.nan
    for grid in cases + [signed, near, nan]:
        want = np.argsort(-grid, axis=1, kind="stable")
        np.testing.assert_array_equal(_argsort_rows_descending(grid), want)
        start = np.arange(len(grid)) * width
        np.testing.assert_array_equal(_argsort_rows_descending(grid, start), want + start[:, None])


def test_tie_blocks_at_positions_equal_the_block_column():
    """``RankedList.block_end`` and ``block_at`` (the scores near rank k only) against
    the whole ``block`` column, on a run and on dense arrays, float64 and float32
    tie blocks."""
    from evalkit.engine.ranking import RankedList

    rng = np.random.default_rng(21)
    nq, width = 30, 40
    query = np.repeat(np.arange(nq), width)
    for score in (np.round(rng.random(nq * width), 1), rng.integers(0, 2, nq * width) * 1.0,
                  np.where(rng.random(nq * width) < 0.5, 0.5, 0.5 + 1e-9)):
        keys = SortKeys(query=query, score=score, grade=np.zeros(len(score)), width=width)
        order = keys.score_order()
        offsets = keys.query_offsets(nq)
        for block_score in (None, score[order].astype(np.float32).astype(np.float64)):
            def fresh():
                return RankedList(offsets=offsets, query=query, rank=None, grade=None, docno=None, averaged=True,
                                  score=block_score, source=lambda: (keys, order))
            full = fresh().block
            for k in (1, 3, 10, width):
                pos = offsets[:-1] + k - 1
                np.testing.assert_array_equal(fresh().block_end(pos), np.searchsorted(full, full[pos], "right"))
                take = np.minimum(k + rng.integers(0, 5, nq), width)
                idx = np.concatenate([np.arange(a, a + t) for a, t in zip(offsets[:-1], take)])
                got = fresh().block_at(idx, query[idx], runs=True)
                want = full[idx]
                # the same partition of the positions into blocks
                np.testing.assert_array_equal(np.diff(got) != 0, np.diff(want) != 0)


@pytest.mark.parametrize("negative", [False, True])
def test_ideal_rankings_equal_the_lexsort_formula(negative):
    """``ideal_dcg``'s 2-D paths (equal segments sorted by rows, kept to the cutoff;
    other segments padded with -inf) against the sorted gains of ``np.lexsort`` summed
    in rank order, bit for bit; a larger cutoff after a smaller one from the cache."""
    from evalkit.kernel import ideal_dcg

    rng = np.random.default_rng(2)

    def disc(rank):
        return 1.0 / np.log2(rank + 1.0)

    def reference(gains, offsets, k):
        seg = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        keep = np.ones(len(gains), bool) if negative else gains > 0
        g, s = gains[keep], seg[keep]
        order = np.lexsort((-g, s))
        g, s = g[order], s[order]
        rank = np.arange(len(g)) - np.searchsorted(s, s) + 1
        ok = rank <= (k or len(g))
        return np.bincount(s[ok], weights=g[ok] * disc(rank[ok]), minlength=len(offsets) - 1)

    equal = np.arange(0, 50 * 20 + 1, 20)
    ragged = np.concatenate(([0], np.cumsum(rng.integers(0, 30, 50))))
    long_one = np.array([0, 3, 3, 2000, 2004])  # one long segment: np.lexsort
    for offsets in (equal, ragged, long_one):
        gains = rng.integers(-2, 4, offsets[-1]) * 1.0 if negative else rng.integers(0, 4, offsets[-1]) * 1.5
        cache = {}
        for k in (3, 10, None, 1):
            got = ideal_dcg(gains, offsets, disc, k, cache=cache, negative=negative)
            np.testing.assert_array_equal(got, reference(gains, offsets, k))


def test_trec_eval_ties_read_docno_strings_of_tied_rows_only():
    run = Run.from_rows([("1", "b", 1.0), ("1", "a", 1.0), ("1", "c", 2.0), ("1", "ab", 1.0)])
    qrels = Qrels.from_rows([("1", "a", 1)])
    res = evalkit.evaluate(qrels, run, "dcg(ties=trec_eval)")
    # order: c (2.0), then ties by docno descending: b, ab, a -> a at rank 4
    assert res.values[0, 0, 0] == pytest.approx(1 / np.log2(5))
    problem = build_problem(qrels, run)
    assert problem.keys._docno is None  # codes never built for that


# --------------------------------------------------------------------------- kernels
def test_shared_top_k_kernels_equal_full_computation():
    rng = np.random.default_rng(13)
    q_rows, r_rows = _random_data(rng, n_queries=25, depth=60)
    qrels, run = Qrels.from_rows(q_rows), Run.from_rows(r_rows)
    registry = evalkit.default_registry()
    for spec in ["ndcg(gain=exp2,ties=trec_eval)@10", "ndcg(ties=average)@7", "ndcg(ties=average,idcg=returned)@1",
                 "ndcg(gain=map(1=1,2=3,3=7),discount=jarvelin(base=2),idcg=returned)@100", "ndcg(ties=average)",
                 "dcg(discount=reciprocal,ties=stable)@3"]:
        fl = evalkit.expand_spec(spec, registry)[0]
        res = resolve(fl, registry)
        problem = build_problem(qrels, run)
        ranked = problem.ranked(res.ties, res.ties_kw)

        def inp(shared):
            return MetricInput(ranked=ranked, judged_grade=problem.judged_grade,
                               judged_offsets=problem.judged_offsets, k=fl.k, gain=res.gain,
                               discount=res.discount, idcg=res.idcg,
                               _shared=shared, _gain_key=fl.gain if shared is not None else None,
                               _discount_key=fl.discount if shared is not None else None)

        plain, fast = inp(None), inp(problem._cache)
        # the reference: every position, no cache
        w = plain.position_weights(plain.discount(ranked.rank))
        reference_dcg = plain.per_query(plain.ranked_gain() * w)
        np.testing.assert_allclose(fast.dcg(), reference_dcg, rtol=0, atol=1e-12)
        if res.idcg is not None:
            np.testing.assert_allclose(fast.ideal(), plain.ideal(), rtol=0, atol=1e-12)
        # and again, from the warm cache
        np.testing.assert_allclose(inp(problem._cache).dcg(), reference_dcg, rtol=0, atol=1e-12)


def test_isin_ids_against_python_membership():
    """The hash-set membership that replaced ``np.isin`` on object query-id arrays
    (quadratic there): every id checked against Python's ``in`` on a list."""
    from evalkit.columnar import isin_ids

    rng = np.random.default_rng(7)
    values = np.array([f"q{i}" for i in rng.integers(0, 400, 1000)], dtype=object)
    ids = np.array([f"q{i}" for i in rng.integers(0, 400, 150)] + ["", "q 1"], dtype=object)
    expected = np.array([v in list(ids) for v in values], dtype=bool)
    got = isin_ids(values, ids)
    assert got.dtype == bool and got.shape == values.shape
    assert np.array_equal(got, expected) and 0 < got.sum() < len(values)
    assert not isin_ids(np.array([], dtype=object), ids).size
    assert not isin_ids(values, []).any()


def _with_comments(kind: str, n: int) -> str:
    """A canonical run or qrels of ``n`` lines with comment lines at its start, in its
    middle (one holding UTF-8 and a '#' in a field) and as its last line (no newline)."""
    row = (lambda i: f"q{i % 37} Q0 d{i} {i % 50 + 1} {(i * 7919) % 1000 / 8} r{i % 3}\n") if kind == "run" else \
          (lambda i: f"q{i % 37} 0 d{i} {i % 4}\n")
    lines = ["# written by a tool 'x' (évaluation)\n", "#\n"]
    for i in range(n):
        lines.append(row(i))
        if i in (10, n // 2):
            lines.append(f"# checkpoint {i}: a#b q Q0 d 1 2 r\n")
    return "".join(lines) + "# end"


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_comment_lines_keep_the_fast_reader(monkeypatch, tmp_path, kind):
    """Issue 25: one comment line in a 10 M-line run sent the whole file to the
    line-by-line reader (98 s and 10.9 GB instead of 7.6 s). The comment lines are
    removed and the rest read by Arrow: the exact reader is never called, and the values
    and line numbers are the exact reader's."""
    reader = evalkit.read_run if kind == "run" else evalkit.read_qrels
    text = _with_comments(kind, 3000)
    path = tmp_path / "input.txt"
    path.write_text(text, encoding="utf-8")
    gz = tmp_path / "input.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    with monkeypatch.context() as m:
        _slow(m)
        exact = _cols(reader(path))
    assert exact[2][:3] == [3, 4, 5] and len(exact[0]) == 3000  # comment lines skipped, line numbers kept

    def no_exact_reader(*args, **kwargs):
        raise AssertionError("the line-by-line reader ran")

    with monkeypatch.context() as m:
        m.setattr(trec, "FAST_MIN_BYTES", 1 << 14)
        m.setattr(trec, "BLOCK_SIZE", 1 << 14)  # several Arrow blocks
        m.setattr(trec, "_CHUNK", 1 << 12)      # the comment found in a later scan chunk
        m.setattr(trec, "_split", no_exact_reader)
        assert path.stat().st_size > 2 * (1 << 14)
        for source in (path, gz):
            assert _cols(reader(source)) == exact


def test_a_comment_the_exact_reader_refuses_is_still_refused(monkeypatch, tmp_path):
    """A comment line holding a control character (refused anywhere in a file) sends
    the file to the exact reader, which names the line, as without comments removed."""
    text = _with_comments("run", 3000).replace("# checkpoint 10:", "# check\x07point 10:")
    path = tmp_path / "input.txt"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(trec, "FAST_MIN_BYTES", 1 << 14)
    with pytest.raises(InputFormatError, match=r"input.txt:14: .*U\+0007"):
        evalkit.read_run(path)


@pytest.mark.parametrize("window", [0, 32])
@pytest.mark.parametrize("chunk", [1, 3, 64, 1 << 16])
def test_gather_bytes_in_chunks_equals_the_joined_ranges(monkeypatch, chunk, window):
    """:func:`evalkit.engine.factorize.gather_bytes` (the readers' docno column) gathers
    in steps of ``_GATHER_CHUNK`` output bytes, or short ranges as fixed-width windows
    (``_WINDOW_MAX``; 0 turns that off): any step size, empty ranges and ranges
    longer than a step give the ranges' bytes end to end and their offsets."""
    monkeypatch.setattr(fz, "_GATHER_CHUNK", chunk)
    monkeypatch.setattr(fz, "_WINDOW_MAX", window)
    rng = np.random.default_rng(chunk)
    for _ in range(300):
        data = rng.integers(0, 256, size=int(rng.integers(1, 300))).astype(np.uint8)
        n = int(rng.integers(0, 40))
        length = rng.integers(0, 12, size=n) * (rng.random(n) < 0.8)
        start = rng.integers(0, len(data), size=n).astype(np.int64)
        length = np.minimum(length, len(data) - start).astype(np.int64)
        offsets, out = fz.gather_bytes(data, start, length)
        assert out.tobytes() == b"".join(data[a: a + k].tobytes() for a, k in zip(start, length))
        assert offsets.tolist() == [0, *np.cumsum(length).tolist()]


@pytest.mark.parametrize("steps", [0, 1, 4])
def test_join_range_ends_equal_searchsorted(monkeypatch, steps):
    """The join's range ends stepped forward from each range's start
    (:func:`problem._right_of`, searching after ``RIGHT_STEPS`` steps) are
    ``searchsorted(keys, right, "right")``: empty ranges, ranges of several equal keys
    (a collision, a pair given twice), ranges at the end of the keys."""
    from evalkit.engine import problem

    monkeypatch.setattr(problem, "RIGHT_STEPS", steps)
    rng = np.random.default_rng(5)
    keys = np.sort(rng.integers(0, 40, size=120).astype(np.uint64))
    left = rng.integers(0, 44, size=300).astype(np.uint64)
    right = left + rng.integers(0, 5, size=300).astype(np.uint64)
    lo = np.searchsorted(keys, left, "left")
    np.testing.assert_array_equal(problem._right_of(keys, lo, right), np.searchsorted(keys, right, "right"))
    lo, hi = problem._search_both(keys, left, right)
    np.testing.assert_array_equal(hi - lo, np.searchsorted(keys, right, "right") - np.searchsorted(keys, left))
