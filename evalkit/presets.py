"""Expanding measure specs: canonical flavour strings, preset names with an
optional cutoff (``trec_eval.ndcg_cut@10``), and the names of trec_eval and
ir_measures (:mod:`evalkit.measure_names`)."""

from __future__ import annotations

import re

from .errors import FlavourError, RegistryError
from .flavour import Flavour, parse_flavour
from .registry import registry_or_default

_PRESET = re.compile(r"^\s*(?P<name>[A-Za-z_][\w\-]*\.[\w.\-]*?)(?:@(?P<k>\d+))?\s*$")


def expand_labelled(spec: str | Flavour, registry=None, cutoffs=None) -> list[tuple[str, object, Flavour]]:
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
        ks = [spec] if not cutoffs else [spec.with_cutoff(int(k)) for k in cutoffs]
        return [(str(fl), None, fl) for fl in ks]
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
    out = []
    for n in named:
        preset = registry.preset(n.preset)
        base = _preset_base(preset, registry)
        if n.params:
            base = base.replace(registry, **dict(n.params))
        ks = list(cutoffs) if cutoffs else [n.k]
        if ks == [None] and preset.requires_cutoff:
            raise FlavourError(f"{spec!r} ({preset.name}) needs a cutoff: {spec}@k")
        for k in ks:
            label = n.label if len(ks) == 1 else f"{n.label}@{k}"
            out.append((label, preset, base.with_cutoff(None if k is None else int(k))))
    return out


def _expand_flavour_or_preset(spec: str, registry, cutoffs) -> list[tuple[str, object, Flavour]]:
    m = _PRESET.match(spec) if "(" not in spec else None
    preset = None
    if m:
        preset = registry.preset(m.group("name"))
        base = _preset_base(preset, registry)
        if m.group("k"):
            ks = [int(m.group("k"))]
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


def expand_spec(spec: str | Flavour, registry=None, cutoffs=None) -> list[Flavour]:
    """Turn a measure spec into one or more flavours (see :func:`expand_labelled`).

    :raises FlavourError: unknown preset or name (with the closest known ones) or
        invalid flavour.
    """
    return [fl for _, _, fl in expand_labelled(spec, registry, cutoffs)]


def preset_flavour(name: str, k: int | None = None, registry=None) -> Flavour:
    """The single flavour of preset ``name`` at cutoff ``k``."""
    spec = name if k is None else f"{name}@{k}"
    flavours = expand_spec(spec, registry)
    if len(flavours) != 1:
        raise FlavourError(f"preset '{name}' expands to {len(flavours)} cutoffs; give one with @k")
    return flavours[0]


def _preset_base(preset, registry) -> Flavour:
    """The flavour a preset's spec names; a spec that does not parse is the fault of
    the plugin that registered the preset, so the error names both."""
    try:
        return parse_flavour(preset.spec, registry)
    except FlavourError as exc:
        raise RegistryError(f"preset '{preset.name}' from {preset.origin}: {exc}") from exc


def check_presets(registry) -> None:
    """Parse every preset's spec once (the tests do: ``tests/test_resolve.py``; a
    plugin author can too). Commands do not: :func:`expand_labelled` parses the presets
    it expands, so a broken plugin preset fails when it is used, naming the plugin.

    :raises RegistryError: a preset's spec is not a valid flavour; the message names
        the preset and the plugin that registered it.
    """
    for preset in registry.components["preset"].values():
        _preset_base(preset, registry)
