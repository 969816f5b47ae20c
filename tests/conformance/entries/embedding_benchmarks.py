"""Conformance entries of the presets of ``evalkit/libraries/embedding_benchmarks.py`` (sentence-transformers, BEIR, MTEB)."""

from __future__ import annotations

import cf_refs as R
from cf_refs import version
from cf_base import Also, Entry, F64, L2, LIB_TREC

MTEB_SRC = {"ndcg_cut": "embeddings-benchmark/mteb v2.26.24 mteb/_evaluators/retrieval_metrics.py:508-519, "
                        ":609-613 (pytrec_eval ndcg_cut, mean round(..., 5))",
            "ndcg_cut_skip_first": "embeddings-benchmark/mteb v2.26.24 mteb/_evaluators/retrieval_metrics.py:"
                                   "597-601 (skip_first_result)",
            "ndcg_cut_ignore_ids": "embeddings-benchmark/mteb v2.26.24 mteb/_evaluators/retrieval_evaluator.py:"
                                   "134-142 (ignore_identical_ids)"}
MTEB_DATA = ("mteb/worked",) + LIB_TREC + ("robust03/InexpC2",)


ENTRIES: list[Entry] = [
    Entry("sentence_transformers.ndcg", R.sentence_transformers,
          lambda: version("sentence-transformers") + " InformationRetrievalEvaluator.compute_metrics",
          LIB_TREC, 1e-12, F64, cutoffs=(1, 10)),
    *[Entry(f"beir.{m}", R.beir(ids), lambda: version("beir") + " EvaluateRetrieval.evaluate (pytrec_eval "
            + version("pytrec_eval-terrier").split()[1] + ")", LIB_TREC + ("robust03/InexpC2",), 5e-6 + 1e-12,
            "BEIR rounds each value to 5 decimals", cutoffs=(1, 10, 100))
      for m, ids in (("ndcg_cut", True), ("ndcg_cut_keep_ids", False))],
    *[Entry(f"mteb.{m}", R.mteb(**kw),
            lambda m=m: version("mteb") + " RetrievalEvaluator.evaluate ("
            + version("pytrec_eval-terrier") + " inside) on the run's queries that the qrels judge (a "
            "retrieval task searches only those: mteb/abstasks/retrieval.py:63-76, :362-366), from "
            + MTEB_SRC[m], MTEB_DATA, 5e-6 + 1e-12,
            "MTEB rounds the mean to 5 decimals (round(..., 5)); per query float64", cutoffs=(1, 10, 100),
            also=(Also(R.vectors_with_mean({("mteb/worked", 10): v}), "worked by hand (mteb/worked)", 5e-6 + 1e-12,
                       "the mean rounded to 5 decimals as MTEB prints it"),))
      for m, v, kw in (("ndcg_cut", ({"q1": 1 / L2(3), "q2": 1.0}, 0.81546), {}),
                       ("ndcg_cut_skip_first", ({"q1": 1.0, "q2": 0.0}, 0.5), {"skip_first": True}),
                       ("ndcg_cut_ignore_ids", ({"q1": 1.0, "q2": 1.0}, 1.0), {"ignore_identical_ids": True}))],
]
