"""Expanding measure specs: canonical flavour strings or preset names with an
optional cutoff (``trec_eval.ndcg_cut@10``)."""

from __future__ import annotations

import re

from .errors import FlavourError, RegistryError
from .flavour import Flavour, parse_flavour
from .registry import registry_or_default

_PRESET = re.compile(r"^\s*(?P<name>[A-Za-z_][\w\-]*\.[\w.\-]*?)(?:@(?P<k>\d+))?\s*$")


def expand_spec(spec: str | Flavour, registry=None, cutoffs=None) -> list[Flavour]:
    """Turn a measure spec into one or more flavours.

    :param spec: a :class:`Flavour`, a flavour string (``ndcg(gain=exp2)@10``) or a
        preset name with optional ``@k`` (``trec_eval.ndcg_cut@10``).
    :param cutoffs: optional list of cutoffs; each yields one flavour (overrides ``@k``
        and a preset's default cutoffs).
    :raises FlavourError: unknown preset (with the list of known ones) or invalid flavour.
    """
    registry = registry_or_default(registry)
    if isinstance(spec, Flavour):
        base, ks = spec, None
    else:
        m = _PRESET.match(spec) if isinstance(spec, str) and "(" not in spec else None
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
    if ks is None:
        return [base]
    return [base.with_cutoff(int(k)) for k in ks]


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
    """Parse every preset's spec once (the CLI does it at start-up, so a broken
    plugin preset fails before any work; :func:`expand_spec` checks the presets it
    expands).

    :raises RegistryError: a preset's spec is not a valid flavour; the message names
        the preset and the plugin that registered it.
    """
    for preset in registry.components["preset"].values():
        _preset_base(preset, registry)
