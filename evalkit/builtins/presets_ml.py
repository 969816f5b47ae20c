"""Presets that reproduce the NDCG and ERR of learning-to-rank and deep-learning
libraries (LightGBM, XGBoost, RankLib, TF-Ranking, torchmetrics) and of the TREC
Web track's ``gdeval.pl``.

Every preset cites the source lines its flavour was read from. The versions read
are the ones the differential tests run against where the library installs from
PyPI (LightGBM 4.7.0, XGBoost 3.2.0, torchmetrics 1.9.0, gdeval.pl 1.2a as shipped
in ir_measures 0.4.3); RankLib and TF-Ranking (tensorflow-ranking 0.5.5) are tested
against values hand-computed from the cited lines.

What the libraries share, and how the flavours say it:

* **Gain** ``2^rel - 1`` (``exp2``) everywhere except torchmetrics (the grade itself).
* **Discount** ``1 / log2(r + 1)`` (``log2``) everywhere.
* **IDCG** from the grades of the *returned* list (``idcg=returned``): a
  learning-to-rank library only sees the documents it scores; gdeval takes the
  ideal ranking from every positive judgment in the qrels (``idcg=judged``).
* **Ties**: LightGBM, XGBoost and RankLib sort with a stable sort on the score, so
  tied documents keep their input order (``ties=stable``; XGBoost's predictions are
  32-bit floats: ``stable(score=float32)``); TF-Ranking shuffles tied documents at
  random, whose expected value is ``ties=average``; torchmetrics averages ties as
  scikit-learn does, in float32 arithmetic (metric ``ndcg_float32``); gdeval breaks
  ties by docno descending, as
  trec_eval does (``ties=trec_eval``).
* **Queries with no relevant document** (IDCG = 0): LightGBM and XGBoost ``ndcg``
  score 1 (``empty=one``); XGBoost ``ndcg-``, RankLib, TF-Ranking and torchmetrics
  score 0; gdeval leaves them out of the mean (``empty=skip``).
"""

from __future__ import annotations

from ..components import Preset
from ..hookspecs import hookimpl

LIGHTGBM = "microsoft/LightGBM v4.7.0"
XGBOOST = "dmlc/xgboost v3.2.0"
RANKLIB = "RankLib 2.x (codelibs/ranklib, src/main/java/ciir/umass/edu)"
TFR = "tensorflow/ranking v0.5.5 (tensorflow_ranking/python)"
TORCHMETRICS = "Lightning-AI/torchmetrics v1.9.0 (src/torchmetrics)"
GDEVAL = "gdeval.pl version 1.2a (TREC 2010-2014 Web track; ir_measures/bin/gdeval.pl in ir_measures 0.4.3)"


def _presets():
    exp_returned = "ndcg(gain=exp2,discount=log2,idcg=returned,ties={ties}{extra})"
    yield Preset(
        name="lightgbm.ndcg",
        spec=exp_returned.format(ties="stable", extra=",empty=one,grades=lightgbm"),
        description=("LightGBM metric 'ndcg' (eval_at): label_gain 2^i-1, 1/log2(i+2), IDCG from the "
                     "query's own labels cut at k, stable sort by score, all-zero queries score 1; "
                     "labels that are not integers 0..30 as float32 (negative, fractional, >= 31) "
                     "refused, as LightGBM's CheckLabel refuses them"),
        source=(f"{LIGHTGBM} src/metric/dcg_calculator.cpp:24 (default eval_at 1..5), :38-42 "
                "(label_gain = 2^i - 1), :53 (discount 1/log2(2+i)), :83-115 (CalMaxDCG: the query's "
                "labels sorted, first min(k, n)), :123-124 (std::stable_sort by score), :136; "
                "src/metric/rank_metric.hpp:99-104 (inverse max DCG <= 0: NDCG = 1), :142 (mean over "
                "all queries); src/metric/dcg_calculator.cpp:155-171 (CheckLabel: Log::Fatal on a "
                "non-integer, negative or >= 31 label; label_t is float, include/LightGBM/meta.h:47)"),
        requires_cutoff=True,
        default_cutoffs=(1, 2, 3, 4, 5),
        native_name="ndcg@{k}",
    )
    for name, extra, native, empty_text in (
        ("xgboost.ndcg", ",empty=one", "ndcg@{k}", "queries with IDCG = 0 score 1"),
        ("xgboost.ndcg-", "", "ndcg@{k}-", "queries with IDCG = 0 score 0 (the '-' suffix)"),
    ):
        yield Preset(
            name=name,
            spec=exp_returned.format(ties="stable(score=float32)", extra=extra + ",grades=xgboost"),
            description=(f"XGBoost eval_metric '{native.replace('@{k}', '')}': gain 2^rel-1 "
                         f"(ndcg_exp_gain=true), 1/log2(i+2), IDCG from the group's labels cut at k, "
                         f"stable sort of float32 predictions, {empty_text}; without @k the cutoff is 32; "
                         f"labels that are not integers 0..31 as float32 (within 1e-6) refused, as "
                         f"XGBoost's CheckNDCGLabels refuses them"),
            source=(f"{XGBOOST} cpp_src/src/metric/rank_metric.cc:217-226 (ndcg@k and the '-' suffix), "
                    ":373-390 (stable ArgSort of float predictions, inv_idcg <= 0 -> minus ? 0 : 1, "
                    "first min(n, TopK) positions); cpp_src/src/common/ranking_utils.h:42-52 (gain "
                    "(1<<rel)-1, discount 1/log2(i+2)), :66 (DefaultK 32 = cutoff of plain 'ndcg'), "
                    ":85 (ndcg_exp_gain true), :356-376 (CheckNDCGLabels: integer within kRtEps 1e-6, "
                    ">= 0, uint32 <= MaxRel 31); cpp_src/src/common/ranking_utils.cc:87 (checked when "
                    "the metric's cache is built), :97-108 (IDCG: the group's labels sorted, first "
                    "min(n, TopK))"),
            requires_cutoff=True,
            default_cutoffs=(32,),
            native_name=native,
        )
    yield Preset(
        name="xgboost.ndcg_linear",
        spec=("ndcg(gain=linear,discount=log2,idcg=returned,ties=stable(score=float32),empty=one,negative=gain,"
              "grades=float32)"),
        description=("XGBoost 'ndcg' with ndcg_exp_gain=false: the label itself as gain, any label "
                     "(CheckNDCGLabels checks only under exp gain): a negative label is a negative "
                     "gain, in the ideal too (sorted last); labels are float32 (0.1 counts "
                     "0.100000001490116); an ideal DCG <= 0 scores 1"),
        source=(f"{XGBOOST} cpp_src/src/metric/rank_metric.cc:386-389 (gain = label when "
                "ndcg_exp_gain is false), :376-378 (inv_idcg <= 0 -> 1); cpp_src/src/common/"
                "ranking_utils.h:50-53 (CalcInvIDCG: 1/idcg, negative when idcg < 0), :359, :369 "
                "(label checks only if ndcg_exp_gain); cpp_src/src/common/ranking_utils.cc:97-108 "
                "(IDCG: every label of the group sorted, first min(n, TopK))"),
        requires_cutoff=True,
        default_cutoffs=(32,),
        native_name="ndcg@{k}",
    )
    yield Preset(
        name="ranklib.ndcg",
        spec=exp_returned.format(ties="stable", extra=""),
        description=("RankLib NDCG@k: gain 2^rel-1, 1/log2(i+2), ideal DCG of the ranked list's own "
                     "labels cut at k, stable merge sort by model score, IDCG = 0 scores 0"),
        source=(f"{RANKLIB} metric/DCGScorer.java:21 (default k = 10), :26 (discount 1/log2(i+2)), "
                ":30 (gain (1<<i)-1), :97-103 (getDCG); metric/NDCGScorer.java:103-128 (score: "
                "k > size or k <= 0 -> whole list; ideal <= 0 -> 0), :167-174 (getIdealDCG sorts the "
                "list's labels); metric/MetricScorer.java getRelevanceLabels ((int) label); "
                "learning/Ranker.java rank() (MergeSorter.sort(scores, false), stable)"),
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="NDCG@{k}",
    )
    yield Preset(
        name="ranklib.err",
        spec="err(max_grade=4,ties=stable)",
        description="RankLib ERR@k: R = (2^rel - 1)/16, no normalisation, stable sort by model score",
        source=(f"{RANKLIB} metric/ERRScorer.java:25 (MAX = 16, i.e. maximum grade 4), :28 (default "
                "k = 10), :45-63 (score: s += p*R/i, p *= 1-R), :71-73 (R = ((1<<rel)-1)/MAX)"),
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="ERR@{k}",
    )
    yield Preset(
        name="tfr.ndcg",
        spec=exp_returned.format(ties="average(score=float32)", extra=",negative=drop"),
        description=("TF-Ranking NDCGMetric: gain 2^label-1, log(2)/log1p(rank), ideal DCG of the "
                     "list's labels cut at topn, scores cast to float32 and ties shuffled at random (evalkit gives the expected "
                     "value), IDCG = 0 scores 0 (divide_no_nan); topn=None is the whole list; a label < 0 "
                     "is an invalid entry, pushed after every valid one with gain 0: it leaves the list "
                     "(negative=drop)"),
        source=(f"{TFR} metrics_impl.py:31 (gain 2^label-1), :33 (discount log(2)/log1p(rank)), "
                ":631-670 (NDCGMetric: DCG over sort_by_scores, ideal over sorted gains, "
                "divide_no_nan), :258-266 (_prepare_and_validate_params: mask = is_label_valid, an "
                "invalid label set to 0, its prediction below the list's minimum); utils.py:78-81 "
                "(is_label_valid: label >= 0), :84-112 and :147-163 (sort_by_scores: invalid entries "
                "placed after every valid one; scores cast to float32, ties shuffled: "
                "shuffle_ties=True); "
                "keras/metrics.py:768-770 (topn=None)"),
        native_name="ndcg@{k}",
    )
    yield Preset(
        name="torchmetrics.ndcg",
        spec="ndcg_float32(ties=average,negative=gain)",
        description=("torchmetrics RetrievalNormalizedDCG, bit for bit: the target itself as gain "
                     "(negative targets count negatively, so values above 1 occur), 1/log2(i+2), "
                     "ties averaged as scikit-learn does over predictions cast to float32, IDCG from "
                     "the query's targets cut at top_k, float32 discounts and sums in torch's order, "
                     "queries whose targets sum to 0 score 0 (empty_target_action='neg')"),
        source=(f"{TORCHMETRICS} functional/retrieval/ndcg.py:22-42 (_tie_average_dcg), :58-59 "
                "(discount 1/log2(i+2), zero past top_k), :100 (top_k None = whole list), :105-111 "
                "(IDCG from the targets sorted; IDCG = 0 -> 0); retrieval/base.py:170-176 "
                "(empty_target_action, default 'neg' = 0); utilities/checks.py:151 (preds cast to "
                "float32); torch aten/src/ATen/native/cpu/SumKernel.cpp (float32 cascade sum), "
                "ReduceOps cumsum (double accumulator)"),
        native_name="RetrievalNormalizedDCG(top_k={k})",
    )
    yield Preset(
        name="gdeval.ndcg",
        spec="ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval,empty=skip,grades=gdeval)",
        description=("gdeval.pl nDCG@k (TREC Web track): gain 2^rel-1, 1/log(i+2) (log2 after "
                     "normalising), IDCG from every positive judgment of the topic, run sorted by "
                     "score then docno descending, topics with no positive judgment not reported; a judgment "
                     "that is not an integer or is above 4 stops gdeval.pl (format error): refused "
                     "(grades=gdeval)"),
        source=(f"{GDEVAL} lines 16 (MAX_JUDGMENT = 4), 39-42 (format error unless the judgment "
                "is an integer <= MAX_JUDGMENT), 42-45 (only judgments > 0 kept; negative "
                "grades count 0), 73/82 (ideal DCG from the sorted positive judgments), 124-143 "
                "(runOrder: score descending, then docno descending), 151 ((2^g-1)/log(i+2)), 175 "
                "(topics without a positive judgment are skipped)"),
        requires_cutoff=True,
        default_cutoffs=(20,),
        native_name="ndcg@{k}",
    )
    yield Preset(
        name="gdeval.err",
        spec="err(max_grade=4,ties=trec_eval,empty=skip,grades=gdeval)",
        description=("gdeval.pl ERR@k: R = (2^rel - 1)/2^4, run sorted by score then docno "
                     "descending, topics with no positive judgment not reported; a judgment that is not an "
                     "integer or is above 4 stops gdeval.pl (format error): refused (grades=gdeval)"),
        source=(f"{GDEVAL} lines 16 (MAX_JUDGMENT = 4), 39-42 (format error unless the judgment "
                "is an integer <= MAX_JUDGMENT), 42-45, "
                "124-143 (runOrder), 157-169 (err: r = (2^g-1)/2^MAX_JUDGMENT, score += r*decay/(i+1)), "
                "175"),
        requires_cutoff=True,
        default_cutoffs=(20,),
        native_name="err@{k}",
    )


@hookimpl
def evalkit_register_presets(register):
    for preset in _presets():
        register(preset)
