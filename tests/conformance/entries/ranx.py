"""Conformance entries of the presets of ``evalkit/libraries/ranx.py`` (ranx)."""

from __future__ import annotations

import cf_refs as R
from cf_refs import version
from cf_base import Entry, F64, GEN, REAL_TREC


ENTRIES: list[Entry] = [
    # ------------------------------------------------------------------ ranx
    Entry("ranx.ndcg", R.ranx("ndcg"), lambda: version("ranx"), REAL_TREC[:1] + ("cast2021/bm25",) + GEN,
          1e-12, F64, cutoffs=(None, 10, 100)),
    Entry("ranx.ndcg_burges", R.ranx("ndcg_burges"), lambda: version("ranx"),
          REAL_TREC[:1] + ("cast2021/bm25",) + GEN, 1e-12, F64, cutoffs=(None, 10, 100)),
    # ranx's default call (make_comparable=False) refuses query sets that differ: the
    # generated data misses a qrels query (both refuse); cast2021's run has queries
    # without judgments, which ranx refuses and evalkit leaves out, so it is not a dataset here
    Entry("ranx.ndcg_sorted_once", R.ranx("ndcg", make_comparable=False), lambda: version("ranx"),
          REAL_TREC[:2] + GEN, 1e-12, F64, cutoffs=(None, 10, 100)),
    Entry("ranx.ndcg_burges_sorted_once", R.ranx("ndcg_burges", make_comparable=False), lambda: version("ranx"),
          REAL_TREC[:2] + GEN, 1e-12, F64, cutoffs=(None, 10, 100)),
]
