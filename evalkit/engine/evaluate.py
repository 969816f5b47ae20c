"""Evaluating runs against qrels under many flavours.

Each run is joined with the qrels once and sorted once per distinct tie policy;
every flavour reuses those arrays. Components are resolved from the registry once
per call, so no per-query work goes through a plugin hook.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Iterable, Mapping, Sequence, TYPE_CHECKING

import numpy as np

from .._record import Record
from ..data import Qrels, Run, SubtopicQrels
from ..errors import (HOW_TO_KEEP_RANK, ArgumentError, EvaluationError, FlavourError, InvalidGradeError,
                      MissingQueriesError, RankColumnError)
from ..flavour import ComponentRef, Flavour
from ..kernel import IdealContext, MetricInput
from ..results import Results
from .checks import (ComponentOutputError, EmptyEvaluationWarning, call_component, checked, checked_idcg,
                     format_number, nothing_evaluated)
from .conventions import apply_conventions
from .divergence import warn_divergences
from .memory import without_hugepage_advice
from .problem import Problem, build_problem
from ..registry import Registry, registry_or_default
from .ranking import RankedList

if TYPE_CHECKING:
    from ..components import Metric, TiePolicy
    from ..registry import Registry


# The engine's own records below are compared by identity: they hold dicts and lists
# (no value could hash) and nothing compares two of them. They are :class:`Record`\ s
# with ``__slots__`` and a written ``__init__`` (no ``dataclasses`` code generation at
# import, issue 27), frozen like the dataclasses they were.
class _Stage(Record):
    """One stage component of a flavour, looked up once: the component, its bound
    function (through :func:`~evalkit.engine.checks.call_component`: isolated, its
    output checked) and its canonical reference (cache keys, messages)."""

    __slots__ = ("ref", "component", "fn", "kw")
    __eq__ = object.__eq__
    __hash__ = object.__hash__
    ref: ComponentRef
    component: Any
    fn: Callable
    kw: dict

    def __init__(self, ref: ComponentRef, component: Any, fn: Callable, kw: dict) -> None:
        self._set(ref=ref, component=component, fn=fn, kw=kw)


class _Resolved(Record):
    """A flavour with its components looked up once (:func:`resolve`): the metric and
    tie policy with their keyword arguments, the bound gain, discount and IDCG
    functions and the stages that are not at their default.

    ``judgments``: the judgment rules (``grades``, ``negative``) not at their default;
    ``run_filter``: the run filter, ``None`` at the default (no document removed);
    ``negative_gain``: negative grades are judgments with a negative gain (a judgment
    rule says so)."""

    __slots__ = ("flavour", "metric", "metric_kw", "ties", "ties_kw", "gain", "discount", "idcg", "judgments",
                 "run_filter", "outcome", "negative_gain")
    __eq__ = object.__eq__
    __hash__ = object.__hash__
    flavour: Flavour
    metric: Metric
    metric_kw: dict
    ties: TiePolicy
    ties_kw: dict
    gain: Callable[[np.ndarray], np.ndarray] | None
    discount: Callable[[np.ndarray], np.ndarray] | None
    idcg: Callable[[IdealContext], np.ndarray] | None
    judgments: tuple
    run_filter: _Stage | None
    outcome: _Stage | None
    negative_gain: bool

    def __init__(self, flavour: Flavour, metric: Metric, metric_kw: dict, ties: TiePolicy, ties_kw: dict,
                 gain: Callable[[np.ndarray], np.ndarray] | None, discount: Callable[[np.ndarray], np.ndarray] | None,
                 idcg: Callable[[IdealContext], np.ndarray] | None, judgments: tuple = (),
                 run_filter: _Stage | None = None, outcome: _Stage | None = None, negative_gain: bool = False) -> None:
        self._set(flavour=flavour, metric=metric, metric_kw=metric_kw, ties=ties, ties_kw=ties_kw, gain=gain,
                  discount=discount, idcg=idcg, judgments=judgments, run_filter=run_filter, outcome=outcome,
                  negative_gain=negative_gain)


def _stage(registry: Registry, family: str, ref: ComponentRef | None) -> _Stage | None:
    if ref is None:  # the family's default: the stage does nothing
        return None
    comp = registry.get(family, ref.name)
    kw = comp.bind(ref.params)
    return _Stage(ref, comp, partial(call_component, family, comp, **kw), kw)


def _bound(registry: Registry, family: str, ref: ComponentRef | None, negative_grades: bool = False,
           reads: Iterable[Callable] = ()) -> Callable[..., np.ndarray] | None:
    if ref is None:
        return None
    comp = registry.get(family, ref.name)
    fn: Callable[..., Any] = partial(call_component, family, comp, **comp.bind(ref.params))
    if family == "gain":  # the judgment rules' reading of a grade (a library's integer label)
        for read in reads:
            fn = _reading(fn, read)
    if family in ("gain", "discount"):
        return checked(family, str(ref), fn, negative_grades and family == "gain")
    return checked_idcg(str(ref), fn, negative_grades) if family == "idcg" else fn


def _reading(gain: Callable, read: Callable) -> Callable:
    """``gain`` of the grade ``read`` gives (``float64`` ``(n,)`` in and out)."""
    def call(grades: np.ndarray) -> np.ndarray:
        return gain(np.asarray(read(grades), dtype=np.float64))
    return call


def resolve(flavour: Flavour, registry: Registry) -> _Resolved:
    """Look up a flavour's components once; returns bound, vectorised callables."""
    metric = registry.metric(flavour.metric)
    assert flavour.ties is not None  # a validated flavour always names its tie policy
    ties = registry.get("ties", flavour.ties.name)
    judgments = tuple(st for st in (_stage(registry, family, getattr(flavour, family))
                                    for family in ("grades", "negative")) if st is not None)
    negative_gain = any(st.component.negative_gain for st in judgments)
    reads = tuple(st.fn for st in judgments if st.component.reads_grades)
    return _Resolved(
        flavour=flavour,
        metric=metric,
        metric_kw=metric.bind(flavour.params),
        ties=ties,
        ties_kw=ties.bind(flavour.ties.params),
        gain=_bound(registry, "gain", flavour.gain, negative_gain, reads),
        discount=_bound(registry, "discount", flavour.discount),
        idcg=_bound(registry, "idcg", flavour.idcg, negative_gain),
        judgments=judgments,
        run_filter=_stage(registry, "run_filter", flavour.run_filter),
        outcome=_stage(registry, "outcome", flavour.outcome),
        negative_gain=negative_gain,
    )


def _drops(problem: Problem, resolved: _Resolved) -> tuple[tuple, Callable[[RankedList], np.ndarray]] | None:
    """``(key, drop)`` for :meth:`Problem.ranked`: the positions of the sorted run that
    the judgment rules' ``drops`` and the run filter remove (``drop(ranked) -> bool
    (n,)``), keyed by their references; ``None`` when nothing is removed."""
    from ..components import RunFilterInput

    dropping = [st for st in resolved.judgments if st.component.drops is not None]
    filt = resolved.run_filter
    if not dropping and filt is None:
        return None

    def drop(ranked: RankedList) -> np.ndarray:
        mask = None
        for st in dropping:  # bool, the shape of the grades (checked by call_component)
            hit = call_component("drops", st.component, ranked.grade, **st.kw)
            mask = hit if mask is None else mask | hit
        if filt is not None:  # bool (n,) (checked by call_component)
            hit = filt.fn(RunFilterInput(ranked, problem))
            mask = hit if mask is None else mask | hit
        assert mask is not None  # something drops: dropping or filt is given
        return mask
    key = tuple((st.component.family, str(st.ref)) for st in dropping) + ((("run_filter", str(filt.ref)),) if filt else ())
    return key, drop


def as_flavour(spec: Flavour | str, registry: Registry) -> Flavour:
    """A resolved flavour: ``spec`` itself, or a flavour string parsed. Preset and
    measure names are resolved at the edge (:mod:`evalkit.resolve`), not here.

    :raises FlavourError: an invalid flavour string (a preset name is one: the message
        says where presets are expanded).
    """
    if isinstance(spec, Flavour):
        return spec
    from ..flavour import parse_flavour

    return parse_flavour(spec, registry)


def needs_rank(flavours: Iterable[Flavour | str] | Flavour | str, registry: Registry | None = None) -> bool:
    """Whether a flavour of ``flavours`` (resolved: :class:`Flavour` objects or flavour
    strings) orders the run by its rank column (its tie policy ``needs_rank``, as
    ``ties=rank``): readers should then keep the column
    (``read_run(..., keep_rank=True)``).

    :raises FlavourError: an unknown component or parameter.
    """
    registry = registry_or_default(registry)
    if isinstance(flavours, (str, Flavour)):
        flavours = [flavours]
    for fl in (as_flavour(spec, registry) for spec in flavours):
        assert fl.ties is not None  # a validated flavour always names its tie policy
        if registry.get("ties", fl.ties.name).needs_rank:
            return True
    return False


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
    # the tie policy's own words (the library it reproduces and why) after the documents
    why = str(exc).split("(", 1)[1].rstrip(")") if "(" in str(exc) else str(exc)
    return RankColumnError(f"{flavour}: run {run.name!r} ({where}): query {run.qid[a]!r}: documents "
                           f"{run.docno[a]!r} and {run.docno[b]!r} share rank {exc.rank}; {why}", exc.rows, exc.rank)


def _check_type(value: Any, cls: Any, name: str) -> Any:
    if not isinstance(value, cls):
        raise ArgumentError(f"{name} must be a {cls.__name__}, got {type(value).__name__} "
                            f"(read files with evalkit.read_{cls.__name__.lower()})")
    return value


def _as_runs(runs: Any) -> list[Run]:
    if isinstance(runs, Run):
        return [runs]
    # a list or tuple (the command line's) skips the ABC checks below: the first
    # ``isinstance(list, Mapping)`` of a process walks every registered Mapping (~0.2 ms)
    if not isinstance(runs, (list, tuple)) and isinstance(runs, Mapping):
        runs = {name: _check_type(r, Run, f"runs[{name!r}]") for name, r in runs.items()}
        return [r.renamed(str(name)) for name, r in runs.items()]
    if not isinstance(runs, (list, tuple)) and (isinstance(runs, (str, bytes)) or not isinstance(runs, Iterable)):
        raise ArgumentError(f"runs must be a Run, a list of Runs or a {{name: Run}} mapping, "
                            f"got {type(runs).__name__} (read files with evalkit.read_run)")
    runs = [_check_type(r, Run, f"runs[{i}]") for i, r in enumerate(runs)]
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise EvaluationError(f"two runs share the name(s) {', '.join(dup)}; give them distinct names")
    return runs


def prepare_input(problem: Problem, resolved: _Resolved, subtopics: Any = None) -> MetricInput:
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
                            drop=_drops(problem, resolved),
                            keep_negative=resolved.negative_gain)
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
        negative="gain" if resolved.negative_gain else "zero",
        # gains, discounts, cutoff positions and ideal rankings are shared by the
        # flavours of this run (keyed by the flavour's component references)
        _shared=problem._cache,
        _gain_key=_gain_key(resolved),
        _discount_key=fl.discount,
    )


def metric_output(problem: Problem, resolved: _Resolved, inp: MetricInput) -> Any:
    """The metric kernel's ``(values, defined)`` on ``inp`` (``float64`` / ``bool``
    ``(q,)``), before the conventions.

    :raises EvaluationError: the kernel returned arrays of the wrong shape.
    """
    out = call_component("metric", resolved.metric, inp, **resolved.metric_kw)
    values = np.array(out.values, dtype=np.float64)
    defined = np.asarray(out.defined, dtype=bool)
    if values.shape != (problem.n_queries,) or defined.shape != values.shape:
        raise EvaluationError(
            f"metric '{resolved.flavour.metric}' returned shape {values.shape}, expected ({problem.n_queries},)"
        )
    return values, defined


def _gain_key(resolved: _Resolved) -> object:
    """The key of the gains' cache: the gain's reference, with the judgment rules that
    change the grade it reads."""
    reading = tuple(str(st.ref) for st in resolved.judgments if st.component.reads_grades)
    return (resolved.flavour.gain, reading) if reading else resolved.flavour.gain


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


def check_judgments(problem: Problem, resolved: _Resolved) -> None:
    """The judgment rules' ``check``: raise if a rule (``grades``, ``negative``) refuses
    a judged grade of the problem's qrels (a negative grade under ``negative=error``,
    a label a library refuses...). One vectorised pass per rule over the
    judged grades, before the metric runs.

    :raises InvalidGradeError: (the rule's :attr:`~evalkit.components.Refusal.error`)
        naming the first refused grade in sorted qid order; :func:`evaluate` and
        :func:`evalkit.arrays.score` add its query and document (file and line, or row
        and column).
    """
    for st in resolved.judgments:
        check = st.component.check
        if check is None:
            continue
        hit = call_component("check", st.component, problem.judged_grade, **st.kw)
        if hit is None:
            continue
        mask = np.asarray(hit.mask, dtype=bool)
        if not mask.any():
            continue
        v = float(problem.judged_grade[first_judgment(problem, mask)])
        error = hit.error or InvalidGradeError
        raise error(v, hit.message(v, int(mask.sum())), f"{resolved.flavour}: ")


def _warn_all_left_out(run_name: str, values: np.ndarray, resolved: Sequence[_Resolved]) -> None:
    """Warn for each flavour whose ``(q,)`` values of one run are all ``NaN`` although
    the run shares queries with the qrels: its conventions (``empty=skip``,
    ``run_filter=unjudged``, ``missing=skip``) left every query out and its mean would
    be a silent ``NaN``. One vectorised test over ``values`` (``(F, q)``)."""
    import warnings

    for f in np.flatnonzero(np.isnan(values).all(axis=1)):
        warnings.warn(EmptyEvaluationWarning(
            f"run '{run_name}': {resolved[int(f)].flavour} leaves out every query the run shares with the qrels "
            "(its empty / missing / run_filter conventions: e.g. empty=skip and no query has a relevant "
            "judgment); its mean is undefined (NaN)"), stacklevel=4)


def evaluate_problem(problem: Problem, resolved: _Resolved, subtopics: Any = None, run_name: str = "run",
                     inp: MetricInput | None = None) -> np.ndarray:
    """Per-query values of one flavour on one joined run: ``float64`` ``(q,)`` in
    sorted qid order (``qrels.qids``; :attr:`Problem.sorted_queries` maps a problem
    built in block order back), ``NaN`` where a convention leaves the query out.

    :param inp: the metric's input from :func:`prepare_input` (built if ``None``).
    :raises EvaluationError: a convention set to ``error`` is triggered, or a judgment
        rule refuses a grade (:class:`~evalkit.errors.InvalidGradeError`, e.g.
        :class:`~evalkit.errors.NegativeGradeError` for ``negative=error``).
    """
    fl = resolved.flavour
    check_judgments(problem, resolved)
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
    if resolved.run_filter is not None and resolved.run_filter.component.empties_query:
        empty_ranking = np.diff(inp.ranked.offsets) == 0  # a query left without documents is absent
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
        return MissingQueriesError(f"{fl}: run {run_name!r} has no results for qrels queries: {bad}")

    absent = ~in_run
    missing_rule = fl.convention("missing")
    if missing_rule == "score":  # the kernel's value on the empty ranking
        absent, missing_rule = np.zeros_like(absent), "skip"
    if empty_ranking is not None:
        absent = absent | empty_ranking
    out = apply_conventions(values, defined, absent, empty=fl.convention("empty"),
                            missing_rule=missing_rule, error=error)
    if resolved.outcome is not None:
        out = _outcome(resolved.outcome, out)
    return out


def _outcome(stage: _Stage, values: np.ndarray) -> np.ndarray:
    """The per-query outcome component on ``values`` (``float64`` ``(q,)``), checked
    (:func:`~evalkit.engine.checks.call_component`)."""
    return np.asarray(stage.fn(values), dtype=np.float64)


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
    registry: Registry | None = None,
) -> Results:
    """Evaluate ``runs`` against ``qrels`` under every flavour.

    :param qrels: judgments (:func:`evalkit.read_qrels` or :meth:`Qrels.from_rows`).
    :param runs: one run, a list of runs with distinct names, or ``{name: run}``.
    :param flavours: flavours, canonical strings, preset specs
        (``"<library>.<measure>@10"``) or measure names a library uses; a preset with several default cutoffs adds one flavour per
        cutoff. Specs that give the same flavour are evaluated once and kept as
        separate columns. (:func:`evalkit.evaluate` resolves the specs once, at the
        edge, :mod:`evalkit.resolve`; this engine function itself takes resolved
        flavours: :class:`Flavour` objects or flavour strings.)
    :param labels: display names, one per flavour after expansion; default: the spec
        as written (``preset@k`` per default cutoff). Labels must be distinct.
    :param subtopics: subtopic qrels, needed by intent-aware metrics.
    :returns: :class:`Results` with values of shape ``(n_runs, n_flavours, n_queries)``.
    :raises FlavourError: unknown name, component or parameter; a label given twice.
    :raises EvaluationError: a convention set to ``error`` is triggered (under
        ``negative=error`` a :class:`~evalkit.errors.NegativeGradeError` naming the first
        negative judgment's query, document, file and line; under a grade rule with a
        ``check`` an :class:`~evalkit.errors.InvalidGradeError` for a grade it refuses,
        likewise located); a value is not finite; a gain or discount returns a wrong shape, NaN, an infinity or a negative value
        (:class:`~evalkit.errors.ComponentOutputError`, naming the component and, for a
        gain, the query, document and grade).
    :raises ArgumentError: ``qrels``, ``runs`` or ``subtopics`` has the wrong type.
    :raises RankColumnError: a flavour orders runs by their rank column (``ties=rank``)
        and a run has none (read it with
        ``read_run(..., keep_rank=True)``), or two documents of a query share a rank.
    :warns EmptyEvaluationWarning: a run shares no query with the qrels (or either is
        empty): its values are all left out (or 0 under ``missing=zero``). Evaluating a
        partition of the queries can do that on purpose; the command line and
        :func:`evalkit.run_config` refuse it instead (:func:`require_common_queries`).
        Also when a flavour's conventions leave out every query a run shares with the
        qrels (``empty=skip`` and no query has a relevant judgment): that mean is ``NaN``, undefined.
    :warns ReferenceDivergenceWarning: a flavour is a preset's (named or spelt out)
        whose library computes otherwise on this run (:mod:`evalkit.engine.divergence`:
        the presets' :attr:`~evalkit.components.Preset.diverges`); the values are
        evalkit's.
    """
    setup = prepare_evaluation(qrels, runs, flavours, labels, subtopics, registry)
    values = np.empty((len(setup.runs), len(setup.resolved), len(qrels.qids)))
    for s, run in enumerate(setup.runs):
        problem = build_problem(qrels, run, block_order=True)
        if not problem.in_run.any():
            import warnings

            warnings.warn(EmptyEvaluationWarning(nothing_evaluated(qrels, run)), stacklevel=3)
        values[s] = evaluate_flavours(problem, setup.resolved, qrels, run, subtopics)
        if problem.in_run.any():
            _warn_all_left_out(run.name, values[s], setup.resolved)
    return setup.results(qrels, values)


class Evaluation(Record):
    """What :func:`prepare_evaluation` checked and resolved for an evaluation:
    ``flavours`` (one per column, as expanded), ``labels``, ``resolved`` (the distinct
    flavours' components), ``column`` (``int`` per column: its index in ``resolved``)
    and ``runs`` (compared by identity, as the records above)."""

    __slots__ = ("flavours", "labels", "resolved", "column", "runs")
    __eq__ = object.__eq__
    __hash__ = object.__hash__
    flavours: tuple
    labels: tuple
    resolved: list
    column: list
    runs: list

    def __init__(self, flavours: tuple, labels: tuple, resolved: list, column: list, runs: list) -> None:
        self._set(flavours=flavours, labels=labels, resolved=resolved, column=column, runs=runs)

    def results(self, qrels: Qrels, values: np.ndarray) -> Results:
        """:class:`Results` from ``values`` ``(runs, distinct flavours, q)``."""
        return Results(qrels.qids, tuple(r.name for r in self.runs), self.flavours, self.labels,
                       values[:, self.column])


def prepare_evaluation(qrels: Qrels, runs: Run | Sequence[Run] | Mapping[str, Run],
                       flavours: Iterable[Flavour | str] | Flavour | str, labels: Sequence[str] | None,
                       subtopics: SubtopicQrels | None, registry: Registry | None) -> Evaluation:
    """:func:`evaluate`'s checks of its arguments, its flavours resolved once (the
    same flavour under two specs: once) and each run's rank column checked and
    divergences warned; see :func:`evaluate` for the errors."""
    _check_type(qrels, Qrels, "qrels")
    if subtopics is not None:
        _check_type(subtopics, SubtopicQrels, "subtopics")
    registry = registry_or_default(registry)
    if isinstance(flavours, (str, Flavour)):
        flavours = [flavours]
    elif not isinstance(flavours, (list, tuple)) and not isinstance(flavours, Iterable):  # no ABC check for a list
        raise ArgumentError(f"flavours must be a flavour string, a Flavour or a list of them, "
                            f"got {type(flavours).__name__}")
    specs = list(flavours)  # resolved at the edge (evalkit.resolve): no preset is read here
    expanded = [as_flavour(spec, registry) for spec in specs]
    if labels is None:  # the specs as written (no flavour string built when labels are given)
        labels = [spec.strip() if isinstance(spec, str) else str(fl) for spec, fl in zip(specs, expanded)]
    elif len(labels) != len(expanded):
        raise FlavourError(f"{len(labels)} labels for {len(expanded)} flavours")
    if len(set(labels)) != len(labels):
        raise FlavourError("two measures share the label(s) " + ", ".join(
            sorted({str(x) for x in labels if list(labels).count(x) > 1})) + "; give distinct labels")
    # presets that share a flavour (two libraries' NDCG on tie-free data) are
    # evaluated once and shown under each label
    if len(expanded) == 1:  # one flavour (evalkit eval -m ndcg_cut.10): none hashed
        column, distinct = [0], expanded
    else:
        position: dict[Flavour, int] = {}
        column = [position.setdefault(f, len(position)) for f in expanded]  # O(F), not list.index
        distinct = list(position)
    resolved = [resolve(f, registry) for f in distinct]
    run_list = _as_runs(runs)
    if not run_list:
        raise EvaluationError("no run to evaluate")
    for run in run_list:
        _check_rank(run, resolved)
        warn_divergences(distinct, qrels, run, registry, stacklevel=4)  # evaluate's caller
    return Evaluation(tuple(expanded), tuple(labels), resolved, column, run_list)


def evaluate_flavours(problem: Problem, resolved: Sequence[_Resolved], qrels: Qrels, run: Run,
                      subtopics: SubtopicQrels | None = None) -> np.ndarray:
    """Per-query values of every flavour of ``resolved`` on one joined run: ``float64``
    ``(len(resolved), q)`` in sorted qid order; a component's bad output, a shared rank
    or a refused grade raised with its flavour, run, query, document and file line.

    :raises EvaluationError: as :func:`evaluate`."""
    values = np.empty((len(resolved), problem.n_queries))
    for f, res in enumerate(resolved):
        try:
            values[f] = evaluate_problem(problem, res, subtopics, run.name)
        except ComponentOutputError as exc:
            raise _located(exc, res.flavour, qrels) from None
        except RankColumnError as exc:
            raise _located_rank(exc, run, problem, res.flavour) from None
        except InvalidGradeError as exc:  # a judgment rule refused a grade
            raise exc.at(_judgment_of(exc.value, qrels)) from None
    return values
