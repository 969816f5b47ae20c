"""Rank-biased precision for evalkit: a third-party plugin.

Registers, through the ``evalkit`` entry-point group (see ``pyproject.toml``):

* discount ``rbp(p=...)``: ``d(r) = p^(r-1)``, the geometric user model of
  Moffat & Zobel, "Rank-Biased Precision for Measurement of Retrieval
  Effectiveness", ACM TOIS 27(1), article 2, 2008. Composes with any metric that
  takes a discount: ``ndcg(discount=rbp(p=0.9))@10``.
* metric ``rbp(p=...)``: ``RBP@k = (1 - p) * sum_{r<=k} rel_r * p^(r-1)``.
* preset ``trec_eval.rbp``: trec_eval's ``rbp`` measure (``p = 0.9``, no cutoff).

Graded relevance is mapped to ``rel_r`` in [0, 1] as trec_eval's ``m_rbp.c`` does:
grades are the gains (grade ``g`` -> ``g``), and when the largest grade present in
the query's qrels exceeds 1 every gain is divided by that largest grade
(min-max normalisation with minimum 0, "per email conversation with Alistair
Moffat" in m_rbp.c). So ``rel_r = g_r / max(1, max judged grade of the query)``.
Unjudged documents, negative grades and grades below the flavour's ``min_grade``
convention give 0. For binary qrels this is the paper's ``r_i in {0, 1}``.

No Python loop over queries or documents: both kernels work on the arrays of a
whole run at once (see :class:`evalkit.kernel.MetricInput`).
"""

from __future__ import annotations

import numpy as np

from evalkit import hookimpl
from evalkit.components import Discount, Metric, MetricOutput, Param, Preset
from evalkit.kernel import MetricInput, segment_ids

__version__ = "0.1.0"

SOURCE = (
    "Moffat & Zobel, Rank-Biased Precision for Measurement of Retrieval Effectiveness, "
    "ACM TOIS 27(1), article 2, 2008"
)

#: Persistence: the probability that the user goes on from one rank to the next.
#: 0.8 follows the middle value of the paper's 0.5 / 0.8 / 0.95; trec_eval uses 0.9
#: (the ``trec_eval.rbp`` preset). Validated once, when a flavour is parsed.
P_PARAM = Param(
    "p",
    "float",
    0.8,
    "persistence: probability of going on to the next rank (0 < p < 1)",
    minimum=0.0,
    exclusive_minimum=True,
    maximum=1.0,
    exclusive_maximum=True,
)


def rbp_discount(ranks: np.ndarray, p: float) -> np.ndarray:
    """Geometric discount ``d(r) = p^(r-1)``.

    :param ranks: 1-based ``int64`` array of shape ``(n,)``.
    :param p: persistence, ``0 < p < 1`` (checked when the flavour is parsed).
    :returns: ``float64`` array of shape ``(n,)``; ``d(1) = 1``.
    """
    return np.power(p, ranks.astype(np.float64) - 1.0)


def graded_relevance(inp: MetricInput) -> np.ndarray:
    """``rel_r`` of every ranked position, trec_eval's ``m_rbp.c`` scaling.

    ``rel_r = g_r / max(1, G_q)`` where ``g_r`` is the position's grade (0 if unjudged,
    negative, or below the flavour's ``min_grade`` convention) and ``G_q`` the largest
    grade in query ``q``'s qrels.

    :returns: ``float64`` of shape ``(n,)`` with values in [0, 1].
    """
    ranked = inp.ranked
    grade = ranked.grade
    ok = grade >= max(inp.min_grade, 0.0)  # NaN compares False: unjudged -> 0
    g = np.where(ok, grade, 0.0)
    top = np.ones(inp.n_queries)  # max(1, G_q)
    if len(inp.judged_grade):
        np.maximum.at(top, segment_ids(inp.judged_offsets), inp.judged_grade)
    return g / top[ranked.query]


def rbp(inp: MetricInput, p: float) -> MetricOutput:
    """Rank-biased precision, ``RBP@k = (1 - p) * sum_{r<=k} rel_r * p^(r-1)``.

    :param inp: all queries of one run; ``inp.k`` is the cutoff (``None``: the whole
        ranking, as trec_eval's ``rbp``).
    :param p: persistence, ``0 < p < 1``.
    :returns: values ``float64`` ``(q,)`` in [0, 1); ``defined`` is all true (RBP
        needs no normalisation, so a query with no relevant document scores 0).

    Under the ``average`` tie policy the weights ``p^(r-1)`` are averaged over each
    block of tied scores (:meth:`MetricInput.position_weights`), which gives the
    expected RBP over all orderings of the tied documents.
    """
    weights = inp.position_weights(rbp_discount(inp.ranked.rank, p))
    values = (1.0 - p) * inp.per_query(graded_relevance(inp) * weights)
    return MetricOutput(values, np.ones(inp.n_queries, dtype=bool))


@hookimpl
def evalkit_register_discounts(register):
    register(Discount(
        name="rbp",
        fn=rbp_discount,
        params=(P_PARAM,),
        formula="d(r) = p^(r-1)",
        source=SOURCE,
        description="geometric (rank-biased) discount: the user goes on to the next rank with probability p",
    ))


@hookimpl
def evalkit_register_metrics(register):
    register(Metric(
        name="rbp",
        fn=rbp,
        params=(P_PARAM,),
        supports_averaged_ties=True,
        formula="RBP@k = (1 - p) * sum_{r<=k} rel_r * p^(r-1), rel_r = grade / max(1, max grade of the query)",
        source=SOURCE + "; graded scaling as trec_eval m_rbp.c",
        description="rank-biased precision: expected utility per document inspected by a user of persistence p",
    ))


@hookimpl
def evalkit_register_presets(register):
    register(Preset(
        name="trec_eval.rbp",
        spec="rbp(p=0.9,ties=trec_eval)",
        description="trec_eval 'rbp': p = 0.9, whole ranking, grades scaled by the query's largest grade",
        source="usnistgov/trec_eval m_rbp.c",
        native_name="rbp",
    ))
