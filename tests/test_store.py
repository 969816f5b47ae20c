"""The results store (evalkit.store): cached re-runs, invalidation by content hash,
concurrent writers, refusal of foreign and damaged files, schema migration."""

from __future__ import annotations

import multiprocessing
import re
import sqlite3

import numpy as np
import pytest

import evalkit
from evalkit.cli import main
from evalkit.runner import run_config
from evalkit.store import ResultsStore, StoreError, db as store_db, file_digest
from evalkit.store.hashing import default_label, git_label

from gate_data import DROPPED, TOPICS, write_benchmark, write_qrels, write_run

#: evaluations per run of the benchmark config: 4 flavours (ndcg@5, ndcg@10, exp@5,
#: exp@10) x (value, low, high) + judged@5 and judged@10
PER_RUN = 4 * 3 + 2


def _cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _store_line(out: str) -> tuple[int, int, int]:
    m = re.search(r"reused (\d+) of (\d+) evaluations, computed (\d+)", " ".join(out.split()))  # wrapped
    assert m, out
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def test_the_same_values_as_without_a_store(tmp_path, registry):
    config = write_benchmark(tmp_path / "b", "tied")
    plain = run_config(config, registry=registry)
    first = run_config(config, registry=registry, store=True, label="one")
    again = run_config(config, registry=registry, store=True, label="two")
    assert first.metadata["_store"].computed == 2 * PER_RUN
    assert again.metadata["_store"].reused == 2 * PER_RUN and again.metadata["_store"].computed == 0
    for rep in (first, again):
        assert rep.results.labels == plain.results.labels and rep.results.flavours == plain.results.flavours
        assert list(rep.results.qids) == list(plain.results.qids)
        np.testing.assert_array_equal(rep.results.values, plain.results.values)
        for a, b in zip(rep.tie_bounds, plain.tie_bounds):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(rep.judged.values, plain.judged.values)
    # and the values are right: the tied topics score below 1 as scored, 1 at best
    s, f = plain.systems.index("candidate"), plain.labels.index("ndcg@10")
    q = [list(plain.qids).index(t) for t in DROPPED]
    assert (plain.results.values[s, f, q] < 0.8).all()
    np.testing.assert_allclose(plain.tie_bounds[1][s, f, q], 1.0)
    # the default store lies beside the config
    assert (tmp_path / "b" / ".evalkit" / "results.sqlite").is_file()


def test_second_run_computes_nothing_and_changed_inputs_recompute(tmp_path, capsys):
    config = write_benchmark(tmp_path, "perturbed")
    code, out, _ = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress", "--label", "v1")
    assert code == 0 and _store_line(out) == (0, 2 * PER_RUN, 2 * PER_RUN)
    code, out, _ = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress", "--label", "v1")
    assert code == 0 and _store_line(out) == (2 * PER_RUN, 2 * PER_RUN, 0)
    # one run changed: exactly its evaluations are computed again
    write_run(tmp_path / "candidate.run", "tied", "cand")
    code, out, _ = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress", "--label", "v2")
    assert code == 0 and _store_line(out) == (PER_RUN, 2 * PER_RUN, PER_RUN)
    # the qrels changed (one grade): everything depends on them
    write_qrels(tmp_path / "qrels.txt", change="q05")
    code, out, _ = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress", "--label", "v3")
    assert code == 0 and _store_line(out) == (0, 2 * PER_RUN, 2 * PER_RUN)
    # a new flavour: only it is computed
    text = config.read_text().replace('cutoffs: [5, 10]', 'cutoffs: [5, 10]\n').replace(
        "flavours:\n", "flavours:\n  rbp_like: \"ndcg(gain=linear,discount=none)@3\"\n")
    config.write_text(text)
    code, out, _ = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress", "--label", "v4")
    # the new flavour (value, low, high) and judged@3 per run
    assert code == 0 and _store_line(out) == (2 * PER_RUN, 2 * (PER_RUN + 4), 2 * 4)
    with ResultsStore(tmp_path / ".evalkit" / "results.sqlite") as store:
        assert [i.label for i in store.invocations()] == ["v1", "v1", "v2", "v3", "v4"]
        counts = store.counts()
    # every stored evaluation holds one value per topic, none twice
    assert counts["value"] == counts["evaluation"] * len(TOPICS)
    assert counts["evaluation"] == 2 * PER_RUN + PER_RUN + 2 * PER_RUN + 2 * 4


def test_no_store_and_store_flag(tmp_path, capsys):
    config = write_benchmark(tmp_path / "b")
    code, out, _ = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress", "--no-store")
    assert code == 0 and "reused" not in out and not (tmp_path / "b" / ".evalkit").exists()
    elsewhere = tmp_path / "elsewhere.sqlite"
    code, out, _ = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress", "--store", str(elsewhere))
    assert code == 0 and _store_line(out)[2] == 2 * PER_RUN and elsewhere.is_file()
    # store: {path: ...} in the config, relative to the config's directory
    config.write_text(config.read_text() + "store: {path: db/mine.sqlite}\n")
    code, out, _ = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress")
    assert code == 0 and (tmp_path / "b" / "db" / "mine.sqlite").is_file()
    config.write_text(config.read_text().replace("store: {path: db/mine.sqlite}", "store: false"))
    code, out, _ = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress")
    assert code == 0 and "reused" not in out
    config.write_text(config.read_text().replace("store: false", "store: 3"))
    code, _, err = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress")
    assert code == 2 and "store is true, false or {path: FILE}" in err and "config.yaml:" in err


def _writer(config, path, label, barrier, queue):
    try:
        barrier.wait(timeout=120)
        rep = run_config(config, store=path, label=label)
        use = rep.metadata["_store"]
        queue.put((label, use.reused, use.computed, rep.results.values.tolist()))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        queue.put((label, "error", repr(exc), None))


def test_four_processes_writing_one_store_store_every_value_once(tmp_path):
    config = write_benchmark(tmp_path, "tied")
    path = tmp_path / "shared.sqlite"
    ctx = multiprocessing.get_context("fork")
    barrier, queue = ctx.Barrier(4), ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(config, path, f"p{i}", barrier, queue)) for i in range(4)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=300)
        assert p.exitcode == 0
    assert all(r[1] != "error" for r in results), results
    assert all(r[1] + r[2] == 2 * PER_RUN for r in results)
    assert len({repr(r[3]) for r in results}) == 1  # the same values in every process
    with ResultsStore(path) as store:
        counts = store.counts()
        assert sorted(i.label for i in store.invocations()) == ["p0", "p1", "p2", "p3"]
        dup = store.conn.execute("SELECT count(*) FROM (SELECT qrels, run, measure, kind FROM evaluation "
                                 "GROUP BY qrels, run, subtopics, measure, kind, version HAVING count(*) > 1)"
                                 ).fetchone()[0]
    assert dup == 0
    assert counts["evaluation"] == 2 * PER_RUN
    assert counts["value"] == 2 * PER_RUN * len(TOPICS)
    assert counts["result"] == 4 * 2 * PER_RUN


def test_foreign_and_damaged_files_are_refused_untouched(tmp_path, capsys):
    config = write_benchmark(tmp_path / "b")
    text = tmp_path / "notes.txt"
    text.write_bytes(b"my notes, not a database\n" * 10)
    foreign = tmp_path / "other.sqlite"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE customers(name TEXT)")
    con.execute("INSERT INTO customers VALUES ('x')")
    con.commit()
    con.close()
    damaged = tmp_path / "damaged.sqlite"
    run_config(config, store=damaged, label="ok")
    data = bytearray(damaged.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # the first page's b-tree
    damaged.write_bytes(bytes(data))
    newer = tmp_path / "newer.sqlite"
    ResultsStore(newer).close()
    con = sqlite3.connect(newer)
    con.execute("PRAGMA user_version=99")
    con.commit()
    con.close()
    for path, why in [(text, "not an SQLite database"), (foreign, "another application"),
                      (damaged, "damaged or not an SQLite database"), (newer, "schema version 99")]:
        before = path.read_bytes()
        code, out, err = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress", "--store", str(path))
        assert code == 2, (path, err)
        assert err.startswith(f"evalkit: error: results store {path}: ") and why in err, err
        assert "Traceback" not in err and out == ""
        assert path.read_bytes() == before


def test_migration_path(tmp_path, monkeypatch):
    path = tmp_path / "s.sqlite"
    ResultsStore(path).close()
    calls = []

    def to_v2(conn):
        calls.append(1)
        conn.execute("ALTER TABLE invocation ADD COLUMN note TEXT")

    monkeypatch.setattr(store_db, "SCHEMA_VERSION", 2)
    monkeypatch.setitem(store_db.MIGRATIONS, 1, to_v2)
    with ResultsStore(path) as store:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == 2
        assert "note" in [r[1] for r in store.conn.execute("PRAGMA table_info(invocation)")]
    with ResultsStore(path):
        pass
    assert calls == [1]  # migrated once
    monkeypatch.setattr(store_db, "SCHEMA_VERSION", 3)
    with pytest.raises(StoreError, match="no migration from schema version 2"):
        ResultsStore(path)


def test_file_digest_streams_and_skips_pipes(tmp_path):
    import hashlib
    import os

    big = tmp_path / "big.bin"
    big.write_bytes(os.urandom(3 * (1 << 20) + 17))
    assert file_digest(big) == "sha256:" + hashlib.sha256(big.read_bytes()).hexdigest()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # a writer, so that opening does not block
    try:
        assert file_digest(fifo) is None
    finally:
        os.close(fd)


def test_labels(tmp_path):
    import subprocess

    assert git_label(tmp_path) is None
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", default_label(tmp_path))
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x", "PATH": __import__("os").environ["PATH"], "HOME": str(tmp_path)}
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, env=env)
    (tmp_path / "f").write_text("x")
    subprocess.run(["git", "-C", str(tmp_path), "add", "f"], check=True, env=env)
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-qm", "m"], check=True, env=env)
    head = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=True, env=env).stdout.strip()
    assert default_label(tmp_path) == head
    (tmp_path / "f").write_text("y")
    assert default_label(tmp_path) == head + "-dirty"


def test_evaluate_is_unchanged_for_the_library(tmp_path, registry):
    # run_config without store= and a config without store: writes nothing
    config = write_benchmark(tmp_path / "c")
    rep = run_config(config, registry=registry)
    assert "_store" not in rep.metadata and not (tmp_path / "c" / ".evalkit").exists()
    assert isinstance(rep, evalkit.report.Report)


def test_tie_bounds_are_computed_when_first_stored_without(tmp_path, capsys, registry):
    config = write_benchmark(tmp_path, "tied")
    code, out, _ = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress", "--no-sensitivity")
    # 4 flavours' values per run, no tie bounds, no judged@k
    assert code == 0 and _store_line(out) == (0, 2 * 4, 2 * 4)
    rep = run_config(config, registry=registry, store=True, label="full")
    use = rep.metadata["_store"]
    assert (use.reused, use.computed) == (2 * 4, 2 * (PER_RUN - 4))
    plain = run_config(config, registry=registry)
    for a, b in zip(rep.tie_bounds, plain.tie_bounds):
        np.testing.assert_array_equal(a, b)


@pytest.mark.shared
def test_realistic_rerun_matches_trec_eval(trec_eval_dir, tmp_path, capsys):
    """trec_eval's own test collection: the values a second run takes from the store are
    trec_eval 10.0's ndcg_cut.10 per topic."""
    from reference_programs import parse_trec_eval_q, run_trec_eval

    config = tmp_path / "te.yaml"
    config.write_text(f"qrels: {trec_eval_dir / 'qrels.test'}\nruns:\n  - {{name: test, path: "
                      f"{trec_eval_dir / 'results.test'}}}\nflavours:\n  ndcg: trec_eval.ndcg_cut@10\n")
    for expected in [(0, 4, 4), (4, 4, 0)]:  # 1 flavour (value, low, high) + judged@10
        code, out, err = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress")
        assert code == 0, err
        assert _store_line(out) == expected
    rep = run_config(config, store=True, label="again")
    assert rep.metadata["_store"].computed == 0
    ref = parse_trec_eval_q(run_trec_eval("10.0", ["-q", "-m", "ndcg_cut.10", trec_eval_dir / "qrels.test",
                                                   trec_eval_dir / "results.test"]).stdout)
    per_query = rep.results.per_query("test", "ndcg")  # the label of trec_eval.ndcg_cut@10
    topics = {q for (m, q) in ref if m == "ndcg_cut_10" and q != "all"}
    assert topics == set(per_query)
    for q in topics:
        assert per_query[q] == pytest.approx(float(ref[("ndcg_cut_10", q)]), abs=5e-5)


def test_a_default_store_that_cannot_be_created_is_left_out(tmp_path, capsys):
    config = write_benchmark(tmp_path / "b")
    (tmp_path / "b" / ".evalkit").write_text("a file where the store's directory would go")
    code, out, err = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress")
    assert code == 0 and "reused" not in out
    assert "evalkit: warning: results store not used: results store" in err and "cannot create" in err
    # a store asked for by name must work
    code, out, err = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress", "--store",
                          str(tmp_path / "b" / ".evalkit" / "x.sqlite"))
    assert code == 2 and "cannot create" in err


def test_a_plugin_component_is_part_of_the_key(monkeypatch):
    """A flavour using a plugin's component is keyed by the plugin's distribution and
    version too (a new plugin release is a new key); a built-in flavour by evalkit's."""
    import importlib.metadata as md
    from pathlib import Path

    import evalkit.registry as registry_mod
    from evalkit import build_registry, parse_flavour
    from evalkit._version import __version__
    from evalkit.store.cached import version_key

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "plugins" / "evalkit-rbp"))
    monkeypatch.setattr(registry_mod, "_entry_points",
                        lambda: [md.EntryPoint(name="rbp", value="evalkit_rbp", group="evalkit")])
    reg = build_registry(disable_plugins=False)
    plain = version_key(parse_flavour("ndcg@10", reg), reg)
    assert plain == f"evalkit {__version__}"
    key = version_key(parse_flavour("ndcg(discount=rbp(p=0.9))@10", reg), reg)
    assert key.startswith(f"evalkit {__version__}; discount=") and "entry point 'rbp'" in key
