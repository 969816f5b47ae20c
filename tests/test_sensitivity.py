"""Tie spread and judged@k (evalkit.sensitivity and the report's views of them).

Oracles: NDCG written out here and evaluated over every permutation of the tied
documents (brute force); ir_measures' ``Judged@k``; hand counts.
"""

from __future__ import annotations

import importlib
import itertools
import math

import numpy as np
import pytest

from evalkit import Qrels, Results, Run, build_registry, evaluate, parse_flavour
from evalkit.report import Report
from evalkit.report.render import render
from evalkit.sensitivity import JudgedAtK, judged_at_k, tie_bounds

from conftest import shared_path

QRELS = {"q1": {"d1": 2, "d2": 1, "d3": 0, "d4": 1}, "q2": {"d1": 1, "d2": 2}}
# q1: d1, d2, d3 and the unjudged d5 tie at 0.5; q2: d1 and d2 tie at 1.0
RUN = {"q1": {"d1": 0.5, "d2": 0.5, "d3": 0.5, "d4": 0.2, "d5": 0.5}, "q2": {"d1": 1.0, "d2": 1.0, "x": 0.9}}


@pytest.fixture(scope="module")
def registry():
    return build_registry(disable_plugins=True)


def _ndcg(grades_in_order, judged, k, exp):
    gain = (lambda g: 2 ** g - 1) if exp else (lambda g: g)
    dcg = sum(gain(g) / math.log2(r + 2) for r, g in enumerate(grades_in_order[:k]))
    ideal = sorted(judged, reverse=True)[:k]
    idcg = sum(gain(g) / math.log2(r + 2) for r, g in enumerate(ideal))
    return dcg / idcg


def _brute(qid, k, exp):
    """min and max NDCG@k over every order of the tied documents (score blocks)."""
    docs = RUN[qid]
    scores = sorted(set(docs.values()), reverse=True)
    blocks = [[d for d in docs if docs[d] == s] for s in scores]
    values = []
    for perms in itertools.product(*(itertools.permutations(b) for b in blocks)):
        order = [d for block in perms for d in block]
        values.append(_ndcg([QRELS[qid].get(d, 0) for d in order], list(QRELS[qid].values()), k, exp))
    return min(values), max(values)


@pytest.mark.parametrize("spec, exp", [("ndcg@3", False), ("ndcg(gain=exp2)@3", True),
                                       ("ndcg(ties=average)@3", False), ("ndcg(gain=exp2,ties=stable)@2", True)])
def test_tie_bounds_are_the_extremes_over_tie_permutations(registry, spec, exp):
    qrels = Qrels.from_rows(QRELS)
    run = Run.from_rows([(q, d, s) for q, docs in RUN.items() for d, s in docs.items()], name="r")
    flavour = parse_flavour(spec, registry)
    low, high = tie_bounds(qrels, run, [flavour], registry)
    for i, qid in enumerate(qrels.qids):
        lo, hi = _brute(str(qid), flavour.k, exp)
        assert low[0, i] == pytest.approx(lo, abs=1e-12) and high[0, i] == pytest.approx(hi, abs=1e-12)
        value = evaluate(qrels, [run], [flavour], registry=registry).values[0, 0, i]
        assert lo - 1e-12 <= value <= hi + 1e-12


NEG_QRELS = {"q1": {"d1": 2, "d2": -2, "d3": 0, "d4": 1, "d6": -1}}
# d1, d2 (-2), d3, d6 (-1) and the unjudged d5 tie at 0.5
NEG_RUN = {"q1": {"d1": 0.5, "d2": 0.5, "d3": 0.5, "d4": 0.2, "d5": 0.5, "d6": 0.5}}


@pytest.mark.parametrize("spec", ["dcg(negative=gain)@3", "dcg(gain=exp2,negative=gain)",
                                  "ndcg(idcg=returned,negative=gain)@4", "catboost.ndcg@3"])
def test_tie_bounds_under_negative_gain_are_the_extremes(registry, spec):
    """negative=gain: a negative grade has a negative gain, so the worst order of a tie
    puts it first (below the 0 and unjudged documents); brute force over every order."""
    qrels = Qrels.from_rows(NEG_QRELS)
    run = Run.from_rows([(q, d, s) for q, docs in NEG_RUN.items() for d, s in docs.items()], name="r")
    from evalkit.presets import expand_spec

    flavour = expand_spec(spec, registry)[0]
    gain = (lambda g: 2.0 ** g - 1) if "exp2" in spec else (lambda g: float(g))
    grades, docs = NEG_QRELS["q1"], NEG_RUN["q1"]
    k = flavour.k

    def dcg(order):
        return sum(gain(grades.get(d, 0)) / math.log2(r + 2) for r, d in enumerate(order[:k]))

    tied = [d for d in docs if docs[d] == 0.5]
    values = [dcg(list(p) + ["d4"]) for p in itertools.permutations(tied)]
    if spec.startswith(("ndcg", "catboost")):  # the ideal: the returned grades sorted
        ideal = dcg(sorted(docs, key=lambda d: -grades.get(d, 0)))
        values = [v / ideal for v in values]
    low, high = tie_bounds(qrels, run, [flavour], registry)
    assert low[0, 0] == pytest.approx(min(values), abs=1e-12)
    assert high[0, 0] == pytest.approx(max(values), abs=1e-12)


def test_input_order_has_no_tie_spread(registry):
    qrels = Qrels.from_rows(QRELS)
    run = Run.from_rows([(q, d, s) for q, docs in RUN.items() for d, s in docs.items()], name="r")
    flavour = parse_flavour("ndcg(ties=input)@3", registry)
    low, high = tie_bounds(qrels, run, [flavour], registry)
    value = evaluate(qrels, [run], [flavour], registry=registry).values[0, 0]
    np.testing.assert_array_equal(low[0], value)
    np.testing.assert_array_equal(high[0], value)


def test_judged_at_k_by_hand(registry):
    """q1 in ir_measures' order (score desc, docno asc): d1 d2 d3 d5 d4 -> judged 1 1 1 0 1;
    q2: d1 d2 x -> 1 1 0; q3 is judged but not retrieved (no value)."""
    qrels = Qrels.from_rows({**QRELS, "q3": {"z": 1}})
    run = Run.from_rows([(q, d, s) for q, docs in RUN.items() for d, s in docs.items()], name="r")
    v = judged_at_k(qrels, run, [1, 4, 10, None], registry)
    expected = np.array([[1, 1, np.nan], [3 / 4, 2 / 3, np.nan], [4 / 5, 2 / 3, np.nan], [4 / 5, 2 / 3, np.nan]])
    np.testing.assert_allclose(v, expected, rtol=0, atol=1e-15)


@pytest.mark.shared
def test_judged_at_k_equals_ir_measures(shared_data, registry):
    ir_measures = importlib.import_module("ir_measures")
    from evalkit import read_qrels, read_run

    data = shared_path("trectools_robust03")
    qrels_path, run_path = data / "robust03_qrels.txt", data / "runs" / "input.humR03dc.gz"
    v = judged_at_k(read_qrels(qrels_path), read_run(run_path), [10, 100], registry)
    ref = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(
        [ir_measures.Judged @ 10, ir_measures.Judged @ 100],
        ir_measures.read_trec_qrels(str(qrels_path)), ir_measures.read_trec_run(str(run_path)))}
    qids = [str(q) for q in read_qrels(qrels_path).qids]
    for c, name in enumerate(("Judged@10", "Judged@100")):
        expected = np.array([ref.get((q, name), np.nan) for q in qids])
        np.testing.assert_allclose(v[c], expected, rtol=0, atol=1e-15)


def test_low_judged_warning_by_hand():
    values = np.array([[[0.9, 0.9]], [[0.8, 1.0]], [[0.5, 0.6]]])  # (s, c, q)
    j = JudgedAtK(("a", "b", "c"), (10,), np.array(["q1", "q2"], dtype=object), values)
    np.testing.assert_allclose(j.means()[:, 0], [0.9, 0.9, 0.55])
    assert j.low() == [("c", 10, pytest.approx(0.55), pytest.approx(0.9))]


# ----------------------------------------------------------------------------- the report's view


def _report(registry, low, high, values):
    flavours = (parse_flavour("ndcg@10", registry),)
    res = Results(np.array(["q1", "q2"], dtype=object), ("a", "b", "c"), flavours, ("F",), values)
    return Report(res, baseline="c", tie_bounds=(low, high), statistics=None)


def test_tie_dependent_pairs_by_hand(registry):
    """a vs b: means 0.5 / 0.4, but under the worst tie order a's q1 drops to 0.3, its
    mean to 0.4: the difference ranges over [0, 0.1], so a's win depends on the ties.
    a vs c (0.1, no ties): [0.3, 0.4] > 0: not. b vs c: no ties, 0.4 > 0.1: not."""
    values = np.array([[[0.5, 0.5]], [[0.4, 0.4]], [[0.1, 0.1]]])
    low = values.copy()
    low[0, 0] = 0.3
    high = values.copy()
    rep = _report(registry, low, high, values)
    lo, hi = rep.tie_spread
    np.testing.assert_allclose(lo[:, 0], [0.3, 0.4, 0.1])
    np.testing.assert_allclose(hi[:, 0], [0.5, 0.4, 0.1])
    dep = rep.tie_dependent[:, :, 0]
    assert dep[0, 1] and dep[1, 0]
    assert not dep[0, 2] and not dep[1, 2]
    assert not dep[0, 0]  # a against itself, although a has ties


# ----------------------------------------------------------------------------- every format


@pytest.fixture(scope="module")
def configured(tmp_path_factory, registry):
    """A config run on QRELS / RUN (system r) and a tie-free copy (system s, d1 ahead)."""
    from evalkit.runner import run_config

    d = tmp_path_factory.mktemp("sens")
    (d / "qrels.txt").write_text("".join(f"{q} 0 {doc} {g}\n" for q, docs in QRELS.items() for doc, g in docs.items()))
    (d / "r.run").write_text("".join(f"{q} Q0 {doc} 1 {s} r\n" for q, docs in RUN.items() for doc, s in docs.items()))
    (d / "s.run").write_text("q1 Q0 d1 1 3 s\nq1 Q0 d4 2 2 s\nq2 Q0 d2 1 2 s\nq2 Q0 y 2 1 s\n")
    config = {"qrels": "qrels.txt", "runs": [{"name": "r", "path": "r.run"}, {"name": "s", "path": "s.run"}],
              "cutoffs": [3], "flavours": {"lin": "ndcg"}, "baseline": "s"}
    return run_config(config, registry=registry, base_dir=d)


def test_tie_spread_and_judged_in_every_format(configured):
    import csv
    import io
    import json

    from evalkit.report.render import to_html, to_latex, to_markdown, to_text

    rep = configured
    lo = np.mean([_brute("q1", 3, False)[0], _brute("q2", 3, False)[0]])
    hi = np.mean([_brute("q1", 3, False)[1], _brute("q2", 3, False)[1]])
    judged = (1 + 2 / 3) / 2  # r: q1 d1 d2 d3 all judged; q2 d1 d2 judged, x not
    rows = list(csv.DictReader(io.StringIO(render(rep, "csv")["tie_spread.csv"])))
    (r,) = [x for x in rows if x["system"] == "r"]
    assert float(r["pessimistic"]) == pytest.approx(lo, abs=1e-12)
    assert float(r["optimistic"]) == pytest.approx(hi, abs=1e-12)
    jrows = list(csv.DictReader(io.StringIO(render(rep, "csv")["judged_at_k.csv"])))
    assert {(x["system"], x["qid"]): float(x["judged"]) for x in jrows} == pytest.approx(
        {("r", "q1"): 1.0, ("r", "q2"): 2 / 3, ("s", "q1"): 1.0, ("s", "q2"): 0.5})
    data = json.loads(render(rep, "json")["report.json"])
    assert data["tie_spread"]["r"]["lin@3"]["pessimistic"] == pytest.approx(lo, abs=1e-12)
    assert data["judged_at_k"]["mean"]["r"]["judged@3"] == pytest.approx(judged)
    cell4 = f"{lo:.4f}–{hi:.4f}"
    for out in (to_text(rep, width=80), to_markdown(rep), to_html(rep)):
        assert cell4 in out and f"{judged:.3f}" in out
    assert f"{lo:.3f}--{hi:.3f}" in to_latex(rep) and f"{judged:.3f}" in to_latex(rep)


def test_tie_dependent_comparison_is_marked(configured):
    """r against the baseline s: the ‡ mark exactly when [mean low(r) - s, mean high(r) - s]
    holds 0 (s has no ties)."""
    import csv
    import io

    from evalkit.report.render import to_markdown

    rep = configured
    s = rep.results.values[rep.systems.index("s"), 0]
    lo = np.mean([_brute("q1", 3, False)[0], _brute("q2", 3, False)[0]]) - s.mean()
    hi = np.mean([_brute("q1", 3, False)[1], _brute("q2", 3, False)[1]]) - s.mean()
    expected = lo <= 0 <= hi and lo < hi
    (row,) = list(csv.DictReader(io.StringIO(render(rep, "csv")["statistics.csv"])))
    assert row["tie_dependent"] == str(expected).lower()
    assert ("‡" in to_markdown(rep)) == expected
    # issue 25: the HTML "Difference from the baseline" table keeps the mark and its legend
    from evalkit.report.html import to_html

    html = to_html(rep)
    section = html.split("Difference from the baseline", 1)[1].split("<h2>", 1)[0]
    assert ("‡" in section) == expected and ("tie spread" in section) == expected


# ----------------------------------------------------------------------------- the switch


def _sens_dir(tmp_path):
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {doc} {g}\n" for q, docs in QRELS.items()
                                                for doc, g in docs.items()))
    (tmp_path / "r.run").write_text("".join(f"{q} Q0 {doc} 1 {s} r\n" for q, docs in RUN.items()
                                            for doc, s in docs.items()))
    (tmp_path / "s.run").write_text("q1 Q0 d1 1 3 s\nq1 Q0 d4 2 2 s\nq2 Q0 d2 1 2 s\nq2 Q0 y 2 1 s\n")
    return {"qrels": "qrels.txt", "runs": [{"name": "r", "path": "r.run"}, {"name": "s", "path": "s.run"}],
            "cutoffs": [3], "flavours": {"lin": "ndcg"}, "baseline": "s"}


def test_sensitivity_off_computes_neither(tmp_path, registry, monkeypatch):
    """report.sensitivity: false (or run_config(sensitivity=False)): no tie spread and
    no judged@k are computed (the functions are not even called) or rendered; the
    means are unchanged (NDCG@3 of s written out by hand)."""
    import json

    import evalkit.runner.runner as runner_module
    from evalkit.runner import load_config, run_config

    def refuse(*args, **kwargs):
        raise AssertionError("computed although sensitivity is off")

    config = _sens_dir(tmp_path)
    monkeypatch.setattr(runner_module, "tie_bounds", refuse)
    monkeypatch.setattr(runner_module, "judged_at_k", refuse)
    off = {**config, "report": {"sensitivity": False}}
    assert load_config(off, registry=registry, base_dir=tmp_path).sensitivity is False
    assert load_config(config, registry=registry, base_dir=tmp_path).sensitivity is True
    for rep in (run_config({**config, "report": {"sensitivity": False}}, registry=registry, base_dir=tmp_path),
                run_config(config, registry=registry, base_dir=tmp_path, sensitivity=False)):
        assert rep.tie_bounds is None and rep.judged is None
        files = render(rep, "csv")
        assert "tie_spread.csv" not in files and "judged_at_k.csv" not in files
        data = json.loads(render(rep, "json")["report.json"])
        assert data["tie_spread"] is None and data["judged_at_k"] is None
        s_q1 = _ndcg([2, 1], list(QRELS["q1"].values()), 3, False)
        s_q2 = _ndcg([2, 0], list(QRELS["q2"].values()), 3, False)
        assert rep.results.mean("s", 0) == pytest.approx((s_q1 + s_q2) / 2, abs=1e-12)
        assert "‡" not in render(rep, "markdown")["report.md"]
    # the argument wins over the config: on, although the config says off
    monkeypatch.undo()
    rep = run_config({**config, "report": {"sensitivity": False}}, registry=registry, base_dir=tmp_path,
                     sensitivity=True)
    assert rep.tie_bounds is not None and rep.judged is not None


def test_sensitivity_flag_and_schema(tmp_path, capsys):
    """``evalkit run --no-sensitivity`` leaves the two sections out of what it prints and
    writes; ``--sensitivity`` restores them over ``report: {sensitivity: false}``; the
    schema refuses a non-boolean and unknown keys under ``report:`` (file, line, key)."""
    import yaml

    from evalkit.cli import main

    config = _sens_dir(tmp_path)
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["run", str(path), "--no-progress"]) == 0
    assert "judged_at_k.csv" in capsys.readouterr().out
    assert main(["run", str(path), "--no-progress", "--no-sensitivity", "--output-dir", str(tmp_path / "out"),
                 "--formats", "csv"]) == 0
    out = capsys.readouterr().out
    assert "judged_at_k.csv" not in out and "Judged@k" not in out and "tie_spread.csv" not in out
    written = {p.name for p in (tmp_path / "out").iterdir()}
    assert "means.csv" in written and not {"tie_spread.csv", "judged_at_k.csv"} & written
    path.write_text(yaml.safe_dump({**config, "report": {"sensitivity": False}}, sort_keys=False))
    assert main(["run", str(path), "--no-progress"]) == 0
    assert "Judged@k" not in capsys.readouterr().out
    assert main(["run", str(path), "--no-progress", "--sensitivity"]) == 0
    assert "Judged@k" in capsys.readouterr().out
    lines = yaml.safe_dump({**config, "report": {"sensitivity": "no"}}, sort_keys=False).splitlines()
    path.write_text("\n".join(lines) + "\n")
    line = next(i for i, text in enumerate(lines, start=1) if text.strip().startswith("sensitivity:"))
    assert main(["run", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"c.yaml:{line}: report.sensitivity" in err and "Traceback" not in err
    path.write_text(yaml.safe_dump({**config, "report": {"tie_spread": False}}, sort_keys=False))
    assert main(["run", str(path), "--no-progress"]) == 2
    assert "report" in capsys.readouterr().err


def test_tie_bounds_do_not_repeat_the_empty_evaluation_warning():
    """gdeval reports no topic without a positive judgment: the report's evaluation of
    gdeval.ndcg warns once per run (EmptyEvaluationWarning); the tie bounds, which
    evaluate its pessimistic and optimistic variants, add no warning of their own."""
    import warnings

    qrels = Qrels.from_rows([("1", "a", 0), ("1", "b", 0)])
    run = Run.from_rows([("1", "a", 1.0), ("1", "b", 1.0)], name="sys")
    flavour = parse_flavour("ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval,empty=skip)@5")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low, high = tie_bounds(qrels, run, [flavour])
    assert np.isnan(low).all() and np.isnan(high).all()  # gdeval.pl reports nothing either
