"""The set of report files is replaced as a whole (issue 9): no file of an earlier run
lingers beside a new set, temporaries of killed runs are removed by the next run, a
directory holding other files is refused, and a writer killed with SIGKILL at random
points leaves either the previous or the new complete set."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from evalkit import Results, parse_flavour
from evalkit.cli import main
from evalkit.errors import EvalkitError, ReportError
from evalkit.report import Report, write_files, write_report
from evalkit.report.write import remove_stale_temporaries

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def report(registry) -> Report:
    flavours = (parse_flavour("ndcg@5", registry), parse_flavour("ndcg", registry))
    values = np.array([[[0.5, 0.7], [0.4, 0.6]], [[0.6, 0.2], [0.3, 0.9]]])
    res = Results(np.array(["q1", "q2"], dtype=object), ("a", "b"), flavours, ("k5", "all"), values)
    return Report(res, metadata={"title": "t"})


def temporaries(directory: Path) -> list[str]:
    """Leftovers of report writes: temporary directories beside ``directory``,
    temporary files inside it."""
    beside = [p.name for p in directory.parent.iterdir() if p.name.startswith(f".{directory.name}.")]
    inside = [p.name for p in directory.iterdir() if p.name.endswith(".tmp")] if directory.is_dir() else []
    return beside + inside


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid  # reaped: no process has this id (until it is reused)


def test_fewer_formats_replace_the_whole_set(report, tmp_path):
    out = tmp_path / "out"
    write_report(report, out, ["markdown", "csv", "json", "latex", "html"])
    assert len(os.listdir(out)) == 6
    paths = write_report(report, out, ["json"])
    assert [p.name for p in paths] == ["report.json"]
    assert os.listdir(out) == ["report.json"]  # report.md, means.csv ... of the earlier run are gone
    assert temporaries(out) == []


def test_directory_with_other_files_is_refused(report, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    (out / "sub").mkdir()
    with pytest.raises(ReportError, match=r"notes\.txt, sub/") as err:
        write_report(report, out)
    assert isinstance(err.value, EvalkitError)
    assert sorted(os.listdir(out)) == ["notes.txt", "sub"] and temporaries(out) == []


def test_current_directory_is_refused(report, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ReportError, match="current directory"):
        write_report(report, ".")
    (tmp_path / "x").mkdir()
    monkeypatch.chdir(tmp_path / "x")
    with pytest.raises(ReportError, match="current directory"):
        write_report(report, tmp_path)
    assert os.listdir(tmp_path / "x") == []


def test_stale_temporaries_of_dead_processes_are_removed(report, tmp_path):
    out = tmp_path / "out"
    write_report(report, out)
    pid = dead_pid()
    stale_new = tmp_path / f".out.evalkit-new-{pid}-abc"
    stale_old = tmp_path / f".out.evalkit-old-{pid}-def"
    live = tmp_path / f".out.evalkit-new-{os.getpid()}-ghi"  # a run still writing: kept
    for d in (stale_new, stale_old, live):
        d.mkdir()
        (d / "report.md").write_text("partial")
    (out / ".report.md.k2j3.tmp").write_text("partial")  # an older evalkit's temporary file
    other = tmp_path / f".other.evalkit-new-{pid}-x"  # another output directory's: not ours to clean
    other.mkdir()
    write_report(report, out)
    assert not stale_new.exists() and not stale_old.exists() and live.exists() and other.exists()
    assert sorted(os.listdir(out)) == ["means.csv", "per_query.csv", "report.json", "report.md"]
    live.rename(tmp_path / "kept")
    assert remove_stale_temporaries(out) == []


def test_file_names_must_be_plain(tmp_path):
    for bad in ("../x.md", "a/b.md", "", ".."):
        with pytest.raises(ReportError, match="not a plain file name"):
            write_files({bad: "x"}, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_symlinked_output_directory_keeps_its_link(report, tmp_path):
    real = tmp_path / "real"
    write_report(report, real, ["json"])
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    write_report(report, link, ["markdown"])
    assert link.is_symlink() and os.listdir(link) == ["report.md"] and os.listdir(real) == ["report.md"]


# ----------------------------------------------------------------------------- faults

WRITER = textwrap.dedent("""
    import sys
    from evalkit.report.write import write_files
    out = sys.argv[1]
    filler = "x" * 400_000
    gen = int(sys.argv[2])
    print("ready", flush=True)
    while True:
        gen += 1
        names = ["report.md", "report.json", "means.csv"] if gen % 2 else ["report.tex", "per_query.csv"]
        write_files({n: f"{gen}\\n{filler}" for n in names}, out)
""")


def consistent(out: Path) -> int | None:
    """The generation of the one complete set in ``out`` (``None`` if empty); fails
    on a mixed or partial set."""
    names = sorted(os.listdir(out))
    if not names:
        return None
    gens = {(out / n).read_text().split("\n", 1)[0] for n in names}
    assert len(gens) == 1, f"mixed set: {names} {gens}"
    gen = int(gens.pop())
    expected = ["means.csv", "report.json", "report.md"] if gen % 2 else ["per_query.csv", "report.tex"]
    assert names == expected, f"incomplete set of generation {gen}: {names}"
    for n in names:
        assert len((out / n).read_text()) == len(f"{gen}\n") + 400_000
    return gen


def test_writer_killed_at_random_points_leaves_one_complete_set(tmp_path):
    rng = random.Random(20261124)
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    gen = 0
    for _ in range(12):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(out), str(gen)], stdout=subprocess.PIPE,
                                env=env, cwd=tmp_path)
        assert proc.stdout.readline().strip() == b"ready"
        time.sleep(rng.uniform(0.0, 0.4))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        if out.exists():
            gen = consistent(out) or gen
        gen += 10_000  # the next writer's generations differ from this one's
    # the next run cleans up and leaves one consistent set
    last = gen + 1 if (gen + 1) % 2 else gen + 2  # an odd generation writes report.md, report.json, means.csv
    write_files({name: f"{last}\n" + "x" * 400_000 for name in ("report.md", "report.json", "means.csv")}, out)
    assert temporaries(out) == []
    assert consistent(out) == last


def test_cli_run_killed_then_run_again(tmp_path):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d2 2\nq2 0 d1 1\n")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2.0 a\nq1 Q0 d2 2 1.0 a\nq2 Q0 d1 1 1.0 a\n")
    cfg = tmp_path / "c.yaml"
    cfg.write_text("qrels: qrels.txt\nruns:\n  - {name: a, path: a.run}\nflavours:\n  t: trec_eval.ndcg_cut@2\n"
                   "output:\n  dir: out\n  formats: [markdown, csv, json, latex]\n")
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    rng = random.Random(7)
    for _ in range(2):
        proc = subprocess.Popen([sys.executable, "-m", "evalkit", "--no-plugins", "run", str(cfg), "--no-progress"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path)
        time.sleep(rng.uniform(0.3, 2.5))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert main(["--no-plugins", "run", str(cfg), "--no-progress"]) == 0
    out = tmp_path / "out"
    assert temporaries(out) == []
    assert sorted(os.listdir(out)) == ["judged_at_k.csv", "means.csv", "per_query.csv", "report.json", "report.md",
                                       "report.tex", "tie_spread.csv"]


def test_unwritable_parent_is_a_clear_error(report, tmp_path, monkeypatch):
    from evalkit.report import write as write_mod

    out = tmp_path / "out"
    write_report(report, out, ["json"])

    def denied(**kwargs):  # what mkdtemp raises in a read-only parent (root is never denied)
        raise PermissionError(13, "Permission denied", kwargs.get("dir"))

    monkeypatch.setattr(write_mod.tempfile, "mkdtemp", denied)
    with pytest.raises(ReportError, match=r"cannot create the temporary directory .* \(Permission denied\)"):
        write_report(report, out, ["markdown"])
    assert os.listdir(out) == ["report.json"]


def test_killed_between_two_renames_restores_the_previous_set(report, tmp_path):
    # without renameat2 the swap is two renames; a kill between them leaves only the old set, aside
    out = tmp_path / "out"
    pid = dead_pid()
    aside = tmp_path / f".out.evalkit-old-{pid}-x"
    aside.mkdir()
    (aside / "report.json").write_text("{}")
    partial = tmp_path / f".out.evalkit-new-{pid}-y"
    partial.mkdir()
    assert remove_stale_temporaries(out) == [partial]
    assert os.listdir(out) == ["report.json"] and (out / "report.json").read_text() == "{}"
    assert not aside.exists() and not partial.exists()


def test_swap_by_two_renames_where_no_atomic_exchange(report, tmp_path, monkeypatch):
    from evalkit.report import write as write_mod

    monkeypatch.setattr(write_mod, "_exchange", lambda a, b: False)
    out = tmp_path / "out"
    write_report(report, out, ["markdown", "csv"])
    write_report(report, out, ["json"])
    assert os.listdir(out) == ["report.json"] and temporaries(out) == []


def _config_for(tmp_path: Path, out: Path) -> Path:
    (tmp_path / "qrels").write_text("1 0 a 1\n")
    (tmp_path / "r.run").write_text("1 Q0 a 1 5 r\n")
    path = tmp_path / "c.yaml"
    path.write_text(f"qrels: qrels\nruns: [{{path: r.run}}]\nflavours: {{a: ndcg}}\noutput: {{dir: '{out}'}}\n")
    return path


def test_full_disk_is_refused_before_the_evaluation(tmp_path, monkeypatch, capsys):
    """Issue 25: a full disk was reported only after the whole evaluation, without the
    path. Now `evalkit run` checks the free space first and names the directory."""
    import shutil

    from evalkit.report import write as write_mod
    from evalkit import runner

    out = tmp_path / "out"
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(write_mod.shutil, "disk_usage", lambda p: usage._replace(free=1000))
    monkeypatch.setattr(runner, "run_config", lambda *a, **k: pytest.fail("evaluated before checking the output"))
    assert main(["run", str(_config_for(tmp_path, out)), "--no-sensitivity", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"output directory {out.resolve()}: only 1,000 bytes free on its file system" in err
    assert not out.exists()


def test_a_failed_write_names_the_directory_and_keeps_the_previous_set(report, tmp_path, monkeypatch):
    """ENOSPC while writing (the check passed, the disk filled meanwhile): a ReportError
    naming the directory and the file; the previous set stays, no temporaries."""
    import errno

    from evalkit.report import write as write_mod

    out = tmp_path / "out"
    write_report(report, out, ["json"])
    before = (out / "report.json").read_text()

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(write_mod.os, "fsync", full)
    with pytest.raises(ReportError, match=rf"output directory {out.resolve()}: cannot write report.md "
                                          r"\(No space left on device\); its previous contents are untouched"):
        write_report(report, out, ["markdown"])
    assert os.listdir(out) == ["report.json"] and (out / "report.json").read_text() == before
    assert temporaries(out) == []


def test_a_mount_point_is_refused_up_front(tmp_path, monkeypatch):
    """A mount point cannot be swapped (rename fails across file systems, EBUSY/EXDEV):
    refused before anything is evaluated, naming the path and a directory inside it."""
    from evalkit.report import write as write_mod
    from evalkit.report.write import check_output_directory

    out = tmp_path / "mnt"
    out.mkdir()
    real = os.path.ismount
    monkeypatch.setattr(write_mod.os.path, "ismount", lambda p: Path(p) == out.resolve() or real(p))
    with pytest.raises(ReportError, match=rf"output directory {out.resolve()}: is a mount point; .* "
                                          rf"\(for example {out.resolve() / 'report'}\)"):
        check_output_directory(out)
    check_output_directory(out / "report")  # inside it: fine
