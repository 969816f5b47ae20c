""":class:`evalkit.resolve.ResolvedMeasure`, defined when first used (issue 27): the
command line resolves its specs into plain ``(label, preset, flavour)`` triples
(:func:`evalkit.resolve.resolve_labelled`), so ``evalkit eval`` does not create the named
tuple (a tenth of a millisecond). :mod:`evalkit.resolve` gives it by name (PEP 562); its
``__module__`` is ``evalkit.resolve``."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from .components import Preset
    from .flavour import Flavour


class ResolvedMeasure(NamedTuple):
    """One measure as resolved from a spec.

    :param label: the display name: the spec as written when it gives one flavour,
        ``preset@k`` (``name.k`` for a trec_eval list) per cutoff otherwise.
    :param preset: the :class:`~evalkit.components.Preset` the spec named, or ``None``
        (a flavour string or :class:`Flavour`).
    :param flavour: the resolved :class:`Flavour`.
    """

    label: str
    preset: Preset | None
    flavour: Flavour


ResolvedMeasure.__module__ = "evalkit.resolve"
