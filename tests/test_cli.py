"""The ``evalkit`` command line, called in-process through ``main([...])``."""

from __future__ import annotations

import json
import math
import shutil
import textwrap

import numpy as np
import pytest

import evalkit
from evalkit import build_registry, evaluate, read_qrels, read_run
from evalkit.cli import COMMANDS, main
from evalkit.explain import explain_query
from evalkit.resolve import resolve_flavour
from evalkit.report.views import agreement_summary
from evalkit.cli.specs import expand_measure

# A small hand-checked example: d5 (grade 1) is judged but not returned.
QRELS = "q1 0 d1 3\nq1 0 d2 2\nq1 0 d3 0\nq1 0 d4 0\nq1 0 d5 1\nq2 0 x 1\n"
RUN = "q1 Q0 d1 1 4.0 sys\nq1 Q0 d2 2 3.0 sys\nq1 Q0 d3 3 2.0 sys\nq1 Q0 d4 4 1.0 sys\nq2 Q0 x 1 1.0 sys\n"
RUN_TIED = "q1 Q0 d1 1 3.0 tied\nq1 Q0 d2 2 3.0 tied\nq1 Q0 d3 3 2.0 tied\nq1 Q0 d4 4 1.0 tied\n"


@pytest.fixture(scope="module")
def registry():
    return build_registry(disable_plugins=True)


@pytest.fixture
def small(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "sys.run").write_text(RUN)
    (tmp_path / "tied.run").write_text(RUN_TIED)
    return tmp_path


def trec_eval_lines(path, measures):
    """Lines of a trec_eval output file for the given measure names, in file order."""
    out = []
    for line in path.read_text().splitlines():
        parts = line.split()
        if parts and parts[0] in measures:
            out.append(line)
    return out


def run_cli(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ----------------------------------------------------------------------------- eval


@pytest.mark.shared
def test_eval_tsv_reproduces_trec_eval_per_query(trec_eval_dir, capsys):
    code, out, err = run_cli(capsys, "--no-plugins", "eval", str(trec_eval_dir / "qrels.test"),
                             str(trec_eval_dir / "results.test"), "-m", "trec_eval.ndcg",
                             "-m", "trec_eval.ndcg_cut@10", "-q", "--format", "tsv")
    assert code == 0, err
    expected = trec_eval_lines(trec_eval_dir / "out.test.aq", {"ndcg", "ndcg_cut_10"})
    assert len(expected) == 8  # 3 queries + all, two measures
    assert out.splitlines() == expected  # same text, same order (per query, then all)


@pytest.mark.shared
def test_eval_tsv_preset_default_cutoffs(trec_eval_dir, capsys):
    """trec_eval.ndcg_cut without @k gives trec_eval's nine ndcg_cut_k measures."""
    code, out, err = run_cli(capsys, "eval", str(trec_eval_dir / "qrels.test"), str(trec_eval_dir / "results.test"),
                             "-m", "trec_eval.ndcg_cut", "--format", "tsv")
    assert code == 0, err
    names = {f"ndcg_cut_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)}
    expected = [l for l in trec_eval_lines(trec_eval_dir / "out.test.a", names)]
    assert sorted(out.splitlines()) == sorted(expected)
    assert len(expected) == 9


@pytest.mark.shared
def test_eval_several_runs_prefix_the_run_name(trec_eval_dir, tmp_path, capsys):
    shutil.copy(trec_eval_dir / "results.test", tmp_path / "a.run")
    shutil.copy(trec_eval_dir / "results.test", tmp_path / "b.run")
    code, out, _ = run_cli(capsys, "eval", str(trec_eval_dir / "qrels.test"), str(tmp_path / "a.run"),
                           str(tmp_path / "b.run"), "-m", "trec_eval.ndcg", "--format", "tsv")
    assert code == 0
    # both files have runid STANDARD, so the file names tell them apart
    assert out.splitlines() == ["a.run\tndcg                  \tall\t0.4021",
                                "b.run\tndcg                  \tall\t0.4021"]


def test_eval_table_and_json_match_peers(small, capsys, registry):
    """The CLI's JSON and table against peers, not against evaluate: pytrec_eval's ndcg
    for trec_eval.ndcg, ranx's ndcg_burges@3 for the exp2 flavour (the run has no ties
    and retrieves every query, so ranx's stable order and missing=zero change nothing)."""
    import pytrec_eval
    import ranx

    spec = "ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval)@3"
    code, out, _ = run_cli(capsys, "eval", str(small / "qrels.txt"), str(small / "sys.run"), "-m", spec,
                           "-m", "trec_eval.ndcg", "--format", "json", "-q")
    assert code == 0
    data = json.loads(out)
    qrels: dict = {}
    for line in QRELS.splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    run: dict = {}
    for line in RUN.splitlines():
        q, _, d, _, sc, _ = line.split()
        run.setdefault(q, {})[d] = float(sc)
    te = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg"}).evaluate(run)
    rq, rr = ranx.Qrels(qrels), ranx.Run(run)
    burges_mean = float(ranx.evaluate(rq, rr, "ndcg_burges@3"))
    assert data["evalkit_version"] == evalkit.__version__
    assert [m["native"] for m in data["measures"]] == [spec, "ndcg"]
    assert data["runs"]["sys"]["all"][spec] == pytest.approx(burges_mean, abs=1e-12)
    for q in ("q1", "q2"):
        assert data["runs"]["sys"]["per_query"][q]["trec_eval.ndcg"] == pytest.approx(te[q]["ndcg"], abs=1e-12)
        assert data["runs"]["sys"]["per_query"][q][spec] == pytest.approx(float(rr.scores["ndcg_burges@3"][q]),
                                                                        abs=1e-12)
    # by hand: q1 linear/log2/judged, no cutoff: (3 + 2/log2 3) / (3 + 2/log2 3 + 1/log2 4)
    dcg = 3 + 2 / math.log2(3)
    assert data["runs"]["sys"]["per_query"]["q1"]["trec_eval.ndcg"] == pytest.approx(dcg / (dcg + 0.5))

    code, out, _ = run_cli(capsys, "eval", str(small / "qrels.txt"), str(small / "sys.run"), "-m", "trec_eval.ndcg")
    assert code == 0
    assert "trec_eval.ndcg" in out and f"{np.mean([v['ndcg'] for v in te.values()]):.4f}" in out


def _table_cells(text: str) -> dict[tuple[str, ...], dict[str, str]]:
    """A table printed by ``evalkit eval`` read back: ``{row key: {column header: cell}}``,
    over every block of columns (blocks repeat the key columns, headers may be folded
    onto several lines); columns are located by the dashed rule under the headers."""
    cells: dict[tuple[str, ...], dict[str, str]] = {}
    for block in text.strip("\n").split("\n\n"):
        lines = block.splitlines()
        rule = next(i for i, line in enumerate(lines) if set(line) <= {"-", " "})
        spans = [(m.start(), m.end()) for m in __import__("re").finditer(r"-+", lines[rule])]
        spans[-1] = (spans[-1][0], None)  # the last column runs to the end of the line
        headers = ["".join(line[a:b].strip() for line in lines[:rule]) for a, b in spans]
        nkey = headers.index(next(h for h in headers if h not in ("run", "qid")))
        for line in lines[rule + 1:]:
            row = [line[a:b].strip() for a, b in spans]
            cells.setdefault(tuple(row[:nkey]), {}).update(zip(headers[nkey:], row[nkey:]))
    return cells


@pytest.mark.shared
@pytest.mark.parametrize("columns", [80, 100])
def test_eval_table_fits_the_terminal_width(columns, capsys, monkeypatch):
    """``evalkit eval`` with many flavours on two Robust 2003 runs, COLUMNS=80 and 100:
    no line is longer than COLUMNS, every (run, measure) mean is printed (columns split
    into blocks, a long flavour folded at its commas) and equals pytrec_eval's; per-query
    tables keep both key columns in every block; tsv and json never wrap."""
    import pytrec_eval

    from conftest import shared_path, to_pytrec

    d = shared_path("trectools_robust03")
    qrels_path = str(d / "robust03_qrels.txt")
    run_paths = [str(d / "runs" / f"input.{n}.gz") for n in ("humR03dc", "uic0301")]
    long_spec = "ndcg(gain=exp2,discount=log2,idcg=judged,ties=average,empty=one,missing=zero)@10"
    argv = ["eval", qrels_path, *run_paths, "-m", "all_trec", "-m", long_spec,
            "-m", "sklearn.ndcg_score@10", "-m", "ranx.ndcg@20"]
    monkeypatch.setenv("COLUMNS", str(columns))
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= columns
    assert len(out.split("\n\n")) > 1  # the table did not fit whole: it was split
    cells = _table_cells(out)
    assert set(cells) == {("humR03dc",), ("uic0301",)}
    code, js, _ = run_cli(capsys, *argv, "--format", "json")
    data = json.loads(js)
    labels = [m["label"] for m in data["measures"]]
    assert long_spec in labels and len(labels) > 40
    qrels = read_qrels(qrels_path)
    for path in run_paths:
        run = read_run(path)
        row = cells[(run.name,)]
        assert list(row) == labels  # every measure, in order, none lost
        for label in labels:
            mean = data["runs"][run.name]["all"][label]
            assert row[label] == ("-" if mean is None else f"{mean:.4f}")
        q, r = to_pytrec(qrels, run)
        peer = pytrec_eval.RelevanceEvaluator(q, {"ndcg_cut.10", "map", "P.10", "ndcg"}).evaluate(r)
        for label, key in (("ndcg_cut.10", "ndcg_cut_10"), ("map", "map"), ("P.10", "P_10"), ("ndcg", "ndcg")):
            assert row[label] == f"{np.mean([v[key] for v in peer.values()]):.4f}"

    # per query: both key columns (run, qid) in every block, every value kept
    code, out, _ = run_cli(capsys, "eval", qrels_path, *run_paths, "-m", long_spec, "-m", "trec_eval.ndcg_cut@10",
                           "-m", "sklearn.ndcg_score@10", "-m", "ranx.ndcg@20", "-m", "trec_eval.ndcg", "-q")
    assert code == 0 and max(len(line) for line in out.splitlines()) <= columns
    cells = _table_cells(out)
    assert len(cells) == 2 * 101  # 100 topics and 'all' per run
    assert all(len(row) == 5 for row in cells.values())
    run = read_run(run_paths[1])
    q, r = to_pytrec(qrels, run)
    peer = pytrec_eval.RelevanceEvaluator(q, {"ndcg_cut.10"}).evaluate(r)
    for qid, v in peer.items():
        assert cells[(run.name, qid)]["trec_eval.ndcg_cut@10"] == f"{v['ndcg_cut_10']:.4f}"

    # machine formats never wrap: the same bytes at any width, long lines kept whole
    for fmt in ("json", "tsv"):
        code, narrow, _ = run_cli(capsys, *argv, "--format", fmt)
        monkeypatch.setenv("COLUMNS", "1000")
        code, wide, _ = run_cli(capsys, *argv, "--format", fmt)
        monkeypatch.setenv("COLUMNS", str(columns))
        assert narrow == wide
    tsv = narrow.splitlines()  # tsv: one whole line per (run, measure), the long flavour unbroken
    # one line per (run, measure) and trec_eval's runid line per run (-m all_trec)
    assert len(tsv) == 2 * (len(labels) + 1) and all(len(line.split("\t")) == 4 for line in tsv)
    assert sum(long_spec in line for line in tsv) == 2


LONG_RUNID = "sys-" + "0123456789" * 9 + "abcdef"  # 100 characters, no space to wrap at


@pytest.mark.parametrize("per_query", [False, True])
def test_eval_table_wraps_a_run_name_wider_than_the_terminal(small, capsys, monkeypatch, per_query):
    """COLUMNS=60 and a 100-character run name: no line is longer than 60; the name
    is wrapped within its cell (read back whole from the cell's lines); every mean is
    printed and equals pytrec_eval's."""
    import pytrec_eval

    (small / "long.run").write_text(RUN.replace(" sys\n", f" {LONG_RUNID}\n"))
    monkeypatch.setenv("COLUMNS", "60")
    argv = ["eval", str(small / "qrels.txt"), str(small / "sys.run"), str(small / "long.run"),
            "-m", "trec_eval.ndcg_cut@10", "-m", "trec_eval.P@10"] + (["-q"] if per_query else [])
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 60
    # the first column of each block: a name continues on the lines below it while
    # their other cells are empty
    names, values = [], []
    for block in out.split("\n\n"):
        blines = block.splitlines()
        rule = next(i for i, line in enumerate(blines) if set(line) <= {"-", " "} and "-" in line)
        spans = [(m.start(), m.end()) for m in __import__("re").finditer(r"-+", blines[rule])]
        label = "".join(line[spans[-1][0]:].strip() for line in blines[:rule])
        for line in blines[rule + 1:]:
            cells = [line[a:b].strip() for a, b in spans[:-1]] + [line[spans[-1][0]:].strip()]
            if any(cells[1:]):
                names.append(cells[0])
                values.append((label, cells[1:]))
            else:  # the run name continues on this line
                names[-1] += cells[0]
    assert set(names) == {LONG_RUNID, "sys"}
    ref = pytrec_eval.RelevanceEvaluator({"q1": {"d1": 3, "d2": 2, "d3": 0, "d4": 0, "d5": 1}, "q2": {"x": 1}},
                                         {"ndcg_cut.10", "P.10"})
    peer = ref.evaluate({"q1": {"d1": 4.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}, "q2": {"x": 1.0}})
    want = {"trec_eval.ndcg_cut@10": np.mean([v["ndcg_cut_10"] for v in peer.values()]),
            "trec_eval.P@10": np.mean([v["P_10"] for v in peer.values()])}
    means = [(label, cells[-1]) for label, cells in values if not per_query or cells[0] == "all"]
    assert len(means) == 4  # two runs, two measures
    for label, cell in means:
        assert cell == f"{want[label]:.4f}"


def test_expand_measure_native_names(registry):
    assert [(m.label, m.native) for m in expand_measure("trec_eval.ndcg_cut@10", registry)] == \
        [("trec_eval.ndcg_cut@10", "ndcg_cut_10")]
    assert [m.native for m in expand_measure("trec_eval.ndcg", registry)] == ["ndcg"]
    # a cutoff on a preset whose native measure has none: no native name to borrow
    (m,) = expand_measure("trec_eval.ndcg@10", registry)
    assert m.native == "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval,missing=error)@10"
    labels = [m.label for m in expand_measure("trec_eval.ndcg_cut", registry)]
    assert labels[:2] == ["trec_eval.ndcg_cut@5", "trec_eval.ndcg_cut@10"]


# ----------------------------------------------------------------------------- plugins, flavours


def test_plugins_lists_components(capsys):
    code, out, _ = run_cli(capsys, "plugins", "--no-plugins")
    assert code == 0
    for title in ("Gains", "Discounts", "IDCG strategies", "Tie policies", "Metrics"):
        assert title in out
    assert "d(r) = 1 / log2(r + 1)" in out
    lines = out.splitlines()
    jarvelin = next(l for l in lines if l.startswith("jarvelin"))
    assert "base=2.0" in jarvelin
    # grouped by origin: the built-ins come under their origin's heading
    assert lines[0] == "== evalkit (built-in) ==" and [l for l in lines if l.startswith("== ")] == [lines[0]]
    assert "Third-party plugins loaded: none" in out

    code, out, _ = run_cli(capsys, "--no-plugins", "plugins", "--format", "json", "--family", "discount")
    data = json.loads(out)
    jar = next(c for c in data["discount"] if c["name"] == "jarvelin")
    assert jar["parameters"][0]["name"] == "base" and jar["parameters"][0]["default"] == 2.0
    assert jar["origin"] == "evalkit (built-in)"


def test_flavours_lists_presets(capsys):
    code, out, _ = run_cli(capsys, "--no-plugins", "flavours")
    assert code == 0
    (block,) = [b for b in out.split("\n\n") if b.splitlines()[0] == "trec_eval.ndcg_cut@k"]
    assert "composition: ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval,missing=error)@k" in " ".join(block.split())
    assert "native name: ndcg_cut_{k}" in block
    assert "d(r) = 1 / log2(r + 1)" in block
    assert "burges2005.ndcg" in out and "g(rel) = 2^rel - 1" in out


@pytest.mark.parametrize("pattern, expected", [
    ("trec_eval.ndcg*", {"trec_eval.ndcg", "trec_eval.ndcg_cut", "trec_eval.ndcg_p", "trec_eval.ndcg_rel"}),
    ("TREC_EVAL.ndcg_c?t", {"trec_eval.ndcg_cut"}),                # glob, case-insensitive, whole name
    ("eval.ndcg_c", {"trec_eval.ndcg_cut", "pytrec_eval.ndcg_cut"}),  # substring
])
def test_flavours_pattern_filters(capsys, pattern, expected):
    code, out, _ = run_cli(capsys, "--no-plugins", "flavours", pattern, "--format", "json")
    assert code == 0
    names = {p["name"] for p in json.loads(out)}
    assert names == expected
    code, out, err = run_cli(capsys, "--no-plugins", "flavours", "no-such-preset*")
    assert code == 1 and not out and "no preset matches 'no-such-preset*'" in err


# ----------------------------------------------------------------------------- explain


def test_explain_by_hand(small, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # the whole table side by side (narrower: blocks of columns)
    code, out, _ = run_cli(capsys, "explain", str(small / "qrels.txt"), str(small / "sys.run"),
                           "--query", "q1", "-m", "trec_eval.ndcg_cut@3")
    assert code == 0
    dcg = 3 + 2 / math.log2(3)
    idcg = dcg + 1 / math.log2(4)  # d5 (grade 1) is judged, not returned: it is in the ideal list
    last = out.strip().splitlines()[-1]
    assert last == f"DCG@3 = {dcg:.4f}   IDCG@3 = {idcg:.4f}   NDCG@3 = DCG/IDCG = {dcg / idcg:.4f}"
    rows = [l.split() for l in out.splitlines() if l.strip()[:1].isdigit()]
    assert [r[1] for r in rows] == ["d1", "d2", "d3"]
    assert [float(r[6]) for r in rows] == pytest.approx([3.0, 2 / math.log2(3), 0.0], abs=1e-4)
    assert [float(r[-1]) for r in rows] == pytest.approx([3.0, 3 + 2 / math.log2(3), idcg], abs=1e-4)


def test_explain_average_ties_by_hand(small, registry):
    ex = explain_query(read_qrels(small / "qrels.txt"), read_run(small / "tied.run"), "q1",
                       "ndcg(ties=average,idcg=returned)@4", registry)
    mean_disc = (1 + 1 / math.log2(3)) / 2  # ranks 1 and 2 tie
    assert [r.discount for r in ex.rows[:2]] == pytest.approx([mean_disc, mean_disc])
    assert ex.dcg == pytest.approx(5 * mean_disc)
    assert ex.idcg == pytest.approx(3 + 2 / math.log2(3))  # returned grades 3,2,0,0
    assert ex.value == pytest.approx(5 * mean_disc / (3 + 2 / math.log2(3)))


def _q1_tied_oracle(spec: str) -> float:
    """Query q1 of QRELS / RUN_TIED by an oracle independent of evalkit."""
    import itertools

    import pytrec_eval

    qrels = {"q1": {"d1": 3, "d2": 2, "d3": 0, "d4": 0, "d5": 1}}
    run = {"q1": {"d1": 3.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}}
    if spec.startswith("trec_eval9."):
        measure = {"trec_eval9.ndcg": ("ndcg", "ndcg"), "trec_eval9.ndcg_cut@2": ("ndcg_cut.2", "ndcg_cut_2")}[spec]
        return pytrec_eval.RelevanceEvaluator(qrels, {measure[0]}).evaluate(run)["q1"][measure[1]]
    exp2 = lambda g: 2.0**g - 1  # noqa: E731
    jarvelin3 = lambda r: 1.0 if r < 3 else math.log(3) / math.log(r)  # noqa: E731 - J&K 2002, b = 3
    natural = lambda r: 1 / math.log(r + math.e)  # noqa: E731 - evalkit's 'natural': 1 / ln(r + e)
    log2 = lambda r: 1 / math.log2(r + 1)  # noqa: E731

    def dcg(grades, disc, k):
        return sum(exp2(g) * disc(r) for r, g in enumerate(grades[:k], start=1))

    tail = [0, 0]  # d3, d4
    orders = [list(p) + tail for p in itertools.permutations([3, 2])]  # d1, d2 tied
    if spec == "ndcg(gain=exp2,discount=jarvelin(base=3),idcg=returned,ties=average)@3":
        # average over the tie orders; the ideal: the returned grades sorted, cut at 3
        return sum(dcg(o, jarvelin3, 3) for o in orders) / len(orders) / dcg([3, 2, 0, 0], jarvelin3, 3)
    if spec == "ndcg(gain=exp2,discount=natural,idcg=returned_top_k,ties=pessimistic)@2":
        worst = [2, 3] + tail  # pessimistic: the lower grade first among tied documents
        return dcg(worst, natural, 2) / dcg(sorted(worst[:2], reverse=True), natural, 2)
    if spec == "dcg(gain=exp2,discount=log2,ties=trec_eval)@3":
        return dcg([2, 3] + tail, log2, 3)  # trec_eval: ties by docno descending, d2 before d1
    raise AssertionError(spec)


@pytest.mark.parametrize("spec", [
    # trec_eval 9.0.8's (pytrec_eval's): the run lacks the qrels' q2, which 10.0 refuses
    "trec_eval9.ndcg",
    "trec_eval9.ndcg_cut@2",
    "ndcg(gain=exp2,discount=jarvelin(base=3),idcg=returned,ties=average)@3",
    "ndcg(gain=exp2,discount=natural,idcg=returned_top_k,ties=pessimistic)@2",
    "dcg(gain=exp2,discount=log2,ties=trec_eval)@3",
])
def test_explain_value_equals_an_independent_oracle(small, registry, spec):
    """explain and evaluate both give the value an oracle outside evalkit computes:
    pytrec_eval for the trec_eval presets, otherwise the formula over every order of
    the tied documents d1, d2 (scores 3.0, grades 3, 2) written here."""
    qrels, run = read_qrels(small / "qrels.txt"), read_run(small / "tied.run")
    res = evaluate(qrels, [run], [spec], registry=registry)
    ex = explain_query(qrels, run, "q1", resolve_flavour(spec, registry), registry)  # presets: resolved first
    want = _q1_tied_oracle(spec)
    assert ex.value == pytest.approx(want, abs=1e-12)
    assert res.per_query("tied", 0)["q1"] == pytest.approx(want, abs=1e-12)
    contributions = [r.contribution for r in ex.rows if r.contribution is not None]
    assert sum(contributions) == pytest.approx(ex.dcg)
    if ex.idcg is not None:
        assert ex.dcg / ex.idcg == pytest.approx(ex.value)
        ideal = [r.ideal_contribution for r in ex.rows if r.ideal_contribution is not None]
        assert sum(ideal) == pytest.approx(ex.idcg)


@pytest.mark.shared
def test_explain_matches_trec_eval(trec_eval_dir, capsys, registry):
    qrels, run = trec_eval_dir / "qrels.test", trec_eval_dir / "results.test"
    code, out, _ = run_cli(capsys, "explain", str(qrels), str(run), "--query", "302", "-m", "trec_eval.ndcg_cut@10")
    assert code == 0
    assert out.strip().endswith("NDCG@10 = DCG/IDCG = 0.7530")  # out.test.aq: ndcg_cut_10 302 0.7530
    ex = explain_query(read_qrels(qrels), read_run(run), "301", resolve_flavour("trec_eval.ndcg", registry), registry)
    assert f"{ex.value:.4f}" == "0.1584"  # out.test.aq: ndcg 301
    import pytrec_eval

    from conftest import to_pytrec

    q, r = to_pytrec(read_qrels(qrels), read_run(run))
    assert ex.value == pytest.approx(pytrec_eval.RelevanceEvaluator(q, {"ndcg"}).evaluate(r)["301"]["ndcg"],
                                     abs=1e-12)


# ----------------------------------------------------------------------------- run


def write_config(small, extra=""):
    path = small / "c.yaml"
    path.write_text(textwrap.dedent("""
        qrels: qrels.txt
        runs:
          - {name: good, path: sys.run}
          - {name: tied, path: tied.run}
        cutoffs: [2, 4]
        flavours:
          trec: trec_eval9.ndcg_cut
          exp2: "ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval)"
    """) + extra)  # trec_eval9: tied.run lacks the qrels' q2, which trec_eval 10.0 (trec_eval.*) refuses
    return path


def test_run_prints_and_writes(small, capsys, registry):
    cfg = write_config(small, "baseline: good\n")
    code, out, err = run_cli(capsys, "run", str(cfg), "--output-dir", str(small / "out"))
    assert code == 0, err
    assert "trec@2" in out and "exp2@4" in out and "good (baseline)" in out
    assert "Flavour agreement" in out
    files = sorted(p.name for p in (small / "out").iterdir())
    # with a baseline, significance tests run (default settings): csv adds statistics.csv and flips.csv
    # and every config run adds the tie spread and judged@k
    assert files == ["flips.csv", "judged_at_k.csv", "means.csv", "per_query.csv", "report.json", "report.md",
                     "statistics.csv", "tie_spread.csv"]
    data = json.loads((small / "out" / "report.json").read_text())
    # the written mean against pytrec_eval's ndcg_cut_4 for the tied run (q1 only: like
    # trec_eval 9.0.8 without -c, the mean is over the run's queries)
    import pytrec_eval

    te = pytrec_eval.RelevanceEvaluator({"q1": {"d1": 3, "d2": 2, "d3": 0, "d4": 0, "d5": 1}, "q2": {"x": 1}},
                                        {"ndcg_cut.4"}).evaluate({"q1": {"d1": 3.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}})
    assert data["means"]["tied"]["trec@4"] == pytest.approx(np.mean([v["ndcg_cut_4"] for v in te.values()]),
                                                            abs=1e-12)
    report = evalkit.run_config(cfg, registry=registry)
    # the terminal gives the verdict in short sentences; report.md the full statement
    flat = " ".join(out.split())
    assert all(sentence in flat for sentence in agreement_summary(report))
    assert data["agreement"]["statement"] in (small / "out" / "report.md").read_text()


def test_run_formats_and_no_output_dir(small, capsys):
    cfg = write_config(small)
    code, _, _ = run_cli(capsys, "run", str(cfg), "--output-dir", str(small / "o2"), "--formats", "csv")
    assert code == 0
    assert sorted(p.name for p in (small / "o2").iterdir()) == ["judged_at_k.csv", "means.csv", "per_query.csv",
                                                                "tie_spread.csv"]
    code, out, err = run_cli(capsys, "run", str(cfg))
    assert code == 0 and "not written" in err and "Flavour agreement" in out


# ----------------------------------------------------------------------------- errors


def test_presets_sharing_a_flavour_are_columns_under_their_labels(small, capsys):
    """-m ndcg@3 and -m trec_eval.ndcg_cut@3 (one flavour) are two columns; the same
    label twice (trec_eval.ndcg_cut's default cutoffs include 5) is shown once."""
    code, out, err = run_cli(capsys, "eval", f"{small}/qrels.txt", f"{small}/sys.run", "-m", "ndcg@5",
                             "-m", "trec_eval.ndcg_cut@5", "-m", "ndcg_cut.5", "-m", "trec_eval.ndcg_cut",
                             "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    labels = [m["label"] for m in data["measures"]]
    assert labels[:3] == ["ndcg@5", "trec_eval.ndcg_cut@5", "ndcg_cut.5"]
    assert labels.count("trec_eval.ndcg_cut@5") == 1 and "trec_eval.ndcg_cut@10" in labels
    means = data["runs"]["sys"]["all"]
    assert means["ndcg@5"] == means["trec_eval.ndcg_cut@5"] == means["ndcg_cut.5"]
    assert [m["native"] for m in data["measures"][1:3]] == ["ndcg_cut_5", "ndcg_cut_5"]


@pytest.mark.parametrize("argv, message", [
    (["eval", "{d}/missing.txt", "{d}/sys.run", "-m", "ndcg"], "missing.txt"),
    (["eval", "{d}/qrels.txt", "{d}/sys.run", "-m", "ndcg(gain=exp3)"], "unknown gain 'exp3'"),
    (["eval", "{d}/qrels.txt", "{d}/sys.run", "-m", "nosuch.preset@3"], "unknown preset 'nosuch.preset'"),
    (["eval", "{d}/qrels.txt", "{d}/sys.run", "-m", "nDGC@10"], "did you mean: nDCG"),
    (["eval", "{d}/qrels.txt", "{d}/sys.run", "-m", "nDCG(dcg=__import__('os'))@3"], "must be a literal"),
    (["eval", "{d}/qrels.txt", "{d}/sys.run", "-m", "ndcg_cut.5,,10"], "cutoffs must be numbers"),
    (["eval", "{d}/qrels.txt", "{d}/bad.run", "-m", "ndcg"], "bad.run:2: field 'score'"),
    (["explain", "{d}/qrels.txt", "{d}/sys.run", "--query", "q9", "-m", "ndcg"], "query 'q9'"),
    (["explain", "{d}/qrels.txt", "{d}/sys.run", "--query", "q1", "-m", "ap@3"], "metric 'ap'"),
    (["explain", "{d}/qrels.txt", "{d}/sys.run", "--query", "q1", "-m", "trec_eval.ndcg_cut"], "give one cutoff"),
    (["run", "{d}/bad.yaml"], "bad.yaml:2: runs[0].glob: no file matches"),
    (["run", "{d}/absent.yaml"], "no such config file"),
])
def test_errors_exit_2_without_traceback(small, capsys, argv, message):
    (small / "bad.run").write_text("q1 Q0 d1 1 1.0 x\nq1 Q0 d2 2 high x\n")
    (small / "bad.yaml").write_text("qrels: qrels.txt\nruns: [{glob: 'none-*.run'}]\nflavours: {a: ndcg}\n")
    code, out, err = run_cli(capsys, *[a.format(d=small) for a in argv])
    assert code == 2
    assert err.startswith("evalkit: error: "), err
    assert message in err
    assert "Traceback" not in err and out == ""


def test_usage_errors_and_help(capsys):
    code, _, err = run_cli(capsys, "nosuchcommand")
    assert code == 2 and "invalid choice" in err
    code, out, _ = run_cli(capsys, "--help")
    assert code == 0
    for name in COMMANDS:
        assert name in out
    code, out, _ = run_cli(capsys, "--version")
    assert code == 0 and evalkit.__version__ in out
    for name in COMMANDS:  # argparse %-formats argument help only: '%%' in a description shows
        code, out, _ = run_cli(capsys, name, "--help")
        assert code == 0 and "%%" not in out, name


@pytest.mark.parametrize("columns", [None, "50", "80", "120"])
def test_help_and_usage_are_argparses_own(capsys, monkeypatch, columns):
    """The parsers' formatter (:class:`evalkit.cli.HelpFormatter`, which reads the
    width without importing shutil) prints every command's help and usage, and a usage
    error, as argparse's own :class:`argparse.HelpFormatter` does, at COLUMNS unset,
    50, 80 and 120."""
    import argparse
    import io

    from evalkit.cli import HelpFormatter, build_parser

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)

    def texts(formatter):
        parser = build_parser()
        subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parsers = [parser, *subparsers.choices.values()]
        for p in parsers:
            assert p.formatter_class is HelpFormatter  # the sub-commands' too
            p.formatter_class = formatter
        err = io.StringIO()
        with pytest.raises(SystemExit), monkeypatch.context() as m:
            m.setattr("sys.stderr", err)
            subparsers.choices["eval"].parse_args(["qrels", "run", "--digits", "99"])
        return [p.format_help() for p in parsers] + [p.format_usage() for p in parsers] + [err.getvalue()]

    ours, argparses = texts(HelpFormatter), texts(argparse.HelpFormatter)
    assert ours == argparses
    assert len(ours) == 2 * (len(COMMANDS) + 1) + 1 and "argument --digits: 99 is not an integer" in ours[-1]
    width = int(columns) if columns else 80  # not a terminal here: COLUMNS, else 80
    usage = ours[len(COMMANDS) + 2 + COMMANDS.index("eval")].splitlines()  # eval's, wrapped to the width
    assert usage[0].startswith("usage: evalkit eval [-h]") and max(map(len, usage)) > width - 20


def test_main_raises_the_collector_threshold_while_it_runs(small, capsys, monkeypatch):
    """:func:`evalkit.cli.main` runs a command with the garbage collector's first
    threshold at :data:`~evalkit.cli.GC_THRESHOLD` and, called with ``argv``, restores it
    (a collector turned off by a threshold of 0 stays off); the values are the same."""
    import gc

    from evalkit.cli import GC_THRESHOLD
    from evalkit.cli import eval as eval_command

    seen = []
    real = eval_command.run
    monkeypatch.setattr(eval_command, "run", lambda args: seen.append(gc.get_threshold()) or real(args))
    argv = ("eval", str(small / "qrels.txt"), str(small / "sys.run"), "-m", "ndcg@10", "--format", "tsv")
    before = gc.get_threshold()
    assert before[0] < GC_THRESHOLD
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0 and seen == [(GC_THRESHOLD, *before[1:])] and gc.get_threshold() == before
    value = float(out.split()[-1])
    try:
        gc.set_threshold(0, *before[1:])
        code, out, _ = run_cli(capsys, *argv)
        assert code == 0 and seen[-1] == (0, *before[1:]) == gc.get_threshold()
    finally:
        gc.set_threshold(*before)
    # q1: DCG 3 + 2/log2(3), IDCG the same + 1/log2(4) (d5, judged 1, not returned); q2: 1
    assert float(out.split()[-1]) == value == pytest.approx((1 + (3 + 2 / math.log2(3)) / (3.5 + 2 / math.log2(3))) / 2,
                                                             abs=5e-5)


def test_console_script_entry_point():
    from importlib.metadata import entry_points

    # one script; a stale install of the old distribution name may list it twice
    eps = [e for e in entry_points(group="console_scripts") if e.name == "evalkit"]
    assert eps and {ep.value for ep in eps} == {"evalkit.cli:main"}
    assert eps[0].load() is main


@pytest.mark.shared
def test_eval_subtopic_qrels_reproduces_ndeval(ir_measures_dir, tmp_path, capsys):
    """``--subtopic-qrels``: ndeval's ERR-IA@20 on fixtureC_diversity.qrels + fixtureA.run
    is q0 0.4659, q1 0.1803, mean 0.3231 (ir_measures tests/test_pyndeval.py:79-82)."""
    sub = ir_measures_dir / "fixtureC_diversity.qrels"
    best: dict[tuple[str, str], int] = {}
    for line in sub.read_text().split("\n"):
        if line.strip():
            topic, _, docno, grade = line.split()
            best[(topic, docno)] = max(best.get((topic, docno), 0), int(grade))
    qrels = tmp_path / "topic.qrels"
    qrels.write_text("".join(f"{t} 0 {d} {g}\n" for (t, d), g in best.items()))
    run = str(ir_measures_dir / "fixtureA.run")
    code, out, _ = run_cli(capsys, "eval", str(qrels), run, "-m", "ndeval.err_ia@20", "-q", "--format", "tsv",
                           "--subtopic-qrels", str(sub))
    assert code == 0
    values = {line.split("\t")[1]: float(line.split("\t")[2]) for line in out.splitlines()}
    assert values == pytest.approx({"0": 0.4659, "1": 0.1803, "all": 0.3231}, abs=1e-4)
    code, _, err = run_cli(capsys, "eval", str(qrels), run, "-m", "ndeval.err_ia@20")
    assert code == 2 and "--subtopic-qrels" in err and "Traceback" not in err


def test_run_says_when_the_html_report_has_no_plots(small, capsys, monkeypatch):
    """Without matplotlib the HTML page says so, and now the terminal too (stderr)."""
    from evalkit.report import plots

    monkeypatch.setattr(plots, "matplotlib_available", lambda: False)
    cfg = write_config(small)
    code, out, err = run_cli(capsys, "run", str(cfg), "--output-dir", str(small / "h"), "--formats", "html")
    assert code == 0
    assert "the HTML report has no plots: matplotlib is not installed" in " ".join(err.split())
    assert "Plots are not included" in (small / "h" / "report.html").read_text()
