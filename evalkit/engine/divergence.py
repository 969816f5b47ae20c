"""Inputs on which a preset's reference library computes something other than the preset.

A preset reproduces its library on the inputs the library is meant for. A few inputs
make a library compute something else for reasons that are not part of the measure;
evalkit keeps the measure's value and says, with
:class:`~evalkit.errors.ReferenceDivergenceWarning`, that the library's number would
differ and why. One case so far, declared per preset
(:attr:`evalkit.components.Preset.interleaved_topics`): pyndeval (and ir_measures'
``alpha_nDCG`` / ``ERR_IA`` / ``nERR_IA``, which run it on a TREC file's lines in
order) starts a topic at every change of query id, so a topic whose lines are not
contiguous is scored once per contiguous part.
"""

from __future__ import annotations

import warnings
from typing import Iterable

import numpy as np

from ..columnar import isin_ids
from ..errors import ReferenceDivergenceWarning

__all__ = ["interleaved_topic_presets", "split_topics", "warn_interleaved_topics"]


def split_topics(qrels, run) -> np.ndarray:
    """Judged query ids whose lines in ``run`` are not contiguous (another query's lines
    come between two of theirs), in sorted order.

    :param qrels: :class:`~evalkit.data.Qrels` (or any object with ``qids``).
    :param run: :class:`~evalkit.data.Run`; its rows in the order they were read.
    :returns: ``object`` array of ``str`` ``(m,)``; empty when every judged query's
        lines form one block. O(rows), no sort of the rows.
    """
    from .pair_index import code_runs

    codes, vocab = run._qid_codes()
    blocks = np.bincount(codes[code_runs(codes)], minlength=len(vocab))
    split = np.flatnonzero(blocks > 1)
    if len(split) == 0:
        return vocab[:0]
    names = vocab[split]
    return names[isin_ids(names, qrels.qids)]


def interleaved_topic_presets(flavours: Iterable, registry) -> dict[str, str]:
    """``{preset name: what its library does}`` for the presets declaring
    ``interleaved_topics`` whose flavour (any cutoff) is one of ``flavours``: named as a
    preset or spelt out as a flavour string, the computation is that preset's."""
    from ..errors import FlavourError, RegistryError
    from ..flavour import parse_flavour

    declared = [p for p in registry.components["preset"].values() if p.interleaved_topics]
    if not declared:
        return {}
    wanted = {fl.with_cutoff(None) for fl in flavours}
    out = {}
    for p in declared:
        try:  # the preset's own flavour (registry data; the presets layer is not imported)
            base = parse_flavour(p.spec, registry)
        except FlavourError as exc:
            raise RegistryError(f"preset '{p.name}' from {p.origin}: {exc}") from exc
        if base in wanted:
            out[p.name] = p.interleaved_topics
    return out


def warn_interleaved_topics(flavours: Iterable, qrels, run, registry, stacklevel: int = 3) -> None:
    """Warn (:class:`~evalkit.errors.ReferenceDivergenceWarning`) once for ``run`` if a
    flavour in ``flavours`` is that of a preset declaring ``interleaved_topics``
    (:func:`interleaved_topic_presets`) and a judged topic's lines are not contiguous in
    ``run``; the message names the run, up to five topics and the presets, and quotes
    what their library does."""
    declared = interleaved_topic_presets(flavours, registry)
    if not declared:
        return
    topics = split_topics(qrels, run)
    if len(topics) == 0:
        return
    shown = ", ".join(repr(str(t)) for t in topics[:5]) + (f" and {len(topics) - 5} more" if len(topics) > 5 else "")
    what = "; ".join(sorted(set(declared.values())))
    warnings.warn(ReferenceDivergenceWarning(
        f"run {run.name!r}: the lines of topic(s) {shown} are not contiguous; evalkit scores each "
        f"topic whole under {', '.join(sorted(declared))}, but {what}"), stacklevel=stacklevel)
