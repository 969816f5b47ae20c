"""Presets that reproduce the NDCG and ERR of learning-to-rank and deep-learning
libraries (LightGBM, XGBoost, RankLib, TF-Ranking, torchmetrics, CatBoost, allRank,
pytorchltr), and torchmetrics' float32 NDCG as a metric of its own (``ndcg_float32``).
gdeval.pl's presets are in :mod:`evalkit.libraries.gdeval`.

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

import numpy as np

from ..components import Metric, MetricOutput, Preset, declared, metric
from ..float32 import scores_as_float32
from .._builtin_hookimpl import hookimpl
from ..kernel import MetricInput, offsets_from_sorted
from ..kernel import gain_floor
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from ..hookspecs import Register

LIGHTGBM = "microsoft/LightGBM v4.7.0"
XGBOOST = "dmlc/xgboost v3.2.0"
RANKLIB = "RankLib 2.x (codelibs/ranklib, src/main/java/ciir/umass/edu)"
TFR = "tensorflow/ranking v0.5.5 (tensorflow_ranking/python)"
TORCHMETRICS = "Lightning-AI/torchmetrics v1.9.0 (src/torchmetrics)"
CATBOOST = "catboost/catboost v1.2.10"


@metric(
    "ndcg_float32",
    supports_averaged_ties=True,
    formula="NDCG@k = DCG@k / IDCG@k in float32: gain = grade (negative grades: 0 under "
            "negative=zero, the grade under negative=gain), discount float32 1/log2(r+1), IDCG "
            "of the returned grades sorted, tie groups by float32 score, sums in torch's CPU order",
    source="torchmetrics 1.9.0 functional/retrieval/ndcg.py (_tie_average_dcg, "
           "_dcg_sample_scores, retrieval_normalized_dcg), utilities/checks.py (preds as "
           "float32); torch aten/src/ATen/native/cpu/SumKernel.cpp (cascade sum)",
    description="NDCG as torchmetrics computes it, bit for bit (float32 arithmetic)",
)
def ndcg_float32(inp: MetricInput) -> MetricOutput:
    """torchmetrics' ``retrieval_normalized_dcg`` in its own ``float32`` arithmetic
    (functional/retrieval/ndcg.py): the grade itself as gain (unjudged: 0). A negative
    grade follows the flavour's ``negative`` convention: ``zero`` (the default) gives it
    gain 0, ``gain`` keeps it as its (negative) gain, as torchmetrics counts a negative
    target (the ``torchmetrics.ndcg`` preset), ``error`` refuses it (the engine raises
    before the kernel runs); ``min_grade`` above 0 gives the grades below it gain 0.
    ``float32`` discounts ``1/log2(r+1)``, zero past ``k``;
    under an averaged tie policy the mean grade of each group of scores equal in
    ``float32`` times the group's discount sum (``_tie_average_dcg``: ``torch.cumsum``,
    then differences at the group ends); the ideal DCG of the returned grades sorted;
    every sum in torch's ``float32`` order (:mod:`evalkit.float32`)."""
    from ..float32 import cumsum_float32, log2_discount_float32, torch_sum_float32

    r = inp.ranked
    nq, offsets, n = inp.n_queries, r.offsets, len(r.query)
    # the gain floor of the conventions: -inf under negative=gain (min_grade <= 0), else
    # max(min_grade, 0); NaN (unjudged) compares False, so it gets 0 as well
    grade = np.where(r.grade >= inp.gain_floor(), r.grade, 0.0)
    target = grade.astype(np.float32).astype(np.float64)
    disc = log2_discount_float32(r.rank)
    if inp.k is not None:
        disc[r.rank > inp.k] = 0.0
    # groups of tied documents (scores equal in float32) under an averaged tie policy
    new_group = np.ones(n, dtype=bool)
    if r.averaged and n > 1:
        s32 = scores_as_float32(r.score)
        new_group[1:] = (s32[1:] != s32[:-1]) | (r.query[1:] != r.query[:-1])
    start = np.flatnonzero(new_group)
    end = np.r_[start[1:] - 1, n - 1] if n else start
    gq = r.query[start]
    mean_target = (np.add.reduceat(target, start) / (end - start + 1)).astype(np.float32) if n else target
    cum = cumsum_float32(disc, offsets).astype(np.float64)
    prev = np.r_[0.0, cum[end[:-1]]] if n else cum
    prev[start == offsets[gq]] = 0.0
    disc_sum = (cum[end] - prev).astype(np.float32)
    dcg = torch_sum_float32((mean_target * disc_sum.astype(np.float64)).astype(np.float32),
                            offsets_from_sorted(gq, nq))
    ideal_target = target[np.lexsort((-target, r.query))]
    idcg = torch_sum_float32((ideal_target * disc).astype(np.float32), offsets)
    values = np.zeros(nq)
    ok = idcg != 0
    values[ok] = (dcg[ok].astype(np.float64) / idcg[ok]).astype(np.float32)
    # torchmetrics' empty_target_action applies to queries whose targets sum to 0
    defined = inp.per_query(grade) != 0
    return MetricOutput(values, defined)


def _presets() -> Any:
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


@hookimpl
def evalkit_register_metrics() -> Any:
    return declared(__name__, Metric)


@hookimpl
def evalkit_register_presets(register: Register) -> None:
    for preset in _presets():
        register(preset)
