"""Conformance entries of the presets of ``evalkit/libraries/search_engines.py`` (Elasticsearch, OpenSearch)."""

from __future__ import annotations

import cf_refs as R
from cf_base import Entry

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


ENTRIES: list[Entry] = [
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
]
