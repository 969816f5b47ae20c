"""Embedding and retrieval benchmarks: sentence-transformers'
``InformationRetrievalEvaluator``, BEIR's ``EvaluateRetrieval.evaluate`` and MTEB's
retrieval evaluator (the last two run pytrec_eval; their quirks are the run filters
``run_filter=query_id`` / ``first_stable`` and the rounded mean ``round_mean=5``)."""

from __future__ import annotations

import numpy as np

from ..components import Preset, RunFilter, RunFilterInput, declared, run_filter
from .._builtin_hookimpl import hookimpl
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from ..hookspecs import Register

SBERT = ("UKPLab/sentence-transformers v6.2.0 "
         "sentence_transformers/sentence_transformer/evaluation/information_retrieval.py")
BEIR = "beir-cellar/beir v2.2.0 beir/retrieval/evaluation.py"
_PYTREC = "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval(score=float32)"


def _presets() -> Any:
    # ------------------------------------------------------------------ sentence-transformers
    yield Preset(
        name="sentence_transformers.ndcg",
        spec=("ndcg(gain=binary,discount=log2,idcg=judged,ties=docno_ascending,empty=skip,"
              "missing=zero)"),
        description=("sentence-transformers InformationRetrievalEvaluator ndcg@k: a relevant "
                     "document gains 1, 1/log2(i+2), ideal DCG of min(k, number relevant) ones, hits "
                     "sorted by score descending then corpus id ascending, queries without a "
                     "relevant document dropped, a query with nothing retrieved scores 0"),
        source=(f"{SBERT}:158 (queries kept only if they have relevant docs), :511 (sorted by "
                "(-score, corpus_id)), :539-548 (predicted 0/1 relevances, ideal [1] * |relevant|), "
                ":573 (np.mean over queries), :610-614 (compute_dcg_at_k: rel / log2(i + 2))"),
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="ndcg@{k}",
    )
    # ------------------------------------------------------------------ BEIR
    yield Preset(
        name="beir.ndcg_cut",
        spec=_PYTREC + ",run_filter=query_id,round_mean=5)",
        description=("BEIR EvaluateRetrieval.evaluate NDCG@k: documents whose id equals the "
                     "query id removed from the run (ignore_identical_ids=True), then pytrec_eval "
                     "ndcg_cut.k per query, the mean over the run's queries rounded to 5 "
                     "decimals (Python round)"),
        source=(f"{BEIR}:73-84 (ignore_identical_ids: results[qid].pop(pid) when qid == pid), "
                ":98-102 (pytrec_eval RelevanceEvaluator ndcg_cut.k), :104-106 (sum over the "
                "evaluated queries), :112 (round(sum / len(scores), 5))"),
        requires_cutoff=True,
        default_cutoffs=(1, 3, 5, 10, 100, 1000),
        native_name="NDCG@{k}",
    )
    yield Preset(
        name="beir.ndcg_cut_keep_ids",
        spec=_PYTREC + ",round_mean=5)",
        description="BEIR evaluate(..., ignore_identical_ids=False): pytrec_eval ndcg_cut, mean rounded to 5 decimals",
        source=f"{BEIR}:75 (the filter is skipped), :98-112",
        requires_cutoff=True,
        default_cutoffs=(1, 3, 5, 10, 100, 1000),
        native_name="NDCG@{k}",
    )
    # ------------------------------------------------------------------ MTEB
    mteb = "embeddings-benchmark/mteb v2.26.24 mteb/_evaluators"
    yield Preset(
        name="mteb.ndcg_cut",
        spec=_PYTREC + ",round_mean=5)",
        description=("MTEB retrieval NDCG@k: pytrec_eval ndcg_cut.k per query, the mean over the "
                     "run's queries rounded to 5 decimals (the retrieval step keeps the top k by "
                     "(score, corpus id) in a heap: that decides which tied documents are in the run)"),
        source=(f"{mteb}/retrieval_metrics.py:508-519 (mean of ndcg_cut_k over the evaluated "
                "queries, round(..., 5)), :609-613 (pytrec_eval RelevanceEvaluator); "
                "mteb/models/search_wrappers.py:183-185 (heapq of (score, corpus_id))"),
        requires_cutoff=True,
        default_cutoffs=(1, 3, 5, 10, 20, 100, 1000),
        native_name="ndcg_at_{k}",
    )
    yield Preset(
        name="mteb.ndcg_cut_skip_first",
        spec=_PYTREC + ",run_filter=first_stable,round_mean=5)",
        description=("MTEB with skip_first_result=True: each query's top document by score is "
                     "dropped before pytrec_eval; of tied top scores, the first in the run's order "
                     "(MTEB sorts the results dict with Python's stable sort)"),
        source=(f"{mteb}/retrieval_metrics.py:597-601 (skip_first_result: sorted(doc_scores.items(), "
                "key=lambda x: x[1], reverse=True)[1:], a stable sort of the results dict in its "
                "insertion order)"),
        requires_cutoff=True,
        default_cutoffs=(1, 3, 5, 10, 20, 100, 1000),
        native_name="ndcg_at_{k}",
    )
    yield Preset(
        name="mteb.ndcg_cut_ignore_ids",
        spec=_PYTREC + ",run_filter=query_id,round_mean=5)",
        description="MTEB with ignore_identical_ids=True: documents whose id is the query's removed first",
        source=f"{mteb}/retrieval_evaluator.py:134-142 (rels.pop(pid) when qid == pid)",
        requires_cutoff=True,
        default_cutoffs=(1, 3, 5, 10, 20, 100, 1000),
        native_name="ndcg_at_{k}",
    )


@hookimpl
def evalkit_register_presets(register: Register) -> None:
    for preset in _presets():
        register(preset)


# ---------------------------------------------------------------- run filters (family ``run_filter``)
@run_filter("first_stable", formula="drop each query's first document by score, ties in the run's line order",
            description="each query's first document by score leaves the run, of tied top scores the first in "
                        "the run's order (a stable sort by score, whatever the tie policy)",
            source="embeddings-benchmark/mteb v2.26.24 mteb/_evaluators/retrieval_metrics.py:597-601 "
                   "(skip_first_result: sorted(doc_scores.items(), key=score, reverse=True)[1:], Python's stable "
                   "sort)",
            note="each query's first document by score (ties in the run's order) is dropped (MTEB "
                 "skip_first_result)")
def first_stable(inp: RunFilterInput) -> np.ndarray:
    return inp.input_order() == 0


@hookimpl
def evalkit_register_run_filters() -> Any:
    return declared(__name__, RunFilter)
