"""Component types that plugins register: gains, discounts, IDCG strategies,
tie policies, metrics and presets.

Each component is an immutable value holding a *vectorised* function plus the
metadata that ``evalkit plugins`` and the docs show: its parameters, formula and
source. The engine calls these functions once per flavour on arrays that cover
every query of a run at once, never once per query.

Array conventions used throughout (``n`` = ranked positions of a run, over all
queries; ``m`` = judged documents; ``q`` = evaluated queries):

* grades are ``float64``; ``NaN`` marks an unjudged document;
* ranks are 1-based ``int64``;
* segments are described by ``offsets`` (``int64``, shape ``(q + 1,)``): query ``i``
  owns positions ``offsets[i]:offsets[i + 1]``.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
from dataclasses import field
from typing import TYPE_CHECKING, Any, Callable, Iterable, TypeVar

import numpy as np

from ._record import FrozenFields, lean_dataclass
from .errors import FlavourError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from ._refusal import Refusal

__all__ = [
    "Param",
    "Gain",
    "Discount",
    "IdcgStrategy",
    "TiePolicy",
    "Metric",
    "Preset",
    "Engine",
    "MetricOutput",
    "RunFilter",
    "RunFilterInput",
    "GradeRule",
    "NegativeRule",
    "Refusal",
    "Outcome",
    "Aggregate",
    "Divergence",
    "FAMILIES",
    "STAGE_FAMILIES",
    "aggregate",
    "declare",
    "declared",
    "discount",
    "gain",
    "grade_rule",
    "idcg_strategy",
    "metric",
    "negative_rule",
    "outcome",
    "run_filter",
    "tie_policy",
]


# The component types are frozen dataclasses declared with evalkit._record's
# lean_dataclass: the same fields, signature, repr, ==, hash and immutability, but
# their methods are written (each __init__ below) or shared, not generated with exec
# when this module is imported (79 generated methods, ~10 ms, issue 27).


@lean_dataclass
class Param(FrozenFields):
    """A declared parameter of a component.

    :param name: identifier used in flavour strings (``base`` in ``jarvelin(base=2)``).
    :param kind: ``"float"``, ``"int"`` or ``"str"``.
    :param default: value used when the parameter is omitted; ``None`` = required.
    :param choices: allowed values for ``"str"`` parameters.
    :param minimum: smallest allowed numeric value (inclusive) or ``None``.
    :param exclusive_minimum: if true, ``minimum`` itself is not allowed.
    :param maximum: largest allowed numeric value (inclusive) or ``None``.
    :param exclusive_maximum: if true, ``maximum`` itself is not allowed.
    """

    name: str
    kind: str = "float"
    default: Any = None
    description: str = ""
    choices: tuple[str, ...] | None = None
    minimum: float | None = None
    exclusive_minimum: bool = False
    maximum: float | None = None
    exclusive_maximum: bool = False

    def __init__(self, name: str, kind: str = "float", default: Any = None, description: str = "",
                 choices: tuple[str, ...] | None = None, minimum: float | None = None,
                 exclusive_minimum: bool = False, maximum: float | None = None,
                 exclusive_maximum: bool = False) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "name", name)
        setattr_(self, "kind", kind)
        setattr_(self, "default", default)
        setattr_(self, "description", description)
        setattr_(self, "choices", choices)
        setattr_(self, "minimum", minimum)
        setattr_(self, "exclusive_minimum", exclusive_minimum)
        setattr_(self, "maximum", maximum)
        setattr_(self, "exclusive_maximum", exclusive_maximum)

    def coerce(self, value: Any, owner: str) -> Any:
        """Validate and convert ``value``; raise :class:`FlavourError` naming ``owner``."""
        where = f"{owner}: parameter '{self.name}'"
        if self.kind in ("float", "int"):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise FlavourError(f"{where} must be a number, got {value!r}")
            if isinstance(value, (float, np.floating)) and not np.isfinite(value):
                raise FlavourError(f"{where} must be finite, got {value!r}")
            if self.kind == "int":
                if isinstance(value, (float, np.floating)) and not float(value).is_integer():
                    raise FlavourError(f"{where} must be an integer, got {value!r}")
                value = int(value)
            else:
                if abs(value) > np.finfo(np.float64).max:  # an int too large for float64
                    raise FlavourError(f"{where} must be finite, got {value!r}")
                value = float(value)
            if self.minimum is not None:
                bad = value <= self.minimum if self.exclusive_minimum else value < self.minimum
                if bad:
                    op = ">" if self.exclusive_minimum else ">="
                    raise FlavourError(f"{where} must be {op} {self.minimum:n}, got {value!r}")
            if self.maximum is not None:
                bad = value >= self.maximum if self.exclusive_maximum else value > self.maximum
                if bad:
                    op = "<" if self.exclusive_maximum else "<="
                    raise FlavourError(f"{where} must be {op} {self.maximum:n}, got {value!r}")
            return value
        value = str(value)
        if self.choices is not None and value not in self.choices:
            raise FlavourError(f"{where} must be one of {', '.join(self.choices)}; got {value!r}")
        return value


@lean_dataclass
class _Component(FrozenFields):
    # the docstring @dataclass wrote from inspect.signature (written out: ~0.1 ms at
    # import; tests/test_dataclass_equivalence.py compares it with the signature)
    """_Component(name: 'str', fn: 'Callable[..., Any]', params: 'tuple[Param, ...]' = (), formula: 'str' = '', source: 'str' = '', description: 'str' = '', numeric_keys: 'str | None' = None, same_as: 'str | None' = None, tried_by_identify: 'bool' = True, origin: 'str' = '')"""  # noqa: E501

    name: str
    fn: Callable[..., Any]
    params: tuple[Param, ...] = ()
    formula: str = ""
    source: str = ""
    description: str = ""
    #: If set, the component also accepts arbitrary numeric parameter names
    #: (used by the ``map`` gain: ``map(1=3,2=9)``); the value describes them.
    numeric_keys: str | None = None
    #: The name of another component of the family that this one equals at its default
    #: parameters (``log`` with base 2 is ``log2``); ``identify`` skips such components
    #: when it enumerates compositions (see :meth:`evalkit.registry.Registry.is_alias`).
    same_as: str | None = None
    #: ``False``: ``evalkit identify`` does not try this component when it enumerates
    #: compositions (a component no library reports an NDCG through, as the built-in
    #: ``gmean`` and ``sum`` aggregates).
    tried_by_identify: bool = True
    #: Filled in by the registry: where the component came from.
    origin: str = field(default="", compare=False)

    family = "component"
    #: the kernel's call signature, shapes and dtypes (used in generated docstrings)
    signature = ""

    def __init__(self, name: str, fn: Callable[..., Any], params: tuple[Param, ...] = (), formula: str = "",
                 source: str = "", description: str = "", numeric_keys: str | None = None,
                 same_as: str | None = None, tried_by_identify: bool = True, origin: str = "") -> None:
        setattr_ = object.__setattr__
        setattr_(self, "name", name)
        setattr_(self, "fn", fn)
        setattr_(self, "params", params)
        setattr_(self, "formula", formula)
        setattr_(self, "source", source)
        setattr_(self, "description", description)
        setattr_(self, "numeric_keys", numeric_keys)
        setattr_(self, "same_as", same_as)
        setattr_(self, "tried_by_identify", tried_by_identify)
        setattr_(self, "origin", origin)

    def docstring(self, own: str | None = None) -> str:
        """The kernel's docstring: description, ``own`` (the function's docstring, if
        any), formula, signature with shapes and dtypes, parameters, source."""
        parts = [(self.description[:1].upper() + self.description[1:]).rstrip(".") + "."
                 if self.description else f"The {self.family} '{self.name}'."]
        if own and own.strip():
            parts.append(inspect.cleandoc(own))
        if self.formula:
            parts.append(f"Formula: ``{self.formula}``")
        if self.signature:
            parts.append(self.signature)
        if self.params or self.numeric_keys:
            lines = ["Parameters:", ""]
            for p in self.params:
                default = "required" if p.default is None else f"default ``{p.default!r}``"
                choices = f", one of {', '.join(p.choices)}" if p.choices else ""
                lines.append(f"* ``{p.name}`` ({p.kind}, {default}{choices}): {p.description}")
            if self.numeric_keys:
                lines.append(f"* numeric keys: {self.numeric_keys}")
            parts.append("\n".join(lines))
        if self.source:
            parts.append(f"Source: {self.source}")
        return "\n\n".join(parts) + "\n"

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None

    def normalise_params(self, given: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
        """Validate ``given`` against the declared parameters.

        Returns a canonical, hashable tuple of ``(name, value)`` pairs holding only
        values that differ from the defaults (numeric keys sorted numerically).

        :raises FlavourError: unknown or invalid parameter, missing required one.
        """
        out: dict[str, Any] = {}
        numeric: dict[float, float] = {}
        for key, value in given.items():
            p = self.param(key)
            if p is None:
                if self.numeric_keys is not None and _is_number(key):
                    numeric[float(key)] = Param(key).coerce(value, f"{self.family} '{self.name}'")
                    continue
                known = ", ".join(q.name for q in self.params) or "none"
                extra = f"; numeric keys: {self.numeric_keys}" if self.numeric_keys else ""
                raise FlavourError(
                    f"{self.family} '{self.name}' has no parameter '{key}' (known: {known}{extra})"
                )
            out[key] = p.coerce(value, f"{self.family} '{self.name}'")
        for p in self.params:
            if p.name not in out and p.default is None:
                raise FlavourError(f"{self.family} '{self.name}' needs parameter '{p.name}'")
        defaults = {p.name: p.default for p in self.params}  # every key of out is a declared parameter
        canon = [(k, v) for k, v in sorted(out.items()) if v != defaults[k]]
        canon += [(_fmt_key(k), v) for k, v in sorted(numeric.items())]
        return tuple(canon)

    def bind(self, params: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
        """Keyword arguments for :attr:`fn`: defaults overlaid with ``params``."""
        kw = {p.name: p.default for p in self.params}
        numeric = {}
        for k, v in params:
            if self.param(k) is None:
                numeric[float(k)] = v
            else:
                kw[k] = v
        if self.numeric_keys is not None:
            kw["table"] = numeric
        return kw


def _is_number(text: str) -> bool:
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True


def format_float(x: float) -> str:
    """A float as a canonical string writes it: an integer below ``1e16`` without a
    decimal point (``3``, ``-2``), anything else as Python's shortest round-trip
    ``repr`` (``0.5``, ``1e+16``, ``-1e+308``: not a 309-digit integer)."""
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e16 else repr(x)


def _fmt_key(x: float) -> str:
    return format_float(x)


@lean_dataclass  # its base's __init__, under its own name
class Gain(_Component):
    """Gain function: ``fn(grades, **params) -> gains``.

    ``grades``: ``float64`` array of shape ``(n,)`` holding only judged, non-negative
    grades (the engine gives unjudged and negative-grade documents gain 0 itself; under
    the ``negative=gain`` convention negative grades are passed too, for a library
    that sums them as negative gains). Returns ``float64``
    of the same shape.
    """

    family = "gain"
    signature = ("Signature: ``fn(grades, **params) -> gains``; ``grades`` ``float64`` ``(n,)``, "
                 "judged non-negative grades only (unjudged and negative grades get gain 0 "
                 "before the call); returns ``float64`` ``(n,)``.")


@lean_dataclass  # its base's __init__, under its own name
class Discount(_Component):
    """Rank discount: ``fn(ranks, **params) -> discounts``.

    ``ranks``: 1-based ``int64`` array of shape ``(n,)``. Returns the multiplicative
    discount, ``float64`` of the same shape (``1/log2(r+1)`` for ``log2``).
    """

    family = "discount"
    signature = ("Signature: ``fn(ranks, **params) -> discounts``; ``ranks`` 1-based ``int64`` "
                 "``(n,)``; returns the multiplicative discount, ``float64`` ``(n,)``.")


@lean_dataclass  # its base's __init__, under its own name
class IdcgStrategy(_Component):
    """Ideal-DCG strategy: ``fn(ctx, **params) -> idcg``.

    ``ctx`` is an :class:`evalkit.kernel.IdealContext` giving the gains of the
    ranked documents and of all judged documents per query, the bound discount and
    the cutoff. Returns ``float64`` of shape ``(q,)``.
    """

    family = "idcg"
    signature = ("Signature: ``fn(ctx, **params) -> idcg``; ``ctx`` an "
                 ":class:`evalkit.kernel.IdealContext` (gains ``float64`` ``(n,)`` and "
                 "``(m,)``, discount, cutoff ``k``); returns ``float64`` ``(q,)``.")


@lean_dataclass
class TiePolicy(_Component):
    """Tie policy: ``fn(keys, **params) -> order``.

    ``keys`` is an :class:`evalkit.kernel.SortKeys` (query index, score, docno
    sort code, input line, grade; each of shape ``(n,)``). Returns an ``int64``
    permutation that groups rows by query (ascending query index) and orders each
    query's documents from rank 1 down.

    ``averaged`` policies additionally make the engine replace each position's discount
    by the mean discount over its block of equal scores (McSherry & Najork 2008), which
    gives the expected value over all orderings of tied documents for metrics that are
    sums over positions.

    ``needs_rank`` policies read the run's rank column (``keys.rank``; a library's
    default order): the readers then keep it (``read_run(..., keep_rank=True)``, asked for by
    the command line and the config runner), and a run without one is an error.
    """

    averaged: bool = False
    needs_rank: bool = False
    family = "ties"
    signature = ("Signature: ``fn(keys, **params) -> order``; ``keys`` a "
                 ":class:`evalkit.kernel.SortKeys` (columns of shape ``(n,)``); returns an "
                 "``int64`` ``(n,)`` permutation grouping rows by query, rank 1 first.")

    def __init__(self, name: str, fn: Callable[..., Any], params: tuple[Param, ...] = (), formula: str = "",
                 source: str = "", description: str = "", numeric_keys: str | None = None,
                 same_as: str | None = None, tried_by_identify: bool = True, origin: str = "",
                 averaged: bool = False, needs_rank: bool = False) -> None:
        _Component.__init__(self, name, fn, params, formula, source, description, numeric_keys, same_as,
                            tried_by_identify, origin)
        object.__setattr__(self, "averaged", averaged)
        object.__setattr__(self, "needs_rank", needs_rank)


@lean_dataclass
class MetricOutput(FrozenFields):
    """What a metric kernel returns.

    :param values: ``float64`` of shape ``(q,)``, one value per evaluated query.
    :param defined: ``bool`` of shape ``(q,)``; ``False`` where the value is undefined
        because the query has no relevant document (IDCG = 0 for NDCG). The flavour's
        ``empty`` convention decides what such a query scores.
    """

    values: np.ndarray
    defined: np.ndarray

    def __init__(self, values: np.ndarray, defined: np.ndarray) -> None:
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "defined", defined)


@lean_dataclass
class Metric(_Component):
    """Metric kernel: ``fn(inp, **params) -> MetricOutput``.

    ``inp`` is an :class:`evalkit.kernel.MetricInput`. ``uses`` names the
    component families the metric composes (``gain``, ``discount``, ``idcg``); the tie
    policy always applies. ``supports_averaged_ties`` says whether the metric is a sum
    over positions, so that the ``average`` tie policy is exact for it.
    """

    uses: frozenset[str] = frozenset()
    supports_averaged_ties: bool = False
    needs_subtopics: bool = False
    family = "metric"
    signature = ("Signature: ``fn(inp, **params) -> MetricOutput``; ``inp`` a "
                 ":class:`evalkit.kernel.MetricInput` covering all ``q`` queries of a run; "
                 "returns values ``float64`` ``(q,)`` and ``defined`` ``bool`` ``(q,)``.")

    def __init__(self, name: str, fn: Callable[..., Any], params: tuple[Param, ...] = (), formula: str = "",
                 source: str = "", description: str = "", numeric_keys: str | None = None,
                 same_as: str | None = None, tried_by_identify: bool = True, origin: str = "",
                 uses: frozenset[str] = frozenset(), supports_averaged_ties: bool = False,
                 needs_subtopics: bool = False) -> None:
        _Component.__init__(self, name, fn, params, formula, source, description, numeric_keys, same_as,
                            tried_by_identify, origin)
        object.__setattr__(self, "uses", uses)
        object.__setattr__(self, "supports_averaged_ties", supports_averaged_ties)
        object.__setattr__(self, "needs_subtopics", needs_subtopics)


# ---------------------------------------------------------------------- stage families
# Refusal (what a judgment rule's check returns) is defined in evalkit._refusal, imported
# when first used (PEP 562 __getattr__ below): the default judgment rules never build one.


def _identity_grades(grades: np.ndarray) -> np.ndarray:
    return grades


@lean_dataclass
class _Judgment(_Component):
    """A judgment rule (the ``grades`` and ``negative`` families): what the qrels'
    grades mean before anything is ranked.

    * ``fn(grades, **params) -> grades``: the grade the gain function reads
      (``float64`` ``(n,)`` in, ``float64`` ``(n,)`` out; only judged grades are
      passed); the identity unless ``reads_grades``;
    * ``check(grades, **params) -> Refusal | None``: the judged grades (``float64``
      ``(m,)``, ``NaN`` unjudged) this rule refuses: the evaluation stops, naming the
      first one (file and line) with :attr:`Refusal.message`;
    * ``drops(grades, **params) -> bool (n,)``: the ranked positions (by their grade,
      ``NaN`` unjudged) that leave the ranking and the ideal ranking, the documents
      below moving up (applied with the run filter, before ``depth``);
    * ``negative_gain``: negative grades are judgments with a negative gain (they go
      through the gain function and may enter the ideal ranking).
    * ``note``: the one line ``evalkit explain`` prints when a flavour uses the rule.
    """

    check: Callable[..., Refusal | None] | None = None
    drops: Callable[..., np.ndarray] | None = None
    negative_gain: bool = False
    reads_grades: bool = False
    note: str = ""
    #: ``identify`` varies this family's components (a family whose components only
    #: refuse data, or equal the default on the data they accept, sets it false)
    varied = True

    def __init__(self, name: str, fn: Callable[..., Any], params: tuple[Param, ...] = (), formula: str = "",
                 source: str = "", description: str = "", numeric_keys: str | None = None,
                 same_as: str | None = None, tried_by_identify: bool = True, origin: str = "",
                 check: Callable[..., Refusal | None] | None = None, drops: Callable[..., np.ndarray] | None = None,
                 negative_gain: bool = False, reads_grades: bool = False, note: str = "") -> None:
        _Component.__init__(self, name, fn, params, formula, source, description, numeric_keys, same_as,
                            tried_by_identify, origin)
        object.__setattr__(self, "check", check)
        object.__setattr__(self, "drops", drops)
        object.__setattr__(self, "negative_gain", negative_gain)
        object.__setattr__(self, "reads_grades", reads_grades)
        object.__setattr__(self, "note", note)


@lean_dataclass  # its base's __init__, under its own name
class GradeRule(_Judgment):
    """Grade rule (family ``grades``): which grades are accepted and the grade the gain
    reads, as a library reads its labels. See
    :class:`_Judgment` for ``fn``, ``check``, ``drops``."""

    family = "grades"
    varied = False
    signature = ("Signature: ``fn(grades, **params) -> grades``; ``grades`` ``float64`` ``(n,)`` judged "
                 "grades; returns the grade the gain reads, ``float64`` ``(n,)``; ``check(grades)`` -> "
                 "``Refusal`` or ``None`` over ``float64`` ``(m,)``.")


@lean_dataclass  # its base's __init__, under its own name
class NegativeRule(_Judgment):
    """Negative-grade rule (family ``negative``): what a negative judged grade means
    (a judged non-relevant document, a negative gain, refused, or absent). See
    :class:`_Judgment` for ``fn``, ``check``, ``drops``, ``negative_gain``."""

    family = "negative"
    signature = ("Signature: ``fn(grades, **params) -> grades`` (the identity), with ``check``, ``drops`` "
                 "and ``negative_gain`` declared on the component.")


class RunFilterInput:
    """What a run filter receives: one run sorted under the flavour's tie policy.

    :param ranked: the sorted list (:class:`evalkit.kernel.RankedList`: ``offsets``
        ``int64`` ``(q + 1,)``, ``query`` ``int64`` ``(n,)``, ``rank`` 1-based ``int64``
        ``(n,)``, ``grade`` ``float64`` ``(n,)`` (``NaN`` unjudged), ``docno`` codes).
    :param problem: the joined run (engine-private; read through the properties).
    """

    def __init__(self, ranked: Any, problem: Any) -> None:
        self.ranked = ranked
        self._problem = problem

    @property
    def qid(self) -> np.ndarray:
        """``object`` ``(n,)``: the query id of each position."""
        return np.asarray(self._problem.qids, dtype=object)[self.ranked.query]

    @property
    def docno(self) -> np.ndarray:
        """``object`` ``(n,)``: the docno of each position."""
        return self._problem.docno_vocab[np.asarray(self.ranked.docno)]

    def input_order(self) -> np.ndarray:
        """``int64`` ``(n,)``: the position of each document when the run is sorted by
        score descending with tied documents in the run's line order (a stable sort by
        score, whatever the tie policy), ``0`` for each query's first."""
        keys, order = self.ranked._keys_order()
        by_score = keys.score_order()
        q = keys.query[by_score]
        head = np.ones(len(q), dtype=bool)
        head[1:] = q[1:] != q[:-1]
        starts = np.maximum.accumulate(np.where(head, np.arange(len(q)), 0))
        position = np.empty(len(keys.query), dtype=np.int64)
        position[by_score] = np.arange(len(q), dtype=np.int64) - starts
        return position[order]


@lean_dataclass
class RunFilter(_Component):
    """Run filter (family ``run_filter``): ``fn(inp, **params) -> drop``.

    ``inp`` a :class:`RunFilterInput` (the run sorted under the tie policy); returns
    ``bool`` ``(n,)``: the positions that leave the ranking (the ranks are then
    renumbered, before ``depth`` and ``judged_only``). ``empties_query``: a query the
    filter leaves without documents counts as absent from the run (``missing``).
    """

    empties_query: bool = False
    note: str = ""
    varied = True
    family = "run_filter"
    signature = ("Signature: ``fn(inp, **params) -> drop``; ``inp`` a :class:`RunFilterInput` (the run "
                 "sorted, ``n`` positions); returns ``bool`` ``(n,)``.")

    def __init__(self, name: str, fn: Callable[..., Any], params: tuple[Param, ...] = (), formula: str = "",
                 source: str = "", description: str = "", numeric_keys: str | None = None,
                 same_as: str | None = None, tried_by_identify: bool = True, origin: str = "",
                 empties_query: bool = False, note: str = "") -> None:
        _Component.__init__(self, name, fn, params, formula, source, description, numeric_keys, same_as,
                            tried_by_identify, origin)
        object.__setattr__(self, "empties_query", empties_query)
        object.__setattr__(self, "note", note)


@lean_dataclass
class Outcome(_Component):
    """Per-query outcome (family ``outcome``): ``fn(values, **params) -> values``.

    ``values``: ``float64`` ``(q,)`` per-query values after ``empty`` and ``missing``
    (``NaN``: left out, stays ``NaN``); returns ``float64`` ``(q,)``.
    """

    note: str = ""
    varied = True
    family = "outcome"
    signature = ("Signature: ``fn(values, **params) -> values``; ``float64`` ``(q,)`` in and out, ``NaN`` "
                 "(left out) stays ``NaN``.")

    def __init__(self, name: str, fn: Callable[..., Any], params: tuple[Param, ...] = (), formula: str = "",
                 source: str = "", description: str = "", numeric_keys: str | None = None,
                 same_as: str | None = None, tried_by_identify: bool = True, origin: str = "",
                 note: str = "") -> None:
        _Component.__init__(self, name, fn, params, formula, source, description, numeric_keys, same_as,
                            tried_by_identify, origin)
        object.__setattr__(self, "note", note)


@lean_dataclass
class Aggregate(_Component):
    """Aggregate over queries (family ``aggregate``): ``fn(values, **params) -> means``.

    ``values``: ``float64`` ``(s, q)`` per-query values of ``s`` systems (``NaN``: left
    out of the aggregate); returns ``float64`` ``(s,)`` (``NaN`` when no query is
    included).
    """

    note: str = ""
    varied = True
    family = "aggregate"
    signature = ("Signature: ``fn(values, **params) -> means``; ``values`` ``float64`` ``(s, q)`` with "
                 "``NaN`` left out; returns ``float64`` ``(s,)``.")

    __init__ = Outcome.__init__  # the same fields (copied under this class's name)


@lean_dataclass
class Preset(FrozenFields):
    """A named flavour, ``LIBRARY.MEASURE`` (``<library>.ndcg_cut``).

    :param spec: canonical flavour string without cutoff; ``{k}`` is not used: the
        cutoff given as ``@k`` (or each of ``default_cutoffs``) is appended.
    :param requires_cutoff: ``True`` if the measure is only defined with a cutoff.
    :param default_cutoffs: cutoffs used when none is given (a library
        may report several: 5, 10, 15, 20, 30, 100, 200, 500, 1000).
    :param native_name: the library's own name for the measure, ``{k}`` standing for
        the cutoff (``"ndcg_cut_{k}"``); used for output in the library's own names.
    :param min_documents: the library refuses a matrix of fewer document columns than
        this (a library needing 2 documents per query says 2):
        :func:`evalkit.arrays.score` under this preset refuses it too, quoting
        ``too_few_documents`` (the library's message).
    :param interleaved_topics: non-empty if the library, reading a run in its line order,
        scores each contiguous part of a topic's lines as a topic of its own:
        what it does, with its source. :func:`evalkit.evaluate` then warns
        (:class:`~evalkit.errors.ReferenceDivergenceWarning`) for a run in which a judged
        topic's lines are not contiguous; evalkit scores the whole topic.
    """

    name: str
    spec: str
    description: str = ""
    source: str = ""
    requires_cutoff: bool = False
    default_cutoffs: tuple[int, ...] = ()
    native_name: str = ""
    origin: str = field(default="", compare=False)
    min_documents: int = 1
    too_few_documents: str = ""
    interleaved_topics: str = ""
    #: ``((divergence name, what the library does), ...)``: inputs on which the
    #: library computes something other than the preset (a :class:`Divergence`
    #: component detects them); :func:`evalkit.evaluate` then warns.
    diverges: tuple[tuple[str, str], ...] = ()
    family = "preset"

    def __init__(self, name: str, spec: str, description: str = "", source: str = "", requires_cutoff: bool = False,
                 default_cutoffs: tuple[int, ...] = (), native_name: str = "", origin: str = "",
                 min_documents: int = 1, too_few_documents: str = "", interleaved_topics: str = "",
                 diverges: tuple[tuple[str, str], ...] = ()) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "name", name)
        setattr_(self, "spec", spec)
        setattr_(self, "description", description)
        setattr_(self, "source", source)
        setattr_(self, "requires_cutoff", requires_cutoff)
        setattr_(self, "default_cutoffs", default_cutoffs)
        setattr_(self, "native_name", native_name)
        setattr_(self, "origin", origin)
        setattr_(self, "min_documents", min_documents)
        setattr_(self, "too_few_documents", too_few_documents)
        setattr_(self, "interleaved_topics", interleaved_topics)
        setattr_(self, "diverges", diverges)

    def divergences(self) -> tuple[tuple[str, str], ...]:
        """:attr:`diverges`, with :attr:`interleaved_topics` as the ``interleaved_topics``
        divergence (the older spelling of the same declaration)."""
        extra = (("interleaved_topics", self.interleaved_topics),) if self.interleaved_topics else ()
        return tuple(self.diverges) + extra


@lean_dataclass
class Divergence(_Component):
    """An input on which some library computes something other than its preset (family
    ``divergence``): ``fn(qrels, run) -> topics``, the judged query ids (``object``
    ``(t,)``, sorted) on which it does. ``message`` (``{topics}`` stands for them)
    says what evalkit does instead. A preset names it in :attr:`Preset.diverges`;
    :func:`evalkit.evaluate` calls it once per run for the presets among the evaluated
    flavours and warns (:class:`~evalkit.errors.ReferenceDivergenceWarning`).
    """

    message: str = "{topics}"
    family = "divergence"
    signature = ("Signature: ``fn(qrels, run) -> topics``; returns ``object`` ``(t,)`` judged query ids.")

    def __init__(self, name: str, fn: Callable[..., Any], params: tuple[Param, ...] = (), formula: str = "",
                 source: str = "", description: str = "", numeric_keys: str | None = None,
                 same_as: str | None = None, tried_by_identify: bool = True, origin: str = "",
                 message: str = "{topics}") -> None:
        _Component.__init__(self, name, fn, params, formula, source, description, numeric_keys, same_as,
                            tried_by_identify, origin)
        object.__setattr__(self, "message", message)


@lean_dataclass
class Engine(FrozenFields):
    """An evaluation backend (issue 12): where and how qrels and runs are evaluated;
    the :class:`evalkit.backends.Backend` the command line and the runner call.

    ``fn(qrels, runs, flavours, **options) -> Results``: the same per-query values as
    the in-process engine (``columnar``, the default), whatever holds the data (for
    ``spark``, Spark DataFrames). A Dask or Ray backend is a plugin registering one.

    :param files: ``files(qrels, runs, flavours, *, labels, registry, names, namer,
        subtopics, sensitivity, options)``: evaluate paths the backend reads itself
        (:meth:`evaluate_files`); required when ``in_process`` is ``False``.
    :param in_process: capability: ``fn`` takes :class:`~evalkit.Qrels` and runs read
        into this process by :mod:`evalkit.io`, so callers read the files and evaluate
        run by run (progress, the results store, unjudged bounds). ``False``: callers
        hand the paths to ``files``.
    :param options: the settings ``files`` takes (:class:`evalkit.backends.EngineOption`).
    """

    name: str
    fn: Callable
    description: str = ""
    source: str = ""
    origin: str = field(default="", compare=False)
    files: Callable | None = field(default=None, compare=False)
    in_process: bool = True
    options: tuple = ()
    family = "engine"

    def __init__(self, name: str, fn: Callable, description: str = "", source: str = "", origin: str = "",
                 files: Callable | None = None, in_process: bool = True, options: tuple = ()) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "name", name)
        setattr_(self, "fn", fn)
        setattr_(self, "description", description)
        setattr_(self, "source", source)
        setattr_(self, "origin", origin)
        setattr_(self, "files", files)
        setattr_(self, "in_process", in_process)
        setattr_(self, "options", options)

    def evaluate(self, qrels: Any, runs: Any, flavours: Any, **options: Any) -> Any:
        """``fn(qrels, runs, flavours, **options)``: :class:`~evalkit.Results` ``(s, f, q)``."""
        return self.fn(qrels, runs, flavours, **options)

    def evaluate_files(self, qrels: Any, runs: Any, flavours: Any, **kwargs: Any) -> Any:
        """``files(qrels, runs, flavours, **kwargs)`` (see :class:`evalkit.backends.Backend`).

        :raises EvaluationError: the backend reads no files (it has no ``files``)."""
        if self.files is None:
            from .errors import EvaluationError

            raise EvaluationError(f"engine '{self.name}' evaluates data in this process only; it reads no files")
        return self.files(qrels, runs, flavours, **kwargs)


FAMILIES: dict[str, type[Any]] = {
    "gain": Gain,
    "discount": Discount,
    "idcg": IdcgStrategy,
    "ties": TiePolicy,
    "metric": Metric,
    "preset": Preset,
    "engine": Engine,
    "run_filter": RunFilter,
    "grades": GradeRule,
    "negative": NegativeRule,
    "outcome": Outcome,
    "aggregate": Aggregate,
    "divergence": Divergence,
}

#: The stage families a flavour names besides its metric's components, with their
#: default component, in the order of the canonical string (:mod:`evalkit.flavour`).
STAGE_FAMILIES: dict[str, str] = {
    "negative": "zero",
    "grades": "any",
    "run_filter": "none",
    "outcome": "value",
    "aggregate": "mean",
}


#: the types :func:`replace_origin` copies field by field (every family's own type)
_OWN_TYPES = frozenset(FAMILIES.values())

_C = TypeVar("_C", bound="DataclassInstance")  # a component or preset
#: a kernel function, returned unchanged by the declaring decorators
_Fn = TypeVar("_Fn", bound=Callable[..., Any])


def replace_origin(component: _C, origin: str) -> _C:
    """``dataclasses.replace(component, origin=origin)``: for evalkit's own component
    and preset types (whose ``__init__`` sets each field as given, with no
    ``__post_init__``) a copy of the instance's fields with ``origin`` set, made
    without ``replace``'s walk over the fields and keyword call (the registry makes
    one per registered component; issue 27); for another type (a plugin's
    subclass) ``dataclasses.replace`` itself."""
    cls = type(component)
    if cls in _OWN_TYPES:
        copy = object.__new__(cls)
        fields = copy.__dict__
        fields.update(component.__dict__)
        fields["origin"] = origin
        return copy
    return dataclasses.replace(component, origin=origin)


# ---------------------------------------------------------------------- declaring kernels
_ATTR = "__evalkit_component__"


def declare(kind: type, name: str | None = None, *, aliases: Iterable[str] = (),
            **metadata: Any) -> Callable[[_Fn], _Fn]:
    """Decorator declaring a kernel's component metadata in one place.

    ``@declare(Gain, "exp2", formula=..., source=..., description=...)`` on a function
    builds the component ``Gain(name="exp2", fn=<the function>, ...)``, gives the
    function a docstring generated from the metadata (description, the function's
    own docstring, formula, signature with shapes and dtypes, parameters, source:
    :meth:`_Component.docstring`) and returns the function unchanged otherwise, so it
    can still be called and tested directly. :func:`declared` collects the components
    a module declares, for its registration hook. The shortcuts :func:`gain`,
    :func:`discount`, :func:`idcg_strategy`, :func:`tie_policy` and :func:`metric` fix
    ``kind``.

    :param kind: the component type (:class:`Gain`, :class:`Discount`, ...).
    :param name: the component's name; default: the function's ``__name__``.
    :param aliases: other names under which the registry also finds the component.
    :param metadata: the component's other fields (``formula``, ``source``,
        ``description``, ``params``, ``uses``, ...).
    :raises TypeError: ``kind`` is not a component type, or a field is unknown.
    """
    if kind not in FAMILIES.values() or kind is Preset:
        raise TypeError(f"declare() needs a kernel component type, got {kind!r}")

    def wrap(fn: _Fn) -> _Fn:
        component = kind(name=name or fn.__name__, fn=fn, **metadata)
        fn.__doc__ = component.docstring(fn.__doc__)
        setattr(fn, _ATTR, (component, tuple(aliases)))
        return fn

    return wrap


def gain(name: str | None = None, **metadata: Any) -> Callable[[_Fn], _Fn]:
    """``@gain(...)``: :func:`declare` a :class:`Gain`."""
    return declare(Gain, name, **metadata)


def discount(name: str | None = None, **metadata: Any) -> Callable[[_Fn], _Fn]:
    """``@discount(...)``: :func:`declare` a :class:`Discount`."""
    return declare(Discount, name, **metadata)


def idcg_strategy(name: str | None = None, **metadata: Any) -> Callable[[_Fn], _Fn]:
    """``@idcg_strategy(...)``: :func:`declare` an :class:`IdcgStrategy`."""
    return declare(IdcgStrategy, name, **metadata)


def tie_policy(name: str | None = None, **metadata: Any) -> Callable[[_Fn], _Fn]:
    """``@tie_policy(...)``: :func:`declare` a :class:`TiePolicy`."""
    return declare(TiePolicy, name, **metadata)


def metric(name: str | None = None, **metadata: Any) -> Callable[[_Fn], _Fn]:
    """``@metric(...)``: :func:`declare` a :class:`Metric`."""
    return declare(Metric, name, **metadata)


def run_filter(name: str | None = None, **metadata: Any) -> Callable[[_Fn], _Fn]:
    """``@run_filter(...)``: :func:`declare` a :class:`RunFilter`."""
    return declare(RunFilter, name, **metadata)


def grade_rule(name: str | None = None, **metadata: Any) -> Callable[[_Fn], _Fn]:
    """``@grade_rule(...)``: :func:`declare` a :class:`GradeRule` (``fn`` reads a grade)."""
    return declare(GradeRule, name, **metadata)


def negative_rule(name: str | None = None, **metadata: Any) -> Callable[[_Fn], _Fn]:
    """``@negative_rule(...)``: :func:`declare` a :class:`NegativeRule`."""
    return declare(NegativeRule, name, **metadata)


def outcome(name: str | None = None, **metadata: Any) -> Callable[[_Fn], _Fn]:
    """``@outcome(...)``: :func:`declare` an :class:`Outcome`."""
    return declare(Outcome, name, **metadata)


def aggregate(name: str | None = None, **metadata: Any) -> Callable[[_Fn], _Fn]:
    """``@aggregate(...)``: :func:`declare` an :class:`Aggregate`."""
    return declare(Aggregate, name, **metadata)


def declared(module: str | Any, kind: type | None = None) -> list[tuple[Any, tuple[str, ...]]]:
    """The components declared with :func:`declare` in ``module``, in definition order.

    Returns ``(component, aliases)`` pairs, the form a zero-argument registration hook
    may return (see :mod:`evalkit.hookspecs`)::

        @hookimpl
        def evalkit_register_gains():
            return declared(__name__)

    :param module: a module object or its name (``__name__``).
    :param kind: only components of this type; ``None``: every type.
    """
    mod = sys.modules[module] if isinstance(module, str) else module
    out, seen = [], set()
    for value in vars(mod).values():
        hit = getattr(value, _ATTR, None) if callable(value) else None
        if hit is None or id(value) in seen or getattr(value, "__module__", None) != mod.__name__:
            continue
        seen.add(id(value))
        if kind is None or isinstance(hit[0], kind):
            out.append(hit)
    return out


def __getattr__(name: str) -> Any:
    """:class:`Refusal` (:mod:`evalkit._refusal`), defined on first use (PEP 562,
    issue 27): an evaluation under the default judgment rules does not create it."""
    if name == "Refusal":
        from ._refusal import Refusal

        globals()[name] = Refusal  # later lookups skip __getattr__
        return Refusal
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"Refusal"})
