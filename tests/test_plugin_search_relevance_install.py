"""Integration: pip-install ``plugins/evalkit-search-relevance`` into a fresh virtual
environment, as a third party would (``pip install --no-deps <folder>``), and use it
there through the ``evalkit`` command: its presets are found through the entry point
with the distribution as origin, evaluate RRE's and Quepid's own test vectors, and
``EVALKIT_DISABLE_PLUGINS=search_relevance`` hides them. The environment is made as
``tests/test_plugin_install.py`` makes it (its helpers)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from test_plugin_install import REPO_ROOT, TIMEOUT, Venv, _env, _inherit_outer_environment, _run

pytestmark = pytest.mark.integration

PLUGIN_DIR = REPO_ROOT / "plugins" / "evalkit-search-relevance"
ORIGIN = "evalkit-search-relevance 0.1.0 (entry point 'search_relevance')"


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Venv:
    root = tmp_path_factory.mktemp("search_relevance_venv") / "venv"
    made = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(root)],
                          capture_output=True, text=True, timeout=TIMEOUT)
    if made.returncode != 0:
        pytest.skip(f"cannot create a virtual environment with {sys.executable}: {made.stderr.strip()}")
    v = Venv(root)
    _inherit_outer_environment(v)
    purelib = v.py("import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
    Path(purelib, "00_evalkit_under_test.pth").write_text(str(REPO_ROOT) + "\n")
    offline_build = v.json("""
        import json, importlib.util, setuptools
        major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
        print(json.dumps((major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None))
    """)
    flags = ["--no-deps", "--no-build-isolation"] if offline_build else ["--no-deps"]
    _run([v.python, "-m", "pip", "install", *flags, PLUGIN_DIR], v.work)
    return v


def _files(v: Venv) -> tuple[Path, Path]:
    """Quepid's javascript_scorer_test.rb:139-161 vector (query q) and RRE's
    NDCGAtKTestCase various-degree scenario (query r: grades 1, 2, 3, 4, 2, then 0)."""
    qrels = ["q 0 1 0", "q 0 2 3", "q 0 3 1"]
    run = ["q Q0 1 1 3 s", "q Q0 2 2 2 s", "q Q0 3 3 1 s"]
    for i, g in enumerate([1, 2, 3, 4, 2] + [0] * 10):
        qrels.append(f"r 0 d{i} {g}")
        run.append(f"r Q0 d{i} {i + 1} {15 - i} s")
    (v.work / "qrels.txt").write_text("\n".join(qrels) + "\n")
    (v.work / "run.txt").write_text("\n".join(run) + "\n")
    return v.work / "qrels.txt", v.work / "run.txt"


def test_installed_presets_evaluate_through_the_cli(venv):
    info = venv.json("""
        import json, evalkit, evalkit_search_relevance as m
        reg = evalkit.build_registry()
        print(json.dumps({"plugins": reg.plugins, "file": m.__file__,
                          "origins": [reg.get("preset", p).origin for p in ("rre.ndcg", "quepid.ndcg", "quepid.ndcg_cut")]}))
    """)
    assert info["plugins"] == {"search_relevance": ORIGIN} and set(info["origins"]) == {ORIGIN}
    assert venv.root.resolve() in Path(info["file"]).resolve().parents  # the installed copy
    qrels, run = _files(venv)
    out = venv.cli("eval", qrels, run, "-m", "rre.ndcg@4", "-m", "quepid.ndcg@10", "-m", "quepid.ndcg_cut@10",
                   "-q", "--format", "json").stdout
    per_query = json.loads(out)["runs"]["s"]["per_query"]
    assert per_query["r"]["rre.ndcg@4"] == 0.57  # NDCGAtKTestCase.java:205 (k = 4)
    exact = (7 / math.log2(3) + 0.5) / (7 + 1 / math.log2(3))
    for measure in ("quepid.ndcg@10", "quepid.ndcg_cut@10"):  # javascript_scorer_test.rb:160: 0.64
        assert round(per_query["q"][measure], 2) == 0.64
        assert per_query["q"][measure] == pytest.approx(exact, abs=1e-15)


def test_disabled_by_its_entry_point_name(venv):
    qrels, run = _files(venv)
    proc = venv.cli("eval", qrels, run, "-m", "rre.ndcg@10", env=_env(EVALKIT_DISABLE_PLUGINS="search_relevance"),
                    check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "rre.ndcg" in proc.stderr and "Traceback" not in proc.stderr
