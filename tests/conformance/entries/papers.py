"""Conformance entries of the presets of ``evalkit/libraries/papers.py`` (Järvelin & Kekäläinen 2002, Burges et al. 2005)."""

from __future__ import annotations

import cf_refs as R
from cf_base import Entry, GDEVAL

JK2002 = ("Järvelin & Kekäläinen, Cumulated gain-based evaluation of IR techniques, ACM TOIS 20(4):422-446, "
          "2002: the running example G' = <3,2,3,0,0,1,2,2,3,0> against the ideal <3,3,3,2,2,2,1,1,1,1>, "
          "b = 2, normalised vector printed to 2 decimals")


def _no_positive(case, qid) -> bool:
    return not any(q == qid and g > 0 for q, _, g in case.qrels_rows)


ENTRIES: list[Entry] = [
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
