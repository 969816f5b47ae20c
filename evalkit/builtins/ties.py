"""Built-in tie policies: how documents with equal scores are ordered.

Each returns a permutation of the run's rows, grouped by query, rank 1 first.
``np.lexsort`` sorts by its *last* key first.
"""

from __future__ import annotations

import numpy as np

from ..components import TiePolicy
from ..engine.problem import SortKeys
from ..hookspecs import hookimpl


def _filled(grade: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(grade) | (grade < 0), 0.0, grade)


def input_order(keys: SortKeys) -> np.ndarray:
    return np.lexsort((keys.line, keys.query))


def trec_eval(keys: SortKeys) -> np.ndarray:
    return np.lexsort((-keys.docno, -keys.score, keys.query))


def by_score(keys: SortKeys) -> np.ndarray:
    return np.lexsort((keys.line, -keys.score, keys.query))


def optimistic(keys: SortKeys) -> np.ndarray:
    return np.lexsort((keys.line, -_filled(keys.grade), -keys.score, keys.query))


def pessimistic(keys: SortKeys) -> np.ndarray:
    return np.lexsort((keys.line, _filled(keys.grade), -keys.score, keys.query))


@hookimpl
def evalkit_register_tie_policies(register):
    register(TiePolicy(
        name="trec_eval",
        fn=trec_eval,
        formula="sort by score descending, then docno descending (strcmp); rank column ignored",
        source="trec_eval form_res_rels.c comp_sim_docno",
        description="deterministic trec_eval ordering",
    ))
    register(TiePolicy(
        name="input",
        fn=input_order,
        formula="keep the order of the run's lines",
        source="ranked lists used as given (seed notes' examples)",
        description="the run's own order; scores are ignored",
    ))
    register(TiePolicy(
        name="average",
        fn=by_score,
        averaged=True,
        formula="E[metric] over all orderings of tied documents: discount averaged over each tie block",
        source="McSherry & Najork, ECIR 2008; scikit-learn ndcg_score(ignore_ties=False)",
        description="expected value under random tie-breaking",
    ))
    register(TiePolicy(
        name="optimistic",
        fn=optimistic,
        formula="ties: highest grade first",
        source="best case within ties (McSherry & Najork 2008)",
        description="upper bound over tie orderings",
    ))
    register(TiePolicy(
        name="pessimistic",
        fn=pessimistic,
        formula="ties: lowest grade first",
        source="worst case within ties (McSherry & Najork 2008)",
        description="lower bound over tie orderings",
    ))
