"""Entries of ``evalkit/libraries/trec_eval_measures.py``: trec_eval's measures beyond NDCG
(``trec_eval.*`` against the 10.0 binary, ``trec_eval9.*`` against 9.0.8, both built from
``../shared/references``) and their ir_measures names (against ir_measures); the rows and
their references are in ``cf_trec_measures.py``."""

from __future__ import annotations

import cf_trec_measures
from cf_base import Entry

ENTRIES: list[Entry] = cf_trec_measures.entries(Entry)
