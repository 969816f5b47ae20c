"""Checks on what gain and discount components return.

A component is a plugin's (or a built-in's) vectorised function; the engine wraps
each bound gain and discount in :func:`checked` once per flavour, so every call is
checked at the cost of one pass over its output (no per-query work). What a wrong
output would otherwise do: a NaN gain makes its query NaN, which the mean then
leaves out as if the query had been skipped; a negative or wrongly shaped array
gives a wrong number or a bare NumPy error. Instead the engine raises
:class:`ComponentOutputError` naming the component and the first offending input.

Rules (:class:`evalkit.components.Gain`, :class:`evalkit.components.Discount`):

* the output has the input's shape and a real numeric dtype (not ``bool``, complex,
  ``object``);
* every value is finite (``exp2`` of a grade >= 1024 overflows to infinity in
  ``float64``: that is an error naming the grade, not a silent NaN);
* gains and discounts are >= 0, except the gain of a negative grade under the
  ``negative=gain`` convention (scikit-learn ``dcg_score``: a negative linear gain);
* an IDCG strategy returns one finite value >= 0 per query (:func:`checked_idcg`);
  under ``negative=gain`` it may be negative (an ideal ranking holding negative
  gains, CatBoost's ``CalcIDcg``).
"""

from __future__ import annotations

from functools import update_wrapper
from typing import Callable

import numpy as np

from ..errors import ComponentOutputError, EmptyEvaluationWarning, EvaluationError

__all__ = ["ComponentOutputError", "EmptyEvaluationWarning", "checked", "checked_idcg", "format_number", "nothing_evaluated",
           "require_common_queries"]


def checked(family: str, component: str, fn: Callable[[np.ndarray], np.ndarray],
            negative_grades: bool = False) -> Callable:
    """``fn`` (a bound gain or discount) with its output checked; returns ``float64``.
    ``negative_grades``: a gain may be negative where its grade is (``negative=gain``)."""
    what = "grade" if family == "gain" else "rank"

    def call(values: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # checked below
            out = fn(values)
        arr = np.asarray(out)
        n = np.shape(values)
        if arr.shape != n:
            raise ComponentOutputError(family, component, None,
                                       f"returned shape {arr.shape} for {what}s of shape {n}")
        if arr.dtype.kind not in "iuf":
            raise ComponentOutputError(family, component, None,
                                       f"returned dtype {arr.dtype}, expected a real number dtype (float64)")
        arr = arr.astype(np.float64, copy=False)
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            v = float(np.asarray(values)[i])
            raise ComponentOutputError(
                family, component, v,
                f"{what} {format_number(v)} gives {float(arr[i])!r}, not a finite number"
                + (" (2^grade overflows float64 from grade 1024)" if component == "exp2" else ""))
        below = arr < 0
        if negative_grades:
            below &= np.asarray(values) >= 0
        if below.any():
            i = int(np.flatnonzero(below)[0])
            v = float(np.asarray(values)[i])
            raise ComponentOutputError(family, component, v, f"{what} {format_number(v)} gives {float(arr[i])!r} < 0")
        return arr

    try:
        update_wrapper(call, fn)
    except AttributeError:
        pass
    return call


def checked_idcg(component: str, fn: Callable, negative_gains: bool = False) -> Callable:
    """``fn`` (a bound IDCG strategy, ``fn(ctx) -> (q,)``) with its output checked:
    one finite value >= 0 per query (``ctx.judged_offsets`` has ``q + 1`` entries);
    ``negative_gains`` (``negative=gain``): a negative value is allowed too (an ideal
    ranking that holds negative gains, as CatBoost's)."""

    def call(ctx) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            arr = np.asarray(fn(ctx))
        q = len(ctx.judged_offsets) - 1
        if arr.shape != (q,):
            raise ComponentOutputError("idcg", component, None, f"returned shape {arr.shape}, expected ({q},)")
        if arr.dtype.kind not in "iuf":
            raise ComponentOutputError("idcg", component, None,
                                       f"returned dtype {arr.dtype}, expected a real number dtype (float64)")
        arr = arr.astype(np.float64, copy=False)
        bad = ~np.isfinite(arr) if negative_gains else ~np.isfinite(arr) | (arr < 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ComponentOutputError("idcg", component, float(i),  # the caller names query i
                                       f"IDCG {float(arr[i])!r}, not a finite number"
                                       f"{'' if negative_gains else ' >= 0'} (a gain, discount or "
                                       "their sum overflows float64, or the strategy is wrong)")
        return arr

    try:
        update_wrapper(call, fn)
    except AttributeError:
        pass
    return call


def format_number(v: float) -> str:
    """A grade or rank for a message: integers without a decimal point or exponent."""
    v = float(v)
    return str(int(v)) if v.is_integer() and abs(v) < 1e30 else repr(v)


def nothing_evaluated(qrels, run) -> str:
    """The message saying that ``run`` shares no query with ``qrels``."""
    if len(qrels) == 0:
        return f"{qrels.source}: the qrels hold no judgment; nothing to evaluate"
    if len(run) == 0:
        return f"{run.source}: run {run.name!r} holds no result; nothing to evaluate"
    return (f"{run.source}: run {run.name!r} shares no query with the qrels ({qrels.source}); "
            "nothing to evaluate")


def require_common_queries(qrels, runs) -> None:
    """Raise :class:`~evalkit.errors.EvaluationError` unless every run shares at least
    one query with ``qrels`` (trec_eval stops too: "No queries with both results and
    relevance info"). Used by the command line and :func:`evalkit.run_config`, where an
    empty evaluation is a mistake (a wrong file, a qid format that differs); the
    library's :func:`evalkit.evaluate` only warns. Costs one pass over the query
    vocabularies (not the rows), through a hash set."""
    qids = set(qrels.qids.tolist())
    for run in runs:
        if not qids or len(run) == 0 or qids.isdisjoint(run.qids.tolist()):
            raise EvaluationError(nothing_evaluated(qrels, run))
