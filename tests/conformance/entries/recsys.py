"""Conformance entries of the presets of ``evalkit/libraries/recsys.py`` (implicit, LensKit, ignite, recommenders, TorchRec, RecBole, Elliot)."""

from __future__ import annotations

import cf_refs as R
from cf_refs import version
from cf_base import Also, Entry, F64, GEN, L2, LIB_TREC, LTR

LENSKIT = lambda: version("lenskit") + " topn.RecListAnalysis + topn.ndcg"  # noqa: E731
TORCHREC_DRAWS = 1000
TORCHREC = lambda: (  # noqa: E731
    version("torchrec") + " torchrec.metrics.ndcg.NDCGMetric (update on a batch: session ids, labels, "
    "predictions, weights; then compute(): lifetime_ndcg), with " + version("fbgemm-gpu-cpu")
    + " (the CPU build for torch 2.13: fbgemm_gpu/__init__.py maps 1.8 to 2.13; 1.9.0 and 1.7.0 fail at "
    "import with undefined symbols; TorchRec and FBGEMM release with matching versions) and the "
    "torchmetrics " + R.TORCHREC_TORCHMETRICS[0] + " TorchRec pins "
    "(installed with TorchRec in its own environment; with torchmetrics 1.9.0 compute() fails with ValueError: A "
    "frozen dataclass was passed to `apply_to_collection`); torchrec/metrics/ndcg.py is the same file in "
    "v1.8.0, v1.9.0 and v1.9.2 (1 - DCG/IDCG: :151-160, :205-207, :234-247, :261; IDCG 0 -> 1e-6). "
    "Ties: predictions.sort(descending=True) (:155) on CPU orders equal values neither stably nor by a "
    f"rule the user sets, so the mean over {TORCHREC_DRAWS} random orders of each session's items "
    "(per query: the session alone in a batch; mean: every session, " + str(R.SESSIONS_PER_BATCH)
    + " to a batch, one update() each, then compute()); float32 predictions, "
    "so scores equal as float32 tie")
TORCHREC_DATA = ("torchrec/worked",) + LTR
ELLIOT = ("worked by hand from sisinflab/elliot elliot/evaluation/metrics/accuracy/ndcg/ndcg.py and "
          "elliot/evaluation/relevance/relevance.py (gain 2^(r - t + 1) - 1 above threshold t; binary for "
          "Rendle 2020); ties: the same lists with every score equal, in the worked order (-tied): "
          "Elliot's metrics consume the recommendation list in its order (ndcg.py @085ab479 "
          "compute_user_ndcg :80-92, rank = position in user_recommendations :89-91); Elliot pins "
          "numpy < 1.24, not installed here")
ELLIOT_DATA = ("elliot/worked", "elliot/worked-tied")


ENTRIES: list[Entry] = [
    # ignite zeroes the labels below relevance_threshold, negative ones included: grades -2..4 too
    *[Entry(f"ignite.{m}", R.ignite(**kw), lambda: version("pytorch-ignite") + " (torch "
            + version("torch").split()[1] + ")", LTR + GEN, 1e-6,
            "ignite computes in float32 (sums of up to 30 terms)", cutoffs=(1, 5, 10), side="arrays")
      for m, kw in (("ndcg", {}), ("ndcg_zero_hits", {"ignore_zero_hits": False}),
                    ("ndcg_linear", {"gain_function": "linear_rank"}))],
    Entry("implicit.ndcg", R.implicit, lambda: version("implicit") + " evaluation.ranking_metrics_at_k",
          LIB_TREC, 1e-12, F64, cutoffs=(1, 10)),
    Entry("lenskit.ndcg", R.lenskit(True), LENSKIT, LIB_TREC, 1e-12, F64, cutoffs=(None, 10)),
    Entry("lenskit.ndcg_binary", R.lenskit(False), LENSKIT, LIB_TREC, 1e-12, F64, cutoffs=(None, 10)),
    # with negative ratings (generated: grades -2..4) binary gives every row gain 1 and exp
    # raises (numpy: integers to negative integer powers); raw, which the preset refuses
    # them for (an ideal DCG <= 0 is divided by), is compared on non-negative ratings only
    *[Entry(f"recommenders.{m}", R.recommenders(st), lambda: version("recommenders")
            + " evaluation.python_evaluation.ndcg_at_k", data, 1e-12, F64, cutoffs=(10,))
      for m, st, data in (("python_ndcg_at_k", "binary", LIB_TREC + GEN), ("python_ndcg_at_k_raw", "raw", LIB_TREC),
                          ("python_ndcg_at_k_exp", "exp", LIB_TREC + GEN))],
    *[Entry(f"torchrec.{m}", R.torchrec(exp, draws=TORCHREC_DRAWS), TORCHREC, TORCHREC_DATA, 1e-6,
            "TorchRec's discounts are float32 (torch.log2 of int64 ranks, ndcg.py:205-207; gains and sums in "
            "float64); + 6 standard errors of the mean over the random orders", side="arrays",
            also=(Also(R.vectors({("torchrec/worked", None): v}),
                       "worked by hand from torchrec/metrics/ndcg.py v1.9.0 (:152-160, :205-207, :234-241, :261)",
                       1e-6, "float32 discounts"),))
      for m, v, exp in (("ndcg", {"s1": 1 - 2 / (2 + 1 / L2(3)), "s2": 1.0}, False),
                        ("ndcg_exp", {"s1": 1 - 2.5 / (3 + 1 / L2(3)), "s2": 1.0}, True))],
    Entry("recbole.ndcg", R.recbole,
          "recbole " + R.RECBOLE_VERSION + " Collector.eval_batch_collect + Evaluator (metric NDCG, "
          "metric_decimal_place 15) on score rows holding the run's ranking (torch.topk orders equal "
          "scores arbitrarily); installed with its own pins (ray 2.6.3, colorlog 4.7.2, colorama 0.4.4) and "
          "numpy < 1.24 (metrics.py:188, :194 use np.float, removed in numpy 1.24; evalkit needs >= 1.24), "
          "run in a worker process",
          ("recbole/worked",) + LIB_TREC, 1e-12, F64 + " (RecBole's metric in numpy float64)",
          cutoffs=(1, 3, 10)),
    *[Entry(f"elliot.{m}", R.vectors({(n, 3): v for n in ELLIOT_DATA}), ELLIOT, ELLIOT_DATA, 1e-12, F64,
            cutoffs=(3,))
      for m, v in (("ndcg", {"u": (3 + 15 / 2) / (15 + 3 / L2(3) + 0.5), "v": 1.0}),
                   ("ndcg_t1", {"u": (1 + 7 / 2) / (7 + 1 / L2(3))}),
                   ("ndcg_rendle2020", {"u": 1.5 / (1 + 1 / L2(3) + 0.5), "v": 1.0}))],
]
