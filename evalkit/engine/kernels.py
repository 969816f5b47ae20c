"""Vectorised building blocks shared by metric kernels.

A metric kernel receives a :class:`MetricInput` covering every query of a run and
returns one value per query. The helpers here do segment sums, apply the cutoff and
the averaged-ties expectation, and compute ideal DCGs, all without Python loops over
queries or documents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .problem import RankedList, segment_ids


def segment_sum(values: np.ndarray, segment: np.ndarray, n_segments: int) -> np.ndarray:
    """Sum of ``values`` per segment id: ``float64`` ``(n_segments,)``."""
    if len(values) == 0:
        return np.zeros(n_segments, dtype=np.float64)
    return np.bincount(segment, weights=values, minlength=n_segments)


def segment_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum restarting at every segment start."""
    if len(values) == 0:
        return np.zeros(0, dtype=np.float64)
    total = np.cumsum(values, dtype=np.float64)
    starts = offsets[:-1]
    nonempty = starts < offsets[1:]
    base = np.zeros(len(offsets) - 1)
    base[nonempty] = total[starts[nonempty]] - values[starts[nonempty]]
    seg = segment_ids(offsets)
    return total - base[seg]


def apply_gain(gain: Callable[[np.ndarray], np.ndarray], grade: np.ndarray,
               min_grade: float = 0.0) -> np.ndarray:
    """Gains of ``grade`` (``NaN`` = unjudged): unjudged and negative grades give 0,
    as in trec_eval; so do grades below ``min_grade`` (ranx's ``rel_lvl``, whose
    ``clean_qrels`` drops judgments below the level); the others go through ``gain``."""
    out = np.zeros(len(grade), dtype=np.float64)
    ok = grade >= max(min_grade, 0.0)  # False for NaN
    if ok.any():
        out[ok] = gain(grade[ok])
    return out


def cutoff_mask(rank: np.ndarray, k: int | None) -> np.ndarray:
    return np.ones(len(rank), dtype=bool) if k is None else rank <= k


def ideal_dcg(
    gains: np.ndarray,
    offsets: np.ndarray,
    discount: Callable[[np.ndarray], np.ndarray],
    k: int | None,
) -> np.ndarray:
    """DCG of each segment's gains sorted in decreasing order, cut at ``k``.

    Gains below 0 are left out of the ideal ranking, as trec_eval leaves them out.

    :param gains: ``float64`` ``(m,)``, segment-contiguous.
    :param offsets: ``int64`` ``(q + 1,)``.
    :returns: ``float64`` ``(q,)``.
    """
    nq = len(offsets) - 1
    if len(gains) == 0:
        return np.zeros(nq)
    seg = segment_ids(offsets)
    order = np.lexsort((-gains, seg))
    g = np.maximum(gains[order], 0.0)
    rank = np.arange(len(g), dtype=np.int64) - offsets[seg] + 1
    keep = cutoff_mask(rank, k) & (g > 0)
    return segment_sum(g[keep] * discount(rank[keep]), seg[keep], nq)


@dataclass
class IdealContext:
    """What an IDCG strategy sees.

    :param ranked_gain: ``float64`` ``(n,)`` gains of the ranked documents (rank order).
    :param ranked: the :class:`RankedList`.
    :param judged_gain: ``float64`` ``(m,)`` gains of every judged document, by query.
    :param judged_offsets: ``int64`` ``(q + 1,)``.
    :param discount: bound discount function (ranks -> discounts).
    :param k: cutoff or ``None``.
    """

    ranked_gain: np.ndarray
    ranked: RankedList
    judged_gain: np.ndarray
    judged_offsets: np.ndarray
    discount: Callable[[np.ndarray], np.ndarray]
    k: int | None


@dataclass
class MetricInput:
    """Everything a metric kernel needs, for all queries of one run.

    :param ranked: the run sorted under the flavour's tie policy.
    :param judged_grade: ``float64`` ``(m,)`` grades of all judged documents by query;
        ``judged_offsets`` (``(q + 1,)``) delimits queries.
    :param k: cutoff or ``None``.
    :param gain: bound gain function or ``None`` if the metric does not use one.
    :param discount: bound discount function or ``None``.
    :param idcg: bound IDCG strategy (``IdealContext -> (q,)``) or ``None``.
    :param subtopics: for metrics with ``needs_subtopics``: a
        :class:`evalkit.engine.intents.IntentProblem`, else ``None``.
    """

    ranked: RankedList
    judged_grade: np.ndarray
    judged_offsets: np.ndarray
    k: int | None
    gain: Callable[[np.ndarray], np.ndarray] | None = None
    discount: Callable[[np.ndarray], np.ndarray] | None = None
    idcg: Callable[[IdealContext], np.ndarray] | None = None
    subtopics: object | None = None
    #: the flavour's ``min_grade`` convention: grades below it give gain 0
    min_grade: float = 0.0
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def n_queries(self) -> int:
        return self.ranked.n_queries

    # ------------------------------------------------------------- position helpers
    def in_cutoff(self) -> np.ndarray:
        """``bool`` ``(n,)``: position is within the cutoff."""
        return cutoff_mask(self.ranked.rank, self.k)

    def position_weights(self, weights: np.ndarray) -> np.ndarray:
        """Per-position weights with the cutoff applied and, under an averaged tie
        policy, replaced by their mean over each block of equal scores.

        For a metric ``sum_r w(r) * x_r`` this yields the expected value over all
        orderings of tied documents (McSherry & Najork, ECIR 2008).
        """
        w = np.where(self.in_cutoff(), weights, 0.0)
        if self.ranked.averaged and len(w):
            block = self.ranked.block
            nb = int(block[-1]) + 1
            total = np.bincount(block, weights=w, minlength=nb)
            size = np.bincount(block, minlength=nb)
            w = (total / size)[block]
        return w

    def per_query(self, values: np.ndarray) -> np.ndarray:
        """Sum position values per query: ``(q,)``."""
        return segment_sum(values, self.ranked.query, self.n_queries)

    # ------------------------------------------------------------- gain helpers
    def ranked_gain(self) -> np.ndarray:
        if "ranked_gain" not in self._cache:
            self._cache["ranked_gain"] = apply_gain(self.gain, self.ranked.grade, self.min_grade)
        return self._cache["ranked_gain"]

    def judged_gain(self) -> np.ndarray:
        if "judged_gain" not in self._cache:
            self._cache["judged_gain"] = apply_gain(self.gain, self.judged_grade, self.min_grade)
        return self._cache["judged_gain"]

    def dcg(self) -> np.ndarray:
        """DCG@k per query under the flavour's gain, discount and tie policy."""
        w = self.position_weights(self.discount(self.ranked.rank))
        return self.per_query(self.ranked_gain() * w)

    def ideal(self) -> np.ndarray:
        """IDCG@k per query under the flavour's IDCG strategy."""
        ctx = IdealContext(
            ranked_gain=self.ranked_gain(),
            ranked=self.ranked,
            judged_gain=self.judged_gain(),
            judged_offsets=self.judged_offsets,
            discount=self.discount,
            k=self.k,
        )
        return np.asarray(self.idcg(ctx), dtype=np.float64)

    # ------------------------------------------------------------- binary helpers
    def relevant(self, threshold: float) -> np.ndarray:
        """``float64`` ``(n,)``: 1 where the ranked document's grade >= threshold."""
        return (self.ranked.grade >= threshold).astype(np.float64)

    def num_relevant(self, threshold: float) -> np.ndarray:
        """Judged documents with grade >= threshold, per query: ``float64`` ``(q,)``."""
        rel = (self.judged_grade >= threshold).astype(np.float64)
        return segment_sum(rel, segment_ids(self.judged_offsets), self.n_queries)
