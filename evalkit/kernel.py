"""The kernels' types and helpers: what a metric, gain, discount, IDCG-strategy or
tie-policy function receives, and the vectorised segment helpers it may use.

The plugin contract itself is the small module :mod:`evalkit.plugin` (the
decorators, :data:`~evalkit.plugin.hookimpl` and the input and output types, which
it re-exports from here). A plugin never imports ``evalkit.engine``: what is listed
in ``__all__`` here is stable too, the engine's modules are not.

Kernel signatures, by component family (``n`` = ranked positions of a run over all
queries, ``m`` = judged documents, ``q`` = evaluated queries; see
:mod:`evalkit.components` for the array conventions):

* gain: ``fn(grades: float64 (n,), **params) -> float64 (n,)``;
* discount: ``fn(ranks: int64 (n,), 1-based, **params) -> float64 (n,)``;
* IDCG strategy: ``fn(ctx: IdealContext, **params) -> float64 (q,)``;
* tie policy: ``fn(keys: SortKeys, **params) -> int64 (n,)`` permutation;
* metric: ``fn(inp: MetricInput, **params) -> MetricOutput``.

Inputs and outputs: :class:`MetricInput`, :class:`MetricOutput`,
:class:`IdealContext`, :class:`RankedList` (read its ``offsets``, ``query``,
``rank``, ``grade``, ``docno``, ``block``, ``averaged``, ``n_queries``, ``length``,
``rank_at``, ``grade_at``), :class:`SortKeys` (``query``, ``score``, ``docno``,
``line``, ``grade``, ``rank`` (policies that ``needs_rank``), ``grade_at``, ``docno_key``,
``docno_sorter``, ``query_order``, ``score_order``, ``rank_order``,
``refined_score_order``, ``refine_ties``). Segment helpers (vectorised over queries): :func:`segment_sum`,
:func:`segment_cumsum`, :func:`segment_ids`, :func:`offsets_from_sorted`,
:func:`concat_ranges`, :func:`ideal_dcg`, :func:`apply_gain`, :func:`cutoff_mask`.
Subtopic (intent-aware) metrics: :class:`IntentProblem` (``MetricInput.subtopics``)
and :func:`intent_aware`. String columns to integer codes: :func:`factorize`.
Declaring a kernel's metadata: the decorators :func:`gain`, :func:`discount`,
:func:`idcg_strategy`, :func:`tie_policy`, :func:`metric` and :func:`declared`.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import field
from typing import TYPE_CHECKING, Any, Callable, Iterator

import numpy as np

from ._record import ByFields, lean_dataclass
from .columnar import concat_ranges, offsets_from_sorted, segment_cumsum, segment_ids, segment_sum
from .components import MetricOutput, declare, declared, discount, gain, idcg_strategy, metric, tie_policy
from .engine.factorize import factorize
from .engine.ranking import RankedList, SortKeys

if TYPE_CHECKING:  # pragma: no cover - imported on first use below (a subtopic metric; a trace)
    from ._ideal_ranking import IdealRanking
    from .engine.intents import IntentProblem

__all__ = [
    "IdealContext",
    "IntentProblem",
    "MetricInput",
    "MetricOutput",
    "RankedList",
    "SortKeys",
    "apply_gain",
    "gain_floor",
    "concat_ranges",
    "cutoff_mask",
    "declare",
    "declared",
    "discount",
    "factorize",
    "gain",
    "idcg_strategy",
    "ideal_dcg",
    "intent_aware",
    "listed_dcg",
    "metric",
    "offsets_from_sorted",
    "segment_cumsum",
    "segment_ids",
    "segment_sum",
    "tie_policy",
]


def gain_floor(min_grade: float = 0.0, negative: str = "zero") -> float:
    """The lowest grade that goes through the gain function; grades below it (and
    unjudged ``NaN`` grades) give gain 0. ``max(min_grade, 0)`` (negative grades
    are judged non-relevant), or ``-inf`` under the ``negative=gain`` convention with
    ``min_grade <= 0`` (a negative grade is a negative gain)."""
    if negative == "gain" and min_grade <= 0:
        return -np.inf
    return max(min_grade, 0.0)


def apply_gain(gain: Callable[[np.ndarray], np.ndarray], grade: np.ndarray,
               min_grade: float = 0.0, negative: str = "zero") -> np.ndarray:
    """Gains of ``grade`` (``float64`` ``(n,)``; ``NaN`` = unjudged): unjudged and
    negative grades give 0; so do grades below ``min_grade`` (judgments below the
    level count as non-relevant); the others go
    through ``gain``. Under ``negative="gain"`` negative grades go through ``gain`` too
    (:func:`gain_floor`). Returns ``float64`` ``(n,)``."""
    ok = grade >= gain_floor(min_grade, negative)  # False for NaN
    if ok.all():
        return np.asarray(gain(grade.copy()), dtype=np.float64)  # a copy, as grade[ok] was
    out = np.zeros(len(grade), dtype=np.float64)
    if ok.any():
        out[ok] = gain(grade[ok])
    return out


def cutoff_mask(rank: np.ndarray, k: int | None) -> np.ndarray:
    return np.ones(len(rank), dtype=bool) if k is None else rank <= k


def _cached(store: dict | None, key: Any, anchors: tuple, compute: Callable) -> Any:
    """``compute()`` memoised in ``store`` under ``key``; the entry is valid only if
    the ``anchors`` (the arrays it was computed from) are the very same objects, so
    an ``id()`` reused after garbage collection can never return a stale value."""
    if store is None:
        return compute()
    hit = store.get(key)
    if hit is not None and len(hit[0]) == len(anchors) and all(a is b for a, b in zip(hit[0], anchors)):
        return hit[1]
    value = compute()
    store[key] = (anchors, value)
    return value


def _at(ranked: Any, name: str, idx: np.ndarray) -> np.ndarray:
    """``getattr(ranked, name)[idx]``, without building the whole column when the
    ranked list can read single positions (:meth:`RankedList.rank_at`)."""
    at = getattr(ranked, name + "_at", None)
    return at(idx) if at is not None else getattr(ranked, name)[idx]


# IdealRanking (what trace_ideal records) is defined in evalkit._ideal_ranking, imported
# when a trace is recorded (PEP 562 __getattr__ below): an evaluation never creates it.


def _ideal_record() -> type[IdealRanking]:
    """:class:`IdealRanking`, imported when a trace records one."""
    from ._ideal_ranking import IdealRanking

    return IdealRanking


_IDEAL_TRACE: ContextVar[list | None] = ContextVar("evalkit_ideal_trace", default=None)


@contextmanager
def trace_ideal() -> Iterator[list[IdealRanking]]:
    """Record every ideal ranking :func:`ideal_dcg` builds inside the ``with`` block
    (an :class:`IdealRanking` per call, in call order): :mod:`evalkit.explain` lists
    the ideal ranking of an IDCG strategy that way, from the engine's own computation."""
    trace: list[IdealRanking] = []
    token = _IDEAL_TRACE.set(trace)
    try:
        yield trace
    finally:
        _IDEAL_TRACE.reset(token)


def ideal_dcg(
    gains: np.ndarray,
    offsets: np.ndarray,
    discount: Callable[[np.ndarray], np.ndarray],
    k: int | None,
    cache: dict | None = None,
    negative: bool = False,
) -> np.ndarray:
    """DCG of each segment's gains sorted in decreasing order, cut at ``k``.

    Gains below 0 are left out of the ideal ranking (and gains of 0 add nothing), so only the positive gains are sorted. With
    ``negative`` (the ``negative=gain`` convention) every gain is sorted, so negative
    gains take the last places, after the zeros, and count within ``k`` (all targets sorted descending); the
    result can then be 0 or negative.

    :param gains: ``float64`` ``(m,)``, segment-contiguous.
    :param offsets: ``int64`` ``(q + 1,)``.
    :param cache: optional dict; the sorted ideal ranking of ``gains`` is kept there
        and reused by every later call with the same ``gains`` and ``offsets`` arrays
        (other discounts and cutoffs).
    :returns: ``float64`` ``(q,)``.
    """
    nq = len(offsets) - 1
    if len(gains) == 0:
        trace = _IDEAL_TRACE.get()
        if trace is not None:
            none = np.zeros(0, dtype=np.int64)
            trace.append(_ideal_record()(np.zeros(0), none, none, np.zeros(0)))
        return np.zeros(nq)

    key, anchors = ("ideal", id(gains), id(offsets), negative), (gains, offsets)
    hit = _cached(cache, key, anchors, lambda: _ideal_ranking(gains, offsets, negative, k))
    if hit[0] == "grid" and not hit[3] and (k is None or k > hit[1].shape[1]):
        # kept only the first columns for a smaller cutoff: the whole ranking now
        hit = _ideal_ranking(gains, offsets, negative, None)
        if cache is not None:
            cache[key] = (anchors, hit)
    if hit[0] == "grid":  # each row's ideal gains, decreasing, the first counts[i] of row i
        _, grid, counts, _ = hit
        width = grid.shape[1] if k is None else min(int(k), grid.shape[1])
        inside = np.arange(width) < counts[:, None]
        seg, col = np.nonzero(inside)
        g = grid[:, :width][inside]
        rank = col + 1
    else:
        _, g, seg, rank = hit
        if k is not None:
            keep = rank <= k
            g, seg, rank = g[keep], seg[keep], rank[keep]
    d = discount(rank)
    trace = _IDEAL_TRACE.get()
    if trace is not None:
        trace.append(_ideal_record()(g, seg, rank, np.asarray(d, dtype=np.float64)))
    return segment_sum(g * d, seg, nq)


def _ideal_ranking(gains: np.ndarray, offsets: np.ndarray, negative: bool, keep: int | None = None) -> tuple:
    """The ideal ranking of every segment of ``gains`` (its positive gains, or all of
    them with ``negative``) in decreasing order, in one of two forms:

    * ``("grid", grid, counts, complete)``: ``grid`` ``(q, w)``, each row a segment's
      gains sorted in decreasing order, of which the first ``counts[i]`` (``int64``
      ``(q,)``) are its ideal ranking; ``complete``: ``w`` covers every segment's
      ranking (else only the first ``keep`` ranks were kept). Equal segments (dense
      arrays) are sorted as the rows of a 2-D array, a few thousand rows at a time;
      segments of other lengths are padded with ``-inf`` into one when the longest is
      short enough (NumPy sorts small rows with SIMD sorting networks).
    * ``("flat", g, seg, rank)``: the ideal gains, their segment and 1-based rank
      (``np.lexsort`` of the candidates; a few very long segments).

    Both give the values of ``g[np.lexsort((-g, seg))]`` over the candidates.

    :param keep: the cutoff: a grid of equal segments keeps only its first ``keep``
        columns (``None``: all).
    """
    nq = len(offsets) - 1
    length = np.diff(offsets)
    if nq and len(gains) == nq * int(length[0]) and length[0] > 0 and (length == length[0]).all():
        # equal segments (dense arrays): sort each as a row of a 2-D array
        width = int(length[0])
        kept = width if keep is None else min(width, int(keep))
        grid = np.empty((nq, kept))
        counts = np.full(nq, width, dtype=np.int64)
        rows = gains.reshape(nq, width)
        step = max(1, (1 << 17) // width)
        for first in range(0, nq, step):
            part = rows[first: first + step]
            grid[first: first + step] = np.sort(part, axis=1)[:, ::-1][:, :kept]  # decreasing
            if not negative:
                counts[first: first + step] = np.count_nonzero(part > 0, axis=1)
        return "grid", grid, counts, kept == width
    positive = None if negative else gains > 0
    n_ideal = len(gains) if positive is None else int(np.count_nonzero(positive))
    if positive is None or n_ideal == len(gains):
        g, counts = gains, length
    else:
        total = np.zeros(len(gains) + 1, dtype=np.int32 if len(gains) < 2 ** 31 else np.int64)
        np.cumsum(positive, out=total[1:])
        g, counts = gains[positive], np.diff(total[offsets]).astype(np.int64)
    width = int(counts.max()) if nq else 0
    if nq * width <= 4 * len(g):  # padded with -inf into the rows of a 2-D array
        grid = np.full((nq, width), -np.inf)
        grid[np.arange(width) < counts[:, None]] = g  # row by row: segment order
        grid.sort(axis=1)
        return "grid", grid[:, ::-1], counts, True
    seg = np.repeat(np.arange(nq, dtype=np.int64), counts)
    starts = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    g = g[np.lexsort((-g, seg))]
    rank = np.arange(len(g), dtype=np.int64) - starts[seg] + 1
    return "flat", g, seg, rank


def listed_dcg(
    gains: np.ndarray,
    offsets: np.ndarray,
    discount: Callable[[np.ndarray], np.ndarray],
    k: int | None,
) -> np.ndarray:
    """DCG of each segment's gains *in the given order* (not sorted), cut at ``k``:
    the ideal of an IDCG strategy that takes the judgments' own order (Spark MLlib's
    graded ``ndcgAt``). Recorded for :func:`trace_ideal` like :func:`ideal_dcg`.

    :param gains: ``float64`` ``(m,)``, segment-contiguous, in the wanted order.
    :param offsets: ``int64`` ``(q + 1,)``.
    :returns: ``float64`` ``(q,)``.
    """
    nq = len(offsets) - 1
    seg = segment_ids(offsets)
    rank = np.arange(len(gains), dtype=np.int64) - offsets[seg] + 1
    keep = cutoff_mask(rank, k)
    g, seg, rank = gains[keep], seg[keep], rank[keep]
    d = np.asarray(discount(rank), dtype=np.float64) if len(rank) else np.zeros(0)
    trace = _IDEAL_TRACE.get()
    if trace is not None:
        trace.append(_ideal_record()(g, seg, rank, d))
    return segment_sum(g * d, seg, nq)


class IdealContext:
    """What an IDCG strategy sees.

    :param ranked_gain: ``float64`` ``(n,)`` gains of the ranked documents (rank order).
    :param ranked: the :class:`RankedList`.
    :param judged_gain: ``float64`` ``(m,)`` gains of every judged document, by query.
    :param judged_offsets: ``int64`` ``(q + 1,)``.
    :param discount: bound discount function (ranks -> discounts).
    :param k: cutoff or ``None``.
    :param cache: dict shared by the flavours of one run, for :func:`ideal_dcg`.
    :param negative: the flavour's ``negative`` convention. Under ``gain`` the gains
        may be negative, and a strategy that supports it (``returned``,
        ``returned_top_k``: :data:`evalkit.flavour.NEGATIVE_GAIN_IDCG`) keeps them in
        its ideal ranking (``ideal_dcg(..., negative=True)``).

    ``ranked_gain`` and ``judged_gain`` may be given as zero-argument callables; they
    are then computed on first access (an IDCG over the judged documents never needs
    the gains of every ranked document).
    """

    def __init__(self, ranked_gain: Any, ranked: RankedList, judged_gain: Any, judged_offsets: np.ndarray,
                 discount: Callable[[np.ndarray], np.ndarray], k: int | None, cache: dict | None = None,
                 positive_ranked_gain: Callable | None = None, negative: str = "zero",
                 returned_gains: Callable | None = None) -> None:
        self._ranked_gain = ranked_gain
        self.negative = negative
        self._positive = positive_ranked_gain
        self._returned = returned_gains
        self._judged_gain = judged_gain
        self.ranked = ranked
        self.judged_offsets = judged_offsets
        self.discount = discount
        self.k = k
        self.cache = cache

    @property
    def ranked_gain(self) -> np.ndarray:
        if callable(self._ranked_gain):
            self._ranked_gain = self._ranked_gain()
        return self._ranked_gain

    def positive_ranked_gain(self) -> tuple[np.ndarray, np.ndarray]:
        """``(gains, offsets)``: the positive gains of the ranked documents, in rank
        order, and ``(q + 1,)`` offsets delimiting queries. An ideal ranking needs only
        these (documents with gain 0 add nothing), and they are few in a long run."""
        if self._positive is not None:
            return self._positive()
        gains = self.ranked_gain
        pos = np.flatnonzero(gains > 0)
        return gains[pos], offsets_from_sorted(self.ranked.query[pos], self.ranked.n_queries)

    def returned_gains(self) -> tuple[np.ndarray, np.ndarray]:
        """``(gains, offsets)``: the gains of the ranked documents by query (``(q + 1,)``
        offsets), in no particular order within a query, documents with gain 0 left in
        or out: all an ideal ranking of the returned documents needs (:func:`ideal_dcg`
        sorts them and skips gains <= 0). When the ranking only reorders the run's rows
        within their queries, they are read in the run's order (nothing gathered in
        rank order) and, for a run joined with qrels, from its judged rows only;
        otherwise :meth:`positive_ranked_gain`."""
        if self._returned is not None:
            return self._returned()
        return self.positive_ranked_gain()

    @property
    def judged_gain(self) -> np.ndarray:
        if callable(self._judged_gain):
            self._judged_gain = self._judged_gain()
        return self._judged_gain


@lean_dataclass(frozen=False)  # its __init__ below, repr and == from ByFields (issue 27: nothing generated)
class MetricInput(ByFields):
    """Everything a metric kernel needs, for all queries of one run.

    :param ranked: the run sorted under the flavour's tie policy.
    :param judged_grade: ``float64`` ``(m,)`` grades of all judged documents, grouped by
        query.
    :param judged_offsets: ``int64`` ``(q + 1,)``: query ``i``'s judgments are
        ``judged_grade[judged_offsets[i]:judged_offsets[i + 1]]``.
    :param k: cutoff or ``None``.
    :param gain: bound gain function or ``None`` if the metric does not use one.
    :param discount: bound discount function or ``None``.
    :param idcg: bound IDCG strategy (``IdealContext -> (q,)``) or ``None``.
    :param subtopics: for metrics with ``needs_subtopics``: a
        :class:`IntentProblem`, else ``None``.

    These eight fields are the contract (``tests/test_plugin_contract.py`` counts
    them). A kernel reads them and calls the helper methods below (``ranked_gain()``,
    ``judged_gain()``, ``dcg()``, ``ideal()``, ``gain_floor()``...); it never builds a
    :class:`MetricInput` itself (the engine does). ``min_grade`` and ``negative`` are
    the engine's settings of the gain helpers (the flavour's conventions; a kernel that
    reads grades itself asks :meth:`gain_floor`); the fields whose names start with
    ``_`` are the engine's caches (gains, discounts, cutoff positions and ideal
    rankings shared by every flavour of one run). Neither is part of the contract.
    """

    ranked: RankedList
    judged_grade: np.ndarray
    judged_offsets: np.ndarray
    k: int | None
    gain: Callable[[np.ndarray], np.ndarray] | None = None
    discount: Callable[[np.ndarray], np.ndarray] | None = None
    idcg: Callable[[IdealContext], np.ndarray] | None = None
    subtopics: object | None = None
    min_grade: float = 0.0
    negative: str = "zero"
    # engine-private: the dict shared by every flavour evaluated on the same run (the
    # engine passes Problem._cache) and hashable identities of ``gain`` / ``discount``
    # (the flavour's component references) under which their values are shared;
    # ``_shared=None``: nothing is shared, values are cached per input in ``_cache`` (a
    # new dict for each input, not an argument)
    _shared: dict | None = field(default=None, repr=False)
    _gain_key: object = field(default=None, repr=False)
    _discount_key: object = field(default=None, repr=False)
    _cache: dict = field(default_factory=dict, init=False, repr=False)

    def __init__(self, ranked: RankedList, judged_grade: np.ndarray, judged_offsets: np.ndarray, k: int | None,
                 gain: Callable[[np.ndarray], np.ndarray] | None = None,
                 discount: Callable[[np.ndarray], np.ndarray] | None = None,
                 idcg: Callable[[IdealContext], np.ndarray] | None = None, subtopics: object | None = None,
                 min_grade: float = 0.0, negative: str = "zero", _shared: dict | None = None,
                 _gain_key: object = None, _discount_key: object = None) -> None:
        self.ranked = ranked
        self.judged_grade = judged_grade
        self.judged_offsets = judged_offsets
        self.k = k
        self.gain = gain
        self.discount = discount
        self.idcg = idcg
        self.subtopics = subtopics
        self.min_grade = min_grade
        self.negative = negative
        self._shared = _shared
        self._gain_key = _gain_key
        self._discount_key = _discount_key
        self._cache = {}

    @property
    def n_queries(self) -> int:
        return self.ranked.n_queries

    @property
    def _gain_fn(self) -> Callable[[np.ndarray], np.ndarray]:
        """``gain``, for the helpers that apply it (a metric calling them declares a gain)."""
        if self.gain is None:
            raise TypeError("this MetricInput has no gain function")
        return self.gain

    @property
    def _discount_fn(self) -> Callable[[np.ndarray], np.ndarray]:
        """``discount``, for the helpers that apply it (a metric calling them declares a discount)."""
        if self.discount is None:
            raise TypeError("this MetricInput has no discount function")
        return self.discount

    def _store(self, key_part: Any) -> dict:
        """The shared dict if ``key_part`` (a component identity) allows sharing."""
        return self._shared if (self._shared is not None and key_part is not None) else self._cache

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

    def cut_positions(self) -> np.ndarray | None:
        """Positions that can carry a non-zero weight at cutoff ``k``: ``int64``
        indices, query-contiguous, or ``None`` when that is every position. They are
        the ranks ``<= k`` and, under an averaged tie policy, the rest of the block of
        tied documents holding rank ``k``. Shared by every flavour with this ``k``."""
        cut = self._cut()
        return None if cut is None else cut[0]

    def _cut(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """``(positions, query, rank)`` of :meth:`cut_positions` (``int64`` each: the
        positions, their query and their 1-based rank), or ``None``."""
        r = self.ranked
        if self.k is None:
            return None

        def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
            assert self.k is not None  # checked above
            k = int(self.k)
            starts = r.offsets[:-1]
            length = np.diff(r.offsets)
            take = np.minimum(length, k)
            if r.averaged:
                long = np.flatnonzero(length > k)
                if len(long):  # to the end of the block holding rank k
                    take[long] = r.block_end(starts[long] + k - 1) - starts[long]
            total = int(take.sum())
            if total == len(r.query):
                return None
            query = np.repeat(np.arange(len(take), dtype=np.int64), take)
            before = np.zeros(len(take), dtype=np.int64)  # positions of the earlier queries
            np.cumsum(take[:-1], out=before[1:])
            rank = np.arange(total, dtype=np.int64)
            rank -= (before - starts)[query]  # now the position
            idx = rank.copy()
            rank -= starts[query]
            rank += 1
            return idx, query, rank

        return _cached(self._shared, ("cut", id(r), self.k), (r,), compute)

    def discount_values(self, ranks: np.ndarray) -> np.ndarray:
        """``discount(ranks)``, read from a table of ``discount(1..R)`` computed once
        per run and discount when the engine shares values across flavours (discounts are
        element-wise functions of the rank)."""
        if self._shared is None or self._discount_key is None or len(ranks) == 0:
            return self._discount_fn(ranks)
        top = int(ranks.max())
        key = ("discount_table", self._discount_key)
        hit = self._shared.get(key)
        if hit is None or len(hit) < top:
            size = max(top, 1024, 0 if hit is None else 2 * len(hit))
            hit = np.asarray(self._discount_fn(np.arange(1, size + 1, dtype=np.int64)), dtype=np.float64)
            self._shared[key] = hit
        return hit[ranks - 1]

    # ------------------------------------------------------------- gain helpers
    def gain_floor(self) -> float:
        """The lowest grade that goes through the gain function (``float``): grades
        below it, and unjudged ``NaN`` grades, give gain 0. ``max(min_grade, 0)``, or
        ``-inf`` when negative grades are negative gains (:func:`gain_floor`)."""
        return gain_floor(self.min_grade, self.negative)

    @property
    def _floor(self) -> float:
        """:func:`gain_floor` of this input's conventions (part of the gain caches' keys)."""
        return gain_floor(self.min_grade, self.negative)

    def _gain_positions(self) -> np.ndarray | None:
        """Ranked positions whose grade goes through the gain (judged, >= the floor),
        found once per ranked list and floor; ``None`` when that is every position
        (dense arrays: every document judged)."""
        r, floor = self.ranked, self._floor

        def compute() -> np.ndarray | None:
            ok = r.grade >= floor
            return None if ok.all() else np.flatnonzero(ok)

        return _cached(self._shared, ("gain_positions", id(r), floor), (r,), compute)

    def ranked_gain(self) -> np.ndarray:
        r = self.ranked

        def compute() -> np.ndarray:
            # the positions that get a gain (judged, grade >= the floor) are found
            # once per ranked list and floor, then every gain fills only those
            pos = self._gain_positions()
            if pos is None:  # a copy: a gain may write into its input
                return np.asarray(self._gain_fn(r.grade.copy()), dtype=np.float64)
            out = np.zeros(len(r.query), dtype=np.float64)
            if len(pos):
                out[pos] = self._gain_fn(_at(r, "grade", pos))
            return out

        return _cached(self._store(self._gain_key), ("ranked_gain", id(r), self._gain_key, self._floor), (r,),
                       compute)

    def positive_ranked_gain(self) -> tuple[np.ndarray, np.ndarray]:
        """See :meth:`IdealContext.positive_ranked_gain` (shared by flavours with this gain)."""
        r = self.ranked

        def compute() -> tuple[np.ndarray, np.ndarray]:
            pos = self._gain_positions()
            if pos is None:  # every position: offsets from the count of positive gains
                gains = np.asarray(self._gain_fn(r.grade.copy()), dtype=np.float64)
                keep = gains > 0
                if keep.all():
                    return gains, r.offsets
                total = np.zeros(len(keep) + 1, dtype=np.int64)
                np.cumsum(keep, out=total[1:])
                return gains[keep], total[r.offsets]
            gains = self._gain_fn(_at(r, "grade", pos)) if len(pos) else np.zeros(0)
            gains = np.asarray(gains, dtype=np.float64)
            keep = gains > 0
            return gains[keep], offsets_from_sorted(r.query[pos[keep]], r.n_queries)

        return _cached(self._store(self._gain_key), ("positive_ranked_gain", id(r), self._gain_key, self._floor),
                       (r,), compute)

    def returned_gains(self) -> tuple[np.ndarray, np.ndarray]:
        """See :meth:`IdealContext.returned_gains` (shared by flavours with this gain)."""
        r = self.ranked
        source = r._source
        if source is None:
            return self.positive_ranked_gain()
        keys, _ = source()
        if r.query is not keys.query:  # the order moved rows between queries: rank order
            return self.positive_ranked_gain()

        def compute() -> tuple[np.ndarray, np.ndarray]:
            rows, grades = keys.graded(self._floor)
            try:
                gains = self._gain_fn(grades) if len(grades) else np.zeros(0)
            except ValueError:
                if grades.flags.writeable:
                    raise
                gains = self._gain_fn(grades.copy())  # a gain that writes into its input
            gains = np.asarray(gains, dtype=np.float64)
            if rows is None:  # every row: the ranked list's own offsets
                return gains, r.offsets
            return gains, offsets_from_sorted(keys.query[rows], r.n_queries)

        return _cached(self._store(self._gain_key), ("returned_gains", id(keys), self._gain_key, self._floor),
                       (keys, r.offsets), compute)

    def judged_gain(self) -> np.ndarray:
        jg = self.judged_grade
        return _cached(self._store(self._gain_key), ("judged_gain", id(jg), self._gain_key, self._floor), (jg,),
                       lambda: apply_gain(self._gain_fn, jg, self.min_grade, self.negative))

    def _gain_at(self, idx: np.ndarray) -> np.ndarray:
        """Gains of the ranked positions ``idx``."""
        r = self.ranked
        store = self._store(self._gain_key)
        full = store.get(("ranked_gain", id(r), self._gain_key, self._floor))
        if full is not None and full[0][0] is r:
            return full[1][idx]
        return _cached(store, ("cut_gain", id(r), self._gain_key, self._floor, self.k), (r,),
                       lambda: apply_gain(self._gain_fn, _at(r, "grade", idx), self.min_grade, self.negative))

    def _has_ranked_gain(self) -> bool:
        """Whether :meth:`ranked_gain` is computed already for this ranked list and gain."""
        r = self.ranked
        hit = self._store(self._gain_key).get(("ranked_gain", id(r), self._gain_key, self._floor))
        return hit is not None and hit[0][0] is r

    def _nonzero_gains(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(query, rank, gain)`` at the ranked positions whose gain is not 0, in
        position order (``int64``, 1-based ``int64``, ``float64``); once per ranked list
        and gain."""
        r = self.ranked

        def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            g = self.ranked_gain()
            judged = self._gain_positions()  # the others have gain 0
            pos = np.flatnonzero(g) if judged is None else judged[g[judged] != 0]
            return r.query[pos], r.rank_at(pos), g[pos]

        return _cached(self._store(self._gain_key), ("nonzero_gains", id(r), self._gain_key, self._floor), (r,),
                       compute)

    def dcg(self) -> np.ndarray:
        """DCG@k per query under the flavour's gain, discount and tie policy.

        Only the positions of :meth:`cut_positions` are visited (the others weigh 0),
        so the cost grows with ``q * k``, not with the run's length.
        """
        r = self.ranked
        if not r.averaged and (self.k is None or self._has_ranked_gain()):
            # the positions with a gain other than 0 only (the others add 0 to each
            # query's sum, in the same order: the same values)
            query, rank, gains = self._nonzero_gains()
            if self.k is not None:
                inside = rank <= self.k
                query, rank, gains = query[inside], rank[inside], gains[inside]
            return segment_sum(gains * self.discount_values(rank), query, self.n_queries)
        cut = self._cut()
        if cut is None:
            w = self.position_weights(self.discount_values(r.rank))
            return self.per_query(self.ranked_gain() * w)
        idx, query, rank = cut
        w = self.discount_values(rank)
        if r.averaged and len(idx):
            w = np.where(rank <= self.k, w, 0.0)
            block = r.block_at(idx, query, runs=True)
            first = int(block[0])
            nb = int(block[-1]) - first + 1
            total = np.bincount(block - first, weights=w, minlength=nb)
            size = np.bincount(block - first, minlength=nb)
            w = (total / np.maximum(size, 1))[block - first]
        return segment_sum(self._gain_at(idx) * w, query, self.n_queries)

    def ideal(self) -> np.ndarray:
        """IDCG@k per query under the flavour's IDCG strategy."""
        if self.idcg is None:
            raise TypeError("this MetricInput has no IDCG strategy")
        ctx = IdealContext(
            ranked_gain=self.ranked_gain,
            ranked=self.ranked,
            judged_gain=self.judged_gain,
            judged_offsets=self.judged_offsets,
            discount=self.discount_values,  # raises only when called without a discount
            k=self.k,
            cache=self._store(self._gain_key),
            positive_ranked_gain=self.positive_ranked_gain,
            negative=self.negative,
            returned_gains=self.returned_gains,
        )
        return np.asarray(self.idcg(ctx), dtype=np.float64)

    # ------------------------------------------------------------- binary helpers
    def relevant(self, threshold: float) -> np.ndarray:
        """``float64`` ``(n,)``: 1 where the ranked document's grade >= threshold."""
        return (self.ranked.grade >= threshold).astype(np.float64)

    def num_relevant(self, threshold: float) -> np.ndarray:
        """Judged documents with grade >= threshold, per query: ``float64`` ``(q,)``
        (once per qrels and threshold for the flavours of a run)."""

        def compute() -> np.ndarray:
            rel = (self.judged_grade >= threshold).astype(np.float64)
            return segment_sum(rel, segment_ids(self.judged_offsets), self.n_queries)

        out = _cached(self._shared, ("num_relevant", id(self.judged_grade), float(threshold)),
                      (self.judged_grade, self.judged_offsets), compute)
        return out.copy()


def intent_aware(inp: MetricInput, kernel: Callable[[MetricInput], MetricOutput]) -> MetricOutput:
    """Apply ``kernel`` per intent and combine per topic with the intent probabilities
    (:func:`evalkit.engine.intents.intent_aware`; ``inp.subtopics`` an
    :class:`IntentProblem`, ``(q,)`` values and ``defined`` out).

    A topic without subtopic judgments is undefined (the ``empty`` convention applies).
    """
    from .engine.intents import intent_aware as per_intent  # imported by a subtopic metric only

    return per_intent(inp, kernel)


def __getattr__(name: str) -> Any:
    """:class:`IntentProblem` (:mod:`evalkit.engine.intents`), imported on first use
    (PEP 562): evaluating without subtopic qrels does not load it; and
    :class:`IdealRanking` (:mod:`evalkit._ideal_ranking`), defined on first use (issue 27)."""
    if name == "IdealRanking":
        from ._ideal_ranking import IdealRanking

        globals()[name] = IdealRanking  # later lookups skip __getattr__
        return IdealRanking
    if name == "IntentProblem":
        from .engine.intents import IntentProblem

        globals()[name] = IntentProblem  # later lookups skip __getattr__
        return IntentProblem
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"IntentProblem", "IdealRanking"})
