"""Bounds for unjudged documents (``evalkit.bounds``, issue 30).

* lower <= value <= upper for every flavour hypothesis draws (random data);
* exhaustive enumeration of the unjudged documents' grades on small seeded lists:
  the substitution bounds are the extremes of DCG, P, RR, ERR (``max_grade`` given);
  for NDCG and AP they are not (counterexample and the prefix rule checked);
* Robust 2003 pool thinned at random: the full pool's value inside the thinned
  pool's bounds per query for the metrics with a fixed normaliser;
* RBP: ``upper - lower`` against trec_eval 10.0's ``rbp_resid`` per query.
"""

from __future__ import annotations

import itertools
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evalkit
import evalkit.registry as registry_mod
from evalkit import Qrels, Run, evaluate
from evalkit.bounds import unjudged_bounds

import bounds_oracle
from conftest import shared_path
from flavour_strategies import flavours
from reference_programs import parse_trec_eval_q, run_trec_eval

REG = evalkit.default_registry()
PLUGIN_DIR = Path(__file__).resolve().parent.parent / "plugins" / "evalkit-rbp"
INTENT = ("alpha_ndcg", "err_ia", "ia_ndcg")


def _one_query(grades, extra=()):
    """One query ``q`` ranked in the given order; ``None`` = unjudged; ``extra``:
    ``(docno, grade)`` judged but not retrieved."""
    rows = [("q", f"d{i}", g) for i, g in enumerate(grades) if g is not None]
    rows += [("q", d, g) for d, g in extra]
    run = [("q", f"d{i}", float(len(grades) - i)) for i in range(len(grades))]
    return Qrels.from_rows(rows), Run.from_rows(run, name="r")


def test_ndcg_upper_substitution_below_todays_value():
    """The module docstring's counterexample: all unjudged at the top grade lowers NDCG."""
    qrels, run = _one_query([1, None], extra=[("x", 3)])
    b = unjudged_bounds(qrels, run, ["ndcg@2"], high=3)
    # today: DCG 1, IDCG 3 + 1/log2(3); u = 3: DCG 1 + 3/log2 3, IDCG 3 + 3/log2 3
    assert b.value.values[0, 0, 0] == pytest.approx(1 / (3 + 1 / math.log2(3)))
    qrels2, run2 = _one_query([1, None])
    b2 = unjudged_bounds(qrels2, run2, ["ndcg@2"], high=3)
    assert b2.value.values[0, 0, 0] == pytest.approx(1.0)
    assert b2.at_high.values[0, 0, 0] == pytest.approx((1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3)))
    assert b2.at_high.values[0, 0, 0] < 0.8  # 0.797
    assert b2.upper.values[0, 0, 0] == pytest.approx(1.0)  # the hull keeps today's value
    assert b2.unjudged[0, 0, 0] == 1


def test_ndcg_upper_substitution_not_the_maximum():
    """The module docstring's second counterexample: judging only the first unjudged
    document relevant beats judging both."""
    rows = [("q", "x", 1)] + [("q", f"d{i}", 0) for i in range(1, 9)]
    run = Run.from_rows([("q", f"d{i}", float(10 - i)) for i in range(10)], name="r")  # d0, d9 unjudged
    b = unjudged_bounds(Qrels.from_rows(rows), run, ["ndcg"], high=1)
    ideal3 = 1 + 1 / math.log2(3) + 0.5
    assert b.upper.values[0, 0, 0] == pytest.approx((1 + 1 / math.log2(11)) / ideal3)  # 0.6049
    first_only = evaluate(Qrels.from_rows(rows + [("q", "d0", 1)]), run, ["ndcg"]).values[0, 0, 0]
    assert first_only == pytest.approx(1 / (1 + 1 / math.log2(3)))  # 0.6131
    assert first_only > b.upper.values[0, 0, 0]
    searched = unjudged_bounds(Qrels.from_rows(rows), run, ["ndcg"], high=1, search=True)
    assert searched.upper.values[0, 0, 0] == pytest.approx(first_only)


def test_cutoff_and_depth_choose_the_substituted_documents():
    qrels, run = _one_query([1, None, 0, None, None])
    b = unjudged_bounds(qrels, run, ["precision@2", "precision(depth=4)", "precision", "dcg@1"], high=1)
    assert b.unjudged[0, :, 0].tolist() == [1, 2, 3, 0]
    assert b.upper.values[0, :, 0].tolist() == pytest.approx([1.0, 3 / 4, 4 / 5, 1.0])
    assert b.lower.values[0, :, 0].tolist() == pytest.approx([0.5, 1 / 4, 1 / 5, 1.0])
    # condensed (trec_eval -J): unjudged removed, ranks closed up: d0 d2 -> P@2 = 1/2
    assert b.condensed.values[0, 0, 0] == pytest.approx(0.5)


def test_tied_boundary_documents_are_substituted():
    qrels = Qrels.from_rows([("q", "a", 1)])
    run = Run.from_rows([("q", "a", 3.0), ("q", "b", 2.0), ("q", "c", 2.0)], name="r")
    b = unjudged_bounds(qrels, run, ["precision@2", "precision(ties=average)@2"], high=1)
    assert b.unjudged[0, :, 0].tolist() == [2, 2]
    assert b.upper.values[0, :, 0].tolist() == pytest.approx([1.0, 1.0])


# ---------------------------------------------------------------- every flavour
@st.composite
def data(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    qrels, run = [], []
    for q in range(3):
        for d in range(12):
            if rng.random() < 0.5:
                qrels.append((f"q{q}", f"d{d}", int(rng.integers(0, 4))))
        for d in rng.choice(12, size=int(rng.integers(1, 9)), replace=False):
            run.append((f"q{q}", f"d{d}", float(rng.integers(0, 4))))
    if not qrels:
        qrels.append(("q0", "d0", 1))
    return Qrels.from_rows(qrels), Run.from_rows(run, name="r")


def _keeps_unjudged(f) -> bool:
    """Flavours whose value reads unjudged documents as grade 0 (``at_low`` = value)."""
    return (f.metric not in INTENT and f.convention("judged_only") == "no"
            and f.convention("run_filter") != "unjudged" and f.convention("negative") != "drop")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(flavours(REG, [m for m in REG.names("metric") if m not in INTENT]), data())
def test_lower_value_upper_for_every_flavour(fl, qr):
    qrels, run = qr
    if not _keeps_unjudged(fl):
        return
    try:
        b = unjudged_bounds(qrels, run, [fl])
    except evalkit.EvaluationError:  # empty=error / missing=error triggered by the data
        return
    v, lo, hi, low = b.value.values, b.lower.values, b.upper.values, b.at_low.values
    np.testing.assert_array_equal(np.isnan(v), np.isnan(low))
    np.testing.assert_allclose(low[~np.isnan(v)], v[~np.isnan(v)], rtol=1e-12, atol=1e-12)
    ok = ~np.isnan(v)
    assert (lo[ok] <= v[ok] + 1e-12).all() and (v[ok] <= hi[ok] + 1e-12).all()


@st.composite
def mixed_data(draw):
    """Negative grades, tied scores, queries out of qid order or interleaved, run
    queries the qrels lack: the layouts the engine's join handles differently."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    qrels, run = [], []
    for q in rng.permutation(4):
        for d in range(10):
            if rng.random() < 0.5:
                qrels.append((f"q{q}", f"d{d}", int(rng.integers(-1, 4))))
        for d in rng.choice(10, size=int(rng.integers(1, 9)), replace=False):
            run.append((f"q{q}", f"d{d}", float(rng.integers(0, 3))))
    run.append(("zz", "d0", 1.0))
    if draw(st.booleans()):
        run = [run[i] for i in rng.permutation(len(run))]
    if not qrels:
        qrels.append(("q0", "d0", 1))
    return Qrels.from_rows(qrels), Run.from_rows(run, name="r")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(flavours(REG, [m for m in REG.names("metric") if m not in INTENT]), mixed_data(),
       st.sampled_from([None, "query", 1.5]), st.sampled_from([None, 0.5]), st.booleans())
def test_engine_substitution_equals_augmented_qrels(fl, qr, high, low, search):
    """The engine's substitution after its one sort (:mod:`evalkit.engine.substitute`)
    gives the values of the first implementation, which evaluates qrels with the
    unjudged documents appended as judgments (``tests/bounds_oracle.py``)."""
    qrels, run = qr
    try:
        want = bounds_oracle.unjudged_bounds(qrels, run, [fl], high=high, low=low, search=search)
    except (evalkit.EvaluationError, evalkit.errors.FlavourError) as exc:  # the data triggers a refusal
        with pytest.raises(type(exc)):
            unjudged_bounds(qrels, run, [fl], high=high, low=low, search=search)
        return
    got = unjudged_bounds(qrels, run, [fl], high=high, low=low, search=search)
    for name in ("value", "at_low", "at_high", "lower", "upper", "condensed"):
        np.testing.assert_allclose(getattr(got, name).values, getattr(want, name).values, rtol=1e-13,
                                   atol=1e-15, err_msg=f"{name} {fl}")
    np.testing.assert_array_equal(got.unjudged, want.unjudged)


# ---------------------------------------------------------------- exhaustive enumeration
MONOTONE = ["dcg@4", "dcg(gain=exp2,discount=jarvelin)", "precision@4", "rr", "err(max_grade=2)@4",
            "recall"]
MOVING_IDEAL = ["ndcg@4", "ndcg(gain=exp2)", "ndcg(idcg=returned)@3", "ndcg(idcg=returned_top_k)@3",
                "ndcg(idcg=judged_at_returned)@4", "ap", "err@4", "recall@3"]
HIGH = 2


def _cases(n=25, seed=20261128):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        length = int(rng.integers(2, 6))
        grades = [None if rng.random() < 0.45 else int(rng.integers(0, HIGH + 1)) for _ in range(length)]
        if None not in grades:
            grades[int(rng.integers(0, length))] = None
        extra = [("x", int(rng.integers(1, HIGH + 1)))] if rng.random() < 0.5 else []
        yield grades, extra


def _enumerate(grades, extra, specs, choices):
    """Every assignment of ``choices`` to the unjudged documents, one query per
    assignment, in one evaluation: ``(assignments, values (a, f))``."""
    holes = [i for i, g in enumerate(grades) if g is None]
    assignments = list(itertools.product(choices, repeat=len(holes)))
    qrels, run = [], []
    for a, fill in enumerate(assignments):
        filled = list(grades)
        for i, g in zip(holes, fill):
            filled[i] = g
        qrels += [(f"a{a:04d}", f"d{i}", g) for i, g in enumerate(filled)] + [(f"a{a:04d}", d, g) for d, g in extra]
        run += [(f"a{a:04d}", f"d{i}", float(len(grades) - i)) for i in range(len(grades))]
    res = evaluate(Qrels.from_rows(qrels), Run.from_rows(run, name="r"), specs)
    return assignments, res.values[0].T


def test_substitution_is_the_extreme_of_metrics_with_a_fixed_normaliser():
    for grades, extra in _cases():
        qrels, run = _one_query(grades, extra)
        b = unjudged_bounds(qrels, run, MONOTONE, high=HIGH)
        _, vals = _enumerate(grades, extra, MONOTONE, range(HIGH + 1))
        np.testing.assert_allclose(b.lower.values[0, :, 0], np.nanmin(vals, axis=0), atol=1e-12,
                                   err_msg=str((grades, extra)))
        np.testing.assert_allclose(b.upper.values[0, :, 0], np.nanmax(vals, axis=0), atol=1e-12,
                                   err_msg=str((grades, extra)))


def test_moving_ideal_substitution_inside_extremes_and_prefix_rule():
    """NDCG, AP and ERR with the qrels' largest grade as its maximum: the hull lies within
    the exhaustive extremes; it misses them on some lists (counted); the best
    ``{0, high}`` assignment is the first ``i`` unjudged at ``high`` for NDCG (the
    ideal depends only on the multiset of grades), the worst the last ``i``."""
    missed = {s: 0 for s in MOVING_IDEAL}
    for grades, extra in _cases(40):
        qrels, run = _one_query(grades, extra)
        b = unjudged_bounds(qrels, run, MOVING_IDEAL, high=HIGH)
        assignments, vals = _enumerate(grades, extra, MOVING_IDEAL, range(HIGH + 1))
        lo, hi = b.lower.values[0, :, 0], b.upper.values[0, :, 0]
        tmin, tmax = np.nanmin(vals, axis=0), np.nanmax(vals, axis=0)
        assert (tmin <= lo + 1e-12).all() and (hi <= tmax + 1e-12).all()
        for f, s in enumerate(MOVING_IDEAL):
            missed[s] += bool(hi[f] < tmax[f] - 1e-9 or lo[f] > tmin[f] + 1e-9)
        two = [a for a, fill in enumerate(assignments) if set(fill) <= {0, HIGH}]
        u = sum(g is None for g in grades)
        prefixes = [assignments.index(tuple([HIGH] * i + [0] * (u - i))) for i in range(u + 1)]
        suffixes = [assignments.index(tuple([0] * (u - i) + [HIGH] * i)) for i in range(u + 1)]
        searched = unjudged_bounds(qrels, run, MOVING_IDEAL, high=HIGH, search=True)
        for f, s in enumerate(MOVING_IDEAL):
            assert tmin[f] - 1e-12 <= searched.lower.values[0, f, 0] <= lo[f] + 1e-12
            assert hi[f] - 1e-12 <= searched.upper.values[0, f, 0] <= tmax[f] + 1e-12
            if s.startswith("ndcg"):
                assert np.nanmax(vals[two, f]) == pytest.approx(np.nanmax(vals[prefixes, f])), (s, grades, extra)
                assert np.nanmin(vals[two, f]) == pytest.approx(np.nanmin(vals[suffixes, f])), (s, grades, extra)
                # search=True finds these extremes (when every unjudged document is within the
                # cutoff: the documents below it are not substituted, by design)
                k = evalkit.parse_flavour(s).k
                if k is not None and max(i for i, g in enumerate(grades) if g is None) >= k:
                    continue
                assert searched.upper.values[0, f, 0] == pytest.approx(np.nanmax(vals[two, f])), (s, grades, extra)
                assert searched.lower.values[0, f, 0] == pytest.approx(np.nanmin(vals[two, f])), (s, grades, extra)
    assert missed["ndcg@4"] > 0 and missed["ndcg(idcg=returned)@3"] > 0 and missed["ap"] > 0, missed
    assert missed["recall@3"] > 0  # a relevant document below the cutoff raises the denominator
    print(missed)


# ---------------------------------------------------------------- thinned real pool
ROBUST = shared_path("trectools_robust03")
FIXED_NORMALISER = ["dcg@10", "precision@10", "err(max_grade=2)@20", "rr", "dcg(gain=exp2)@20"]


def _thinned_robust(keep=0.5, seed=7):
    qrels = evalkit.read_qrels(ROBUST / "robust03_qrels.txt")
    run = evalkit.read_run(ROBUST / "runs" / "input.InexpC2.gz")
    rng = np.random.default_rng(seed)
    mask = rng.random(len(qrels)) < keep
    thin = Qrels.from_columns(qrels.qid[mask], qrels.docno[mask], qrels.grade[mask])
    return qrels, thin, run


@pytest.mark.shared
def test_full_pool_inside_thinned_pool_bounds():
    """Metrics whose value reads only the grades of the ranks it scores, with a fixed
    normaliser: the full pool's grades are one assignment of ``[0, 2]`` to the
    thinned pool's unjudged documents, so its value lies inside the bounds."""
    full, thin, run = _thinned_robust()
    assert thin.qids.tolist() == full.qids.tolist()  # every topic keeps a judgment
    b = unjudged_bounds(thin, run, FIXED_NORMALISER, high=2)
    truth = evaluate(full, run, FIXED_NORMALISER).values
    ok = ~np.isnan(truth)
    assert ok.sum() == len(FIXED_NORMALISER) * len(full.qids)
    assert (b.lower.values[ok] <= truth[ok] + 1e-12).all()
    assert (truth[ok] <= b.upper.values[ok] + 1e-12).all()
    assert (b.upper.values - b.lower.values > 0).mean() > 0.5  # the thinned pool leaves room


# ---------------------------------------------------------------- RBP residual
@pytest.fixture(scope="module")
def rbp_reg():
    mp = pytest.MonkeyPatch()
    mp.syspath_prepend(str(PLUGIN_DIR))
    mp.setattr(registry_mod, "_entry_points",
               lambda: [__import__("importlib.metadata").metadata.EntryPoint(
                   name="rbp", value="evalkit_rbp", group="evalkit")])
    try:
        yield evalkit.build_registry(disable_plugins=False)
    finally:
        mp.undo()


def _write_random(tmp_path, seed):
    rng = np.random.default_rng(seed)
    q_lines, r_lines = [], []
    for q in range(1, 9):
        for d in range(30):
            if rng.random() < 0.4:
                q_lines.append(f"{q} 0 D{d} {int(rng.choice([-1, 0, 1, 2, 3], p=[.1, .4, .25, .15, .1]))}")
        for i, d in enumerate(rng.choice(30, size=int(rng.integers(3, 25)), replace=False)):
            r_lines.append(f"{q} Q0 D{d} {i + 1} {float(rng.integers(0, 6)):.1f} gen")
    qp, rp = tmp_path / f"qrels{seed}", tmp_path / f"run{seed}"
    qp.write_text("\n".join(q_lines) + "\n")
    rp.write_text("\n".join(r_lines) + "\n")
    return qp, rp


def _rbp_cases(tmp_path):
    yield shared_path("trec_eval_test", "qrels.test"), shared_path("trec_eval_test", "results.test")
    for seed in range(3):
        yield _write_random(tmp_path, seed)


@pytest.mark.shared
@pytest.mark.parametrize("p", [0.9, 0.5])
def test_rbp_residual_equals_trec_eval_10(rbp_reg, tmp_path, p):
    """trec_eval 10.0 m_rbp_resid.c (te_calc_rbp_resid): for a query with at least one
    unjudged (or negative-graded) retrieved document, ``p^n + (1 - p) * sum over those
    documents of p^(r-1)`` (``n``: documents retrieved), else 0. Each such document at
    relevance 1 adds exactly ``(1 - p) p^(r-1)`` to RBP (m_rbp.c normalises grades by the
    query's largest grade, so ``high="query"`` gives it relevance 1), hence
    ``rbp_resid = upper - lower + p^n``: trec_eval adds ``p^n``, the weight of the ranks
    below the list (documents not retrieved), which no grade of a retrieved document
    reaches; and reports 0 for a query without unjudged documents, where that tail
    remains."""
    spec = f"rbp(p={p})"
    for qp, rp in _rbp_cases(tmp_path):
        qrels, run = evalkit.read_qrels(qp), evalkit.read_run(rp)
        b = unjudged_bounds(qrels, run, [spec], high="query", registry=rbp_reg)
        out = parse_trec_eval_q(run_trec_eval("10.0", ["-q", "-m", f"rbp_resid.p={p}", "-m", f"rbp.p={p}",
                                                       str(qp), str(rp)]).stdout)
        n_ret = dict(zip(*np.unique(run.qid, return_counts=True)))
        checked = 0
        for q, qid in enumerate(b.value.qids):
            if (f"rbp_resid_p={p}", qid) not in out:
                continue
            want = float(out[(f"rbp_resid_p={p}", qid)])
            gap = b.upper.values[0, 0, q] - b.lower.values[0, 0, q]
            got = gap + p ** n_ret[qid] if b.unjudged[0, 0, q] else 0.0
            assert got == pytest.approx(want, abs=5e-5), (qp.name, qid)
            assert b.value.values[0, 0, q] == pytest.approx(float(out[(f"rbp_p={p}", qid)]), abs=5e-5)
            checked += 1
        assert checked > 0


# ---------------------------------------------------------------- evalkit eval --bounds
def test_cli_bounds_table_tsv_json(capsys, tmp_path):
    import json

    from evalkit.cli import main

    qp, rp = tmp_path / "qrels", tmp_path / "run"
    qp.write_text("q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n")
    rp.write_text("q1 Q0 a 1 3 r\nq1 Q0 u 2 2 r\nq1 Q0 b 3 1 r\nq2 Q0 v 1 2 r\nq2 Q0 c 2 1 r\n")
    assert main(["eval", str(qp), str(rp), "-m", "P.2", "--bounds", "--format", "json", "-q"]) == 0
    data = json.loads(capsys.readouterr().out)
    b = data["bounds"]["r"]
    # q1: a(1) u(?) -> P@2 in [1/2, 1]; q2: v(?) c(2) -> [1/2, 1]; condensed: a b -> 1/2; c -> 1/2
    assert b["per_query"]["q1"]["P.2"] == {"lower": 0.5, "upper": 1.0, "condensed": 0.5, "unjudged": 1}
    assert b["all"]["P.2"] == {"lower": 0.5, "upper": 1.0, "condensed": 0.5, "unjudged": 2}
    assert data["runs"]["r"]["all"]["P.2"] == 0.5
    assert main(["eval", str(qp), str(rp), "-m", "P.2", "--bounds", "--format", "tsv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split("\t") for ln in lines[1:]] == [["P_2_lower".ljust(22), "all", "0.5000"],
                                                   ["P_2_upper".ljust(22), "all", "1.0000"],
                                                   ["P_2_condensed".ljust(22), "all", "0.5000"]]
    assert main(["eval", str(qp), str(rp), "-m", "P.2", "--bounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "unjudged bounds" in out and "1.0000" in out
    assert main(["eval", str(qp), str(rp), "-m", "P.2", "--bounds", "-q"]) == 0
    rows = [ln.split() for ln in capsys.readouterr().out.splitlines()]
    assert ["r", "q2", "P.2", "0.5000", "0.5000", "1.0000", "0.5000", "1"] in rows
    assert main(["eval", str(qp), str(rp), "-m", "P.2", "--bounds", "nan"]) == 2
    assert "--bounds: 'nan' is not a grade" in capsys.readouterr().err
    assert main(["eval", str(qp), str(rp), "-m", "P.2", "--bounds", "--engine", "spark"]) == 2
    assert "--bounds: not available with --engine spark" in capsys.readouterr().err


def test_negative_grades_and_unordered_ties():
    """A negative grade is unjudged (trec_eval's 'not in the pool') except under
    ``negative=gain``; under ``ties=input`` every retrieved document is substituted."""
    qrels, run = _one_query([1, -1, None, 0])
    b = unjudged_bounds(qrels, run, ["precision@3", "dcg(negative=gain)@3", "precision(ties=input)@1"], high=1)
    assert b.unjudged[0, :, 0].tolist() == [2, 1, 2]
    assert b.upper.values[0, :, 0].tolist() == pytest.approx([1.0, 1 + 1 / math.log2(4) - 1 / math.log2(3), 1.0])
    assert b.lower.values[0, 1, 0] == pytest.approx(1 - 1 / math.log2(3))  # today's value, -1 counted


@pytest.mark.shared
def test_unjudged_counts_match_a_plain_python_count():
    qrels = evalkit.read_qrels(ROBUST / "robust03_qrels.txt")
    run = evalkit.read_run(ROBUST / "runs" / "input.humR03dc.gz")
    b = unjudged_bounds(qrels, run, ["precision", "precision@10"])
    judged = set(zip(qrels.qid.tolist(), qrels.docno.tolist()))
    want_all = {q: 0 for q in b.value.qids}
    ranked = {}
    for q, d, s in zip(run.qid.tolist(), run.docno.tolist(), run.score.tolist()):
        if q in want_all:
            ranked.setdefault(q, []).append((-s, d))
            want_all[q] += (q, d) not in judged
    assert b.unjudged[0, 0].tolist() == [want_all[q] for q in b.value.qids]
    f32 = {q: [float(np.float32(-s)) for s, _ in v] for q, v in ranked.items()}
    top10 = {q: sum((q, d) not in judged for s, d in v if sum(t > float(np.float32(-s)) for t in f32[q]) < 10)
             for q, v in ranked.items()}
    assert b.unjudged[0, 1].tolist() == [top10.get(q, 0) for q in b.value.qids]
    assert b.unjudged[0, 1].sum() > 0


def test_tie_policy_reading_grades_sorts_the_substituted_grades():
    """``ties=optimistic`` orders tied documents by grade: the substituted problem is
    sorted again (the engine sees the policy read grades), so the unjudged document
    tied with a judged non-relevant one moves to rank 1 at the highest grade."""
    qrels = Qrels.from_rows([("q", "a", 0), ("q", "x", 1)])
    run = Run.from_rows([("q", "a", 2.0), ("q", "u", 2.0)], name="r")  # a first in the file
    b = unjudged_bounds(qrels, run, ["precision(ties=optimistic)@1", "precision(ties=stable)@1"], high=1)
    assert b.value.values[0, :, 0].tolist() == [0.0, 0.0]
    assert b.upper.values[0, :, 0].tolist() == [1.0, 0.0]  # stable keeps a at rank 1


def test_explain_shows_unjudged_ranks_and_what_each_bound_assumes(tmp_path, capsys):
    """``evalkit explain --bounds``: the docstring's first counterexample (``[d1 (1), u]``,
    highest grade 3): today 1, with u at 3 NDCG@2 = 0.797, so the bounds are [0.797, 1]."""
    from evalkit.bounds import explain_bounds
    from evalkit.cli import main
    from evalkit.explain import explain_query

    qrels, run = _one_query([1, None, 0])
    ex = explain_query(qrels, run, "q", "ndcg@2")
    assert ex.bounds is None
    ex.bounds = explain_bounds(qrels, run, ex, 3.0)
    at_high = (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))
    assert ex.bounds.unjudged_ranks == [2] and ex.bounds.substituted == 1
    assert (ex.bounds.lower, ex.bounds.upper, ex.bounds.at_high) == pytest.approx((at_high, 1.0, at_high))
    assert ex.bounds.condensed == pytest.approx(1 / (1 + 0 / math.log2(3)))  # d1 d2: DCG 1, IDCG 1
    (tmp_path / "q").write_text("q 0 d0 1\nq 0 d2 0\n")
    (tmp_path / "r").write_text("q Q0 d0 1 3 r\nq Q0 d1 2 2 r\nq Q0 d2 3 1 r\n")
    assert main(["explain", str(tmp_path / "q"), str(tmp_path / "r"), "-Q", "q", "-m", "ndcg@2", "--bounds"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "unjudged ranks (grade '-'): 2" in out
    assert "at the lowest grade 1.0000: every unjudged document non-relevant (today's value)" in out
    # u at the qrels' largest grade 1: DCG 1 + 1/log2 3 = IDCG: 1
    assert ("at the highest grade 1.0000: the 1 unjudged document(s) that can sit within the first 2 ranks judged "
            "the qrels' largest grade (1), the ideal recomputed from the judged pool plus them") in out
    assert any(ln.startswith("bounds [1.0000, 1.0000]: ") for ln in out)
    assert any(ln.startswith("condensed 1.0000: ") for ln in out)


# ---------------------------------------------------------------- intent-aware (subtopic qrels)
def _random_subtopics(seed):
    rng = np.random.default_rng(seed)
    rows, run = [], []
    for t in range(3):
        n_sub = int(rng.integers(1, 4))
        for d in range(10):
            if rng.random() < 0.5:
                for s in range(n_sub):
                    rows.append((f"t{t}", str(s + 1), f"d{d}", int(rng.random() < 0.4)))
        for i, d in enumerate(rng.choice(12, size=int(rng.integers(2, 9)), replace=False)):
            run.append((f"t{t}", f"d{d}", float(rng.integers(0, 4))))
    if not rows:
        rows.append(("t0", "1", "d0", 1))
    return evalkit.SubtopicQrels.from_rows(rows), Run.from_rows(run, name="r")


def test_intent_aware_substitution_per_subtopic():
    """α-nDCG, ERR-IA, IA-nDCG: the engine judges each unjudged retrieved document
    ``high`` for every subtopic of its topic; the values equal :func:`evaluate` on subtopic
    qrels with those judgments appended (every unjudged document is within @20 here)."""
    from evalkit.builtins.diversity import topic_qrels

    specs = ["alpha_ndcg@20", "err_ia@20", "ia_ndcg@20"]
    for seed in range(20):
        sub, run = _random_subtopics(seed)
        qrels = topic_qrels(sub)
        b = unjudged_bounds(qrels, run, specs, subtopics=sub)
        judged = set(zip(sub.qid.tolist(), sub.docno.tolist()))
        subs = {}
        for t, s in zip(sub.qid.tolist(), sub.subtopic.tolist()):
            subs.setdefault(t, set()).add(s)
        extra = [(t, s, d, float(sub.grade.max())) for t, d in zip(run.qid.tolist(), run.docno.tolist())
                 if t in subs and (t, d) not in judged for s in sorted(subs[t])]
        rows = list(zip(sub.qid.tolist(), sub.subtopic.tolist(), sub.docno.tolist(), sub.grade.tolist())) + extra
        aug = evalkit.SubtopicQrels.from_rows(rows)
        with warnings.catch_warnings():  # queries without a relevant subtopic judgment
            warnings.simplefilter("ignore")
            want = evaluate(topic_qrels(aug), run, specs, subtopics=aug).values
        np.testing.assert_allclose(b.at_high.values, want, rtol=1e-12, atol=1e-15, err_msg=str(seed))
        assert b.unjudged[0, 0].sum() == len({(t, d) for t, _s, d, _g in extra})


def test_intent_aware_substitution_is_not_the_extreme():
    """Judging an unjudged document relevant to every subtopic is not α-nDCG's maximum:
    topic with subtopics 1, 2; ``a`` relevant to 1, ``u`` unjudged at rank 2, ``b``
    relevant to 1 at rank 3. ``u`` relevant to 1 and 2 (the substitution) against ``u``
    relevant to 2 only: the counted assignments (exhaustive over {0, 1} per subtopic)
    show the hull's upper bound below the true maximum, as docs/bounds.md says."""
    from evalkit.builtins.diversity import topic_qrels

    base = [("t", "1", "a", 1), ("t", "2", "a", 0), ("t", "1", "b", 1), ("t", "2", "b", 0)]
    run = Run.from_rows([("t", "a", 3.0), ("t", "u", 2.0), ("t", "b", 1.0)], name="r")
    sub = evalkit.SubtopicQrels.from_rows(base)
    b = unjudged_bounds(topic_qrels(sub), run, ["alpha_ndcg@3"], subtopics=sub)
    values = {}
    for g1, g2 in itertools.product((0, 1), repeat=2):
        aug = evalkit.SubtopicQrels.from_rows(base + [("t", "1", "u", g1), ("t", "2", "u", g2)])
        values[(g1, g2)] = evaluate(topic_qrels(aug), run, ["alpha_ndcg@3"], subtopics=aug).values[0, 0, 0]
    assert b.at_high.values[0, 0, 0] == pytest.approx(values[(1, 1)])
    assert b.lower.values[0, 0, 0] == pytest.approx(min(values[(0, 0)], values[(1, 1)]))
    # u relevant to both: 0.849 (the substitution, below today's 0.950: a's and b's gains
    # on subtopic 1 are discounted by u's redundancy); u relevant to 2 alone: 1.0
    assert values[(1, 1)] == pytest.approx(0.8487705150198124)
    assert values[(0, 1)] == pytest.approx(1.0)
    assert b.upper.values[0, 0, 0] == pytest.approx(values[(0, 0)])
    assert b.upper.values[0, 0, 0] < max(values.values())


# ---------------------------------------------------------------- RBP residual: cwl_eval
def _cwl_eval() -> str:
    """The ``cwl-eval`` command (``EVALKIT_CWL_EVAL``, beside this interpreter, or on
    ``PATH``); a light reference of the test extra, so the test fails, naming the pin,
    when it is absent."""
    import os
    import shutil
    import sys

    beside = Path(sys.executable).parent / "cwl-eval"
    found = os.environ.get("EVALKIT_CWL_EVAL") or (str(beside) if beside.exists() else shutil.which("cwl-eval"))
    if not found:
        pytest.fail("cwl-eval is not installed: it is in the test extra (cwl-eval==1.0.12); or set EVALKIT_CWL_EVAL")
    return found


def _in_trec_eval_order(src: Path, dst: Path) -> None:
    """``src``'s run rewritten in trec_eval's order (score descending, then docno
    descending), ranks 1..n: cwl_eval reads the file's order, evalkit's ``rbp`` sorts."""
    rows = [ln.split() for ln in src.read_text().splitlines() if ln.strip()]
    rows.sort(key=lambda r: r[2], reverse=True)  # docno descending (Python's str order is strcmp's)
    rows.sort(key=lambda r: (r[0], -float(r[4])))  # stable: ties keep docno descending
    lines, rank, prev = [], 0, None
    for q, _, d, _r, s, tag in rows:
        rank = rank + 1 if q == prev else 1
        prev = q
        lines.append(f"{q} Q0 {d} {rank} {s} {tag}")
    dst.write_text("\n".join(lines) + "\n")


@pytest.mark.cwl_eval
@pytest.mark.shared
@pytest.mark.parametrize("p", [0.9, 0.5])
def test_rbp_residual_equals_cwl_eval(rbp_reg, tmp_path, p):
    """cwl_eval 1.0.12 (``RBPCWLMetric``, ``-r``): ``ResEU`` is RBP's residual with every
    unjudged document at gain 1 *and* the ranks below the list: for binary qrels,
    ``upper - lower + p^n`` (``n`` documents retrieved) with ``high="query"``, for every
    query (trec_eval's ``rbp_resid`` drops the ``p^n`` where nothing is unjudged);
    ``EU`` is the value. Runs written in trec_eval's order (cwl_eval reads the file's
    order), binary qrels (cwl_eval's gains are the grades, in [0, 1])."""
    import subprocess

    cwl = _cwl_eval()
    metrics = tmp_path / "metrics"
    metrics.write_text(f"RBPCWLMetric({p})\n")
    cases = [(shared_path("trec_eval_test", "qrels.test"), shared_path("trec_eval_test", "results.test"))]
    for seed in range(3):
        rng = np.random.default_rng(100 + seed)
        q_lines, r_lines = [], []
        for q in range(1, 9):
            for d in range(30):
                if rng.random() < 0.4:
                    q_lines.append(f"{q} 0 D{d} {int(rng.random() < 0.4)}")
            for d in rng.choice(30, size=int(rng.integers(3, 25)), replace=False):
                r_lines.append(f"{q} Q0 D{d} 0 {float(rng.integers(0, 6)):.1f} gen")
        qp, rp = tmp_path / f"q{seed}", tmp_path / f"r{seed}"
        qp.write_text("\n".join(q_lines) + "\n")
        rp.write_text("\n".join(r_lines) + "\n")
        cases.append((qp, rp))
    checked = 0
    for i, (qp, rp) in enumerate(cases):
        ordered = tmp_path / f"ordered{i}"
        _in_trec_eval_order(Path(rp), ordered)
        qrels, run = evalkit.read_qrels(qp), evalkit.read_run(ordered)
        b = unjudged_bounds(qrels, run, [f"rbp(p={p})"], high="query", registry=rbp_reg)
        out = subprocess.run([cwl, str(qp), str(ordered), "-m", str(metrics), "-r"], capture_output=True,
                             text=True, check=True).stdout
        n_ret = dict(zip(*np.unique(run.qid, return_counts=True)))
        for line in out.splitlines():
            topic, _name, eu, *_rest = line.split("\t")
            res_eu = line.split("\t")[7]
            if topic not in set(b.value.qids.tolist()):
                continue
            q = b.value.qids.tolist().index(topic)
            assert b.value.values[0, 0, q] == pytest.approx(float(eu), abs=5.01e-5), (qp.name, topic)  # 4 decimals
            gap = b.upper.values[0, 0, q] - b.lower.values[0, 0, q]
            assert gap + p ** n_ret[topic] == pytest.approx(float(res_eu), abs=5.01e-5), (qp.name, topic)
            checked += 1
    assert checked > 20
