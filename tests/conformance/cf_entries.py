"""One declarative entry per preset: the reference (library and exact version, a
program built from a released source, or vectors from the reference's own tests), the
datasets, the cutoffs, the tolerance and its reason.

Adding an entry for a new preset is a few lines: pick (or write, in ``cf_refs.py``) a
reference function ``ref(case, k) -> Ref``, then append::

    Entry("mylib.ndcg", ref=cf_refs.mylib("ndcg@{k}"), reference=version("mylib"),
          datasets=GRADED, cutoffs=(5, 10), tolerance=1e-12, reason="float64 on both sides")

``side`` says how evalkit is run: ``trec`` (``evaluate(qrels, run, ["preset@k"])``),
``arrays`` (``evalkit.arrays.score`` on the run's groups, unjudged = 0, as LTR libraries
are fed) or ``diversity`` (subtopic qrels).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import cf_data as D
import cf_refs as R
import cf_treceval as TE
from cf_refs import version


@dataclass(frozen=True)
class Also:
    """A further reference of the same preset, compared on the entry's datasets and
    cutoffs with its own tolerance (e.g. the trec_eval binary beside pytrec_eval)."""

    ref: Callable
    reference: str | Callable[[], str]
    tolerance: float
    reason: str

    def reference_text(self) -> str:
        return self.reference() if callable(self.reference) else self.reference


@dataclass(frozen=True)
class Entry:
    preset: str
    ref: Callable | None
    reference: str | Callable[[], str]
    datasets: tuple
    tolerance: float
    reason: str
    cutoffs: tuple = (None,)
    side: str = "trec"
    #: queries left out of the comparison on purpose: ``(predicate(case, qid), why, compare_means)``
    exclude: tuple | None = None
    #: further references (:class:`Also`), each a full per-query and mean comparison
    also: tuple = ()

    def reference_text(self) -> str:
        return self.reference() if callable(self.reference) else self.reference


# ----------------------------------------------------------------------------- datasets

def _ranked_case(name: str, qrels_rows: list, ranking: dict, tied: bool = False) -> D.Case:
    """A worked example: rankings given as docno lists (scores n, n-1, ..., 1); ``tied``:
    every score 1.0, the lines in the ranking's order (for references that consume the
    hits in the order given: a search engine's response, a recommendation list)."""
    rows = [(q, d, 1.0 if tied else float(len(docs) - i)) for q, docs in ranking.items() for i, d in enumerate(docs)]
    return D.Case(name, qrels_rows, rows, note="worked example (see the entry's reference)"
                  + ("; every score tied, lines in the ranking's order" if tied else ""))


#: worked examples also given with every score tied, the lines in the cited order
#: (``<name>-tied``): their references consume the hits in the order given
TIED_ORDER = ("es/testDCGAt", "es/testDCGAtSixMissingRatings", "es/testDCGAtFourMoreRatings",
              "opensearch/worked", "elliot/worked")


#: learning-to-rank groups whose labels LightGBM's CheckLabel or XGBoost's CheckNDCGLabels
#: refuse or read as float32 integers (every document judged; scores n, n-1, ..., 1, and a tie)
LABEL_CASES = {
    # LightGBM refuses 31 (>= the 31 label_gain entries); XGBoost takes it (<= MaxRel 31)
    "labels/31": [[0, 31, 2, 1], [3, 0, 0, 1]],
    # both refuse 32 (XGBoost: > 31)
    "labels/32": [[0, 32, 2, 1], [3, 0, 0, 1]],
    # both refuse a fraction; XGBoost's ndcg_exp_gain=false takes it as its gain
    "labels/fraction": [[0, 1.5, 2, 1], [3, 0.1, 0, 1]],
    # float32 reads 2.00000001 as 2 and 30.999999999 as 31 (LightGBM refuses: 31), and
    # XGBoost takes 2.0000005 (within kRtEps 1e-6 above 2) and reads it as 2
    "labels/float32": [[0, 2.00000001, 1, 30.999999999], [2.0000005, 0, 1, 3]],
    # accepted by both, read as integers: 2.00000001 -> 2, 30.000000001 -> 30
    "labels/float32-accepted": [[0, 2.00000001, 1, 30.000000001], [3, 0, 1, 1]],
}


def _label_case(name: str, groups: list) -> D.Case:
    qrels, run = [], []
    for q, labels in enumerate(groups):
        for i, g in enumerate(labels):
            qrels.append((str(q), f"d{i}", float(g)))
            run.append((str(q), f"d{i}", float(len(labels) - i if i != 2 else len(labels) - 1)))
    return D.Case(name, qrels, run, note="labels: " + "; ".join(map(str, groups)))


GEN = ("generated",)
GEN_NONNEG = ("generated-nonneg",)
REAL_TREC = ("robust03/InexpC2", "robust03/oce03noXbmD", "trec_eval_test/qrels.rel_level", "cast2021/bm25")
LTR = ("lightgbm/rank.test", "generated-nonneg")
LABELS = tuple(LABEL_CASES)
#: runs written with ranks in line order, and runs whose rank column (which ndeval reads
#: by default) disagrees with both the scores and the line order
DIVERSITY = ("web2013-diversity/synthetic-run", "generated-diversity", "ir_measures/fixtureC+A",
             "web2013-diversity/random-ranks", "generated-diversity/inverted-ranks")

DATASETS: dict[str, Callable[[], D.Case]] = {
    "generated": lambda: D.generated(-2),
    "generated-nonneg": lambda: D.generated(0),
    "generated-diversity": D.generated_diversity,
    "robust03/InexpC2": lambda: D.robust03("InexpC2"),
    "robust03/oce03noXbmD": lambda: D.robust03("oce03noXbmD"),
    "trec_eval_test/results.test": D.trec_eval_test,
    "trec_eval_test/qrels.rel_level": D.trec_eval_rel_level,
    "cast2021/bm25": D.cast2021,
    "web2013-adhoc/synthetic-run": D.web2013_synthetic,
    "web2013-diversity/synthetic-run": D.web2013_diversity,
    "web2013-diversity/random-ranks": D.web2013_diversity_reranked,
    "generated-diversity/inverted-ranks": D.generated_diversity_inverted,
    "lightgbm/rank.test": D.lambdarank,
    "ir_measures/fixtureC+A": D.ir_measures_fixture_c,
    "jarvelin2002/example": D.jarvelin2002_example,
    "recommenders/test_vectors": D.recommenders_vectors,
    "tfr/metrics_test": lambda: D.Case(
        "tfr/metrics_test",
        [("1", "a", 0), ("1", "b", 0), ("1", "c", 1), ("2", "a", 0), ("2", "b", 1), ("2", "c", 2)],
        [("1", "a", 1.0), ("1", "b", 3.0), ("1", "c", 2.0), ("2", "a", 1.0), ("2", "b", 2.0), ("2", "c", 3.0)],
        note="TF-Ranking metrics_test.py"),
    "jarvelin2002/example-tied": lambda: D.jarvelin2002_example(tied=True),
    # a judgment above gdeval.pl's $MAX_JUDGMENT = 4: gdeval.pl stops (format error)
    "gdeval/grade-5": lambda: D.Case(
        "gdeval/grade-5", [("1", "a", 5), ("1", "b", 1), ("2", "a", 2), ("2", "c", 0)],
        [("1", "a", 1.0), ("1", "b", 2.0), ("2", "a", 2.0), ("2", "c", 1.0)],
        note="a grade above gdeval.pl's MAX_JUDGMENT = 4"),
    # labels LightGBM / XGBoost refuse (or read as float32 integers): one case per rule
    **{name: (lambda name=name, groups=groups: _label_case(name, groups)) for name, groups in LABEL_CASES.items()},
    # TF-Ranking metrics_impl_test.py:701-712 test_ndcg_should_ignore_padded_items: the
    # invalid entry (label -1) has the highest score
    "tfr/metrics_impl_test-padded": lambda: D.Case(
        "tfr/metrics_impl_test-padded",
        [("1", "a", 2), ("1", "b", -1), ("1", "c", 1), ("1", "d", 0)],
        [("1", "a", 1.0), ("1", "b", 4.0), ("1", "c", 3.0), ("1", "d", 2.0)],
        note="TF-Ranking metrics_impl_test.py test_ndcg_should_ignore_padded_items"),
    **{name + suffix: (lambda name=name, q=q, r=r, suffix=suffix: _ranked_case(name + suffix, q, r, bool(suffix)))
       for suffix in ("", "-tied") for name, (q, r) in {
        # Elasticsearch DiscountedCumulativeGainTests.java (testDCGAt, ...SixMissingRatings, ...FourMoreRatings)
        "es/testDCGAt": ([("q", str(i), g) for i, g in enumerate([3, 2, 3, 0, 1, 2])],
                         {"q": [str(i) for i in range(6)]}),
        "es/testDCGAtSixMissingRatings": ([("q", "0", 3), ("q", "1", 2), ("q", "2", 3), ("q", "4", 1)],
                                          {"q": [str(i) for i in range(6)]}),
        "es/testDCGAtFourMoreRatings": ([("q", "0", 3), ("q", "1", 2), ("q", "2", 3), ("q", "4", 1)],
                                        {"q": ["0", "1", "2", "3"]}),
        "opensearch/worked": ([("q1", "a", 1), ("q1", "b", 0), ("q1", "c", 2), ("q1", "d", 3), ("q2", "e", 1)],
                              {"q1": ["a", "b", "c"], "q2": ["n1", "n2", "n3", "n4", "n5", "n6", "e"]}),
        "torchrec/worked": ([("s1", "a", 1), ("s1", "b", 0), ("s1", "c", 2), ("s2", "a", 0), ("s2", "b", 0),
                             ("s2", "c", 0)], {"s1": ["a", "b", "c"], "s2": ["a", "b", "c"]}),
        "allrank/test_ndcg": ([("simple_1", "a", 1), ("simple_1", "b", 0), ("simple_2", "a", 0),
                               ("simple_2", "b", 1), ("no_relevant", "a", 0), ("no_relevant", "b", 0)],
                              {"simple_1": ["a", "b"], "simple_2": ["a", "b"], "no_relevant": ["a", "b"]}),
        "allrank/multiple_ats": ([("q", "a", 1), ("q", "b", 0), ("q", "c", 1)], {"q": ["a", "b", "c"]}),
        "pytorchltr/worked": ([("q0", "b", 0), ("q0", "c", 1), ("q0", "a", 2), ("q1", "a", 0), ("q1", "b", 0),
                               ("q1", "c", 0)], {"q0": ["b", "c", "a"], "q1": ["a", "b", "c"]}),
        "recbole/worked": ([("u", d, g) for d, g in [("i1", 2), ("i3", 1), ("i7", 1), ("i8", 1), ("i9", 1)]],
                           {"u": ["i1", "i2", "i3", "i4"]}),
        "elliot/worked": ([("u", "a", 3), ("u", "b", 1), ("u", "c", 0), ("v", "z", 0)],
                          {"u": ["b", "x", "a"], "v": ["z"]}),
        "mteb/worked": ([("q1", "d2", 1), ("q2", "d3", 1)], {"q1": ["q1", "d2", "d9"], "q2": ["d3", "d4"]}),
    }.items() if not suffix or name in TIED_ORDER},
}

TE_OUT = "trec_eval (usnistgov/trec_eval f4253652c8ef) test/out.test.aq (-m all_trec -q), in ../shared/data"
TE_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
PYTE = lambda: version("pytrec_eval-terrier") + " (trec_eval 9.0.8 compiled in)"  # noqa: E731
GDEVAL = lambda: "gdeval.pl 1.2a as shipped in " + version("ir_measures") + ", run with perl"  # noqa: E731
NDEVAL = lambda trad: (f"ndeval {'-traditional ' if trad else '(default: rank column) '}(src/ndeval.c of the "  # noqa: E731
                       f"{version('pyndeval')} sdist from PyPI, built with cc)")
F64 = "both sides compute in float64"
TE9 = lambda: version("pytrec_eval-terrier") + (" (builds usnistgov/trec_eval tag v9.0.8, d95ca64e; that source is in "  # noqa: E731
                                                 "no registry)")
IRM = lambda: version("ir_measures") + " (default providers), files read with read_trec_qrels/read_trec_run"  # noqa: E731,E501
TE_PRINT = "trec_eval prints 4 decimals"
#: half a unit of trec_eval's 4th printed decimal, and float64 noise at that boundary
TE_BIN_TOL = 5e-5 + 1e-12
TE_BIN_908 = TE.SOURCE_OF(TE.NINE)
TE_BIN_10 = TE.SOURCE_OF(TE.TEN)
TE9_DATA = REAL_TREC + ("trec_eval_test/results.test", "web2013-adhoc/synthetic-run") + GEN
TE10_DATA = TE9_DATA
JK2002 = ("Järvelin & Kekäläinen, Cumulated gain-based evaluation of IR techniques, ACM TOIS 20(4):422-446, "
          "2002: the running example G' = <3,2,3,0,0,1,2,2,3,0> against the ideal <3,3,3,2,2,2,1,1,1,1>, "
          "b = 2, normalised vector printed to 2 decimals")
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


def _no_positive(case, qid) -> bool:
    return not any(q == qid and g > 0 for q, _, g in case.qrels_rows)


def _unjudged_topic(case, qid) -> bool:
    return not any(q == qid for q, _, _, _ in case.subtopic_rows)


NDEVAL_UNJUDGED = ("ndeval prints a row of zeros for a run topic absent from the qrels and leaves it out of "
                   "amean (ndeval.c applyQrels 1179-1208, outputMeasures 1392-1403: totals / actualTopics)")
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

SPARK_MLLIB = lambda: version("pyspark") + " RankingMetrics.ndcgAt"  # noqa: E731
SPARK_JVM = (" with relevance values, the JVM's org.apache.spark.mllib.evaluation.RankingMetrics through py4j "
             "(pyspark's wrapper drops them)")
SPARK_DATA = ("generated", "trec_eval_test/qrels.rel_level")
#: MLlib's graded NDCG: grades -2..4 with ties (negative grades have negative gains in Spark)
SPARK_DATA_GRADED = ("generated", "robust03/InexpC2")
SPARK_ORDER = ("; Spark takes the predicted array as given: it is built by sorting on the score, tied "
               "documents in the run's order (ties=stable)")
RECOMMENDERS_REF = lambda: ("recommenders-team/recommenders tests/unit/recommenders/evaluation/"  # noqa: E731
                            "test_spark_evaluation.py::test_spark_ndcg_at_k (mean 0.38172 at k = 10, on "
                            "conftest.py's rating_true/rating_pred); per user: what its ndcg_at_k runs, "
                            + version("pyspark") + " RankingMetrics.ndcgAt on the top-k predictions; "
                            "recommenders itself is not installed (its dependencies are far heavier)")


def _recommenders(case, k=None):
    ref = R.spark_mllib(graded=False, top_k=True)(case, k)
    if k == 10:
        ref.mean = 0.38172  # the value recommenders' own test asserts
    return ref


# ----------------------------------------------------------------------------- library presets (issue 11)
L2 = math.log2
#: CAsT 2021 and the generated edge cases (grades 0..4: the recommender libraries' ratings)
LIB_TREC = ("generated-nonneg", "cast2021/bm25")
LENSKIT = lambda: version("lenskit") + " topn.RecListAnalysis + topn.ndcg"  # noqa: E731
PYSERINI = ("Pyserini 1.6.0 runs jtreceval's trec_eval 9.0.4 binary (pyserini.eval.trec_eval); here "
            + TE.SOURCE_OF(TE.NINE) + "; " + TE.UNCHANGED_TO_908)
PYSERINI_DATA = REAL_TREC + ("trec_eval_test/results.test", "web2013-adhoc/synthetic-run") + GEN
ES_TESTS = ("elastic/elasticsearch modules/rank-eval/src/test/java/org/elasticsearch/index/rankeval/"
            "DiscountedCumulativeGainTests.java (testDCGAt, testDCGAtSixMissingRatings, "
            "testDCGAtFourMoreRatings); ties: the same hits with every score equal, in the test's "
            "order (-tied): _rank_eval consumes the hits in the order the search returned them "
            "(DiscountedCumulativeGain.java @02f20483 evaluate :127-163, ratings in hit order :129-143; "
            "computeDCG :165-175, rank 1, 2, ... in that order), so the test's values stand; "
            "Elasticsearch (Java) is in no reachable registry")
ES_DATA = tuple("es/" + t + s for t in ("testDCGAt", "testDCGAtSixMissingRatings", "testDCGAtFourMoreRatings")
                for s in ("", "-tied"))
ES_DCG = {"testDCGAt": 13.84826362927298, "testDCGAtSixMissingRatings": 12.779642067948913,
          "testDCGAtFourMoreRatings": 12.392789260714371}
ES_IDEAL = {"testDCGAt": 14.595390756454922, "testDCGAtSixMissingRatings": 13.347184833073591,
            "testDCGAtFourMoreRatings": 13.347184833073591}
OPENSEARCH = ("worked by hand from opensearch-project/search-relevance src/main/java/org/opensearch/"
              "searchrelevance/metrics/calculator/Evaluation.java @0b75cf84b5b2 (calculateNDCGAtK, "
              "Math.round(x * 100) / 100.0); ties: the same hits with every score equal, in the worked "
              "order (-tied): the DCG reads the returned docIds in order (calculateNDCGAtK, "
              "for i < min(k, docIds.size()): docIds.get(i), Evaluation.java:83-84 @d8be5d1), so the "
              "values stand; OpenSearch (Java) is in no reachable registry")
OS_DATA = ("opensearch/worked", "opensearch/worked-tied")
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
MTEB_SRC = {"ndcg_cut": "embeddings-benchmark/mteb v2.26.24 mteb/_evaluators/retrieval_metrics.py:508-519, "
                        ":609-613 (pytrec_eval ndcg_cut, mean round(..., 5))",
            "ndcg_cut_skip_first": "embeddings-benchmark/mteb v2.26.24 mteb/_evaluators/retrieval_metrics.py:"
                                   "597-601 (skip_first_result)",
            "ndcg_cut_ignore_ids": "embeddings-benchmark/mteb v2.26.24 mteb/_evaluators/retrieval_evaluator.py:"
                                   "134-142 (ignore_identical_ids)"}
MTEB_DATA = ("mteb/worked",) + LIB_TREC + ("robust03/InexpC2",)


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
    # ------------------------------------------------------------------ ir_measures
    *[Entry(f"ir_measures.{m}", R.ir_measures(native), IRM, data, tol, why, cutoffs=cuts, side=side)
      for m, native, cuts, data, tol, why, side in (
          ("AP", "AP", (None,), GEN + REAL_TREC[:1], 1e-12, F64, "trec"),
          ("RR", "RR", (None,), GEN + REAL_TREC[:1], 1e-12, F64, "trec"),
          ("P", "P@{k}", (5, 20), GEN + REAL_TREC[:1], 1e-12, F64, "trec"),
          ("R", "R@{k}", (5, 20), GEN + REAL_TREC[:1], 1e-12, F64, "trec"),
          ("nDCG", "nDCG", (None,), GEN + REAL_TREC[:1], 1e-12, F64, "trec"),
          ("nDCG_judged_only", "nDCG(judged_only=True)", (None,), GEN + REAL_TREC[:1], 1e-12, F64, "trec"),
          ("nDCG_exp_log2", "nDCG(dcg='exp-log2')@{k}", (5, 20), GEN_NONNEG + ("web2013-adhoc/synthetic-run",
                                                                              "gdeval/grade-5"),
           5e-6 + 1e-12, "gdeval.pl (ir_measures' provider) prints 5 decimals", "trec"),
          ("ERR", "ERR@{k}", (5, 20), GEN_NONNEG + ("web2013-adhoc/synthetic-run", "gdeval/grade-5"), 5e-6 + 1e-12,
           "gdeval.pl (ir_measures' provider) prints 5 decimals", "trec"),
          ("alpha_nDCG", "alpha_nDCG@{k}", (5, 20), DIVERSITY, 1e-12, F64, "diversity"),
          ("ERR_IA", "ERR_IA@{k}", (5, 20), DIVERSITY, 1e-12, F64, "diversity"),
          ("nERR_IA", "nERR_IA@{k}", (5, 20), DIVERSITY, 1e-12, F64, "diversity"),
      )],
    Entry("trec_eval.ndcg_p", R.vectors(NDCG_P_VECTORS), NDCG_P_SOURCE, NDCG_P_DATA, 5e-5, TE_PRINT + "; the ideal's (float) discount cast "
          "(m_ndcg_p.c) moves the value by < 1e-7"),
    # ------------------------------------------------------------------ pytrec_eval
    *[Entry(f"pytrec_eval.{m}", R.pytrec_eval(m), PYTE, REAL_TREC + GEN, 1e-12, F64)
      for m in ("ndcg", "ndcg_rel", "Rndcg")],
    Entry("pytrec_eval.ndcg_cut", R.pytrec_eval("ndcg_cut_{k}"), PYTE, REAL_TREC + GEN, 1e-12, F64,
          cutoffs=(5, 10, 20, 1000)),
    # ------------------------------------------------------------------ scikit-learn
    # dcg_score also on grades -2..4 with ties (a negative label is a negative gain); ndcg_score
    # raises on any negative label, and so do its presets (tests/test_properties.py)
    *[Entry(f"sklearn.{fn}{'_ignore_ties' if it else ''}", R.sklearn(fn, it), lambda: version("scikit-learn"),
            LTR + (GEN if fn == "dcg_score" else ()), 1e-12, F64, cutoffs=(None, 1, 5, 10), side="arrays")
      for fn in ("ndcg_score", "dcg_score") for it in (False, True)],
    # ------------------------------------------------------------------ ranx
    Entry("ranx.ndcg", R.ranx("ndcg"), lambda: version("ranx"), REAL_TREC[:1] + ("cast2021/bm25",) + GEN,
          1e-12, F64, cutoffs=(None, 10, 100)),
    Entry("ranx.ndcg_burges", R.ranx("ndcg_burges"), lambda: version("ranx"),
          REAL_TREC[:1] + ("cast2021/bm25",) + GEN, 1e-12, F64, cutoffs=(None, 10, 100)),
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
    # ------------------------------------------------------------------ Apache Spark
    Entry("spark_mllib.ndcgAt", R.spark_mllib(graded=False), SPARK_MLLIB, SPARK_DATA, 1e-12, F64 + SPARK_ORDER,
          cutoffs=(1, 5, 10)),
    Entry("spark_mllib.ndcgAt_graded", R.spark_mllib(graded=True), lambda: SPARK_MLLIB() + SPARK_JVM,
          SPARK_DATA_GRADED, 1e-12, F64 + SPARK_ORDER, cutoffs=(1, 5, 10)),
    Entry("spark_ml.ndcgAtK", R.spark_ml_ranking_evaluator, lambda: version("pyspark") + " RankingEvaluator",
          ("generated",), 1e-12, F64 + SPARK_ORDER, cutoffs=(3, 10)),
    Entry("recommenders.ndcg_at_k", R.by_case({"recommenders/test_vectors": _recommenders}), RECOMMENDERS_REF,
          ("recommenders/test_vectors",), 1e-5,
          "recommenders' test asserts 0.38172 (5 decimals, truncated; its TOL is 1e-4); per user: MLlib in "
          "float64", cutoffs=(3, 10)),
    # ------------------------------------------------------------------ TREC Web track programs
    Entry("gdeval.ndcg", R.gdeval(2), GDEVAL, ("web2013-adhoc/synthetic-run", "generated-nonneg", "gdeval/grade-5"),
          5e-6 + 1e-12, "gdeval.pl prints 5 decimals", cutoffs=(5, 20)),
    Entry("gdeval.err", R.gdeval(3), GDEVAL, ("web2013-adhoc/synthetic-run", "generated-nonneg", "gdeval/grade-5"),
          5e-6 + 1e-12,
          "gdeval.pl prints 5 decimals", cutoffs=(5, 20)),
    *[Entry(f"{prefix}.{m}", R.ndeval(col + "@{k}", traditional=trad), (lambda trad=trad: NDEVAL(trad)),
            DIVERSITY, 5e-7, "ndeval prints 6 decimals", cutoffs=(5, 10, 20), side="diversity",
            exclude=(_unjudged_topic, NDEVAL_UNJUDGED, True))
      for prefix, trad in (("ndeval", False), ("ndeval_traditional", True))
      for m, col in (("alpha_ndcg", "alpha-nDCG"), ("err_ia", "ERR-IA"), ("nerr_ia", "nERR-IA"))],
    *[Entry(f"pyndeval.{m}", R.pyndeval(col + "@{k}"), lambda: version("pyndeval"),
            DIVERSITY, 1e-12, F64,
            cutoffs=(5, 10, 20), side="diversity")
      for m, col in (("alpha_ndcg", "alpha-nDCG"), ("err_ia", "ERR-IA"), ("nerr_ia", "nERR-IA"))],
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
    Entry("sentence_transformers.ndcg", R.sentence_transformers,
          lambda: version("sentence-transformers") + " InformationRetrievalEvaluator.compute_metrics",
          LIB_TREC, 1e-12, F64, cutoffs=(1, 10)),
    *[Entry(f"beir.{m}", R.beir(ids), lambda: version("beir") + " EvaluateRetrieval.evaluate (pytrec_eval "
            + version("pytrec_eval-terrier").split()[1] + ")", LIB_TREC + ("robust03/InexpC2",), 5e-6 + 1e-12,
            "BEIR rounds each value to 5 decimals", cutoffs=(1, 10, 100))
      for m, ids in (("ndcg_cut", True), ("ndcg_cut_keep_ids", False))],
    # with negative ratings (generated: grades -2..4) binary gives every row gain 1 and exp
    # raises (numpy: integers to negative integer powers); raw, which the preset refuses
    # them for (an ideal DCG <= 0 is divided by), is compared on non-negative ratings only
    *[Entry(f"recommenders.{m}", R.recommenders(st), lambda: version("recommenders")
            + " evaluation.python_evaluation.ndcg_at_k", data, 1e-12, F64, cutoffs=(10,))
      for m, st, data in (("python_ndcg_at_k", "binary", LIB_TREC + GEN), ("python_ndcg_at_k_raw", "raw", LIB_TREC),
                          ("python_ndcg_at_k_exp", "exp", LIB_TREC + GEN))],
    Entry("pyserini.ndcg_cut", TE.trec_eval("ndcg_cut_{k}"), PYSERINI, PYSERINI_DATA, TE_BIN_TOL, TE_PRINT,
          cutoffs=(5, 10, 1000)),
    Entry("pyserini.ndcg_cut_remove_unjudged", R.on_judged_rows(TE.trec_eval("ndcg_cut_{k}")),
          PYSERINI + " on the run without its unjudged rows (what -remove-unjudged hands it)",
          PYSERINI_DATA, TE_BIN_TOL, TE_PRINT, cutoffs=(5, 10, 1000)),
    Entry("elasticsearch.dcg", R.vectors({("es/" + t + s, 10): {"q": v} for t, v in ES_DCG.items() for s in ("", "-tied")}),
          ES_TESTS, ES_DATA, 1e-12, "the Java test asserts 1e-14 relative; "
          "values below 14", cutoffs=(10,)),
    Entry("elasticsearch.ndcg", R.vectors({("es/" + t + s, 10): {"q": v / ES_IDEAL[t]} for t, v in ES_DCG.items()
                                           for s in ("", "-tied")}),
          ES_TESTS, ES_DATA, 1e-12, "DCG / ideal DCG as the Java test asserts them "
          "(1e-14 relative)", cutoffs=(10,)),
    Entry("opensearch.ndcg", R.vectors({(n, 10): {"q1": 0.27, "q2": 0.33} for n in OS_DATA}), OPENSEARCH,
          OS_DATA, 1e-12, "Math.round(x * 100) / 100.0: exact 2-decimal values",
          cutoffs=(10,)),
    Entry("opensearch.dcg", R.vectors({(n, 10): {"q1": 2.5, "q2": 0.33} for n in OS_DATA}), OPENSEARCH,
          OS_DATA, 1e-12, "Math.round(x * 100) / 100.0: exact 2-decimal values",
          cutoffs=(10,)),
    *[Entry(f"torchrec.{m}", R.torchrec(exp, draws=TORCHREC_DRAWS), TORCHREC, TORCHREC_DATA, 1e-6,
            "TorchRec's discounts are float32 (torch.log2 of int64 ranks, ndcg.py:205-207; gains and sums in "
            "float64); + 6 standard errors of the mean over the random orders", side="arrays",
            also=(Also(R.vectors({("torchrec/worked", None): v}),
                       "worked by hand from torchrec/metrics/ndcg.py v1.9.0 (:152-160, :205-207, :234-241, :261)",
                       1e-6, "float32 discounts"),))
      for m, v, exp in (("ndcg", {"s1": 1 - 2 / (2 + 1 / L2(3)), "s2": 1.0}, False),
                        ("ndcg_exp", {"s1": 1 - 2.5 / (3 + 1 / L2(3)), "s2": 1.0}, True))],
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
    # ------------------------------------------------------------------ papers
    Entry("burges2005.ndcg", R.gdeval(2, k_override=100000), GDEVAL,
          ("web2013-adhoc/synthetic-run", "generated-nonneg"), 5e-6 + 1e-12,
          "gdeval.pl (exp2 gain, 1/log2(r+1), judged IDCG, score then docno descending) at k = 100000 "
          "prints 5 decimals",
          exclude=(_no_positive, "gdeval.pl does not report a topic without a positive judgment", False)),
    Entry("jarvelin2002.ndcg", R.vectors({("jarvelin2002/example", k): {"G": v} for k, v in zip(
              range(1, 11), (1.0, 0.83, 0.87, 0.78, 0.71, 0.69, 0.73, 0.77, 0.83, 0.81))}),
          JK2002, ("jarvelin2002/example",), 5e-3 + 1e-12, "the paper prints 2 decimals",
          cutoffs=tuple(range(1, 11))),
]
