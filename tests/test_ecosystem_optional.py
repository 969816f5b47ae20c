"""The ecosystem integrations stay optional: ``import evalkit``, ``evalkit eval`` and ``evalkit
run`` on files, and importing the integration modules themselves, load none of ir_measures,
ir_datasets, ranx or PyTerrier (issue 28). Each check runs in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
OPTIONAL = ("ir_measures", "ir_datasets", "ranx", "pyterrier", "numba")


def _loaded_after(code: str) -> list[str]:
    probe = (f"{code}\nimport sys, json\n"
             f"print(json.dumps(sorted(m for m in {OPTIONAL!r} if m in sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("code", [
    "import evalkit",
    "import evalkit.ecosystem, evalkit.ecosystem.ir_measures, evalkit.ecosystem.ir_datasets, evalkit.ecosystem.ranx",
    "import evalkit.io; evalkit.io.read_qrels('examples/quickstart/qrels.txt')",
], ids=["import evalkit", "import the integration modules", "read_qrels on a file"])
def test_imports_load_no_optional_library(code):
    assert _loaded_after(code) == []


@pytest.mark.parametrize("argv", [
    ["eval", "examples/quickstart/qrels.txt", "examples/quickstart/system_a.run", "-m", "nDCG@10", "-m",
     "trec_eval.ndcg_cut@10", "-q"],
    ["run", "configs/quickstart.yaml", "--no-sensitivity", "--output-dir", "{tmp}"],
], ids=["evalkit eval", "evalkit run"])
def test_commands_on_files_load_no_optional_library(argv, tmp_path):
    argv = [a.replace("{tmp}", str(tmp_path / "out")) for a in argv]
    code = ("from evalkit.cli import main\n"
            f"assert main({argv!r}) == 0")
    assert _loaded_after(code) == []


def test_importing_the_integration_does_not_need_the_library(monkeypatch):
    """With the libraries absent (``sys.modules[name] = None`` makes their import fail), the
    modules import and their functions raise MissingDependencyError naming the extra."""
    for name in ("ir_measures", "ranx", "ir_datasets"):
        monkeypatch.setitem(sys.modules, name, None)
    from evalkit.ecosystem import MissingDependencyError, ir_measures, ranx

    with pytest.raises(MissingDependencyError, match=r"evalkit-ndcg\[ir_measures\]"):
        ir_measures.measure("ndcg@10")
    with pytest.raises(MissingDependencyError, match=r"evalkit-ndcg\[ranx\]"):
        ranx.from_ranx_run({"q": {"d": 1.0}})
