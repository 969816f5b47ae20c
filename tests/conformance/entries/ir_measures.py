"""Conformance entries of the presets of ``evalkit/libraries/ir_measures.py`` (ir_measures' default pipeline)."""

from __future__ import annotations

import cf_refs as R
from cf_refs import version
from cf_base import DIVERSITY, Entry, F64, GEN, GEN_NONNEG, REAL_TREC

IRM = lambda: version("ir_measures") + " (default providers), files read with read_trec_qrels/read_trec_run"  # noqa: E731,E501


ENTRIES: list[Entry] = [
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
]
