"""Presets for the NDCG of recommender, learning-to-rank, search-engine and
embedding-benchmark libraries (issue 11).

Each preset cites the lines its flavour was read from. The versions read are the
ones the differential tests (``tests/test_presets_libraries.py``) run against:
CatBoost 1.2.10, implicit 0.7.3, LensKit 0.14.4 (legacy
``lenskit.metrics.topn``), pytorch-ignite 0.5.5, sentence-transformers 6.2.0,
BEIR 2.2.0 and microsoft/recommenders 1.2.1. The libraries that do not install here
without a GPU or a JVM are tested against vectors worked by hand from the cited lines.

How their conventions map onto flavours:

* **binary relevance** (a test item / a relevant document gains 1): ``gain=binary``
  (``threshold``: the smallest grade that counts);
* **the ideal ranking**: ``idcg=judged`` when it comes from the test items / qrels
  (recommenders, IR toolkits), ``idcg=returned`` when it comes from the scored list's
  own labels (CatBoost, ignite), ``idcg=judged_at_returned`` when it is cut at the
  number of documents returned (Elasticsearch);
* **users / queries with nothing to find**: ``empty=skip`` (left out), ``zero`` or
  ``one``; users of the test set without a recommendation: ``missing=zero``;
* **rounding**: ``round`` (each query) or ``round_mean`` (the mean), ``rounding``;
* BEIR's identical-id filter: ``run_filter=query_id``; TorchRec's ``1 - NDCG``:
  ``complement=yes``.
"""

from __future__ import annotations

from ..components import Preset
from ..hookspecs import hookimpl

CATBOOST = "catboost/catboost v1.2.10"
IMPLICIT = "benfred/implicit v0.7.3 implicit/evaluation.pyx"
LENSKIT = "lenskit/lkpy v0.14.4 lenskit/metrics/topn.py"
IGNITE = "pytorch/ignite v0.5.5 ignite/metrics/rec_sys/ndcg.py"
SBERT = ("UKPLab/sentence-transformers v6.2.0 "
         "sentence_transformers/sentence_transformer/evaluation/information_retrieval.py")
BEIR = "beir-cellar/beir v2.2.0 beir/retrieval/evaluation.py"
RECOMMENDERS = "recommenders-team/recommenders v1.2.1 recommenders/evaluation/python_evaluation.py"
_PYTREC = "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval(score=float32)"


def _presets():
    # ------------------------------------------------------------------ CatBoost
    catboost_src = (f"{CATBOOST} catboost/libs/metrics/dcg.cpp (GetSortedTargets; CalcDcgSorted: "
                    "decay[i] = 1/log2(i + 2), type=Exp: pow(2, target) - 1; CalcDcg sorts with "
                    "CompareDocs from doc_comparator.h: equal predictions put the lower target "
                    "first, negative targets included; CalcIDcg: every target sorted descending, "
                    "negative ones included; CalcNdcg: idcg > 0 ? dcg / idcg : 1; read at commit "
                    "7ab73e63), "
                    "catboost/libs/metrics/metric.cpp (NDCG: top=-1 is the whole group, "
                    "type=Base linear / Exp); in 1.2.10 a group whose labels are all 0 scores 1 "
                    "(the older CalcNdcg returned 0; checked against catboost.utils.eval_metric); "
                    "negative labels: their gains are summed (type=Base: the label, type=Exp: "
                    "2^label - 1 in (-1, 0)) in the DCG and the ideal DCG alike, and a group whose "
                    "ideal DCG is <= 0 scores 1 (checked against catboost.utils.eval_metric on "
                    "tied groups with labels -2..4)")
    # negative=gain: negative labels count as CatBoost counts them; pessimistic(negative=gain):
    # among tied predictions a negative label comes before a 0 (CompareDocs on the raw target)
    cb_ties = "ties=pessimistic(negative=gain)"
    for name, gain, what in (("catboost.ndcg", "linear", "type=Base: the label as gain"),
                             ("catboost.ndcg_exp", "exp2", "type=Exp: gain 2^label - 1")):
        yield Preset(
            name=name,
            spec=f"ndcg(gain={gain},discount=log2,idcg=returned,{cb_ties},empty=one,negative=gain)",
            description=(f"CatBoost eval metric NDCG ({what}): 1/log2(i+1), ideal DCG from the "
                         "group's own labels cut at top, tied predictions put the lower label "
                         "first, a group whose ideal DCG is <= 0 (all labels 0, or only negative "
                         "ones) scores 1; negative labels give negative gains, in the DCG and the "
                         "ideal DCG, as CatBoost sums them (NDCG can be negative)"),
            source=catboost_src,
            native_name="NDCG:top={k}",
        )
    yield Preset(
        name="catboost.ndcg_position",
        spec=f"ndcg(gain=linear,discount=reciprocal,idcg=returned,{cb_ties},empty=one,negative=gain)",
        description=("CatBoost NDCG:denominator=Position: discount 1/i instead of 1/log2(i+1); "
                     "otherwise as catboost.ndcg (negative labels included)"),
        source=catboost_src + "; denominator=Position: 1/position",
        native_name="NDCG:top={k};denominator=Position",
    )
    yield Preset(
        name="catboost.dcg",
        spec=f"dcg(gain=linear,discount=log2,{cb_ties},negative=gain)",
        description="CatBoost eval metric DCG (type=Base): raw DCG, tied predictions lower label first; "
                    "negative labels count negatively, as CatBoost sums them",
        source=catboost_src,
        native_name="DCG:top={k}",
    )
    # ------------------------------------------------------------------ implicit
    yield Preset(
        name="implicit.ndcg",
        spec="ndcg(gain=binary,discount=log2,idcg=judged,ties=stable,empty=skip,missing=zero)",
        description=("implicit ndcg_at_k: a test item gains 1, 1/log2(i+2), ideal DCG of "
                     "min(K, number of test items) hits, users without test items skipped, a user "
                     "with test items but no recommendation scores 0; the ranking is the "
                     "model's (stable sort by score here)"),
        source=(f"{IMPLICIT} ranking_metrics_at_k (cg = 1/log2(arange(2, K+2)), cg_sum = "
                "cumsum(cg); 'if we don't have any test items, skip this user'; idcg = "
                "cg_sum[min(K, likes.size()) - 1]; ndcg += cg[i] / idcg for each hit; "
                "ndcg / total)"),
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="ndcg_at_k(K={k})",
    )
    # ------------------------------------------------------------------ LensKit
    lk = (f"{LENSKIT}:226-232 (_fixed_dcg: np.maximum(log2(rank), 1)), :306-324 (ndcg: recs "
          "cut at k, ideal = sorted truth ratings cut at k, or min(|truth|, k) ones), :328-359 "
          "(_bulk_ndcg: the same; a list without truth gives NaN)")
    yield Preset(
        name="lenskit.ndcg",
        spec="ndcg(gain=linear,discount=jarvelin,idcg=judged,ties=stable,empty=skip)",
        description=("LensKit 0.14 topn.ndcg with a rating column: the rating as gain, "
                     "discount 1/max(log2 r, 1), ideal DCG of the user's sorted test ratings "
                     "cut at k, users without test ratings NaN (left out)"),
        source=lk,
        native_name="ndcg(k={k})",
    )
    yield Preset(
        name="lenskit.ndcg_binary",
        spec="ndcg(gain=binary,discount=jarvelin,idcg=judged,ties=stable,empty=skip)",
        description=("LensKit 0.14 topn.ndcg without a rating column: every test item gains 1 "
                     "(here: grade >= 1), discount 1/max(log2 r, 1), ideal DCG of min(number of test items, k) "
                     "hits"),
        source=lk,
        native_name="ndcg(k={k})",
    )
    # ------------------------------------------------------------------ pytorch-ignite
    ignite_src = (f"{IGNITE}:13 (torch.argsort(descending=True, stable=True)), :172-184 (discount "
                  "1/log2(i+1) in float32, gain 2^rel - 1 or rel), :195-198 (ignore_zero_hits: "
                  "rows without a label >= relevance_threshold dropped), :203 (labels below the "
                  "threshold zeroed), :212 (ideal: the row's labels sorted), :218-222 (IDCG 0 -> 0), "
                  ":233 (mean over the rows kept)")
    for name, gain, empty, text in (
        ("ignite.ndcg", "exp2", "skip", "ignore_zero_hits=True (default): rows with no relevant label left out"),
        ("ignite.ndcg_zero_hits", "exp2", "zero", "ignore_zero_hits=False: rows with no relevant label score 0"),
        ("ignite.ndcg_linear", "linear", "skip", "gain_function='linear_rank'"),
    ):
        yield Preset(
            name=name,
            spec=(f"ndcg(gain={gain},discount=log2,idcg=returned,ties=stable(score=float32),"
                  f"empty={empty},min_grade=1)"),
            description=(f"pytorch-ignite NDCG (rec_sys): {text}; labels below "
                         "relevance_threshold=1 gain 0, ideal from the row's labels, stable sort "
                         "of float32 scores"),
            source=ignite_src,
            requires_cutoff=True,
            default_cutoffs=(10,),
            native_name="NDCG(top_k=[{k}])",
        )
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
    # ------------------------------------------------------------------ microsoft/recommenders
    rec_src = (f"{RECOMMENDERS}:379-455 (merge_ranking_true_pred: top-k by prediction, hits), "
               ":601-705 (ndcg_at_k: outer join with rating_true, rel = 1 / rating / 2^rating - 1, "
               "discount 1/ln(1 + rank) by default, ideal: the user's true items by rating, first "
               "k; mean over the users of rating_true), :837-871 (get_top_k_items: sort_values by "
               "prediction, stable)")
    ln = "log(base=2.718281828459045)"
    for name, gain, empty, negative, text in (
        ("recommenders.python_ndcg_at_k", "binary(threshold=-1e308)", "zero", "gain",
         "score_type='binary' (default): every row of rating_true gains 1, whatever its rating "
         "(0 and negative ratings too)"),
        ("recommenders.python_ndcg_at_k_raw", "linear", "skip", "error",
         "score_type='raw': the rating as gain; negative ratings refused (negative=error): "
         "recommenders sums them as negative gains and divides by an ideal DCG that may then be "
         "negative (a ratio, even above 1) or 0 (NaN or an infinity), which no evalkit flavour "
         "reproduces"),
        ("recommenders.python_ndcg_at_k_exp", "exp2", "skip", "error",
         "score_type='exp': 2^rating - 1; a negative integer rating (as TREC qrels hold) makes "
         "numpy raise ValueError ('Integers to negative integer powers are not allowed'): refused"),
    ):
        yield Preset(
            name=name,
            spec=(f"ndcg(gain={gain},discount={ln},idcg=judged,ties=stable,empty={empty},missing=zero,"
                  f"negative={negative})"),
            description=(f"microsoft/recommenders python ndcg_at_k, {text}; discount 1/ln(1+rank) "
                         "(discfun_type='loge', the default; the NDCG equals log2's), ideal from all "
                         "of the user's true items, users of rating_true without a hit score 0 "
                         "(users whose ideal DCG is 0 give NaN and leave pandas' mean)"),
            source=rec_src,
            requires_cutoff=True,
            default_cutoffs=(10,),
            native_name="ndcg_at_k(k={k})",
        )

    # ------------------------------------------------------------------ Elasticsearch
    es = ("elastic/elasticsearch modules/rank-eval/src/main/java/org/elasticsearch/index/rankeval/"
          "DiscountedCumulativeGain.java (evaluate: unrated hits keep their rank and add nothing "
          "when unknown_doc_rating is null; computeDCG: (2^rating - 1) / log2(rank + 1); normalize: "
          "every rated document's rating sorted, first min(hits, ratings); IDCG 0 -> 0; PARSER: "
          "normalize false and k = 10 by default, k is the search size)")
    yield Preset(
        name="elasticsearch.dcg",
        spec="dcg(gain=exp2,discount=log2,ties=stable,missing=zero)",
        description=("Elasticsearch _rank_eval metric 'dcg' (normalize: false, the default): raw "
                     "DCG of the hits in the order returned, unrated hits gain 0"),
        source=es,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="dcg(k={k})",
    )
    yield Preset(
        name="elasticsearch.ndcg",
        spec="ndcg(gain=exp2,discount=log2,idcg=judged_at_returned,ties=stable,missing=zero)",
        description=("Elasticsearch _rank_eval 'dcg' with normalize: true: the ideal DCG of every "
                     "rated document cut at the number of hits returned (at most k)"),
        source=es,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="dcg(normalize=true,k={k})",
    )
    # ------------------------------------------------------------------ OpenSearch
    osr = ("opensearch-project/search-relevance @0b75cf84b5b2 src/main/java/org/opensearch/"
           "searchrelevance/metrics/calculator/Evaluation.java (roundToTwoDecimals: "
           "Math.round(value * 100) / 100, half-up; calculateNDCGAtK: rawDCGAtK / calculateIDCG, "
           "IDCG 0 -> 0, then rounded; rawDCGAtK: (2^rel - 1) / log2(i + 2) over the first k hits; "
           "calculateIDCG: every judgment sorted, cut at k)")
    yield Preset(
        name="opensearch.ndcg",
        spec="ndcg(gain=exp2,discount=log2,idcg=judged,ties=stable,missing=zero,round=2,rounding=half_up)",
        description=("OpenSearch search-relevance NDCG@k (version @0b75cf84b5b2): unrounded DCG "
                     "over the ideal of all judgments cut at k, each query rounded half-up to 2 "
                     "decimals before the mean (earlier versions differ: see the source)"),
        source=osr,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="NDCG@{k}",
    )
    yield Preset(
        name="opensearch.dcg",
        spec="dcg(gain=exp2,discount=log2,ties=stable,missing=zero,round=2,rounding=half_up)",
        description="OpenSearch search-relevance DCG@k: raw DCG, each query rounded half-up to 2 decimals",
        source=osr,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="DCG@{k}",
    )
    # ------------------------------------------------------------------ TorchRec
    yield Preset(
        name="torchrec.ndcg",
        spec="ndcg(gain=linear,discount=log2,idcg=returned,ties=average(score=float32),complement=yes)",
        description=("TorchRec NDCGMetric (report_ndcg_as_decreasing_curve=True, the default): "
                     "1 - NDCG per session, linear gain (exponential_gain=False), 1/log2(r+1) "
                     "with float32 discounts, ideal from the session's labels, IDCG 0 clamped to "
                     "1e-6 (NDCG 0, reported 1); torch.sort is not stable: expected value over ties of the float32 predictions"),
        source=("pytorch/torchrec v1.9.0 torchrec/metrics/ndcg.py:141-146 (k = -1: the whole "
                "session), :152-160 (labels sorted by labels and by predictions, torch.sort), "
                ":205-207 (1/log2(rank + 1) of int64 ranks: float32), :234-236 (exp2 gain if "
                "exponential_gain), :240-241 (ideal_dcg == 0 -> 1e-6), :247, :261 (1 - ndcg), "
                ":281-284 (sum / num_sessions)"),
        native_name="ndcg",
    )
    yield Preset(
        name="torchrec.ndcg_exp",
        spec="ndcg(gain=exp2,discount=log2,idcg=returned,ties=average(score=float32),complement=yes)",
        description="TorchRec NDCGMetric(exponential_gain=True): gain 2^label - 1, otherwise as torchrec.ndcg (expected value over the tie orders of float32 predictions)",
        source="pytorch/torchrec v1.9.0 torchrec/metrics/ndcg.py:234-236 (torch.exp2(gains) - 1.0)",
        native_name="ndcg",
    )
    # ------------------------------------------------------------------ allRank, pytorchltr
    yield Preset(
        name="allrank.ndcg",
        spec="ndcg(gain=exp2,discount=log2,idcg=returned,ties=average(score=float32),empty=one,negative=drop)",
        description=("allRank ndcg: gain 2^x - 1 (the default gain_function), 1/log2(i+2), ideal "
                     "from the slate's labels, padded items (label -1) masked: they leave the slate "
                     "and its ideal (negative=drop), slates with IDCG 0 get filler_value 1; "
                     "y_pred.sort is not stable: expected value over ties of the float32 predictions; "
                     "labels below -1 are not padding to allRank (a gain 2^x - 1 < 0): not reproduced"),
        source=("allegro/allRank v1.4.3 allrank/models/metrics.py:7-8 (gain_function, "
                "filler_value=1.0), :21-24 (ndcg = dcg / idcg, idcg == 0 -> filler_value), :31-38 "
                "(padding masked: -inf score, label 0), :56-60 (ats cut at the slate length), :64 "
                "(discount 1/log2(i + 2), float32)"),
        native_name="ndcg@{k}",
    )
    yield Preset(
        name="pytorchltr.ndcg",
        spec="ndcg(gain=exp2,discount=log2,idcg=returned,ties=average(score=float32))",
        description=("pytorchltr.evaluation.ndcg (exp=True, the default): gain 2^y - 1, "
                     "1/log2(i+2), ideal from the query's own relevance, IDCG 0 -> 1 so NDCG 0, "
                     "ties broken at random (expected value over ties of float32 scores here), k beyond the list: whole list"),
        source=("rjagerman/pytorchltr v0.2.1 pytorchltr/evaluation/dcg.py:36-38 (idcg == 0 -> 1), "
                ":85 (rank_by_score), :91-93 (2^rel - 1, 1/log2(i + 2)), :97-98 (dcg[:, :k][:, -1]); "
                "pytorchltr/utils/tensor_operations.py:48-64 (rank_by_score: padded last, random "
                "tie break)"),
        native_name="ndcg@{k}",
    )
    yield Preset(
        name="pytorchltr.ndcg_linear",
        spec="ndcg(gain=linear,discount=log2,idcg=returned,ties=average(score=float32))",
        description="pytorchltr.evaluation.ndcg(exp=False): the relevance itself as gain, otherwise as pytorchltr.ndcg (ties broken at random: expected value over ties of float32 scores here)",
        source="rjagerman/pytorchltr v0.2.1 pytorchltr/evaluation/dcg.py:91-93 (exp=False: y)",
        native_name="ndcg@{k}",
    )
    # ------------------------------------------------------------------ RecBole
    yield Preset(
        name="recbole.ndcg",
        spec="ndcg(gain=binary,discount=log2,idcg=judged,ties=stable,empty=skip,missing=zero)",
        description=("RecBole NDCG@K: a positive item gains 1, 1/log2(i+1), ideal DCG of "
                     "min(number of positive items, K) ones, the mean over RecBole's test users "
                     "(users with a positive item; one the model ranks nothing for scores 0); the "
                     "top K come from torch.topk, whose order among equal scores is "
                     "implementation-defined: evalkit keeps the run's order (ties=stable)"),
        source=("RUCAIBox/RecBole v1.2.1 recbole/evaluator/metrics.py:163-202 (NDCG.metric_info: "
                "idcg_len = min(pos_len, K), idcg = cumsum 1/log2(i+1), dcg over pos_index), "
                "recbole/evaluator/collector.py:159-169 (torch.topk of each user's score row; "
                "pos_len counts every positive item), base_metric.py:66-83 (mean over users); "
                "uses np.float, removed in numpy 1.24"),
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="ndcg@{k}",
    )
    # ------------------------------------------------------------------ Elliot
    elliot = ("sisinflab/elliot elliot/evaluation/metrics/accuracy/ndcg/ndcg.py (compute_idcg: the "
              "user's relevant gains sorted, first min(n, cutoff); compute_user_ndcg: dcg / idcg, 0 "
              "when dcg = 0; eval_user_metric: users without relevant items excluded); "
              "elliot/evaluation/relevance/relevance.py (DiscountedRelevance: 2^(rel - t + 1) - 1 "
              "for rel >= t, default t = 0; logarithmic_ranking_discount 1/log2(r + 2))")
    yield Preset(
        name="elliot.ndcg",
        spec="ndcg(gain=exp2_from,discount=log2,idcg=judged,ties=stable,empty=skip)",
        description=("Elliot nDCG with the default relevance threshold 0: gain 2^(rel + 1) - 1, "
                     "1/log2(r+1), ideal from the user's relevant test items cut at k, users "
                     "without relevant items excluded"),
        source=elliot,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="nDCG@{k}",
    )
    yield Preset(
        name="elliot.ndcg_t1",
        spec="ndcg(gain=exp2_from(threshold=1),discount=log2,idcg=judged,ties=stable,empty=skip)",
        description="Elliot nDCG with relevance_threshold 1 (its example configs): gain 2^rel - 1 for rel >= 1",
        source=elliot,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="nDCG@{k}",
    )
    yield Preset(
        name="elliot.ndcg_rendle2020",
        spec="ndcg(gain=binary(threshold=0),discount=log2,idcg=judged,ties=stable,empty=skip)",
        description=("Elliot nDCGRendle2020: binary relevance at the relevance threshold (default "
                     "0: every test item gains 1), ideal DCG of min(number relevant, cutoff) ones"),
        source=("sisinflab/elliot elliot/evaluation/metrics/accuracy/ndcg/ndcg_rendle2020.py "
                "(binary_relevance; idcg = 1 / sum 1/log2(i+2) over min(|rel|, cutoff); users "
                "without relevant items excluded)"),
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="nDCGRendle2020@{k}",
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

    # ------------------------------------------------------------------ Pyserini
    pys = ("castorini/pyserini v1.6 pyserini/eval/trec_eval.py (runs trec_eval 9 through the "
           "jtreceval jar of Anserini; -remove-unjudged: the run rows without a qrels entry are "
           "dropped before trec_eval, so a query left without rows is not in the run); trec_eval 9 "
           "keeps scores as C floats (float32), as trec_eval9.*")
    yield Preset(
        name="pyserini.ndcg_cut",
        spec="ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval(score=float32))",
        description="Pyserini's trec_eval wrapper, ndcg_cut.k: trec_eval's own",
        source=pys,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="ndcg_cut_{k}",
    )
    yield Preset(
        name="pyserini.ndcg_cut_remove_unjudged",
        spec="ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval(score=float32),run_filter=unjudged)",
        description=("Pyserini trec_eval -remove-unjudged ndcg_cut.k: documents absent from the "
                     "qrels removed before ranking (condensed lists); a query with no judged "
                     "document retrieved leaves the run (out of the mean; with -c it scores 0: "
                     "add missing=zero)"),
        source=pys,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="ndcg_cut_{k}",
    )


@hookimpl
def evalkit_register_presets(register):
    for preset in _presets():
        register(preset)
