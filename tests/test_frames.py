"""pandas adapters: ``Qrels.from_df``, ``Run.from_df`` (configurable column names,
ir_measures' and ranx's names recognised) and ``Results.to_df`` in the long format.
Numbers are checked against ir_measures and ranx reading the same DataFrames."""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest

import evalkit
from evalkit import InputFormatError, Qrels, Run


@pytest.fixture(scope="module")
def frames(trec_eval_dir):
    """trec_eval's test collection as DataFrames with ir_measures' column names
    (query ids parsed as integers, as pandas does by default)."""
    qrels = pd.read_csv(trec_eval_dir / "qrels.test", sep=r"\s+", header=None,
                        names=["query_id", "iteration", "doc_id", "relevance"])
    run = pd.read_csv(trec_eval_dir / "results.test", sep=r"\s+", header=None,
                      names=["query_id", "Q0", "doc_id", "rank", "score", "runid"])
    return qrels, run


@pytest.mark.shared
def test_ir_measures_frames_and_long_results_match_ir_measures(frames, registry):
    ir_measures = importlib.import_module("ir_measures")
    qrels_df, run_df = frames
    assert qrels_df["query_id"].dtype.kind == "i"  # the ids arrive as integers
    qrels, run = Qrels.from_df(qrels_df), Run.from_df(run_df, name="STANDARD")
    res = evalkit.evaluate(qrels, run, ["trec_eval.ndcg_cut@10", "trec_eval.ndcg"], registry=registry,
                           labels=["ndcg_cut_10", "ndcg"])
    ir_q = qrels_df.assign(query_id=qrels_df.query_id.astype(str))
    ir_r = run_df.assign(query_id=run_df.query_id.astype(str))
    measures = [ir_measures.nDCG @ 10, ir_measures.nDCG]
    expected = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, ir_q, ir_r)}
    df = res.to_df()
    assert list(df.columns) == ["system", "qid", "flavour", "value"]
    assert set(df["system"]) == {"STANDARD"} and df["value"].dtype == np.float64
    label = {"ndcg_cut_10": "nDCG@10", "ndcg": "nDCG"}
    got = {(row.qid, label[row.flavour]): row.value for row in df.itertuples()}
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key
    agg = ir_measures.calc_aggregate(measures, ir_q, ir_r)
    means = df.groupby("flavour")["value"].mean()
    assert means["ndcg_cut_10"] == pytest.approx(agg[ir_measures.nDCG @ 10], abs=1e-12)
    # ir_measures' own column names for the long table
    named = res.to_df(columns=("run", "query_id", "measure", "value"))
    assert list(named.columns) == ["run", "query_id", "measure", "value"] and len(named) == len(df)


@pytest.mark.shared
def test_ranx_frames_match_ranx(frames, registry):
    ranx = importlib.import_module("ranx")
    qrels_df, run_df = frames
    as_obj = {"q_id": lambda d: d.q_id.astype(str).astype(object), "doc_id": lambda d: d.doc_id.astype(object)}
    q = qrels_df.rename(columns={"query_id": "q_id", "relevance": "score"}).assign(**as_obj)
    r = run_df.rename(columns={"query_id": "q_id"}).assign(**as_obj)
    q = q[q.score > 0]  # ranx drops non-relevant judgments itself; give it only relevant ones
    qrels, run = Qrels.from_df(q), Run.from_df(r, name="STANDARD")
    res = evalkit.evaluate(qrels, run, ["ranx.ndcg@10"], registry=registry, labels=["ndcg@10"])
    expected = ranx.evaluate(ranx.Qrels.from_df(q, q_id_col="q_id", doc_id_col="doc_id", score_col="score"),
                             ranx.Run.from_df(r, q_id_col="q_id", doc_id_col="doc_id", score_col="score"),
                             "ndcg@10", return_mean=False)
    ours = res.per_query("STANDARD", "ndcg@10")
    ranx_qids = sorted(ranx.Qrels.from_df(q, q_id_col="q_id", doc_id_col="doc_id", score_col="score")
                       .get_query_ids())
    assert np.allclose([ours[qid] for qid in ranx_qids], expected, atol=1e-12)


def test_column_names_missing_values_and_errors():
    df = pd.DataFrame({"topic": [1, 1, 2], "doc": ["a", "b", "a"], "rel": [2, 0, 1], "sim": [0.5, 0.7, 0.1]})
    qrels = Qrels.from_df(df, qid="topic", docno="doc", grade="rel")
    assert qrels.to_dict() == {"1": {"a": 2.0, "b": 0.0}, "2": {"a": 1.0}}
    run = Run.from_df(df, qid="topic", docno="doc", score="sim", name="sys")
    assert run.name == "sys" and run.to_dict() == {"1": {"a": 0.5, "b": 0.7}, "2": {"a": 0.1}}
    # brute force: NDCG@2 of query 1 ranks b (grade 0) above a (grade 2): 2 / log2(3) / 2
    res = evalkit.evaluate(qrels, run, ["ndcg@2"], labels=["n2"])
    assert res.per_query("sys", "n2")["1"] == pytest.approx(1 / np.log2(3))
    with pytest.raises(InputFormatError, match=r"field 'qid': no qid column: name it with qid=\.\.\. "
                                               r"\(looked for qid, query_id, q_id; columns: topic, doc, rel, sim\)"):
        Qrels.from_df(df)
    with pytest.raises(InputFormatError, match="field 'grade': no column 'grade_x'"):
        Qrels.from_df(df, qid="topic", docno="doc", grade="grade_x")
    bad = df.assign(sim=[0.5, np.nan, 0.1])
    with pytest.raises(InputFormatError, match=r"field 'score': row 1 \(index 1\): nan is not a finite number"):
        Run.from_df(bad, qid="topic", docno="doc", score="sim")
    bad = df.assign(doc=["a", None, "c"])
    with pytest.raises(InputFormatError, match=r"field 'docno': row 1 \(index 1\): missing value"):
        Run.from_df(bad, qid="topic", docno="doc", score="sim")
    dup = df.assign(doc=["a", "a", "a"])
    with pytest.raises(InputFormatError, match="<DataFrame>"):
        Qrels.from_df(dup, qid="topic", docno="doc", grade="rel")


def test_to_df_leaves_out_skipped_queries():
    qrels = Qrels.from_rows({"q1": {"a": 1}, "q2": {"a": 0}, "q3": {"b": 2}})
    run = Run.from_rows({"q1": {"a": 1.0}, "q2": {"a": 1.0}}, name="r")
    res = evalkit.evaluate(qrels, run, ["ndcg(empty=skip,missing=skip)@5", "ndcg@5"], labels=["skip", "ndcg@5"])
    df = res.to_df()
    # ndcg@5 with the defaults (trec_eval without -c): q1 1, q2 0 (nothing relevant), q3 not
    # retrieved, so left out; empty=skip also leaves out q2
    rows = sorted((r.flavour, r.qid, r.value) for r in df.itertuples())
    assert rows == [("ndcg@5", "q1", 1.0), ("ndcg@5", "q2", 0.0), ("skip", "q1", 1.0)]
    assert len(res.qids) == 3


@pytest.mark.parametrize("field, cls", [("score", Run), ("grade", Qrels)])
def test_bool_column_is_refused_as_from_columns_refuses_it(field, cls):
    """``True`` is not a score or a grade: from_columns refuses it; from_df read it as 1."""
    df = pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], field: [False, True]})
    with pytest.raises(InputFormatError, match=f"field '{field}': row 0 .*False is a bool, not a number"):
        cls.from_df(df)
    with pytest.raises(InputFormatError, match=field):
        cls.from_columns(df.qid, df.docno, df[field].tolist())
