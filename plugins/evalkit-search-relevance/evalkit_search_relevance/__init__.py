"""The NDCGs of two search-relevance tools, for evalkit: a third-party plugin.

Registers, through the ``evalkit`` entry-point group (``pyproject.toml``), each
tool's quirk as a component of an existing family and the tools' measures as presets:

* metric ``rre_ndcg(decimals=2)`` and preset ``rre.ndcg@k``: Rated Ranking Evaluator's
  ``NDCGAtK`` (SeaseLtd/rated-ranking-evaluator ``rre-core/src/main/java/io/sease/rre/
  core/domain/metrics/impl/NDCGAtK.java`` @ e478aa7d4ad588e04f4d9d17c068f82cc445b63a).
  Gain ``2^g - 1`` (:105, :154); every DCG term but rank 1's and every ideal term
  floored to 2 decimals, the quotient too (``BigDecimal.divide(.., 2,
  RoundingMode.FLOOR)``, :110, :126, :156).
* IDCG strategy ``judged_all`` and presets ``quepid.ndcg@k`` / ``quepid.ndcg_cut@k``:
  Quepid's ``ndcg@10`` scorer takes the ideal DCG over *every* rated document, not cut
  at k (o19s/quepid ``db/scorers/ndcg@10.js`` @ f80322f3acb12cde69493b6bd9fda1ac08eb0d60,
  lines 4-8 and 30, since commit 0e92b094 "Use *all* rated documents for ideal DCG
  computation", 2025-02-25); ``db/scorers/ndcg_cut@10.js`` (same commit, lines 4, 29;
  added by a76f8256, 2025-06-01, "to provide the pre 8.1 behavior") cuts the ideal at k,
  which is evalkit's built-in ``idcg=judged``.

No Python loop over queries or documents: the kernels work on the arrays of a whole
run at once (:class:`evalkit.kernel.MetricInput`, :class:`evalkit.kernel.IdealContext`).
"""

from __future__ import annotations

import numpy as np

from evalkit import hookimpl
from evalkit.components import IdcgStrategy, Metric, MetricOutput, Param, Preset
from evalkit.kernel import IdealContext, MetricInput, ideal_dcg, segment_ids, segment_sum

__version__ = "0.1.0"

RRE_COMMIT = "e478aa7d4ad588e04f4d9d17c068f82cc445b63a"
RRE_FILE = "SeaseLtd/rated-ranking-evaluator rre-core/src/main/java/io/sease/rre/core/domain/metrics/impl/NDCGAtK.java"
RRE_SOURCE = f"{RRE_FILE} @ {RRE_COMMIT[:12]}"
QUEPID_COMMIT = "f80322f3acb12cde69493b6bd9fda1ac08eb0d60"
QUEPID_SOURCE = f"o19s/quepid db/scorers/ndcg@10.js @ {QUEPID_COMMIT[:12]}"
QUEPID_CUT_SOURCE = f"o19s/quepid db/scorers/ndcg_cut@10.js @ {QUEPID_COMMIT[:12]}"

DECIMALS = Param("decimals", "int", 2, "decimals kept by each floored term and by the quotient "
                 "(RRE: BigDecimal scale 2, RoundingMode.FLOOR)", minimum=0, maximum=8)


def rre_log2(rank: np.ndarray) -> np.ndarray:
    """RRE's denominator ``Math.log(rank + 1) / Math.log(2)`` (NDCGAtK.java:109, :155).

    :param rank: 1-based ranks, ``int64`` ``(n,)``.
    :returns: ``float64`` ``(n,)``. Computed as Java does (natural logarithms divided,
        not ``log2``, which differs in the last bit for about a third of the ranks):
        the same double as OpenJDK 17's for every rank 1..100000 except 19142 (one
        unit in the last place).
    """
    return np.log(np.asarray(rank, dtype=np.float64) + 1.0) / np.log(2.0)


def floored_terms(gain: np.ndarray, rank: np.ndarray, decimals: int = 2) -> np.ndarray:
    """``floor(gain / rre_log2(rank) * 10^decimals)``: RRE's DCG term
    ``numerator.divide(new BigDecimal(den), 2, RoundingMode.FLOOR)`` in units of
    ``10^-decimals`` (NDCGAtK.java:110, :156).

    :param gain: ``float64`` ``(n,)``, ``>= 0``.
    :param rank: 1-based ``int64`` ``(n,)``.
    :returns: ``float64`` ``(n,)`` of whole numbers. For integer grades 0..20 (gains
        ``2^g - 1``) at ranks 2..3000 every term equals ``BigDecimal``'s (checked against
        OpenJDK 17 when this was written): ``100 * gain`` is exact and one correctly
        rounded division lands on the floor's side of every boundary there.
    """
    return np.floor(gain * 10.0 ** decimals / rre_log2(rank))


def rre_ndcg(inp: MetricInput, decimals: int = 2) -> MetricOutput:
    """Rated Ranking Evaluator's NDCG@k.

    ``DCG = g_1 + sum_{2 <= r <= k, judged} floor_2(g_r / den(r))`` (the rank-1 term is
    the exact gain, NDCGAtK.java:106-107; the others floored, :108-110);
    ``IDCG = sum_{i <= min(m, k)} floor_2(g_(i) / den(i))`` over the query's ``m``
    judged documents sorted by gain (the rank-1 term floored too, :131-159);
    ``NDCG = floor_2(DCG / IDCG)`` (:126), where ``floor_2`` keeps 2 decimals (FLOOR)
    and ``den(r) = ln(r + 1) / ln 2``. Unjudged documents add nothing (``judgment(id)``
    is empty, :102-103).

    :param inp: every query of one run; the flavour's gain gives ``g`` (``exp2``:
        ``2^grade - 1``, :105); ``inp.k`` the cutoff (``None``: the whole ranking).
    :param decimals: decimals kept (RRE: 2).
    :returns: values ``float64`` ``(q,)``, multiples of ``10^-decimals``; ``defined`` is
        ``False`` where the floored IDCG is 0 (no judged document with a gain of at least
        ``10^-decimals``): RRE divides by that zero and throws ``ArithmeticException: /
        by zero`` (its ``idealDcg.equals(BigDecimal.ZERO)`` test at :122 compares a
        scale-2 ``0.00`` with scale-0 ``ZERO``, which is false); the flavour's ``empty``
        convention decides (``rre.ndcg``: 0, RRE's value for a query with no judgment,
        :122-123).
    """
    scale = 10.0 ** decimals
    ranked = inp.ranked
    gain = inp.ranked_gain()
    rank = ranked.rank
    term = np.where(rank == 1, gain * scale, floored_terms(gain, rank, decimals))
    dcg = inp.per_query(np.where(inp.in_cutoff(), term, 0.0))

    judged = inp.judged_gain()
    offsets = inp.judged_offsets
    seg = segment_ids(offsets)
    order = np.lexsort((-judged, seg))  # by query (already grouped), gain descending
    place = np.arange(len(judged), dtype=np.int64) - offsets[seg] + 1
    ideal_terms = floored_terms(judged[order], place, decimals)
    if inp.k is not None:
        ideal_terms = np.where(place <= inp.k, ideal_terms, 0.0)
    ideal = segment_sum(ideal_terms, seg, inp.n_queries)

    defined = ideal > 0
    values = np.zeros(inp.n_queries)
    values[defined] = np.floor(dcg[defined] * scale / ideal[defined]) / scale
    return MetricOutput(values, defined)


def judged_all(ctx: IdealContext) -> np.ndarray:
    """IDCG over every judged document of the query sorted by gain, **not cut at k**:
    Quepid's ``ndcg@10`` collects every rated document's rating (``eachDocWithRating``,
    ndcg@10.js:5-7; Quepid's ``bestDocs``: all ratings of the query), sorts them
    (:8) and sums ``DCG(ideal, ideal.length)`` (:30), while the run's DCG stops at
    ``topK`` (:29).

    :param ctx: the ideal-DCG context; ``ctx.k`` is ignored.
    :returns: ``float64`` ``(q,)``, ``>= 0``.
    """
    return ideal_dcg(ctx.judged_gain, ctx.judged_offsets, ctx.discount, None, cache=ctx.cache)


@hookimpl
def evalkit_register_idcg_strategies(register):
    register(IdcgStrategy(
        name="judged_all",
        fn=judged_all,
        formula="IDCG = DCG of all judged documents of the query sorted by gain, not cut at k",
        source=QUEPID_SOURCE + " lines 4-8, 30 (since 0e92b094, 2025-02-25)",
        description="ideal ranking of every judged document, whatever the cutoff (the run's DCG is cut at k)",
    ))


@hookimpl
def evalkit_register_metrics(register):
    register(Metric(
        name="rre_ndcg",
        fn=rre_ndcg,
        params=(DECIMALS,),
        uses=frozenset({"gain"}),
        formula="NDCG@k = floor2((g_1 + sum_{2<=r<=k} floor2(g_r / log2(r+1))) / sum_{i<=min(m,k)} "
                "floor2(g_(i) / log2(i+1))), floor2 = keep 2 decimals rounding down",
        source=RRE_SOURCE + " lines 100-160",
        description="Rated Ranking Evaluator's NDCG@k: terms and quotient floored to 2 decimals, "
                    "the rank-1 term exact",
    ))


@hookimpl
def evalkit_register_presets(register):
    register(Preset(
        name="rre.ndcg",
        spec="rre_ndcg(gain=exp2,ties=stable,missing=zero,empty=zero)",
        description=("Rated Ranking Evaluator NDCG@k: gain 2^g - 1, DCG terms after rank 1, ideal terms and the "
                     "quotient floored to 2 decimals; a judged query without results scores 0; hits in the run's "
                     "order (score descending, tied scores in line order). A query whose judgments all have gain "
                     "0 scores 0 here, where RRE throws ArithmeticException"),
        source=RRE_SOURCE,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="NDCG@{k}",
    ))
    register(Preset(
        name="quepid.ndcg",
        spec="ndcg(gain=exp2,discount=log2,idcg=judged_all,ties=stable,missing=zero,empty=zero)",
        description=("Quepid's ndcg@10 scorer at any k: gain 2^rating - 1, log2(r + 1), the ideal DCG over every "
                     "rated document (not cut at k); unrated results gain 0; no relevant rating scores 0"),
        source=QUEPID_SOURCE,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="ndcg@{k}",
    ))
    register(Preset(
        name="quepid.ndcg_cut",
        spec="ndcg(gain=exp2,discount=log2,idcg=judged,ties=stable,missing=zero,empty=zero)",
        description=("Quepid's ndcg_cut@10 scorer at any k (the ndcg@10 of Quepid before 8.1): the ideal DCG of "
                     "the k best ratings"),
        source=QUEPID_CUT_SOURCE,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="ndcg_cut@{k}",
    ))
