"""ranx <-> evalkit converters, evaluation of ranx objects and ranx's comparison report of
evalkit's values (issue 28), against ranx 0.3.21 itself."""

from __future__ import annotations

import numpy as np
import pytest

import evalkit
from evalkit.ecosystem import ranx as ekr

from conftest import shared_path

import ranx  # a light reference (the test extra): missing, the unit layer fails

#: ranx evaluates a Run's documents in the order it holds them (sorted once on construction);
#: ``ties=stable`` reads the evalkit run in its row order, which from_ranx_run takes from ranx.
HELD_ORDER = "ndcg(ties=stable,missing=zero)@10"


def _tied(seed: int, n_queries: int = 30):
    """Qrels and a run with many tied scores (4 score values over 40 documents per query)."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in rng.permutation(40)]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 4)) for d in docs[:25]}
        run[f"q{q}"] = {d: float(rng.integers(0, 4)) for d in docs}
    return qrels, run


def _ranx_ndcg10(qrels, run) -> np.ndarray:
    out = ranx.evaluate(qrels, run, ["ndcg@10", "precision@10"], return_mean=False, save_results_in_run=False)
    return np.asarray(out["ndcg@10"])


def test_run_keeps_the_order_ranx_holds():
    qrels_d, run_d = _tied(0)
    qrels, run = ranx.Qrels(qrels_d), ranx.Run(run_d, name="tied")
    ek_run = ekr.from_ranx_run(run)
    assert ek_run.name == "tied"
    held = [(q, d) for q in run.run for d in run.run[q]]
    assert list(zip(ek_run.qid, ek_run.docno)) == held
    assert held != [(q, d) for q in run_d for d in run_d[q]]  # ranx did reorder the dict
    # evaluated from that order, ranx's own NDCG@10 on heavily tied data, query by query
    got = ekr.evaluate(qrels, run, [HELD_ORDER])
    np.testing.assert_allclose(got.values[0, 0], _ranx_ndcg10(qrels, run), rtol=0, atol=1e-12)
    assert list(got.qids) == list(run.keys())


@pytest.mark.shared
def test_file_pair_round_trip_and_values(trec_eval_dir):
    qrels_path, run_path = trec_eval_dir / "qrels.test", trec_eval_dir / "results.test"
    rq = ranx.Qrels.from_file(str(qrels_path), kind="trec")
    rr = ranx.Run.from_file(str(run_path), kind="trec")
    q, r = ekr.from_ranx_qrels(rq), ekr.from_ranx_run(rr)
    assert q.to_dict() == evalkit.read_qrels(qrels_path).to_dict()
    assert r.to_dict() == evalkit.read_run(run_path).to_dict() and r.name == "STANDARD"
    specs = ["trec_eval.ndcg_cut@10", "ndcg(gain=exp2,ties=average)@5"]
    via_ranx = ekr.evaluate(rq, rr, specs)
    direct = evalkit.evaluate(evalkit.read_qrels(qrels_path), [evalkit.read_run(run_path)], specs)
    np.testing.assert_array_equal(via_ranx.values, direct.values)  # order-free tie policies
    # and back: ranx computes the same from the converted objects
    back_q, back_r = ekr.to_ranx_qrels(q), ekr.to_ranx_run(r)
    assert back_r.name == "STANDARD"
    assert back_q.to_dict() == rq.to_dict() and back_r.to_dict() == rr.to_dict()
    assert ranx.evaluate(back_q, back_r, "ndcg@10") == ranx.evaluate(rq, rr, "ndcg@10")


def test_compare_report_holds_evalkit_values_and_ranx_tests():
    """On the flavour that reads ranx's held order, the report equals ``ranx.compare``'s own
    for ``ndcg@10``: the same means, p-values and win/tie/loss counts. (The paired t-test:
    ranx's Fisher randomization test draws its permutations on numba's parallel threads, whose
    random states ``np.random.seed`` does not fix, so two identical ``ranx.compare`` calls give
    different p-values.)"""
    qrels_d, _ = _tied(1)
    qrels = ranx.Qrels(qrels_d)
    runs = [ranx.Run(_tied(s)[1], name=f"sys{s}") for s in (2, 3, 4)]
    ours = ekr.compare(qrels, runs, [HELD_ORDER, "trec_eval.ndcg_cut@10"], stat_test="student", max_p=0.05)
    theirs = ranx.compare(qrels, runs, ["ndcg@10"], stat_test="student", max_p=0.05)
    for name in ("sys2", "sys3", "sys4"):
        assert ours.results[name][HELD_ORDER] == pytest.approx(theirs.results[name]["ndcg@10"], abs=1e-12)
    for pair, by_metric in theirs.comparisons.items():
        assert ours.comparisons[pair][HELD_ORDER]["p_value"] == pytest.approx(by_metric["ndcg@10"]["p_value"],
                                                                              rel=1e-12)
        assert ours.comparisons[pair][HELD_ORDER]["significant"] == by_metric["ndcg@10"]["significant"]
    assert ours.win_tie_loss[("sys2", "sys3")][HELD_ORDER] == theirs.win_tie_loss[("sys2", "sys3")]["ndcg@10"]
    res = ekr.evaluate(qrels, runs, [HELD_ORDER, "trec_eval.ndcg_cut@10"])
    assert ours.results["sys3"]["trec_eval.ndcg_cut@10"] == pytest.approx(res.mean("sys3", 1), abs=1e-15)
    table = str(ours)  # ranx renders it: the labels as evalkit gives them
    assert "trec_eval.ndcg_cut@10" in table and "sys4" in table
    assert "trec_eval.ndcg_cut@10" in ours.to_latex() and set(ours.to_dict()) >= {"sys2", "sys3", "sys4"}


def test_store_scores_as_ranx_evaluate_does():
    qrels_d, run_d = _tied(5, n_queries=5)
    qrels, run = ranx.Qrels(qrels_d), ranx.Run(run_d, name="r")
    res = ekr.evaluate(qrels, run, [HELD_ORDER])
    ekr.store_scores(res, [run])
    ranx.evaluate(qrels, run, "ndcg@10")  # ranx stores its own next to it
    assert run.mean_scores[HELD_ORDER] == pytest.approx(run.mean_scores["ndcg@10"], abs=1e-12)
    assert run.scores[HELD_ORDER] == pytest.approx(dict(run.scores["ndcg@10"]), abs=1e-12)
    with pytest.raises(evalkit.ArgumentError, match="2 ranx runs for 1 systems"):
        ekr.store_scores(res, [run, run])


def test_bad_arguments():
    with pytest.raises(evalkit.ArgumentError, match="ranx.Run or a dict"):
        ekr.from_ranx_run([("q", "d", 1.0)])
    with pytest.raises(evalkit.ArgumentError, match="at least two runs"):
        ekr.compare({"q": {"d": 1}}, [ranx.Run({"q": {"d": 1.0}}, name="a")], ["ndcg@10"])
