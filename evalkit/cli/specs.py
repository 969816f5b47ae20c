"""Measure specs on the command line: ``-m SPEC`` expands into labelled flavours.

A SPEC is a canonical flavour string (``ndcg(gain=exp2)@10``) or a preset name with
an optional cutoff (``trec_eval.ndcg_cut@10``); a preset with default cutoffs and no
``@k`` (``trec_eval.ndcg_cut``) gives one measure per default cutoff.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..flavour import Flavour
from ..presets import expand_spec


@dataclass(frozen=True)
class Measure:
    """One evaluated measure.

    :param label: display name: the spec itself, or ``preset@k`` per expanded cutoff.
    :param native: the name trec_eval-style output prints: the preset's ``native_name``
        with ``{k}`` filled (``ndcg_cut_10``) when the spec is a preset that has one
        (and the cutoff matches it: a ``{k}`` name needs a cutoff, a plain name none);
        otherwise the canonical flavour string.
    :param flavour: the :class:`Flavour`.
    """

    label: str
    native: str
    flavour: Flavour


def expand_measure(spec: str, registry) -> list[Measure]:
    """Expand one ``-m`` SPEC into measures.

    :raises FlavourError: unknown preset, component or parameter (with the known names).
    """
    flavours = expand_spec(spec, registry)
    name = spec.split("@", 1)[0].strip() if isinstance(spec, str) and "(" not in spec else None
    preset = registry.components["preset"].get(name) if name else None
    out = []
    for fl in flavours:
        native = str(fl)
        if preset is not None and preset.native_name:
            wants_k = "{k}" in preset.native_name
            if wants_k == (fl.k is not None):
                native = preset.native_name.format(k=fl.k) if wants_k else preset.native_name
        if len(flavours) == 1:
            label = spec.strip()
        else:
            label = f"{preset.name}@{fl.k}" if preset is not None else str(fl)
        out.append(Measure(label, native, fl))
    return out


def expand_measures(specs, registry) -> list[Measure]:
    """Expand several SPECs; the same flavour twice is an error.

    :raises FlavourError: as :func:`expand_measure`, or a flavour listed twice.
    """
    from ..errors import FlavourError

    out: list[Measure] = []
    seen: dict[Flavour, str] = {}
    for spec in specs:
        for m in expand_measure(spec, registry):
            if m.flavour in seen:
                raise FlavourError(f"-m {spec!r} repeats the flavour of -m {seen[m.flavour]!r} ({m.flavour})")
            seen[m.flavour] = spec
            out.append(m)
    return out
