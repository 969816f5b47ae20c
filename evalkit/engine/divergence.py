"""Inputs on which a preset's reference library computes something other than the preset.

A preset reproduces its library on the inputs the library is meant for. A few inputs
make a library compute something else for reasons that are not part of the measure;
evalkit keeps the measure's value and says, with
:class:`~evalkit.errors.ReferenceDivergenceWarning`, that the library's number would
differ and why. A preset declares them (:meth:`evalkit.components.Preset.divergences`:
``(divergence name, what its library does)``); each divergence is a component
(:class:`~evalkit.components.Divergence`, hook ``evalkit_register_divergences``) that
finds the topics of a run it applies to. This module knows none of them.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Iterable

import numpy as np

from ..errors import ReferenceDivergenceWarning
from .checks import call_component

if TYPE_CHECKING:
    from ..flavour import Flavour
    from ..registry import Registry

__all__ = ["diverging_presets", "warn_divergences", "warn_interleaved_topics"]


def diverging_presets(flavours: Iterable[Flavour], registry: Registry) -> dict[str, dict[str, str]]:
    """``{divergence name: {preset name: what its library does}}`` for the presets
    declaring divergences whose flavour (any cutoff) is one of ``flavours``: named as a
    preset or spelt out as a flavour string, the computation is that preset's."""
    from ..errors import FlavourError, RegistryError
    from ..flavour import parse_flavour

    flavours = tuple(flavours)
    # a preset of another metric cannot have one of these flavours (no other module is loaded)
    declared = registry.presets_with_divergences(metrics={fl.metric for fl in flavours})
    if not declared:  # the usual case: no flavour without its cutoff is built nor hashed
        return {}
    wanted = {fl.with_cutoff(None) for fl in flavours}
    out: dict[str, dict[str, str]] = {}
    for p in declared:
        try:  # the preset's own flavour (registry data; the presets layer is not imported)
            base = parse_flavour(p.spec, registry)
        except FlavourError as exc:
            raise RegistryError(f"preset '{p.name}' from {p.origin}: {exc}") from exc
        if base in wanted:
            for name, what in p.divergences():
                out.setdefault(name, {})[p.name] = what
    return out


def warn_divergences(flavours: Iterable[Flavour], qrels: Any, run: Any, registry: Registry,
                     stacklevel: int = 3) -> None:
    """Warn (:class:`~evalkit.errors.ReferenceDivergenceWarning`) once per divergence for
    ``run`` if a flavour in ``flavours`` is that of a preset declaring it
    (:func:`diverging_presets`) and the divergence finds topics of ``run``; the message
    names the run, up to five topics and the presets, and quotes what their library
    does."""
    for name, presets in diverging_presets(flavours, registry).items():
        comp = registry.get("divergence", name)
        topics = call_component("divergence", comp, qrels, run)
        if len(topics) == 0:
            continue
        shown = ", ".join(repr(str(t)) for t in topics[:5]) + (f" and {len(topics) - 5} more" if len(topics) > 5
                                                               else "")
        what = "; ".join(sorted(set(presets.values())))
        warnings.warn(ReferenceDivergenceWarning(
            f"run {run.name!r}: {comp.message.format(topics=shown)} under {', '.join(sorted(presets))}, but {what}"),
            stacklevel=stacklevel)


#: the former name of :func:`warn_divergences`
warn_interleaved_topics = warn_divergences
