"""Conformance entries of the presets of ``evalkit/libraries/ltr.py`` (LightGBM, XGBoost, torchmetrics, RankLib, TF-Ranking, CatBoost, allRank, pytorchltr)."""

from __future__ import annotations

import math

import cf_refs as R
from cf_refs import version
from cf_base import Also, Entry, F64, GEN, L2, LABELS, LTR

TFR_SOURCE = ("tensorflow/ranking tensorflow_ranking/python/metrics_test.py (commit 0467b63a) "
              "test_make_normalized_discounted_cumulative_gain_fn (expected_ndcg_1, expected_ndcg_2); "
              "metrics_impl_test.py:701-712 (v0.5.5) test_ndcg_should_ignore_padded_items (label -1 "
              "with the highest score: dcg/max_dcg of the valid entries); "
              "on tied data: the expectation over tie orders (scores compared as float32: utils.py "
              "sort_by_scores casts them) of that test's _dcg (gain 2^l - 1, 1/log2(r+1), "
              "ideal from the list's labels), exhaustive for up to 720 orders, else 2000 shuffles, "
              "entries with a label < 0 taken out (invalid: utils.py:78-81 is_label_valid, "
              "metrics_impl.py:258-266 _prepare_and_validate_params, utils.py:147-163 sort_by_scores "
              "places them after every valid entry with label 0); "
              "TF-Ranking needs TensorFlow, not installed here")
PYTORCHLTR_SEEDS = 1000
ALLRANK_SEEDS = 1000
RANKLIB_TIES = ("; ties: Ranker.rank sorts with MergeSorter.sort(scores, false) (codelibs/ranklib e43f605f "
                "Ranker.java:88-95), a stable merge sort: natural non-increasing runs (MergeSorter.java:"
                "134-189) merged taking the left index when list[idx[i]] >= list[idx[j]] (:191-217, "
                ":204), so tied documents keep the input order; RankLib (Java) is in no reachable registry")


ENTRIES: list[Entry] = [
    # ------------------------------------------------------------------ LTR libraries
    # the label datasets (and grades -2..4) exercise CheckLabel / CheckNDCGLabels: where the
    # library refuses the input, the row asserts that evalkit refuses it too
    Entry("lightgbm.ndcg", R.lightgbm((1, 3, 5, 10, 30)), lambda: version("lightgbm"), LTR + LABELS + GEN,
          1e-12, F64, cutoffs=(1, 3, 5, 10, 30), side="arrays"),
    Entry("xgboost.ndcg", R.xgboost("ndcg@{k}", (3, 10, 32)), lambda: version("xgboost"), LTR + LABELS + GEN,
          1e-6, "XGBoost accumulates in float32 for the mean (per query: double)", cutoffs=(3, 10, 32),
          side="arrays"),
    Entry("xgboost.ndcg-", R.xgboost("ndcg@{k}-", (5, 32)), lambda: version("xgboost"), LTR + LABELS + GEN,
          1e-6, "XGBoost accumulates in float32 for the mean (per query: double)", cutoffs=(5, 32),
          side="arrays"),
    # ndcg_exp_gain=false checks no label: negative ones (grades -2..4) are negative gains
    Entry("xgboost.ndcg_linear", R.xgboost("ndcg@{k}", (5, 32), ndcg_exp_gain=False), lambda: version("xgboost"),
          LTR + ("labels/31", "labels/fraction") + GEN, 1e-6,
          "XGBoost accumulates in float32 for the mean (per query: double)", cutoffs=(5, 32), side="arrays"),
    Entry("torchmetrics.ndcg", R.torchmetrics, lambda: version("torchmetrics") + " (torch "
          + version("torch").split()[1] + ")", LTR + GEN, 1e-6,
          "torchmetrics computes in float32 (relative precision 6e-8; sums of up to 100 terms)",
          cutoffs=(None, 1, 3, 10), side="arrays"),
    Entry("ranklib.ndcg", R.stable_port("ndcg"),
          "port of RankLib 2.x NDCGScorer/DCGScorer and Ranker.rank from the cited lines" + RANKLIB_TIES,
          LTR, 1e-12, F64, cutoffs=(1, 3, 10), side="arrays"),
    Entry("ranklib.err", R.stable_port("err"),
          "port of RankLib 2.x ERRScorer and Ranker.rank from the cited lines" + RANKLIB_TIES,
          LTR, 1e-12, F64, cutoffs=(1, 3, 10), side="arrays"),
    Entry("tfr.ndcg", R.by_case({
        "tfr/metrics_test": R.vectors({("tfr/metrics_test", None): {"1": 1 / math.log2(3), "2": 1.0}}),
        "tfr/metrics_impl_test-padded": R.vectors({("tfr/metrics_impl_test-padded", None): {
            "1": ((2 ** 2 - 1) / math.log2(4) + 1 / math.log2(2)) / ((2 ** 2 - 1) / math.log2(2) + 1 / math.log2(3))}}),
        **{name: R.expected_over_tie_orders(lambda l: 2.0 ** l - 1, lambda r: 1 / math.log2(r + 1), "returned",
                                            shuffles=2000, seed=1, float32=True, invalid_below_zero=True)
           for name in ("generated-nonneg", "generated")}}),
          TFR_SOURCE, ("tfr/metrics_test", "tfr/metrics_impl_test-padded", "generated-nonneg", "generated"), 1e-5,
          "the test asserts 5 places; sampled queries: + 6 standard errors of the shuffle mean",
          cutoffs=(None, 3, 10), side="arrays"),
    # ------------------------------------------------------------------ library presets (issue 11)
    # references installed in their layer's environment (noxfile.py); the rest: values from the library's
    # own unit tests or worked by hand from the source lines the preset cites
    # CatBoost takes negative labels (it sums their gains and orders tied predictions by
    # the raw label): the generated grades -2..4 as well
    *[Entry(f"catboost.{m}", R.catboost(metric), lambda: version("catboost"), data, 1e-12, F64,
            cutoffs=(None, 3, 10), side="arrays")
      for m, metric, data in (("ndcg", "NDCG:top={top};type=Base", LTR + GEN),
                              ("ndcg_exp", "NDCG:top={top};type=Exp", LTR + GEN),
                              ("ndcg_position", "NDCG:top={top};type=Base;denominator=Position", LTR + GEN),
                              ("dcg", "DCG:top={top};type=Base", LTR + GEN))],
    Entry("allrank.ndcg", R.allrank(seeds=ALLRANK_SEEDS),
          "allrank " + R.ALLRANK_VERSION + " allrank.models.metrics.ndcg (ats=[k], default gain 2^y - 1 and "
          "filler_value 1.0) on float32 padded slates, mean over " + f"{ALLRANK_SEEDS} random item orders of "
          "each slate (numpy default_rng(0..." + f"{ALLRANK_SEEDS - 1})): y_pred.sort(descending=True) "
          "(metrics.py:37) is not stable and, on the CPU, orders tied items by their place in the slate, "
          "with no seed; installed with its own pins (torch 1.8.0, torchvision 0.9.0, gcsfs 0.6.2) on "
          "Python 3.8 (torch 1.8.0 has no wheel for Python >= 3.10) and run in a worker process",
          ("allrank/test_ndcg", "allrank/multiple_ats") + LTR, 1e-6,
          "allRank computes in float32 (sums of up to 30 terms); + 6 standard errors of the mean over "
          "item orders", cutoffs=(None, 1, 2, 5, 10), side="arrays",
          also=(Also(R.vectors({("allrank/test_ndcg", None): {"simple_1": 1.0, "simple_2": 1 / L2(3),
                                                              "no_relevant": 1.0},
                                ("allrank/multiple_ats", 1): {"q": 1.0},
                                ("allrank/multiple_ats", 2): {"q": 1 / (1 + 1 / L2(3))}}),
                     "allegro/allRank tests/losses/test_ndcg.py @6167f9d (test_ndcg_simple_1, test_ndcg_simple_2, "
                     "test_ndcg_for_multiple_ats); no relevant item: allrank/models/metrics.py:7-8, :23-24 v1.4.3 "
                     "(filler_value 1.0)", 1e-6, "allRank computes in float32"),)),
    *[Entry(f"pytorchltr.{m}", R.pytorchltr(exp, seeds=PYTORCHLTR_SEEDS),
            f"pytorchltr {R.PYTORCHLTR_SDIST[0]} evaluation.ndcg, imported from its sdist (downloaded when the "
            "test environment is made, sha256 pinned: pip install cannot build it on Python 3.11, its svmrank parser's C file, generated by Cython "
            "0.29.21, fails with fatal error: longintrepr.h: No such file or directory; the evaluation "
            f"package is pure Python), mean over {PYTORCHLTR_SEEDS} seeds of its random tie break "
            f"(torch.manual_seed(0..{PYTORCHLTR_SEEDS - 1}))",
            ("pytorchltr/worked",) + LTR, 1e-6,
            "pytorchltr computes in float32 (sums of up to 30 terms); + 6 standard errors of the mean over seeds",
            cutoffs=(1, 3, 10, 30), side="arrays")
      for m, exp in (("ndcg", True), ("ndcg_linear", False))],
]
