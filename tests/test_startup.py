"""Start-up: the command line loads scipy, pyarrow, jsonschema, matplotlib, pandas and
the YAML runner only when a command needs them (speed is measured in
``benchmarks/startup.py``; nothing here is timed), and the NumPy path that small inputs
take instead of Arrow gives the same codes, hashes and comparisons."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evalkit.engine import factorize as fz

REPO = Path(__file__).resolve().parent.parent
QS = REPO / "examples" / "quickstart"
HEAVY = ("pyarrow", "scipy", "jsonschema", "matplotlib", "pandas", "yaml", "tabulate")


def loaded_after(*argv: str, full: bool = False) -> tuple[set[str], str]:
    """Top-level packages (every module if ``full``) imported by ``evalkit ARGV`` in a
    fresh interpreter, and its output."""
    name = "m" if full else "m.split('.')[0]"
    code = ("import sys, io, contextlib; from evalkit.cli import main\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            "    code = main(sys.argv[1:])\n"
            f"modules = sorted({{{name} for m in sys.modules}})\n"
            "import json\n"  # after the command: whether it imported json is part of the answer
            "print(json.dumps([code, modules, out.getvalue()]))")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", code, *argv], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    status, modules, out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert status == 0, out
    return set(modules), out


def test_large_eval_loads_numpy_pyarrow_and_evalkit_only(tmp_path):
    """A run above ``CANONICAL_MAX_BYTES`` (the Arrow reader) loads no module beyond what
    ``import numpy, pyarrow.csv`` loads, evalkit's own and pluggy (its registry):
    no ``pyarrow.compute``, no ``numpy.ma`` (``np.unique`` imports it in NumPy 2)."""
    from evalkit.io.trec import CANONICAL_MAX_BYTES

    qrels, run = [], []
    for q in range(60):  # even queries: the 10 relevant documents first (NDCG@10 = 1)
        for d in range(10):  # odd ones: at ranks 11-20 (NDCG@10 = 0)
            qrels.append(f"q{q} 0 rel{q}-{d} 1")
        for r in range(3400):  # 8.7 MB: above CANONICAL_MAX_BYTES (8 MiB)
            first = r < 10 if q % 2 == 0 else 10 <= r < 20
            doc = f"rel{q}-{r % 10}" if first else f"other-document-{q}-{r}"
            run.append(f"q{q} Q0 {doc} {r + 1} {1000 - r} system")
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    assert (tmp_path / "run").stat().st_size > CANONICAL_MAX_BYTES
    modules, out = loaded_after("eval", "-m", "trec_eval.ndcg_cut@10", "--format", "json",
                                str(tmp_path / "qrels"), str(tmp_path / "run"), full=True)
    assert json.loads(out)["runs"]["system"]["all"]["trec_eval.ndcg_cut@10"] == 0.5
    code = "import sys, json, numpy, pyarrow.csv; print(json.dumps(sorted(sys.modules)))"
    base = set(json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                         check=True).stdout))
    extra = {m.split(".")[0] for m in modules - base} - set(sys.stdlib_module_names)
    assert extra <= {"evalkit", "pluggy"}, extra
    assert "pyarrow.csv" in modules and not {"pyarrow.compute", "numpy.ma"} & modules


def test_help_loads_nothing_heavy():
    modules, out = loaded_after("--help")
    assert "eval" in out and not modules & set(HEAVY)


def test_tiny_eval_loads_nothing_heavy():
    modules, out = loaded_after("eval", str(QS / "qrels.txt"), str(QS / "system_a.run"), str(QS / "system_b.run"),
                                "-m", "trec_eval.ndcg_cut@10", "-m", "ndcg(ties=average)@5")
    assert not modules & set(HEAVY), modules & set(HEAVY)
    # the quick start's numbers (configs/quickstart.yaml's report, trec_eval's flavour)
    lines = {line.split()[0]: line.split()[1:] for line in out.splitlines()[2:]}
    assert lines["system_a"][0] == "0.7749" and lines["system_b"][0] == "0.8063"


def test_quickstart_eval_imports_only_what_it_uses(tmp_path, monkeypatch):
    """``evalkit eval`` on the quick-start files (configs/quickstart.yaml's) imports no
    report module beyond the table layout and escaping (not the report model,
    statistics, renderers or writer), no YAML runner, scipy, pyarrow, jsonschema,
    tabulate, no other command's module, and -- once the entry-point cache is written
    -- not ``importlib.metadata`` (issue 27)."""
    monkeypatch.setenv("EVALKIT_CACHE_DIR", str(tmp_path))
    argv = ("eval", str(QS / "qrels.txt"), str(QS / "system_a.run"), "-m", "trec_eval.ndcg_cut@10")
    loaded_after(*argv)  # writes the entry-point cache
    modules, out = loaded_after(*argv, full=True)
    assert out.splitlines()[2].split() == ["system_a", "0.7749"]
    tops = {m.split(".")[0] for m in modules}
    assert not tops & {"yaml", "scipy", "pyarrow", "jsonschema", "tabulate", "matplotlib", "pandas"}, tops
    report = {m for m in modules if m.startswith("evalkit.report.")}
    assert report <= {"evalkit.report.layout", "evalkit.report.escape"}, report
    assert not {m for m in modules if m.startswith(("evalkit.runner", "evalkit.sensitivity", "evalkit.store"))}
    assert {m for m in modules if m.startswith("evalkit.cli.")} <= {"evalkit.cli.eval", "evalkit.cli.argtypes",
                                                                     "evalkit.cli.specs", "evalkit.cli.registry_args",
                                                                     "evalkit.cli.engine_args"}
    assert "importlib.metadata" not in modules
    assert "evalkit._version" not in modules  # read when --version prints it (or a JSON output names it)


def test_quickstart_eval_leaves_out_what_only_other_inputs_need(tmp_path, monkeypatch):
    """``evalkit eval`` on the quick start (no subtopic qrels, no ``irds:``, no error,
    ``--format table``) does not import the intent-aware engine, the ecosystem layer,
    :mod:`html`, :mod:`traceback`, :mod:`threading`, :mod:`json`, or :mod:`shutil` with :mod:`zlib`,
    :mod:`bz2` and :mod:`lzma` (argparse's help formatter and the table read the terminal's width
    without it) (issue 27); ``--format json``
    imports :mod:`json` for its output, and a subtopic metric the intent-aware engine
    (its values: tests/test_diversity*)."""
    monkeypatch.setenv("EVALKIT_CACHE_DIR", str(tmp_path))
    argv = ("eval", str(QS / "qrels.txt"), str(QS / "system_a.run"), "-m", "ndcg_cut.10")
    loaded_after(*argv)  # writes the entry-point cache
    modules, out = loaded_after(*argv, full=True)
    assert out.splitlines()[2].split() == ["system_a", "0.7749"]
    unused = {"evalkit.engine.intents", "evalkit.ecosystem", "evalkit.ecosystem.ir_datasets", "html", "traceback",
              "threading", "json",  # json: the entry-point cache is plain text (read_cache)
              "shutil", "zlib", "bz2", "lzma", "_compression",  # terminal width: report.layout.terminal_columns
              "evalkit.probe",  # only a third-party plugin's components are probed at start-up
              "pluggy", "evalkit.hookspecs", "evalkit._plugin_manager"}  # no plugin: built-ins registered directly
    assert not modules & unused, modules & unused
    modules, out = loaded_after(*argv, "--format", "json", full=True)
    assert json.loads(out)["runs"]["system_a"]["all"]["ndcg_cut.10"] == pytest.approx(0.7749, abs=5e-5)
    assert "json" in modules


def test_the_program_skips_the_collection_before_teardown(tmp_path):
    """``evalkit`` as the program (``main()`` without ``argv``, as the console script and
    ``python -m evalkit`` call it) keeps :data:`evalkit.cli.GC_THRESHOLD` to its end and
    turns the collector off at exit: no collection runs after the command (Python's
    collection before the teardown walks every live object, issue 27); called with
    ``argv`` it restores the threshold and that collection runs. Same output."""
    code = ("import gc, sys\n"
            "from evalkit.cli import main\n"
            "program = sys.argv.pop(1) == 'program'\n"
            "status = main() if program else main(sys.argv[1:])\n"
            "print(gc.get_threshold()[0])\n"
            "gc.callbacks.append(lambda phase, info: phase == 'start' and print('collection', file=sys.stderr))\n"
            "sys.exit(status)")
    argv = ("eval", str(QS / "qrels.txt"), str(QS / "system_a.run"), "-m", "ndcg_cut.10")
    env = {**os.environ, "PYTHONPATH": str(REPO), "EVALKIT_CACHE_DIR": str(tmp_path)}
    outs = {}
    for how in ("program", "argv"):
        proc = subprocess.run([sys.executable, "-c", code, how, *argv], cwd=REPO, env=env, capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        *table, threshold = proc.stdout.splitlines()
        outs[how] = (table, int(threshold), "collection" in proc.stderr)
    from evalkit.cli import GC_THRESHOLD

    assert outs["program"][0][2].split() == ["system_a", "0.7749"] and outs["program"][0] == outs["argv"][0]
    assert outs["program"][1:] == (GC_THRESHOLD, False)
    assert outs["argv"][1] < GC_THRESHOLD and outs["argv"][2]  # Python's threshold (700), its collection at exit


def test_printing_plain_names_compiles_no_escaping_regex(capsys):
    """The escaping functions compile their regular expressions on first use, and a
    printable-ASCII string needs none: printing the quick-start table compiles none,
    while a name with a control character still comes out escaped."""
    from evalkit.cli import main
    from evalkit.report import escape

    compiled = (escape._control_re, escape._control_but_newline_re, escape._md_special_re, escape._number_re,
                escape._csv_control_re, escape._latex_re)
    for fn in compiled:
        fn.cache_clear()
    assert main(["eval", str(QS / "qrels.txt"), str(QS / "system_a.run"), "-m", "ndcg_cut.10"]) == 0
    assert "system_a  0.7749" in capsys.readouterr().out
    assert [fn.cache_info().currsize for fn in compiled] == [0] * len(compiled)
    assert escape.text_escape("run\x1b[31m\u202e") == "run\\x1b[31m\\u202e"
    assert escape.csv_cell("=1+1") == "'=1+1" and escape.csv_cell("-1") == "-1"
    assert escape._control_re.cache_info().currsize == 1


def test_reading_canonical_files_compiles_no_regex_in_the_readers(tmp_path):
    """The readers (:mod:`evalkit.io.trec`) and :mod:`evalkit.data` compile their
    regular expressions on first use, and a canonical file needs none (issue 27):
    ``evalkit eval`` on the quick start (the bytes-method path under
    ``TINY_MAX_BYTES``) and on a 3,000-line run and qrels (the NumPy path) compiles
    none in either module, at import or while reading, and prints the same table as
    ever; a file with an exponent score still compiles the number grammar to check it."""
    code = ("import sys, io, json, re, contextlib, traceback\n"
            "callers, real = [], re._compile\n"
            "def compile(pattern, flags=0):\n"
            "    callers.extend(f'{f.filename}:{f.lineno}' for f in traceback.extract_stack(limit=4)[:-1]\n"
            "                   if f.filename.endswith(('evalkit/io/trec.py', 'evalkit/data.py')))\n"
            "    return real(pattern, flags)\n"
            "re._compile = compile\n"
            "from evalkit.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            "    code = main(sys.argv[1:])\n"
            "print(json.dumps([code, out.getvalue(), callers]))")
    env = {**os.environ, "PYTHONPATH": str(REPO), "EVALKIT_CACHE_DIR": str(tmp_path)}

    def run(*argv: str) -> tuple[str, list[str]]:
        proc = subprocess.run([sys.executable, "-c", code, "eval", *argv, "-m", "ndcg_cut.10"], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=300, check=True)
        status, out, callers = json.loads(proc.stdout.strip().splitlines()[-1])
        assert status == 0, out
        return out, callers

    out, callers = run(str(QS / "qrels.txt"), str(QS / "system_a.run"))
    assert out.splitlines()[2].split() == ["system_a", "0.7749"] and callers == [], callers
    qrels = "".join(f"{300 + q} 0 doc{q}-{d} {d % 3}\n" for q in range(30) for d in range(100))
    run_text = "".join(f"{300 + q} Q0 doc{q}-{(d * 7) % 100} {d + 1} {100 - d}.25 sys\n"
                       for q in range(30) for d in range(100))
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run_text)
    from evalkit.io.trec import TINY_MAX_BYTES

    assert len(run_text) > TINY_MAX_BYTES and len(qrels) > TINY_MAX_BYTES
    out, callers = run(str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert out.splitlines()[2].split()[0] == "sys" and callers == [], callers
    (tmp_path / "run").write_text(run_text.replace(" 99.25 sys", " 9.925e1 sys", 1))
    out2, callers = run(str(tmp_path / "qrels"), str(tmp_path / "run"))
    assert out2 == out and any("trec.py" in c for c in callers)


def test_component_types_without_own_fields_keep_their_dataclass_behaviour():
    """Gain, Discount, IdcgStrategy, GradeRule and NegativeRule add no field to their
    base: they take its ``__repr__``, ``__eq__`` and ``__hash__`` and a copy of its
    ``__init__`` under their own name (nothing generated, issue 27) and behave as
    frozen dataclasses of their own."""
    import dataclasses

    from evalkit.components import Discount, Gain, GradeRule, IdcgStrategy, NegativeRule

    def fn(x):
        return x

    for cls in (Gain, Discount, IdcgStrategy, GradeRule, NegativeRule):
        assert {"__repr__", "__eq__", "__hash__"}.isdisjoint(vars(cls)), cls
        assert "__init__" in vars(cls) and cls.__init__.__qualname__ == f"{cls.__name__}.__init__", cls
        with pytest.raises(TypeError, match=rf"^{cls.__name__}\.__init__\(\) got an unexpected keyword argument 'formul'"):
            cls("x", fn, formul="F")  # a typo names the class the author wrote
        a, b = cls("x", fn, formula="F", origin="one"), cls("x", fn, formula="F", origin="two")
        assert repr(a).startswith(f"{cls.__name__}(name='x', fn=") and "origin='one'" in repr(a)
        assert a == b and hash(a) == hash(b) and a != cls("y", fn)  # origin: compare=False
        assert dataclasses.is_dataclass(cls) and dataclasses.fields(cls)[0].name == "name"
        assert dataclasses.replace(a, name="z").name == "z" and type(dataclasses.replace(a)) is cls
        for attr in ("name", "not_a_field"):
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(a, attr, 1)
            with pytest.raises(dataclasses.FrozenInstanceError):
                delattr(a, attr)
    fields = dict(name="x", fn=fn)
    assert Gain(**fields) != Discount(**fields) and GradeRule(**fields) != NegativeRule(**fields)


STRINGS = ["", "a", "ab", "abcdefgh", "abcdefghi", "abcdefgh\x00", "b", "ä", "日本語の文書", "z" * 40,
           "doc-00017", "doc-0017", "clueweb12-0000tw-05-12114", "é", "e\u0301", "a b"]


@pytest.fixture
def columns():
    rng = np.random.default_rng(3)
    a = np.array([STRINGS[i] for i in rng.integers(0, len(STRINGS), 300)], dtype=object)
    b = np.array([STRINGS[i] for i in rng.integers(0, len(STRINGS), 200)], dtype=object)
    return a, b


def _both(monkeypatch, fn):
    """``(NumPy path result, Arrow path result)``."""
    plain = fn()
    with monkeypatch.context() as m:
        m.setattr(fz, "PLAIN_MAX", 0)
        arrow = fn()
    return plain, arrow


def test_numpy_path_equals_arrow_path(monkeypatch, columns):
    a, b = columns
    order = sorted(set(a))  # Python's str order = code-point order = UTF-8 byte order (strcmp)
    plain, arrow = _both(monkeypatch, lambda: fz.encode(a))
    np.testing.assert_array_equal(plain[0], arrow[0])
    assert list(plain[1]) == list(arrow[1]) == order
    assert list(plain[1][plain[0]]) == list(a)
    for final_mix in (True, False):
        plain, arrow = _both(monkeypatch, lambda: fz.string_hash(a, final_mix=final_mix))
        np.testing.assert_array_equal(plain, arrow)
    rows_a = np.arange(200) % len(a)
    rows_b = np.arange(200)
    plain, arrow = _both(monkeypatch, lambda: fz.strings_equal(a, rows_a, b, rows_b))
    np.testing.assert_array_equal(plain, arrow)
    np.testing.assert_array_equal(plain, [a[i] == b[j] for i, j in zip(rows_a, rows_b)])
    rows = np.arange(0, 300, 3)
    plain, arrow = _both(monkeypatch, lambda: fz.byte_order_ranks(a, rows))
    np.testing.assert_array_equal(plain, arrow)
    np.testing.assert_array_equal(plain, [sorted(set(a[rows])).index(s) for s in a[rows]])
    plain, arrow = _both(monkeypatch, lambda: fz.factorize(a, b))
    assert list(plain[1]) == list(arrow[1]) == sorted(set(a) | set(b))
    for p, q in zip(plain[0], arrow[0]):
        np.testing.assert_array_equal(p, q)


def test_utf8_column_equals_object_and_arrow_paths(monkeypatch, columns):
    """A :class:`~evalkit.engine.factorize.Utf8Column` (the readers' docno column of a
    canonical file under ``CANONICAL_MAX_BYTES``) gives the codes, hashes, comparisons and byte orders
    of the same strings as an ``object`` array (NumPy's path) and as Arrow's path, also
    when sliced, gathered or mixed with an ``object`` array; strings longer than
    ``LONG_STRING`` included."""
    a, b = columns
    a = np.concatenate([a, np.array(["y" * 300, "x" * 300, "y" * 300], dtype=object)])
    ua, ub = fz.as_utf8(a), fz.as_utf8(b)
    assert isinstance(ua, fz.Utf8Column) and len(ua) == len(a)
    assert list(ua.to_objects()) == list(a) and list(fz.to_objects(ua[5:40])) == list(a[5:40])
    rows = np.array([3, 0, 302, 7, 7, 301])
    assert list(fz.take(ua, rows).to_objects()) == list(a[rows])
    for final_mix in (True, False):
        plain, arrow = _both(monkeypatch, lambda: fz.string_hash(a, final_mix=final_mix))
        np.testing.assert_array_equal(fz.string_hash(ua, final_mix=final_mix), plain)
        np.testing.assert_array_equal(fz.string_hash(ua[10:50], final_mix=final_mix), plain[10:50])
    rows_a, rows_b = np.arange(300) % len(a), np.arange(300) % len(b)
    expected = [a[i] == b[j] for i, j in zip(rows_a, rows_b)]
    for x, y in ((ua, ub), (ua, b), (a, ub)):
        np.testing.assert_array_equal(fz.strings_equal(x, rows_a, y, rows_b), expected)
    for rows in (np.arange(0, 300, 3), np.arange(len(a))):  # without and with long strings
        ranks = fz.byte_order_ranks(ua, rows)
        np.testing.assert_array_equal(ranks, [sorted(set(a[rows])).index(s) for s in a[rows]])
        block = np.repeat(np.arange(3), [len(rows) // 3, len(rows) // 3, len(rows) - 2 * (len(rows) // 3)])
        for descending in (False, True):
            expected_order = np.lexsort((-ranks if descending else ranks, block))
            np.testing.assert_array_equal(fz.byte_order_sort(ua, rows, block, descending), expected_order)
    codes, vocab = fz.encode(ua)
    assert list(vocab) == sorted(set(a)) and list(vocab[codes]) == list(a)
    (ca, cb), vocab = fz.factorize(ua, b)
    assert list(vocab) == sorted(set(a) | set(b))
    assert list(vocab[ca]) == list(a) and list(vocab[cb]) == list(b)
    if importlib.util.find_spec("pyarrow") is not None:
        assert fz.as_arrow(ua[2:9]).to_pylist() == list(a[2:9])


def test_robust03_sized_eval_imports_no_pyarrow(tmp_path):
    """Canonical files of a few MB (2.0 MB qrels, 4.1 MB run: 100 k lines each, the
    size of Robust 2003's) are read and evaluated without importing pyarrow (issue
    27), and the duplicate check still names both lines."""
    from evalkit.io.trec import CANONICAL_MAX_BYTES, FAST_MIN_BYTES

    qrels = "".join(f"{300 + q} 0 FBIS3-{q * 1000 + d} {d % 3}\n" for q in range(100) for d in range(1000))
    run = "".join(f"{300 + q} Q0 FBIS3-{q * 1000 + (d * 7) % 1000} {d + 1} {1000 - d}.5 sys\n"
                  for q in range(100) for d in range(1000))
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    assert FAST_MIN_BYTES < (tmp_path / "qrels").stat().st_size < (tmp_path / "run").stat().st_size < CANONICAL_MAX_BYTES
    modules, out = loaded_after("eval", "-m", "ndcg_cut.10", "--format", "json",
                                str(tmp_path / "qrels"), str(tmp_path / "run"), full=True)
    assert not {m for m in modules if m.split(".")[0] == "pyarrow"}
    import evalkit

    q, r = evalkit.read_qrels(tmp_path / "qrels"), evalkit.read_run(tmp_path / "run")
    assert isinstance(r._docno_arrow(), fz.Utf8Column) and isinstance(q._docno_arrow(), fz.Utf8Column)
    expected = evalkit.evaluate(q, r, ["ndcg_cut.10"]).values
    assert json.loads(out)["runs"]["sys"]["all"]["ndcg_cut.10"] == pytest.approx(float(expected.mean()), abs=1e-15)
    (tmp_path / "dup").write_text(run + "301 Q0 FBIS3-1005 1001 0.5 sys\n")
    with pytest.raises(evalkit.errors.InputFormatError,
                       match=r":100001: field 'docno'.*duplicate document for query '301', document 'FBIS3-1005' "
                             r"\(first seen at line 1716\)"):
        evalkit.read_run(tmp_path / "dup")


def test_small_and_large_inputs_join_alike(monkeypatch, registry):
    """A qrels on the NumPy path joined with a run on the Arrow path finds the same
    judged documents as when both take the NumPy path (the pair hashes agree across
    the paths); pytrec_eval gives the same numbers."""
    import evalkit
    from conftest import to_pytrec

    rng = np.random.default_rng(0)
    docs = [f"d{i}" for i in range(50)]
    judged = [(f"q{q}", d, int(rng.integers(0, 3))) for q in range(5) for d in docs[:18]]
    rows = [(f"q{q}", d, float(rng.random())) for q in range(5) for d in docs]
    with monkeypatch.context() as m:
        m.setattr(fz, "PLAIN_MAX", 100)  # the run (250 rows) takes the Arrow path, the qrels (90) NumPy's
        qrels, run = evalkit.Qrels.from_rows(judged), evalkit.Run.from_rows(rows, name="r")
        mixed = evalkit.evaluate(qrels, run, ["trec_eval.ndcg_cut@10"], registry=registry)
        assert isinstance(qrels._docno_arrow(), np.ndarray) and not isinstance(run._docno_arrow(), np.ndarray)
    qrels2, run2 = evalkit.Qrels.from_rows(judged), evalkit.Run.from_rows(rows, name="r")
    plain = evalkit.evaluate(qrels2, run2, ["trec_eval.ndcg_cut@10"], registry=registry)
    assert isinstance(run2._docno_arrow(), np.ndarray)
    np.testing.assert_array_equal(mixed.values, plain.values)
    pytrec_eval = importlib.import_module("pytrec_eval")
    ev = pytrec_eval.RelevanceEvaluator(*to_pytrec(qrels2, run2)[:1], {"ndcg_cut.10"})
    per_query = ev.evaluate(run2.to_dict())
    for q, qid in enumerate(plain.qids):
        assert plain.values[0, 0, q] == pytest.approx(per_query[qid]["ndcg_cut_10"], abs=1e-12)


def test_probing_built_in_components_only_builds_no_probe_problem(monkeypatch):
    """:func:`evalkit.probe.probe_registry` builds its probe problem on first use: a
    start whose components are all skipped (the built-ins, probed by the tests) builds
    none (issue 27); probing one component builds it."""
    import evalkit.engine.problem as problem
    from evalkit.probe import probe_registry
    from evalkit.registry import BUILTIN_ORIGIN, build_registry

    registry = build_registry(disable_plugins=True)
    built = []
    real = problem.build_problem
    monkeypatch.setattr(problem, "build_problem", lambda *a, **k: built.append(1) or real(*a, **k))
    probe_registry(registry, skip_origin=BUILTIN_ORIGIN)
    assert built == []
    probe_registry(registry)  # nothing skipped: every built-in gain, discount, ... on one problem
    assert built == [1]
def test_quickstart_eval_loads_only_the_builtin_modules_it_uses(tmp_path, monkeypatch):
    """``evalkit eval -m ndcg_cut.10`` (issue 27) imports the trec_eval library modules,
    the generic components its flavour names and the columnar engine, and no other
    library's module: the registry loads a built-in module when a name of it is first
    asked for (:mod:`evalkit.builtin_index`)."""
    monkeypatch.setenv("EVALKIT_CACHE_DIR", str(tmp_path))
    argv = ("eval", str(QS / "qrels.txt"), str(QS / "system_a.run"), "-m", "ndcg_cut.10")
    modules, out = loaded_after(*argv, full=True)
    assert out.splitlines()[2].split() == ["system_a", "0.7749"]
    libraries = {m for m in modules if m.startswith("evalkit.libraries.")}
    assert libraries <= {"evalkit.libraries.trec_eval", "evalkit.libraries.trec_eval_measures"}, libraries
    builtins = {m for m in modules if m.startswith("evalkit.builtins.")}
    assert builtins <= {f"evalkit.builtins.{m}" for m in ("gains", "discounts", "idcg", "ties", "metrics", "stages")}, \
        builtins  # not diversity, trec_eval_measures (the kernels of other metrics)
    from evalkit.libraries import MODULES

    assert {"evalkit.libraries.ranx", "evalkit.libraries.sklearn", "evalkit.libraries.ltr",
            "evalkit.libraries.recsys"} <= set(MODULES) - modules


#: classes the quick-start ``evalkit eval`` does not need: defined on first use
#: (Refusal, DisabledPlugin, IdealRanking) or plain records (the rest), issue 27
NOT_CREATED = {"evalkit.components.Refusal", "evalkit.registry.DisabledPlugin", "evalkit.kernel.IdealRanking",
               "evalkit.engine.evaluate._Stage", "evalkit.engine.evaluate._Resolved",
               "evalkit.engine.evaluate.Evaluation", "evalkit.cli.specs.Measure",
               "evalkit.measure_names.NamedMeasure", "evalkit.libraries.trec_eval_measures.TrecMeasure",
               "evalkit.trec_eval_compat.TrecName"}


def test_quickstart_eval_creates_no_dataclass_it_does_not_use(tmp_path):
    """``evalkit eval -m ndcg_cut.10`` on the quick start creates none of
    :data:`NOT_CREATED` as a dataclass (each costs ``dataclasses`` an ``exec`` per
    generated method), and no dataclass method for the classes it creates (counted
    by patching ``dataclasses._create_fn``); the classes defined on first use are still
    importable from their modules, with the same ``__module__``."""
    code = ("import sys, io, json, contextlib, dataclasses\n"
            "made, generated = [], []\n"
            "real, real_fn = dataclasses._process_class, dataclasses._create_fn\n"
            "def process(cls, *a, **k):\n"
            "    made.append(f'{cls.__module__}.{cls.__qualname__}')\n"
            "    return real(cls, *a, **k)\n"
            "def create(name, *a, **k):\n"
            "    generated.append((made[-1], name))\n"
            "    return real_fn(name, *a, **k)\n"
            "dataclasses._process_class, dataclasses._create_fn = process, create\n"
            "from evalkit.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            "    code = main(sys.argv[1:])\n"
            "print(json.dumps([code, out.getvalue(), made, generated, sorted(sys.modules)]))")
    argv = ["eval", str(QS / "qrels.txt"), str(QS / "system_a.run"), "-m", "ndcg_cut.10"]
    env = {**os.environ, "PYTHONPATH": str(REPO), "EVALKIT_CACHE_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", code, *argv], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300, check=True)
    status, out, made, generated, modules = json.loads(proc.stdout.strip().splitlines()[-1])
    assert status == 0 and out.splitlines()[2].split() == ["system_a", "0.7749"]
    assert "evalkit.flavour.Flavour" in made and not NOT_CREATED & set(made), NOT_CREATED & set(made)
    assert not {"evalkit._refusal", "evalkit._disabled_plugin", "evalkit._ideal_ranking", "evalkit._resolved_measure",
                "evalkit._cached_entry_point"} & set(modules)  # (no plugin installed in the test environment)
    # no dataclass method is compiled (issue 27) but the two of the template whose
    # __dataclass_params__ evalkit._record.lean_dataclass gives its classes
    # (tests/test_dataclass_equivalence.py compares them with generated dataclasses)
    assert {"evalkit.components.Gain", "evalkit.results.Results", "evalkit.kernel.MetricInput"} <= set(made)
    assert sorted(map(tuple, generated)) == [("evalkit._record._FrozenTemplate", "__delattr__"),
                                             ("evalkit._record._FrozenTemplate", "__setattr__")]

    import dataclasses

    from evalkit import components, kernel, plugin, registry

    for module, name in ((components, "Refusal"), (registry, "DisabledPlugin"), (kernel, "IdealRanking")):
        cls = getattr(module, name)
        assert cls.__module__ == module.__name__ and dataclasses.is_dataclass(cls) and name in dir(module)
    from evalkit import resolve

    for module, name in ((registry, "CachedEntryPoint"), (registry, "CachedDistribution"),
                         (resolve, "ResolvedMeasure")):  # named tuples, also defined on first use
        cls = getattr(module, name)
        assert cls.__module__ == module.__name__ and issubclass(cls, tuple) and name in dir(module)
    assert "evaluate" in dir(resolve) and resolve.evaluate.__name__ == "evaluate"
    assert plugin.Refusal is components.Refusal
    record = registry.DisabledPlugin("broken", "dist 1.0 (entry point 'broken')", "ImportError: x")
    assert repr(record) == ("DisabledPlugin(name='broken', origin=\"dist 1.0 (entry point 'broken')\", "
                            "reason='ImportError: x', components=())")
    assert "EVALKIT_DISABLE_PLUGINS=broken" in record.warning() and registry.DISABLE_ENV == "EVALKIT_DISABLE_PLUGINS"
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.name = "other"  # type: ignore[misc]


def test_flavour_and_component_ref_methods_are_the_generated_ones():
    """The ``__init__``, ``__repr__``, ``==``, ``hash`` and ordering written in
    :class:`ComponentRef` and :class:`Flavour` give what ``dataclasses`` generates for
    the same fields (``frozen=True``, ``order=True`` for ComponentRef): compared with
    reference dataclasses built here, on flavours that differ in every field."""
    import dataclasses
    import itertools

    from evalkit.flavour import ComponentRef, Flavour, parse_flavour

    def reference(cls, **options):
        fields = [(f.name, f.type, dataclasses.field(default=f.default)) if f.default is not dataclasses.MISSING
                  else (f.name, f.type) for f in dataclasses.fields(cls)]
        return dataclasses.make_dataclass(cls.__name__, fields, frozen=True, **options)

    Ref = reference(ComponentRef, order=True)
    refs = [ComponentRef("a"), ComponentRef("a", (("x", 1),)), ComponentRef("a", (("x", 2),)), ComponentRef("b"),
            ComponentRef("a", ())]
    for a, b in itertools.product(refs, repeat=2):
        ra, rb = Ref(a.name, a.params), Ref(b.name, b.params)
        assert repr(a) == repr(ra).replace(Ref.__qualname__, "ComponentRef")
        assert (a == b, a != b, a < b, a <= b, a > b, a >= b) == (ra == rb, ra != rb, ra < rb, ra <= rb, ra > rb,
                                                                   ra >= rb)
        assert hash(a) == hash(ra)
    assert ComponentRef("a") != ("a", ()) and ComponentRef("a").__eq__(Ref("a")) is NotImplemented
    with pytest.raises(TypeError):
        ComponentRef("a") < ("a", ())  # noqa: B015 - ordering another type is refused, as generated

    Fl = reference(Flavour)
    texts = ["ndcg@10", "ndcg@5", "ndcg(gain=exp2)@10", "ndcg(discount=jarvelin(base=3))@10", "ndcg(idcg=returned)@10",
             "ndcg(ties=average)@10", "dcg(ties=trec_eval)@10", "ndcg(missing=zero)@10", "ndcg(empty=one)@10",
             "dcg(negative=gain)@10", "ndcg(grades=lightgbm)@10", "ndcg(run_filter=unjudged)@10",
             "ndcg(outcome=complement)@10", "ndcg(aggregate=round_mean(decimals=3))@10", "ndcg", "err(max_grade=3)@10"]
    flavours = [parse_flavour(t) for t in texts]
    for a, b in itertools.product(flavours, repeat=2):
        ra = Fl(**{f.name: getattr(a, f.name) for f in dataclasses.fields(a)})
        rb = Fl(**{f.name: getattr(b, f.name) for f in dataclasses.fields(b)})
        assert (a == b, a != b, hash(a) == hash(ra)) == (ra == rb, ra != rb, True), (a, b)
    assert len(set(flavours)) == len(texts)  # each differs from the others in one field
    fl = flavours[2]
    assert Flavour(**{f.name: getattr(fl, f.name) for f in dataclasses.fields(fl)}) == fl
    assert dataclasses.replace(fl, k=3) == parse_flavour("ndcg(gain=exp2)@3")
    assert Flavour("ndcg", 10, "exp2") == fl and Flavour(metric="ndcg", k=10) == parse_flavour("ndcg@10")
    with pytest.raises(dataclasses.FrozenInstanceError):
        fl.k = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del fl.gain  # type: ignore[misc]


def test_private_records_behave_as_the_lean_dataclasses_they_were():
    """The records made plain classes (issue 27) keep what their dataclasses gave:
    keyword and default arguments, ``==`` and ``hash`` by fields (by identity for the
    engine's), ``repr``, immutability, ``pickle`` and ``copy``."""
    import copy
    import pickle

    from evalkit.cli.specs import Measure
    from evalkit.engine.evaluate import Evaluation
    from evalkit.flavour import parse_flavour
    from evalkit.libraries.trec_eval_measures import MEASURES, TrecMeasure
    from evalkit.measure_names import NamedMeasure
    from evalkit.trec_eval_compat import TrecName, parse_name

    fl = parse_flavour("ndcg@10")
    m = Measure("ndcg_cut.10", "ndcg_cut_10", fl)
    assert m == Measure(label="ndcg_cut.10", native="ndcg_cut_10", flavour=parse_flavour("ndcg@10"))
    assert hash(m) == hash(("ndcg_cut.10", "ndcg_cut_10", fl)) and m != Measure("x", "ndcg_cut_10", fl)
    assert repr(m) == f"Measure(label='ndcg_cut.10', native='ndcg_cut_10', flavour={fl!r})"
    named = NamedMeasure("P.5", "trec_eval.P", 5)
    assert named.params == () and named == NamedMeasure("P.5", "trec_eval.P", 5, ())
    assert named != ("P.5", "trec_eval.P", 5, ())  # another class: not equal, as generated
    te = TrecMeasure("map", "ap({ties})", source="m_map.c", new=False)
    assert (te.kind, te.level, te.per_query, te.new) == ("plain", "threshold", True, False)
    assert te in MEASURES and MEASURES[4] == TrecMeasure(*[getattr(MEASURES[4], f) for f in TrecMeasure._fields()])
    (name,) = parse_name("ndcg_cut_10")
    assert isinstance(name, TrecName) and (name.native, name.k) == ("ndcg_cut_10", 10)
    for record in (m, named, te, name):
        assert pickle.loads(pickle.dumps(record)) == record and copy.copy(record) == record
        assert copy.deepcopy(record) == record
        with pytest.raises(AttributeError):
            record.label = "other"  # type: ignore[misc]
        with pytest.raises(AttributeError):
            del record.preset  # type: ignore[misc]
        with pytest.raises(AttributeError):
            record.not_a_field = 1  # type: ignore[attr-defined]
    a, b = (Evaluation((fl,), ("ndcg@10",), [], [0], []) for _ in range(2))
    assert a == a and a != b and len({a, b}) == 2  # compared by identity, as with eq=False


def test_engine_option_and_metric_output_methods_are_the_generated_ones():
    """:class:`~evalkit.backends.EngineOption` and
    :class:`~evalkit.components.MetricOutput` write the methods ``dataclasses`` would
    generate (issue 27): the same ``__init__`` (keywords, defaults, its errors),
    ``repr``, ``==`` and ``hash`` as a reference dataclass of the same fields; still
    frozen dataclasses."""
    import dataclasses
    import itertools

    from evalkit.backends import SPARK_OPTIONS, EngineOption
    from evalkit.components import MetricOutput

    def reference(cls):
        fields = [(f.name, f.type, dataclasses.field(default=f.default)) if f.default is not dataclasses.MISSING
                  else (f.name, f.type) for f in dataclasses.fields(cls)]
        return dataclasses.make_dataclass(cls.__name__, fields, frozen=True)

    Ref = reference(EngineOption)
    options = [*SPARK_OPTIONS, EngineOption("master"), EngineOption("master", default=["a"]),
               EngineOption(key="conf", flag="--spark-conf", repeat=True)]
    for a, b in itertools.product(options, repeat=2):
        ra = Ref(**{f.name: getattr(a, f.name) for f in dataclasses.fields(a)})
        rb = Ref(**{f.name: getattr(b, f.name) for f in dataclasses.fields(b)})
        assert repr(a) == repr(ra) and (a == b, a != b) == (ra == rb, ra != rb)
        if not isinstance(a.default, list):
            assert hash(a) == hash(ra)
    with pytest.raises(TypeError, match="unhashable"):
        hash(EngineOption("master", default=["a"]))
    with pytest.raises(TypeError, match=r"^EngineOption\.__init__\(\) got an unexpected keyword argument 'flags'"):
        EngineOption("master", flags="--x")  # type: ignore[call-arg]
    assert dataclasses.replace(SPARK_OPTIONS[0], default="local[2]").default == "local[2]"
    with pytest.raises(dataclasses.FrozenInstanceError):
        SPARK_OPTIONS[0].key = "x"  # type: ignore[misc]

    out = MetricOutput(np.array([0.5, 1.0]), np.array([True, False]))
    ref = reference(MetricOutput)(out.values, out.defined)
    assert repr(out) == repr(ref) == "MetricOutput(values=array([0.5, 1. ]), defined=array([ True, False]))"
    assert out == out and MetricOutput(out.values, out.defined) == out  # the same arrays: identical, as generated
    with pytest.raises(TypeError, match="unhashable"):
        hash(out)
    with pytest.raises(TypeError, match=r"^MetricOutput\.__init__\(\) missing 1 required positional argument"):
        MetricOutput(out.values)  # type: ignore[call-arg]
    assert [f.name for f in dataclasses.fields(MetricOutput)] == ["values", "defined"]


def test_param_and_results_methods_are_the_generated_ones():
    """:class:`~evalkit.components.Param` (``==``, ``hash``, ``repr``, ``__init__``) and
    :class:`~evalkit.results.Results` (``repr``, ``__init__``; compared by identity)
    write what ``dataclasses`` would generate (issue 27), checked against reference
    dataclasses of the same fields."""
    import dataclasses
    import itertools

    from evalkit.components import Param
    from evalkit.flavour import CONVENTIONS, LEGACY_KEYS, parse_flavour
    from evalkit.results import Results

    fields = [(f.name, f.type, dataclasses.field(default=f.default)) if f.default is not dataclasses.MISSING
              else (f.name, f.type) for f in dataclasses.fields(Param)]
    Ref = dataclasses.make_dataclass("Param", fields, frozen=True)
    params = [*CONVENTIONS.values(), *LEGACY_KEYS.values(), Param("base", "float", 2.0, minimum=1.0,
              exclusive_minimum=True), Param("base", "float", 2.0, minimum=1.0), Param("base")]
    for a, b in itertools.product(params, repeat=2):
        ra = Ref(**{f.name: getattr(a, f.name) for f in dataclasses.fields(a)})
        rb = Ref(**{f.name: getattr(b, f.name) for f in dataclasses.fields(b)})
        assert repr(a) == repr(ra) and (a == b, a != b, hash(a)) == (ra == rb, ra != rb, hash(ra))
    with pytest.raises(TypeError, match=r"^Param\.__init__\(\) got an unexpected keyword argument 'minimun'"):
        Param("base", minimun=1)  # type: ignore[call-arg]
    assert dataclasses.replace(params[-1], kind="int") == Param("base", "int")
    with pytest.raises(dataclasses.FrozenInstanceError):
        params[-1].kind = "int"  # type: ignore[misc]

    fl = parse_flavour("ndcg@10")
    res = Results(np.array(["q1"], dtype=object), ("run",), (fl,), ("ndcg@10",), np.zeros((1, 1, 1)))
    rfields = [(f.name, f.type) for f in dataclasses.fields(Results)]
    ref = dataclasses.make_dataclass("Results", rfields, frozen=True, eq=False)(*[getattr(res, n) for n, _ in rfields])
    assert repr(res) == repr(ref) and res == res and res != dataclasses.replace(res)
    assert Results(qids=res.qids, systems=res.systems, flavours=res.flavours, labels=res.labels,
                   values=res.values).labels == ("ndcg@10",)


def test_registering_copies_components_as_dataclasses_replace_does(registry):
    """The registry sets each component's origin with ``replace_origin`` (a field copy
    for evalkit's own types, issue 27): the same object ``dataclasses.replace`` makes,
    field for field in the same order; a plugin's subclass goes through
    ``dataclasses.replace`` itself (its ``__post_init__`` runs)."""
    import dataclasses

    from evalkit.components import Gain, replace_origin

    registry._load_all()
    count = 0
    for table in registry._components.values():
        for component in table.values():
            copy, made = replace_origin(component, "plugin x"), dataclasses.replace(component, origin="plugin x")
            assert type(copy) is type(made) and copy == made and repr(copy) == repr(made)
            assert list(copy.__dict__.items()) == list(made.__dict__.items())
            assert copy.origin == "plugin x" != component.origin
            count += 1
    assert count > 200

    calls = []

    @dataclasses.dataclass(frozen=True)
    class Checked(Gain):
        def __post_init__(self) -> None:
            calls.append(self.origin)

    copy = replace_origin(Checked("g", fn=len), "plugin y")
    assert type(copy) is Checked and copy.origin == "plugin y" and calls == ["", "plugin y"]
