"""Conformance entries of the presets of ``evalkit/libraries/sklearn.py`` (scikit-learn)."""

from __future__ import annotations

import cf_refs as R
from cf_refs import version
from cf_base import Entry, F64, GEN, LTR


ENTRIES: list[Entry] = [
    # ------------------------------------------------------------------ scikit-learn
    # dcg_score also on grades -2..4 with ties (a negative label is a negative gain); ndcg_score
    # raises on any negative label, and so do its presets (tests/test_properties.py)
    *[Entry(f"sklearn.{fn}{'_ignore_ties' if it else ''}", R.sklearn(fn, it), lambda: version("scikit-learn"),
            LTR + (GEN if fn == "dcg_score" else ()), 1e-12, F64, cutoffs=(None, 1, 5, 10), side="arrays")
      for fn in ("ndcg_score", "dcg_score") for it in (False, True)],
]
