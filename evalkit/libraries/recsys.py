"""Presets of recommender-system libraries: implicit, LensKit 0.14, pytorch-ignite,
microsoft/recommenders (its Python evaluation; the Spark one is in
:mod:`evalkit.libraries.spark`), TorchRec, RecBole and Elliot, and Elliot's thresholded
exponential gain (``exp2_from``).

Each preset cites the lines its flavour was read from. The versions read are the
ones the differential tests (``tests/test_presets_libraries.py``) run against:
implicit 0.7.3, LensKit 0.14.4 (legacy ``lenskit.metrics.topn``), pytorch-ignite
0.5.5 and microsoft/recommenders 1.2.1. The libraries that do not install here
without a GPU or a JVM are tested against vectors worked by hand from the cited lines.

How their conventions map onto flavours:

* **binary relevance** (a test item / a relevant document gains 1): ``gain=binary``
  (``threshold``: the smallest grade that counts);
* **the ideal ranking**: ``idcg=judged`` when it comes from the test items
  (recommenders, RecBole, Elliot), ``idcg=returned`` when it comes from the scored
  list's own labels (ignite, TorchRec);
* **users with nothing to find**: ``empty=skip`` (left out), ``zero`` or ``one``;
  users of the test set without a recommendation: ``missing=zero``;
* TorchRec's ``1 - NDCG``: ``complement=yes``.
"""

from __future__ import annotations

import numpy as np

from ..components import Gain, Param, Preset, declared
from ..components import gain as gain_component  # 'gain' is a loop variable below
from .._builtin_hookimpl import hookimpl
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from ..hookspecs import Register

IMPLICIT = "benfred/implicit v0.7.3 implicit/evaluation.pyx"
LENSKIT = "lenskit/lkpy v0.14.4 lenskit/metrics/topn.py"
IGNITE = "pytorch/ignite v0.5.5 ignite/metrics/rec_sys/ndcg.py"
RECOMMENDERS = "recommenders-team/recommenders v1.2.1 recommenders/evaluation/python_evaluation.py"


@gain_component(
    "exp2_from",
    params=(Param("threshold", "float", 0.0, "smallest grade that counts as relevant (Elliot's "
                  "relevance_threshold; its default is 0)"),),
    formula="g(rel) = 2^(rel - threshold + 1) - 1 if rel >= threshold else 0",
    source=("Elliot elliot/evaluation/metrics/accuracy/ndcg/ndcg.py and "
            "elliot/evaluation/relevance/relevance.py (DiscountedRelevance.get_rel: "
            "2 ** (rel - threshold + 1) - 1 for rel >= threshold)"),
    description="exponential gain shifted so that the threshold grade gains 1",
)
def exp2_from(grades: np.ndarray, threshold: float = 0.0) -> np.ndarray:
    out = np.exp2(grades - threshold + 1.0) - 1.0
    out[grades < threshold] = 0.0
    return out



def _presets() -> Any:
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


@hookimpl
def evalkit_register_gains() -> Any:
    return declared(__name__, Gain)


@hookimpl
def evalkit_register_presets(register: Register) -> None:
    for preset in _presets():
        register(preset)
