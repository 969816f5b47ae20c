"""Inputs that still broke (issue 25): a catastrophic ``name_pattern``, YAML 1.1 octal
cutoffs, a lone surrogate in a run name; and classes guarded at the root (the install
hint names the distribution)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

import evalkit
from evalkit.errors import EvalkitError
from evalkit.runner.config import load_config


def _config(tmp_path, text: str) -> Path:
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    (data / "qrels.txt").write_text("1 0 a 1\n1 0 b 2\n")
    name = "input." + "a" * 60 + "!.run"
    (data / name).write_text("1 Q0 a 1 5 r\n1 Q0 b 2 4 r\n")
    (data / "plain.run").write_text("1 Q0 a 1 5 r\n1 Q0 b 2 4 r\n")
    path = tmp_path / "c.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def test_catastrophic_name_pattern_is_stopped(tmp_path, registry):
    """((?:a|aa)+)$ on 60 a's and a '!' backtracks Fibonacci(60) times; the bound stops it."""
    path = _config(tmp_path, r"""
        qrels: data/qrels.txt
        runs:
          - glob: data/input.*.run
            name_pattern: '((?:a|aa)+)$'
        flavours: {a: ndcg}
    """)
    with pytest.raises(EvalkitError, match=r"name_pattern.*took more than 1 s"):
        load_config(path, registry=registry)


def test_name_pattern_still_names_runs(tmp_path, registry):
    path = _config(tmp_path, r"""
        qrels: data/qrels.txt
        runs:
          - glob: data/input.*.run
            name_pattern: 'input\.(a{3})'
        flavours: {a: ndcg}
    """)
    assert load_config(path, registry=registry).run_names == ("aaa",)


def test_install_hints_name_the_distribution():
    """The distribution is evalkit-ndcg (the name evalkit on PyPI is another project):
    no message or docstring of the package says pip install "evalkit[...]"."""
    root = Path(evalkit.__file__).parent
    bad = [f"{p.relative_to(root)}:{i}" for p in root.rglob("*.py")
           for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
           if re.search(r"""pip install ['"]?evalkit\[""", line)]
    assert not bad, bad


@pytest.mark.parametrize("value, shown", [("[05, 010]", "05 is an octal number in YAML 1.1"),
                                          ("[5, 010]", "010 is an octal number in YAML 1.1 (010 = 8)")])
def test_yaml_11_octal_cutoffs_refused(tmp_path, registry, value, shown):
    path = _config(tmp_path, f"""
        qrels: data/qrels.txt
        runs: [{{path: data/plain.run}}]
        flavours: {{a: ndcg}}
        cutoffs: {value}
    """)
    with pytest.raises(EvalkitError, match=re.escape(shown)):
        load_config(path, registry=registry)
    quoted = _config(tmp_path, """
        qrels: data/qrels.txt
        runs: [{path: data/plain.run}]
        flavours: {a: ndcg}
        cutoffs: [5, 10]
    """)
    assert load_config(quoted, registry=registry)


def test_lone_surrogate_in_a_run_name_is_exit_2(tmp_path, capsys):
    from evalkit.cli import main

    path = _config(tmp_path, r"""
        qrels: data/qrels.txt
        runs: [{path: data/plain.run, name: "bad\ud800name"}]
        flavours: {a: ndcg}
    """)
    assert main(["run", str(path), "--no-sensitivity"]) == 2
    err = capsys.readouterr().err
    assert "lone surrogate U+D800" in err and "internal error" not in err


def test_error_messages_escape_terminal_controls(tmp_path, capsys):
    """A file name with ESC sequences and U+202E is echoed as visible escapes."""
    from evalkit.cli import main

    name = tmp_path / "bad\x1b[2J\u202eqrels"
    name.write_text("1 0 a x\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 5 r\n")
    assert main(["eval", str(name), str(run), "-m", "ndcg"]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\u202e" not in err
    assert "bad\\x1b[2J\\u202eqrels:1: field 'grade'" in err


def test_csv_cells_hold_no_escape_or_bell():
    from evalkit.report.escape import csv_cell

    assert csv_cell("run\x1b]0;pwned\x07\u202e") == "run\\x1b]0;pwned\\x07\\u202e"
    assert csv_cell("a\tb\nc") == "a\tb\nc"  # csv quotes these


@pytest.mark.parametrize("command", [["plugins"], ["flavours"], ["flavours", "ranx.*"]])
@pytest.mark.parametrize("columns", [80, 120])
def test_listings_fit_the_terminal_width(capsys, monkeypatch, command, columns):
    """Issue 25: `plugins` printed lines of 319 characters, `flavours` up to 920,
    whatever COLUMNS said."""
    from evalkit.cli import main

    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(command) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= columns


def test_run_legend_breaks_flavours_only_between_parameters():
    """Issue 25: at 80 columns the `evalkit run` legend broke tokens mid-word
    (``trec_ev`` / ``al``). The canonical forms are folded after ',' or '(' only."""
    from evalkit import Results, parse_flavour
    from evalkit.report import Report
    from evalkit.report.text import flavour_legend

    import numpy as np

    fl = parse_flavour("ndcg(gain=map(1=3,2=9),discount=jarvelin(base=3),idcg=returned,ties=trec_eval(score=float32),"
                       "empty=one,missing=zero)@10")
    res = Results(np.array(["q1"], dtype=object), ("a", "b"), (fl,), ("a_rather_long_flavour_label",),
                  np.array([[[0.5]], [[0.4]]]))
    text = flavour_legend(Report(res), width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    canonical = str(fl)
    pieces = [line.split(None, 1)[-1] if i > 1 and line.startswith("a_rather") else line.strip()
              for i, line in enumerate(text.splitlines()[2:], 2)]
    joined = "".join(p.replace("a_rather_long_flavour_label", "").strip() for p in pieces)
    assert joined == canonical  # nothing lost
    cells = [p.replace("a_rather_long_flavour_label", "").strip() for p in pieces]
    assert len(cells) > 1 and all(c.endswith((",", "(")) for c in cells[:-1])  # no token split


def test_explain_prints_a_bounded_table_by_default(tmp_path, capsys):
    """Issue 25: explain without --rows printed every rank of a 2 M-document query (3 min,
    5.2 GB). By default it prints the first DEFAULT_ROWS; the totals cover the whole list."""
    from evalkit.cli import main
    from evalkit.cli.explain import DEFAULT_ROWS

    n = DEFAULT_ROWS + 500
    (tmp_path / "qrels").write_text("q 0 d0 1\n")
    (tmp_path / "run").write_text("".join(f"q Q0 d{i} {i + 1} {n - i} r\n" for i in range(n)))
    assert main(["explain", str(tmp_path / "qrels"), str(tmp_path / "run"), "--query", "q", "-m", "ndcg"]) == 0
    out = capsys.readouterr().out
    assert "... 500 more rows (totals cover all; --rows N prints more)" in out
    assert f"\n{n:>5} " not in out and "NDCG = DCG/IDCG = 1.0000" in out


def test_gzip_bomb_is_refused_with_the_setting_named(tmp_path, monkeypatch, capsys):
    """Issue 25: a 3 MB gzip of 3 GB of newlines was decompressed whole (MemoryError).
    Here 8 MB of newlines (8 KB compressed) against a lowered floor: the output stops
    at 200 times the compressed size, with an error naming the file and the setting."""
    import gzip

    from evalkit.cli import main
    from evalkit.io import trec

    bomb = gzip.compress(b"\n" * (8 << 20), compresslevel=9)
    assert len(bomb) * 200 < 8 << 20
    qrels = tmp_path / "qrels.gz"
    qrels.write_bytes(bomb)
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 5 r\n")
    monkeypatch.setattr(trec, "GUNZIP_MIN_BYTES", 1 << 18)
    monkeypatch.setattr(trec, "_GUNZIP_PIECE", 1 << 16)
    with pytest.raises(EvalkitError, match=r"qrels.gz: gzip data expands to more than [\d,]+ bytes \(200 times"):
        evalkit.read_qrels(qrels)
    assert main(["eval", str(qrels), str(run), "-m", "ndcg"]) == 2
    assert "EVALKIT_GUNZIP_MAX_RATIO" in capsys.readouterr().err
    monkeypatch.setenv("EVALKIT_GUNZIP_MAX_RATIO", "100000")  # the user's override reads it (all blank lines)
    assert len(evalkit.read_qrels(qrels).qid) == 0
    # a multi-member gzip with zero padding still reads whole, as gzip.decompress does
    parts = tmp_path / "parts.gz"
    parts.write_bytes(gzip.compress(b"1 0 a 1\n") + gzip.compress(b"2 0 b 2\n") + b"\0\0")
    assert evalkit.read_qrels(parts).qid.tolist() == ["1", "2"]


def test_explain_builds_only_the_rows_it_prints(tmp_path):
    """The 2 M-document case: explain_query(max_rows=N) builds N rows (not one Python
    object per rank), each equal to the full table's row, the running DCG/IDCG included
    (cumulative sums over the query), and n_rows counts the whole table."""
    from evalkit import read_qrels, read_run
    from evalkit.explain import explain_query

    n = 3000
    rng = __import__("numpy").random.default_rng(4)
    grades = rng.integers(0, 4, size=n)
    (tmp_path / "qrels").write_text("".join(f"q 0 d{i} {g}\n" for i, g in enumerate(grades) if i % 3))
    scores = rng.integers(0, 200, size=n)  # many ties
    (tmp_path / "run").write_text("".join(f"q Q0 d{i} 1 {s} r\n" for i, s in enumerate(scores)))
    qrels, run = read_qrels(tmp_path / "qrels"), read_run(tmp_path / "run")
    for spec in ("ndcg(gain=exp2,ties=average)", "trec_eval.ndcg_cut@100", "ndcg(idcg=judged)"):
        full = explain_query(qrels, run, "q", parse_or_resolve(spec))
        part = explain_query(qrels, run, "q", parse_or_resolve(spec), max_rows=25)
        assert len(part.rows) == 25 and part.n_rows == full.n_rows == len(full.rows) > 25
        assert [repr(r) for r in part.rows] == [repr(r) for r in full.rows[:25]]  # repr: NaN grades
        running = running_ideal = 0.0  # a running Python sum, as the table was built before
        for r in full.rows:
            if r.contribution is not None:
                running += r.contribution
                assert r.running_dcg == running
            if r.ideal_contribution is not None:
                running_ideal += r.ideal_gain * r.ideal_discount
                assert r.running_idcg == running_ideal and r.ideal_contribution == r.ideal_gain * r.ideal_discount
        assert (part.dcg, part.idcg, part.value) == (full.dcg, full.idcg, full.value)


def parse_or_resolve(spec: str):
    from evalkit.resolve import resolve_flavour

    return resolve_flavour(spec)


@pytest.mark.parametrize("columns", [80, 120])
def test_explain_fits_the_terminal_width(tmp_path, capsys, monkeypatch, columns):
    """Issue 25: explain printed 160 columns whatever COLUMNS said. Wider tables are
    split into blocks of columns (the rank repeated); long docnos are wrapped."""
    from evalkit.cli import main

    long_docno = "msmarco_v2.1_doc_00_880019750#4_1633802806"
    (tmp_path / "qrels").write_text(f"q 0 {long_docno} 2\nq 0 b 1\n")
    (tmp_path / "run").write_text(f"q Q0 {long_docno} 1 5 r\nq Q0 b 2 4 r\nq Q0 c 3 3 r\n")
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(["explain", str(tmp_path / "qrels"), str(tmp_path / "run"), "--query", "q",
                 "-m", "ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval)@10"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= columns
    assert long_docno in out and "IDCG" in out and "ideal gain x disc" in out
