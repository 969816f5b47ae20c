"""Report views (means, deltas, flavour agreement), renderers and atomic writing."""

from __future__ import annotations

import csv
import io
import json
import math
import os

import numpy as np
import pytest

import evalkit
from evalkit import Results, build_registry, parse_flavour
from evalkit.errors import ReportError
from evalkit.report import RENDERERS, Report, flavour_agreement, register_renderer, write_report
from evalkit.report import render as render_mod
from evalkit.report import write as write_mod


@pytest.fixture(scope="module")
def registry():
    return build_registry(disable_plugins=True)


def make_results(means_by_flavour: dict[str, list[float]], systems, registry, n_queries=2) -> Results:
    """Results whose per-query values average to the given means (values m-0.1, m+0.1)."""
    labels = tuple(means_by_flavour)
    flavours = tuple(parse_flavour(f"ndcg@{i + 1}", registry) for i in range(len(labels)))
    values = np.empty((len(systems), len(labels), n_queries))
    spread = np.linspace(-0.1, 0.1, n_queries)
    for f, label in enumerate(labels):
        for s, m in enumerate(means_by_flavour[label]):
            values[s, f] = m + spread
    qids = np.array([f"q{i}" for i in range(n_queries)], dtype=object)
    return Results(qids, tuple(systems), flavours, labels, values)


# ----------------------------------------------------------------------------- agreement


def test_kendall_tau_one_swap_by_hand():
    """4 systems; B swaps the top two: 5 concordant, 1 discordant pair -> tau = 4/6."""
    ag = flavour_agreement(np.array([[0.4, 0.3], [0.3, 0.4], [0.2, 0.2], [0.1, 0.1]]),
                           ["s1", "s2", "s3", "s4"], ["A", "B"])
    (p,) = ag.pairs
    assert p.tau == pytest.approx(2 / 3)
    assert p.n_pairs == 6
    assert p.flips == (("s1", "s2"),)  # s1 ahead under A, s2 ahead under B
    assert p.best_first == ("s1",) and p.best_second == ("s2",)
    assert ag.changes_conclusion
    assert "changes the conclusion" in ag.statement
    assert "s1 under A" in ag.statement and "s2 under B" in ag.statement
    assert ag.pair("B", "A").flips == (("s2", "s1"),)


def test_kendall_tau_b_with_a_tie_by_hand():
    """A = (3,2,1,0), C = (2,2,1,0): 5 concordant, 0 discordant, 1 pair tied in C only:
    tau-b = 5 / sqrt(6 * 5) = 0.91287; a tie is not a flip."""
    ag = flavour_agreement(np.array([[3, 2], [2, 2], [1, 1], [0, 0]], dtype=float),
                           ["a", "b", "c", "d"], ["A", "C"])
    (p,) = ag.pairs
    assert p.tau == pytest.approx(5 / math.sqrt(30))
    assert p.flips == ()
    assert p.best_second == ("a", "b")


def test_full_reversal_by_hand():
    ag = flavour_agreement(np.array([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0]]), ["x", "y", "z"], ["A", "B"])
    (p,) = ag.pairs
    assert p.tau == pytest.approx(-1.0)
    assert set(p.flips) == {("z", "y"), ("z", "x"), ("y", "x")}


def test_identical_orderings_do_not_change_conclusion():
    ag = flavour_agreement(np.array([[0.9, 0.5, 0.7], [0.5, 0.2, 0.3], [0.1, 0.1, 0.2]]),
                           ["a", "b", "c"], ["F1", "F2", "F3"])
    assert [p.tau for p in ag.pairs] == pytest.approx([1.0, 1.0, 1.0])
    assert all(p.flips == () for p in ag.pairs)
    assert not ag.changes_conclusion
    assert "does not change the conclusion" in ag.statement


def test_same_best_but_reordered():
    ag = flavour_agreement(np.array([[0.9, 0.9], [0.5, 0.4], [0.4, 0.5]]), ["a", "b", "c"], ["F", "G"])
    (p,) = ag.pairs
    assert p.flips == (("b", "c"),)
    assert p.tau == pytest.approx(1 / 3)
    assert not ag.changes_conclusion
    assert "does not change the best system (a" in ag.statement


def test_float_noise_is_not_a_flip():
    """0.1 + 0.2 and 0.3 differ by 5.6e-17: equal for ordering purposes."""
    ag = flavour_agreement(np.array([[0.1 + 0.2, 0.3], [0.3, 0.1 + 0.2]]), ["a", "b"], ["F", "G"])
    assert ag.pairs[0].flips == ()


def test_baseline_change():
    ag = flavour_agreement(np.array([[0.5, 0.5], [0.6, 0.4], [0.7, 0.6]]), ["base", "x", "y"], ["F", "G"],
                           baseline="base")
    assert len(ag.baseline_changes) == 1
    c = ag.baseline_changes[0]
    assert (c.system, c.better_under, c.worse_under) == ("x", ("F",), ("G",))
    assert ag.changes_conclusion  # best is y under both, but x vs baseline flips
    assert "x (better under F; worse under G)" in ag.statement


def test_nan_system_left_out_of_pairs():
    ag = flavour_agreement(np.array([[0.5, np.nan], [0.4, 0.3], [0.3, 0.2]]), ["a", "b", "c"], ["F", "G"])
    p = ag.pairs[0]
    assert p.n_pairs == 1 and p.tau == pytest.approx(1.0)


# ----------------------------------------------------------------------------- report views


def test_report_views(registry):
    res = make_results({"F": [0.4, 0.3, 0.2], "G": [0.3, 0.4, 0.2]}, ["a", "b", "c"], registry)
    rep = Report(res, baseline="a", metadata={"title": "T"})
    assert rep.version == evalkit.__version__
    np.testing.assert_allclose(rep.means, [[0.4, 0.3], [0.3, 0.4], [0.2, 0.2]])
    np.testing.assert_allclose(rep.deltas, [[0, 0], [-0.1, 0.1], [-0.2, -0.1]], atol=1e-12)
    assert rep.canonical == ("ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval)@1",
                             "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval)@2")
    assert rep.system_order("G") == [1, 0, 2]
    assert rep.agreement.pairs[0].flips == (("a", "b"),)
    assert len(rep.per_query_records()) == 3 * 2 * 2
    with pytest.raises(ValueError, match="baseline 'zz'"):
        Report(res, baseline="zz")


def test_renderers_round_trip(registry):
    res = make_results({"F": [0.4, 0.3], "G": [0.3, 0.4]}, ["a", "b"], registry, n_queries=3)
    values = res.values.copy()
    values[1, 0, 2] = np.nan  # b skipped q2 under F
    res = Results(res.qids, res.systems, res.flavours, res.labels, values)
    rep = Report(res, baseline="a")

    rows = list(csv.reader(io.StringIO(render_mod.to_csv(rep))))
    assert rows[0] == ["system", "F", "G"]
    got = np.array([[float(x) for x in r[1:]] for r in rows[1:]])
    np.testing.assert_array_equal(got, res.means())  # full precision
    assert got[1, 0] == pytest.approx((0.2 + 0.3) / 2)

    pq = list(csv.DictReader(io.StringIO(render_mod.per_query_csv(rep))))
    assert len(pq) == 2 * 2 * 3 - 1
    assert not any(r["system"] == "b" and r["flavour"] == "F" and r["qid"] == "q2" for r in pq)
    assert float(next(r for r in pq if (r["system"], r["flavour"], r["qid"]) == ("a", "G", "q1"))["value"]) \
        == values[0, 1, 1]

    data = json.loads(render_mod.to_json(rep))
    assert data["evalkit_version"] == evalkit.__version__
    assert [parse_flavour(f["canonical"], registry) for f in data["flavours"]] == list(res.flavours)
    assert data["means"]["b"]["F"] == pytest.approx(0.25)
    assert data["counts"]["b"]["F"] == 2
    assert data["deltas"]["b"]["G"] == pytest.approx(0.1)
    assert data["per_query"]["b"]["F"] == {"q0": pytest.approx(0.2), "q1": pytest.approx(0.3)}
    assert data["agreement"]["pairs"][0]["flips"] == [["a", "b"]]

    md = render_mod.to_markdown(rep)
    assert "## Flavour agreement" in md and rep.verdict[1] in md
    assert "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval)@2" in md
    text = render_mod.to_text(rep)
    assert "Flavour agreement" in text and "a (baseline)" in text


# ----------------------------------------------------------------------------- writing


@pytest.fixture
def report(registry):
    res = make_results({"F": [0.4, 0.3], "G": [0.3, 0.4]}, ["a", "b"], registry)
    return Report(res)


def test_write_all_formats(report, tmp_path):
    out = tmp_path / "deep" / "out"
    paths = write_report(report, out)
    assert sorted(p.name for p in paths) == ["means.csv", "per_query.csv", "report.json", "report.md"]
    assert sorted(os.listdir(out)) == ["means.csv", "per_query.csv", "report.json", "report.md"]
    assert (out / "means.csv").read_text() == render_mod.to_csv(report)
    paths = write_report(report, tmp_path / "only", ["json"])
    assert [p.name for p in paths] == ["report.json"]


def test_failing_renderer_writes_nothing(report, tmp_path, monkeypatch):
    def boom(rep):
        raise RuntimeError("renderer failed")

    monkeypatch.setitem(RENDERERS, "json", boom)
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="renderer failed"):
        write_report(report, out)  # json is rendered after markdown and csv
    assert not out.exists()


def test_failing_renderer_keeps_previous_report(report, tmp_path, monkeypatch):
    out = tmp_path / "out"
    write_report(report, out)
    before = {name: (out / name).read_text() for name in os.listdir(out)}

    def boom(rep):
        raise RuntimeError("renderer failed")

    monkeypatch.setitem(RENDERERS, "json", boom)
    other = Report(make_results({"F": [0.1, 0.9], "G": [0.2, 0.8]}, ["a", "b"], build_registry(disable_plugins=True)))
    with pytest.raises(RuntimeError):
        write_report(other, out)
    assert {name: (out / name).read_text() for name in os.listdir(out)} == before


def test_failure_while_writing_leaves_no_partial_files(report, tmp_path, monkeypatch):
    out = tmp_path / "out"
    calls = {"n": 0}
    real_fsync = os.fsync

    def flaky_fsync(fd):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(write_mod.os, "fsync", flaky_fsync)
    with pytest.raises(ReportError, match=r"output directory .*out: cannot write .* \(No space left on device\)"):
        write_report(report, out)
    assert os.listdir(out) == []  # no target file and no temporary file left


def test_unknown_format(report, tmp_path):
    with pytest.raises(ValueError, match="unknown output format.*xml.*known: markdown, csv, json"):
        write_report(report, tmp_path / "out", ["markdown", "xml"])
    assert not (tmp_path / "out").exists()


def test_register_renderer_adds_a_format(report, tmp_path, monkeypatch):
    monkeypatch.setitem(RENDERERS, "text", lambda rep: {"report.txt": render_mod.to_text(rep)})
    paths = write_report(report, tmp_path, ["text"])
    assert paths[0].read_text().startswith("evalkit report")
    with pytest.raises(ValueError, match="already has a renderer"):
        register_renderer("markdown", lambda rep: {})


# ----------------------------------------------------------------------------- terminal width


@pytest.fixture(scope="module")
def wide_report(registry):
    """14 flavours with long labels, 5 systems (one with a long name), a baseline: the
    unbounded table is far wider than 80 columns."""
    rng = np.random.default_rng(3)
    systems = ["bm25", "dense-retriever-with-a-long-name", "splade", "tfidf", "random"]
    means = {f"flavour_number_{i}@{10 * (i + 1)}": list(rng.uniform(0.1, 0.9, len(systems))) for i in range(14)}
    return Report(make_results(means, systems, registry, n_queries=6), baseline="bm25",
                  metadata={"title": "A title that is long enough to be wrapped " * 4})


@pytest.mark.parametrize("width", [80, 100, 200])
def test_text_fits_the_width_and_keeps_every_value(wide_report, width):
    """No line is wider than ``width``; the means table, split into blocks of flavours,
    still shows every mean (4 decimals) of every system exactly once."""
    unbounded = render_mod.to_text(wide_report)
    assert max(len(l) for l in unbounded.splitlines()) > 200
    text = render_mod.to_text(wide_report, width=width)
    lines = text.splitlines()
    assert max(len(l) for l in lines) <= width
    start = next(i for i, l in enumerate(lines) if l.startswith("Mean over queries"))
    end = next(i for i, l in enumerate(lines) if l.startswith("▲ / ▼") or l.startswith("Difference from"))
    seen = {}
    for i in range(start, end):
        if lines[i].startswith("system "):
            labels = lines[i].split()[1:]
            for row in lines[i + 2:i + 2 + 5]:
                cells = row.replace(" (baseline)", "").split()
                for label, cell in zip(labels, cells[1:]):
                    assert (cells[0], label) not in seen
                    seen[(cells[0], label)] = cell.rstrip("▲▼")
    assert len(seen) == 5 * 14
    for s, system in enumerate(wide_report.systems):
        for f, label in enumerate(wide_report.labels):
            assert seen[(system, label)] == f"{wide_report.means[s, f]:.4f}"


@pytest.mark.parametrize("width", [40, 60])
def test_text_wraps_a_system_name_wider_than_the_line(registry, width):
    """A 100-character system name (no space in it) and COLUMNS=60 (or 40): no line of
    what ``evalkit run`` prints is wider; in the means table the name is wrapped within
    its cell (read back whole) and its means (the ones the results were built with)
    are on its first line."""
    long = "system-" + "abcdefghij" * 9 + "xyz"
    assert len(long) == 100
    means = {"ndcg@10": [0.3, 0.5, 0.4], "P@10": [0.2, 0.25, 0.3]}
    report = Report(make_results(means, ["bm25", long, "splade"], registry, n_queries=6), baseline="bm25")
    text = render_mod.to_text(report, width=width)
    assert max(len(line) for line in text.splitlines()) <= width
    table = text.split("Mean over queries", 1)[1].split("▲ / ▼", 1)[0]
    got = {}
    for block in table.strip().split("\n\n")[1:]:  # after the caption: one block per flavour
        lines = block.splitlines()
        label, key = lines[0].split()[-1], lines[1].index(" ")
        entries = []  # [name, value] per system row; a row without a value continues the name
        for line in lines[2:]:
            head, rest = line[:key].strip(), line[key:].split()
            if rest:
                entries.append([head, rest[0].rstrip("▲▼")])
            else:
                entries[-1][0] += head
        for name, value in entries:
            got[(name.replace(" (baseline)", ""), label)] = value
    assert len(got) == 6
    for label, values in means.items():
        for system, mean in zip(["bm25", long, "splade"], values):
            assert got[(system, label)] == f"{mean:.4f}"


def test_text_best_system_per_flavour_is_the_column_maximum(wide_report):
    """The compact verdict: per flavour, the system with the highest mean (argmax)."""
    lines = render_mod.to_text(wide_report, width=80).splitlines()
    at = lines.index("Best system per flavour:")
    rows = lines[at + 4:at + 4 + 14]
    for f, row in enumerate(rows):
        label, system, mean = row.split()
        best = int(np.argmax(wide_report.means[:, f]))
        assert (label, system, mean) == (wide_report.labels[f], wide_report.systems[best],
                                         f"{wide_report.means[best, f]:.4f}")


def test_fit_table_splits_columns_into_blocks():
    from evalkit.report.text import fit_table

    rows = [["name", *(f"{v:5d}" for v in range(10))]]
    text = fit_table(rows, ["system", *(f"c{i}" for i in range(10))], ["left"] + ["right"] * 10, 30)
    blocks = text.split("\n\n")
    assert all(max(len(l) for l in b.splitlines()) <= 30 for b in blocks)
    assert [h for b in blocks for h in b.splitlines()[0].split()[1:]] == [f"c{i}" for i in range(10)]
    assert all(b.splitlines()[2].startswith("name") for b in blocks)


def _flip_results(gap: float, noise: float, seed: int = 1):
    """Two systems whose order two flavours reverse by ``gap`` on 40 queries."""
    from evalkit import Results, parse_flavour

    rng = np.random.default_rng(seed)
    q = 40
    base = rng.uniform(0.2, 0.8, size=q)
    a = np.stack([base + gap / 2, base - gap / 2]) + rng.normal(0, noise, size=(2, q))
    b = np.stack([base - gap / 2, base + gap / 2]) + rng.normal(0, noise, size=(2, q))
    flavours = (parse_flavour("ndcg@10"), parse_flavour("ndcg(gain=exp2)@10"))
    return Results(np.array([f"q{i}" for i in range(q)], dtype=object), ("run1", "run2"), flavours,
                   ("F", "G"), np.stack([a, b]))


def test_headline_counts_only_distinguishable_flips():
    """Issue 25: differences of +0.0003 / -0.0016 with no significant flip fired "the choice
    of flavour changes the conclusion" in every format. With tests, a flip counts only
    when significant under both flavours after the correction (and outside the tie spread)."""
    from evalkit.report.html import to_html
    from evalkit.report.render import to_markdown, to_text

    small = Report(_flip_results(0.002, 0.05), baseline="run1", statistics={"test": "t"})
    assert small.agreement.changes_conclusion  # the means flip ...
    assert not small.changes_conclusion  # ... but no test tells the systems apart
    text, md, html = to_text(small, width=100), to_markdown(small), to_html(small)
    for out in (text, md, html):
        assert "changes the conclusion:" not in out
        assert "Not distinguishable: run1 vs run2 (F / G)" in " ".join(out.split())
    assert 'class="verdict same"' in html
    big = Report(_flip_results(0.2, 0.02), baseline="run1", statistics={"test": "t"})
    assert big.changes_conclusion
    assert "The choice of flavour changes the conclusion: 1 of 1 flipped system pairs are distinguishable" \
        in " ".join(to_text(big, width=100).split())
