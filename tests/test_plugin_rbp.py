"""The ``evalkit-rbp`` plugin's components, loaded in-process from its source folder.

The plugin module is put on ``sys.path`` and handed to the registry as an
``evalkit`` entry point (no installation; ``tests/test_plugin_install.py`` does the
real ``pip install``). Expected values come from trec_eval's own test outputs
(``rbp`` lines of ``out.test.aq``, ``out.test.aql``, ``out.test.aqc``) and from
hand computation of Moffat & Zobel's formula.
"""

from __future__ import annotations

import importlib.metadata as md
import itertools
from pathlib import Path

import numpy as np
import pytest

import evalkit
import evalkit.registry as registry_mod
from evalkit import FlavourError, Qrels, Run, evaluate, parse_flavour

from trec_eval_out import values as trec_eval_values

PLUGIN_DIR = Path(__file__).resolve().parent.parent / "plugins" / "evalkit-rbp"
TOL = 5e-5  # trec_eval prints 4 decimals


@pytest.fixture(scope="module")
def reg():
    mp = pytest.MonkeyPatch()
    mp.syspath_prepend(str(PLUGIN_DIR))
    mp.setattr(registry_mod, "_entry_points",
               lambda: [md.EntryPoint(name="rbp", value="evalkit_rbp", group="evalkit")])
    try:
        yield evalkit.build_registry(disable_plugins=False)
    finally:
        mp.undo()


def test_components_registered(reg):
    assert reg.plugins == {"rbp": "unknown distribution (entry point 'rbp')"}
    for family, name in [("discount", "rbp"), ("metric", "rbp"), ("preset", "trec_eval.rbp")]:
        assert reg.get(family, name).origin == reg.plugins["rbp"]


def test_discount_values(reg):
    fn = reg.get("discount", "rbp").fn
    assert fn(np.arange(1, 6), p=0.5).tolist() == [1.0, 0.5, 0.25, 0.125, 0.0625]
    assert fn(np.array([1, 3]), p=0.8) == pytest.approx([1.0, 0.64])


@pytest.mark.parametrize("bad", ["0", "1", "1.5", "-0.2"])
def test_persistence_must_be_strictly_between_0_and_1(reg, bad):
    with pytest.raises(FlavourError, match="parameter 'p'"):
        parse_flavour(f"rbp(p={bad})", reg)
    with pytest.raises(FlavourError, match="parameter 'p'"):
        parse_flavour(f"ndcg(discount=rbp(p={bad}))", reg)


def test_canonical_strings_round_trip(reg):
    for text in ["rbp(p=0.9)@10", "ndcg(discount=rbp(p=0.9))@10", "rbp", "rbp(ties=average,missing=zero)"]:
        f = parse_flavour(text, reg)
        assert parse_flavour(str(f), reg) == f
    assert str(parse_flavour("rbp(p=0.8)", reg)) == "rbp(ties=trec_eval)"  # 0.8 is the default
    assert str(parse_flavour("ndcg(discount=rbp(p=0.9))@10", reg)) == (
        "ndcg(gain=linear,discount=rbp(p=0.9),idcg=judged,ties=trec_eval)@10")


def _one_query(grades, qrels_extra=()):
    """Run ranked in the given order (scores descending) with the given grades
    (``None`` = unjudged)."""
    rows = [("q", f"d{i}", g) for i, g in enumerate(grades) if g is not None] + list(qrels_extra)
    run = [("q", f"d{i}", float(len(grades) - i)) for i in range(len(grades))]
    return Qrels.from_rows(rows), Run.from_rows(run, name="r")


def test_metric_by_hand(reg):
    qrels, run = _one_query([1, 0, None, 1, -1, 1])
    res = evaluate(qrels, run, ["rbp(p=0.5)", "rbp(p=0.5)@3", "rbp"], registry=reg)
    # (1 - p) * sum rel_r p^(r-1): ranks 1, 4, 6 relevant
    full = 0.5 * (1 + 0.5 ** 3 + 0.5 ** 5)
    at3 = 0.5 * 1
    p8 = 0.2 * (1 + 0.8 ** 3 + 0.8 ** 5)
    assert res.values[0, :, 0] == pytest.approx([full, at3, p8])


def test_graded_scaled_by_the_querys_largest_grade(reg):
    # largest grade in the qrels is 4 (not retrieved): rel = grade / 4
    qrels, run = _one_query([2, 0, 1], qrels_extra=[("q", "unretrieved", 4)])
    res = evaluate(qrels, run, ["rbp(p=0.5)"], registry=reg)
    assert res.values[0, 0, 0] == pytest.approx(0.5 * (2 / 4 + 0.25 * 1 / 4))


def test_min_grade_convention(reg):
    qrels, run = _one_query([1, 3, 2])
    res = evaluate(qrels, run, ["rbp(p=0.5,min_grade=2)", "rbp(p=0.5)"], registry=reg)
    # grade 1 at rank 1 drops out; the scale stays the largest grade, 3
    assert res.values[0, :, 0] == pytest.approx([0.5 * (0.5 * 3 / 3 + 0.25 * 2 / 3),
                                                 0.5 * (1 / 3 + 0.5 * 3 / 3 + 0.25 * 2 / 3)])


def test_average_ties_is_the_mean_over_orderings(reg):
    grades = [2, 0, 1, 0]
    scores = [1.0, 1.0, 1.0, 0.5]  # the first three are tied
    qrels = Qrels.from_rows([("q", f"d{i}", g) for i, g in enumerate(grades)])
    run = Run.from_rows([("q", f"d{i}", s) for i, s in enumerate(scores)], name="r")
    got = evaluate(qrels, run, ["rbp(p=0.6,ties=average)"], registry=reg).values[0, 0, 0]
    expected = []
    for perm in itertools.permutations(range(3)):
        order = list(perm) + [3]
        rel = np.array([grades[i] for i in order]) / 2.0
        expected.append(0.4 * np.sum(rel * 0.6 ** np.arange(4)))
    assert got == pytest.approx(np.mean(expected))
    lo = evaluate(qrels, run, ["rbp(p=0.6,ties=pessimistic)"], registry=reg).values[0, 0, 0]
    hi = evaluate(qrels, run, ["rbp(p=0.6,ties=optimistic)"], registry=reg).values[0, 0, 0]
    assert lo == pytest.approx(min(expected)) and hi == pytest.approx(max(expected))


def test_rbp_discount_in_ndcg(reg):
    qrels, run = _one_query([0, 3, 2], qrels_extra=[("q", "x", 1)])
    got = evaluate(qrels, run, ["ndcg(discount=rbp(p=0.9))@2", "dcg(discount=rbp(p=0.5))"],
                   registry=reg).values[0, :, 0]
    dcg2 = 0 + 3 * 0.9
    idcg2 = 3 + 2 * 0.9  # ideal over all judged documents: 3, 2, 1, 0, cut at 2
    assert got == pytest.approx([dcg2 / idcg2, 3 * 0.5 + 2 * 0.25])


@pytest.mark.shared
@pytest.mark.parametrize("out, qrels_file, run_file, flavour", [
    ("out.test.aq", "qrels.test", "results.test", "trec_eval.rbp"),
    ("out.test.aql", "qrels.rel_level", "results.test", "trec_eval.rbp"),  # graded 0..4
    ("out.test.aqc", "qrels.test", "results.trunc", "rbp(p=0.9,missing=zero)"),  # -c
])
def test_reproduces_trec_eval_rbp(reg, trec_eval_dir, out, qrels_file, run_file, flavour):
    expected = {qid: v for (m, qid), v in trec_eval_values(trec_eval_dir / out).items() if m == "rbp"}
    assert len(expected) == 4  # 301, 302, 303, all
    qrels = evalkit.read_qrels(trec_eval_dir / qrels_file)
    run = evalkit.read_run(trec_eval_dir / run_file)
    res = evaluate(qrels, run, [flavour], registry=reg)
    got = dict(zip(res.qids, res.values[0, 0]))
    got["all"] = float(np.nanmean(res.values[0, 0]))
    assert set(got) == set(expected)
    for qid, value in expected.items():
        assert abs(got[qid] - value) <= TOL, (out, qid, got[qid], value)
