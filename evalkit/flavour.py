"""Flavours: a metric composed with gain, discount, IDCG strategy, tie policy, stage
components, conventions and a cutoff, as one immutable, hashable value.

Canonical string form (round-trips through :func:`parse_flavour`)::

    ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval)@10
    ndcg(gain=linear,discount=jarvelin(base=3),idcg=returned,ties=average,empty=one)@5
    err(max_grade=3,ties=trec_eval)@20

Every construction path (the :class:`Flavour` constructor, :meth:`Flavour.of`,
:func:`parse_flavour`, :meth:`Flavour.replace`) validates against the registry and
gives this canonical value:

* the components the metric uses are always written (the flavour is explicit);
* metric parameters, component parameters and conventions are written only when
  they differ from their defaults;
* ``@k`` is the cutoff; no ``@k`` means the whole ranking.

Conventions (the five choices that mean the same in every library):

* ``empty``: what a query whose IDCG is 0 (no relevant judged document) scores:
  ``zero``, ``one``, ``skip`` (left out of the mean), ``error``.
* ``missing``: what a qrels query absent from the run scores: ``skip`` (default),
  ``zero``, ``error``, ``score`` (the metric's own value on an empty ranking, so a
  count such as ``num_rel`` keeps its value).
* ``depth``: keep only the first ``n`` documents of each query, in ranking order
  after sorting; default: all.
* ``judged_only``: ``yes`` drops unjudged documents (no grade or a negative grade)
  after sorting and ``depth``, then renumbers the ranks (a negative grade counts as
  "not in the pool"). Under a negative rule with negative gains (``negative=gain``) a
  negative grade is a judgment, so only documents without a grade are dropped.
* ``min_grade``: grades below it give gain 0 in the DCG and leave the ideal ranking;
  default 0 (only negative grades count 0).

Which library each choice reproduces is said by its presets and components, in
:mod:`evalkit.libraries` (``evalkit flavours --verbose``).

Stage components (docs/architecture.md): every other choice is a component of a stage
family, registered through a hook like gains, written only when it is not the
family's default (:data:`STAGE_KEYS`):

* ``negative`` (:class:`~evalkit.components.NegativeRule`): what a negative grade
  means: ``zero`` (default: judged non-relevant, gain 0), ``gain`` (through the gain
  function; only for metrics with a gain and no IDCG, or ndcg with
  :data:`NEGATIVE_GAIN_IDCG`), ``error`` (refused), ``drop`` (the document leaves
  the ranking and the ideal);
* ``grades`` (:class:`~evalkit.components.GradeRule`): which grades are accepted and
  the grade the gain reads: ``any`` (default), and the rules of
  :mod:`evalkit.libraries.label_rules`;
* ``run_filter`` (:class:`~evalkit.components.RunFilter`): documents removed from the
  sorted run before ``depth``: ``none``, ``query_id``, ``first``, ``unjudged`` (a
  query left empty is absent), and the library modules' filters;
* ``outcome`` (:class:`~evalkit.components.Outcome`): the per-query value reported:
  ``value``, ``complement`` (``1 - value``), ``round(decimals,rounding)``;
* ``aggregate`` (:class:`~evalkit.components.Aggregate`): the mean over queries:
  ``mean``, ``round_mean(decimals,rounding)``, ``gmean`` (of ``max(v, 1e-5)``),
  ``sum``.

The keys of older strings ``complement=yes``, ``round=N``, ``round_mean=N``,
and ``rounding=...`` still parse: they are rewritten to ``outcome=`` / ``aggregate=``
(:data:`LEGACY_KEYS`), and :meth:`Flavour.convention` still answers them.

Strings are parsed by a small tokenizer; nothing is ever ``eval``-ed.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any, TYPE_CHECKING

import numpy as np

from ._record import FrozenFields, lean_dataclass
from .components import STAGE_FAMILIES, Param, format_float
from .errors import FlavourError
from .registry import registry_or_default

if TYPE_CHECKING:
    from .registry import Registry

COMPONENT_KEYS = ("gain", "discount", "idcg", "ties")
DEFAULT_COMPONENTS = {"gain": "linear", "discount": "log2", "idcg": "judged", "ties": "trec_eval"}

#: Metrics that accept the ``negative=gain`` convention: plain sums of gains, with no
#: ideal ranking to normalise by, and ``ndcg_float32``, whose ideal is the returned
#: targets sorted, negative ones too.
NEGATIVE_GAIN_METRICS = ("dcg", "ndcg_float32")

#: ``ndcg`` accepts ``negative=gain`` with these IDCG strategies: their ideal ranking
#: is a reordering of the returned documents, so a negative gain has a place in it
#: (sorted after the others, cut at k), and DCG <= IDCG still holds. ``judged``: the
#: ideal over the whole judged pool, negative judgments included (last); a run that
#: returns unjudged documents where the ideal holds negative ones can then score
#: above 1. Other strategies (``listed``, ``judged_at_returned``) are refused. (The
#: libraries that compute these: the presets using them, :mod:`evalkit.libraries`.)
NEGATIVE_GAIN_IDCG = ("returned", "returned_top_k", "judged")

#: Flavour-level conventions, validated like component parameters: the five choices
#: that mean the same in every library. Everything else a library does differently is
#: a component of a stage family (:data:`STAGE_KEYS`).
CONVENTIONS: dict[str, Param] = {
    "empty": Param(
        "empty", "str", "zero", "score of a query with IDCG = 0 (no relevant judged document)",
        choices=("zero", "one", "skip", "error"),
    ),
    "missing": Param(
        "missing", "str", "skip", "score of a qrels query that is absent from the run (score: the "
        "metric's value on an empty ranking: a count such as num_rel keeps its value)",
        choices=("zero", "skip", "error", "score"),
    ),
    "depth": Param(
        "depth", "int", None,
        "keep only the first n documents of each query after sorting",
        minimum=1, maximum=2**31 - 1,
    ),
    "judged_only": Param(
        "judged_only", "str", "no",
        "drop unjudged documents after sorting, then renumber the ranks (a negative "
        "grade counts as unjudged, except under a negative rule with negative gains, where it is a judgment)",
        choices=("no", "yes"),
    ),
    "min_grade": Param(
        "min_grade", "float", 0.0,
        "grades below this give gain 0 and leave the ideal ranking",
    ),
}

#: The stage families a flavour names besides its metric's components, each with its
#: default component, in the order of the canonical string (after the conventions):
#: ``negative`` and ``grades`` (judgment rules), ``run_filter``, ``outcome`` (per
#: query), ``aggregate`` (over queries). A family at its default is not written.
STAGE_KEYS: tuple[str, ...] = tuple(STAGE_FAMILIES)
DEFAULT_STAGES: dict[str, str] = dict(STAGE_FAMILIES)

#: Keys of older flavour strings, still accepted: they are rewritten to the ``outcome``
#: and ``aggregate`` components (:func:`_rewrite_legacy`): ``complement=yes`` is
#: ``outcome=complement``, ``round=2,rounding=half_up`` is
#: ``outcome=round(decimals=2,rounding=half_up)``, ``round_mean=5`` is
#: ``aggregate=round_mean(decimals=5)``. :meth:`Flavour.convention` still answers them.
LEGACY_KEYS: dict[str, Param] = {
    "complement": Param("complement", "str", "no", "yes: each query scores 1 - value (outcome=complement)",
                        choices=("no", "yes")),
    "round": Param("round", "int", None, "round each query's value (outcome=round(decimals=N))",
                   minimum=0, maximum=15),
    "round_mean": Param("round_mean", "int", None, "round the mean (aggregate=round_mean(decimals=N))",
                        minimum=0, maximum=15),
    "rounding": Param("rounding", "str", "half_even", "how round / round_mean break halves",
                      choices=("half_even", "half_up")),
}


def _rewrite_legacy(legacy: Mapping[str, Any]) -> dict[str, Any]:
    """``{"outcome": ..., "aggregate": ...}`` for the (coerced) legacy keys ``legacy``
    (``complement``, ``round``, ``round_mean``, ``rounding``; absent = default): a
    component value (a name or ``(name, params)``) or ``None`` for the default."""
    complement = legacy.get("complement", "no") == "yes"
    decimals, mean_decimals = legacy.get("round"), legacy.get("round_mean")
    mode = legacy.get("rounding") or "half_even"
    out: dict[str, Any] = {"outcome": None, "aggregate": None}
    if decimals is not None:
        params = {"decimals": decimals, "rounding": mode}
        if complement:
            params["complement"] = "yes"
        out["outcome"] = ("round", params)
    elif complement:
        out["outcome"] = "complement"
    if mean_decimals is not None:
        out["aggregate"] = ("round_mean", {"decimals": mean_decimals, "rounding": mode})
    return out


def _legacy_view(outcome: Any, aggregate: Any) -> dict[str, Any]:
    """The legacy keys' values that ``outcome`` / ``aggregate`` (canonical
    :class:`ComponentRef` or ``None``) stand for (the inverse of :func:`_rewrite_legacy`
    for the built-in components; another component leaves the keys at their defaults)."""
    out: dict[str, Any] = {k: p.default for k, p in LEGACY_KEYS.items()}
    o = dict(outcome.params) if isinstance(outcome, ComponentRef) else {}
    a = dict(aggregate.params) if isinstance(aggregate, ComponentRef) else {}
    name_o = outcome.name if isinstance(outcome, ComponentRef) else None
    name_a = aggregate.name if isinstance(aggregate, ComponentRef) else None
    if name_o == "complement":
        out["complement"] = "yes"
    elif name_o == "round":
        out["round"] = o.get("decimals")
        out["complement"] = o.get("complement", "no")
        out["rounding"] = o.get("rounding", "half_even")
    if name_a == "round_mean":
        out["round_mean"] = a.get("decimals")
        if name_o != "round":
            out["rounding"] = a.get("rounding", "half_even")
    return out

Params = tuple[tuple[str, Any], ...]


# ComponentRef and Flavour are frozen dataclasses (``dataclasses.fields`` / ``replace``,
# immutability) declared with :func:`evalkit._record.lean_dataclass`: ``__init__``
# written below, the rest from :class:`evalkit._record.FrozenFields`, not generated:
# ``dataclasses`` compiles each generated method with ``exec`` when this module is
# imported (~0.1 ms each, issue 27). tests/test_startup.py compares them with the
# methods it would generate.
@functools.total_ordering  # the other comparisons from __lt__ and ==, as order=True gives them
@lean_dataclass
class ComponentRef(FrozenFields):
    """A component by name with its non-default parameters (hashable, ordered by
    ``(name, params)``)."""

    name: str
    params: Params = ()

    def __init__(self, name: str, params: Params = ()) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "params", params)

    def _key(self) -> tuple:
        return (self.name, self.params)

    def __lt__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return self._key() < other._key()
        return NotImplemented

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return f"{self.name}({_fmt_args(self.params)})"


@lean_dataclass  # its __init__ and __repr__ below (see ComponentRef)
class Flavour(FrozenFields):
    """An NDCG-family flavour: a canonical, validated, immutable value.

    Every way of building one (this constructor, :meth:`Flavour.of`,
    :func:`parse_flavour`, :meth:`Flavour.replace`, :func:`dataclasses.replace`)
    validates it against the registry and brings it to the canonical form: the
    components the metric uses are filled in with their defaults, parameters and
    conventions equal to their defaults are dropped, the rest are ordered. So
    ``Flavour(metric="ndcg", k=10) == parse_flavour("ndcg@10")``,
    ``parse_flavour(str(f)) == f``, and equality and hashing follow the canonical
    string (flavours are dict keys).

    :param metric: metric name (``ndcg``).
    :param k: cutoff (``int >= 1``) or ``None`` for the whole ranking.
    :param gain, discount, idcg: components (a :class:`ComponentRef`, a name, or
        ``(name, {param: value})``); ``None`` takes the default when the metric uses
        the family.
    :param ties: the tie policy (default ``trec_eval``).
    :param params: metric parameters (a mapping or ``(name, value)`` pairs).
    :param conventions: conventions (``empty``, ``missing``, ``depth``,
        ``judged_only``, ``min_grade``, ``negative``, ...; a mapping or pairs).
    :raises FlavourError: unknown metric, component, parameter or convention, or an
        invalid value (the message lists the known names).

    The registry is the default one (:func:`evalkit.registry.default_registry`);
    :meth:`Flavour.of`, :func:`parse_flavour` and :meth:`Flavour.replace` take
    another.
    """

    metric: str
    k: int | None = None
    gain: ComponentRef | None = None
    discount: ComponentRef | None = None
    idcg: ComponentRef | None = None
    ties: ComponentRef | None = None
    params: Params = ()
    conventions: Params = ()
    #: stage components (``None``: the family's default, :data:`DEFAULT_STAGES`)
    negative: ComponentRef | None = None
    grades: ComponentRef | None = None
    run_filter: ComponentRef | None = None
    outcome: ComponentRef | None = None
    aggregate: ComponentRef | None = None

    def __init__(self, metric: str, k: int | None = None, gain: ComponentRef | None = None,
                 discount: ComponentRef | None = None, idcg: ComponentRef | None = None,
                 ties: ComponentRef | None = None, params: Params = (), conventions: Params = (),
                 negative: ComponentRef | None = None, grades: ComponentRef | None = None,
                 run_filter: ComponentRef | None = None, outcome: ComponentRef | None = None,
                 aggregate: ComponentRef | None = None) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "metric", metric)
        setattr_(self, "k", k)
        setattr_(self, "gain", gain)
        setattr_(self, "discount", discount)
        setattr_(self, "idcg", idcg)
        setattr_(self, "ties", ties)
        setattr_(self, "params", params)
        setattr_(self, "conventions", conventions)
        setattr_(self, "negative", negative)
        setattr_(self, "grades", grades)
        setattr_(self, "run_filter", run_filter)
        setattr_(self, "outcome", outcome)
        setattr_(self, "aggregate", aggregate)
        self.__post_init__()

    def _key(self) -> tuple:
        """The fields in declaration order: what ``==`` and ``hash`` compare
        (:class:`~evalkit._record.ByFields`; written out, flavours are dict keys)."""
        return (self.metric, self.k, self.gain, self.discount, self.idcg, self.ties, self.params, self.conventions,
                self.negative, self.grades, self.run_filter, self.outcome, self.aggregate)

    def __post_init__(self) -> None:
        registry = _REGISTRY.get()
        if registry is _TRUSTED:
            return
        registry = registry_or_default(registry)
        for name, value in _canonical(self, registry).items():
            object.__setattr__(self, name, value)

    def __str__(self) -> str:
        parts = [_fmt_args(self.params)] if self.params else []
        for key in COMPONENT_KEYS:
            ref = getattr(self, key)
            if ref is not None:
                parts.append(f"{key}={ref}")
        if self.conventions:
            parts.append(_fmt_args(self.conventions))
        for key in STAGE_KEYS:
            ref = getattr(self, key)
            if ref is not None:
                parts.append(f"{key}={ref}")
        text = self.metric + (f"({','.join(parts)})" if parts else "")
        return text + (f"@{self.k}" if self.k is not None else "")

    def __repr__(self) -> str:
        return f"Flavour({str(self)!r})"

    def convention(self, name: str) -> Any:
        """The value of convention ``name`` (its default when not set).

        For compatibility, a stage family's key (``negative``, ``grades``,
        ``run_filter``, ``outcome``, ``aggregate``) gives its component's name, and a
        legacy key (``complement``, ``round``, ``round_mean``, ``rounding``) the value the
        ``outcome`` / ``aggregate`` components stand for.

        :raises KeyError: an unknown name.
        """
        if name in CONVENTIONS:
            return dict(self.conventions).get(name, CONVENTIONS[name].default)
        if name in STAGE_KEYS:
            return self.stage(name).name
        if name in LEGACY_KEYS:
            return _legacy_view(self.outcome, self.aggregate)[name]
        raise KeyError(name)

    def stage(self, family: str) -> ComponentRef:
        """The flavour's component of stage family ``family`` (:data:`STAGE_KEYS`), its
        default when not set."""
        ref = getattr(self, family)
        return ComponentRef(DEFAULT_STAGES[family]) if ref is None else ref

    def replace(self, registry: Registry | None = None, **changes: Any) -> "Flavour":
        """A flavour derived from this one, validated and canonical.

        Keywords: ``metric``, ``k``, a component family (``gain="exp2"``,
        ``ties=("trec_eval", {"score": "float32"})``, parameters given in full),
        ``params=`` / ``conventions=`` (a mapping replacing all of them), or one
        convention or metric parameter by name (``missing="zero"``, ``depth=100``,
        ``rel_level=2``; ``None`` restores its default). Changing ``metric`` drops
        the components the new metric does not use.

        :raises FlavourError: as the constructor.
        """
        if set(changes) <= {"k"}:  # a new cutoff: nothing else to validate
            k = _check_k(changes.get("k", self.k), str(self))
            token = _REGISTRY.set(_TRUSTED)
            try:
                return dataclasses.replace(self, k=k)
            finally:
                _REGISTRY.reset(token)
        fields = {"metric": self.metric, "k": self.k, "params": dict(self.params),
                  "conventions": dict(self.conventions)}
        fields.update({key: getattr(self, key) for key in COMPONENT_KEYS + STAGE_KEYS})
        if "metric" in changes and changes["metric"] != self.metric:
            uses = _registry(registry).metric(changes["metric"]).uses
            for key in ("gain", "discount", "idcg"):
                if key not in uses and key not in changes:
                    fields[key] = None
        _merge(fields, changes)
        return _build(registry, **fields)

    def with_cutoff(self, k: int | None) -> "Flavour":
        return self.replace(k=k)

    def without_cutoff(self) -> "Flavour":
        return self.replace(k=None)

    @classmethod
    def of(cls, metric: str = "ndcg", k: int | None = None, registry: Registry | None = None, **parts: Any) -> "Flavour":
        """Keyword constructor: ``Flavour.of("ndcg", 10, gain="exp2",
        discount=("jarvelin", {"base": 3}), missing="zero")``; keywords as in
        :meth:`replace`."""
        fields: dict[str, Any] = {"metric": metric, "k": k, "params": {}, "conventions": {}}
        _merge(fields, parts)
        return _build(registry, **fields)


#: The registry a Flavour under construction is validated against (``None``: the
#: default one; ``_TRUSTED``: already canonical, e.g. a new cutoff only).
_REGISTRY: ContextVar[Any] = ContextVar("evalkit_flavour_registry", default=None)
_TRUSTED = object()


def _registry(registry: Registry | None) -> Registry:
    if registry is None:
        registry = _REGISTRY.get()
    return registry_or_default(None if registry is _TRUSTED else registry)


def _build(registry: Registry | None, **fields: Any) -> Flavour:
    """``Flavour(**fields)`` validated against ``registry`` (``None``: the default)."""
    token = _REGISTRY.set(registry)
    try:
        return Flavour(**fields)
    finally:
        _REGISTRY.reset(token)


def _merge(fields: dict[str, Any], changes: dict[str, Any]) -> None:
    """Apply :meth:`Flavour.replace`'s keywords to ``fields`` (in place); legacy keys
    (:data:`LEGACY_KEYS`) are rewritten to ``outcome`` / ``aggregate`` over the values
    the fields' components stand for."""
    legacy = {key: value for key, value in changes.items() if key in LEGACY_KEYS}
    if legacy:
        view = _legacy_view(fields.get("outcome"), fields.get("aggregate"))
        for key, value in legacy.items():
            view[key] = LEGACY_KEYS[key].default if value is None else LEGACY_KEYS[key].coerce(value, "flavour")
        if any(key in changes for key in ("outcome", "aggregate")):
            raise FlavourError(f"give either outcome= / aggregate= or the older keys {', '.join(legacy)}, not both")
        fields.update(_rewrite_legacy(view))
    for key, value in changes.items():
        if key in LEGACY_KEYS:
            continue
        if key in ("metric", "k") or key in COMPONENT_KEYS or key in STAGE_KEYS:
            fields[key] = value
        elif key in ("params", "conventions"):
            fields[key] = dict(_pairs(value, key))
        else:
            target = fields["conventions"] if key in CONVENTIONS else fields["params"]
            if value is None:
                target.pop(key, None)
            else:
                target[key] = value


def _pairs(value: Any, what: str) -> list[tuple[str, Any]]:
    if value is None:
        return []
    if isinstance(value, Mapping):
        return list(value.items())
    try:
        pairs = [tuple(p) for p in value]
    except TypeError:
        raise FlavourError(f"flavour {what} must be a mapping or (name, value) pairs, got {value!r}") from None
    if any(len(p) != 2 or not isinstance(p[0], str) for p in pairs):
        raise FlavourError(f"flavour {what} must be a mapping or (name, value) pairs, got {value!r}")
    return pairs


def _unique(pairs: list[tuple[str, Any]], owner: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise FlavourError(f"{owner}: '{key}' given twice")
        out[key] = value
    return out


def _canonical(fl: Flavour, registry: Registry) -> dict[str, Any]:
    """The canonical field values of ``fl`` (see :class:`Flavour`), validated."""
    if not isinstance(fl.metric, str):
        raise FlavourError(f"a flavour's metric must be a metric name, got {fl.metric!r}")
    metric = registry.metric(fl.metric)
    owner = f"flavour '{fl.metric}'"
    out: dict[str, Any] = {"k": _check_k(fl.k)}
    for key in COMPONENT_KEYS:
        uses = key == "ties" or key in metric.uses
        value = getattr(fl, key)
        if value is not None and not uses:
            raise FlavourError(
                f"metric '{fl.metric}' does not use a {key} component (it uses: "
                f"{', '.join(sorted(metric.uses | {'ties'}))})"
            )
        if uses:
            out[key] = _component_ref(registry, key, DEFAULT_COMPONENTS[key] if value is None else value)
    given = _unique(_pairs(fl.conventions, "conventions"), owner)
    stages = {key: getattr(fl, key) for key in STAGE_KEYS}
    # older keys given as conventions: a stage family's key, or a legacy key
    for key in [k for k in given if k in STAGE_KEYS]:
        value = given.pop(key)
        if value is not None:
            if stages[key] is not None:
                raise FlavourError(f"{owner}: '{key}' given twice")
            stages[key] = value
    legacy = {k: given.pop(k) for k in [k for k in given if k in LEGACY_KEYS]}
    legacy = {k: LEGACY_KEYS[k].coerce(v, owner) for k, v in legacy.items() if v is not None}
    if legacy:
        for key, value in _rewrite_legacy(legacy).items():
            if value is not None:
                if stages[key] is not None:
                    raise FlavourError(f"{owner}: give either {key}= or the older keys "
                                       f"{', '.join(sorted(legacy))}, not both")
                stages[key] = value
    unknown = sorted(set(given) - set(CONVENTIONS))
    if unknown:
        raise FlavourError(f"{owner}: unknown convention '{unknown[0]}' (known: {', '.join(CONVENTIONS)}; "
                           f"stage components: {', '.join(STAGE_KEYS)})")
    conventions = []
    for key, param in CONVENTIONS.items():
        if key in given and given[key] is not None:  # None: the default
            value = param.coerce(given[key], owner)
            if value != param.default:
                conventions.append((key, value))
    out["conventions"] = tuple(conventions)
    for key in STAGE_KEYS:
        value = stages[key]
        ref = None if value is None else _component_ref(registry, key, value)
        out[key] = None if ref is None or ref == ComponentRef(DEFAULT_STAGES[key]) else ref
    negative = out["negative"]
    if negative is not None and registry.get("negative", negative.name).negative_gain:
        _check_negative_gain(fl.metric, out, registry, owner)
    try:
        out["params"] = metric.normalise_params(_unique(_pairs(fl.params, "params"), owner))
    except FlavourError as exc:
        used = {key for key in COMPONENT_KEYS if key == "ties" or key in metric.uses}
        known = sorted(used | set(CONVENTIONS) | set(STAGE_KEYS) | {p.name for p in metric.params})
        raise FlavourError(f"{exc}; flavour keys: {', '.join(known)}") from None
    ties = registry.get("ties", out["ties"].name)
    if ties.averaged and not metric.supports_averaged_ties:
        raise FlavourError(
            f"tie policy '{ties.name}' (expected value over tied orderings) is exact only for "
            f"metrics that sum over positions; metric '{fl.metric}' is not one of them"
        )
    return out


def _check_negative_gain(metric: str, out: dict, registry: Registry, owner: str) -> None:
    """The ``negative=gain`` convention is defined for ``metric`` and agrees with the
    tie policy (see :data:`NEGATIVE_GAIN_METRICS`, :data:`NEGATIVE_GAIN_IDCG`).

    :raises FlavourError: the metric (or its IDCG strategy) has no ideal ranking that
        can hold a negative gain; or the tie policy compares grades (``pessimistic``,
        ``optimistic``) and would rank a negative grade as 0, so it would no longer be
        the worst (best) order of the tied documents.
    """
    where = (f"negative=gain is defined only for {', '.join(NEGATIVE_GAIN_METRICS)}, and for ndcg with "
             f"idcg={' or idcg='.join(NEGATIVE_GAIN_IDCG)}")
    if metric == "ndcg":
        idcg = out["idcg"].name
        if idcg not in NEGATIVE_GAIN_IDCG:
            raise FlavourError(
                f"{owner}: {where}; with idcg={idcg} the ideal ranking would take in negative judgments "
                "the run never returned. Use negative=zero (a negative grade judged non-relevant) or "
                "negative=error (refused)")
    elif metric not in NEGATIVE_GAIN_METRICS:
        raise FlavourError(
            f"{owner}: {where}; an ideal ranking of negative gains is not defined otherwise "
            "(use negative=zero, or negative=error to refuse negative grades)")
    ties = out["ties"]
    declared = {p.name: p.default for p in registry.get("ties", ties.name).params}
    if "negative" in declared and dict(ties.params).get("negative", declared["negative"]) != "gain":
        raise FlavourError(
            f"{owner}: ties={ties} compares a negative grade as 0, but negative=gain gives it a negative "
            f"gain; write ties={ties.name}(negative=gain) so that tied documents are ordered by their gain")


#: Largest cutoff ``k`` (and ``depth``): 2^31 - 1. Larger values cannot change a
#: result (no ranking is that long) and would overflow the engine's ``int64`` rank
#: arithmetic; they are refused when the flavour is parsed.
MAX_CUTOFF = 2**31 - 1

#: Deepest nesting of parentheses in a flavour string (``map(...)`` inside a
#: component is depth 2); deeper strings are refused before parsing, so no input
#: can exhaust Python's recursion limit.
MAX_NESTING = 16


def _check_k(k: Any, flavour: str | None = None) -> int | None:
    if k is None:
        return None
    where = f"flavour {flavour!r}: " if flavour else ""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise FlavourError(f"{where}cutoff k must be an integer >= 1, got {k!r}")
    if k > MAX_CUTOFF:
        raise FlavourError(f"{where}cutoff k must be <= {MAX_CUTOFF} (2^31 - 1), got {k}")
    return int(k)


def _fmt_value(v: Any) -> str:
    if isinstance(v, ComponentRef):
        return str(v)
    if isinstance(v, float):
        return format_float(v)
    return str(v)


def _fmt_args(params: Params) -> str:
    return ",".join(f"{k}={_fmt_value(v)}" for k, v in params)


# ----------------------------------------------------------------------------- parsing

#: a token of a flavour string (compiled with ``re.ASCII``: ASCII digits only, int() would
#: read '٥' (ARABIC-INDIC FIVE) or '５' as 5): what :func:`_token` reads with string
#: methods (no pattern compiled at start-up, issue 27; tests/test_flavour.py compares them)
TOKEN_PATTERN = (r"\s*(?:(?P<num>[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)"
                 r"|(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)"
                 r"|(?P<punct>[(),=@]))")
_SPACE = frozenset(" \t\n\r\f\v")
_DIGIT = frozenset("0123456789")
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NAME_PART = _NAME_START | _DIGIT | {".", "-"}


def _digits_end(text: str, pos: int) -> int:
    """The end of the run of ASCII digits starting at ``pos``."""
    end = len(text)
    while pos < end and text[pos] in _DIGIT:
        pos += 1
    return pos


def _token(text: str, pos: int) -> tuple[str, int, int] | None:
    """``(kind, start, end)`` of the token :data:`TOKEN_PATTERN` matches at ``pos``
    (after ASCII white space), or ``None`` where it matches none."""
    size = len(text)
    while pos < size and text[pos] in _SPACE:
        pos += 1
    if pos == size:
        return None
    at = pos + 1 if text[pos] in "+-" else pos
    whole = _digits_end(text, at)
    end = -1
    if whole < size and text[whole] == ".":  # digits '.' digits*, or '.' digits+
        fraction = _digits_end(text, whole + 1)
        if whole > at or fraction > whole + 1:
            end = fraction
    elif whole > at:
        end = whole
    if end >= 0:
        if end < size and text[end] in "eE":  # an exponent, if digits follow
            sign = end + 2 if end + 1 < size and text[end + 1] in "+-" else end + 1
            exponent = _digits_end(text, sign)
            if exponent > sign:
                end = exponent
        return "num", pos, end
    char = text[pos]
    if char in _NAME_START:
        end = pos + 1
        while end < size and text[end] in _NAME_PART:
            end += 1
        return "name", pos, end
    if char in "(),=@":
        return "punct", pos, pos + 1
    return None


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        depth = 0
        for pos, char in enumerate(text):
            if char == "(":
                depth += 1
                if depth > MAX_NESTING:
                    raise FlavourError(f"cannot parse flavour {_short(text)} at position {pos}: parentheses "
                                       f"nested deeper than {MAX_NESTING} levels")
            elif char == ")":
                depth -= 1
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        text_s = text.rstrip()
        while pos < len(text_s):
            token = _token(text_s, pos)
            if token is None:
                raise self.error(f"unexpected character {text_s[pos]!r}", pos)
            kind, start, pos = token
            self.tokens.append((kind, text_s[start:pos], start))
        self.i = 0

    def error(self, msg: str, pos: int | None = None) -> FlavourError:
        if pos is None:
            pos = self.tokens[self.i][2] if self.i < len(self.tokens) else len(self.text)
        return FlavourError(f"cannot parse flavour {self.text!r} at position {pos}: {msg}")

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, kind: str, value: str | None = None) -> str:
        tok = self.peek()
        if tok is None or tok[0] != kind or (value is not None and tok[1] != value):
            want = repr(value) if value is not None else kind
            got = "end of text" if tok is None else repr(tok[1])
            raise self.error(f"expected {want}, got {got}")
        self.i += 1
        return tok[1]

    def accept(self, value: str) -> bool:
        tok = self.peek()
        if tok is not None and tok[0] == "punct" and tok[1] == value:
            self.i += 1
            return True
        return False

    def call(self) -> tuple[str, list[tuple[str, Any]]]:
        """name [ '(' key=value, ... ')' ]"""
        name = self.take("name")
        args: list[tuple[str, Any]] = []
        if self.accept("("):
            if not self.accept(")"):
                while True:
                    tok = self.peek()
                    if tok is None or tok[0] not in ("name", "num"):
                        raise self.error("expected a parameter name")
                    self.i += 1
                    key = tok[1]
                    self.take("punct", "=")
                    args.append((key, self.value()))
                    if self.accept(")"):
                        break
                    if not self.accept(","):
                        tok = self.peek()
                        got = "end of text" if tok is None else repr(tok[1])
                        raise self.error(f"expected ',' or ')', got {got}")
        return name, args

    def value(self) -> Any:
        tok = self.peek()
        if tok is None:
            raise self.error("expected a value")
        if tok[0] == "num":
            self.i += 1
            text = tok[1]
            return int(text) if re.fullmatch(r"[-+]?\d+", text) else float(text)
        if tok[0] == "name":
            name, args = self.call()
            return (name, args) if args else name
        raise self.error(f"expected a value, got {tok[1]!r}")


def _short(text: str, limit: int = 80) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} characters)"


def _syntax(text: str) -> tuple[str, list[tuple[str, Any]], int | None]:
    p = _Parser(text)
    name, args = p.call()
    k = None
    if p.accept("@"):
        at = p.tokens[p.i - 1][2]
        tok = p.peek()
        if tok is None or tok[0] != "num" or not re.fullmatch(r"\+?[0-9]+", tok[1]):
            raise p.error("the cutoff after '@' must be a positive integer")
        if tok[2] != at + 1:
            raise p.error("the cutoff must follow '@' directly (ndcg@5), without a space", at + 1)
        p.i += 1
        k = int(tok[1])
        if k < 1:
            raise p.error("the cutoff after '@' must be >= 1", tok[2])
        if k > MAX_CUTOFF:
            raise p.error(f"the cutoff after '@' must be <= {MAX_CUTOFF} (2^31 - 1)", tok[2])
    extra = p.peek()
    if extra is not None:
        raise p.error(f"unexpected {extra[1]!r}")
    return name, args, k


def _component_ref(registry: Registry, family: str, value: Any) -> ComponentRef:
    """A validated, canonical reference: ``value`` is a :class:`ComponentRef`, a name,
    or ``(name, params)`` with params a mapping or ``(key, value)`` pairs."""
    if isinstance(value, ComponentRef):
        name, args = value.name, list(value.params)
    elif isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
        name, args = value[0], _pairs(value[1], f"{family} parameters")
    elif isinstance(value, str):
        name, args = value, []
    else:
        raise FlavourError(f"{family} must be a component name, got {value!r}")
    comp = registry.get(family, name)
    seen = set()
    for key, _ in args:
        if key in seen:
            raise FlavourError(f"{family} '{name}': parameter '{key}' given twice")
        seen.add(key)
    return ComponentRef(comp.name, comp.normalise_params(dict(args)))  # an alias -> the name


def parse_flavour(text: str | Flavour, registry: Registry | None = None) -> Flavour:
    """Parse a canonical (or partial) flavour string.

    Omitted components take their defaults (``gain=linear``, ``discount=log2``,
    ``idcg=judged``, ``ties=trec_eval``). Preset names are not
    accepted here; see :func:`evalkit.presets.expand_spec`.

    :raises FlavourError: syntax error (with position), unknown metric/component/
        parameter (with the list of known names), or an invalid value.
    """
    if isinstance(text, Flavour):
        return text
    registry = registry_or_default(registry)
    if not isinstance(text, str) or not text.strip():
        raise FlavourError(f"a flavour must be a non-empty string, got {text!r}")
    name, args, k = _syntax(text)
    if isinstance(name, str) and "." in name:
        raise FlavourError(
            f"'{name}' looks like a preset name; presets are expanded by evalkit.presets.expand_spec"
        )
    registry.metric(name)  # an unknown metric is reported before its arguments
    given: dict[str, Any] = {}
    for key, value in args:
        if key in given:
            raise FlavourError(f"{text!r}: '{key}' given twice")
        given[key] = value
    fields: dict[str, Any] = {"metric": name, "k": k, "params": {}, "conventions": {}}
    for key, value in given.items():
        if key in COMPONENT_KEYS or key in STAGE_KEYS:
            fields[key] = value
        elif key in CONVENTIONS or key in LEGACY_KEYS:
            # the error names the text the user wrote; legacy keys are rewritten by _canonical
            param = CONVENTIONS.get(key) or LEGACY_KEYS[key]
            fields["conventions"][key] = param.coerce(value, f"flavour {text!r}")
        else:
            fields["params"][key] = value
    return _build(registry, **fields)
