"""Novelty and diversity metrics of the TREC Web track's ``ndeval``: α-nDCG
(Clarke et al., SIGIR 2008) with ndeval's greedy ideal ranking, and ERR-IA
(Chapelle et al., CIKM 2009) with ndeval's collection-independent normalisation
(``ERR-IA``) or normalised by the greedy ideal ranking (``nERR-IA``).

They are evaluated on subtopic qrels (:class:`evalkit.SubtopicQrels`,
:func:`evalkit.read_subtopic_qrels`): pass them as ``subtopics=`` to
:func:`evalkit.evaluate`, with the topic-level qrels from :func:`topic_qrels`.

Definitions, for a topic with subtopics ``s`` and a ranking ``d_1, d_2, ...``
(ndeval 4.5, ``src/ndeval.c`` of pyndeval 0.0.8, the copy of
``trec-web/trec-web-2014 src/eval/ndeval.c`` that the differential tests run):

* ``rel_s(i) = 1`` if ``d_i``'s grade for ``s`` is >= ``threshold`` (ndeval turns
  every judgment > 0 into 1, ``ndeval.c:923``), else 0; unjudged documents are not
  relevant;
* ``c_s(i) = sum_{j<i} rel_s(j)``, the number of earlier documents relevant to ``s``;
* gain ``G(i) = sum_s rel_s(i) * (1 - α)^{c_s(i)}`` (``ndeval.c:630-640, 684-694``);
* ``α-DCG@k = sum_{i<=k} G(i) * discount(i)`` with ``discount(i) = 1/log2(i + 1)``
  (``ndeval.c:595``);
* ``α-nDCG@k = α-DCG@k(run) / α-DCG@k(ideal)``, the ideal ranking built greedily from
  every document judged for the topic: at each rank, the unplaced document with the
  largest gain given the documents already placed, ties to the larger docno
  (``idealResult``, ``ndeval.c:367-415``; the ratio in ``renormalize``,
  ``ndeval.c:1159-1171``);
* ``ERR-IA@k = sum_{i<=k} G(i)/i / (|S| * sum_{i<=k} (1 - α)^{i-1}/i)`` where ``|S|`` is
  the number of subtopics with at least one relevant document (``actualSubtopics``,
  ``ndeval.c:352``; ``computeERR``, ``ndeval.c:613-658``). This equals
  ``(1/|S|) sum_s sum_i α(1-α)^{c_s(i)} rel_s(i)/i`` divided by its value for a
  ranking that covers every subtopic at every rank: ndeval's "collection-independent"
  normalisation;
* ``nERR-IA@k = sum_{i<=k} G(i)/i`` divided by the same sum over the greedy ideal
  ranking (``renormalize``).

A topic with no relevant subtopic judgment is undefined (the flavour's ``empty``
convention applies; ndeval reports 0, the default ``empty=zero``). ndeval averages
over the topics of the run that have qrels (``missing=skip``; its ``-c`` is
``missing=zero``). Runs are ranked by the flavour's tie policy: ndeval's
``-traditional`` order (score descending, then docno descending) is
``ties=trec_eval``; ndeval without ``-traditional`` orders by the run's rank column
(``resultSortByRank``, ndeval.c:420-439), which is ``ties=rank`` (the run read with
``keep_rank=True``); pyndeval sorts by score descending, then docno *ascending*
(``ties=docno_ascending``).

All kernels are vectorised over topics. The greedy ideal ranking is sequential in
the rank: it loops over ranks 1..k, each step vectorised over every topic and
document, and stops as soon as no topic has a relevant document left to place.
"""

from __future__ import annotations

import numpy as np

from ..components import Metric, MetricOutput, Param, declared, metric
from ..data import Qrels, SubtopicQrels
from ..kernel import MetricInput, factorize, segment_cumsum, segment_ids, segment_sum
from .._builtin_hookimpl import hookimpl
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from ..engine.intents import IntentProblem

NDEVAL = "ndeval 4.5 (pyndeval 0.0.8 src/ndeval.c = trec-web/trec-web-2014 src/eval/ndeval.c)"

_ALPHA = Param("alpha", "float", 0.5, "redundancy penalty α: each repeat of a subtopic keeps (1-α) of its gain",
               minimum=0.0, maximum=1.0)
_THRESHOLD = Param("threshold", "float", 1.0, "minimum subtopic grade that counts as relevant")


def topic_qrels(subtopics: SubtopicQrels) -> Qrels:
    """Topic-level qrels from subtopic qrels: each ``(topic, docno)`` once, with its
    largest grade over the topic's subtopics.

    Use them as the ``qrels`` of :func:`evalkit.evaluate` for the diversity metrics:
    they fix the set of evaluated topics (the topics of the subtopic qrels).

    :param subtopics: subtopic qrels (``n`` rows).
    :returns: :class:`Qrels` with one row per distinct ``(topic, docno)``.
    """
    if len(subtopics) == 0:
        return Qrels.from_columns([], [], [], source=subtopics.source)
    (qc,), qv = factorize(subtopics.qid)
    (dc,), dv = factorize(subtopics.docno)
    key = qc * len(dv) + dc
    ukey, inverse = np.unique(key, return_inverse=True)
    grade = np.full(len(ukey), -np.inf)
    np.maximum.at(grade, inverse.reshape(-1), subtopics.grade)
    return Qrels.from_columns(qv[ukey // len(dv)], dv[ukey % len(dv)], grade, source=subtopics.source)


def _position_gains(inp: MetricInput, alpha: float, threshold: float) -> Any:
    """Per ranked position of the topics: the novelty gain ``G(i)``; per topic: the
    number of subtopics with a relevant judgment. Shapes ``(n,)`` and ``(q,)``."""
    ip = cast("IntentProblem", inp.subtopics)  # the engine's, for a metric that needs_subtopics
    r = ip.ranked
    rel = (r.grade >= threshold).astype(np.float64)  # NaN (unjudged) -> False
    seen = segment_cumsum(rel, r.offsets) - rel
    contrib = rel * np.power(1.0 - alpha, seen)
    src = inp.ranked.offsets[ip.topic[r.query]] + r.rank - 1
    gain = np.bincount(src, weights=contrib, minlength=len(inp.ranked.rank)) if len(src) else (
        np.zeros(len(inp.ranked.rank)))
    n_pairs = len(ip.topic)
    pair_rel = segment_sum((ip.judged_grade >= threshold).astype(np.float64),
                           segment_ids(ip.judged_offsets), n_pairs) > 0
    n_sub = np.bincount(ip.topic, weights=pair_rel.astype(np.float64), minlength=inp.n_queries)
    return gain, n_sub


def greedy_ideal_gains(inp: MetricInput, alpha: float, threshold: float, steps: int) -> np.ndarray:
    """Gains ``G(1..steps)`` of ndeval's greedy ideal ranking of every topic.

    At each rank, every topic places the unplaced judged document with the largest
    gain ``sum_s rel_s * (1-α)^{c_s}`` (``c_s`` counted over the documents already
    placed), ties to the larger docno (``strcmp``), as ``idealResult`` in ndeval.c.
    Documents relevant to no subtopic are never placed: their gain is 0 whatever
    their rank, so they cannot change any ideal sum.

    :returns: ``float64`` ``(q, steps)``; 0 where a topic has nothing left to place.
    """
    ip = cast("IntentProblem", inp.subtopics)  # the engine's, for a metric that needs_subtopics
    nq = inp.n_queries
    out = np.zeros((nq, max(steps, 0)))
    if steps <= 0 or len(ip.judged_grade) == 0:
        return out
    n_pairs = len(ip.topic)
    entry_pair = segment_ids(ip.judged_offsets)
    relevant = ip.judged_grade >= threshold
    assert ip.judged_docno is not None  # IntentProblem.build sets it
    entry_pair, codes = entry_pair[relevant], ip.judged_docno[relevant]
    if len(codes) == 0:
        return out
    entry_topic = ip.topic[entry_pair]
    # local subtopic index of each pair within its topic (pairs are grouped by topic)
    pair_start = np.searchsorted(ip.topic, np.arange(nq), side="left")
    local = np.arange(n_pairs) - pair_start[ip.topic]
    n_sub = int(local.max()) + 1
    # one row per (topic, document), ordered by topic, then docno descending, so that
    # the first best row of a topic is the one with the larger docno
    nd = int(codes.max()) + 1
    key = entry_topic * nd + (nd - 1 - codes)
    ukey, row = np.unique(key, return_inverse=True)
    row = row.reshape(-1)
    doc_topic = ukey // nd
    rel = np.zeros((len(ukey), n_sub))
    rel[row, local[entry_pair]] = 1.0
    counts = np.bincount(doc_topic, minlength=nq)
    topics = np.flatnonzero(counts)
    starts = np.searchsorted(doc_topic, topics, side="left")
    subgain = np.ones((nq, n_sub))
    placed = np.zeros(len(ukey), dtype=bool)
    index = np.arange(len(ukey))
    doc_tpos = np.searchsorted(topics, doc_topic)
    keep = 1.0 - alpha
    for step in range(steps):
        score = np.einsum("ij,ij->i", rel, subgain[doc_topic])
        score[placed] = -1.0
        best = np.maximum.reduceat(score, starts)
        active = best >= 0
        if not active.any() or best.max() <= 0.0:
            break
        first = np.minimum.reduceat(np.where(score == best[doc_tpos], index, len(index)), starts)
        t, first, best = topics[active], first[active], best[active]
        out[t, step] = best
        placed[first] = True
        subgain[t] *= np.where(rel[first] > 0, keep, 1.0)
    return out


def _cutoff_steps(inp: MetricInput) -> int:
    return int(inp.k) if inp.k is not None else int(inp.ranked.length.max(initial=0))


@metric(
    "alpha_ndcg",
    params=(_ALPHA, _THRESHOLD),
    uses=frozenset({"discount"}),
    needs_subtopics=True,
    formula="α-nDCG@k = sum_{i<=k} G(i) d(i) / same over the greedy ideal ranking; "
                 "G(i) = sum_s rel_s(i) (1-α)^{#earlier docs relevant to s}",
    source=f"Clarke et al., SIGIR 2008; {NDEVAL} idealResult (367-415), computeDCG (667-713), "
                "renormalize (1159-1171)",
    description="alpha-nDCG over subtopic qrels, ndeval's greedy ideal ranking (ties: larger docno)",
)
def alpha_ndcg(inp: MetricInput, alpha: float, threshold: float) -> MetricOutput:
    """α-nDCG@k = α-DCG@k(run) / α-DCG@k(greedy ideal); see the module docstring.

    :returns: values and ``defined`` (a relevant subtopic judgment exists), ``(q,)``.
    """
    gain, n_sub = _position_gains(inp, alpha, threshold)
    assert inp.discount is not None  # the metric uses a discount
    w = np.where(inp.in_cutoff(), inp.discount(inp.ranked.rank), 0.0)
    dcg = inp.per_query(gain * w)
    steps = _cutoff_steps(inp)
    ideal_gain = greedy_ideal_gains(inp, alpha, threshold, steps)
    ideal = ideal_gain @ inp.discount(np.arange(1, steps + 1, dtype=np.int64)) if steps else np.zeros(inp.n_queries)
    defined = (n_sub > 0) & (ideal > 0)
    values = np.zeros(inp.n_queries)
    np.divide(dcg, ideal, out=values, where=defined)
    return MetricOutput(values, defined)


@metric(
    "err_ia",
    params=(_ALPHA, _THRESHOLD,
                Param("norm", "str", "independent",
                      "independent: ndeval's ERR-IA (collection-independent); ideal: nERR-IA "
                      "(divided by the greedy ideal ranking's ERR-IA)",
                      choices=("independent", "ideal"))),
    needs_subtopics=True,
    formula="ERR-IA@k = sum_{i<=k} G(i)/i / (|S| sum_{i<=k} (1-α)^{i-1}/i), |S| = subtopics with a "
                 "relevant document; norm=ideal: / sum_{i<=k} G*(i)/i of the greedy ideal ranking",
    source=f"Chapelle et al., CIKM 2009; Agrawal et al., WSDM 2009; {NDEVAL} computeERR (613-658), "
                "actualSubtopics (352), renormalize (1159-1171)",
    description="intent-aware ERR over subtopic qrels, ndeval's normalisations",
)
def err_ia(inp: MetricInput, alpha: float, threshold: float, norm: str) -> MetricOutput:
    """ERR-IA@k (``norm=independent``: ndeval's collection-independent normalisation)
    or nERR-IA@k (``norm=ideal``: divided by the greedy ideal ranking's value); see the
    module docstring. Without a cutoff, ``k`` is the length of the topic's ranking.

    :returns: values and ``defined`` (a relevant subtopic judgment exists), ``(q,)``.
    """
    gain, n_sub = _position_gains(inp, alpha, threshold)
    rank = inp.ranked.rank
    num = inp.per_query(np.where(inp.in_cutoff(), gain / rank, 0.0))
    steps = _cutoff_steps(inp)
    if norm == "ideal":
        ideal_gain = greedy_ideal_gains(inp, alpha, threshold, steps)
        denom = ideal_gain @ (1.0 / np.arange(1, steps + 1)) if steps else np.zeros(inp.n_queries)
    else:
        i = np.arange(1, steps + 1, dtype=np.float64)
        harmonic = np.concatenate(([0.0], np.cumsum(np.power(1.0 - alpha, i - 1) / i)))
        depth = np.full(inp.n_queries, steps) if inp.k is not None else inp.ranked.length
        denom = n_sub * harmonic[np.minimum(depth, steps)]
    defined = (n_sub > 0) & (denom > 0)
    values = np.zeros(inp.n_queries)
    np.divide(num, denom, out=values, where=defined)
    return MetricOutput(values, defined)


@hookimpl
def evalkit_register_metrics() -> Any:
    return declared(__name__, Metric)

