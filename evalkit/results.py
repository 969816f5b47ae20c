"""The results of an evaluation: per-query values for every system and flavour."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import ArgumentError, UnknownNameError
from .flavour import Flavour
from .rounding import round_means


@dataclass(frozen=True, eq=False)
class Results:
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

    def flavour_index(self, flavour) -> int:
        """Column of ``flavour``: its index (``-f <= i < f``), its label (the spec as asked
        for, ``"trec_eval.ndcg_cut@10"``), its canonical string, a :class:`Flavour`, or any
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
                from .presets import expand_spec

                parsed = expand_spec(text)
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

    def means(self) -> np.ndarray:
        """Mean over included queries: ``float64`` ``(s, f)``; ``NaN`` if none included.
        A flavour with the ``round_mean`` convention has its mean rounded (BEIR, MTEB);
        one with ``summary=sum`` gives the sum, ``summary=gmean`` the geometric mean of
        ``max(v, 1e-5)`` (trec_eval's ``num_*`` and ``gm_*`` summaries)."""
        counts = self.counts()
        out = np.full(counts.shape, np.nan)
        np.divide(self.sums(), counts, out=out, where=counts > 0)
        for f, fl in enumerate(self.flavours):
            summary = fl.convention("summary") if isinstance(fl, Flavour) else "mean"
            if summary == "sum":
                out[:, f] = np.where(counts[:, f] > 0, self.sums()[:, f], np.nan)
            elif summary == "gmean":  # trec_eval meas_avg.c te_calc_avg_meas_s_gm, MIN_GEO_MEAN
                logs = np.log(np.maximum(self.values[:, f], 1e-5))
                with np.errstate(invalid="ignore"):
                    out[:, f] = np.exp(np.nansum(logs, axis=1) / counts[:, f])
            decimals = fl.convention("round_mean") if isinstance(fl, Flavour) else None
            if decimals is not None:
                out[:, f] = round_means(out[:, f], decimals, fl.convention("rounding"))
        return out

    def mean(self, system, flavour) -> float:
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

    def per_query(self, system, flavour) -> dict[str, float]:
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

    def to_df(self, columns=("system", "qid", "flavour", "value")):
        """Long pandas DataFrame, one row per (system, flavour, included query), as
        ir_measures' and ranx's users expect (:func:`evalkit.frames.results_to_df`)."""
        from .frames import results_to_df

        return results_to_df(self, columns)


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
