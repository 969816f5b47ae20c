"""Integration: pip-install the real third-party plugin ``plugins/evalkit-rbp`` into a
fresh virtual environment and prove, in that environment's own Python, that

* its components are discovered through the ``evalkit`` entry point and their
  origin names the distribution ``evalkit-rbp``;
* a flavour that uses them evaluates (hand-computed values, and trec_eval's ``rbp``
  lines of ``out.test.aq`` when ``../shared/data`` is present);
* ``evalkit plugins`` lists them;
* ``EVALKIT_DISABLE_PLUGINS`` and ``evalkit --no-plugins`` hide them.

The virtual environment is created with ``--system-site-packages`` (and, when the
tests run inside a virtual environment themselves, with that environment's
site-packages added) so the evalkit under test (installed editable) and its
dependencies are visible; the plugin is
installed with ``--no-deps``. This test is part of the normal test command (the
``integration`` marker only labels it); it is skipped only if a virtual environment
cannot be created at all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parent.parent
PLUGIN_DIR = REPO_ROOT / "plugins" / "evalkit-rbp"
SHARED_TREC_EVAL = REPO_ROOT.parent / "shared" / "data" / "trec_eval_test"
TIMEOUT = 600  # against a hung subprocess only; nothing here asserts on time


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "EVALKIT_DISABLE_PLUGINS"}
    env.update(PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONDONTWRITEBYTECODE="1")
    env.update(extra)
    return env


def _run(args, cwd, env=None, check=True) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env or _env(), capture_output=True, text=True,
        timeout=TIMEOUT,
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"command failed ({proc.returncode}): {' '.join(map(str, args))}\n"
            f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
        )
    return proc


class Venv:
    def __init__(self, root: Path):
        self.root = root
        self.python = root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
        self.work = root.parent / "work"  # cwd: neither the repo nor the plugin source
        self.work.mkdir(exist_ok=True)

    def py(self, code: str, *args, env=None, check=True) -> subprocess.CompletedProcess:
        return _run([self.python, "-c", textwrap.dedent(code), *args], self.work, env, check)

    def json(self, code: str, *args, env=None):
        out = self.py(code, *args, env=env).stdout
        return json.loads(out.strip().splitlines()[-1])

    def cli(self, *args, env=None, check=True) -> subprocess.CompletedProcess:
        """``evalkit ARGS`` run by the environment's Python (its console script lives
        in the system environment and would not see the venv's plugins)."""
        code = "import sys; from evalkit.cli import main; sys.exit(main(sys.argv[1:]))"
        return _run([self.python, "-c", code, *args], self.work, env, check)


def _inherit_outer_environment(venv: Venv) -> None:
    """If the tests themselves run inside a virtual environment, ``--system-site-packages``
    exposes only the base interpreter's packages; add the running environment's
    site-packages (processing their ``.pth`` files, so an editable evalkit is found) to
    the new environment, after its own site-packages."""
    if sys.prefix == sys.base_prefix:
        return
    import site

    purelib = venv.py("import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
    lines = [f"import site; site.addsitedir({d!r})" for d in site.getsitepackages()]
    Path(purelib, "zz_outer_environment.pth").write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def rbp_venv(tmp_path_factory) -> Venv:
    root = tmp_path_factory.mktemp("rbp_venv") / "venv"
    made = subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(root)],
        capture_output=True, text=True, timeout=TIMEOUT,
    )
    if made.returncode != 0:
        # the one skip kept (issue 16): an interpreter built without the venv module (e.g.
        # Debian's python3 without python3-venv) cannot make one, and the project cannot
        # install that module from its own dependencies
        pytest.skip(f"cannot create a virtual environment with {sys.executable}: {made.stderr.strip()}")
    venv = Venv(root)
    _inherit_outer_environment(venv)
    # the evalkit under test is this checkout's (the editable install may point at
    # another worktree): a path entry comes before setuptools' editable finder
    purelib = venv.py("import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
    Path(purelib, "00_evalkit_under_test.pth").write_text(str(REPO_ROOT) + "\n")

    # The fresh environment must not see the plugin yet (unless the developer also
    # installed it system-wide, which the venv inherits).
    probe = """
        import importlib.metadata as md, json
        names = [ep.name for ep in md.entry_points(group="evalkit")]
        print(json.dumps(names))
    """
    system = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(probe)], capture_output=True, text=True,
        env=_env(), cwd=venv.work, timeout=TIMEOUT,
    )
    system_has_it = "rbp" in json.loads(system.stdout.strip() or "[]")
    before = venv.json(probe)
    if not system_has_it:
        assert "rbp" not in before

    # --no-build-isolation needs a setuptools that can build wheels by itself
    # (>= 70.1) or the 'wheel' package; otherwise let pip build in isolation, which
    # fetches setuptools from the configured package index.
    offline_build = venv.json("""
        import json, importlib.util, setuptools
        major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
        print(json.dumps((major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None))
    """)
    flags = ["--no-deps", "--no-build-isolation"] if offline_build else ["--no-deps"]
    _run([venv.python, "-m", "pip", "install", *flags, PLUGIN_DIR], venv.work)
    return venv


DISCOVERY = """
    import json, sys, importlib.metadata as md
    import evalkit, evalkit_rbp
    reg = evalkit.build_registry()
    qrels = evalkit.Qrels.from_rows([("q", "a", 0), ("q", "b", 3), ("q", "c", 2), ("q", "x", 1)])
    run = evalkit.Run.from_rows([("q", "a", 3.0), ("q", "b", 2.0), ("q", "c", 1.0)], name="sys")
    flavours = ["ndcg(discount=rbp(p=0.9))@2", "rbp(p=0.5)", "trec_eval.rbp"]
    res = evalkit.evaluate(qrels, run, flavours, registry=reg)
    out = {
        "plugins": reg.plugins,
        "origins": {f"{fam}:{name}": reg.get(fam, name).origin
                    for fam, name in [("discount", "rbp"), ("metric", "rbp"), ("preset", "trec_eval.rbp")]},
        "module_file": evalkit_rbp.__file__,
        "dist_name": md.distribution("evalkit-rbp").metadata["Name"],
        "entry_points": [(ep.name, ep.value, ep.dist.name) for ep in md.entry_points(group="evalkit")],
        "flavours": [str(f) for f in res.flavours],
        "values": res.values[0, :, 0].tolist(),
    }
    if len(sys.argv) > 1:  # trec_eval's test data: qrels.test + results.test
        d = sys.argv[1]
        te = evalkit.evaluate(evalkit.read_qrels(d + "/qrels.test"), evalkit.read_run(d + "/results.test"),
                              ["trec_eval.rbp"], registry=reg)
        out["trec_eval"] = dict(zip(map(str, te.qids), te.values[0, 0].tolist()))
    print(json.dumps(out))
"""


def test_discovered_through_entry_point_with_distribution_origin(rbp_venv):
    info = rbp_venv.json(DISCOVERY)
    origin = "evalkit-rbp 0.1.0 (entry point 'rbp')"
    assert info["plugins"] == {"rbp": origin}
    assert set(info["origins"].values()) == {origin}
    assert info["dist_name"] == "evalkit-rbp"
    assert ["rbp", "evalkit_rbp", "evalkit-rbp"] in info["entry_points"]
    # imported from the installed copy in the venv, not from the source tree
    module_file = Path(info["module_file"]).resolve()
    assert rbp_venv.root.resolve() in module_file.parents
    assert PLUGIN_DIR.resolve() not in module_file.parents


def test_flavours_using_the_plugin_evaluate(rbp_venv):
    args = [str(SHARED_TREC_EVAL)] if SHARED_TREC_EVAL.is_dir() else []
    info = rbp_venv.json(DISCOVERY, *args)
    assert info["flavours"] == [
        "ndcg(gain=linear,discount=rbp(p=0.9),idcg=judged,ties=trec_eval)@2",
        "rbp(p=0.5,ties=trec_eval)",
        "rbp(p=0.9,ties=trec_eval)",
    ]
    # ranking a(0), b(3), c(2); judged grades 3, 2, 1, 0 (largest grade 3)
    ndcg = (0 + 3 * 0.9) / (3 + 2 * 0.9)
    rbp_half = 0.5 * (0 + 0.5 * 3 / 3 + 0.25 * 2 / 3)
    rbp_09 = 0.1 * (0.9 * 3 / 3 + 0.81 * 2 / 3)
    assert info["values"] == pytest.approx([ndcg, rbp_half, rbp_09])
    if args:
        # trec_eval -m all_trec -q qrels.test results.test: the 'rbp' lines
        expected = {}
        for line in (SHARED_TREC_EVAL / "out.test.aq").read_text().splitlines():
            measure, qid, value = (p.strip() for p in line.split("\t"))
            if measure == "rbp" and qid != "all":
                expected[qid] = float(value)
        assert set(info["trec_eval"]) == set(expected) == {"301", "302", "303"}
        for qid, value in expected.items():
            assert abs(info["trec_eval"][qid] - value) <= 5e-5, qid


HIDDEN = """
    import json, evalkit
    reg = evalkit.build_registry()
    try:
        evalkit.parse_flavour("ndcg(discount=rbp(p=0.9))@10", reg)
        error = None
    except evalkit.FlavourError as exc:
        error = str(exc)
    print(json.dumps({"plugins": reg.plugins, "discounts": reg.names("discount"),
                      "metrics": reg.names("metric"), "error": error}))
"""


@pytest.mark.parametrize("value", ["1", "rbp", "other,rbp"])
def test_env_var_hides_the_plugin(rbp_venv, value):
    info = rbp_venv.json(HIDDEN, env=_env(EVALKIT_DISABLE_PLUGINS=value))
    assert info["plugins"] == {}
    assert "rbp" not in info["discounts"] and "rbp" not in info["metrics"]
    assert "log2" in info["discounts"]
    assert info["error"].startswith("unknown discount 'rbp'")


def test_env_var_naming_another_plugin_keeps_it(rbp_venv):
    info = rbp_venv.json(HIDDEN, env=_env(EVALKIT_DISABLE_PLUGINS="something-else"))
    assert list(info["plugins"]) == ["rbp"] and info["error"] is None


def test_cli_plugins_lists_it(rbp_venv):
    out = rbp_venv.cli("plugins").stdout
    assert "evalkit-rbp" in out
    lines = [line for line in out.splitlines() if "rbp" in line and "evalkit-rbp" in line]
    assert len(lines) >= 2, out  # the discount and the metric, each with its origin


def test_cli_no_plugins_hides_it(rbp_venv):
    out = rbp_venv.cli("--no-plugins", "plugins").stdout
    assert "evalkit-rbp" not in out
    assert "log2" in out  # built-ins are still listed
    out = rbp_venv.cli("plugins", env=_env(EVALKIT_DISABLE_PLUGINS="1")).stdout
    assert "evalkit-rbp" not in out and "log2" in out


@pytest.mark.shared
def test_cli_eval_prints_trec_eval_rbp_lines(rbp_venv, trec_eval_dir):
    """``evalkit eval -m trec_eval.rbp -q --format tsv`` prints exactly the ``rbp``
    lines of trec_eval's ``out.test.aq`` (``trec_eval -m all_trec -q``)."""
    out = rbp_venv.cli("eval", trec_eval_dir / "qrels.test", trec_eval_dir / "results.test",
                       "-m", "trec_eval.rbp", "-q", "--format", "tsv").stdout
    expected = [line for line in (trec_eval_dir / "out.test.aq").read_text().splitlines()
                if line.split("\t")[0].strip() == "rbp"]
    assert len(expected) == 4
    assert out.splitlines() == expected
