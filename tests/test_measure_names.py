"""Names users already type: trec_eval's ``-m`` names against trec_eval's own
expected outputs (``../shared/data/trec_eval_test``), ir_measures' names against
ir_measures itself, per query; labels, ``--format tsv`` names and "did you mean"."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import evalkit
from evalkit.cli import main
from evalkit.errors import FlavourError
from evalkit.io.trec import read_qrels, read_run
from evalkit.presets import expand_labelled, expand_spec

from conftest import shared_path
from trec_eval_out import values as trec_eval_values

TOL = 5e-5  # trec_eval prints 4 decimals


# --------------------------------------------------------------------------- trec_eval names
def test_trec_eval_names_expand_to_trec_eval_presets():
    labelled = expand_labelled("ndcg_cut.5,10,23.4")
    assert [(label, p.name, fl.k) for label, p, fl in labelled] == [
        ("ndcg_cut.5", "trec_eval.ndcg_cut", 5), ("ndcg_cut.10", "trec_eval.ndcg_cut", 10),
        ("ndcg_cut.23", "trec_eval.ndcg_cut", 23)]
    assert [label for label, _, _ in expand_labelled("P.10")] == ["P.10"]
    assert len(expand_spec("recall")) == 9  # trec_eval's default cutoffs
    assert expand_spec("ndcg") == expand_spec("trec_eval.ndcg")
    assert expand_spec("Rndcg") == expand_spec("trec_eval.Rndcg")
    assert expand_spec("map") == expand_spec("trec_eval.map")
    # every measure of trec_eval 10.0's all_trec: the 98 values of out.test.a's summary
    # (runid aside) and relstring (per query only)
    assert len(expand_spec("all_trec")) == 99


@pytest.mark.shared
@pytest.mark.parametrize("out, qrels_file", [("out.test.aq", "qrels.test"), ("out.test.a", "qrels.test")])
def test_all_trec_against_trec_eval_outputs(out, qrels_file):
    """``-m all_trec``: every measure printed under trec_eval's own name (the tsv
    name) and value, per query where the file has them."""
    from evalkit.cli.specs import expand_measures
    from evalkit.registry import default_registry

    d = shared_path("trec_eval_test")
    measures = expand_measures(["all_trec"], default_registry())
    qrels, run = read_qrels(d / qrels_file), read_run(d / "results.test")
    res = evalkit.evaluate(qrels, run, [m.flavour for m in measures], labels=[m.label for m in measures])
    expected = trec_eval_values(d / out)
    per_query_file = any(qid != "all" for _, qid in expected)
    compared = 0
    from evalkit.trec_eval_compat import measure_of

    for f, m in enumerate(measures):
        per_q = res.per_query(0, f)
        printed = {qid for (name, qid) in expected if name == m.native and qid != "all"}
        if measure_of(m.native).kind == "string" or not measure_of(m.native).per_query:
            continue  # relstring is text; num_q, gm_map, gm_bpref are printed in the summary only
        if per_query_file:  # trec_eval -q: the same query set on both sides
            assert set(per_q) == printed, (m.label, sorted(set(per_q) ^ printed))
        for (name, qid), want in expected.items():
            if name != m.native:
                continue
            got = res.means()[0, f] if qid == "all" else per_q[qid]
            assert abs(got - want) <= TOL, (m.label, m.native, qid, got, want)
            compared += 1
    assert compared >= 39
    assert {m.native for m in measures} >= {"map", "P_10", "ndcg_cut_10", "recall_100", "recip_rank", "ndcg"}


# --------------------------------------------------------------------------- ir_measures names
IR_MEASURES_NAMES = ["nDCG@10", "nDCG", "nDCG(judged_only=True)@10", "nDCG(dcg='exp-log2')@10", "ERR@20",
                     "P@10", "AP", "AP@100", "R@100", "RR", "P(rel=2)@10"]
#: gdeval (nDCG(dcg='exp-log2'), ERR) prints 5 decimals per topic
GDEVAL_TOL = 5e-6


@pytest.mark.shared
@pytest.mark.parametrize("name", ["oce03noXbmD", "InexpC2"])  # tied scores, float32 ties
def test_ir_measures_names_against_ir_measures(name):
    """Per query against ir_measures' default pipeline; three topics are removed from
    the run, which ir_measures scores 0."""
    ir_measures = importlib.import_module("ir_measures")
    qrels = read_qrels(shared_path("trectools_robust03", "robust03_qrels.txt"))
    full = read_run(shared_path("trectools_robust03", "runs", f"input.{name}.gz"))
    keep = [i for i, q in enumerate(full.qid) if q not in ("601", "602", "650")]
    rows = [(full.qid[i], full.docno[i], float(full.score[i])) for i in keep]
    run = evalkit.Run.from_rows(rows, name=name)
    q = [ir_measures.Qrel(a, b, int(c)) for a, b, c in zip(qrels.qid, qrels.docno, qrels.grade)]
    r = [ir_measures.ScoredDoc(*row) for row in rows]
    res = evalkit.evaluate(qrels, run, IR_MEASURES_NAMES)
    for f, text in enumerate(IR_MEASURES_NAMES):
        want = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(text)], q, r)}
        got = res.per_query(0, f)
        assert set(got) == set(want), text
        assert got["601"] == 0.0
        tol = GDEVAL_TOL if ("exp-log2" in text or text.startswith("ERR")) else 1e-9
        for qid, v in want.items():
            assert got[qid] == pytest.approx(v, abs=tol), (text, qid)


def test_ir_measures_parameters_are_not_evaluated():
    with pytest.raises(FlavourError, match="must be a literal"):
        expand_spec("nDCG(dcg=__import__('os').getcwd())@10")
    with pytest.raises(FlavourError, match="no preset reproduces"):
        expand_spec("nDCG(dcg='log3')@10")


def test_unknown_name_suggests_the_closest():
    with pytest.raises(FlavourError, match=r"did you mean: .*trec_eval\.ndcg_cut"):
        expand_spec("trec_eval.ndcg_cutt@10")
    with pytest.raises(FlavourError, match=r"did you mean: nDCG"):
        expand_spec("nDGC@10")


# --------------------------------------------------------------------------- labels and tsv
@pytest.mark.shared
def test_issue_command_prints_trec_eval_names(capsys):
    d = shared_path("trec_eval_test")
    # trec_eval9.ndcg_cut@10 is another measure printed as ndcg_cut_10: refused in tsv
    # (tests/test_eval_output_names.py), so only trec_eval 10.0's is asked for here
    code = main(["eval", str(d / "qrels.test"), str(d / "results.test"), "-m", "ndcg_cut.10", "-m", "nDCG@10",
                 "-q", "--format", "tsv"])
    out = capsys.readouterr().out
    assert code == 0
    names = [line.split("\t")[0].strip() for line in out.splitlines()]
    assert names.count("ndcg_cut_10") == 4 and names.count("nDCG@10") == 4  # 3 queries + all
    want = trec_eval_values(d / "out.test.aq")
    for line in out.splitlines():
        name, qid, value = (x.strip() for x in line.split("\t"))
        assert abs(float(value) - want[("ndcg_cut_10", qid)]) <= TOL


def test_results_accept_the_label_asked_for():
    qrels = evalkit.Qrels.from_rows([("q1", "d1", 2), ("q1", "d2", 1), ("q2", "d1", 1)])
    run = evalkit.Run.from_rows([("q1", "d1", 0.5), ("q1", "d2", 0.5), ("q2", "d3", 0.2), ("q2", "d1", 0.1)],
                                name="bm25")
    res = evalkit.evaluate(qrels, run, ["trec_eval.ndcg_cut@10", "pytrec_eval.ndcg_cut@10",
                                        "trec_eval9.ndcg_cut@10", "ndcg_cut.10"])
    assert res.labels == ("trec_eval.ndcg_cut@10", "pytrec_eval.ndcg_cut@10", "trec_eval9.ndcg_cut@10",
                          "ndcg_cut.10")
    # the tie in q1 is broken by docno descending: d2 (grade 1) before d1 (grade 2)
    want = {"q1": (1 + 2 / np.log2(3)) / (2 + 1 / np.log2(3)), "q2": 1 / np.log2(3)}
    for label in res.labels:
        assert res.per_query("bm25", label) == pytest.approx(want, abs=1e-12)
        assert res.mean("bm25", label) == pytest.approx(np.mean(list(want.values())), abs=1e-12)
    with pytest.raises(FlavourError, match="share the label"):
        evalkit.evaluate(qrels, run, ["ndcg_cut.10", "ndcg_cut.10"])


@pytest.mark.shared
def test_ir_measures_alpha_ndcg_against_ir_measures():
    """alpha_nDCG@k, ERR_IA@k and nERR_IA@k through pyndeval, on the TREC 2013 Web
    diversity qrels with a run
    of tied scores (pyndeval: docno ascending) and a topic missing from the run (0)."""
    ir_measures = importlib.import_module("ir_measures")
    importlib.import_module("pyndeval")
    import pandas as pd

    from evalkit.builtins.diversity import topic_qrels
    from evalkit.io.trec import read_subtopic_qrels

    sub = read_subtopic_qrels(shared_path("anserini_tools_qrels", "qrels.web.201-250.ndeval.txt"))
    q = topic_qrels(sub)
    rng = np.random.default_rng(5)
    rows = []
    for t in q.qids:
        if t == "203":
            continue
        docs = q.docno[q.qid == t]
        for d in rng.choice(docs, size=min(40, len(docs)), replace=False):
            rows.append((t, str(d), float(rng.integers(0, 4))))  # many ties
    run = evalkit.Run.from_rows(rows, name="tied")
    qdf = pd.DataFrame({"query_id": sub.qid, "iteration": sub.subtopic, "doc_id": sub.docno,
                        "relevance": [int(g) for g in sub.grade]})
    rdf = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    names = ["alpha_nDCG@5", "alpha_nDCG@20", "ERR_IA@20", "nERR_IA@10"]
    res = evalkit.evaluate(q, run, names, subtopics=sub)
    for f, text in enumerate(names):
        want = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(text)], qdf, rdf)}
        got = res.per_query(0, f)
        assert got["203"] == 0.0 and want["203"] == 0.0
        assert set(got) == set(want), text
        for qid, v in want.items():
            assert got[qid] == pytest.approx(v, abs=1e-12), (text, qid)
    docno_descending = evalkit.evaluate(q, run, ["alpha_ndcg(ties=trec_eval,missing=zero)@20"], subtopics=sub)
    assert res.mean(0, 1) != docno_descending.mean(0, 0)  # the tie order matters
