"""evalkit flavours as ir_measures measures, through ir_measures' own API and PyTerrier's
``pt.Experiment`` (issue 28).

The real data: TREC DL 2020's passage qrels (``anserini_tools_qrels``) with a tied run
written by the test (no DL 2020 run is in ``../shared/data``), and the TREC Web 2012 pair:
the Indri query-likelihood run ``ql.results-cata`` (50 topics, depth 1000) and its graded
qrels (-2..4, ``qrels.web.151-200.txt``). The references: trec_eval 10.0 built from
``../shared/references`` for ``trec_eval.ndcg_cut@10`` and pytrec_eval (the provider
ir_measures' own ``nDCG@10`` runs on) for ``nDCG@10``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import evalkit
from evalkit.ecosystem.ir_measures import measure, measures

from conftest import assert_per_query, shared_path
from reference_programs import parse_trec_eval_q, run_trec_eval

import ir_measures  # a light reference (the test extra): missing, the unit layer fails
import pandas as pd  # a light reference (the test extra): missing, the unit layer fails


@pytest.fixture(scope="module")
def web12():
    qrels_path = shared_path("anserini_tools_qrels", "qrels.web.151-200.txt")
    run_path = shared_path("trec_web_2012_baselines", "ql.results-cata.txt")
    return qrels_path, run_path


@pytest.fixture(scope="module")
def dl20(tmp_path_factory):
    """TREC DL 2020 passage qrels (``qrels.dl20-passage.txt``, 54 topics, grades 0-3) and a
    run over them written here (no DL 2020 run is in ``../shared/data``): for each topic its
    judged passages and 40 unjudged ones in a seeded random order, scores with 2 decimals,
    so many of them tie (the tie order is what trec_eval's and pytrec_eval's orders decide)."""
    qrels_path = shared_path("anserini_tools_qrels", "qrels.dl20-passage.txt")
    rng = np.random.default_rng(2020)
    judged: dict[str, list[str]] = {}
    for line in qrels_path.read_text().splitlines():
        qid, _, docno, _ = line.split()
        judged.setdefault(qid, []).append(docno)
    lines = []
    for qid, docs in judged.items():
        pool = docs + [f"u{qid}_{i}" for i in range(40)]
        for rank, i in enumerate(rng.permutation(len(pool))[:100], 1):
            lines.append(f"{qid} Q0 {pool[i]} {rank} {round(float(rng.random()), 2):.2f} dl20like")
    run_path = tmp_path_factory.mktemp("dl20") / "dl20like.run"
    run_path.write_text("\n".join(lines) + "\n")
    return qrels_path, run_path


def _per_query(metrics, measure_obj) -> dict[str, float]:
    return {m.query_id: m.value for m in metrics if m.measure == measure_obj}


@pytest.mark.shared
@pytest.mark.parametrize("data", ["web12", "dl20"])
def test_mixed_with_ir_measures_own_measure_per_query(data, request):
    """``[evalkit measure of trec_eval.ndcg_cut@10, nDCG@10]`` in one ir_measures call: each
    equals its direct value on every query (evalkit.evaluate and trec_eval 10.0 for the first,
    pytrec_eval for ir_measures' own), and calc_aggregate gives their means; on the Web 2012
    run and on DL 2020's qrels with a tied run."""
    qrels_path, run_path = request.getfixturevalue(data)
    ek = measure("trec_eval.ndcg_cut@10")
    own = ir_measures.nDCG @ 10
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    run = list(ir_measures.read_trec_run(str(run_path)))
    metrics = list(ir_measures.iter_calc([ek, own], qrels, run))
    got_ek, got_own = _per_query(metrics, ek), _per_query(metrics, own)
    assert len(got_ek) == len(got_own) == {"web12": 50, "dl20": 54}[data]

    direct = evalkit.evaluate(evalkit.read_qrels(qrels_path), [evalkit.read_run(run_path)],
                              ["trec_eval.ndcg_cut@10"]).per_query(0, 0)
    assert_per_query(got_ek, direct, abs_tol=0.0, context="evalkit measure vs evalkit.evaluate")
    te = parse_trec_eval_q(run_trec_eval("10.0", ["-q", "-m", "ndcg_cut.10", qrels_path, run_path]).stdout)
    assert_per_query(got_ek, {q: float(v) for (m, q), v in te.items() if q != "all"}, abs_tol=5e-5,
                     context="evalkit measure vs trec_eval 10.0")

    import pytrec_eval

    ref_qrels = {}
    for q in qrels:
        ref_qrels.setdefault(q.query_id, {})[q.doc_id] = int(q.relevance)
    ref_run = {}
    for r in run:
        ref_run.setdefault(r.query_id, {})[r.doc_id] = float(r.score)
    ref = pytrec_eval.RelevanceEvaluator(ref_qrels, {"ndcg_cut.10"}).evaluate(ref_run)
    assert_per_query(got_own, {q: v["ndcg_cut_10"] for q, v in ref.items()}, abs_tol=0.0,
                     context="ir_measures nDCG@10 (next to the evalkit measure) vs pytrec_eval")

    agg = ir_measures.calc_aggregate([ek, own], qrels, run)
    assert agg[ek] == pytest.approx(np.mean(list(direct.values())), abs=1e-12)
    assert agg[own] == pytest.approx(np.mean(list(got_own.values())), abs=1e-12)
    assert {str(k) for k in agg} == {"nDCG@10", "evalkit:" + str(ek.flavour)}


def test_name_is_the_canonical_flavour_and_unique_per_flavour():
    a, b = measure("trec_eval.ndcg_cut@10"), measure("ndcg(missing=error)@10")
    assert a == b and hash(a) == hash(b)  # one flavour, one measure
    assert repr(a) == "evalkit:ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval,missing=error)@10"
    c = measure("ndcg(gain=exp2)@10")
    assert c != a and repr(c) != repr(a)
    assert a.label == "trec_eval.ndcg_cut@10" and b.label == "ndcg(missing=error)@10"
    assert repr(a @ 5) == "evalkit:ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval,missing=error)@5"
    named = measure("ndcg(gain=exp2)@10", name="exp2@10")
    assert repr(named) == "exp2@10" and named.flavour == c.flavour
    with pytest.raises(evalkit.FlavourError, match="already names"):
        measure("ndcg@10", name="exp2@10")
    with pytest.raises(evalkit.FlavourError, match="gives 9 flavours"):
        measure("trec_eval.ndcg_cut")
    assert [m.flavour.k for m in measures("trec_eval.ndcg_cut")] == [5, 10, 15, 20, 30, 100, 200, 500, 1000]
    with pytest.raises(evalkit.FlavourError):
        measure("ndcg(gain=cube)")


def _frames(rows_q, rows_r):
    qrels = pd.DataFrame(rows_q, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(rows_r, columns=["query_id", "doc_id", "score"])
    return qrels, run


def test_input_order_reaches_an_order_dependent_tie_policy():
    """ir_measures sorts the run by score with an unstable sort before ``impl`` sees it; the
    measure restores the order the run was given in, so ``ties=stable`` (input order) gives
    evalkit.evaluate's value for either order of two tied documents."""
    qrels, _ = _frames([("q1", "a", 3), ("q1", "b", 0), ("q1", "c", 1)], [])
    m = measure("ndcg(ties=stable)@1")
    for order, want in ((["b", "a", "c"], 0.0), (["a", "b", "c"], 1.0)):
        run = pd.DataFrame({"query_id": "q1", "doc_id": order, "score": [1.0, 1.0, 0.5]})
        got = ir_measures.calc_aggregate([m], qrels, run)[m]
        direct = evalkit.evaluate(evalkit.Qrels.from_df(qrels), [evalkit.Run.from_df(run)],
                                  ["ndcg(ties=stable)@1"]).mean(0, 0)
        assert got == direct == want


def test_query_left_out_is_nan_and_not_in_the_mean():
    """A qrels query absent from the run: ``missing=skip`` (trec_eval's) leaves it out of the
    mean, as evalkit.evaluate does; ``missing=zero`` and ir_measures' own measure score 0."""
    qrels, run = _frames([("q1", "a", 1), ("q1", "b", 0), ("q2", "c", 1)],
                         [("q1", "b", 2.0), ("q1", "a", 1.0)])
    skip, zero = measure("ndcg@10"), measure("ndcg(missing=zero)@10")
    per = list(ir_measures.iter_calc([skip, zero, ir_measures.nDCG @ 10], qrels, run))
    q1 = 1 / math.log2(3)
    assert _per_query(per, skip)["q1"] == pytest.approx(q1) and math.isnan(_per_query(per, skip)["q2"])
    assert _per_query(per, zero) == pytest.approx({"q1": q1, "q2": 0.0})
    agg = ir_measures.calc_aggregate([skip, zero, ir_measures.nDCG @ 10], qrels, run)
    res = evalkit.evaluate(evalkit.Qrels.from_df(qrels), [evalkit.Run.from_df(run)],
                           ["ndcg@10", "ndcg(missing=zero)@10"])
    assert agg[skip] == pytest.approx(res.means()[0, 0]) == pytest.approx(q1)
    assert agg[zero] == pytest.approx(res.means()[0, 1]) == pytest.approx(q1 / 2)
    assert agg[ir_measures.nDCG @ 10] == pytest.approx(q1 / 2)


def test_integer_query_ids_come_back_as_given():
    qrels, run = _frames([(1, "a", 1), (2, "b", 1)], [(1, "a", 1.0), (2, "c", 1.0)])
    per = {m.query_id: m.value for m in measure("ndcg@10").iter_calc(qrels, run)}
    assert per == {1: 1.0, 2: 0.0}


def test_diversity_flavour_reads_subtopics_from_the_iteration_column(ir_measures_dir):
    """``alpha_nDCG@20`` (pyndeval behind ir_measures) and evalkit's ``ir_measures.alpha_nDCG@20``
    measure on ir_measures' own diversity fixture, the subtopic in the qrels' iteration column."""
    qrels = list(ir_measures.read_trec_qrels(str(ir_measures_dir / "fixtureC_diversity.qrels")))
    run_path = ir_measures_dir / "fixtureA.run"
    run = list(ir_measures.read_trec_run(str(run_path)))
    ek = measure("ir_measures.alpha_nDCG@20")
    per = list(ir_measures.iter_calc([ek, ir_measures.alpha_nDCG @ 20], qrels, run))
    got, want = _per_query(per, ek), _per_query(per, ir_measures.alpha_nDCG @ 20)
    assert_per_query({q: v for q, v in got.items() if not math.isnan(v)}, want, abs_tol=1e-4,
                     context="alpha_nDCG@20 vs pyndeval")


@pytest.mark.shared
def test_pt_experiment_offline(web12):
    """PyTerrier's ``pt.Experiment`` on in-memory DataFrames, without ``pt.init()`` or Java
    (PyTerrier >= 1.0 starts Java only for Terrier's own retrieval): the evalkit measure is a
    column next to ``nDCG@10``, with the same means as ir_measures, per query too."""
    import pyterrier as pt
    import sys

    qrels_path, run_path = web12
    qrels = ir_measures.read_trec_qrels(str(qrels_path))
    qrels = pd.DataFrame(list(qrels)).rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
    run = pd.read_csv(run_path, sep=r"\s+", header=None, names=["qid", "Q0", "docno", "rank", "score", "runid"],
                      dtype={"qid": str, "docno": str})
    topics = pd.DataFrame({"qid": sorted(run.qid.unique()), "query": "x"})
    ek = measure("trec_eval.ndcg_cut@10")
    table = pt.Experiment([run.drop(columns=["Q0", "runid"])], topics, qrels, eval_metrics=[ek, ir_measures.nDCG @ 10],
                          names=["ql"])
    assert "jnius" not in sys.modules  # no Java was started
    direct = evalkit.evaluate(evalkit.read_qrels(qrels_path), [evalkit.read_run(run_path)],
                              ["trec_eval.ndcg_cut@10", "nDCG@10"]).means()[0]
    assert table.loc[0, str(ek)] == pytest.approx(direct[0], abs=1e-12)
    assert table.loc[0, "nDCG@10"] == pytest.approx(direct[1], abs=1e-12)
    per = pt.Experiment([run.drop(columns=["Q0", "runid"])], topics, qrels, eval_metrics=[ek], names=["ql"],
                        perquery=True)
    got = dict(zip(per.qid, per.value))
    want = evalkit.evaluate(evalkit.read_qrels(qrels_path), [evalkit.read_run(run_path)],
                            ["trec_eval.ndcg_cut@10"]).per_query(0, 0)
    assert_per_query(got, want, abs_tol=0.0, context="pt.Experiment(perquery=True) vs evalkit.evaluate")


def test_rank_ordered_flavour_reads_the_rank_column(ir_measures_dir):
    """``ndeval.alpha_ndcg@20`` orders the run by its rank column (ndeval's default): read
    from a run DataFrame's ``rank`` column; ir_measures' own run rows have none: an error."""
    qrels = list(ir_measures.read_trec_qrels(str(ir_measures_dir / "fixtureC_diversity.qrels")))
    run_path = ir_measures_dir / "fixtureA.run"
    run = pd.read_csv(run_path, sep=r"\s+", header=None, names=["query_id", "Q0", "doc_id", "rank", "score", "runid"],
                      dtype={"query_id": str, "doc_id": str})
    ek = measure("ndeval.alpha_ndcg@20")
    got = {m.query_id: m.value for m in ir_measures.iter_calc([ek], qrels, run)}
    subtopics = evalkit.read_subtopic_qrels(ir_measures_dir / "fixtureC_diversity.qrels")
    best: dict = {}
    for q, d, g in zip(subtopics.qid, subtopics.docno, subtopics.grade):
        best[(q, d)] = max(best.get((q, d), g), g)
    flat = evalkit.Qrels.from_rows([(q, d, g) for (q, d), g in best.items()])
    want = evalkit.evaluate(flat, [evalkit.read_run(run_path, keep_rank=True)], ["ndeval.alpha_ndcg@20"],
                            subtopics=subtopics).per_query(0, 0)
    assert_per_query(got, want, abs_tol=0.0, context="ndeval.alpha_ndcg@20 through ir_measures")
    with pytest.raises(evalkit.FlavourError, match="rank column"):
        list(ir_measures.iter_calc([ek], qrels, list(ir_measures.read_trec_run(str(run_path)))))


def test_pt_experiment_query_the_system_did_not_answer():
    """A qrels query the system returned nothing for: PyTerrier 1.1.2 averages the per-query
    values itself (``pyterrier/_evaluation/_rendering.py`` ``_mean_of_measures``: their sum over
    their count, not the measure's aggregator), so the ``NaN`` of a query that ``missing=skip``
    leaves out makes that mean ``NaN``: undefined, not a silently different number;
    ``missing=zero`` counts it 0, as ir_measures' own nDCG does, and perquery=True gives the
    defined values."""
    import pyterrier as pt
    qrels = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["a", "b", "c"], "label": [1, 0, 1]})
    topics = pd.DataFrame({"qid": ["q1", "q2"], "query": ["x", "y"]})
    res = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["b", "a"], "score": [2.0, 1.0], "rank": [0, 1]})
    skip, zero = measure("ndcg@10"), measure("ndcg(missing=zero)@10")
    table = pt.Experiment([res], topics, qrels, eval_metrics=[skip, zero, ir_measures.nDCG @ 10], names=["r"])
    q1 = 1 / math.log2(3)
    assert math.isnan(table.loc[0, str(skip)])
    assert table.loc[0, str(zero)] == pytest.approx(q1 / 2)
    assert table.loc[0, "nDCG@10"] == pytest.approx(q1 / 2)
    per = pt.Experiment([res], topics, qrels, eval_metrics=[skip], names=["r"], perquery=True)
    values = dict(zip(per.qid, per.value))
    assert values["q1"] == pytest.approx(q1) and math.isnan(values["q2"])
