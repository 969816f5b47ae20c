"""The bad-input corpus of ``tests/bad_inputs.py`` through the command line (in
process, and ``python -m evalkit`` in a subprocess for standard input, FIFOs and
process substitution) and the Python API; plus the Python API's own bad arguments.

Every expected value is worked out by hand in ``bad_inputs.py``; every expected
error must be an :class:`evalkit.EvalkitError` (or ``OSError`` for a missing file)
whose message names the file, the line and the field or the flavour.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import evalkit
from evalkit import EvalkitError, Qrels, Run
from evalkit.cli import main

from bad_inputs import PERFECT, QRELS, SWAPPED, SWAPPED_VALUE, Case, config_cases, cases

REPO = Path(__file__).resolve().parent.parent
CASES = cases()


def _write(directory: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_cli(case: Case, tmp_path, capsys):
    _write(tmp_path, case.files)
    code = main(["eval", str(tmp_path / case.qrels), str(tmp_path / case.run), "-m", case.measure,
                 "--no-plugins", "--format", "tsv", *case.extra])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if isinstance(case.expect, float):
        assert code == 0, err
        value = float(out.split()[-1])  # tsv: measure, "all", value
        assert value == pytest.approx(case.expect, abs=1e-4)
    else:
        assert code == 2, out
        assert err.startswith("evalkit: error:") or "evalkit eval: error:" in err, err
        for part in case.expect:
            assert part in err, f"{part!r} not in {err!r}"


@pytest.mark.parametrize("case", [c for c in CASES if c.api], ids=[c.name for c in CASES if c.api])
def test_api(case: Case, tmp_path, registry):
    _write(tmp_path, case.files)

    def compute():
        qrels = evalkit.read_qrels(tmp_path / case.qrels)
        run = evalkit.read_run(tmp_path / case.run)
        from evalkit.engine.checks import require_common_queries

        require_common_queries(qrels, [run])
        res = evalkit.evaluate(qrels, run, case.measure, registry=registry)
        return res.mean(res.systems[0], res.flavours[0])

    if isinstance(case.expect, float):
        assert compute() == pytest.approx(case.expect, abs=1e-12)
    else:
        with pytest.raises((EvalkitError, OSError)) as info:
            compute()
        for part in case.expect:
            assert part in str(info.value), f"{part!r} not in {str(info.value)!r}"


# --------------------------------------------------------------------------- configs
CONFIGS = config_cases()


@pytest.mark.parametrize("case", CONFIGS, ids=[c.name for c in CONFIGS])
def test_config_cases(case, tmp_path, capsys, registry):
    _write(tmp_path, {"data/qrels.txt": QRELS.encode(), "data/a.run": SWAPPED.encode(),
                      "data/other.run": SWAPPED.replace("q1", "q9").encode()})
    path = tmp_path / "c.yaml"
    path.write_text(case.yaml)
    code = main(["run", str(path), "--no-plugins", "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in err, err
    for part in case.expect:
        assert part in err, f"{part!r} not in {err!r}"
    with pytest.raises(EvalkitError) as info:
        evalkit.run_config(path, registry=registry)
    for part in case.expect:
        assert part in str(info.value)


def test_config_glob_inside_and_fifo_run(tmp_path, registry):
    """A glob inside the config's tree works; a FIFO as a run path is read once."""
    _write(tmp_path, {"data/qrels.txt": QRELS.encode(), "data/sub/a.run": SWAPPED.encode()})
    fifo = tmp_path / "data" / "b.fifo"
    os.mkfifo(fifo)
    (tmp_path / "c.yaml").write_text(
        "qrels: data/qrels.txt\nruns:\n  - glob: 'data/**/*.run'\n  - {name: fifo, path: data/b.fifo}\n"
        "flavours: {a: ndcg}\n")
    import threading

    writer = threading.Thread(target=lambda: fifo.write_text(PERFECT))
    writer.start()
    try:
        report = evalkit.run_config(tmp_path / "c.yaml", registry=registry)
    finally:
        writer.join(5)
    res = report.results
    assert res.systems == ("a.run", "fifo")
    assert res.mean("a.run", res.flavours[0]) == pytest.approx(SWAPPED_VALUE, abs=1e-12)
    assert res.mean("fifo", res.flavours[0]) == 1.0


# --------------------------------------------------------------------------- stdin, FIFO, pipes
def _python_m(args, tmp_path, **kw):
    env = dict(os.environ, PYTHONPATH=str(REPO), EVALKIT_DISABLE_PLUGINS="1")
    return subprocess.run([sys.executable, "-m", "evalkit", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, **kw)


@pytest.fixture
def qrels_file(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    return tmp_path / "qrels.txt"


def test_run_from_standard_input_dash(tmp_path, qrels_file):
    proc = _python_m(["eval", str(qrels_file), "-", "-m", "ndcg", "--format", "tsv"], tmp_path, input=SWAPPED)
    assert proc.returncode == 0, proc.stderr
    assert float(proc.stdout.split()[-1]) == pytest.approx(SWAPPED_VALUE, abs=1e-4)


def test_run_from_dev_stdin_pipe(tmp_path, qrels_file):
    proc = _python_m(["eval", str(qrels_file), "/dev/stdin", "-m", "ndcg", "--format", "tsv"], tmp_path,
                     input="\ufeff" + SWAPPED)
    assert proc.returncode == 0, proc.stderr
    assert float(proc.stdout.split()[-1]) == pytest.approx(SWAPPED_VALUE, abs=1e-4)


def test_run_from_process_substitution(tmp_path, qrels_file):
    (tmp_path / "run.txt").write_text(SWAPPED)
    script = (f"PYTHONPATH={REPO} {sys.executable} -m evalkit eval {qrels_file} <(cat {tmp_path / 'run.txt'}) "
              "-m ndcg --format tsv --no-plugins")
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert float(proc.stdout.split()[-1]) == pytest.approx(SWAPPED_VALUE, abs=1e-4)


def test_run_from_fifo_opened_once(tmp_path, qrels_file):
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    proc = subprocess.Popen([sys.executable, "-m", "evalkit", "eval", str(qrels_file), str(fifo), "-m", "ndcg",
                             "--format", "tsv"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ, PYTHONPATH=str(REPO), EVALKIT_DISABLE_PLUGINS="1"))
    with open(fifo, "w") as f:  # one writer: a second open by the reader would block forever
        f.write(SWAPPED)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert float(out.split()[-1]) == pytest.approx(SWAPPED_VALUE, abs=1e-4)


def test_empty_standard_input_is_an_error(tmp_path, qrels_file):
    proc = _python_m(["eval", str(qrels_file), "-", "-m", "ndcg"], tmp_path, input="")
    assert proc.returncode == 2
    assert "<stdin>" in proc.stderr and "no result" in proc.stderr and "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- Python API arguments
@pytest.mark.parametrize("rows, expect", [
    ([("q1", "d1", 1.5)], ("grade", "1.5", "integer")),
    ([("q1", "d1", "2")], ("grade", "str", "'2'")),
    ([("q1", "d1", True)], ("grade", "bool")),
    ([("q1", "d1", None)], ("grade", "NoneType")),
    ([("q1", "d1", 1 + 2j)], ("grade", "complex")),
    ([("q1", "d1", float("nan"))], ("grade", "finite")),
    ([("q1", "d1")], ("row 1", "(qid, docno, grade)")),
    ([(1.5, "d1", 1)], ("row 1", "field 1")),
    (5, ("int",)),
    ("q1 0 d1 1", ("str",)),
    ({"q1": [("d1", 1)]}, ("rows['q1']",)),
    ([("q\t1", "d1", 1)], ("field 'qid'", "U+0009")),
    ({"q1": {"d\x001": 1}}, ("field 'docno'", "U+0000")),
    ([("q1", "", 1)], ("field 'docno'", "is empty")),
])
def test_qrels_from_rows_refuses(rows, expect):
    with pytest.raises(EvalkitError) as info:
        Qrels.from_rows(rows)
    for part in expect:
        assert part in str(info.value), str(info.value)


def test_qrels_from_rows_accepts_integers_of_any_kind():
    q = Qrels.from_rows([("q1", "d1", np.int64(2)), ("q1", "d2", 3.0), ("q1", "d3", np.uint8(1)), (7, "d4", 0)])
    assert q.grade.tolist() == [2.0, 3.0, 1.0, 0.0] and q.qid.tolist() == ["q1", "q1", "q1", "7"]


@pytest.mark.parametrize("call, expect", [
    (lambda: Run.from_columns(["q1", "q1"], [None, "d2"], [1.0, 2.0]), "field 'docno': row 1: missing value (None)"),
    (lambda: Run.from_columns(["q1", float("nan")], ["d1", "d2"], [1.0, 2.0]), "field 'qid': row 2: missing value (nan)"),
    (lambda: Qrels.from_columns(["q1", "q1"], np.array(["d1", np.nan], dtype=object), [1, 0]),
     "field 'docno': row 2: missing value (nan)"),
    (lambda: Run.from_columns(__import__("pandas").Series(["q1", None], index=[7, 0]), ["d1", "d2"], [1.0, 2.0]),
     "field 'qid': row 2: missing value (None)"),
    (lambda: evalkit.SubtopicQrels.from_columns(["1"], [None], ["d1"], [1]), "field 'subtopic': row 1: missing"),
])
def test_from_columns_refuses_missing_ids(call, expect):
    """A missing id (None, NaN, pandas NA) was kept as the text 'None' / 'nan': a document
    or query of that name, scored silently. It is refused, as from_df and from_rows do."""
    with pytest.raises(evalkit.errors.InputFormatError) as info:
        call()
    assert expect in str(info.value)


def test_from_columns_keeps_ids_that_only_read_like_missing_values():
    run = Run.from_columns(["None", "nan"], ["NaT", "<NA>"], [1.0, 2.0])
    assert run.qid.tolist() == ["None", "nan"] and run.docno.tolist() == ["NaT", "<NA>"]


@pytest.mark.parametrize("call, expect", [
    (lambda: evalkit.evaluate("qrels.txt", Run.from_rows([("q", "d", 1.0)]), "ndcg"), "qrels must be a Qrels"),
    (lambda: evalkit.evaluate(Qrels.from_rows([("q", "d", 1)]), "run.txt", "ndcg"), "runs must be a Run"),
    (lambda: evalkit.evaluate(Qrels.from_rows([("q", "d", 1)]), [None], "ndcg"), "runs[0] must be a Run"),
    (lambda: evalkit.evaluate(Qrels.from_rows([("q", "d", 1)]), Run.from_rows([("q", "d", 1.0)]), 5),
     "flavour"),
    (lambda: evalkit.read_qrels(5), "expected a path"),
    (lambda: evalkit.read_run(b"q1 Q0 d 1 1 s\n"), "not bytes"),
    (lambda: evalkit.parse_flavour(None), "non-empty string"),
])
def test_python_api_wrong_types_are_evalkit_errors(call, expect):
    with pytest.raises(EvalkitError) as info:
        call()
    assert expect in str(info.value)


def test_evaluate_warns_when_nothing_is_evaluated():
    qrels = Qrels.from_rows([("q1", "d1", 1)])
    run = Run.from_rows([("q9", "d1", 1.0)])
    with pytest.warns(evalkit.EmptyEvaluationWarning, match="shares no query"):
        res = evalkit.evaluate(qrels, run, "ndcg(missing=zero)")
    assert res.mean("run", res.flavours[0]) == 0.0  # trec_eval -c: the query scores 0


# --------------------------------------------------------------------------- arrays.score
@pytest.mark.parametrize("y_true, expect", [
    ([[1, 2j]], "complex"),
    ([["a", "b"]], "dtype <U1"),
    ([[1, np.inf]], "infinite"),
    (np.ma.array([[1, 2]], mask=[[0, 1]]), "masked"),
    ([[1, 2], [3]], "rectangular"),
    ([[object(), 1]], "not real numbers"),
])
def test_arrays_score_refuses(y_true, expect):
    import evalkit.arrays as ea

    with pytest.raises(evalkit.errors.ArgumentError, match=expect):
        ea.score(y_true, [[0.5, 0.2]])


def test_arrays_score_cutoff_and_overflow_named():
    import evalkit.arrays as ea

    with pytest.raises(evalkit.FlavourError, match="2147483647"):
        ea.score([[1, 0]], [[1, 2]], k=99999999999999999999999)
    with pytest.raises(evalkit.errors.ArgumentError, match="k must be an integer"):
        ea.score([[1, 0]], [[1, 2]], k=2.5)
    with pytest.raises(EvalkitError, match=r"query row 0, document column 1: y_true\[0, 1\] = 1024"):
        ea.score([[0, 1024]], [[1, 2]], flavour="ndcg(gain=exp2)")
    # 1023 is the largest grade whose 2^g - 1 is finite: a perfect ranking still scores 1
    assert ea.score([[0, 1023]], [[1, 2]], flavour="ndcg(gain=exp2)")[0] == 1.0


def test_sum_overflow_is_an_error_naming_the_query():
    """Finite gains whose DCG sum overflows float64 (two grades of 1e308)."""
    qrels = Qrels.from_rows([("q1", "d1", 1.5e308), ("q1", "d2", 1.5e308)])
    run = Run.from_rows([("q1", "d1", 2.0), ("q1", "d2", 1.0)])
    with pytest.raises(evalkit.EvaluationError, match="query 'q1'.*not a finite number"):
        evalkit.evaluate(qrels, run, "ndcg(discount=none)")
    with pytest.raises(evalkit.EvaluationError, match="query 'q1'.*not a finite number"):
        evalkit.evaluate(qrels, run, "dcg(discount=none)")


# --------------------------------------------------------------------------- plugin components
def _registry_with(family, name, fn):
    from evalkit.components import Discount, Gain

    registry = evalkit.build_registry(disable_plugins=True)
    cls = Gain if family == "gain" else Discount
    registry.add(family, cls(name=name, fn=fn, formula="test", source="test"), "test")
    return registry


@pytest.mark.parametrize("family, fn, expect", [
    ("gain", lambda g: np.full(len(g), np.nan), "not a finite number"),
    ("gain", lambda g: -g, "< 0"),
    ("gain", lambda g: g[:-1], "shape"),
    ("gain", lambda g: g.astype(complex), "dtype"),
    ("gain", lambda g: [str(x) for x in g], "dtype"),
    ("discount", lambda r: np.full(len(r), np.inf), "not a finite number"),
    ("discount", lambda r: -1.0 / r, "< 0"),
    ("discount", lambda r: np.ones((len(r), 2)), "shape"),
])
def test_bad_plugin_components_are_named(family, fn, expect):
    """A wrong shape or dtype is the component's bug whatever the input: a
    ComponentContractError (exit status 3, issue 23); a non-finite or negative value
    of a given grade or rank is an input error (exit status 2)."""
    from evalkit.errors import ComponentContractError

    registry = _registry_with(family, "bad", fn)
    qrels = Qrels.from_rows([("q1", "d1", 1), ("q1", "d2", 0)])
    run = Run.from_rows([("q1", "d1", 2.0), ("q1", "d2", 1.0)])
    with pytest.raises(ComponentContractError if expect in ("shape", "dtype") else EvalkitError) as info:
        evalkit.evaluate(qrels, run, f"ndcg({family}=bad)", registry=registry)
    assert f"{family} 'bad'" in str(info.value) and expect in str(info.value)


def test_input_rules_doc_examples_run():
    """The Python examples of docs/input-rules.md run as written."""
    import re

    text = (REPO / "docs" / "input-rules.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/input-rules.md", "exec"), {})


@pytest.mark.parametrize("argv, option", [
    (["explain", "{q}", "{r}", "--query", "q1", "-m", "ndcg", "--rows", "-3"], "--rows"),
    (["run", "{c}", "--max-flips", "-1"], "--max-flips"),
    (["run", "{c}", "--digits", "18"], "--digits"),
])
def test_negative_counts_are_usage_errors(argv, option, tmp_path, capsys):
    _write(tmp_path, {"qrels.txt": QRELS.encode(), "run.txt": SWAPPED.encode()})
    (tmp_path / "c.yaml").write_text("qrels: qrels.txt\nruns: [{path: run.txt}]\nflavours: {a: ndcg}\n")
    args = [a.format(q=tmp_path / "qrels.txt", r=tmp_path / "run.txt", c=tmp_path / "c.yaml") for a in argv]
    assert main(args + ["--no-plugins"]) == 2
    err = capsys.readouterr().err
    assert f"argument {option}:" in err and "is not an integer from 0 to" in err, err


@pytest.mark.parametrize("pattern", ["*.run", "runs/*.run", "**/*.run", "runs/**/*.gz", "r*/sub/*", "**/x*",
                                     "runs/[ab].run", "runs/?.run", ".hidden/*.run", "**/*"])
def test_config_glob_matches_python_glob(tmp_path, pattern):
    """The bounded walker finds the files Python's glob(recursive=True) finds."""
    import glob

    from evalkit.runner.config import _Locator, _glob

    for name in ("a.run", "runs/a.run", "runs/b.run", "runs/c.gz", "runs/sub/x.run", "runs/sub/deep/y.gz",
                 "rx/sub/z.txt", ".hidden/h.run", "runs/.h.run"):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    full = str(tmp_path / pattern)
    want = sorted(p for p in glob.glob(full, recursive=True) if os.path.isfile(p))
    assert _glob(full, tmp_path, False, ["runs", 0, "glob"], _Locator("c.yaml", None)) == want


def test_config_glob_is_bounded_and_ignores_symlink_loops(tmp_path, monkeypatch):
    from evalkit.runner import config

    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "d" / "e" / "a.run").write_text("x")
    os.symlink(tmp_path / "d", tmp_path / "d" / "e" / "loop")  # d/e/loop -> d
    loc = config._Locator("c.yaml", None)
    assert config._glob(str(tmp_path / "**" / "*.run"), tmp_path, False, ["g"], loc) == [
        str(tmp_path / "d" / "e" / "a.run")]
    for n in range(30):
        (tmp_path / "d" / f"f{n}.run").write_text("x")
    monkeypatch.setattr(config, "MAX_GLOB_ENTRIES", 20)
    with pytest.raises(EvalkitError, match="more than 20 directory entries"):
        config._glob(str(tmp_path / "**" / "*.run"), tmp_path, False, ["g"], loc)
    monkeypatch.setattr(config, "MAX_GLOB_ENTRIES", 1000)
    monkeypatch.setattr(config, "MAX_GLOB_FILES", 10)
    with pytest.raises(EvalkitError, match="more than 10 files"):
        config._glob(str(tmp_path / "**" / "*.run"), tmp_path, False, ["g"], loc)


@pytest.mark.parametrize("fn, expect", [
    (lambda ctx: -np.ones(len(ctx.judged_offsets) - 1), "not a finite number >= 0"),
    (lambda ctx: np.full(len(ctx.judged_offsets) - 1, np.nan), "not a finite number >= 0"),
    (lambda ctx: np.ones(len(ctx.judged_offsets)), "shape"),
])
def test_bad_plugin_idcg_is_named(fn, expect):
    from evalkit.components import IdcgStrategy

    registry = evalkit.build_registry(disable_plugins=True)
    registry.add("idcg", IdcgStrategy(name="bad", fn=fn, formula="test", source="test"), "test")
    qrels = Qrels.from_rows([("q1", "d1", 1), ("q1", "d2", 0)])
    run = Run.from_rows([("q1", "d1", 2.0), ("q1", "d2", 1.0)])
    from evalkit.errors import ComponentContractError

    shape = expect == "shape"  # the component's bug whatever the input: exit status 3 (issue 23)
    with pytest.raises(ComponentContractError if shape else EvalkitError) as info:
        evalkit.evaluate(qrels, run, "ndcg(idcg=bad)", registry=registry)
    assert ("IDCG strategy 'bad'" if shape else "idcg 'bad'") in str(info.value) and expect in str(info.value)
    if "shape" not in expect:
        assert "query 'q1'" in str(info.value)


def test_device_is_refused_not_read_forever():
    with pytest.raises(EvalkitError, match="/dev/zero: is a device"):
        evalkit.read_run("/dev/zero")
