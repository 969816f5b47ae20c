"""Measure specs on the command line: ``-m SPEC`` expands into labelled flavours.

A SPEC is a canonical flavour string (``ndcg(gain=exp2)@10``), a preset name with
an optional cutoff (``trec_eval.ndcg_cut@10``), a trec_eval measure name
(``ndcg_cut.5,10``, ``map``, ``P.10``, ``all_trec``) or an ir_measures name
(``nDCG@10``, ``AP``); a preset with default cutoffs and no ``@k``
(``trec_eval.ndcg_cut``) gives one measure per default cutoff.
"""

from __future__ import annotations

from .._record import Record
from ..flavour import Flavour
from ..resolve import resolve_labelled
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from ..registry import Registry


class Measure(Record):
    """One evaluated measure.

    :param label: display name: the spec itself, or ``preset@k`` per expanded cutoff.
    :param native: the name trec_eval-style output prints: the preset's ``native_name``
        with ``{k}`` filled (``ndcg_cut_10``) when the spec is a preset that has one
        (and the cutoff matches it: a ``{k}`` name needs a cutoff, a plain name none);
        otherwise the canonical flavour string.
    :param flavour: the :class:`Flavour`.

    Frozen, compared and hashed by its fields (a :class:`~evalkit._record.Record`).
    """

    __slots__ = ("label", "native", "flavour")
    label: str
    native: str
    flavour: Flavour

    def __init__(self, label: str, native: str, flavour: Flavour) -> None:
        self._set(label=label, native=native, flavour=flavour)


def native_name(preset: Any, flavour: Flavour) -> str:
    """The name trec_eval-style output prints: the preset's ``native_name`` with
    ``{k}`` filled (``ndcg_cut_10``, ``P_10``), without its ``@{k}`` part when there is
    no cutoff (``nDCG``); otherwise the canonical flavour string."""
    if preset is None or not preset.native_name:
        return str(flavour)
    name = preset.native_name
    if "{k}" not in name:
        return name if flavour.k is None else str(flavour)
    if flavour.k is not None:
        return name.format(k=flavour.k)
    return name.replace("@{k}", "") if name.endswith("@{k}") else str(flavour)


def expand_measure(spec: str, registry: Registry) -> list[Measure]:
    """Expand one ``-m`` SPEC into measures (trec_eval's and ir_measures' names included),
    through :func:`evalkit.resolve.resolve_labelled` (:func:`~evalkit.resolve.resolve_measures`
    as plain tuples): the command's one resolution of its specs (the engine then takes the flavours).

    :raises FlavourError: unknown name (with the closest known ones), component or parameter.
    :raises RegistryError: the spec names a preset whose own spec is broken (naming the
        preset and its plugin).
    """
    out = [Measure(label, native_name(preset, fl), fl) for label, preset, fl in resolve_labelled(spec, registry)]
    from ..trec_eval_compat import parse_name  # trec_eval's printed names (iprec_at_recall_0.10)

    named = parse_name(spec) if isinstance(spec, str) else None
    if named is not None and len(named) == len(out):
        out = [Measure(m.label, n.native, m.flavour) for m, n in zip(out, named)]
    return out


def expand_measures(specs: Any, registry: Registry) -> list[Measure]:
    """Expand several SPECs. Presets that share a flavour are kept, each under its own
    label (evaluated once); a measure repeated under the same label is kept once
    (``-m trec_eval.ndcg_cut -m trec_eval.ndcg_cut@10``).

    :raises FlavourError: as :func:`expand_measure`, or one label for two flavours.
    """
    from ..errors import FlavourError

    out: list[Measure] = []
    seen: dict[str, Measure] = {}
    for spec in specs:
        for m in expand_measure(spec, registry):
            if m.label in seen:
                if seen[m.label].flavour != m.flavour:
                    raise FlavourError(f"-m {spec!r}: the label {m.label!r} names two flavours "
                                       f"({seen[m.label].flavour} and {m.flavour})")
                continue
            seen[m.label] = m
            out.append(m)
    return out
