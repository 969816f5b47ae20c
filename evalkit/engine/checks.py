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
  ``negative=gain`` rule (a negative linear gain, as a library may compute it);
* an IDCG strategy returns one finite value >= 0 per query (:func:`checked_idcg`);
  under ``negative=gain`` it may be negative (an ideal ranking holding negative
  gains).

Every call of a component's function goes through :func:`call_component`, the one
boundary between the engine and component code (a plugin's or a built-in's). It

* sends what the component prints to standard error (:func:`evalkit.isolation.stdout_to_stderr`),
  so a plugin's ``print`` never reaches ``evalkit eval --format json|tsv`` or a report;
* turns ``sys.exit()`` inside the component into
  :class:`~evalkit.errors.ComponentContractError` naming the component and its plugin
  (the command line exits with status 3, not with the plugin's status and no output),
  and ``KeyboardInterrupt`` into :class:`~evalkit.errors.PluginInterrupt`, which still
  stops the program (status 130) and says which component was running;
* checks the contract of what it returned, vectorised, on every call: a real array of
  the input's shape (gain, discount), one value per query (IDCG strategy), an integer
  permutation of ``0..n-1`` that keeps each query's rows together in ascending query
  order (tie policy: a bounds test, a scatter into a ``bool (n,)`` array and a test
  that the gathered query index never decreases), a ``MetricOutput`` of ``float64
  (q,)`` values finite where ``defined`` (metric), and finite values from a
  third-party gain, discount or IDCG strategy (a built-in's non-finite value comes
  from the input, a huge grade or a sum of huge gains overflowing, and is reported
  as an input error naming the grade or query). A broken contract is
  :class:`~evalkit.errors.ComponentContractError` (exit status 3): a bug in the
  component, not in the input. What depends on the input (a non-finite or negative
  gain from a huge grade) stays :class:`ComponentOutputError` (exit status 2), raised
  by :func:`checked` and :func:`checked_idcg`.

The cost is a few passes over the output per call, and calls are per flavour and
run, never per query.
"""

from __future__ import annotations

import re
from functools import update_wrapper
from typing import Any, Callable, TYPE_CHECKING

import numpy as np

from ..isolation import stdout_to_stderr
from ..errors import (ComponentContractError, ComponentOutputError, EmptyEvaluationWarning, EvaluationError,
                      PluginInterrupt)

if TYPE_CHECKING:
    from ..data import Qrels, Run

__all__ = ["ComponentContractError", "ComponentOutputError", "EmptyEvaluationWarning", "call_component", "checked",
           "checked_idcg", "format_number", "nothing_evaluated", "require_common_queries"]

_NOUN = {"gain": "gain", "discount": "discount", "idcg": "IDCG strategy", "ties": "tie policy", "metric": "metric",
         "run_filter": "run filter", "grades": "grade rule", "negative": "negative-grade rule",
         "outcome": "outcome", "aggregate": "aggregate", "divergence": "divergence"}
#: the call names whose function is another attribute of the component than ``fn``:
#: a judgment rule's ``drops`` and ``check`` (:class:`evalkit.components.GradeRule`)
_ATTRIBUTE_CALLS = ("drops", "check")
#: a plugin component's origin ends with its entry point (matched on an error only:
#: compiled then, by :func:`re.search`'s cache)
_ENTRY_POINT = r"\(entry point '([^']+)'\)\Z"


def _whose(family: str, comp: Any) -> tuple[str, str, str | None]:
    """``(description, origin, entry-point name or None)`` of a component."""
    origin = getattr(comp, "origin", "") or "unknown origin"
    if family in _ATTRIBUTE_CALLS:
        noun = f"{_NOUN.get(comp.family, comp.family)} '{comp.name}' ({family})"
    else:
        noun = f"{_NOUN.get(family, family)} '{comp.name}'"
    return f"{noun} from {origin}", origin, _entry_point(comp)


def _entry_point(comp: Any) -> str | None:
    """The entry-point name of a plugin's component, ``None`` for a built-in (whose
    origin does not end with ``')``: no regular expression compiled or run for it, on
    every checked call of an evaluation)."""
    origin = getattr(comp, "origin", "") or ""
    if not origin.endswith("')"):
        return None
    m = re.search(_ENTRY_POINT, origin)
    return m.group(1) if m else None


def _broken(family: str, comp: Any, message: str) -> ComponentContractError:
    what, origin, plugin = _whose(family, comp)
    own = comp.family if family in _ATTRIBUTE_CALLS else family
    return ComponentContractError(own, comp.name, origin, f"{what} {message}", plugin)


def call_component(family: str, comp: Any, /, *args: Any, **params: Any) -> Any:
    """Call ``comp.fn(*args, **params)`` at the engine's boundary and return its
    checked output. ``family`` is the component's family, or ``drops`` / ``check`` to
    call a judgment rule's function of that name instead of ``fn``. Outputs:

    * ``gain``, ``discount``: ``float64`` ``(n,)``, the shape of ``args[0]``;
    * ``idcg``: ``float64`` ``(q,)`` (``q = len(ctx.judged_offsets) - 1``);
    * ``ties``: an integer ``(n,)`` permutation (the array returned, not copied: the
      engine recognises its own orders by identity);
    * ``metric``: the ``MetricOutput``;
    * ``run_filter``: ``bool`` ``(n,)`` (``n = len(inp.ranked.query)``);
    * ``drops`` (a judgment rule's): ``bool``, the shape of the grades ``args[0]``;
    * ``check`` (a judgment rule's): ``None`` or a ``Refusal`` whose ``mask`` is
      ``bool``, the shape of the judged grades ``args[0]``;
    * ``grades``, ``negative`` (a rule's reading of the grade): ``float64``, the shape
      of ``args[0]``;
    * ``outcome``: ``float64`` ``(q,)``, ``NaN`` exactly where ``args[0]`` is ``NaN``
      (a left-out query stays out; checked for a third party's component);
    * ``aggregate``: ``float64`` ``(s,)`` for values ``(s, q)``, finite for each
      system with an included query (checked for a third party's component);
    * ``divergence``: a one-dimensional array of query ids.

    Printing goes to standard error while the component runs.

    :raises ComponentContractError: the output breaks the family's contract (see the
        module docstring), or the component called ``sys.exit()``; names the
        component, its origin and plugin.
    :raises PluginInterrupt: ``KeyboardInterrupt`` while the component ran (a
        ``KeyboardInterrupt``, naming it).
    """
    try:
        fn = getattr(comp, family) if family in _ATTRIBUTE_CALLS else comp.fn
        with stdout_to_stderr():
            out = fn(*args, **params)
    except SystemExit as exc:
        raise _broken(family, comp, f"called sys.exit({exc.code!r}) during the evaluation") from None
    except PluginInterrupt:
        raise
    except KeyboardInterrupt:
        raise PluginInterrupt(f"while {_whose(family, comp)[0]} was running") from None
    return _OUTPUT_CHECKS[family](family, comp, out, args)


def _array(family: str, comp: Any, out: Any, shape: tuple, what: str, integer: bool = False) -> np.ndarray:
    if isinstance(out, np.ndarray):
        arr = out
    else:
        try:
            arr = np.asarray(out)
        except Exception:  # noqa: BLE001 - an object numpy cannot read
            raise _broken(family, comp, f"returned {type(out).__name__}, not an array") from None
    kinds = "iu" if integer else "iuf"
    if arr.dtype.kind not in kinds:
        raise _broken(family, comp, f"returned {what} of dtype {arr.dtype}; expected "
                                    f"{'an integer' if integer else 'a real number (float64)'} array")
    if arr.shape != shape:
        raise _broken(family, comp, f"returned {what} of shape {arr.shape}; expected {shape}")
    return arr


def _finite(family: str, comp: Any, arr: np.ndarray, inputs: Any, what: str) -> np.ndarray:
    """A third-party component's values must be finite (a built-in's non-finite value
    comes from the input, a huge grade, and :func:`checked` reports it as an input
    error naming the grade)."""
    if _entry_point(comp) is None:
        return arr
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        at = f" for {what} {format_number(float(np.asarray(inputs)[i]))}" if inputs is not None else \
            f" for query index {i}"
        raise _broken(family, comp, f"returned {float(arr[i])!r}{at}, not a finite number")
    return arr


def _check_elementwise(family: str, comp: Any, out: Any, args: tuple) -> np.ndarray:
    arr = _array(family, comp, out, np.shape(args[0]), "gains" if family == "gain" else "discounts")
    return _finite(family, comp, arr, args[0], "grade" if family == "gain" else "rank")


def _check_idcg(family: str, comp: Any, out: Any, args: tuple) -> np.ndarray:
    q = len(args[0].judged_offsets) - 1
    return _finite("idcg", comp, _array("idcg", comp, out, (q,), "ideal DCGs"), None, "")


_ORDER_CHUNK = 1 << 17  # positions per chunk of the order's query check


def _check_order(family: str, comp: Any, out: Any, args: tuple) -> np.ndarray:
    keys = args[0]
    query = keys.query
    n = len(query)
    order = _array("ties", comp, out, (n,), "an order", integer=True)
    if n == 0:
        return order
    if _whose("ties", comp)[2] is None and any(order is getattr(keys, made, None)
                                               for made in ("_identity", "_within", "_refined")):
        # a built-in policy returned an order the keys' own helpers made (the identity,
        # a sort within each query, ties refined within their blocks): a permutation
        # that keeps each query's rows together by construction (at 30 M rows the
        # checks below cost 0.2 s and a gathered copy of 240 MB at the memory peak)
        return order
    if int(order.min()) < 0 or int(order.max()) >= n:
        raise _broken("ties", comp, f"returned an order with row numbers outside 0..{n - 1} "
                                    f"(min {int(order.min())}, max {int(order.max())})")
    seen = np.zeros(n, dtype=bool)
    seen[order] = True
    if not seen.all():
        missing = int(np.flatnonzero(~seen)[0])
        raise _broken("ties", comp, f"returned an order that is not a permutation of the {n} rows: row {missing} "
                                    f"is missing and {n - int(seen.sum())} row(s) repeat")
    down = np.zeros(0, dtype=np.int64)
    for start in range(0, n - 1, _ORDER_CHUNK):  # gathered a chunk at a time: no n-sized copy
        grouped = query[order[start: start + _ORDER_CHUNK + 1]]
        down = np.flatnonzero(grouped[1:] < grouped[:-1])
        if len(down):
            down += start
            grouped = query[order]
            break
    if len(down):
        i = int(down[0]) + 1
        raise _broken("ties", comp, f"returned an order that does not keep each query's rows together in ascending "
                                    f"query order (position {i} goes back from query index {int(grouped[i - 1])} "
                                    f"to {int(grouped[i])})")
    return order


def _check_metric(family: str, comp: Any, out: Any, args: tuple) -> Any:
    q = args[0].n_queries
    if not (hasattr(out, "values") and hasattr(out, "defined")):
        raise _broken("metric", comp, f"returned {type(out).__name__}; expected an evalkit.components.MetricOutput")
    values = _array("metric", comp, out.values, (q,), "MetricOutput.values")
    defined = np.asarray(out.defined)
    if defined.dtype != bool or defined.shape != (q,):
        raise _broken("metric", comp, f"returned MetricOutput.defined of dtype {defined.dtype} and shape "
                                      f"{defined.shape}; expected bool ({q},)")
    # a built-in metric's non-finite value comes from the input (a DCG sum of huge gains
    # overflowing float64): the engine reports it as an input error (exit status 2)
    if _entry_point(comp) is None:
        return out
    bad = defined & ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise _broken("metric", comp, f"returned {float(values[i])!r} for query index {i}, which it marks defined; "
                                      "a defined value must be finite")
    return out


def _mask(family: str, comp: Any, out: Any, shape: tuple, what: str) -> np.ndarray:
    """``out`` as a ``bool`` array of ``shape`` (a run filter's, a rule's ``drops``)."""
    arr = out if isinstance(out, np.ndarray) else np.asarray(out)
    if arr.dtype != bool:
        raise _broken(family, comp, f"returned {what} of dtype {arr.dtype}; expected bool (True: the position "
                                    "leaves the ranking)")
    if arr.shape != shape:
        raise _broken(family, comp, f"returned {what} of shape {arr.shape}; expected {shape}")
    return arr


def _check_run_filter(family: str, comp: Any, out: Any, args: tuple) -> np.ndarray:
    return _mask(family, comp, out, (len(args[0].ranked.query),), "a mask")


def _check_drops(family: str, comp: Any, out: Any, args: tuple) -> np.ndarray:
    return _mask(family, comp, out, np.shape(args[0]), "a mask")


def _check_refusal(family: str, comp: Any, out: Any, args: tuple) -> Any:
    if out is None:
        return None
    if not (hasattr(out, "mask") and callable(getattr(out, "message", None))):
        raise _broken(family, comp, f"returned {type(out).__name__}; expected None or an "
                                    "evalkit.components.Refusal")
    _mask(family, comp, out.mask, np.shape(args[0]), "Refusal.mask")
    return out


def _check_reading(family: str, comp: Any, out: Any, args: tuple) -> np.ndarray:
    arr = _array(family, comp, out, np.shape(args[0]), "grades")
    return _finite(family, comp, arr, args[0], "grade")


def _check_outcome(family: str, comp: Any, out: Any, args: tuple) -> np.ndarray:
    values = args[0]
    arr = _array(family, comp, out, np.shape(values), "values")
    if _entry_point(comp) is None:
        return arr
    kept = ~np.isnan(values)
    bad = kept != np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        what = "a finite number" if kept[i] else "NaN (the query is left out)"
        raise _broken(family, comp, f"returned {float(arr[i])!r} for query index {i} whose value is "
                                    f"{float(values[i])!r}; expected {what}")
    return arr


def _check_aggregate(family: str, comp: Any, out: Any, args: tuple) -> np.ndarray:
    values = args[0]
    arr = _array(family, comp, out, np.shape(values)[:1], "aggregates")
    if _entry_point(comp) is None:
        return arr
    bad = (~np.isnan(values)).any(axis=-1) & ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise _broken(family, comp, f"returned {float(arr[i])!r} for system index {i}, which has included "
                                    "queries; expected a finite number")
    return arr


def _check_divergence(family: str, comp: Any, out: Any, args: tuple) -> np.ndarray:
    arr = out if isinstance(out, np.ndarray) else np.asarray(out, dtype=object)
    if arr.ndim != 1:
        raise _broken(family, comp, f"returned an array of shape {arr.shape}; expected the query ids, one dimension")
    return arr


_OUTPUT_CHECKS = {"gain": _check_elementwise, "discount": _check_elementwise, "idcg": _check_idcg,
                  "ties": _check_order, "metric": _check_metric, "run_filter": _check_run_filter,
                  "drops": _check_drops, "check": _check_refusal, "grades": _check_reading,
                  "negative": _check_reading, "outcome": _check_outcome, "aggregate": _check_aggregate,
                  "divergence": _check_divergence}


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
    ranking that holds negative gains)."""

    def call(ctx: Any) -> np.ndarray:
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


def nothing_evaluated(qrels: Qrels, run: Run) -> str:
    """The message saying that ``run`` shares no query with ``qrels``."""
    if len(qrels) == 0:
        return f"{qrels.source}: the qrels hold no judgment; nothing to evaluate"
    if len(run) == 0:
        return f"{run.source}: run {run.name!r} holds no result; nothing to evaluate"
    return (f"{run.source}: run {run.name!r} shares no query with the qrels ({qrels.source}); "
            "nothing to evaluate")


def require_common_queries(qrels: Qrels, runs: Any) -> None:
    """Raise :class:`~evalkit.errors.EvaluationError` unless every run shares at least
    one query with ``qrels``. Used by the command line and :func:`evalkit.run_config`, where an
    empty evaluation is a mistake (a wrong file, a qid format that differs); the
    library's :func:`evalkit.evaluate` only warns. Costs one pass over the query
    vocabularies (not the rows), through a hash set."""
    qids = set(qrels.qids.tolist())
    for run in runs:
        if not qids or len(run) == 0 or qids.isdisjoint(run.qids.tolist()):
            raise EvaluationError(nothing_evaluated(qrels, run))
