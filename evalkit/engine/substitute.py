"""Grades substituted for the unjudged documents of a joined run, after its one sort
(the bounds of :mod:`evalkit.bounds`, issue 30).

:func:`unjudged_rows` picks the rows a group of flavours reads; :func:`substituted`
gives them a grade: a new :class:`Problem` whose keys carry the grade at those rows
and whose judged grades (the ideal's pool) hold them too, as if the qrels had judged
them. The new problem reuses the original's sorts (a tie policy that read no grade
orders the rows the same under any grades), so every flavour, metric and plugin
metric then evaluates on it through :func:`~evalkit.engine.evaluate.evaluate_problem`
unchanged: no metric-specific code.

Everything is columnar: no Python loop over queries or documents.
"""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from ..data import Qrels, Run, SubtopicQrels
from ..flavour import Flavour
from ..registry import Registry, registry_or_default
from .checks import EmptyEvaluationWarning, nothing_evaluated
from .evaluate import Evaluation, _warn_all_left_out, evaluate_flavours, prepare_evaluation, resolve
from .problem import Problem, build_problem

__all__ = ["BoundValues", "evaluate_bounds", "first_and_last", "high_grades", "judged_rows", "substituted",
           "unjudged_rows"]


def judged_rows(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, grades)`` of the problem's judged key rows (``int64`` ascending,
    ``float64``)."""
    keys = problem.keys
    if keys._judged is not None:
        rows, grades = keys._judged
        return np.asarray(rows, dtype=np.int64), np.asarray(grades, dtype=np.float64)
    grade = keys._grade if keys._grade is not None else keys.grade
    rows = np.flatnonzero(~np.isnan(grade))
    return rows, grade[rows]


def unjudged_rows(problem: Problem, cut: int | None, everything: bool, negative_judged: bool) -> np.ndarray:
    """The key rows to substitute: unjudged (no judgment; or a negative grade, unless
    ``negative_judged``) and, unless ``everything``, within the first ``cut`` ranks of
    any score order (fewer than ``cut`` rows of the query with a strictly higher
    ``float32`` score; ``cut=None``: every row): ``int64`` rows, ascending.

    The ``cut``-th largest ``float32`` score of each query is read from
    :meth:`~evalkit.engine.ranking.SortKeys.score_order` (``O(n)`` on a run already
    sorted by score); a row is within the cut when its score reaches it.
    """
    keys = problem.keys
    n = len(keys.query)
    rows, grades = judged_rows(problem)
    unjudged = np.ones(n, dtype=bool)
    unjudged[rows if negative_judged else rows[grades >= 0]] = False
    if cut is None or everything or n == 0:
        return np.flatnonzero(unjudged)
    s32 = np.asarray(keys.score, dtype=np.float64).astype(np.float32)
    order = keys.score_order()
    offsets = keys.query_offsets(problem.n_queries)
    length = np.diff(offsets)
    threshold = np.full(problem.n_queries, -np.inf, dtype=np.float32)
    long = np.flatnonzero(length > cut)
    threshold[long] = s32[order[offsets[long] + cut - 1]]
    return np.flatnonzero(unjudged & (s32 >= threshold[keys.query]))


def substituted(problem: Problem, rows: np.ndarray, grades: np.ndarray) -> Problem:
    """``problem`` with the key rows ``rows`` (``int64`` ascending, from
    :func:`unjudged_rows`) judged ``grades`` (``float64`` ``(len(rows),)``).

    The ranked documents read the new grades; the judged grades (the pool an IDCG
    strategy, a recall denominator or a grade normalisation reads) lose the judgments
    the rows had (negative grades, read as "judged but not in the pool") and gain the new
    ones, appended to each query's judgments in row order, as qrels with those lines
    appended would give. Sorts are shared with ``problem`` (:meth:`Problem.ranked`),
    re-done only for a tie policy that read the grades.
    """
    rows = np.asarray(rows, dtype=np.int64)
    grades = np.asarray(grades, dtype=np.float64)
    keys = problem.keys
    j_rows, j_grades = judged_rows(problem)
    jg, jo = problem.judged_grade, problem.judged_offsets
    nq = problem.n_queries
    was_judged = np.zeros(len(j_rows), dtype=bool)
    if len(j_rows) and len(rows):
        at = np.minimum(np.searchsorted(j_rows, rows), len(j_rows) - 1)
        hit = j_rows[at] == rows
        was_judged[at[hit]] = True
    # the keys: judged rows with the substituted ones replaced or added, by row
    stay_rows, stay_grades = j_rows[~was_judged], j_grades[~was_judged]
    new_rows = np.empty(len(stay_rows) + len(rows), dtype=np.int64)  # two sorted lists merged
    new_grades = np.empty(len(new_rows), dtype=np.float64)
    at_new = np.searchsorted(stay_rows, rows) + np.arange(len(rows))
    at_stay = np.searchsorted(rows, stay_rows) + np.arange(len(stay_rows))
    new_rows[at_new], new_grades[at_new] = rows, grades
    new_rows[at_stay], new_grades[at_stay] = stay_rows, stay_grades
    new_keys = copy.copy(keys)
    new_keys._grade, new_keys._judged = None, (new_rows, new_grades)
    new_keys.grade_reads = 0
    # the judged grades: each query's old judgments (less the replaced ones), then its new ones
    keep = np.ones(len(jg), dtype=bool)
    if was_judged.any():
        keep[problem.judged_positions(j_rows[was_judged])] = False
    old_query = np.repeat(np.arange(nq, dtype=np.int64), np.diff(jo))
    kept_per_q = np.bincount(old_query[keep], minlength=nq)
    new_query = np.asarray(keys.query)[rows]
    added_per_q = np.bincount(new_query, minlength=nq)
    offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(kept_per_q + added_per_q, out=offsets[1:])
    judged = np.empty(int(offsets[-1]), dtype=np.float64)
    kept_q = old_query[keep]
    kept_start = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(kept_per_q, out=kept_start[1:])
    judged[offsets[kept_q] + np.arange(len(kept_q)) - kept_start[kept_q]] = jg[keep]
    add_start = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(added_per_q, out=add_start[1:])
    by_query = np.argsort(new_query, kind="stable")  # already grouped: rows are laid out by query
    nq_sorted = new_query[by_query]
    judged[offsets[nq_sorted] + kept_per_q[nq_sorted] + np.arange(len(rows)) - add_start[nq_sorted]] = \
        grades[by_query]
    out = Problem(problem.qids, offsets, judged, new_keys, problem.in_run, problem._docno_vocab,
                  sorted_queries=problem.sorted_queries)
    out._parent = problem
    return out


def high_grades(problem: Problem, high: float | str | None, qrels_max: float) -> np.ndarray:
    """The grade given to each query's substituted documents: ``float64`` ``(q,)``.

    :param high: ``None``: ``qrels_max`` (the qrels' largest grade); ``"query"``: the
        query's own largest judged grade, at least 1; a number: that grade.
    """
    nq = problem.n_queries
    if high is None:
        return np.full(nq, float(qrels_max))
    if isinstance(high, str):
        jg, jo = problem.judged_grade, problem.judged_offsets
        top = np.full(nq, -np.inf)
        filled = np.flatnonzero(np.diff(jo) > 0)
        if len(filled):
            top[filled] = np.maximum.reduceat(np.asarray(jg, dtype=np.float64), jo[filled])
        return np.maximum(top, 1.0)
    return np.full(nq, float(high))


def first_and_last(problem: Problem, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the rows ``rows`` (``int64`` ascending): each one's 0-based place among its
    query's rows by ``float32`` score descending (equal scores in row order), and its
    query's number of them: two ``int64`` arrays of ``len(rows)``."""
    keys = problem.keys
    query = np.asarray(keys.query)[rows]
    s32 = np.asarray(keys.score, dtype=np.float64)[rows].astype(np.float32).astype(np.float64)
    order = np.lexsort((rows, -s32, query))
    n = np.bincount(query, minlength=problem.n_queries)
    start = np.zeros(problem.n_queries + 1, dtype=np.int64)
    np.cumsum(n, out=start[1:])
    place = np.empty(len(rows), dtype=np.int64)
    place[order] = np.arange(len(rows), dtype=np.int64) - start[query[order]]
    return place, n[query]


def substituted_subtopics(problem: Problem, subtopics: SubtopicQrels, rows: np.ndarray,
                          high: float | str | None) -> SubtopicQrels:
    """Subtopic qrels in which the documents of the key rows ``rows`` (unjudged:
    :func:`unjudged_rows`) are judged ``high`` for *every* subtopic of their topic,
    any subtopic judgment they had replaced: the per-subtopic substitution of the
    intent-aware metrics (their grades are per subtopic, the engine reads them from
    these qrels, :class:`~evalkit.engine.intents.IntentProblem`).

    :param high: ``None``: the subtopic qrels' largest grade; ``"query"``: the topic's
        largest subtopic grade, at least 1; a number: that grade.
    """
    keys = problem.keys
    topic = np.asarray(problem.qids, dtype=object)[np.asarray(keys.query)[rows]]
    docno = problem.docno_vocab[np.asarray(keys.docno)[rows]] if len(rows) else np.empty(0, dtype=object)
    sub_t, sub_s = np.asarray(subtopics.qid, dtype=object), np.asarray(subtopics.subtopic, dtype=object)
    picked = set(zip(topic.tolist(), docno.tolist()))
    keep = np.array([(t, d) not in picked for t, d in zip(sub_t.tolist(), subtopics.docno.tolist())], dtype=bool)
    pairs = sorted(set(zip(sub_t.tolist(), sub_s.tolist())))  # every (topic, subtopic)
    by_topic: dict[str, list[str]] = {}
    for t, s in pairs:
        by_topic.setdefault(t, []).append(s)
    grade = np.asarray(subtopics.grade, dtype=np.float64)
    if high is None:
        top: dict[str, float] = dict.fromkeys(by_topic, float(grade.max()) if len(grade) else 1.0)
    elif isinstance(high, str):
        top = {}
        for t, g in zip(sub_t.tolist(), grade.tolist()):
            top[t] = max(top.get(t, 1.0), g)
    else:
        top = dict.fromkeys(by_topic, float(high))
    add = [(t, s, d, top[t]) for t, d in zip(topic.tolist(), docno.tolist()) for s in by_topic.get(t, ())]
    cols = list(zip(*add)) if add else [(), (), (), ()]
    return SubtopicQrels(
        np.concatenate([sub_t[keep], np.array(cols[0], dtype=object)]),
        np.concatenate([sub_s[keep], np.array(cols[1], dtype=object)]),
        np.concatenate([np.asarray(subtopics.docno, dtype=object)[keep], np.array(cols[2], dtype=object)]),
        np.concatenate([grade[keep], np.array(cols[3], dtype=np.float64)]),
        np.concatenate([np.asarray(subtopics.line)[keep], np.zeros(len(add), dtype=np.int64)]),
        subtopics.source, subtopics.weights)


@dataclass(frozen=True)
class BoundValues:
    """:func:`evaluate_bounds`' per-query values, each ``float64`` ``(runs, columns,
    q)`` in sorted qid order (columns as :attr:`Evaluation.flavours`), and
    ``unjudged``: ``int64``, the documents substituted."""

    value: np.ndarray
    at_low: np.ndarray
    at_high: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    condensed: np.ndarray
    unjudged: np.ndarray
    setup: Evaluation


def evaluate_bounds(qrels: Qrels, runs: Run | Sequence[Run] | Mapping[str, Run],
                    flavours: Iterable[Flavour | str] | Flavour | str, *, labels: Sequence[str] | None,
                    plan: Callable[[Flavour], tuple[int | None, bool, bool]], condensed: Callable[[Flavour], Flavour],
                    high: float | str | None = None, low: float | None = None, search: bool = False,
                    registry: Registry | None = None, subtopics: SubtopicQrels | None = None) -> BoundValues:
    """Every flavour evaluated as :func:`~evalkit.engine.evaluate.evaluate` does, and
    again with grades substituted (:func:`substituted`) on the same joined and sorted
    run: one join and one sort per run and tie policy for all of them.

    :param plan: ``plan(flavour) -> (cut, everything, negative_judged)``, the
        arguments of :func:`unjudged_rows` (flavours with the same plan share one
        substituted problem).
    :param condensed: ``condensed(flavour)``: the flavour whose value is the condensed one.
    :param high: as :func:`high_grades`; :param low: ``None`` (``at_low`` is the
        value) or the grade of the substituted documents in ``at_low``.
    :param search: also substitute, for ``i = 1 .. n - 1``, only the first ``i`` (then
        the last ``i``) of each query's rows by score and widen ``lower`` / ``upper``
        to the extremes found.
    :param subtopics: subtopic qrels (intent-aware flavours): substituted too, the
        documents judged ``high`` for every subtopic of their topic
        (:func:`substituted_subtopics`).
    :raises EvaluationError, FlavourError: as :func:`~evalkit.engine.evaluate.evaluate`.
    """
    registry = registry_or_default(registry)
    setup = prepare_evaluation(qrels, runs, flavours, labels, subtopics, registry)
    resolved = setup.resolved
    cond = [resolve(condensed(res.flavour), registry) for res in resolved]
    shape = (len(setup.runs), len(resolved), len(qrels.qids))
    value, lo, hi, cd = (np.full(shape, np.nan) for _ in range(4))
    lo_s, hi_s = np.full(shape, np.nan), np.full(shape, np.nan)
    count = np.zeros(shape, dtype=np.int64)
    groups: dict[tuple[int | None, bool, bool], list[int]] = {}
    for f, res in enumerate(resolved):
        groups.setdefault(plan(res.flavour), []).append(f)
    qrels_max = float(np.max(qrels.grade)) if len(qrels) else 1.0
    for s, run in enumerate(setup.runs):
        problem = build_problem(qrels, run, block_order=True)
        if not problem.in_run.any():
            warnings.warn(EmptyEvaluationWarning(nothing_evaluated(qrels, run)), stacklevel=2)
        value[s] = evaluate_flavours(problem, resolved, qrels, run, subtopics)
        if problem.in_run.any():
            _warn_all_left_out(run.name, value[s], resolved)
        back = problem.sorted_queries
        top = high_grades(problem, high, qrels_max)
        with warnings.catch_warnings():  # the value's evaluation warned already
            warnings.simplefilter("ignore")
            cd[s] = evaluate_flavours(problem, cond, qrels, run, subtopics)
            for (cut, everything, negative_judged), idx in groups.items():
                sub = [resolved[i] for i in idx]
                rows = unjudged_rows(problem, cut, everything, negative_judged)
                query = np.asarray(problem.keys.query)[rows]
                n = np.bincount(query, minlength=problem.n_queries)
                count[s, idx] = n if back is None else n[back]
                aug = None if subtopics is None else substituted_subtopics(problem, subtopics, rows, high)
                hi[s, idx] = evaluate_flavours(substituted(problem, rows, top[query]), sub, qrels, run, aug)
                if low is None:
                    lo[s, idx] = value[s, idx]
                else:
                    aug = None if subtopics is None else substituted_subtopics(problem, subtopics, rows, low)
                    lo[s, idx] = evaluate_flavours(substituted(problem, rows, np.full(len(rows), float(low))),
                                                   sub, qrels, run, aug)
                if not search:
                    continue
                place, n_q = first_and_last(problem, rows)
                for i in range(1, int(n_q.max(initial=0))):
                    for chosen, target, better in ((place < i, hi_s, np.fmax), (place >= n_q - i, lo_s, np.fmin)):
                        part = rows[chosen]
                        aug = None if subtopics is None else substituted_subtopics(problem, subtopics, part, high)
                        got = evaluate_flavours(substituted(problem, part, top[query[chosen]]), sub, qrels, run,
                                                aug)
                        target[s, idx] = better(target[s, idx], got)
    hi_s, lo_s = np.fmax(hi_s, np.fmax(lo, hi)), np.fmin(lo_s, np.fmin(lo, hi))
    col = setup.column
    return BoundValues(value[:, col], lo[:, col], hi[:, col], lo_s[:, col], hi_s[:, col], cd[:, col],
                       count[:, col], setup)
