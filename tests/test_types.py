"""The type check: ``python -m mypy`` from the repository root passes.

mypy reads its configuration from ``[tool.mypy]`` in ``pyproject.toml`` (``files =
["evalkit"]``, ``disallow_untyped_defs``, ``check_untyped_defs``; the third-party
libraries without type information listed in an override), so this is exactly the
command a contributor runs (docs/architecture.md, "Types"). mypy and the stub packages
it needs are in the ``test`` extra. A unit-layer test: no data, no network; mypy
keeps its cache in ``.mypy_cache/`` (git-ignored), so a second run takes seconds.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def test_mypy_passes_on_evalkit():
    proc = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=900)
    output = (proc.stdout + proc.stderr).strip()
    assert proc.returncode == 0, f"mypy failed (exit {proc.returncode}):\n{output}"
    assert "Success: no issues found" in output, output


def test_mypy_config_checks_evalkit_strictly():
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["files"] == ["evalkit"]
    assert config["disallow_untyped_defs"] is True
    assert config["check_untyped_defs"] is True


def test_py_typed_ships():
    """PEP 561: the empty marker exists and setuptools' package data lists it (building
    a wheel to look inside is left to the release; too slow for the unit layer)."""
    assert (REPO_ROOT / "evalkit" / "py.typed").is_file()
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["evalkit"]
