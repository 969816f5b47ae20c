"""Conformance entries of the presets of ``evalkit/libraries/trec_eval.py`` (trec_eval 10.0 and 9.0.8 (pytrec_eval), pytrec_eval, Pyserini)."""

from __future__ import annotations

import cf_refs as R
import cf_treceval as TE
from cf_refs import version
from cf_base import Also, Entry, F64, GEN, REAL_TREC, TE9_DATA, TE_BIN_TOL

TE_OUT = "trec_eval (usnistgov/trec_eval f4253652c8ef) test/out.test.aq (-m all_trec -q), in ../shared/data"
TE_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
PYTE = lambda: version("pytrec_eval-terrier") + " (trec_eval 9.0.8 compiled in)"  # noqa: E731
TE9 = lambda: version("pytrec_eval-terrier") + (" (builds usnistgov/trec_eval tag v9.0.8, d95ca64e; that source is in "  # noqa: E731
                                                 "no registry)")
TE_PRINT = "trec_eval prints 4 decimals"
TE_BIN_908 = TE.SOURCE_OF(TE.NINE)
TE_BIN_10 = TE.SOURCE_OF(TE.TEN)
TE10_DATA = TE9_DATA
#: trec_eval's ndcg_p is in no released binary (m_ndcg_p.c is not registered in measures.c), so its
#: reference is the value worked by hand from m_ndcg_p.c (te_calc_ndcg_p: 'if (i > 0) sum += gain /
#: log2(i+1) else sum += gain'; the ideal over every judged document by level; value set only 'if
#: (res_rels.num_rel_ret > 0)') on the Järvelin-Kekäläinen example: DCG = 3 + 2/1 + 3/log2 3 +
#: 1/log2 6 + 2/log2 7 + 2/log2 8 + 3/log2 9 = 9.6051, IDCG = 3 + 3/1 + 3/log2 3 + 2/log2 4 + 2/log2 5
#: + 2/log2 6 + 1/log2 7 + 1/log2 8 + 1/log2 9 + 1/log2 10 = 11.8339, ratio 0.8117 (4 decimals, as
#: trec_eval prints).
NDCG_P_EXAMPLE = 0.8117
NDCG_P_SOURCE = ("worked by hand from usnistgov/trec_eval m_ndcg_p.c (te_calc_ndcg_p, commit 2b0beb78) on the "
                 "Järvelin-Kekäläinen 2002 example; no released trec_eval computes ndcg_p (not registered "
                 "in measures.c); ties: the example again with every score equal and docnos descending "
                 "in rank order, lines shuffled: m_ndcg_p.c:54 ranks through te_form_res_rels, which sorts "
                 "by score, then docno descending (form_res_rels.c:112-113, comp_sim_docno :266-275, "
                 "usnistgov/trec_eval f4253652), so the ranking and the value are the example's")
NDCG_P_DATA = ("jarvelin2002/example", "jarvelin2002/example-tied")
NDCG_P_VECTORS = {(name, None): {"G": NDCG_P_EXAMPLE} for name in NDCG_P_DATA}
PYSERINI = ("Pyserini 1.6.0 runs jtreceval's trec_eval 9.0.4 binary (pyserini.eval.trec_eval); here "
            + TE.SOURCE_OF(TE.NINE) + "; " + TE.UNCHANGED_TO_908)
PYSERINI_DATA = REAL_TREC + ("trec_eval_test/results.test", "web2013-adhoc/synthetic-run") + GEN


ENTRIES: list[Entry] = [
    # ------------------------------------------------------------------ trec_eval (10.0 line)
    # the trec_eval 10.0 binary built from ../shared/references on real, tied and generated data,
    # and trec_eval's own expected output (test/out.test.aq) on its test collection
    *[Entry(f"trec_eval.{m}", TE.trec_eval(native, version=TE.TEN), TE_BIN_10, TE10_DATA, TE_BIN_TOL, TE_PRINT,
            cutoffs=cuts, also=(Also(R.trec_eval_vectors("out.test.aq", native, only="trec_eval_test/results.test"),
                                     TE_OUT, 5e-5, TE_PRINT),))
      for m, native, cuts in (("ndcg", "ndcg", (None,)), ("ndcg_rel", "ndcg_rel", (None,)), ("Rndcg", "Rndcg", (None,)),
                              ("ndcg_cut", "ndcg_cut_{k}", TE_CUTOFFS), ("P", "P_{k}", TE_CUTOFFS),
                              ("map", "map", (None,)), ("map_cut", "map_cut_{k}", TE_CUTOFFS),
                              ("recall", "recall_{k}", TE_CUTOFFS), ("recip_rank", "recip_rank", (None,)))],
    # ------------------------------------------------------------------ trec_eval 9.0.8
    *[Entry(f"trec_eval9.{m}", TE.trec_eval(native, version=TE.NINE), TE_BIN_908, TE9_DATA, TE_BIN_TOL, TE_PRINT,
            cutoffs=cuts, also=(Also(R.pytrec_eval(native), TE9, 1e-12, F64),))
      for m, native, cuts in (("ndcg", "ndcg", (None,)), ("ndcg_cut", "ndcg_cut_{k}", (5, 10, 1000)),
                              ("ndcg_rel", "ndcg_rel", (None,)), ("Rndcg", "Rndcg", (None,)),
                              ("P", "P_{k}", (5, 10, 1000)), ("map", "map", (None,)),
                              ("map_cut", "map_cut_{k}", (5, 1000)), ("recall", "recall_{k}", (5, 1000)),
                              ("recip_rank", "recip_rank", (None,)))],
    Entry("trec_eval9.ndcg_p", R.vectors(NDCG_P_VECTORS), NDCG_P_SOURCE, NDCG_P_DATA, 5e-5, TE_PRINT + "; the ideal's (float) discount cast "
          "(m_ndcg_p.c) moves the value by < 1e-7"),
    Entry("trec_eval.ndcg_p", R.vectors(NDCG_P_VECTORS), NDCG_P_SOURCE, NDCG_P_DATA, 5e-5, TE_PRINT + "; the ideal's (float) discount cast "
          "(m_ndcg_p.c) moves the value by < 1e-7"),
    # ------------------------------------------------------------------ pytrec_eval
    *[Entry(f"pytrec_eval.{m}", R.pytrec_eval(m), PYTE, REAL_TREC + GEN, 1e-12, F64)
      for m in ("ndcg", "ndcg_rel", "Rndcg")],
    Entry("pytrec_eval.ndcg_cut", R.pytrec_eval("ndcg_cut_{k}"), PYTE, REAL_TREC + GEN, 1e-12, F64,
          cutoffs=(5, 10, 20, 1000)),
    Entry("pyserini.ndcg_cut", TE.trec_eval("ndcg_cut_{k}"), PYSERINI, PYSERINI_DATA, TE_BIN_TOL, TE_PRINT,
          cutoffs=(5, 10, 1000)),
    Entry("pyserini.ndcg_cut_remove_unjudged", R.on_judged_rows(TE.trec_eval("ndcg_cut_{k}")),
          PYSERINI + " on the run without its unjudged rows (what -remove-unjudged hands it)",
          PYSERINI_DATA, TE_BIN_TOL, TE_PRINT, cutoffs=(5, 10, 1000)),
]
