"""``evalkit.explain``: the per-rank table is the engine's own computation.

* the issue's two examples (``depth=2`` at cutoff 5, ``min_grade=2``), with DCG and
  IDCG worked out by hand;
* a property test: for flavours drawn from the registry
  (:mod:`flavour_strategies`: every explainable metric, every component with its
  declared parameters, every convention, cutoffs) on random qrels and runs with tied
  scores, the explanation's value is :func:`evalkit.evaluate`'s, its DCG is the
  ``dcg`` flavour's value with the same components, and for ``ndcg`` the value is
  DCG/IDCG wherever the conventions and ``rel_level`` leave it so (a consistency
  check: explain and evaluate share the engine);
* explain against peers on tied random lists: pytrec_eval (trec_eval presets) and
  scikit-learn (``sklearn.ndcg_score``: value and DCG).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evalkit
from evalkit import Qrels, Run, build_registry
from evalkit.cli import main
from evalkit.errors import EvalkitError
from evalkit.explain import explain_query, explainable_metrics
from evalkit.resolve import resolve_flavour
from flavour_strategies import flavours

REG = build_registry(disable_plugins=True)

# q1: d5 (grade 2) is judged and not returned; d6 is returned and unjudged
QRELS = Qrels.from_rows([("q1", "d1", 3), ("q1", "d2", 2), ("q1", "d3", 0), ("q1", "d4", 1), ("q1", "d5", 2)])
RUN = Run.from_rows([("q1", "d3", 0.9), ("q1", "d1", 0.8), ("q1", "d6", 0.75), ("q1", "d4", 0.7),
                     ("q1", "d2", 0.6)], name="sys")


def _log2(r):
    return 1 / math.log2(r + 1)


# --------------------------------------------------------------------------- the examples
def test_depth_two_at_five_by_hand():
    ex = explain_query(QRELS, RUN, "q1", "ndcg(depth=2)@5", REG)
    # the ranking is cut to its first 2 documents, d3 (0) and d1 (3), before the cutoff
    dcg = 0 * _log2(1) + 3 * _log2(2)
    # the ideal (idcg=judged) is over every judged document: grades 3, 2, 2, 1
    idcg = 3 * _log2(1) + 2 * _log2(2) + 2 * _log2(3) + 1 * _log2(4)
    assert ex.dcg == pytest.approx(dcg, rel=1e-12)
    assert ex.idcg == pytest.approx(idcg, rel=1e-12)
    assert ex.value == pytest.approx(dcg / idcg, rel=1e-12)
    assert ex.n_returned == 2
    assert [r.docno for r in ex.rows if r.docno is not None] == ["d3", "d1"]
    assert [r.ideal_gain for r in ex.rows] == [3, 2, 2, 1]
    assert [r.ideal_grade for r in ex.rows] == [3, 2, 2, 1]
    assert ex.rows[-1].running_idcg == pytest.approx(idcg, rel=1e-12)


def test_min_grade_two_by_hand():
    ex = explain_query(QRELS, RUN, "q1", "ndcg(min_grade=2)@5", REG)
    # ranking d3 (0), d1 (3), d6 (unjudged), d4 (1 < 2: gain 0), d2 (2)
    dcg = 3 * _log2(2) + 2 * _log2(5)
    # grades below 2 leave the ideal ranking: 3, 2, 2
    idcg = 3 * _log2(1) + 2 * _log2(2) + 2 * _log2(3)
    assert [r.gain for r in ex.rows] == [0, 3, 0, 0, 2]
    assert ex.dcg == pytest.approx(dcg, rel=1e-12)
    assert ex.idcg == pytest.approx(idcg, rel=1e-12)
    assert ex.value == pytest.approx(dcg / idcg, rel=1e-12)
    assert [r.ideal_gain for r in ex.rows if r.ideal_gain is not None] == [3, 2, 2]


def test_ideal_grade_under_a_gain_table():
    # map(1=5,2=5): grades 1 and 2 share gain 5, so the ideal's grade there is unknown
    ex = explain_query(QRELS, RUN, "q1", "ndcg(gain=map(1=5,2=5))@3", REG)
    assert [(r.ideal_grade, r.ideal_gain) for r in ex.rows[:3]] == [(None, 5), (None, 5), (None, 5)]
    ex = explain_query(QRELS, RUN, "q1", "ndcg(gain=exp2)@2", REG)
    assert [(r.ideal_grade, r.ideal_gain) for r in ex.rows] == [(3, 7), (2, 3)]


def test_cli_prints_the_ratio_it_computes(tmp_path, capsys):
    (tmp_path / "qrels").write_text("".join(f"q1 0 {d} {g}\n" for d, g in
                                            [("d1", 3), ("d2", 2), ("d3", 0), ("d4", 1), ("d5", 2)]))
    (tmp_path / "run").write_text("".join(f"q1 Q0 {d} {i + 1} {s} sys\n" for i, (d, s) in
                                          enumerate([("d3", 0.9), ("d1", 0.8), ("d6", 0.75), ("d4", 0.7),
                                                     ("d2", 0.6)])))
    dcg = 3 * _log2(2)
    idcg = 3 * _log2(1) + 2 * _log2(2) + 2 * _log2(3) + 1 * _log2(4)
    assert main(["--no-plugins", "explain", str(tmp_path / "qrels"), str(tmp_path / "run"),
                 "--query", "q1", "-m", "ndcg(depth=2)@5"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last == f"DCG@5 = {dcg:.4f}   IDCG@5 = {idcg:.4f}   NDCG@5 = DCG/IDCG = {dcg / idcg:.4f}"


def test_grades_notes_say_what_the_gain_reads():
    """grades=lightgbm: the gain of floor(float32(grade)); grades=gdeval: of the grade
    itself (gdeval.pl reads the integer text)."""
    notes = {rule: explain_query(QRELS, RUN, "q1", f"ndcg(gain=exp2,grades={rule})@5", REG).notes
             for rule in ("lightgbm", "gdeval")}
    assert any(n.startswith("grades=lightgbm:") and "floor(float32(grade))" in n for n in notes["lightgbm"])
    assert any(n.startswith("grades=gdeval:") and "above 4" in n and "the grade itself" in n
               for n in notes["gdeval"])
    assert not any("floor" in n for n in notes["gdeval"])


def test_judged_only_renumbers_ranks_by_hand():
    ex = explain_query(QRELS, RUN, "q1", "dcg(judged_only=yes)@4", REG)
    # d6 (unjudged) is dropped: d3, d1, d4, d2 at ranks 1..4
    assert [r.docno for r in ex.rows] == ["d3", "d1", "d4", "d2"]
    assert ex.dcg == pytest.approx(3 * _log2(2) + 1 * _log2(3) + 2 * _log2(4), rel=1e-12)


# --------------------------------------------------------------------------- property
@st.composite
def collections(draw, max_queries=4, max_docs=7):
    """Qrels and a run: coarse scores (ties are common), grades -1..4, unjudged
    returned documents, judged documents not returned, a qrels query absent from the
    run and a run query absent from the qrels."""
    qrels, run = [], []
    for q in range(draw(st.integers(1, max_queries))):
        n = draw(st.integers(0, max_docs))
        for d in range(n):
            score = draw(st.integers(0, 3)) / 4
            run.append((f"q{q}", f"d{d}", score))
            if draw(st.integers(0, 4)):  # most returned documents are judged
                qrels.append((f"q{q}", f"d{d}", draw(st.integers(-1, 4))))
        for d in range(n, n + draw(st.integers(0, 3))):
            qrels.append((f"q{q}", f"d{d}", draw(st.integers(-1, 4))))
        if not any(r[0] == f"q{q}" for r in qrels):
            qrels.append((f"q{q}", "d0", draw(st.integers(0, 4))))
    run.append(("extra", "d0", 1.0))
    return Qrels.from_rows(qrels), Run.from_rows(run, name="sys")


def _reported(fl, value: float) -> float:
    """A query's value after the conventions that transform it: ``complement`` (1 - value),
    then ``round`` (decimals; half_up = floor(x * 10^d + 0.5) / 10^d, half_even = np.round)."""
    if fl.convention("complement") == "yes":
        value = 1.0 - value
    d = fl.convention("round")
    if d is not None:
        value = (math.floor(value * 10.0 ** d + 0.5) / 10.0 ** d if fl.convention("rounding") == "half_up"
                 else float(np.round(value, d)))
    return value


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def _outcome(fn):
    try:
        return fn(), None
    except EvalkitError as exc:
        return None, type(exc)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(flavours(REG, explainable_metrics(REG)), collections())
def test_explain_agrees_with_evaluate(fl, data):
    qrels, run = data
    res, err = _outcome(lambda: evalkit.evaluate(qrels, run, [fl], registry=REG))
    if err is not None:  # a convention set to error, or a refused combination
        for qid in qrels.qids:
            with pytest.raises(err):
                explain_query(qrels, run, qid, fl, REG)
        return
    values = dict(zip(res.qids, res.values[0, 0].tolist()))  # NaN: left out by a convention
    # the DCG of the same ranking, gains and discount, as the dcg metric computes it
    # (without the conventions that transform the per-query value: 1 - value, rounding)
    dcg_fl = fl.replace(REG, metric="dcg", params={}, empty=None, missing="zero", complement=None,
                        round=None)
    dcg_res = evalkit.evaluate(qrels, run, [dcg_fl], registry=REG)
    dcgs = dict(zip(dcg_res.qids, dcg_res.values[0, 0].tolist()))
    in_run = set(run.qids)
    for qid in qrels.qids:
        ex = explain_query(qrels, run, qid, fl, REG)
        assert _same(ex.value, values[qid]), (str(fl), qid)
        assert ex.dcg == dcgs[qid], (str(fl), qid)
        contributions = [r.contribution for r in ex.rows if r.contribution is not None]
        assert math.fsum(contributions) == pytest.approx(ex.dcg, rel=1e-9, abs=1e-12)
        if ex.idcg is None:
            continue
        assert ex.ideal_listed
        ideal = [r.ideal_contribution for r in ex.rows if r.ideal_contribution is not None]
        assert math.fsum(ideal) == pytest.approx(ex.idcg, rel=1e-9, abs=1e-12)
        if fl.metric != "ndcg" or math.isnan(values[qid]):
            continue
        missing = qid not in in_run
        if ex.idcg > 0:
            ratio = np.float64(ex.dcg) / ex.idcg
            zeroed = dict(fl.params).get("rel_level", 0) > 0 or (missing and fl.convention("missing") == "zero")
            assert values[qid] == _reported(fl, ratio) or (zeroed and values[qid] == _reported(fl, 0.0)), \
                (str(fl), qid)
            if values[qid] == _reported(fl, ratio) and fl.convention("round") is None:
                assert ex.is_ratio
        else:
            empty = fl.convention("empty")
            assert values[qid] == _reported(fl, {"zero": 0.0, "one": 1.0}[empty]), (str(fl), qid)


@pytest.mark.parametrize("seed", range(3))
def test_explain_values_equal_pytrec_eval_and_sklearn(seed):
    """Beside the consistency property above (explain and evaluate share the engine),
    explain's value, DCG and IDCG against peers on tied random lists: pytrec_eval's
    ``ndcg_cut_10`` / ``ndcg`` for the trec_eval presets, scikit-learn's ``dcg_score``
    and ``ndcg_score`` (averaged ties; the list's own grades as y_true) for
    ``sklearn.ndcg_score@5``."""
    import pytrec_eval
    from sklearn.metrics import dcg_score, ndcg_score

    from conftest import to_pytrec

    rng = np.random.default_rng(300 + seed)
    q_rows, r_rows = [], []
    for q in range(8):
        n = int(rng.integers(1, 40))
        for d in range(n):
            r_rows.append((f"q{q}", f"d{d:02d}", float(rng.integers(0, 5))))  # many ties
        for d in rng.choice(60, size=int(rng.integers(1, 30)), replace=False):
            q_rows.append((f"q{q}", f"d{d:02d}", int(rng.integers(0, 4))))
    qrels, run = Qrels.from_rows(q_rows), Run.from_rows(r_rows, name="r")
    qd, rd = to_pytrec(qrels, run)
    peer = pytrec_eval.RelevanceEvaluator(qd, {"ndcg_cut.10", "ndcg"}).evaluate(rd)
    assert set(peer) == {f"q{q}" for q in range(8)}
    judged = qrels.to_dict()
    for qid in sorted(peer):
        assert explain_query(qrels, run, qid, resolve_flavour("trec_eval.ndcg_cut@10", REG), REG).value == \
            pytest.approx(peer[qid]["ndcg_cut_10"], abs=1e-12), qid
        assert explain_query(qrels, run, qid, resolve_flavour("trec_eval.ndcg", REG), REG).value == \
            pytest.approx(peer[qid]["ndcg"], abs=1e-12), qid
        y = np.array([[max(judged[qid].get(d, 0), 0) for d in rd[qid]]], dtype=float)
        s = np.array([list(rd[qid].values())])
        ex = explain_query(qrels, run, qid, resolve_flavour("sklearn.ndcg_score@5", REG), REG)
        assert ex.dcg == pytest.approx(dcg_score(y, s, k=5), abs=1e-12), qid
        if y.shape[1] > 1:  # scikit-learn refuses a single document for ndcg_score
            assert ex.value == pytest.approx(ndcg_score(y, s, k=5), abs=1e-12), qid
