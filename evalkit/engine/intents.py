"""Intent-aware evaluation over subtopic qrels.

Each (topic, subtopic) pair becomes a pseudo-query whose ranking is the topic's
ranking (already sorted under the flavour's tie policy) and whose judgments are the
subtopic's. A metric is computed for every pseudo-query at once and combined per
topic as ``sum_s P(s | topic) * metric_s`` (Agrawal et al., WSDM 2009).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..columnar import offsets_from_sorted
from ..data import SubtopicQrels
from .factorize import factorize
from .problem import Problem
from .ranking import RankedList
from typing import Any


@dataclass(frozen=True)
class IntentProblem:
    """Rankings and judgments expanded to one pseudo-query per (topic, intent).

    :param topic: ``int64`` ``(p,)`` index of each pseudo-query's topic in the problem.
    :param prob: ``float64`` ``(p,)`` intent probabilities (sum to 1 per topic).
    :param ranked: :class:`RankedList` over the ``p`` pseudo-queries.
    :param judged_grade, judged_offsets: the intents' judgments.
    :param judged_docno: ``int64`` ``(m,)`` code of each judged document, shared by all
        intents of a topic; codes follow ``strcmp`` order of the docnos (used by the
        diversity metrics' greedy ideal ranking and its docno tie-break).
    """

    topic: np.ndarray
    prob: np.ndarray
    ranked: RankedList
    judged_grade: np.ndarray
    judged_offsets: np.ndarray
    judged_docno: np.ndarray | None = None

    @classmethod
    def build(cls, problem: Problem, subtopics: SubtopicQrels, ranked: RankedList) -> "IntentProblem":
        qrels, topic_of_pair, prob = subtopics.intent_qrels()
        pair_ids = qrels.qids
        # map each pair's topic to the problem's query index (drop unknown topics)
        (t_pairs, t_problem), _ = factorize(topic_of_pair, problem.qids)
        lookup = np.full(max(t_pairs.max(initial=-1), t_problem.max(initial=-1)) + 1, -1, np.int64)
        lookup[t_problem] = np.arange(len(t_problem))
        topic = lookup[t_pairs] if len(t_pairs) else np.empty(0, np.int64)
        keep = topic >= 0
        pair_ids, topic, prob = pair_ids[keep], topic[keep], prob[keep]
        order = np.argsort(topic, kind="stable")
        pair_ids, topic, prob = pair_ids[order], topic[order], prob[order]
        n_pairs = len(pair_ids)

        # judgments of each pair
        (jq, pid), _ = factorize(qrels.qid, pair_ids)
        pos = np.full(max(jq.max(initial=-1), pid.max(initial=-1)) + 1, -1, np.int64)
        pos[pid] = np.arange(n_pairs)
        jpair = pos[jq]
        jkeep = jpair >= 0
        jorder = np.argsort(jpair[jkeep], kind="stable")
        judged_grade = qrels.grade[jkeep][jorder]
        judged_offsets = offsets_from_sorted(jpair[jkeep][jorder], n_pairs)

        # replicate each topic's ranking once per intent
        lengths = np.diff(ranked.offsets)[topic]
        starts = ranked.offsets[topic]
        offsets = np.zeros(n_pairs + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        within = np.arange(offsets[-1]) - np.repeat(offsets[:-1], lengths)
        src = np.repeat(starts, lengths) + within
        query = np.repeat(np.arange(n_pairs, dtype=np.int64), lengths)

        # grades of the replicated positions from the intents' judgments
        (d_j, d_r), vocab_d = factorize(qrels.docno[jkeep][jorder], _docnos(problem, ranked, src))
        nd = len(vocab_d) + 1
        jkey = np.repeat(np.arange(n_pairs), np.diff(judged_offsets)) * nd + d_j
        rkey = query * nd + d_r
        korder = np.argsort(jkey, kind="stable")
        sk = jkey[korder]
        grade = np.full(len(rkey), np.nan)
        if len(sk):
            p = np.searchsorted(sk, rkey)
            pc = np.minimum(p, len(sk) - 1)
            hit = (p < len(sk)) & (sk[pc] == rkey)
            grade[hit] = judged_grade[korder[pc[hit]]]
        block = ranked.block[src] + query * (ranked.block[-1] + 1 if len(ranked.block) else 0)
        expanded = RankedList(
            offsets=offsets,
            query=query,
            rank=ranked.rank[src],
            grade=grade,
            docno=ranked.docno[src],
            block=np.unique(block, return_inverse=True)[1].reshape(-1) if len(block) else block,
            averaged=ranked.averaged,
        )
        return cls(topic, prob, expanded, judged_grade, judged_offsets, d_j.astype(np.int64))


def _docnos(problem: Problem, ranked: RankedList, src: np.ndarray) -> np.ndarray:
    return problem.docno_vocab[ranked.docno[src]]


def intent_aware(inp: Any, kernel: Any) -> Any:
    """Apply ``kernel`` per intent and combine per topic with the intent probabilities.

    A topic without subtopic judgments is undefined (the ``empty`` convention applies).
    """
    from ..components import MetricOutput

    ip: IntentProblem = inp.subtopics
    sub = replace(
        inp,
        ranked=ip.ranked,
        judged_grade=ip.judged_grade,
        judged_offsets=ip.judged_offsets,
        subtopics=None,
    )  # (its _cache a new dict: replace does not copy a field with init=False)
    out = kernel(sub)
    nq = inp.n_queries
    # an intent with no relevant judgment contributes 0 (its NDCG is undefined)
    per_intent = np.where(out.defined, out.values, 0.0)
    values = np.bincount(ip.topic, weights=ip.prob * per_intent, minlength=nq)
    defined = np.bincount(ip.topic, weights=out.defined.astype(float), minlength=nq) > 0
    return MetricOutput(values, defined)
