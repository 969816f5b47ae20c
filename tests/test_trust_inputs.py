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
