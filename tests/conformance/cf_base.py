"""What the conformance entries share: :class:`Entry` (one declarative entry per
preset: the reference, library and exact version, a program built from a released
source, or vectors from the reference's own tests; the datasets, the cutoffs, the
tolerance and its reason), :class:`Also`, the datasets (:data:`DATASETS`) and the
constants more than one library's entries use. The entries themselves live beside
their library: ``entries/<module>.py`` for ``evalkit/libraries/<module>.py``, collected
by ``cf_entries.py``.

Adding an entry for a new preset is a few lines: pick (or write, in ``cf_refs.py``) a
reference function ``ref(case, k) -> Ref``, then append to the ``ENTRIES`` of the
library's ``entries/<module>.py``::

    Entry("mylib.ndcg", ref=cf_refs.mylib("ndcg@{k}"), reference=version("mylib"),
          datasets=GRADED, cutoffs=(5, 10), tolerance=1e-12, reason="float64 on both sides")

``side`` says how evalkit is run: ``trec`` (``evaluate(qrels, run, ["preset@k"])``),
``arrays`` (``evalkit.arrays.score`` on the run's groups, unjudged = 0, as LTR libraries
are fed) or ``diversity`` (subtopic qrels).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import cf_data as D
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

# ----------------------------------------------------------------------------- shared by several libraries
GDEVAL = lambda: "gdeval.pl 1.2a as shipped in " + version("ir_measures") + ", run with perl"  # noqa: E731
F64 = "both sides compute in float64"
#: half a unit of trec_eval's 4th printed decimal, and float64 noise at that boundary
TE_BIN_TOL = 5e-5 + 1e-12
TE9_DATA = REAL_TREC + ("trec_eval_test/results.test", "web2013-adhoc/synthetic-run") + GEN
L2 = math.log2
#: CAsT 2021 and the generated edge cases (grades 0..4: the recommender libraries' ratings)
LIB_TREC = ("generated-nonneg", "cast2021/bm25")
