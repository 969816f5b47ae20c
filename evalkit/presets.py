"""Expanding measure specs: canonical flavour strings, preset names with an
optional cutoff (``trec_eval.ndcg_cut@10``), and the names of trec_eval and
ir_measures (:mod:`evalkit.measure_names`)."""

from __future__ import annotations

from .errors import FlavourError, RegistryError
from .flavour import Flavour, parse_flavour
from .registry import registry_or_default
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from .registry import Registry
    from .components import Preset

#: a preset name with an optional cutoff (``trec_eval.ndcg_cut@10``): what this pattern
#: matches, read with string methods (:func:`_preset_spec`; no pattern compiled at start-up)
PRESET_SPEC_PATTERN = r"^\s*(?P<name>[A-Za-z_][\w\-]*\.[\w.\-]*?)(?:@(?P<k>\d+))?\s*$"


def _preset_spec(spec: str) -> tuple[str, str | None] | None:
    """``(name, k or None)`` when ``spec`` matches :data:`PRESET_SPEC_PATTERN`, else
    ``None``: an ASCII letter or ``_``, then word characters (Unicode's, as ``\\w``),
    ``-`` and ``.`` with at least one ``.``, optionally ``@`` and decimal digits
    (Unicode's, as ``\\d``), with white space around."""
    name, at, k = spec.strip().partition("@")
    if at and not k.isdecimal():
        return None
    head = name[:1]
    if not (head == "_" or (head.isascii() and head.isalpha())) or "." not in name \
            or not name.replace("-", "a").replace(".", "a").replace("_", "a").isalnum():
        return None
    return name, (k if at else None)


def expand_labelled(spec: str | Flavour, registry: Registry | None = None, cutoffs: Iterable[int] | None = None) -> list[tuple[str, Preset | None, Flavour]]:
    """Expand a measure spec into ``(label, preset or None, flavour)`` triples.

    :param spec: a :class:`Flavour`, a flavour string (``ndcg(gain=exp2)@10``), a
        preset name with optional ``@k`` (``trec_eval.ndcg_cut@10``), a trec_eval
        measure name (``ndcg_cut.5,10``, ``P.10``, ``all_trec``) or an ir_measures name
        (``nDCG@10``, ``nDCG(dcg='exp-log2')@10``); see :mod:`evalkit.measure_names`.
    :param cutoffs: optional list of cutoffs; each yields one flavour (overrides ``@k``
        and a preset's default cutoffs).
    :returns: the label is the spec as written when it gives one flavour, else
        ``preset@k`` (``name.k`` for a trec_eval list) per cutoff.
    :raises FlavourError: unknown name (with the closest known names), invalid flavour.
    """
    from .measure_names import did_you_mean, ir_measures_name, trec_eval_name

    registry = registry_or_default(registry)
    if isinstance(spec, Flavour):
        given = [spec] if not cutoffs else [spec.with_cutoff(int(k)) for k in cutoffs]
        return [(str(fl), None, fl) for fl in given]
    named = trec_eval_name(spec, registry) if isinstance(spec, str) else None
    if named is None and isinstance(spec, str):
        try:
            return _expand_flavour_or_preset(spec, registry, cutoffs)
        except FlavourError as exc:
            named = ir_measures_name(spec)
            if named is None:
                message = str(exc)
                if message.startswith(("unknown metric", "unknown preset")):  # the spec's head, not a component
                    # the closest of every name a spec may start with, instead of the registry's own
                    message = message.split("; did you mean:")[0] + did_you_mean(spec, registry)
                raise FlavourError(message) from None
    out: list[tuple[str, Preset | None, Flavour]] = []
    for n in named:
        preset = registry.preset(n.preset)
        base = _preset_base(preset, registry)
        if n.params:
            base = base.replace(registry, **dict(n.params))
        ks: list[int | None] = list(cutoffs) if cutoffs else [n.k]
        if ks == [None] and preset.requires_cutoff:
            raise FlavourError(f"{spec!r} ({preset.name}) needs a cutoff: {spec}@k")
        for k in ks:
            label = n.label if len(ks) == 1 else f"{n.label}@{k}"
            out.append((label, preset, base.with_cutoff(None if k is None else int(k))))
    return out


def _expand_flavour_or_preset(spec: str, registry: Registry, cutoffs: Iterable[int] | None) -> list[tuple[str, Preset | None, Flavour]]:
    m = _preset_spec(spec) if "(" not in spec else None
    preset = None
    if m:
        preset = registry.preset(m[0])
        base = _preset_base(preset, registry)
        if m[1]:
            ks = [int(m[1])]
        elif preset.requires_cutoff:
            if not preset.default_cutoffs and not cutoffs:
                raise FlavourError(f"preset '{preset.name}' needs a cutoff: {preset.name}@k")
            ks = list(preset.default_cutoffs)
        else:
            ks = None
    else:
        base, ks = parse_flavour(spec, registry), None
    if cutoffs:
        ks = list(cutoffs)
    flavours = [base] if ks is None else [base.with_cutoff(int(k)) for k in ks]
    if len(flavours) == 1:
        return [(spec.strip(), preset, flavours[0])]
    return [((f"{preset.name}@{fl.k}" if preset is not None else str(fl)), preset, fl) for fl in flavours]


def expand_spec(spec: str | Flavour, registry: Registry | None = None, cutoffs: Iterable[int] | None = None) -> list[Flavour]:
    """Turn a measure spec into one or more flavours (see :func:`expand_labelled`).

    :raises FlavourError: unknown preset or name (with the closest known ones) or
        invalid flavour.
    """
    return [fl for _, _, fl in expand_labelled(spec, registry, cutoffs)]


def preset_flavour(name: str, k: int | None = None, registry: Registry | None = None) -> Flavour:
    """The single flavour of preset ``name`` at cutoff ``k``."""
    spec = name if k is None else f"{name}@{k}"
    flavours = expand_spec(spec, registry)
    if len(flavours) != 1:
        raise FlavourError(f"preset '{name}' expands to {len(flavours)} cutoffs; give one with @k")
    return flavours[0]


def _preset_base(preset: Preset, registry: Registry) -> Flavour:
    """The flavour a preset's spec names; a spec that does not parse is the fault of
    the plugin that registered the preset, so the error names both."""
    try:
        return parse_flavour(preset.spec, registry)
    except FlavourError as exc:
        raise RegistryError(f"preset '{preset.name}' from {preset.origin}: {exc}") from exc


def check_presets(registry: Registry) -> None:
    """Parse every preset's spec once (the tests do: ``tests/test_resolve.py``; a
    plugin author can too). Commands do not: :func:`expand_labelled` parses the presets
    it expands, so a broken plugin preset fails when it is used, naming the plugin.

    :raises RegistryError: a preset's spec is not a valid flavour; the message names
        the preset and the plugin that registered it.
    """
    for preset in registry.components["preset"].values():
        _preset_base(preset, registry)
