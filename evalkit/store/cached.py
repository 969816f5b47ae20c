"""Evaluating a config through the results store: stored values whose key is unchanged
are reused, exactly the others are computed (and stored).

For each run of the config the keys (:class:`~evalkit.store.db.Key`) of every unique
flavour (its value, and with ``sensitivity`` its tie bounds ``low`` and ``high``) and
of judged@k at every cutoff are looked up; the run file is read only when one of them
is missing, and then only the missing flavours are evaluated (:func:`evalkit.evaluate`,
:func:`evalkit.sensitivity.tie_bounds`, :func:`evalkit.sensitivity.judged_at_k`, each
vectorised over queries). The values are the same as without the store: an evaluation
does not depend on the other flavours evaluated with it, and SQLite stores ``float64``
exactly (``NaN``, a query left out, as ``NULL``).

Warnings of the evaluation (:class:`~evalkit.errors.EmptyEvaluationWarning`, ...) are
issued when a value is computed, not when it is reused.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TYPE_CHECKING

import numpy as np

from .._version import __version__
from ..engine.checks import require_common_queries
from ..engine.evaluate import evaluate, needs_rank
from ..io import read_qrels, read_run, read_subtopic_qrels
from ..registry import BUILTIN_ORIGIN
from ..results import Results
from ..sensitivity import JudgedAtK, cutoffs_of, judged_at_k, tie_bounds
from .db import Key, ResultsStore
from .hashing import file_digest

if TYPE_CHECKING:
    from ..registry import Registry

#: Families of a flavour's components whose plugin origin is part of a key.
_FAMILIES = ("gain", "discount", "idcg", "ties")


@dataclass(frozen=True)
class StoreUse:
    """What one evaluation did with the store.

    :param path: the store file; :param label: the label recorded;
    :param reused: evaluations (a run under one flavour: its values, or its tie bounds,
        or judged@k at one cutoff) taken from the store; :param computed: evaluations
        computed (and stored); :param unstored: evaluations computed and not stored
        (an input that is a named pipe or a device has no content hash);
    :param invocation: id of the recorded invocation (``None`` when not recorded).
    """

    path: Path
    label: str
    config: str
    reused: int
    computed: int
    unstored: int
    invocation: int | None

    def summary(self, shown: str | None = None) -> str:
        """One line for the command line (``shown``: the path as to print it)."""
        total = self.reused + self.computed + self.unstored
        text = (f"store {shown or self.path}: reused {self.reused} of {total} evaluations, computed {self.computed}"
                f" (label {self.label!r})")
        if self.unstored:
            text += f"; {self.unstored} not stored (an input is a pipe or device, which has no content hash)"
        return text


def version_key(flavour: Any, registry: Registry) -> str:
    """evalkit's version plus the origin (distribution and version) of every plugin
    component ``flavour`` uses: a new plugin release is a new key."""
    origins = set()
    for family, ref in [("metric", flavour.metric)] + [(f, getattr(flavour, f)) for f in _FAMILIES]:
        if ref is None:
            continue
        try:
            origin = registry.get(family, ref if isinstance(ref, str) else ref.name).origin
        except Exception:  # noqa: BLE001 - an unknown name cannot be evaluated either
            continue
        if origin and origin != BUILTIN_ORIGIN:
            origins.add(f"{family}={origin}")
    return f"evalkit {__version__}" + "".join(f"; {o}" for o in sorted(origins))


def config_name(cfg: Any) -> str:
    """The name a config's invocations are recorded under: its file name
    (``quickstart.yaml``), ``<mapping>`` for an in-memory config."""
    return cfg.source if cfg.source == "<mapping>" else os.path.basename(cfg.source)


def evaluate_with_store(cfg: Any, flavours: Any, registry: Registry, progress: Callable | None, store: ResultsStore, *,
                        label: str, sensitivity: bool = True, evaluate_fn: Any = evaluate) -> Any:
    """:func:`evalkit.runner.runner._evaluate_locally` through ``store``.

    :returns: ``(results, (low, high) or None, JudgedAtK or None, StoreUse)`` with
        results of shape ``(n_runs, n_flavours, n_qrels_queries)``, as without a store.
    """
    qrels_hash = file_digest(cfg.qrels)
    sub_hash = "" if cfg.subtopic_qrels is None else file_digest(cfg.subtopic_qrels)
    qrels = read_qrels(cfg.qrels)
    subtopics = read_subtopic_qrels(cfg.subtopic_qrels) if cfg.subtopic_qrels is not None else None
    qids = np.asarray(qrels.qids, dtype=object)
    n_q = len(qids)
    canon = [str(f) for f in flavours]
    unique = list(dict.fromkeys(canon))
    flavour_of = {str(f): f for f in flavours}
    versions = {c: version_key(flavour_of[c], registry) for c in unique}
    cutoffs = cutoffs_of(flavours) if sensitivity else ()
    judged_names = [("judged" if k is None else f"judged@{k}") for k in cutoffs]
    kinds = ("value", "low", "high") if sensitivity else ("value",)
    keep_rank = needs_rank(flavours, registry)
    storable = qrels_hash is not None and sub_hash is not None
    reused = computed = unstored = 0
    parts, lows, highs, judged, rows = [], [], [], [], []
    for i, entry in enumerate(cfg.runs):
        run_hash = file_digest(entry.path) if storable else None
        keys: dict[tuple[str, str], Key] = {}
        if run_hash is not None:
            assert qrels_hash is not None and sub_hash is not None  # storable
            for c in unique:
                for kind in kinds:
                    keys[(c, kind)] = Key(qrels_hash, run_hash, sub_hash, c, kind, versions[c])
            for name in judged_names:
                keys[(name, "judged")] = Key(qrels_hash, run_hash, sub_hash, name, "judged", f"evalkit {__version__}")
        found = store.find(list(keys.values())) if keys else {}
        have: dict[tuple[str, str], np.ndarray] = {}
        ids = [found[k] for k in keys.values() if k in found]
        if ids:
            stored = store.values(ids, qids)
            id_row = {eid: r for r, eid in enumerate(ids)}
            for what, k in keys.items():
                if k in found:
                    have[what] = stored[id_row[found[k]]]
        need_value = [c for c in unique if (c, "value") not in have]
        need_bounds = [c for c in unique if sensitivity and ((c, "low") not in have or (c, "high") not in have)]
        need_judged = [k for k, name in zip(cutoffs, judged_names) if (name, "judged") not in have]
        new: dict[tuple[str, str], np.ndarray] = {}
        if need_value or need_bounds or need_judged:
            run = read_run(entry.path, name=entry.name, keep_rank=keep_rank)
            require_common_queries(qrels, [run])
            if need_value:
                part = evaluate_fn(qrels, [run], [flavour_of[c] for c in need_value], labels=need_value,
                                   subtopics=subtopics, registry=registry)
                for j, c in enumerate(need_value):
                    new[(c, "value")] = part.values[0, j]
            if need_bounds:
                low, high = tie_bounds(qrels, run, [flavour_of[c] for c in need_bounds], registry, subtopics)
                for j, c in enumerate(need_bounds):
                    new[(c, "low")], new[(c, "high")] = low[j], high[j]
            if need_judged:
                jv = judged_at_k(qrels, run, need_judged, registry)
                for j, cut in enumerate(need_judged):
                    new[("judged" if cut is None else f"judged@{cut}", "judged")] = jv[j]
            del run
        n_new = len(new)
        if run_hash is not None:
            reused += len(have)
            computed += n_new
            ids_new = store.put([(keys[w], v) for w, v in new.items()], qids) if new else {}
            eid = {w: found[k] if k in found else ids_new[k] for w, k in keys.items()}
            for label_, c in zip(cfg.labels, canon):
                for kind in kinds:
                    rows.append((entry.name, label_, c, kind, eid[(c, kind)]))
            for name in judged_names:
                rows.append((entry.name, name, name, "judged", eid[(name, "judged")]))
        else:
            unstored += n_new
        have.update(new)
        parts.append(np.stack([have[(c, "value")] for c in canon]) if canon else np.empty((0, n_q)))
        if sensitivity:
            lows.append(np.stack([have[(c, "low")] for c in canon]))
            highs.append(np.stack([have[(c, "high")] for c in canon]))
            judged.append(np.stack([have[(n, "judged")] for n in judged_names]) if judged_names
                          else np.empty((0, n_q)))
        if progress is not None:
            progress("runs", i + 1, len(cfg.runs))
    systems = tuple(r.name for r in cfg.runs)
    results = Results(qids, systems, tuple(flavours), tuple(cfg.labels), np.stack(parts))
    invocation = None
    if storable and rows:
        assert qrels_hash is not None  # storable
        invocation = store.record(config_name(cfg), label, f"evalkit {__version__}", qrels_hash, rows)
    use = StoreUse(store.path, label, config_name(cfg), reused, computed, unstored, invocation)
    if not sensitivity:
        return results, None, None, use
    return (results, (np.stack(lows), np.stack(highs)),
            JudgedAtK(systems, cutoffs, qids, np.stack(judged)), use)
