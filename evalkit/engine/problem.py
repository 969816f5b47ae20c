"""Joining a run with qrels, and sorting it once per tie policy.

A :class:`Problem` is one run against one set of qrels, restricted to the qrels'
queries (run queries without judgments are ignored, as trec_eval ignores them).
:meth:`Problem.ranked` sorts the run under a tie policy once and caches the
:class:`RankedList` that every flavour with that tie policy reuses.

Everything is columnar: no Python loop over queries or documents.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..data import Qrels, Run
from .factorize import factorize


def segment_ids(offsets: np.ndarray) -> np.ndarray:
    """Segment index of every element: ``int64`` of shape ``(offsets[-1],)``."""
    counts = np.diff(offsets)
    return np.repeat(np.arange(len(counts), dtype=np.int64), counts)


def offsets_from_sorted(ids: np.ndarray, n_segments: int) -> np.ndarray:
    """``offsets`` (``(n_segments + 1,)``) for a sorted array of segment ids."""
    counts = np.bincount(ids, minlength=n_segments) if len(ids) else np.zeros(n_segments, np.int64)
    out = np.zeros(n_segments + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


@dataclass(frozen=True)
class SortKeys:
    """Per-row sort keys handed to tie policies (all shape ``(n,)``).

    :param query: ``int64`` query index (position in :attr:`Problem.qids`).
    :param score: ``float64`` score, higher first.
    :param docno: ``int64`` docno code in ``strcmp`` order.
    :param line: ``int64`` input order.
    :param grade: ``float64`` grade, ``NaN`` if unjudged.
    """

    query: np.ndarray
    score: np.ndarray
    docno: np.ndarray
    line: np.ndarray
    grade: np.ndarray


@dataclass(frozen=True)
class RankedList:
    """A run sorted under one tie policy, over all evaluated queries.

    Position arrays (shape ``(n,)``, query-contiguous, rank 1 first):
    ``query`` (``int64``), ``rank`` (1-based ``int64``), ``grade`` (``float64``, ``NaN`` =
    unjudged), ``docno`` (``int64`` code), ``block`` (``int64`` id of the block of equal
    scores the position belongs to; unique per position when scores differ).
    ``offsets`` (``(q + 1,)``) delimits queries; ``averaged`` is the tie policy's flag.
    """

    offsets: np.ndarray
    query: np.ndarray
    rank: np.ndarray
    grade: np.ndarray
    docno: np.ndarray
    block: np.ndarray
    averaged: bool

    @property
    def n_queries(self) -> int:
        return len(self.offsets) - 1

    @property
    def length(self) -> np.ndarray:
        """Number of ranked documents per query, ``int64`` ``(q,)``."""
        return np.diff(self.offsets)


@dataclass
class Problem:
    """One run joined with qrels.

    :param qids: evaluated query ids, sorted (``object`` ``(q,)``): the qrels' queries.
    :param judged_offsets: ``(q + 1,)`` offsets into ``judged_grade``.
    :param judged_grade: ``float64`` ``(m,)`` grades of every judged document, by query.
    :param keys: the run's rows restricted to evaluated queries, as :class:`SortKeys`.
    :param in_run: ``bool`` ``(q,)``: the query has at least one ranked document.
    :param docno_vocab: ``object`` array; ``docno_vocab[code]`` is the docno string.
    """

    qids: np.ndarray
    judged_offsets: np.ndarray
    judged_grade: np.ndarray
    keys: SortKeys
    in_run: np.ndarray
    docno_vocab: np.ndarray = None
    _ranked: dict = field(default_factory=dict, repr=False)

    @property
    def n_queries(self) -> int:
        return len(self.qids)

    def ranked(self, policy, params: dict, *, depth: int | None = None,
               judged_only: bool = False) -> RankedList:
        """The run sorted under ``policy`` (a :class:`~evalkit.components.TiePolicy`),
        computed once per policy and parameters and then reused.

        :param depth: keep only the first ``depth`` documents of each query after
            sorting (trec_eval ``-M``; ``None`` keeps all).
        :param judged_only: drop unjudged documents (no grade, or a negative grade)
            after sorting and truncation, and renumber the ranks (trec_eval ``-J``).
        """
        if depth is not None or judged_only:
            key = (policy.name, tuple(sorted(params.items())), depth, bool(judged_only))
            hit = self._ranked.get(key)
            if hit is None:
                hit = restrict(self.ranked(policy, params), depth, judged_only)
                self._ranked[key] = hit
            return hit
        cache_key = (policy.name, tuple(sorted(params.items())))
        hit = self._ranked.get(cache_key)
        if hit is not None:
            return hit
        keys = self.keys
        order = np.asarray(policy.fn(keys, **params), dtype=np.int64)
        if order.shape != keys.query.shape:
            raise ValueError(f"tie policy '{policy.name}' returned an order of shape {order.shape}")
        query = keys.query[order]
        offsets = offsets_from_sorted(query, self.n_queries)
        rank = np.arange(len(order), dtype=np.int64) - offsets[query] + 1
        score = keys.score[order]
        new_block = np.ones(len(order), dtype=bool)
        if len(order) > 1:
            new_block[1:] = (query[1:] != query[:-1]) | (score[1:] != score[:-1])
        block = np.cumsum(new_block) - 1
        ranked = RankedList(
            offsets=offsets,
            query=query,
            rank=rank,
            grade=keys.grade[order],
            docno=keys.docno[order],
            block=block,
            averaged=bool(policy.averaged),
        )
        self._ranked[cache_key] = ranked
        return ranked


def restrict(ranked: RankedList, depth: int | None, judged_only: bool) -> RankedList:
    """Keep part of each query's ranking and renumber the ranks (vectorised).

    ``depth``: positions with rank > depth are dropped (trec_eval ``-M``: form_res_rels.c
    truncates to ``max_num_docs_per_topic`` right after sorting by score and docno).
    ``judged_only``: positions whose grade is NaN or negative are then dropped and the
    remaining documents ranked 1, 2, ... in their original order (trec_eval ``-J``:
    form_res_rels.c keeps ``rel >= 0`` sorted by the original rank). Tie blocks are
    renumbered so block ids stay dense.
    """
    keep = np.ones(len(ranked.rank), dtype=bool)
    if depth is not None:
        keep &= ranked.rank <= depth
    if judged_only:
        keep &= ranked.grade >= 0  # False for NaN (unjudged)
    if keep.all():
        return ranked
    query = ranked.query[keep]
    n_queries = ranked.n_queries
    offsets = offsets_from_sorted(query, n_queries)
    rank = np.arange(len(query), dtype=np.int64) - offsets[query] + 1
    old_block = ranked.block[keep]
    new_block = np.ones(len(query), dtype=bool)
    if len(query) > 1:
        new_block[1:] = old_block[1:] != old_block[:-1]
    return RankedList(
        offsets=offsets,
        query=query,
        rank=rank,
        grade=ranked.grade[keep],
        docno=ranked.docno[keep],
        block=np.cumsum(new_block) - 1,
        averaged=ranked.averaged,
    )


def build_problem(qrels: Qrels, run: Run) -> Problem:
    """Join ``run`` with ``qrels`` (vectorised; one sort of the string columns).

    Run queries absent from the qrels are dropped; qrels queries absent from the run
    get an empty ranking (the ``missing`` convention decides their score).
    """
    (q_qrels, q_run), qvocab = factorize(qrels.qid, run.qid)
    # evaluated queries: those of the qrels, in sorted order
    present = np.zeros(len(qvocab), dtype=bool)
    present[q_qrels] = True
    remap = np.cumsum(present) - 1
    qids = qvocab[present]
    nq = len(qids)

    jq = remap[q_qrels]
    jorder = np.argsort(jq, kind="stable")
    judged_offsets = offsets_from_sorted(jq[jorder], nq)
    judged_grade = qrels.grade[jorder]

    keep = present[q_run] if len(q_run) else np.zeros(0, dtype=bool)
    rq = remap[q_run[keep]]
    (d_qrels, d_run), dvocab = factorize(qrels.docno, run.docno[keep])
    nd = len(dvocab) + 1
    qrels_key = jq * nd + d_qrels
    run_key = rq * nd + d_run
    korder = np.argsort(qrels_key, kind="stable")
    sorted_keys = qrels_key[korder]
    pos = np.searchsorted(sorted_keys, run_key)
    pos_c = np.minimum(pos, max(len(sorted_keys) - 1, 0))
    found = (pos < len(sorted_keys)) & (sorted_keys[pos_c] == run_key) if len(sorted_keys) else np.zeros(len(run_key), bool)
    grade = np.full(len(run_key), np.nan)
    grade[found] = qrels.grade[korder[pos_c[found]]]

    keys = SortKeys(
        query=rq.astype(np.int64),
        score=run.score[keep],
        docno=d_run.astype(np.int64),
        line=np.flatnonzero(keep).astype(np.int64),
        grade=grade,
    )
    in_run = np.zeros(nq, dtype=bool)
    in_run[rq] = True
    return Problem(qids, judged_offsets, judged_grade, keys, in_run, dvocab)
