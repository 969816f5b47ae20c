"""Evaluation backends (:mod:`evalkit.backends`): the command line and the runner reach
every engine through one interface, so a third-party backend registered by a plugin is
used by ``evalkit eval --engine NAME`` and a config's ``engine: {name: NAME}``.

The fake backends below compute with the in-process engine and scale its values, so
each assertion compares with a value the built-in engine gives and that a caller
bypassing the backend would not print.
"""

from __future__ import annotations

import importlib.metadata as md
import re
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import evalkit
import evalkit.registry as registry_mod
from evalkit.backends import Backend, EngineOption, engine_options, get_backend
from evalkit.cli import main
from evalkit.registry import DISABLE_ENV

PACKAGE = Path(__file__).resolve().parent.parent / "evalkit"

PLUGIN = '''
import numpy as np

from evalkit import hookimpl
from evalkit.backends import EngineOption
from evalkit.components import Engine
from evalkit.results import Results

CALLS = []


def _scaled(res, scale):
    return Results(res.qids, res.systems, res.flavours, res.labels, res.values * float(scale))


def halves(qrels, runs, flavours, **options):
    """In process: the columnar engine's values, halved."""
    import evalkit.engine.evaluate as ev

    CALLS.append(("halves", sorted(options)))
    return _scaled(ev.evaluate(qrels, runs, flavours, **options), 0.5)


def by_files(qrels, runs, flavours, *, labels=None, registry=None, names=None, namer=None, subtopics=None,
             sensitivity=False, options=None):
    """Reads the paths itself; the values times the option 'scale'."""
    from evalkit.io import read_qrels, read_run
    import evalkit.engine.evaluate as ev

    CALLS.append(("files", dict(options or {}), sensitivity, [str(p) for p in runs]))
    q = read_qrels(qrels)
    names = list(names) if names is not None else [None] * len(runs)
    rs = [read_run(p, name=n) for p, n in zip(runs, names)]
    if namer is not None:
        rs = [r.renamed(n) for r, n in zip(rs, namer([str(p) for p in runs], rs))]
    return _scaled(ev.evaluate(q, rs, flavours, labels=labels, registry=registry), options["scale"])


@hookimpl
def evalkit_register_engines(register):
    register(Engine("halves", halves, description="test: in process, halved"))
    register(Engine("byfiles", lambda *a, **k: None, description="test: reads files", files=by_files,
                    in_process=False, options=(EngineOption("scale", default=1.0),)))
'''


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """A fake installed distribution whose entry point registers the two backends."""
    monkeypatch.delenv(DISABLE_ENV, raising=False)
    module = "evk_fake_backends"
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(PLUGIN))
    info = tmp_path / "evalkit_fake_backends-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evalkit-fake-backends\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[evalkit]\nfake_backends = {module}\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    def entry_points():
        return [ep for dist in md.distributions(path=[str(tmp_path)]) for ep in dist.entry_points
                if ep.group == registry_mod.ENTRY_POINT_GROUP]

    monkeypatch.setattr(registry_mod, "_entry_points", entry_points)
    registry_mod._cached.cache_clear()
    yield __import__(module)
    registry_mod._cached.cache_clear()
    sys.modules.pop(module, None)


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 a 1\nq2 0 d 1\n")
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 c 1 3.0 sys\nq1 Q0 a 2 2.0 sys\nq1 Q0 b 3 1.0 sys\n"
                   "q2 Q0 d 1 2.0 sys\nq2 Q0 x 2 1.0 sys\n")
    return str(qrels), str(run)


def _tsv(capsys, argv: list[str]) -> dict[tuple[str, str], float]:
    assert main(argv) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    return {(m.strip(), q): float(v) for m, q, v in (line.split("\t") for line in out.splitlines())}


def test_a_plugin_backend_is_used_by_evalkit_eval(plugin, files, capsys):
    qrels, run = files
    args = ["eval", qrels, run, "-m", "ndcg(gain=exp2)@3", "-q", "--format", "tsv"]
    local = _tsv(capsys, args)
    # exp2 gains, log2 discount: q1 ranks c, a, b -> DCG 3/log2(3) + 1/2 over IDCG 3 + 1/log2(3)
    q1 = (3 / np.log2(3) + 0.5) / (3 + 1 / np.log2(3))
    (measure,) = {m for m, _ in local}
    assert local[(measure, "q1")] == pytest.approx(round(q1, 4))
    halved = _tsv(capsys, args + ["--engine", "halves"])
    assert halved == {key: pytest.approx(v / 2, abs=6e-5) for key, v in local.items()}
    assert plugin.CALLS[-1] == ("halves", ["labels", "registry", "subtopics"])
    scaled = _tsv(capsys, args + ["--engine", "byfiles", "--engine-option", "scale=0.25"])
    assert scaled == {key: pytest.approx(v / 4, abs=6e-5) for key, v in local.items()}
    assert plugin.CALLS[-1] == ("files", {"scale": "0.25"}, False, [run])
    _tsv(capsys, args + ["--engine", "byfiles"])
    assert plugin.CALLS[-1][1] == {"scale": 1.0}  # the option's default


def test_backend_options_are_checked(plugin, files, capsys):
    qrels, run = files
    args = ["eval", qrels, run, "-m", "ndcg@3"]
    assert main(args + ["--engine", "byfiles", "--engine-option", "scal=2"]) == 2
    err = capsys.readouterr().err
    assert "engine 'byfiles' has no option 'scal' (its options: scale)" in err and "Traceback" not in err
    assert main(args + ["--engine", "halves", "--spark-master", "local[2]"]) == 2
    assert "--spark-master: not an option of --engine halves" in capsys.readouterr().err
    assert main(args + ["--engine", "byfiles", "--engine-option", "scale"]) == 2
    assert "expected KEY=VALUE" in capsys.readouterr().err
    assert main(args + ["--engine", "byfiles", "--bounds"]) == 2
    assert "--bounds: not available with --engine byfiles" in capsys.readouterr().err


def test_a_plugin_backend_is_used_by_the_config_engine_key(plugin, files):
    qrels, run = files
    config = {"qrels": qrels, "runs": [{"name": "s", "path": run}], "flavours": {"exp": "ndcg(gain=exp2)@3"}}
    local = evalkit.run_config(config, sensitivity=False).results.values
    got = evalkit.run_config({**config, "engine": {"name": "byfiles", "scale": 3}}, sensitivity=False)
    np.testing.assert_allclose(got.results.values, local * 3)
    assert plugin.CALLS[-1] == ("files", {"scale": 3}, False, [run])
    got = evalkit.run_config({**config, "engine": {"name": "halves"}}, sensitivity=False, store=False)
    np.testing.assert_allclose(got.results.values, local / 2)
    with pytest.raises(evalkit.ConfigError, match=r"engine\.scal: engine 'byfiles' has no option 'scal'"):
        evalkit.run_config({**config, "engine": {"name": "byfiles", "scal": 3}})
    with pytest.raises(evalkit.ConfigError, match=r"engine\.name: unknown engine 'nope'"):
        evalkit.run_config({**config, "engine": {"name": "nope"}})


def test_built_in_backends_implement_the_interface():
    columnar, spark = get_backend(), get_backend("spark")
    assert isinstance(columnar, Backend) and isinstance(spark, Backend)
    assert (columnar.name, columnar.in_process) == ("columnar", True)
    assert get_backend("local") is columnar
    assert (spark.name, spark.in_process) == ("spark", False)
    assert engine_options(spark, {"conf": {"a": "b"}}) == {"master": "local[*]", "conf": {"a": "b"}}
    with pytest.raises(evalkit.ConfigError, match="its options: none"):
        engine_options(columnar, {"master": "x"})
    assert EngineOption("k").flag == ""


def test_looking_up_the_spark_backend_imports_no_pyspark():
    import subprocess

    code = ("import sys; from evalkit.backends import get_backend; b = get_backend('spark'); "
            "from evalkit.cli import build_parser; build_parser(); "
            "print(sorted(m for m in ('pyspark', 'py4j') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PACKAGE.parent).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_cli_and_runner_name_no_engine():
    """The command line and the runner call backends through :mod:`evalkit.backends`
    only: no engine's name (nor alias) appears in their Python source."""
    names = set()
    registry = evalkit.default_registry()
    names.update(registry.names("engine"), registry.aliases("engine"))
    assert {"columnar", "local", "spark"} <= names
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names))) + r")\b", re.IGNORECASE)
    found = []
    for folder in ("cli", "runner"):
        for path in sorted((PACKAGE / folder).glob("*.py")):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if pattern.search(line):
                    found.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    assert found == []
