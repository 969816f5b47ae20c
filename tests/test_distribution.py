"""The distribution name: ``evalkit`` on the package index is an unrelated package
("EVolutionary ALgorithms KITs"), so evalkit is published as ``evalkit-ndcg`` while
``import evalkit`` and the ``evalkit`` command keep their names; the bundled plugin
depends on the new name."""

from __future__ import annotations

import importlib.metadata as md
import re
import tomllib
from pathlib import Path

import evalkit

REPO = Path(__file__).resolve().parent.parent
DIST = "evalkit-ndcg"


def _project(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))["project"]


def test_distribution_name_and_plugin_dependency():
    project = _project(REPO / "pyproject.toml")
    assert project["name"] == DIST
    assert project["scripts"] == {"evalkit": "evalkit.cli:main"}
    assert project["version"] == evalkit.__version__
    plugin = _project(REPO / "plugins" / "evalkit-rbp" / "pyproject.toml")
    names = [re.match(r"[A-Za-z0-9_.-]+", dep).group() for dep in plugin["dependencies"]]
    assert DIST in names and "evalkit" not in names


def test_installed_console_script_comes_from_the_new_distribution():
    """The ``evalkit`` console script of the environment is owned by ``evalkit-ndcg``
    (an install made before the rename still names ``evalkit``: reinstall with
    ``pip uninstall -y evalkit && pip install -e ".[test]"``)."""
    owners = {ep.dist.name for ep in md.entry_points(group="console_scripts")
              if ep.name == "evalkit" and ep.value == "evalkit.cli:main"}
    assert DIST in owners, f"the evalkit command is installed by {sorted(owners)}; reinstall"
    assert md.version(DIST) == evalkit.__version__
    assert md.distribution(DIST).metadata["Name"] == DIST


def test_plugin_tutorial_depends_on_the_new_name():
    """docs/plugins.md's tutorial pyproject.toml names the distribution, not the module."""
    import re

    text = (REPO / "docs" / "plugins.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```toml\n(.*?)```", text, re.S)
    deps = tomllib.loads(block)["project"]["dependencies"]
    assert DIST in deps and "evalkit" not in deps
