"""Which NDCG flavour produced a reported number, and how sure can one be?

Given qrels, one or more runs and the number(s) a paper or a tool reported for them,
:func:`identify` evaluates the runs under every registered preset (those whose metric
has an ERR maximum grade also at the usual maximum grades) and every flavour one
choice away from a preset (:func:`neighbours`: one component -- gain, discount, IDCG
strategy, tie policy, each at every string-choice parameter such as
``stable(score=float32)`` -- or one convention changed to another registered value),
and keeps the flavours that reproduce **every** reported number within its printed
precision: ``0.4021`` stands for any value in ``[0.40205, 0.40215]`` (half a unit in
the last printed digit). The bound keeps the space near what libraries compute
(about 1,600 flavours at a known cutoff with the built-in presets, instead of every
gain x discount x IDCG x ties x conventions composition); a flavour two choices from
every preset is not tried.

Evidence (:class:`Evidence`) is one number: the mean over queries of one system at
one cutoff (or an unknown one), or one query's value (a per-query file such as
a TREC-style per-query table). Several numbers are intersected: a candidate must
reproduce them all, which is how a paper's table (several runs, several cutoffs) is
identified.

Answers are weighed, not just listed (:class:`Identification`):

* **prior**: presets of real libraries come first (by :data:`evalkit.libraries.LIBRARY_ORDER`), then
  compositions by their distance to the nearest preset (the number of components,
  conventions and parameters changed, :func:`distance_to_presets`);
* **groups**: candidates that give the same value on every query of this data are
  one answer (:class:`Group`); the choices that vary inside a group are what the
  data cannot tell apart, with the reason when it is a property of the data (one
  positive grade: gains; no tied scores: tie policies; no query missing from a run:
  ``missing``; every query with a relevant document: ``empty``);
* **strength** (:class:`Strength`): how many distinct values the candidate space
  produces on this data, and the chance that an arbitrary flavour lands within the
  printed rounding (estimated from the density of candidate values around the
  reported ones), hence the number of matches expected by chance;
* a **verdict** (:attr:`Identification.status`): ``"preset"`` (a preset reproduces
  the numbers: the first group), ``"composition"`` (one group of compositions and a
  negligible chance of a coincidence), ``"weak"`` (no preset, and several groups
  match or a coincidence is likely: no answer is named) or ``"none"``.

Everything is evaluated in one :func:`evalkit.evaluate` call (each run is joined
once and sorted once per tie policy), every candidate under its own conventions.

Only the CLI prints; this module returns data.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Mapping, Sequence, TYPE_CHECKING

import numpy as np

from .columnar import isin_ids
from .float32 import scores_as_float32
from .data import Qrels, Run
from .errors import EvalkitError, FlavourError
from .flavour import COMPONENT_KEYS, CONVENTIONS, DEFAULT_COMPONENTS, DEFAULT_STAGES, STAGE_KEYS, ComponentRef, Flavour
from .registry import Registry, registry_or_default

if TYPE_CHECKING:
    from .registry import Registry

__all__ = [
    "Reported",
    "Evidence",
    "Answer",
    "Group",
    "Strength",
    "Identification",
    "parse_reported",
    "read_reported_table",
    "read_evidence_table",
    "read_per_query",
    "candidate_flavours",
    "neighbours",
    "distance_to_presets",
    "identify",
    "LIBRARY_ORDER",
    "COMMON_CUTOFFS",
    "ERR_MAX_GRADES",
]


#: Cutoffs tried when no ``k`` is given (besides no cutoff).
COMMON_CUTOFFS: tuple[int, ...] = (5, 10, 20, 100, 1000)

#: Binary measures' presets (AP, precision, recall, reciprocal rank) are left out, and
#: other measures outside NDCG's family (counts, bpref, infAP, set measures...).
_BINARY_METRICS = frozenset({"ap", "precision", "recall", "rr"}) | frozenset({
    "num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "rprec", "bpref", "infap",
    "iprec_at_recall", "pt_avg", "rprec_mult", "utility", "bing", "g_gain", "relative_precision", "success",
    "set_p", "set_recall", "set_relative_p", "set_map", "set_f", "unjudged", "judged", "trec_rbp", "rbp_resid"})

#: Maximum grades tried for ERR presets (4 and 2 are in use): ``R = (2^rel - 1) / 2^max_grade`` depends on it.
ERR_MAX_GRADES: tuple[int, ...] = (1, 2, 3, 4, 5)

#: A reported value's neighbourhood used to estimate the density of candidate
#: values: this many times its printed half-width on each side.
_WINDOW = 10.0
#: Expected chance matches at or above which a lone composition is not named.
_WEAK = 0.1


@dataclass(frozen=True)
class Reported:
    """A reported value and the half-width of its printed precision.

    :param text: the value as printed (``"0.4021"``, ``"40.21"``, ``"40.21%"``).
    :param value: the number in [0, 1] (percentages divided by 100).
    :param tolerance: half a unit in the last printed digit, on the same scale.
    """

    text: str
    value: float
    tolerance: float

    def matches(self, x: float) -> bool:
        # 1e-12 absorbs the binary representation of the printed decimal
        return not math.isnan(x) and abs(x - self.value) <= self.tolerance + 1e-12


def parse_reported(text: str | float, *, percent: bool | None = None) -> Reported:
    """Parse a printed value. ``0.4021`` -> tolerance 5e-5; ``40.21`` or ``40.21%``
    is read as a percentage (values above 1 cannot be NDCG) unless ``percent=False``.

    :raises EvalkitError: not a number, negative, or beyond a ``float`` (``1e400``).
    """
    raw = str(text).strip()
    body = raw[:-1].strip() if raw.endswith("%") else raw
    try:
        dec = Decimal(body)
    except InvalidOperation:
        raise EvalkitError(f"reported value {raw!r} is not a number") from None
    if not dec.is_finite() or dec < 0:
        raise EvalkitError(f"reported value {raw!r} must be a finite number >= 0")
    exponent = dec.as_tuple().exponent
    assert isinstance(exponent, int)  # a finite Decimal's exponent ('n', 'N', 'F' only for NaN, infinity)
    half = Decimal(5) * Decimal(10) ** (exponent - 1)
    if percent is None:
        percent = raw.endswith("%") or dec > 1
    if percent:
        dec, half = dec / 100, half / 100
    value, tolerance = float(dec), float(half)
    if not (math.isfinite(value) and math.isfinite(tolerance)):
        # 1e400 is a finite Decimal but an infinite float: its window would match every flavour
        raise EvalkitError(f"reported value {raw!r} is out of range: an NDCG is printed as a number "
                           "from 0 to 1 or as a percentage")
    return Reported(raw, value, tolerance)


def _parse_value_at(text: str) -> tuple[Reported, int | None]:
    """``0.4021`` -> (value, None); ``0.4021@10`` -> (value, 10)."""
    value, at, k = text.partition("@")
    if not at:
        return parse_reported(value), None
    if not k.isascii() or not k.isdigit() or int(k) < 1 or len(k) > 9:
        raise EvalkitError(f"reported value {text!r}: the cutoff after '@' must be an integer >= 1")
    return parse_reported(value), int(k)


@dataclass(frozen=True)
class Evidence:
    """One reported number.

    :param system: the run's name.
    :param reported: the value as printed.
    :param k: the cutoff it was computed at; ``None``: unknown (no cutoff and
        :data:`COMMON_CUTOFFS` are tried, the same for every unknown one).
    :param qid: a query id for one query's value; ``None``: the mean over queries.
    """

    system: str
    reported: Reported
    k: int | None = None
    qid: str | None = None

    @property
    def label(self) -> str:
        text = self.system + (f"@{self.k}" if self.k is not None else "")
        return text if self.qid is None else f"{text} q{self.qid}"


def _read_lines(path_or_text: str) -> tuple[str, list[tuple[int, list[str]]]]:
    if "\n" in path_or_text:
        source, text = "<text>", path_or_text
    else:
        source = path_or_text
        try:
            text = Path(path_or_text).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise EvalkitError(f"{source}: cannot read: {exc}") from None
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if line:
            rows.append((number, line.split()))
    return source, rows


def read_reported_table(path_or_text: str) -> dict[str, Reported]:
    """Read ``system value`` lines (whitespace-separated; ``#`` starts a comment).

    :raises EvalkitError: a line without exactly two fields, a bad value, or a system
        listed twice; the message names the file and line.
    """
    source, rows = _read_lines(path_or_text)
    out: dict[str, Reported] = {}
    for number, parts in rows:
        if len(parts) != 2:
            raise EvalkitError(f"{source}:{number}: expected 'system value', got {' '.join(parts)!r}")
        system, value = parts
        if system in out:
            raise EvalkitError(f"{source}:{number}: system {system!r} listed twice")
        try:
            out[system] = parse_reported(value)
        except EvalkitError as exc:
            raise EvalkitError(f"{source}:{number}: {exc}") from None
    if not out:
        raise EvalkitError(f"{source}: no 'system value' lines")
    return out


def read_evidence_table(path_or_text: str, *, k: int | None = None) -> list[Evidence]:
    """Read ``system value [value ...]`` lines, each value optionally with its cutoff
    (``bm25 0.4021@10 0.3812@5``): a paper's table, one line per system.

    :param k: the cutoff of values written without one (``None``: unknown).
    :raises EvalkitError: a line without a value, a bad value, or a (system, cutoff)
        listed twice; the message names the file and line.
    """
    source, rows = _read_lines(path_or_text)
    out: list[Evidence] = []
    seen: set[tuple[str, int | None]] = set()
    for number, parts in rows:
        if len(parts) < 2:
            raise EvalkitError(f"{source}:{number}: expected 'system value [value@k ...]', got {parts[0]!r}")
        system = parts[0]
        for text in parts[1:]:
            try:
                reported, at = _parse_value_at(text)
            except EvalkitError as exc:
                raise EvalkitError(f"{source}:{number}: {exc}") from None
            key = (system, at if at is not None else k)
            if key in seen:
                where = f" at cutoff {key[1]}" if key[1] is not None else ""
                raise EvalkitError(f"{source}:{number}: system {system!r}{where} listed twice")
            seen.add(key)
            out.append(Evidence(system, reported, key[1]))
    if not out:
        raise EvalkitError(f"{source}: no 'system value' lines")
    return out


_MEASURE_CUTOFF = re.compile(r"(?:_cut)?[_.@](\d+)$")


def read_per_query(path_or_text: str, system: str, *, k: int | None = None) -> list[Evidence]:
    """Read one system's per-query values: ``qid value`` lines, or a TREC-style
    per-query table (``measure qid value``, one measure; its ``all`` line is the mean, and a
    measure name ending in a number, ``ndcg_cut_10``, gives the cutoff).

    :param k: the cutoff when the file does not give one (``None``: unknown).
    :raises EvalkitError: a malformed line, a query listed twice, several measures,
        or a cutoff in the measure name that contradicts ``k``; the message names the
        file and line.
    """
    source, rows = _read_lines(path_or_text)
    measures: set[str] = set()
    values: list[tuple[str, Reported]] = []
    seen: set[str] = set()
    for number, parts in rows:
        if len(parts) == 3:
            measure, qid, value = parts
            measures.add(measure)
            if len(measures) > 1:
                raise EvalkitError(f"{source}:{number}: several measures ({', '.join(sorted(measures))}); "
                                   f"keep the lines of one")
        elif len(parts) == 2:
            qid, value = parts
        else:
            raise EvalkitError(f"{source}:{number}: expected 'qid value' or 'measure qid value', "
                               f"got {' '.join(parts)!r}")
        if qid in seen:
            raise EvalkitError(f"{source}:{number}: query {qid!r} listed twice")
        seen.add(qid)
        try:
            values.append((qid, parse_reported(value, percent=False)))
        except EvalkitError as exc:
            raise EvalkitError(f"{source}:{number}: {exc}") from None
    if measures:
        hit = _MEASURE_CUTOFF.search(next(iter(measures)))
        if hit:
            at = int(hit.group(1))
            if k is not None and k != at:
                raise EvalkitError(f"{source}: the measure {next(iter(measures))!r} is at cutoff {at}, not {k}")
            k = at
    if not any(q != "all" for q, _ in values):
        raise EvalkitError(f"{source}: no per-query values")
    return [Evidence(system, r, k, None if (measures and q == "all") else q) for q, r in values]


@dataclass(frozen=True)
class Answer:
    """A candidate flavour and its values on the evidence.

    :param name: preset name with cutoff (``<library>.ndcg_cut@10``), or the
        canonical flavour string for a composition.
    :param flavour: the :class:`Flavour` (at the evidence's cutoff when it has one).
    :param preset: the preset's name, or ``None`` for a composition.
    :param values: its value for each piece of evidence (same order as
        :attr:`Identification.evidence`).
    :param non_default: number of choices that differ from the default flavour's (each
        non-default component parameter counts too).
    :param distance: for a composition, the number of components, conventions and
        parameters that differ from the nearest preset (:func:`distance_to_presets`);
        0 for a preset.
    :param aliases: other preset names with the same flavour.
    """

    name: str
    flavour: Flavour
    preset: str | None
    values: tuple[float, ...]
    non_default: int
    aliases: tuple[str, ...] = ()
    distance: int = 0


@dataclass(frozen=True)
class Group:
    """Candidates that give the same value on every query of the data: one answer.

    :param answers: the members, most likely first (the first is the group's name).
    :param varies: ``{choice: values}`` for every choice that differs between members
        (``{"gain": ("exp2", "linear")}``): what the data cannot tell apart.
    :param reasons: ``{choice: why}`` for the choices that vary because of a property
        of the data (``"gain": "the qrels have one positive grade"``).
    """

    answers: tuple[Answer, ...]
    varies: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    reasons: Mapping[str, str] = field(default_factory=dict)

    @property
    def first(self) -> Answer:
        return self.answers[0]

    @property
    def name(self) -> str:
        return self.answers[0].name

    @property
    def names(self) -> tuple[str, ...]:
        """Every member's name and alias."""
        return tuple(n for a in self.answers for n in (a.name, *a.aliases))

    @property
    def presets(self) -> tuple[str, ...]:
        return tuple(n for a in self.answers if a.preset is not None for n in (a.name, *a.aliases))


@dataclass(frozen=True)
class Strength:
    """How much the evidence says.

    :param n_flavours: candidates tried.
    :param n_behaviours: distinct per-query behaviours among them on this data (the
        number of groups).
    :param n_distinct: distinct values (vectors of values, one per piece of evidence)
        the candidates produce.
    :param chance: the chance that an arbitrary flavour lands within the printed
        rounding of every reported number, estimated from the density of the distinct
        candidate values in a window of ``10`` half-widths around the reported values
        (the matching ones left out).
    :param expected_by_chance: ``chance * n_distinct``: matches to expect from
        coincidence alone.
    :param facts: properties of the data that make choices indistinguishable
        (``binary_qrels``, ``no_ties``, ``no_ties_float32``, ``no_missing``, ``no_empty``).
    """

    n_flavours: int
    n_behaviours: int
    n_distinct: int
    chance: float
    expected_by_chance: float
    facts: Mapping[str, bool] = field(default_factory=dict)


@dataclass(frozen=True)
class Identification:
    """What :func:`identify` returns.

    :param systems: the systems of the evidence, in order of first appearance.
    :param reported: the reported value of each piece of evidence.
    :param evidence: the evidence, in the order of :attr:`Answer.values`.
    :param matches: every candidate reproducing every number, most likely first.
    :param groups: the matches grouped by behaviour (:class:`Group`), most likely first.
    :param n_candidates: how many flavours were tried.
    :param closest: when nothing matches, the candidates closest to the reported
        values (largest absolute difference smallest), at most 10.
    :param strength: :class:`Strength`.
    :param status: ``"preset"``, ``"composition"``, ``"weak"`` or ``"none"`` (see the
        module docstring).
    """

    systems: tuple[str, ...]
    reported: tuple[Reported, ...]
    matches: tuple[Answer, ...]
    n_candidates: int
    closest: tuple[Answer, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    groups: tuple[Group, ...] = ()
    strength: Strength | None = None
    status: str = "none"

    @property
    def answer(self) -> Group | None:
        """The group named as the answer (``status`` ``"preset"`` or ``"composition"``)."""
        return self.groups[0] if self.status in ("preset", "composition") else None


@dataclass(frozen=True)
class _Candidate:
    name: str
    base: Flavour          # without cutoff
    preset: str | None
    order: tuple
    kc: int | None         # the cutoff of evidence whose cutoff is unknown


def __getattr__(name: str) -> object:
    """``LIBRARY_ORDER``: the order of libraries, data of :mod:`evalkit.libraries`
    (read from there; this module names no library)."""
    if name == "LIBRARY_ORDER":
        from .libraries import LIBRARY_ORDER

        return LIBRARY_ORDER
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _library_rank(preset_name: str) -> tuple[int, str]:
    from .libraries import LIBRARY_ORDER

    lib = preset_name.split(".", 1)[0]
    try:
        return (LIBRARY_ORDER.index(lib), "")
    except ValueError:
        return (len(LIBRARY_ORDER), lib)


def _non_default(fl: Flavour) -> int:
    """Choices away from the defaults: components other than the default ones, each
    component parameter set (``average(score=float32)`` is one more than ``average``),
    conventions and metric parameters."""
    n = 0
    for key in ("gain", "discount", "idcg", "ties"):
        ref = getattr(fl, key)
        if ref is not None and ref != ComponentRef(DEFAULT_COMPONENTS[key]):
            n += 1 + len(ref.params)
    for key in STAGE_KEYS:  # a stage component: one choice, plus each optional parameter set
        ref = getattr(fl, key)
        if ref is not None:
            n += 1 + sum(1 for name, _ in ref.params if name not in _REQUIRED.get((key, ref.name), ()))
    return n + len(fl.conventions) + len(fl.params)


#: ``{(family, component): required parameter names}``, filled by :func:`neighbours`
#: (a required parameter is part of the choice of the component, not one more choice)
_REQUIRED: dict[tuple[str, str], tuple[str, ...]] = {}


def _choices(fl: Flavour) -> dict[str, str]:
    """The flavour's choices as ``{name: value}`` (components, conventions at their
    effective value, parameters), for distances and for what varies in a group."""
    out = {"metric": fl.metric}
    for key in ("gain", "discount", "idcg", "ties"):
        ref = getattr(fl, key)
        if ref is not None:
            out[key] = str(ref)
    for key in ("empty", "missing"):
        out[key] = str(fl.convention(key))
    for key, value in fl.conventions:
        out.setdefault(key, str(value))
    for key in STAGE_KEYS:
        ref = getattr(fl, key)
        if ref is not None:
            out[key] = str(ref)
    for key, value in fl.params:
        out[key] = str(value)
    return out


def distance_to_presets(flavour: Flavour, presets: Sequence[Flavour]) -> int:
    """The smallest number of choices (component, convention, parameter; the cutoff
    excluded) to change to turn ``flavour`` into one of ``presets`` of the same
    metric; the number of its choices when no preset has that metric."""
    return _distance(_choices(flavour), [_choices(p) for p in presets])


def _distance(mine: Mapping[str, str], presets: Sequence[Mapping[str, str]]) -> int:
    same = [p for p in presets if p["metric"] == mine["metric"]]
    if not same:
        return len(mine)
    keys = sorted(set(mine).union(*same))
    row = tuple(mine.get(key) for key in keys)
    return min(sum(1 for a, b in zip(row, (p.get(key) for key in keys)) if a != b) for p in same)


class _Distances:
    """:func:`distance_to_presets` for many flavours: the presets' choices are laid
    out once as tuples over a fixed key order."""

    def __init__(self, presets: Sequence[Mapping[str, str]]) -> None:
        self.by_metric: dict[str, tuple[list[str], list[tuple]]] = {}
        for metric in {p["metric"] for p in presets}:
            same = [p for p in presets if p["metric"] == metric]
            keys = sorted(set().union(*same) | {"gain", "discount", "idcg", "ties", "empty", "missing"})
            self.by_metric[metric] = (keys, [tuple(p.get(k) for k in keys) for p in same])

    def __call__(self, mine: Mapping[str, str]) -> int:
        hit = self.by_metric.get(mine["metric"])
        if hit is None or not set(mine) <= set(hit[0]):
            return _distance(mine, [])  if hit is None else self._slow(mine)
        keys, rows = hit
        row = tuple(mine.get(k) for k in keys)
        return min(sum(a != b for a, b in zip(row, other)) for other in rows)

    def _slow(self, mine: Any) -> Any:
        keys, rows = self.by_metric[mine["metric"]]
        return _distance(mine, [dict(zip(keys, r)) | {"metric": mine["metric"]} for r in rows])


def _component_variants(registry: Registry, family: str) -> list[ComponentRef]:
    """Every component of ``family`` at its default numeric parameters and every
    combination of its string-choice parameters (``ties=<policy>(score=float32)``)."""
    out = []
    for name in registry.names(family):
        if registry.is_alias(family, name):  # at its defaults, another component (log = log2)
            continue
        comp = registry.get(family, name)
        if not comp.tried_by_identify:
            continue
        if any(p.default is None for p in comp.params) or comp.numeric_keys is not None:
            continue  # a required parameter or a table (map): no default instance to try
        choice_params = [p for p in comp.params if p.kind == "str" and p.choices]
        grids = [[(p.name, c) for c in p.choices] for p in choice_params]
        for combo in itertools.product(*grids) if grids else [()]:
            try:
                params = comp.normalise_params(dict(combo))
            except FlavourError:
                continue
            out.append(ComponentRef(name, params))
    return out


def _err_variants(registry: Registry, base: Flavour, max_grades: Sequence[int]) -> list[tuple[str, Flavour]]:
    """The preset ``base`` at the other ERR maximum grades (``err``'s ``max_grade``)."""
    if base.metric != "err":
        return []
    metric = registry.metric("err")
    declared = metric.param("max_grade")
    assert declared is not None  # err declares max_grade
    own = dict(base.params).get("max_grade", declared.default)
    out = []
    for mg in max_grades:
        if mg != own:
            params = metric.normalise_params({**dict(base.params), "max_grade": mg})
            out.append((f"max_grade={mg}", replace(base, params=params)))
    return out


def candidate_flavours(registry: Registry, k: int | None = None, cutoffs: Sequence[int] | None = None,
                       *, max_grades: Sequence[int] = ERR_MAX_GRADES, ranks: bool = False) -> list[_Candidate]:
    """Every preset (read from ``registry``) and every flavour one choice away from one
    (:func:`neighbours`), to try.

    :param k: the cutoff of the evidence whose cutoff is unknown, if known; ``None``
        tries no cutoff and ``cutoffs``.
    :param cutoffs: cutoffs tried when ``k`` is ``None`` (default :data:`COMMON_CUTOFFS`).
    :param max_grades: ERR maximum grades tried for presets of a metric with one.
    :param ranks: the runs have a rank column: also try the tie policies that order
        by it (``ties=rank``); without one they are left out.
    """
    from .flavour import parse_flavour

    if k is not None:
        ks: list[int | None] = [int(k)]
    else:
        ks = [None, *(cutoffs if cutoffs is not None else COMMON_CUTOFFS)]
    out: list[_Candidate] = []
    bases: list[Flavour] = []
    presets = list(registry.components["preset"].values())
    for index, preset in enumerate(presets):
        base = parse_flavour(preset.spec, registry).without_cutoff()
        if registry.metric(base.metric).needs_subtopics or base.metric in _BINARY_METRICS:
            continue  # identify traces NDCG-family numbers (binary measures: not candidates)
        if not ranks and base.ties is not None and registry.get("ties", base.ties.name).needs_rank:
            continue  # orders by the rank column, which the runs do not have
        bases.append(base)
        if k is not None:
            pks: list[int | None] = [int(k)]
        elif preset.requires_cutoff:
            pks = sorted(set(preset.default_cutoffs) | set(c for c in ks if c is not None))
        else:
            pks = ks
        variants = [("", base)] + _err_variants(registry, base, max_grades)
        for vi, (suffix, fl) in enumerate(variants):
            for pk in pks:
                name = preset.name if pk is None else f"{preset.name}@{pk}"
                natural = 0 if (pk is not None) == preset.requires_cutoff else 1
                order = (0, _library_rank(preset.name), natural, 2 * vi, index)
                label = f"{name} with {suffix}" if suffix else name
                out.append(_Candidate(label, fl, preset.name, order, pk))
                if fl.convention("missing") in ("skip", "error"):
                    # the preset with queries missing from the run scored 0 (a preset that
                    # leaves them out or refuses them, with its "score them 0" option)
                    extra = f"{label} and missing=zero" if suffix else f"{name} with missing=zero"
                    out.append(_Candidate(extra, fl.replace(registry, missing="zero"), preset.name,
                                          order[:3] + (2 * vi + 1, index), pk))
    for fl in neighbours(registry, bases, ranks=ranks):
        for ck in ks:
            out.append(_Candidate(str(fl), fl, None, (1,), ck))
    return out


def neighbours(registry: Registry, presets: Sequence[Flavour], *, ranks: bool = False) -> list[Flavour]:
    """The flavours one choice away from one of ``presets`` (flavours without a
    cutoff): one component (gain, discount, IDCG strategy, tie policy; the metric's
    own families) replaced by another registered one (:func:`_component_variants`),
    or one convention set to another value (:func:`_convention_values`). Canonical,
    deduplicated, in order of first appearance, the presets themselves left out.
    Combinations the registry refuses (an averaged tie policy on a metric that is not
    a sum over positions; ``returned_top_k`` with an averaged tie policy) are skipped,
    and so are tie policies that order by the rank column unless ``ranks`` (the runs
    have one).
    """
    families = {key: _component_variants(registry, key) for key in COMPONENT_KEYS}
    conventions = _convention_values(presets)
    stages = _stage_variants(registry, presets)
    seen: set[Flavour] = set(presets)
    out: list[Flavour] = []

    def add(fl: Flavour) -> None:
        if fl not in seen:
            seen.add(fl)
            out.append(fl)

    for base in presets:
        for key in COMPONENT_KEYS:
            if getattr(base, key) is None:
                continue  # a family the metric does not use
            for ref in families[key]:
                if ref == getattr(base, key):
                    continue
                if key == "ties" and not ranks and registry.get("ties", ref.name).needs_rank:
                    continue  # orders by the rank column, which the runs do not have
                try:
                    fl = base.replace(registry, **{key: ref})
                except FlavourError:
                    continue
                assert fl.ties is not None  # a validated flavour always names its tie policy
                if fl.idcg is not None and fl.idcg.name == "returned_top_k" \
                        and registry.get("ties", fl.ties.name).averaged:
                    continue  # refused by the returned_top_k strategy (not an expectation over ties)
                add(fl)
        for key, values in conventions.items():
            for value in values:
                if value != base.convention(key):
                    try:
                        add(base.replace(registry, **{key: value}))
                    except FlavourError:
                        continue
        for key, refs in stages.items():
            for ref in refs:
                if ref != base.stage(key):
                    try:
                        add(base.replace(registry, **{key: ref}))
                    except FlavourError:
                        continue
    return out


def _stage_variants(registry: Registry, presets: Sequence[Flavour]) -> dict[str, list[ComponentRef]]:
    """The components each stage family is tried at: every registered component at its
    default parameters (those that need a parameter: at the values the presets use),
    but the ones that refuse data (a judgment rule's ``check``: it raises, it gives no
    number); not those declared ``tried_by_identify=False``; a family whose
    component type is not ``varied`` (``grades``: on TREC
    qrels its rules refuse a grade or give the number the default gives) is left at
    each preset's value."""
    out: dict[str, list[ComponentRef]] = {}
    for key in STAGE_KEYS:
        refs: list[ComponentRef] = []
        for name in registry.names(key):
            comp = registry.get(key, name)
            _REQUIRED[(key, name)] = tuple(p.name for p in comp.params if p.default is None)
            if not getattr(comp, "varied", True):
                break
            if getattr(comp, "check", None) is not None or registry.is_alias(key, name):
                continue
            if not comp.tried_by_identify:
                continue  # e.g. a geometric mean or a sum of NDCG: reported by no library
            if not _REQUIRED[(key, name)] and not comp.numeric_keys:
                refs.append(ComponentRef(name))
        else:
            used = [p.stage(key) for p in presets]
            out[key] = list(dict.fromkeys(refs + [r for r in used if r.params]))
    return out


def _convention_values(presets: Sequence[Flavour]) -> dict[str, list]:
    """The values each convention is tried at: every choice of a string convention
    but ``error`` (it raises, it gives no number); for a numeric one (``depth``,
    ``min_grade``), its default and the values the presets use. ``missing=score`` (an NDCG
    kernel scores an empty ranking 0: ``missing=zero``'s number) is not tried."""
    out: dict[str, list] = {}
    for key, param in CONVENTIONS.items():
        if param.choices:
            out[key] = [c for c in param.choices if c not in ("error", "score")]
        else:
            used = sorted({v for p in presets for name, v in p.conventions if name == key})
            out[key] = [param.default, *used]
    return out


def _refuses(registry: Registry, fl: Flavour, grades: np.ndarray) -> bool:
    """Whether a judgment rule of ``fl`` (``grades``, ``negative``) refuses one of
    ``grades`` (``float64`` ``(m,)``): its ``check`` returns a non-empty refusal."""
    grades = np.asarray(grades, dtype=np.float64)
    for key in ("grades", "negative"):
        ref = getattr(fl, key)
        if ref is None:
            continue
        comp = registry.get(key, ref.name)
        if comp.check is None:
            continue
        from .engine.checks import call_component

        hit = call_component("check", comp, grades, **comp.bind(ref.params))
        if hit is not None and np.asarray(hit.mask).any():
            return True
    return False


def _data_facts(qrels: Qrels, runs: Sequence[Run], qids: np.ndarray, missing: np.ndarray) -> dict[str, bool]:
    """Properties of the data that make choices indistinguishable."""
    grade = np.asarray(qrels.grade, dtype=np.float64)
    positive = grade[grade > 0]
    codes, vocab = qrels._qid_codes()
    has_relevant = np.bincount(codes, weights=(grade > 0).astype(np.float64), minlength=len(vocab)) > 0

    def tie_free(run: Run, dtype: Any) -> bool:
        rq, _ = run._qid_codes()
        score = scores_as_float32(run.score) if dtype == np.float32 else np.asarray(run.score, dtype=dtype)
        order = np.lexsort((score, rq))
        same = (rq[order][1:] == rq[order][:-1]) & (score[order][1:] == score[order][:-1])
        return not bool(same.any())

    return {
        "binary_qrels": len(np.unique(positive)) <= 1,
        "no_ties": all(tie_free(r, np.float64) for r in runs),
        "no_ties_float32": all(tie_free(r, np.float32) for r in runs),
        "no_missing": not bool(missing.any()),
        "no_empty": bool(has_relevant.all()),
    }


_REASONS = {
    "gain": ("binary_qrels", "the qrels have one positive grade (binary): every gain ranks it the same"),
    "ties": ("no_ties", "no run has tied scores"),
    "missing": ("no_missing", "no qrels query is missing from a run"),
    "empty": ("no_empty", "every query has a relevant judged document"),
}


def _reasons(varies: Mapping[str, tuple[str, ...]], facts: Mapping[str, bool]) -> dict[str, str]:
    out = {}
    for key in varies:
        fact, why = _REASONS.get(key, (None, ""))
        if fact is not None and facts.get(fact):
            out[key] = why
    return out


def _chance(matrix: np.ndarray, targets: Sequence[Reported]) -> tuple[int, float, float]:
    """``(n_distinct, chance, expected)`` for the candidate value vectors ``matrix``
    (``(a, e)``; see :class:`Strength`)."""
    finite = np.isfinite(matrix).all(axis=1)
    distinct = np.unique(np.round(matrix[finite], 12), axis=0)
    n = len(distinct)
    if n == 0:
        return 0, 0.0, 0.0
    value = np.array([t.value for t in targets])
    tol = np.array([t.tolerance for t in targets]) + 1e-12
    gap = np.abs(distinct - value)
    inside = (gap <= tol).all(axis=1)
    window = (gap <= _WINDOW * tol).all(axis=1)
    neighbours = int((window & ~inside).sum())
    ratio = (1.0 / _WINDOW) ** len(targets)  # the printed interval's share of the window
    expected = neighbours * ratio / (1.0 - ratio) if ratio < 1 else float(neighbours)
    return n, expected / n, expected


def identify(
    qrels: Qrels,
    runs: Run | Sequence[Run] | Mapping[str, Run],
    reported: Reported | str | float | Mapping | Sequence[Evidence],
    *,
    k: int | None = None,
    cutoffs: Sequence[int] | None = None,
    registry: Registry | None = None,
) -> Identification:
    """Find the flavours that reproduce reported NDCG values, and weigh the evidence.

    :param qrels: the judgments the value was computed with.
    :param runs: the run(s) the numbers were computed on.
    :param reported: one printed value (one run); or a mapping ``{system: value}``
        or ``{(system, k): value}`` (several runs and/or cutoffs); or a sequence of
        :class:`Evidence` (per-query values too, :func:`read_per_query`). Strings keep
        their printed precision (``"0.4021"``); floats are taken at their shortest
        ``repr``.
    :param k: the cutoff of the values given without one, if known.
    :param cutoffs: cutoffs to try for values whose cutoff is unknown.
    :returns: :class:`Identification`.
    :raises EvalkitError: a reported system without a run, or nothing to evaluate.
    """
    from .engine.evaluate import _as_runs, evaluate
    from .flavour import parse_flavour

    registry = registry_or_default(registry)
    run_list = _as_runs(runs)
    evidence = _as_evidence(reported, run_list, k)
    by_name = {r.name: r for r in run_list}
    unknown = [s for s in dict.fromkeys(e.system for e in evidence) if s not in by_name]
    if unknown:
        raise EvalkitError(f"reported systems without a run: {', '.join(unknown)} "
                           f"(runs: {', '.join(by_name)})")
    systems = tuple(dict.fromkeys(e.system for e in evidence))
    runs_used = [by_name[s] for s in systems]
    sys_index = {s: i for i, s in enumerate(systems)}
    targets = [e.reported for e in evidence]
    known_ks = sorted({e.k for e in evidence if e.k is not None})
    has_unknown = any(e.k is None for e in evidence)

    candidates = candidate_flavours(registry, k=None if has_unknown else (known_ks[0] if known_ks else None),
                                    cutoffs=cutoffs, ranks=all(r.rank is not None for r in runs_used))
    # a flavour whose judgment rule refuses a grade of these qrels (negative=error, as
    # a library that refuses negative labels, or labels that are not integers)
    # cannot have produced the number
    candidates = [c for c in candidates if not _refuses(registry, c.base, qrels.grade)]
    # nor one with missing=error when a qrels query has no line in a run (a library that
    # asserts equal query sets): evaluating it would stop the whole search
    if any((~isin_ids(qrels.qids, r.qids)).any() for r in runs_used):
        candidates = [c for c in candidates if c.base.convention("missing") != "error"]
    def at(c: _Candidate, e: Evidence) -> int | None:
        return e.k if e.k is not None else c.kc

    unique: dict[Flavour, int] = {}
    for c in candidates:
        for e in evidence:
            unique.setdefault(c.base.with_cutoff(at(c, e)), len(unique))
    res = evaluate(qrels, runs_used, list(unique), registry=registry)
    values = res.values  # (s, f, q)
    qids = list(res.qids)
    qpos = {q: i for i, q in enumerate(qids)}
    missing = np.stack([~isin_ids(res.qids, r.qids) for r in runs_used])  # (s, q)
    facts = _data_facts(qrels, runs_used, res.qids, missing)

    # per-query evidence: the listed queries of each (system, cutoff) must be exactly
    # the ones a candidate gives a value to
    listed: dict[tuple[str, int | None], np.ndarray] = {}
    for e in evidence:
        if e.qid is not None:
            mask = listed.setdefault((e.system, e.k), np.zeros(len(qids), dtype=bool))
            if e.qid in qpos:
                mask[qpos[e.qid]] = True

    def mean(rows: np.ndarray) -> np.ndarray:
        counts = (~np.isnan(rows)).sum(axis=-1)
        sums = np.nansum(rows, axis=-1)
        out = np.full(counts.shape, np.nan)
        np.divide(sums, counts, out=out, where=counts > 0)
        return out

    distance = _Distances([_choices(parse_flavour(p.spec, registry))
                           for p in registry.components["preset"].values()])
    rows: list[tuple[tuple, Answer, list[str], bytes]] = []
    where: dict[tuple, int] = {}
    for c in sorted(candidates, key=lambda c: c.order):
        contexts = {}  # (system, k) -> per-query values under each variant
        for e in evidence:
            key = (e.system, at(c, e))
            if key not in contexts:
                contexts[key] = values[sys_index[e.system], unique[c.base.with_cutoff(key[1])], :]
        variants = [(c.base, contexts)]
        for fl, per in variants:
            ident = (fl, c.kc)
            if ident in where:
                if c.preset is not None:
                    rows[where[ident]][2].append(c.name)
                continue
            vec = []
            for e in evidence:
                per_q = per[(e.system, at(c, e))]
                vec.append(float(mean(per_q)) if e.qid is None else
                           (float(per_q[qpos[e.qid]]) if e.qid in qpos else math.nan))
            for (system, ek), mask in listed.items():
                if (~np.isnan(per[(system, ek if ek is not None else c.kc)]) & ~mask).any():
                    vec = [math.nan] * len(vec)  # defines a query the file does not list
            ks = sorted({at(c, e) for e in evidence}, key=lambda x: -1 if x is None else x)
            shown = fl.with_cutoff(ks[0]) if len(ks) == 1 else fl
            if c.preset is not None:
                name = c.name if len(ks) == 1 else _multi_name(_strip_cutoff(c.name, c.preset, c.kc), c.preset, ks)
                dist = 0
            else:
                name = str(shown) if len(ks) == 1 else _multi_name(str(fl), None, ks)
                dist = distance(_choices(fl))
            ans = Answer(name, shown, c.preset, tuple(vec), _non_default(fl), distance=dist)
            order = c.order if c.preset is not None else (1, dist, ans.non_default, name)
            sig = np.concatenate([np.nan_to_num(np.round(per[key], 12), nan=-7.0) for key in sorted(
                per, key=lambda t: (t[0], -1 if t[1] is None else t[1]))]).tobytes()
            where[ident] = len(rows)
            rows.append((order, ans, [], sig))
    rows.sort(key=lambda t: t[0])
    ranked = [replace(a, aliases=tuple(al)) for _, a, al, _ in rows]
    sigs = [s for *_, s in rows]
    matrix = np.array([a.values for a in ranked], dtype=np.float64).reshape(len(ranked), len(evidence))
    tol = np.array([t.tolerance for t in targets]) + 1e-12
    hit = (np.abs(matrix - np.array([t.value for t in targets])) <= tol).all(axis=1)
    matches = tuple(a for a, h in zip(ranked, hit) if h)

    behaviours: dict[bytes, list[int]] = {}
    for i, s in enumerate(sigs):
        behaviours.setdefault(s, []).append(i)
    groups = []
    for members in behaviours.values():
        if not hit[members[0]]:
            continue
        answers = tuple(ranked[i] for i in members)
        varies = _varies([a.flavour for a in answers], [a for a in answers])
        groups.append(Group(answers, varies, _reasons(varies, facts)))
    # behaviours are keyed in ranked order, so the groups already come most likely first
    n_distinct, chance, expected = _chance(matrix, targets)
    strength = Strength(len(ranked), len(behaviours), n_distinct, chance, expected, facts)

    closest: tuple[Answer, ...] = ()
    if not matches:
        gap = np.where(np.isnan(matrix), np.inf, np.abs(matrix - np.array([t.value for t in targets]))).max(axis=1)
        closest = tuple(ranked[i] for i in np.argsort(gap, kind="stable")[:10])
        status = "none"
    elif groups[0].first.preset is not None:
        status = "preset"
    elif len(groups) == 1 and expected < _WEAK:
        status = "composition"
    else:
        status = "weak"
    return Identification(systems, tuple(targets), matches, len(ranked), closest, tuple(evidence),
                          tuple(groups), strength, status)


def _varies(flavours: Sequence[Flavour], answers: Sequence[Answer]) -> dict[str, tuple[str, ...]]:
    choices = [_choices(fl) for fl in flavours]
    keys = sorted(set().union(*choices), key=lambda k: (k not in ("gain", "discount", "idcg", "ties"), k))
    out = {}
    for key in keys:
        vals = sorted({c.get(key, "-") for c in choices})
        if len(vals) > 1:
            out[key] = tuple(vals)
    cut = sorted({str(a.flavour.k) if a.flavour.k is not None else "none" for a in answers})
    if len(cut) > 1:
        out["cutoff"] = tuple(cut)
    return out


def _strip_cutoff(name: str, preset: str | None, kc: Any) -> str:
    if preset is None or kc is None:
        return name
    return name.replace(f"{preset}@{kc}", preset, 1)


def _multi_name(name: str, preset: str | None, ks: Sequence[int | None]) -> str:
    at = ",".join("none" if x is None else str(x) for x in ks)
    if preset is not None:
        return name.replace(preset, f"{preset}@{at}", 1) if "@" not in name.split(" ", 1)[0] else name
    return f"{name}@{at}"


def _as_evidence(reported: Any, run_list: Sequence[Run], k: int | None) -> list[Evidence]:
    if isinstance(reported, Mapping):
        out = []
        for key, v in reported.items():
            system, ek = (key if isinstance(key, tuple) else (key, k))
            out.append(Evidence(system, v if isinstance(v, Reported) else parse_reported(v), ek))
        if not out:
            raise EvalkitError("no reported value")
        return out
    if isinstance(reported, (list, tuple)) and reported and all(isinstance(e, Evidence) for e in reported):
        return [e if e.k is not None or k is None else replace(e, k=k) for e in reported]
    if len(run_list) != 1:
        raise EvalkitError("one reported value needs exactly one run; give a {system: value} table")
    return [Evidence(run_list[0].name, reported if isinstance(reported, Reported) else parse_reported(reported), k)]
