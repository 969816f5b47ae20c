"""Conformance entries of the presets of ``evalkit/libraries/gdeval.py`` (gdeval.pl)."""

from __future__ import annotations

import cf_refs as R
from cf_base import Entry, GDEVAL


ENTRIES: list[Entry] = [
    # ------------------------------------------------------------------ TREC Web track programs
    Entry("gdeval.ndcg", R.gdeval(2), GDEVAL, ("web2013-adhoc/synthetic-run", "generated-nonneg", "gdeval/grade-5"),
          5e-6 + 1e-12, "gdeval.pl prints 5 decimals", cutoffs=(5, 20)),
    Entry("gdeval.err", R.gdeval(3), GDEVAL, ("web2013-adhoc/synthetic-run", "generated-nonneg", "gdeval/grade-5"),
          5e-6 + 1e-12,
          "gdeval.pl prints 5 decimals", cutoffs=(5, 20)),
]
