"""ir_measures' names of trec_eval's measures (issue 26) against ir_measures 0.4.3
itself, per query and aggregated: its default pipeline (pytrec_eval, i.e. trec_eval
9.0.8 with float scores, and its own Judged provider), qrels topics missing from the
run scored 0."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import evalkit
from evalkit.io.trec import read_qrels, read_run

from conftest import shared_path

NAMES = ["Rprec(rel=1)", "Bpref", "Bpref(rel=2)", "infAP(rel=1)", "Judged@10", "Judged@1000", "NumQ", "NumRet",
         "NumRel", "NumRelRet", "NumRet(rel=1)", "SetP", "SetP(relative=True)", "SetR", "SetF", "SetAP",
         "Success@1", "Success@10", "IPrec@0.1", "IPrec@0.5", "SetP(rel=2)"]


@pytest.mark.shared
@pytest.mark.parametrize("name", ["oce03noXbmD", "InexpC2"])
def test_against_ir_measures(name):
    ir_measures = importlib.import_module("ir_measures")
    qrels = read_qrels(shared_path("trectools_robust03", "robust03_qrels.txt"))
    full = read_run(shared_path("trectools_robust03", "runs", f"input.{name}.gz"))
    keep = [i for i, q in enumerate(full.qid) if q not in ("601", "602", "650")]
    rows = [(full.qid[i], full.docno[i], float(full.score[i])) for i in keep]
    run = evalkit.Run.from_rows(rows, name=name)
    q = [ir_measures.Qrel(a, b, int(c)) for a, b, c in zip(qrels.qid, qrels.docno, qrels.grade)]
    r = [ir_measures.ScoredDoc(*row) for row in rows]
    res = evalkit.evaluate(qrels, run, NAMES)
    for f, text in enumerate(NAMES):
        measure = ir_measures.parse_measure(text)
        want = {m.query_id: m.value for m in ir_measures.iter_calc([measure], q, r)}
        got = res.per_query(0, f)
        assert set(got) == set(want), text
        assert got["601"] == 0.0
        for qid, v in want.items():
            assert got[qid] == pytest.approx(v, rel=1e-12, abs=1e-12), (text, qid)
        agg = ir_measures.calc_aggregate([measure], q, r)[measure]
        assert res.means()[0, f] == pytest.approx(agg, rel=1e-12), text
