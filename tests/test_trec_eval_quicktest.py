"""trec_eval 9.0.8 and 10.0, built from their release sources in ../shared/references
(``reference_programs``), reproduce trec_eval's own ``make quicktest``: every command of the
``quicktest`` target of the release's Makefile (``./trec_eval ARGS | diff - test/out.*``),
run here with the built binary in the release's folder, prints exactly the expected file.

So the binaries the conformance suite uses as the reference of the ``trec_eval.*`` and
``trec_eval9.*`` presets are trec_eval as its maintainers test it. A missing archive,
compiler or ``make`` fails these tests (never a skip).
"""

from __future__ import annotations

import re
import shlex
import subprocess

import pytest

import reference_programs as rp

#: the commands of each release's quicktest target (counted in the release's Makefile)
QUICKTEST_COMMANDS = {"9.0.8": 11, "10.0": 15}


def quicktest_commands(folder) -> list[tuple[list[str], str]]:
    """``[(trec_eval arguments, expected output file)]`` from the Makefile's quicktest target."""
    lines, inside = [], False
    for line in (folder / "Makefile").read_text().splitlines():
        if line.startswith("quicktest:"):
            inside = True
            continue
        if inside and not line.startswith("\t"):
            break
        if inside:
            lines.append(line.strip())
    out = []
    for line in lines:
        if line.startswith("/bin/echo"):
            continue
        m = re.fullmatch(r"\./trec_eval (.*?) \| diff - (\S+)", line)
        assert m, f"{folder / 'Makefile'}: a quicktest line this test does not read: {line!r}"
        out.append((shlex.split(m.group(1)), m.group(2)))
    return out


@pytest.mark.parametrize("version", sorted(rp.TREC_EVAL_SHA256))
def test_built_trec_eval_reproduces_make_quicktest(version):
    binary = rp.trec_eval_binary(version)
    folder = binary.parent
    commands = quicktest_commands(folder)
    assert len(commands) == QUICKTEST_COMMANDS[version], [c for c, _ in commands]
    for args, expected in commands:
        done = subprocess.run([str(binary), *args], cwd=folder, capture_output=True, text=True)
        assert done.returncode == 0, f"trec_eval {version} {' '.join(args)}: exit {done.returncode}: {done.stderr}"
        want = (folder / expected).read_text()
        assert done.stdout == want, f"trec_eval {version} {' '.join(args)} differs from {expected}"
        assert want.strip(), expected


def test_quicktest_compares_real_output():
    """The comparison can fail: a changed expected value is caught (the 10.0 binary's
    ``all`` map line against a copy of test/out.test with that line altered)."""
    binary = rp.trec_eval_binary("10.0")
    done = subprocess.run([str(binary), "test/qrels.test", "test/results.test"], cwd=binary.parent,
                          capture_output=True, text=True, check=True)
    want = (binary.parent / "test" / "out.test").read_text()
    assert done.stdout == want
    altered = re.sub(r"^(map\s+all\s+)(\S+)", lambda m: m.group(1) + "0.9999", want, count=1, flags=re.M)
    assert altered != want and done.stdout != altered
