"""Conformance entries of the third-party plugin ``plugins/evalkit-search-relevance``
(presets ``rre.ndcg``, ``quepid.ndcg``, ``quepid.ndcg_cut``), beside the plugin's
datasets and references. ``test_conformance_plugins.py`` runs them with the plugin
installed, or loaded from its source folder through its entry point when it is not.

References (neither tool can run here):

* Rated Ranking Evaluator is Java on Maven Central, a registry the tests cannot reach.
  Its own unit-test vectors (``NDCGAtKTestCase.java``, every k-independent scenario,
  transcribed as data: ``RRE_VECTORS``) and a port of ``NDCGAtK.java`` lines 100-160 @
  e478aa7d4ad588e04f4d9d17c068f82cc445b63a in exact decimal arithmetic
  (:func:`rre_port`: ``BigDecimal.valueOf(double)`` is the decimal of the double's
  shortest representation, ``new BigDecimal(double)`` its exact binary value,
  ``divide(.., 2, FLOOR)`` the exact quotient rounded down to 2 decimals).
* Quepid's scorers are JavaScript, but neither Quepid nor its scorers are in the npm
  registry (``npm view quepid``: 404), the tests download nothing and nothing of its
  repository is committed: its own test's vector (``javascript_scorer_test.rb``
  lines 139-161, 0.64 after ``smart_round``) and a Python port of ``db/scorers/ndcg@10.js``
  and ``ndcg_cut@10.js`` @ f80322f3acb12cde69493b6bd9fda1ac08eb0d60 (:func:`quepid_port`).

Both tools take the hits in the order the search engine returns them; the ports read a
run's hits by score descending, tied scores in line order (what a search engine's
response lists), and the cited vectors are given twice, as ranked and with every score
tied in the cited order (``-tied``), as the suite does for Elasticsearch.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import cf_data as D
from cf_base import DATASETS, Also, Entry, _ranked_case
from cf_refs import NotApplicable, Ref, vectors

RRE_REF = ("SeaseLtd/rated-ranking-evaluator e478aa7d4ad5 rre-core NDCGAtK.java:100-160, ported in exact decimal "
           "arithmetic; its NDCGAtKTestCase.java values on the rre/ vectors (RRE, Java, is in no reachable registry)")
QUEPID_REF = ("o19s/quepid f80322f3acb1 db/scorers/{file}, ported; its javascript_scorer_test.rb:139-161 value "
              "(0.64, 2 decimals) on quepid/ndcg_test (Quepid is not in the npm registry)")
ORDER = "; hits: score descending, tied scores in line order (the engine's response order)"

# NDCGAtKTestCase.java / TestData.java (see tests/test_plugin_search_relevance.py)
_FIVE = ["1", "87", "99", "001", "992"]
_ANOTHER_FOUR = ["1dd", "aa87", "xyz99", "sdas001"]
_ANOTHER_FIVE = ["a1", "a87", "a99", "a001", "a992"]
_FIFTEEN = ["1", "87", "99", "001", "992", "15", "875", "995", "0015", "9925",
            "150", "8750", "9950", "00150", "99250"]
_VARIOUS = {d: 1 for d in _FIFTEEN}
for _skip, _g in ((1, 2), (2, 3), (3, 4), (4, 2), (5, 0)):
    _VARIOUS.update({d: _g for d in _FIFTEEN[_skip:]})

#: qid -> (judgments, hits, [NDCG@1..@10 asserted by the test]); one query per scenario,
#: the document ids prefixed by the qid so that each query has its own documents
_SCENARIOS = {
    # :111-145
    "at_top": ({d: 3 for d in _FIFTEEN[:10]}, _FIVE + [d + "_SUFFIX" for d in _FIFTEEN[:10]],
               [1, 1, 1, 1, 1, 0.89, 0.81, 0.74, 0.69, 0.64]),
    # :150-179
    "from_6th": ({d: 3 for d in _FIFTEEN[5:]}, _FIFTEEN, [0, 0, 0, 0, 0, 0.10, 0.18, 0.25, 0.30, 0.35]),
    # :184-218
    "various": (_VARIOUS, _FIFTEEN, [0.06, 0.14, 0.3, 0.57, 0.62, 0.62, 0.62, 0.62, 0.62, 0.62]),
    # :223-258 and :263-298
    "only_10th": ({d: 3 for d in _FIFTEEN[:10]}, _ANOTHER_FIVE + _ANOTHER_FOUR + [_FIFTEEN[9]], [0] * 9 + [0.06]),
    "only_10th_top": ({d: 4 for d in _FIFTEEN[:10]}, _ANOTHER_FIVE + _ANOTHER_FOUR + [_FIFTEEN[9]], [0] * 9 + [0.06]),
    # BaseTestCase.maximum(), one query per TestData.DOCUMENTS_SETS list
    **{f"max{len(s)}{s[0]}": ({d: 3 for d in s}, s, [1] * 10) for s in (_FIVE, _ANOTHER_FIVE, _FIFTEEN[:10], _FIFTEEN)},
}
RRE_QRELS = [(q, f"{q}/{d}", g) for q, (j, _, _) in _SCENARIOS.items() for d, g in j.items()]
RRE_RANKING = {q: [f"{q}/{d}" for d in hits] for q, (_, hits, _) in _SCENARIOS.items()}
RRE_CUTOFFS = tuple(range(1, 11))
RRE_VECTORS = {(name, k): {q: float(v[k - 1]) for q, (_, _, v) in _SCENARIOS.items()}
               for name in ("rre/NDCGAtKTestCase", "rre/NDCGAtKTestCase-tied") for k in RRE_CUTOFFS}

# javascript_scorer_test.rb:139-161: docs rated 0, 3, 1 in this order; best_docs 3, 1, 0
QUEPID_QRELS = [("q", "1", 0), ("q", "2", 3), ("q", "3", 1)]
QUEPID_RANKING = {"q": ["1", "2", "3"]}
QUEPID_VECTORS = {(name, 10): {"q": 0.64} for name in ("quepid/ndcg_test", "quepid/ndcg_test-tied")}

DATASETS.update({
    name + suffix: (lambda name=name, q=q, r=r, suffix=suffix: _ranked_case(name + suffix, q, r, bool(suffix)))
    for suffix in ("", "-tied")
    for name, (q, r) in {"rre/NDCGAtKTestCase": (RRE_QRELS, RRE_RANKING),
                         "quepid/ndcg_test": (QUEPID_QRELS, QUEPID_RANKING)}.items()
})


def _hits(case: D.Case) -> dict:
    """``{qid: [docno, ...]}``: the run's hits, score descending, ties in line order."""
    by_q: dict = {}
    for line, (q, d, s) in enumerate(case.run_rows):
        by_q.setdefault(q, []).append((-s, line, d))
    return {q: [d for _, _, d in sorted(rows)] for q, rows in by_q.items()}


def _judgments(case: D.Case) -> dict:
    out: dict = {}
    for q, d, g in case.qrels_rows:
        out.setdefault(q, {})[d] = g
    return out


# ----------------------------------------------------------------------------- RRE

def _numerator(grade) -> Decimal:
    """``BigDecimal.valueOf(Math.pow(2, g)).subtract(BigDecimal.ONE)`` (:105, :154):
    ``valueOf`` reads the double's shortest decimal (Java's ``Double.toString``, which
    Python's ``repr`` equals for the powers of two of integer grades)."""
    return Decimal(repr(math.pow(2.0, float(grade)))) - 1


def _floor2(x: Fraction) -> Fraction:
    return Fraction(math.floor(x * 100), 100)


def _den(rank: int) -> Fraction:
    """``new BigDecimal(Math.log(rank + 1) / Math.log(2))``: the double's exact value."""
    return Fraction(math.log(rank + 1) / math.log(2))


def rre_port(case: D.Case, k=None) -> Ref:
    """``NDCGAtK`` (:100-160) on every judged query of the case, in exact arithmetic; a
    query whose ideal DCG is 0 is refused as RRE throws there (``ArithmeticException: /
    by zero``, see the plugin's README)."""
    if k is None:
        raise NotApplicable("RRE's NDCG@k always has a cutoff")
    hits, judged = _hits(case), _judgments(case)
    per, refused = {}, {}
    for q, grades in judged.items():
        returned = hits.get(q, [])
        if not returned:  # totalHits == 0 with judgments (:117-118)
            per[q] = 0.0
            continue
        dcg = Fraction(0)
        for rank, d in enumerate(returned[:k], 1):
            if d in grades:
                num = Fraction(_numerator(grades[d]))
                dcg = num if rank == 1 else dcg + _floor2(num / _den(rank))
        window = sorted(grades.values(), reverse=True)[:min(len(grades), k)]
        ideal = sum((_floor2(Fraction(_numerator(g)) / _den(i)) for i, g in enumerate(window, 1)), Fraction(0))
        if ideal == 0:
            refused[q] = "ArithmeticException: / by zero (every judgment of the query has gain 0)"
            continue
        per[q] = float(_floor2(dcg / ideal))
    return Ref(per, refused=refused)


# ----------------------------------------------------------------------------- Quepid

def quepid_port(cut: bool):
    """``ndcg@10.js`` (``cut=False``) or ``ndcg_cut@10.js`` (``cut=True``) with ``k`` for
    its ``topK`` / ``k``, on every rated query of the case: ``bestDocs`` are the query's
    ratings sorted descending (the browser's ``ratingsStore.bestDocs``)."""
    def ref(case: D.Case, k=None) -> Ref:
        if k is None:
            raise NotApplicable("the scorers have a cutoff (// @Rank)")
        hits, judged = _hits(case), _judgments(case)

        def dcg(vals, n):  # DCG(vals, k), lines 19-27 / 17-25
            return sum((math.pow(2, vals[j]) - 1) / math.log2(j + 2) for j in range(n))

        per = {}
        for q, grades in judged.items():
            docs = hits.get(q, [])
            scores = [grades.get(docs[i], 0) if i < len(docs) and docs[i] in grades else 0 for i in range(k)]
            best = sorted(grades.values(), reverse=True)
            ideal = best[:k] if cut else list(best)  # topRatings(k) / eachDocWithRating
            ideal += [0] * (k - len(ideal))  # if (!ideal[i]) ideal[i] = missing_rating
            num = dcg(scores, k)
            den = dcg(ideal, k if cut else len(ideal))
            per[q] = num / den if den else 0.0
        return Ref(per)
    return ref


PORT_DATA = ("generated-nonneg", "trec_eval_test/results.test")
RRE_DATA = ("rre/NDCGAtKTestCase", "rre/NDCGAtKTestCase-tied") + PORT_DATA
QUEPID_DATA = ("quepid/ndcg_test", "quepid/ndcg_test-tied") + PORT_DATA
RRE_TEST = ("RRE's own NDCGAtKTestCase.java values (rre-core/src/test/java/io.sease.rre.core.domain.metrics.impl, "
            "e478aa7d4ad5), transcribed")
QUEPID_TEST = "Quepid's own test/services/javascript_scorer_test.rb:139-161 value (f80322f3acb1), transcribed"

ENTRIES = [
    Entry("rre.ndcg", rre_port, RRE_REF + ORDER, RRE_DATA, 1e-15,
          "per query equal: both floor to 2 decimals in exact steps (the port in rationals); the means of "
          "the equal values differ in the last bit (summation order)",
          cutoffs=RRE_CUTOFFS + (20,),
          also=(Also(vectors(RRE_VECTORS), RRE_TEST, 1e-15, "RRE asserts with delta 0; the mean in the last bit"),)),
    Entry("quepid.ndcg", quepid_port(cut=False), QUEPID_REF.format(file="ndcg@10.js") + ORDER, QUEPID_DATA, 1e-12,
          "both in float64; the discount divided (the scorer) or multiplied (evalkit)", cutoffs=(5, 10, 20),
          also=(Also(vectors(QUEPID_VECTORS), QUEPID_TEST, 5e-3, "Quepid's test asserts 2 decimals (0.64)"),)),
    Entry("quepid.ndcg_cut", quepid_port(cut=True), QUEPID_REF.format(file="ndcg_cut@10.js") + ORDER, QUEPID_DATA,
          1e-12, "both in float64; the discount divided (the scorer) or multiplied (evalkit)", cutoffs=(5, 10, 20),
          also=(Also(vectors(QUEPID_VECTORS), QUEPID_TEST + " (of ndcg@10; the same value here: 3 ratings < k)",
                     5e-3, "Quepid's test asserts 2 decimals (0.64)"),)),
]
