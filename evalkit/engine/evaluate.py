"""Evaluating runs against qrels under many flavours.

Each run is joined with the qrels once and sorted once per distinct tie policy;
every flavour reuses those arrays. Components are resolved from the registry once
per call, so no per-query work goes through a plugin hook.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Iterable, Mapping, Sequence

import numpy as np

from ..data import Qrels, Run, SubtopicQrels
from ..errors import (HOW_TO_KEEP_RANK, ArgumentError, EvaluationError, FlavourError, InvalidGradeError,
                      NegativeGradeError, RankColumnError)
from ..flavour import Flavour
from ..kernel import MetricInput
from ..results import Results
from .checks import (ComponentOutputError, EmptyEvaluationWarning, checked, checked_idcg, format_number,
                     nothing_evaluated)
from ..rounding import round_decimals
from .conventions import apply_conventions
from .divergence import warn_interleaved_topics
from .grades import GRADE_RULES, check_grades, library_grade
from .memory import without_hugepage_advice
from .problem import Problem, build_problem
from ..registry import registry_or_default


@dataclass(frozen=True)
class _Resolved:
    flavour: Flavour
    metric: object
    metric_kw: dict
    ties: object
    ties_kw: dict
    gain: object
    discount: object
    idcg: object


def _bound(registry, family, ref, negative_grades: bool = False, grades: str = "any"):
    if ref is None:
        return None
    comp = registry.get(family, ref.name)
    fn = partial(comp.fn, **comp.bind(ref.params))
    if family == "gain" and grades != "any":  # the grades convention: the library's integer label
        fn = library_grade(fn, grades)
    if family in ("gain", "discount"):
        return checked(family, str(ref), fn, negative_grades and family == "gain")
    return checked_idcg(str(ref), fn, negative_grades) if family == "idcg" else fn


def resolve(flavour: Flavour, registry) -> _Resolved:
    """Look up a flavour's components once; returns bound, vectorised callables."""
    metric = registry.metric(flavour.metric)
    ties = registry.get("ties", flavour.ties.name)
    return _Resolved(
        flavour=flavour,
        metric=metric,
        metric_kw=metric.bind(flavour.params),
        ties=ties,
        ties_kw=ties.bind(flavour.ties.params),
        gain=_bound(registry, "gain", flavour.gain, flavour.convention("negative") == "gain",
                    flavour.convention("grades")),
        discount=_bound(registry, "discount", flavour.discount),
        idcg=_bound(registry, "idcg", flavour.idcg, flavour.convention("negative") == "gain"),
    )


def needs_rank(flavours: Iterable[Flavour | str], registry=None) -> bool:
    """Whether a flavour (or preset spec) of ``flavours`` orders the run by its rank
    column (its tie policy ``needs_rank``, as ``ties=rank`` and the ``ndeval.*``
    presets): readers should then keep the column (``read_run(..., keep_rank=True)``).

    :raises FlavourError: an unknown name, component or parameter.
    """
    from ..presets import expand_labelled

    registry = registry_or_default(registry)
    if isinstance(flavours, (str, Flavour)):
        flavours = [flavours]
    return any(registry.get("ties", fl.ties.name).needs_rank
               for spec in flavours for _, _, fl in expand_labelled(spec, registry))


def _check_rank(run: Run, resolved: Sequence[_Resolved]) -> None:
    """Raise :class:`RankColumnError` if a flavour needs ``run``'s rank column and the
    run has none (before any work, naming the run and the flavour)."""
    if getattr(run, "rank", None) is not None:
        return
    for res in resolved:
        if res.ties.needs_rank:
            raise RankColumnError(f"{res.flavour}: run {run.name!r} ({run.source}) has no rank column; tie "
                                  f"policy '{res.ties.name}' orders the run by it: {HOW_TO_KEEP_RANK}")


def _located_rank(exc: RankColumnError, run: Run, problem: Problem, flavour: Flavour) -> RankColumnError:
    """``exc`` (two rows sharing a rank) with the run, query, documents and file lines."""
    if exc.rows is None:
        return RankColumnError(f"{flavour}: run {run.name!r}: {exc}")
    a, b = (int(i) for i in exc.rows)
    where = f"{run.source}:{int(run.line[a])} and :{int(run.line[b])}"
    return RankColumnError(f"{flavour}: run {run.name!r} ({where}): query {run.qid[a]!r}: documents "
                           f"{run.docno[a]!r} and {run.docno[b]!r} share rank {exc.rank}; ndeval refuses "
                           "duplicate ranks (ndeval.c:1099-1106)", exc.rows, exc.rank)


def _check_type(value, cls, name: str):
    if not isinstance(value, cls):
        raise ArgumentError(f"{name} must be a {cls.__name__}, got {type(value).__name__} "
                            f"(read files with evalkit.read_{cls.__name__.lower()})")
    return value


def _as_runs(runs) -> list[Run]:
    if isinstance(runs, Run):
        return [runs]
    if isinstance(runs, Mapping):
        runs = {name: _check_type(r, Run, f"runs[{name!r}]") for name, r in runs.items()}
        return [r.renamed(str(name)) for name, r in runs.items()]
    if isinstance(runs, (str, bytes)) or not isinstance(runs, Iterable):
        raise ArgumentError(f"runs must be a Run, a list of Runs or a {{name: Run}} mapping, "
                            f"got {type(runs).__name__} (read files with evalkit.read_run)")
    runs = [_check_type(r, Run, f"runs[{i}]") for i, r in enumerate(runs)]
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise EvaluationError(f"two runs share the name(s) {', '.join(dup)}; give them distinct names")
    return runs


def prepare_input(problem: Problem, resolved: _Resolved, subtopics=None) -> MetricInput:
    """A metric's input for one flavour on one joined run: the run sorted under the
    flavour's tie policy (once per policy, cached on ``problem``), truncated by the
    ``depth`` and ``judged_only`` conventions, with the bound gain (and its
    ``min_grade``), discount, IDCG strategy and cutoff.

    :func:`evaluate_problem` and :func:`evalkit.explain.explain_query` both build the
    metric's input here, so an explanation shows the engine's own numbers.

    :raises EvaluationError: the metric needs subtopic qrels and none are given.
    """
    fl = resolved.flavour
    ranked = problem.ranked(resolved.ties, resolved.ties_kw, depth=fl.convention("depth"),
                            judged_only=fl.convention("judged_only") == "yes",
                            run_filter=fl.convention("run_filter"),
                            keep_negative=fl.convention("negative") == "gain",
                            drop_negative=fl.convention("negative") == "drop")
    intents = None
    if resolved.metric.needs_subtopics:
        if subtopics is None:
            raise EvaluationError(f"metric '{fl.metric}' needs subtopic qrels "
                                  "(subtopic_qrels: in a config, --subtopic-qrels for evalkit eval)")
        from .intents import IntentProblem

        # one expansion per (subtopic qrels, sorted ranking): every intent-aware flavour
        # with the same tie policy and truncation reuses it
        key = ("intents", id(subtopics), id(ranked))
        hit = problem._cache.get(key)
        if hit is None or hit[0] is not subtopics or hit[1] is not ranked:
            hit = problem._cache[key] = (subtopics, ranked, IntentProblem.build(problem, subtopics, ranked))
        intents = hit[2]
    return MetricInput(
        ranked=ranked,
        judged_grade=problem.judged_grade,
        judged_offsets=problem.judged_offsets,
        k=fl.k,
        gain=resolved.gain,
        discount=resolved.discount,
        idcg=resolved.idcg,
        subtopics=intents,
        min_grade=fl.convention("min_grade"),
        negative=fl.convention("negative"),
        # gains, discounts, cutoff positions and ideal rankings are shared by the
        # flavours of this run (keyed by the flavour's component references)
        _shared=problem._cache,
        _gain_key=fl.gain if fl.convention("grades") == "any" else (fl.gain, fl.convention("grades")),
        _discount_key=fl.discount,
    )


def metric_output(problem: Problem, resolved: _Resolved, inp: MetricInput):
    """The metric kernel's ``(values, defined)`` on ``inp`` (``float64`` / ``bool``
    ``(q,)``), before the conventions.

    :raises EvaluationError: the kernel returned arrays of the wrong shape.
    """
    out = resolved.metric.fn(inp, **resolved.metric_kw)
    values = np.array(out.values, dtype=np.float64)
    defined = np.asarray(out.defined, dtype=bool)
    if values.shape != (problem.n_queries,) or defined.shape != values.shape:
        raise EvaluationError(
            f"metric '{resolved.flavour.metric}' returned shape {values.shape}, expected ({problem.n_queries},)"
        )
    return values, defined


def first_judgment(problem: Problem, mask: np.ndarray) -> int:
    """Index into ``problem.judged_grade`` of the first ``True`` of ``mask`` (``bool``
    ``(m,)``, at least one) in sorted qid order, as without block order."""
    first = np.flatnonzero(mask)
    if problem.sorted_queries is not None:
        query = np.searchsorted(problem.judged_offsets, first, side="right") - 1
        sorted_position = np.empty(len(problem.sorted_queries), dtype=np.int64)
        sorted_position[problem.sorted_queries] = np.arange(len(problem.sorted_queries))
        first = first[[int(np.argmin(sorted_position[query]))]]
    return int(first[0])


def refuse_negative_grades(problem: Problem, flavour: Flavour) -> None:
    """The ``negative=error`` convention: raise if any judged grade of the problem's
    qrels is negative, as scikit-learn ``ndcg_score`` does for any negative ``y_true``
    (sklearn/metrics/_ranking.py ``ndcg_score``: "ndcg_score should not be used on
    negative y_true values."). One vectorised test over the judged grades.

    :raises NegativeGradeError: naming the first such grade; :func:`evaluate` and
        :func:`evalkit.arrays.score` add its query and document (file and line, or row
        and column).
    """
    neg = problem.judged_grade < 0  # False for NaN (unjudged)
    if neg.any():
        v = float(problem.judged_grade[first_judgment(problem, neg)])
        raise NegativeGradeError(v, f"grade {format_number(v)} is negative and the flavour has negative=error "
                                 f"({int(neg.sum())} negative judgment(s); scikit-learn's ndcg_score refuses negative "
                                 "labels, and the presets that reproduce it; see the preset's description "
                                 "in `evalkit flavours --verbose`)",
                                 f"{flavour}: ")


def _warn_all_left_out(run_name: str, values: np.ndarray, resolved: Sequence[_Resolved]) -> None:
    """Warn for each flavour whose ``(q,)`` values of one run are all ``NaN`` although
    the run shares queries with the qrels: its conventions (``empty=skip``,
    ``run_filter=unjudged``, ``missing=skip``) left every query out and its mean would
    be a silent ``NaN``. One vectorised test over ``values`` (``(F, q)``)."""
    import warnings

    for f in np.flatnonzero(np.isnan(values).all(axis=1)):
        warnings.warn(EmptyEvaluationWarning(
            f"run '{run_name}': {resolved[f].flavour} leaves out every query the run shares with the qrels "
            "(its empty / missing / run_filter conventions: e.g. empty=skip and no query has a relevant "
            "judgment); its mean is undefined (NaN)"), stacklevel=4)


def evaluate_problem(problem: Problem, resolved: _Resolved, subtopics=None, run_name: str = "run",
                     inp: MetricInput | None = None) -> np.ndarray:
    """Per-query values of one flavour on one joined run: ``float64`` ``(q,)`` in
    sorted qid order (``qrels.qids``; :attr:`Problem.sorted_queries` maps a problem
    built in block order back), ``NaN`` where a convention leaves the query out.

    :param inp: the metric's input from :func:`prepare_input` (built if ``None``).
    :raises EvaluationError: a convention set to ``error`` is triggered
        (:class:`~evalkit.errors.NegativeGradeError` for ``negative=error``;
        :class:`~evalkit.errors.InvalidGradeError` for a grade ``grades=lightgbm`` or
        ``grades=xgboost`` refuses).
    """
    fl = resolved.flavour
    if fl.convention("negative") == "error":
        refuse_negative_grades(problem, fl)
    if fl.convention("grades") in GRADE_RULES:
        check_grades(problem, fl, partial(first_judgment, problem))
    if inp is None:
        inp = prepare_input(problem, resolved, subtopics)
    try:
        values, defined = metric_output(problem, resolved, inp)
    except ComponentOutputError as exc:
        if exc.family != "idcg" or exc.value is None:
            raise
        raise ComponentOutputError(exc.family, exc.component, None,
                                   f"run {run_name!r}: query {problem.qids[int(exc.value)]!r}: {exc.detail}",
                                   f"{fl}: ") from None
    qids, in_run, empty_ranking = problem.qids, problem.in_run, None
    if fl.convention("run_filter") == "unjudged":  # a query left without documents is absent
        empty_ranking = np.diff(inp.ranked.offsets) == 0
    order = problem.sorted_queries
    if order is not None:  # queries numbered in the run's block order: back to sorted qid order
        values, defined, qids, in_run = values[order], defined[order], qids[order], in_run[order]
        empty_ranking = None if empty_ranking is None else empty_ranking[order]
    overflow = defined & ~np.isfinite(values)
    if overflow.any():  # e.g. a DCG sum of finite gains that overflows float64
        i = int(np.flatnonzero(overflow)[0])
        raise EvaluationError(f"{fl}: run {run_name!r}: query {qids[i]!r}: the value is {values[i]!r}, "
                              "not a finite number (a gain, discount or their sum overflows float64)")

    def error(kind: str, mask: np.ndarray) -> EvaluationError:
        bad = ", ".join(map(str, qids[mask][:5]))
        if kind == "empty":
            return EvaluationError(f"{fl}: run {run_name!r}: queries with no relevant judged document: {bad}")
        return EvaluationError(f"{fl}: run {run_name!r} has no results for qrels queries: {bad}")

    absent = ~in_run
    missing_rule = fl.convention("missing")
    if missing_rule == "score":  # the kernel's value on the empty ranking (trec_eval 10.0 -c)
        absent, missing_rule = np.zeros_like(absent), "skip"
    if empty_ranking is not None:
        absent = absent | empty_ranking
    out = apply_conventions(values, defined, absent, empty=fl.convention("empty"),
                            missing_rule=missing_rule, error=error)
    if fl.convention("complement") == "yes":
        out = 1.0 - out
    return round_decimals(out, fl.convention("round"), fl.convention("rounding"))


def _located(exc: ComponentOutputError, flavour: Flavour, qrels: Qrels) -> EvaluationError:
    """``exc`` with the flavour and, for a gain, the first judgment holding the
    offending grade (query, document, file and line) named."""
    where = _judgment_of(exc.value, qrels) if exc.family == "gain" and exc.value is not None else ""
    return ComponentOutputError(exc.family, exc.component, exc.value, exc.detail + where, f"{flavour}: ")


def _judgment_of(grade: float, qrels: Qrels) -> str:
    """`` (query .., document .., grade ..: file:line)`` of the first judgment with
    ``grade``, or ``""``."""
    rows = np.flatnonzero(qrels.grade == grade)
    if not len(rows):
        return ""
    i = int(rows[0])
    return (f" (query {qrels.qid[i]!r}, document {qrels.docno[i]!r}, grade {format_number(grade)}: "
            f"{qrels.source}:{int(qrels.line[i])})")


@without_hugepage_advice
def evaluate(
    qrels: Qrels,
    runs: Run | Sequence[Run] | Mapping[str, Run],
    flavours: Iterable[Flavour | str] | Flavour | str,
    *,
    labels: Sequence[str] | None = None,
    subtopics: SubtopicQrels | None = None,
    registry=None,
) -> Results:
    """Evaluate ``runs`` against ``qrels`` under every flavour.

    :param qrels: judgments (:func:`evalkit.read_qrels` or :meth:`Qrels.from_rows`).
    :param runs: one run, a list of runs with distinct names, or ``{name: run}``.
    :param flavours: flavours, canonical strings, preset specs
        (``"trec_eval.ndcg_cut@10"``) or trec_eval / ir_measures names (``"ndcg_cut.10"``,
        ``"nDCG@10"``); a preset with several default cutoffs adds one flavour per
        cutoff. Specs that give the same flavour are evaluated once and kept as
        separate columns.
    :param labels: display names, one per flavour after expansion; default: the spec
        as written (``preset@k`` per default cutoff). Labels must be distinct.
    :param subtopics: subtopic qrels, needed by intent-aware metrics.
    :returns: :class:`Results` with values of shape ``(n_runs, n_flavours, n_queries)``.
    :raises FlavourError: unknown name, component or parameter; a label given twice.
    :raises EvaluationError: a convention set to ``error`` is triggered (under
        ``negative=error`` a :class:`~evalkit.errors.NegativeGradeError` naming the first
        negative judgment's query, document, file and line; under ``grades=lightgbm`` or
        ``grades=xgboost`` an :class:`~evalkit.errors.InvalidGradeError` for a grade the
        library refuses as a label, likewise located); a value is not finite; a gain or discount returns a wrong shape, NaN, an infinity or a negative value
        (:class:`~evalkit.errors.ComponentOutputError`, naming the component and, for a
        gain, the query, document and grade).
    :raises ArgumentError: ``qrels``, ``runs`` or ``subtopics`` has the wrong type.
    :raises RankColumnError: a flavour orders runs by their rank column (``ties=rank``,
        the ``ndeval.*`` presets) and a run has none (read it with
        ``read_run(..., keep_rank=True)``), or two documents of a query share a rank.
    :warns EmptyEvaluationWarning: a run shares no query with the qrels (or either is
        empty): its values are all left out (or 0 under ``missing=zero``). Evaluating a
        partition of the queries can do that on purpose; the command line and
        :func:`evalkit.run_config` refuse it instead (:func:`require_common_queries`).
        Also when a flavour's conventions leave out every query a run shares with the
        qrels (``empty=skip`` and no query has a relevant judgment, as gdeval.pl then
        reports no topic): that mean is ``NaN``, undefined.
    :warns ReferenceDivergenceWarning: a flavour is a preset's (named or spelt out)
        whose library computes otherwise on this run (:mod:`evalkit.engine.divergence`:
        a judged topic whose lines are not contiguous, under the pyndeval-based
        ``ir_measures.alpha_nDCG`` / ``ERR_IA`` / ``nERR_IA`` and ``pyndeval.*``); the
        values are evalkit's (each topic whole).
    """
    from ..presets import expand_labelled

    _check_type(qrels, Qrels, "qrels")
    if subtopics is not None:
        _check_type(subtopics, SubtopicQrels, "subtopics")
    registry = registry_or_default(registry)
    if isinstance(flavours, (str, Flavour)):
        flavours = [flavours]
    elif not isinstance(flavours, Iterable):
        raise ArgumentError(f"flavours must be a flavour string, a Flavour or a list of them, "
                            f"got {type(flavours).__name__}")
    expanded: list[Flavour] = []
    default_labels: list[str] = []
    for spec in flavours:
        for label, _, fl in expand_labelled(spec, registry):
            expanded.append(fl)
            default_labels.append(label)
    if labels is None:
        labels = default_labels
    elif len(labels) != len(expanded):
        raise FlavourError(f"{len(labels)} labels for {len(expanded)} flavours")
    if len(set(labels)) != len(labels):
        raise FlavourError("two measures share the label(s) " + ", ".join(
            sorted({str(x) for x in labels if list(labels).count(x) > 1})) + "; give distinct labels")
    # presets that share a flavour (sklearn.ndcg_score and torchmetrics.ndcg on tie-free
    # data) are evaluated once and shown under each label
    position: dict[Flavour, int] = {}
    column = [position.setdefault(f, len(position)) for f in expanded]  # O(F), not list.index
    distinct = list(position)
    resolved = [resolve(f, registry) for f in distinct]
    run_list = _as_runs(runs)
    if not run_list:
        raise EvaluationError("no run to evaluate")
    qids = qrels.qids
    values = np.empty((len(run_list), len(resolved), len(qids)))
    for run in run_list:
        _check_rank(run, resolved)
        warn_interleaved_topics(distinct, qrels, run, registry)
    for s, run in enumerate(run_list):
        problem = build_problem(qrels, run, block_order=True)
        if not problem.in_run.any():
            import warnings

            warnings.warn(EmptyEvaluationWarning(nothing_evaluated(qrels, run)), stacklevel=3)
        for f, res in enumerate(resolved):
            try:
                values[s, f] = evaluate_problem(problem, res, subtopics, run.name)
            except ComponentOutputError as exc:
                raise _located(exc, res.flavour, qrels) from None
            except RankColumnError as exc:
                raise _located_rank(exc, run, problem, res.flavour) from None
            except InvalidGradeError as exc:  # negative=error, grades=lightgbm|xgboost
                raise exc.at(_judgment_of(exc.value, qrels)) from None
        if problem.in_run.any():
            _warn_all_left_out(run.name, values[s], resolved)
    return Results(qids, tuple(r.name for r in run_list), tuple(expanded), tuple(labels),
                   values[:, column])
