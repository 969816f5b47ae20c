"""The README's and docs' code runs as written.

* Every ```python block of ``README.md`` and ``docs/*.md`` is executed; the blocks of
  one file share a namespace and run in order (a later block may use an earlier one's
  names), as a reader pastes them into one session.
* Every ``evalkit ...`` command of a ```bash block is run as ``python -m evalkit ...``
  and must exit 0 without a traceback; commands with placeholders (``QRELS``,
  ``CONFIG.yaml``) and ``pip`` commands are not run.

Both run in a scratch copy of the checkout's ``configs/`` and ``examples/`` with
``../shared`` beside it (a link to the real ``../shared``), so relative paths resolve as
in a fresh clone and written reports land in the scratch folder, not in the repository.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import evalkit.registry as registry_mod

from conftest import shared_path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
DOC_FILES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

#: Commands run elsewhere in the suite with the same arguments (not run twice).
COVERED = {
    "evalkit run configs/robust03.yaml": "tests/test_robust03.py runs this config through the command line",
}

#: Files whose Python blocks need the evalkit-rbp plugin (loaded from its source folder).
NEEDS_RBP = {"plugins.md"}

_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
_PLACEHOLDER = re.compile(r"^[A-Z][A-Z_]*[A-Z](\.\w+)?$")


def blocks(path: Path, lang: str) -> list[tuple[int, str]]:
    """``(line of the first code line, code)`` of every fenced block in ``lang``."""
    text = path.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 2, m.group(2)) for m in _FENCE.finditer(text) if m.group(1) == lang]


def shell_commands(code: str) -> list[str]:
    """The ``evalkit ...`` commands of a shell block (continuations joined, comments
    dropped, ``a && b`` split)."""
    joined = re.sub(r"\\\n\s*", " ", code)
    out = []
    for line in joined.splitlines():
        for part in line.split("&&"):
            words = shlex.split(part, comments=True)
            if words[:1] == ["evalkit"]:
                out.append(" ".join(shlex.quote(w) for w in words))
    return out


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("docs")
    checkout = root / "checkout"
    checkout.mkdir()
    for name in ("configs", "examples"):
        shutil.copytree(REPO / name, checkout / name)
    if SHARED.is_dir():
        (root / "shared").symlink_to(SHARED, target_is_directory=True)
    return checkout


PY_CASES = [pytest.param(p, id=p.name) for p in DOC_FILES if blocks(p, "python")]
def _runnable(command: str) -> bool:
    return command not in COVERED and not any(_PLACEHOLDER.match(w) for w in shlex.split(command)[1:])


SH_CASES = [pytest.param(p, cmd, id=f"{p.name}: {cmd}") for p in DOC_FILES
            for _, code in blocks(p, "bash") for cmd in shell_commands(code) if _runnable(cmd)]


def test_the_docs_have_code():
    names = {p.values[0].name for p in PY_CASES}
    assert {"README.md", "training.md", "reports.md", "plugins.md", "flavour-model.md"} <= names
    assert any("evalkit eval" in p.values[1] for p in SH_CASES)


@pytest.mark.shared
@pytest.mark.parametrize("path", PY_CASES)
def test_python_blocks_run(path, workdir, monkeypatch):
    shared_path()  # fails (not skips) when ../shared/data is not beside the checkout
    monkeypatch.chdir(workdir)
    monkeypatch.syspath_prepend(str(REPO))
    if path.name in NEEDS_RBP:
        monkeypatch.syspath_prepend(str(REPO / "plugins" / "evalkit-rbp"))
        monkeypatch.setattr(registry_mod, "_entry_points",
                            lambda: [md.EntryPoint(name="rbp", value="evalkit_rbp", group="evalkit")])
    namespace: dict = {"__name__": f"docs_{path.stem}"}
    for line, code in blocks(path, "python"):
        compiled = compile("\n" * (line - 1) + code, str(path), "exec")
        try:
            exec(compiled, namespace)  # noqa: S102 - the project's own documentation
        except Exception as exc:  # noqa: BLE001
            raise AssertionError(f"{path.name}, block at line {line}: {type(exc).__name__}: {exc}") from exc


@pytest.mark.shared
@pytest.mark.parametrize("path, command", SH_CASES)
def test_shell_commands_run(path, command, workdir):
    words = shlex.split(command)
    shared_path()  # fails (not skips) when ../shared/data is not beside the checkout
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "evalkit", *words[1:]], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{path.name}: {command}\n{proc.stderr[-2000:]}"
    assert "Traceback" not in proc.stderr
