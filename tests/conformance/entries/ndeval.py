"""Conformance entries of the presets of ``evalkit/libraries/ndeval.py`` (ndeval, ndeval -traditional, pyndeval)."""

from __future__ import annotations

import cf_refs as R
from cf_refs import version
from cf_base import DIVERSITY, Entry, F64

NDEVAL = lambda trad: (f"ndeval {'-traditional ' if trad else '(default: rank column) '}(src/ndeval.c of the "  # noqa: E731
                       f"{version('pyndeval')} sdist from PyPI, built with cc)")


def _unjudged_topic(case, qid) -> bool:
    return not any(q == qid for q, _, _, _ in case.subtopic_rows)


NDEVAL_UNJUDGED = ("ndeval prints a row of zeros for a run topic absent from the qrels and leaves it out of "
                   "amean (ndeval.c applyQrels 1179-1208, outputMeasures 1392-1403: totals / actualTopics)")


ENTRIES: list[Entry] = [
    *[Entry(f"{prefix}.{m}", R.ndeval(col + "@{k}", traditional=trad), (lambda trad=trad: NDEVAL(trad)),
            DIVERSITY, 5e-7, "ndeval prints 6 decimals", cutoffs=(5, 10, 20), side="diversity",
            exclude=(_unjudged_topic, NDEVAL_UNJUDGED, True))
      for prefix, trad in (("ndeval", False), ("ndeval_traditional", True))
      for m, col in (("alpha_ndcg", "alpha-nDCG"), ("err_ia", "ERR-IA"), ("nerr_ia", "nERR-IA"))],
    *[Entry(f"pyndeval.{m}", R.pyndeval(col + "@{k}"), lambda: version("pyndeval"),
            DIVERSITY, 1e-12, F64,
            cutoffs=(5, 10, 20), side="diversity")
      for m, col in (("alpha_ndcg", "alpha-nDCG"), ("err_ia", "ERR-IA"), ("nerr_ia", "nERR-IA"))],
]
