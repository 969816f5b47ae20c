"""The stage families (docs/architecture.md): the older convention keys parse to the
same computation as the components they stand for, and a plugin's component of any
stage family goes through the engine, ``explain``, ``identify`` and the aggregate
with no code of its own."""

from __future__ import annotations

import numpy as np
import pytest

import evalkit
from evalkit.components import Aggregate, Outcome, RunFilter, RunFilterInput
from evalkit.errors import FlavourError
from evalkit.flavour import STAGE_KEYS, parse_flavour
from evalkit.registry import build_registry

QRELS = evalkit.Qrels.from_rows([("q1", "d1", 2), ("q1", "d2", 0), ("q1", "d3", 1), ("q1", "d4", 3),
                                 ("q2", "e1", 1), ("q2", "e2", 0), ("q3", "q3", 2), ("q3", "f1", 1)])
# ties at the top of q1 and q3; q3 returns a document named like its query
RUN = evalkit.Run.from_rows([("q1", "d2", 3.0), ("q1", "d1", 3.0), ("q1", "d9", 2.0), ("q1", "d4", 1.0),
                             ("q1", "d3", 1.0), ("q2", "e2", 1.0), ("q2", "e1", 0.5),
                             ("q3", "f1", 1.0), ("q3", "q3", 1.0)], name="run")


@pytest.mark.parametrize("old, new", [
    ("ndcg(round=2,rounding=half_up)@3", "ndcg(outcome=round(decimals=2,rounding=half_up))@3"),
    ("ndcg(round=2)@3", "ndcg(outcome=round(decimals=2))@3"),
    ("ndcg(complement=yes)@3", "ndcg(outcome=complement)@3"),
    ("ndcg(complement=yes,round=1)@3", "ndcg(outcome=round(decimals=1,complement=yes))@3"),
    ("ndcg(round_mean=1)@3", "ndcg(aggregate=round_mean(decimals=1))@3"),
    ("ndcg(round=3,round_mean=1,rounding=half_up)@3",
     "ndcg(outcome=round(decimals=3,rounding=half_up),aggregate=round_mean(decimals=1,rounding=half_up))@3"),
    ("ndcg(complement=no,run_filter=none,negative=zero,grades=any)@3", "ndcg@3"),
])
def test_older_keys_are_the_components(old, new):
    a, b = parse_flavour(old), parse_flavour(new)
    assert a == b and str(a) == str(b) and parse_flavour(str(a)) == a
    res = evalkit.evaluate(QRELS, RUN, [old, new])
    assert np.array_equal(res.values[0, 0], res.values[0, 1], equal_nan=True)
    assert res.means()[0, 0] == res.means()[0, 1]


def test_convention_still_answers_older_keys():
    f = parse_flavour("ndcg(round=2,rounding=half_up,round_mean=5,run_filter=first_stable,negative=drop)")
    assert (f.convention("round"), f.convention("rounding"), f.convention("round_mean")) == (2, "half_up", 5)
    assert (f.convention("complement"), f.convention("run_filter"), f.convention("negative")) == ("no", "first_stable",
                                                                                                 "drop")
    assert f.convention("grades") == "any" and f.stage("grades").name == "any"
    assert f.replace(round=None).outcome is None and f.replace(round=None).convention("round_mean") == 5
    assert f.replace(round=3).convention("round") == 3
    with pytest.raises(FlavourError, match="not both"):
        parse_flavour("ndcg(outcome=complement,round=2)")


def test_the_values_of_older_keys_by_hand():
    """round=1 half_up on q1's value, complement: 1 - value, round_mean: the mean rounded."""
    base = evalkit.evaluate(QRELS, RUN, ["ndcg(ties=stable)@3"]).values[0, 0]
    res = evalkit.evaluate(QRELS, RUN, ["ndcg(ties=stable,round=1,rounding=half_up)@3",
                                        "ndcg(ties=stable,complement=yes)@3", "ndcg(ties=stable,round_mean=2)@3"])
    assert np.allclose(res.values[0, 0], np.floor(base * 10 + 0.5) / 10)
    assert np.allclose(res.values[0, 1], 1 - base)
    assert res.means()[0, 2] == round(float(np.mean(base)), 2)


def _drop_last(inp: RunFilterInput) -> np.ndarray:
    """The last document of each query leaves the run."""
    r = inp.ranked
    last = np.zeros(len(r.query), dtype=bool)
    ends = r.offsets[1:][np.diff(r.offsets) > 0] - 1
    last[ends] = True
    return last


def _plugin_registry():
    reg = build_registry(disable_plugins=True)
    origin = "evalkit-stages-test 1.0 (entry point 'stages')"
    reg.add("run_filter", RunFilter(name="drop_last", fn=_drop_last, formula="drop the last document",
                                    note="the last document of each query is dropped"), origin)
    reg.add("outcome", Outcome(name="doubled", fn=lambda v: 2 * v, formula="2 v"), origin)
    reg.add("aggregate", Aggregate(name="median", fn=lambda v: np.nanmedian(v, axis=-1), formula="median"),
            origin)
    return reg


def test_a_plugin_component_of_each_stage_family_needs_no_engine_code():
    reg = _plugin_registry()
    res = evalkit.evaluate(QRELS, RUN, ["ndcg(ties=stable)@3", "ndcg(ties=stable,run_filter=drop_last)@3",
                                        "ndcg(ties=stable,outcome=doubled)@3"], registry=reg)
    # by hand: q2 loses e1 (its only relevant document, ranked last): 0; q1 without d3
    want = evalkit.evaluate(QRELS, evalkit.Run.from_rows(
        [("q1", "d2", 3.0), ("q1", "d1", 3.0), ("q1", "d9", 2.0), ("q1", "d4", 1.0), ("q2", "e2", 1.0),
         ("q3", "f1", 1.0)], name="run"), ["ndcg(ties=stable)@3"], registry=reg)
    assert np.allclose(res.values[0, 1], want.values[0, 0]) and res.values[0, 1][1] == 0.0
    assert np.allclose(res.values[0, 2], 2 * res.values[0, 0])
    f = parse_flavour("ndcg(ties=stable,aggregate=median)@3", reg)
    med = evalkit.evaluate(QRELS, RUN, [f], registry=reg)
    assert med.means(reg)[0, 0] == np.median(res.values[0, 0])
    notes = evalkit.explain.explain_query(QRELS, RUN, "q1", "ndcg(ties=stable,run_filter=drop_last)@3", reg).notes
    assert "run_filter=drop_last: the last document of each query is dropped" in notes
    from evalkit.identify import neighbours

    near = {str(fl) for fl in neighbours(reg, [parse_flavour("ndcg(ties=stable)", reg)])}
    assert {"ndcg(gain=linear,discount=log2,idcg=judged,ties=stable,run_filter=drop_last)",
            "ndcg(gain=linear,discount=log2,idcg=judged,ties=stable,aggregate=median)"} <= near


def test_a_run_filter_returning_a_wrong_shape_names_it():
    reg = build_registry(disable_plugins=True)
    reg.add("run_filter", RunFilter(name="broken", fn=lambda inp: np.zeros(1, dtype=bool)), "a plugin")
    with pytest.raises(evalkit.errors.ComponentContractError, match=r"run filter 'broken' from a plugin returned a "
                                                                    r"mask of shape \(1,\); expected \(9,\)"):
        evalkit.evaluate(QRELS, RUN, ["ndcg(run_filter=broken)@3"], registry=reg)


def test_first_stable_keeps_the_runs_order_whatever_the_tie_policy():
    """q1's top two tie; the run lists d2 first: first_stable drops d2 under every tie
    policy (MTEB's stable sort), first drops what the policy put first."""
    for ties in ("trec_eval", "stable", "docno_ascending", "average"):
        a = evalkit.evaluate(QRELS, RUN, [f"ndcg(ties={ties},run_filter=first_stable)@1"]).values[0, 0]
        keep = evalkit.Run.from_rows([r for r in zip(RUN.qid, RUN.docno, RUN.score)
                                      if (r[0], r[1]) not in {("q1", "d2"), ("q2", "e2"), ("q3", "f1")}], name="run")
        b = evalkit.evaluate(QRELS, keep, [f"ndcg(ties={ties})@1"]).values[0, 0]
        assert np.array_equal(a, b, equal_nan=True), ties


def test_every_stage_family_has_its_default_registered():
    reg = build_registry(disable_plugins=True)
    from evalkit.flavour import DEFAULT_STAGES

    for family in STAGE_KEYS:
        assert reg.get(family, DEFAULT_STAGES[family]).family == family
