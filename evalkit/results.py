"""The results of an evaluation: per-query values for every system and flavour."""

from __future__ import annotations

from typing import Any, TYPE_CHECKING

import numpy as np

from ._record import FrozenFields, lean_dataclass
from .errors import ArgumentError, UnknownNameError
from .flavour import ComponentRef, Flavour

if TYPE_CHECKING:
    from .registry import Registry

#: ``spec -> [Flavour, ...]`` used by :meth:`Results.flavour_index` to look a preset or
#: measure name up (set by :mod:`evalkit.resolve`, the layer that reads presets; this
#: module does not import it). ``None``: only labels, canonical strings and flavour
#: strings are looked up.
_SPEC_RESOLVER = None


def set_spec_resolver(resolver: Any) -> None:
    """Install the callable ``spec -> [Flavour, ...]`` that :meth:`Results.flavour_index`
    uses for a spec that is neither a label nor a flavour string (a preset name)."""
    global _SPEC_RESOLVER
    _SPEC_RESOLVER = resolver


@lean_dataclass(eq=False)  # its __init__ below, the rest from FrozenFields (issue 27: nothing generated)
class Results(FrozenFields):
    """Per-query values of ``systems`` x ``flavours`` over ``qids``.

    :param qids: evaluated query ids, ``object`` ``(q,)`` (the qrels' queries).
    :param systems: system (run) names, length ``s``.
    :param flavours: the evaluated flavours, length ``f``.
    :param labels: display name per flavour (the config's names, else the canonical string).
    :param values: ``float64`` ``(s, f, q)``; ``NaN`` marks a query left out of the mean
        by a convention (``missing=skip``, ``empty=skip``).

    Results are additive over queries: :meth:`sums` and :meth:`counts` of disjoint query
    partitions add up, and :func:`concat` joins partitions evaluated separately.
    """

    qids: np.ndarray
    systems: tuple[str, ...]
    flavours: tuple[Flavour, ...]
    labels: tuple[str, ...]
    values: np.ndarray

    def __init__(self, qids: np.ndarray, systems: tuple[str, ...], flavours: tuple[Flavour, ...],
                 labels: tuple[str, ...], values: np.ndarray) -> None:
        object.__setattr__(self, "qids", qids)
        object.__setattr__(self, "systems", systems)
        object.__setattr__(self, "flavours", flavours)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "values", values)

    # ----------------------------------------------------------------- lookup
    def system_index(self, system: str | int) -> int:
        """Index of ``system`` (a name, or an index ``-s <= i < s``).

        :raises UnknownNameError: no such system.
        """
        if isinstance(system, (int, np.integer)) and not isinstance(system, bool):
            return _index(int(system), len(self.systems), "system")
        try:
            return self.systems.index(system)
        except ValueError:
            raise UnknownNameError(f"unknown system {system!r} (known: {', '.join(self.systems)})") from None

    def flavour_index(self, flavour: Any) -> int:
        """Column of ``flavour``: its index (``-f <= i < f``), its label (the spec as asked
        for, ``"<library>.ndcg_cut@10"``), its canonical string, a :class:`Flavour`, or any
        spec expanding to one evaluated flavour (the first column holding it).

        :raises UnknownNameError: not evaluated (with the known labels; also a :class:`KeyError`).
        """
        if isinstance(flavour, (int, np.integer)) and not isinstance(flavour, bool):
            return _index(int(flavour), len(self.flavours), "flavour")
        if isinstance(flavour, Flavour):
            if flavour in self.flavours:
                return self.flavours.index(flavour)
        else:
            text = str(flavour)
            if text in self.labels:
                return self.labels.index(text)
            for i, f in enumerate(self.flavours):
                if str(f) == text:
                    return i
            try:  # a flavour string, preset or measure name giving one flavour
                if _SPEC_RESOLVER is not None:
                    parsed = _SPEC_RESOLVER(text)
                else:
                    from .flavour import parse_flavour

                    parsed = [parse_flavour(text)]
            except Exception:  # noqa: BLE001 - fall through to the UnknownNameError below
                parsed = []
            if len(parsed) == 1 and parsed[0] in self.flavours:
                return self.flavours.index(parsed[0])
        raise UnknownNameError(f"unknown flavour {flavour!r} (known: {', '.join(self.labels)})")

    # ----------------------------------------------------------------- aggregates
    def counts(self) -> np.ndarray:
        """Queries included in each mean: ``int64`` ``(s, f)``."""
        return (~np.isnan(self.values)).sum(axis=2)

    def sums(self) -> np.ndarray:
        """Sum of included per-query values: ``float64`` ``(s, f)``."""
        return np.nansum(self.values, axis=2)

    def means(self, registry: Registry | None = None) -> np.ndarray:
        """Each flavour's aggregate over included queries: ``float64`` ``(s, f)``; ``NaN``
        if none included. The mean, unless the flavour names another ``aggregate``
        component (``round_mean``: the mean rounded, as some libraries report it), which
        is called once per flavour on its ``(s, q)`` values.

        :param registry: where the ``aggregate`` components are looked up (default: the
            default registry; only read for flavours with a non-default aggregate).
        :raises ComponentContractError: an aggregate broke its contract (a wrong shape, dtype, a
            non-finite value of a third party's component).
        """
        counts = self.counts()
        out = np.full(counts.shape, np.nan)
        np.divide(self.sums(), counts, out=out, where=counts > 0)
        for f, fl in enumerate(self.flavours):
            ref = getattr(fl, "aggregate", None) if isinstance(fl, Flavour) else None
            if ref is not None:
                out[:, f] = _aggregate(ref, self.values[:, f], registry)
        return out

    def mean(self, system: Any, flavour: Any) -> float:
        """Mean of ``system`` (name or index) under ``flavour`` (label, canonical string,
        :class:`~evalkit.flavour.Flavour` or index) over its included queries.

        :raises UnknownNameError: no such system or flavour (also a :class:`KeyError`).

        >>> import numpy as np
        >>> from evalkit import parse_flavour
        >>> res = Results(np.array(["q1", "q2", "q3"], dtype=object), ("bm25",), (parse_flavour("ndcg@10"),),
        ...               ("ndcg@10",), np.array([[[1.0, 0.5, np.nan]]]))  # q3 left out of the mean
        >>> res.mean("bm25", "ndcg@10"), res.counts().tolist()
        (0.75, [[2]])
        >>> res.mean("bm25", "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval)@10")
        0.75
        """
        return float(self.means()[self.system_index(system), self.flavour_index(flavour)])

    def per_query(self, system: Any, flavour: Any) -> dict[str, float]:
        """``{qid: value}`` for the included queries."""
        row = self.values[self.system_index(system), self.flavour_index(flavour)]
        return {q: float(v) for q, v in zip(self.qids, row) if not np.isnan(v)}

    def to_records(self) -> list[dict]:
        """One dict per (system, flavour, included query): long format."""
        out = []
        for s, system in enumerate(self.systems):
            for f, label in enumerate(self.labels):
                for q, v in zip(self.qids, self.values[s, f]):
                    if not np.isnan(v):
                        out.append({"system": system, "flavour": label,
                                    "canonical": str(self.flavours[f]), "qid": q, "value": float(v)})
        return out

    def to_df(self, columns: Any = ("system", "qid", "flavour", "value")) -> Any:
        """Long pandas DataFrame, one row per (system, flavour, included query), as
        dataframe-based evaluation libraries give it (:func:`evalkit.frames.results_to_df`)."""
        from .frames import results_to_df

        return results_to_df(self, columns)


def _aggregate(ref: ComponentRef, values: np.ndarray, registry: Registry | None = None) -> np.ndarray:
    """The ``aggregate`` component ``ref`` on ``values`` (``float64`` ``(s, q)``):
    ``float64`` ``(s,)``, called through the engine's boundary
    (:func:`~evalkit.engine.checks.call_component`: its printing to standard error,
    ``sys.exit`` and its output's shape and values checked)."""
    from .engine.checks import call_component
    from .registry import registry_or_default

    comp = registry_or_default(registry).get("aggregate", ref.name)
    return np.asarray(call_component("aggregate", comp, values, **comp.bind(ref.params)), dtype=np.float64)


def _index(i: int, n: int, what: str) -> int:
    if not -n <= i < n:
        raise UnknownNameError(f"{what} index {i} is out of range ({n} {what}s)")
    return i % n


def concat(parts: list[Results]) -> Results:
    """Join results of disjoint query partitions (same systems and flavours).

    :raises ArgumentError: no partition, partitions with different systems or flavours,
        or partitions sharing a query.
    """
    if not parts:
        raise ArgumentError("concat: nothing to concatenate (no results given)")
    first = parts[0]
    for p in parts[1:]:
        if p.systems != first.systems or p.flavours != first.flavours:
            raise ArgumentError("concat: the partitions differ in systems or flavours")
    qids = np.concatenate([p.qids for p in parts])
    values = np.concatenate([p.values for p in parts], axis=2)
    order = np.argsort(qids, kind="stable")
    if len(qids) > 1 and (qids[order][1:] == qids[order][:-1]).any():
        raise ArgumentError("concat: the partitions overlap in queries")
    return Results(qids[order], first.systems, first.flavours, first.labels, values[:, :, order])
