"""The ``evalkit-search-relevance`` plugin (``plugins/evalkit-search-relevance``),
loaded in process from its source folder as an ``evalkit`` entry point
(``tests/test_plugin_install.py`` shows the real ``pip install`` of a plugin).

References:

* Rated Ranking Evaluator: the expected values of its own unit tests,
  ``rre-core/src/test/java/io.sease.rre.core.domain.metrics.impl/NDCGAtKTestCase.java``
  and ``rre-core/src/test/java/io/sease/rre/core/BaseTestCase.java`` (document ids from
  ``io/sease/rre/core/TestData.java``), SeaseLtd/rated-ranking-evaluator @
  e478aa7d4ad588e04f4d9d17c068f82cc445b63a, transcribed below as data: each scenario's
  judgments, the hits in the order the test feeds them, and the value asserted for
  each k = 1..10 (the test is parameterised over k, ``NDCGAtKTestCase.kRange``).
  RRE (Java, Maven Central) is in no registry reachable here, so it cannot run.
* Quepid: the expected value of its own test of the ``ndcg@10`` scorer
  (``test/services/javascript_scorer_test.rb`` lines 139-161, o19s/quepid @
  f80322f3acb12cde69493b6bd9fda1ac08eb0d60), rounded to 2 decimals there by
  ``lib/javascript_scorer.rb`` ``smart_round`` (lines 84-96). Quepid's scorers are
  JavaScript, but neither Quepid nor its scorers are published in the npm registry
  (``npm view quepid``: E404; o19s's one package there, ``splainer-search`` 2.36.4,
  holds no scorer), tests may not download and nothing fetched from Quepid's
  repository is committed, so node has no Quepid file to run: the conformance suite
  (``tests/conformance/cf_search_relevance.py``) holds a Python port of the cited
  scorer lines as the oracle.
"""

from __future__ import annotations

import importlib.metadata as md
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import evalkit
import evalkit.registry as registry_mod
from evalkit import FlavourError, Qrels, Run, evaluate, parse_flavour

PLUGIN_DIR = Path(__file__).resolve().parent.parent / "plugins" / "evalkit-search-relevance"


@pytest.fixture(scope="module")
def reg():
    mp = pytest.MonkeyPatch()
    mp.syspath_prepend(str(PLUGIN_DIR))
    mp.setattr(registry_mod, "_entry_points",
               lambda: [md.EntryPoint(name="search_relevance", value="evalkit_search_relevance", group="evalkit")])
    try:
        yield evalkit.build_registry(disable_plugins=False, strict=True)
    finally:
        mp.undo()


# ----------------------------------------------------------------------------- RRE's unit tests as data

# TestData.java lines 24-28
FIVE = ["1", "87", "99", "001", "992"]
ANOTHER_FOUR = ["1dd", "aa87", "xyz99", "sdas001"]
ANOTHER_FIVE = ["a1", "a87", "a99", "a001", "a992"]
TEN = ["1", "87", "99", "001", "992", "15", "875", "995", "0015", "9925"]
FIFTEEN = TEN + ["150", "8750", "9950", "00150", "99250"]


def _later_wins(*assignments):
    """The judgments after the test's successive ``judgements.set(docid, ...)`` calls
    (an ObjectNode: a later set replaces the earlier value)."""
    out: dict = {}
    for docs, grade in assignments:
        out.update({d: grade for d in docs})
    return out


#: scenario -> (judgments {docid: gain}, hits in order, {k: expected NDCG@k})
RRE_SCENARIOS = {
    # NDCGAtKTestCase.java:111-145 _10_judgments_15_search_results_5_relevant_results_at_top
    "5_relevant_at_top": (
        {d: 3 for d in FIFTEEN[:10]}, FIVE + [d + "_SUFFIX" for d in TEN],
        dict(zip(range(1, 11), [1, 1, 1, 1, 1, 0.89, 0.81, 0.74, 0.69, 0.64]))),
    # :150-179 _10_judgments_15_search_results_5_relevant_results_from_5th_to_10th
    "relevant_from_6th": (
        {d: 3 for d in FIFTEEN[5:]}, FIFTEEN,
        dict(zip(range(1, 11), [0.0, 0.0, 0.0, 0.0, 0.0, 0.10, 0.18, 0.25, 0.30, 0.35]))),
    # :184-218 _10_judgments_15_search_results_5_relevant_results_various_degree
    "various_degree": (
        _later_wins((FIFTEEN, 1), (FIFTEEN[1:], 2), (FIFTEEN[2:], 3), (FIFTEEN[3:], 4), (FIFTEEN[4:], 2),
                    (FIFTEEN[5:], 0)),
        FIFTEEN,
        dict(zip(range(1, 11), [0.06, 0.14, 0.3, 0.57, 0.62, 0.62, 0.62, 0.62, 0.62, 0.62]))),
    # :223-258 _10_judgments_15_search_only_results_10th_relevant_result
    "only_10th_relevant": (
        {d: 3 for d in FIFTEEN[:10]}, ANOTHER_FIVE + ANOTHER_FOUR + [FIFTEEN[9]],
        dict(zip(range(1, 11), [0.0] * 9 + [0.06]))),
    # :263-298 _10_judgments_15_search_only_results_10th_relevant_result_topscore
    "only_10th_relevant_topscore": (
        {d: 4 for d in FIFTEEN[:10]}, ANOTHER_FIVE + ANOTHER_FOUR + [FIFTEEN[9]],
        dict(zip(range(1, 11), [0.0] * 9 + [0.06]))),
    # BaseTestCase.java maximum() (via NDCGAtKTestCase.maximumNdcg, :83-86): every document
    # of each of TestData.DOCUMENTS_SETS (:30-35) judged 3, hits in that order: 1 for every k
    **{f"maximum_{len(s)}_{s[0]}": ({d: 3 for d in s}, s, {k: 1 for k in range(1, 11)})
       for s in (FIVE, ANOTHER_FIVE, TEN, FIFTEEN)},
}


def _scenario(judgments: dict, hits: list, tied: bool = False):
    qrels = Qrels.from_rows([("q", d, g) for d, g in judgments.items()])
    run = Run.from_rows([("q", d, 1.0 if tied else float(len(hits) - i)) for i, d in enumerate(hits)], name="rre")
    return qrels, run


@pytest.mark.parametrize("tied", [False, True], ids=["scores", "all-tied-in-hit-order"])
@pytest.mark.parametrize("scenario", sorted(RRE_SCENARIOS))
def test_rre_unit_test_vectors(reg, scenario, tied):
    """Every value RRE's NDCGAtKTestCase asserts, k = 1..10, exactly (RRE compares with
    delta 0): the hits scored in their order, and again all tied (RRE takes the hits in
    the order the search engine returns them; ``ties=stable`` keeps line order)."""
    judgments, hits, expected = RRE_SCENARIOS[scenario]
    qrels, run = _scenario(judgments, hits, tied)
    got = evaluate(qrels, run, [f"rre.ndcg@{k}" for k in range(1, 11)], registry=reg).means()[0]
    assert got.tolist() == [float(expected[k]) for k in range(1, 11)]


def test_rre_k_dependent_judgments(reg):
    """NDCGAtKTestCase.java:91-106 _10_judgments_15_search_results_10_relevant_results_at_top:
    the first k of FIFTEEN_SEARCH_HITS judged 3 (k = the test's parameter), all 15 hits
    returned: 1.0 (delta 0.001)."""
    for k in range(1, 11):
        qrels, run = _scenario({d: 3 for d in FIFTEEN[:k]}, FIFTEEN)
        assert evaluate(qrels, run, [f"rre.ndcg@{k}"], registry=reg).mean(0, 0) == 1.0


def test_rre_by_hand(reg):
    """The quirks, on values worked out from NDCGAtK.java's lines: an unjudged hit adds
    nothing (:102-103) but takes its rank; DCG terms after rank 1 are floored
    (3 / log2(3) = 1.8928... -> 1.89), so is the quotient (1.89 / 3.00 = 0.63); the
    rank-1 DCG term is exact while the ideal's is floored: a grade of 1.5 alone gives
    DCG 2^1.5 - 1 = 1.8284... over IDCG 1.82, floored to 1.00."""
    qrels = Qrels.from_rows([("a", "x", 2), ("b", "y", 2), ("b", "z", 1)])
    run = Run.from_rows([("a", "u", 2.0), ("a", "x", 1.0),
                         ("b", "y", 2.0), ("b", "z", 1.0)], name="r")
    res = evaluate(qrels, run, ["rre.ndcg@10"], registry=reg)
    assert res.per_query(0, 0) == {"a": 0.63, "b": 1.0}
    # fractional grades (RRE's gains are decimals) through evalkit.arrays
    import evalkit.arrays

    got = evalkit.arrays.score([[1.5, np.nan]], [[2.0, 1.0]], flavour="rre.ndcg@10", registry=reg)
    assert got.tolist() == [1.0]  # 1.8284... / 1.82 = 1.0046 -> 1.00
    # b: DCG 3 + floor2(1 / log2 3 = 0.6309) = 3.63 = IDCG
    # decimals=3 keeps one more digit: a: 1.892 / 3.000 = 0.6306... -> 0.630
    res3 = evaluate(qrels, run, ["rre_ndcg(gain=exp2,decimals=3,ties=stable)@10"], registry=reg)
    assert res3.per_query(0, 0)["a"] == 0.630


def test_rre_query_without_gain(reg):
    """Judgments that all have gain 0: RRE divides by a scale-2 zero and throws
    ArithmeticException ("/ by zero"); the preset scores RRE's value for a query without
    judgments, 0 (NDCGAtK.java:122-123), and ``empty=error`` refuses instead."""
    qrels = Qrels.from_rows([("q", "a", 0), ("q", "b", 0), ("p", "c", 1)])
    run = Run.from_rows([("q", "a", 1.0), ("p", "c", 1.0)], name="r")
    assert evaluate(qrels, run, ["rre.ndcg@10"], registry=reg).per_query(0, 0) == {"q": 0.0, "p": 1.0}
    with pytest.raises(evalkit.EvaluationError):
        evaluate(qrels, run, ["rre_ndcg(gain=exp2,ties=stable,empty=error)@10"], registry=reg)
    # a judged query the run does not return: totalHits == 0 with judgments -> 0 (:117-118)
    qrels = Qrels.from_rows([("q", "a", 2), ("p", "c", 1)])
    run = Run.from_rows([("p", "c", 1.0)], name="r")
    assert evaluate(qrels, run, ["rre.ndcg@10"], registry=reg).per_query(0, 0) == {"q": 0.0, "p": 1.0}


def test_rre_floored_terms_are_bigdecimal_exact(reg):
    """``floor(100 * g / den)`` in float64 against the exact quotient that
    ``numerator.divide(new BigDecimal(den), 2, RoundingMode.FLOOR)`` rounds
    (``new BigDecimal(double)`` is the double's exact binary value, as ``Fraction``),
    for gains 2^g - 1, g = 0..20, at every rank 2..3000."""
    from evalkit_search_relevance import floored_terms, rre_log2

    g = np.repeat(np.arange(21), 2999)
    rank = np.tile(np.arange(2, 3001), 21)
    gain = 2.0 ** g - 1
    got = floored_terms(gain, rank)
    den = rre_log2(rank)
    exact = [math.floor(Fraction(int(n)) * 100 / Fraction(float(d))) for n, d in zip(gain, den)]
    assert got.tolist() == exact


# ----------------------------------------------------------------------------- Quepid

def test_quepid_spec_vector(reg):
    """javascript_scorer_test.rb:139-161: hits rated 0, 3, 1; ratings 3, 1, 0; the
    scorer's value rounded to 2 decimals (smart_round) is 0.64. The value itself:
    (7 / log2 3 + 1 / 2) / (7 + 1 / log2 3)."""
    qrels = Qrels.from_rows([("q", "1", 0), ("q", "2", 3), ("q", "3", 1)])
    run = Run.from_rows([("q", "1", 3.0), ("q", "2", 2.0), ("q", "3", 1.0)], name="r")
    res = evaluate(qrels, run, ["quepid.ndcg@10", "quepid.ndcg_cut@10"], registry=reg)
    exact = (7 / math.log2(3) + 1 / 2) / (7 + 1 / math.log2(3))
    for value in res.means()[0]:
        assert round(float(value), 2) == 0.64
        assert value == pytest.approx(exact, abs=1e-15)


def test_quepid_ideal_over_all_ratings_against_cut(reg):
    """12 rated documents, 10 returned: ndcg@10's ideal sums all 12 ratings
    (ndcg@10.js:30 ``DCG(ideal, ideal.length)``), ndcg_cut@10's the first 10 (:29 of
    ndcg_cut@10.js); an unrated hit gains 0 (``missing_rating``)."""
    ratings = [3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 3, 3]
    qrels = Qrels.from_rows([("q", f"d{i}", g) for i, g in enumerate(ratings)])
    hits = [f"d{i}" for i in range(9)] + ["unrated"]
    run = Run.from_rows([("q", d, float(10 - i)) for i, d in enumerate(hits)], name="r")
    res = evaluate(qrels, run, ["quepid.ndcg@10", "quepid.ndcg_cut@10"], registry=reg)
    dcg = sum((2 ** ratings[i] - 1) / math.log2(i + 2) for i in range(9))
    ideal = sorted(ratings, reverse=True)
    all_ = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    cut = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(ideal[:10]))
    assert res.means()[0].tolist() == pytest.approx([dcg / all_, dcg / cut], abs=1e-15)
    assert res.means()[0, 0] < res.means()[0, 1]


def test_presets_and_components_registered(reg):
    origin = reg.plugins["search_relevance"]
    for family, name in [("metric", "rre_ndcg"), ("idcg", "judged_all"), ("preset", "rre.ndcg"),
                         ("preset", "quepid.ndcg"), ("preset", "quepid.ndcg_cut")]:
        assert reg.get(family, name).origin == origin
    for text in ["rre.ndcg@10", "quepid.ndcg@5", "quepid.ndcg_cut@10"]:
        fl = evalkit.presets.preset_flavour(text, registry=reg)
        assert parse_flavour(str(fl), reg) == fl
    with pytest.raises(FlavourError, match="parameter 'decimals'"):
        parse_flavour("rre_ndcg(decimals=-1)@10", reg)
