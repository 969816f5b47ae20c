"""docs/ci.md: the GitHub Actions job's evalkit commands, and the workstation block's,
run as written in a copy of the repository's configs/ and examples/ (no ../shared)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
CI_DOC = REPO / "docs" / "ci.md"
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)


def _blocks(lang: str) -> list[str]:
    return [m.group(2) for m in _FENCE.finditer(CI_DOC.read_text(encoding="utf-8")) if m.group(1) == lang]


def job_commands() -> list[str]:
    """The evalkit commands of the GitHub Actions job's run: steps, in order."""
    (workflow,) = _blocks("yaml")
    doc = yaml.safe_load(workflow)
    steps = doc["jobs"]["gates"]["steps"]
    return [line.strip() for s in steps if "run" in s for line in s["run"].splitlines()
            if line.strip().startswith("evalkit ")]


def shell_commands() -> list[str]:
    (block,) = _blocks("bash")
    return [line.split("#")[0].strip() for line in block.splitlines() if line.startswith("evalkit ")]


@pytest.fixture
def checkout(tmp_path) -> Path:
    root = tmp_path / "checkout"
    root.mkdir()
    for name in ("configs", "examples"):
        shutil.copytree(REPO / name, root / name, ignore=shutil.ignore_patterns(".evalkit"))
    return root


def _run(command: str, cwd: Path, env_extra=None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}  # the test's CI must not get ours
    env.update(PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]), **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "evalkit", *shlex.split(command)[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_the_job_has_the_commands():
    assert job_commands() == ["evalkit gate configs/ci.yaml --no-progress",
                              "evalkit history configs/ci.yaml --output-dir out/ci-history"]
    assert len(shell_commands()) == 3


def test_github_actions_job_runs(checkout, tmp_path):
    summary = tmp_path / "step-summary.md"
    for attempt in range(2):  # a first push (nothing stored) and the next one
        for command in job_commands():
            proc = _run(command, checkout, {"GITHUB_STEP_SUMMARY": str(summary)} if "gate" in command else None)
            assert proc.returncode == 0, (command, proc.stdout, proc.stderr)
            assert "Traceback" not in proc.stderr
    junit = ET.parse(checkout / "out" / "ci-gates" / "junit.xml").getroot()
    suite = junit.find("testsuite")
    assert suite.get("failures") == "0" and int(suite.get("tests")) == 5
    assert (checkout / "out" / "ci-history" / "history.html").is_file()
    assert summary.read_text().count("## evalkit gates: ci.yaml: passed") == 2


def test_a_regression_fails_the_job(checkout):
    (command, _history) = job_commands()
    assert _run(command, checkout).returncode == 0
    # the candidate ranks every topic upside down: gates fail, exit status 1
    run = checkout / "examples" / "quickstart" / "system_b.run"
    rows = [line.split() for line in run.read_text().splitlines() if line.strip()]
    run.write_text("".join(f"{q} {it} {d} {r} {-float(s)} {t}\n" for q, it, d, r, s, t in rows))
    proc = _run(command, checkout)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert re.search(r"^FAIL ", proc.stdout, re.M)


def test_workstation_commands_run(checkout):
    outputs = []
    for command in shell_commands():
        proc = _run(command, checkout)
        assert proc.returncode == 0, (command, proc.stdout, proc.stderr)
        outputs.append(" ".join(proc.stdout.split()))  # lines wrapped to the terminal
    assert "computed 14" in outputs[0] and "reused 14 of 14 evaluations, computed 0" in outputs[1]
    assert "History of ci.yaml: 2 labels" in outputs[2]
