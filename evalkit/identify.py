"""Which NDCG flavour produced a reported number?

Given qrels, one or more runs and the value(s) a paper or a tool reported for them,
:func:`identify` evaluates the runs under every registered preset and every
composition of the registered components (``ndcg`` x gains x discounts x IDCG
strategies x tie policies x ``empty``/``missing`` conventions), at the given cutoff
or, without one, with no cutoff and at common cutoffs, and returns the flavours that
reproduce every reported value within its printed precision: ``0.4021`` stands for
any value in ``[0.40205, 0.40215]`` (half a unit in the last printed digit).

Answers come most common first: presets, ordered by how widely used their library
is (:data:`LIBRARY_ORDER`), then compositions by the number of choices that differ
from trec_eval's defaults.

Everything is evaluated in one :func:`evalkit.evaluate` call (each run is joined
once and sorted once per tie policy). Compositions are evaluated once per
gain/discount/IDCG/tie/cutoff combination, under ``missing=zero,empty=skip``; the
six ``empty`` x ``missing`` variants are derived from those per-query values
(``NaN`` marks the queries without a relevant judged document; the run's query set
says which queries are missing) by :func:`evalkit.engine.conventions.apply_conventions`,
the rules the engine applies to each variant.

Only the CLI prints; this module returns data.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from typing import Iterable, Mapping, Sequence

import numpy as np

from .data import Qrels, Run
from .errors import EvalkitError, FlavourError
from .flavour import DEFAULT_COMPONENTS, ComponentRef, Flavour
from .registry import registry_or_default

__all__ = [
    "Reported",
    "Answer",
    "Identification",
    "parse_reported",
    "read_reported_table",
    "candidate_flavours",
    "identify",
    "LIBRARY_ORDER",
    "COMMON_CUTOFFS",
]

#: Libraries by how widely their NDCG numbers are reported (presets are listed in
#: this order; libraries not listed come after, alphabetically).
LIBRARY_ORDER: tuple[str, ...] = (
    "trec_eval", "pytrec_eval", "sklearn", "ranx", "ir_measures", "lightgbm", "xgboost",
    "torchmetrics", "tensorflow_ranking", "tfr", "ranklib", "gdeval", "ndeval",
    "jarvelin2002", "burges2005",
)

#: Cutoffs tried when no ``k`` is given (besides no cutoff).
COMMON_CUTOFFS: tuple[int, ...] = (5, 10, 20, 100, 1000)

#: Binary measures' presets (trec_eval's map, P, recall, recip_rank) are left out.
_BINARY_METRICS = frozenset({"ap", "precision", "recall", "rr"})

#: Maximum grades tried for ERR presets (gdeval's and RankLib's 4; the TREC 2009 Web
#: track's ERR used 2): ``R = (2^rel - 1) / 2^max_grade`` depends on it.
ERR_MAX_GRADES: tuple[int, ...] = (1, 2, 3, 4, 5)

_EMPTY = ("zero", "one", "skip")
_MISSING = ("skip", "zero")


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

    :raises EvalkitError: not a number, or negative.
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
    half = Decimal(5) * Decimal(10) ** (exponent - 1)
    if percent is None:
        percent = raw.endswith("%") or dec > 1
    if percent:
        dec, half = dec / 100, half / 100
    return Reported(raw, float(dec), float(half))


def read_reported_table(path_or_text: str) -> dict[str, Reported]:
    """Read ``system value`` lines (whitespace-separated; ``#`` starts a comment).

    :raises EvalkitError: a line without exactly two fields, a bad value, or a system
        listed twice; the message names the file and line.
    """
    from pathlib import Path

    if "\n" in path_or_text:
        source, text = "<text>", path_or_text
    else:
        source, text = path_or_text, Path(path_or_text).read_text()
    out: dict[str, Reported] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise EvalkitError(f"{source}:{number}: expected 'system value', got {line!r}")
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


@dataclass(frozen=True)
class Answer:
    """A flavour that reproduces the reported values.

    :param name: preset name with cutoff (``trec_eval.ndcg_cut@10``), or the
        canonical flavour string for a composition.
    :param flavour: the :class:`Flavour`.
    :param preset: the preset's name, or ``None`` for a composition.
    :param values: the mean over queries per system (same order as
        :attr:`Identification.systems`).
    :param non_default: number of choices that differ from trec_eval's ``ndcg``
        (gain, discount, IDCG, ties, each convention, a metric parameter).
    """

    name: str
    flavour: Flavour
    preset: str | None
    values: tuple[float, ...]
    non_default: int
    #: other preset names with the same flavour (``trec_eval.ndcg@10`` for ``trec_eval.ndcg_cut@10``)
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Identification:
    """What :func:`identify` returns.

    :param systems: system names, in the order of :attr:`Answer.values`.
    :param reported: the reported value of each system.
    :param matches: answers reproducing every reported value, most common first.
    :param n_candidates: how many flavours were tried.
    :param closest: when nothing matches, the candidates closest to the reported
        values (largest absolute difference smallest), at most 10.
    """

    systems: tuple[str, ...]
    reported: tuple[Reported, ...]
    matches: tuple[Answer, ...]
    n_candidates: int
    closest: tuple[Answer, ...] = ()


@dataclass(frozen=True)
class _Candidate:
    name: str
    flavour: Flavour
    preset: str | None
    order: tuple
    # composition base: variants are derived from its (missing=zero, empty=skip) values
    base: bool = False


def _library_rank(preset_name: str) -> tuple[int, str]:
    lib = preset_name.split(".", 1)[0]
    try:
        return (LIBRARY_ORDER.index(lib), "")
    except ValueError:
        return (len(LIBRARY_ORDER), lib)


def _non_default(fl: Flavour) -> int:
    n = 0
    for key in ("gain", "discount", "idcg", "ties"):
        ref = getattr(fl, key)
        if ref is not None and ref != ComponentRef(DEFAULT_COMPONENTS[key]):
            n += 1
    return n + len(fl.conventions) + len(fl.params)


def _component_variants(registry, family: str) -> list[ComponentRef]:
    """Every component of ``family`` at its default numeric parameters and every
    combination of its string-choice parameters (``trec_eval(score=float32)``)."""
    out = []
    for name in registry.names(family):
        if registry.is_alias(family, name):  # at its defaults, another component (log = log2)
            continue
        comp = registry.get(family, name)
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


def candidate_flavours(registry, k: int | None = None,
                       cutoffs: Sequence[int] | None = None) -> list[_Candidate]:
    """Every preset and every ``ndcg`` composition to try (see module docstring).

    :param k: the reported cutoff; ``None`` tries no cutoff and ``cutoffs``.
    :param cutoffs: cutoffs tried when ``k`` is ``None`` (default
        :data:`COMMON_CUTOFFS`).
    """
    from .flavour import parse_flavour

    if k is not None:
        ks: list[int | None] = [int(k)]
    else:
        ks = [None, *(cutoffs if cutoffs is not None else COMMON_CUTOFFS)]
    out: list[_Candidate] = []
    presets = list(registry.components["preset"].values())
    for index, preset in enumerate(presets):
        base = parse_flavour(preset.spec, registry)
        if registry.metric(base.metric).needs_subtopics or base.metric in _BINARY_METRICS:
            continue  # identify traces NDCG-family numbers (trec_eval.map, .P: not candidates)
        if k is not None:
            pks: list[int | None] = [int(k)]
        elif preset.requires_cutoff:
            pks = sorted(set(preset.default_cutoffs) | set(c for c in ks if c is not None))
        else:
            pks = ks
        for pk in pks:
            fl = base.with_cutoff(pk)
            name = preset.name if pk is None else f"{preset.name}@{pk}"
            natural = 0 if (pk is not None) == preset.requires_cutoff else 1
            order = (0, _library_rank(preset.name), natural, 0, index)
            out.append(_Candidate(name, fl, preset.name, order))
            if fl.convention("missing") == "skip":
                # the preset with queries missing from the run scored 0 (trec_eval -c)
                out.append(_Candidate(f"{name} with missing=zero", fl.replace(registry, missing="zero"),
                                      preset.name, order[:3] + (1, index)))
            if fl.metric == "err":  # the preset at another maximum grade
                own = dict(fl.params).get("max_grade", registry.metric("err").param("max_grade").default)
                for mg in ERR_MAX_GRADES:
                    if mg != own:
                        params = registry.metric("err").normalise_params({**dict(fl.params), "max_grade": mg})
                        out.append(_Candidate(f"{name} with max_grade={mg}", replace(fl, params=params),
                                              preset.name, order[:3] + (2, index)))
    metric = registry.metric("ndcg")
    families = {key: _component_variants(registry, key) for key in ("gain", "discount", "idcg", "ties")}
    ties_ok = [t for t in families["ties"]
               if metric.supports_averaged_ties or not registry.get("ties", t.name).averaged]
    for g, d, i, t in itertools.product(families["gain"], families["discount"], families["idcg"], ties_ok):
        for ck in ks:
            if i.name == "returned_top_k" and ck is not None and registry.get("ties", t.name).averaged:
                continue  # refused by the returned_top_k strategy (not an expectation over ties)
            fl = Flavour.of("ndcg", ck, registry, gain=g, discount=d, idcg=i, ties=t,
                            missing="zero", empty="skip")
            out.append(_Candidate(str(fl), fl, None, (1,), base=True))
    return out


def identify(
    qrels: Qrels,
    runs: Run | Sequence[Run] | Mapping[str, Run],
    reported: Reported | str | float | Mapping[str, Reported | str | float],
    *,
    k: int | None = None,
    cutoffs: Sequence[int] | None = None,
    registry=None,
) -> Identification:
    """Find the flavours that reproduce reported NDCG values.

    :param qrels: the judgments the value was computed with.
    :param runs: one run (with ``reported`` a single value) or several runs with
        ``reported`` a mapping ``{system name: value}``; every system of the mapping
        must be one of the runs (runs not in the mapping are ignored).
    :param reported: printed value(s); strings keep their printed precision
        (``"0.4021"``), floats are taken at their shortest ``repr``.
    :param k: the reported cutoff, if known.
    :param cutoffs: cutoffs to try when ``k`` is not given.
    :returns: :class:`Identification`.
    :raises EvalkitError: a reported system without a run, or nothing to evaluate.
    """
    from .engine.conventions import apply_conventions
    from .engine.evaluate import _as_runs, evaluate

    registry = registry_or_default(registry)
    run_list = _as_runs(runs)
    if isinstance(reported, Mapping):
        wanted = {s: v if isinstance(v, Reported) else parse_reported(v) for s, v in reported.items()}
    else:
        if len(run_list) != 1:
            raise EvalkitError("one reported value needs exactly one run; give a {system: value} table")
        wanted = {run_list[0].name: reported if isinstance(reported, Reported) else parse_reported(reported)}
    by_name = {r.name: r for r in run_list}
    unknown = [s for s in wanted if s not in by_name]
    if unknown:
        raise EvalkitError(f"reported systems without a run: {', '.join(unknown)} "
                           f"(runs: {', '.join(by_name)})")
    systems = tuple(wanted)
    runs_used = [by_name[s] for s in systems]
    targets = [wanted[s] for s in systems]

    candidates = candidate_flavours(registry, k, cutoffs)
    unique: dict[Flavour, int] = {}
    for c in candidates:
        unique.setdefault(c.flavour, len(unique))
    flavours = list(unique)
    res = evaluate(qrels, runs_used, flavours, registry=registry)
    values = res.values  # (s, f, q)

    qids = res.qids
    missing = np.stack([~np.isin(qids, r.qids) for r in runs_used])  # (s, q)

    def mean(rows: np.ndarray) -> np.ndarray:
        counts = (~np.isnan(rows)).sum(axis=-1)
        sums = np.nansum(rows, axis=-1)
        out = np.full(counts.shape, np.nan)
        np.divide(sums, counts, out=out, where=counts > 0)
        return out

    answers: dict[Flavour, list] = {}  # flavour -> [order, Answer, aliases]
    for c in sorted(candidates, key=lambda c: c.order):
        per_q = values[:, unique[c.flavour], :]
        if not c.base:
            variants = [(c.flavour, mean(per_q))]
        else:
            # the base ran under missing=zero, empty=skip: NaN marks the undefined
            # queries, and the other variants follow from the same rules evaluate uses
            variants = []
            defined = ~np.isnan(per_q)
            for empty, miss in itertools.product(_EMPTY, _MISSING):
                v = apply_conventions(per_q, defined, missing, empty=empty, missing_rule=miss)
                variants.append((c.flavour.replace(registry, empty=empty, missing=miss), mean(v)))
        for fl, means in variants:
            if fl in answers:
                if c.preset is not None:
                    answers[fl][2].append(c.name)
                continue
            name = c.name if c.preset is not None else str(fl)
            ans = Answer(name, fl, c.preset, tuple(float(x) for x in means), _non_default(fl))
            order = c.order if c.preset is not None else (1, ans.non_default, name)
            answers[fl] = [order, ans, []]
    tried = len(answers)
    ranked = [replace(a, aliases=tuple(al)) for _, a, al in sorted(answers.values(), key=lambda t: t[0])]
    matches = tuple(a for a in ranked if all(t.matches(v) for t, v in zip(targets, a.values)))
    closest: tuple[Answer, ...] = ()
    if not matches:
        def gap(a: Answer) -> float:
            d = [abs(v - t.value) for t, v in zip(targets, a.values) if not math.isnan(v)]
            return max(d) if len(d) == len(targets) else math.inf

        closest = tuple(sorted(ranked, key=gap)[:10])
    return Identification(systems, tuple(targets), matches, tried, closest)
