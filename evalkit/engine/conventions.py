"""The flavour conventions ``empty`` and ``missing`` applied to per-query values.

One implementation, used by :func:`evalkit.engine.evaluate.evaluate_problem` and by
:func:`evalkit.identify.identify` (which derives the ``empty`` x ``missing``
variants of a composition from one evaluation).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..errors import EvaluationError

#: What an undefined query (IDCG = 0) scores under each ``empty`` rule.
EMPTY_VALUE = {"zero": 0.0, "one": 1.0, "skip": np.nan}


def apply_conventions(
    values: np.ndarray,
    defined: np.ndarray,
    missing: np.ndarray,
    *,
    empty: str,
    missing_rule: str,
    error: Callable[[str, np.ndarray], Exception] | None = None,
) -> np.ndarray:
    """Per-query values after the ``empty`` and ``missing`` conventions.

    Rules (the flavour docstring, :mod:`evalkit.flavour`):

    * an undefined query (``defined`` false: no relevant judged document) scores
      ``0`` (``empty=zero``), ``1`` (``one``), ``NaN`` = left out of the mean
      (``skip``), or raises (``error``); under ``missing=skip`` a query absent from
      the run is not subject to ``empty`` (it is left out anyway);
    * a query absent from the run (``missing`` true) is left out (``missing=skip``,
      the default), scores 0 when defined (``zero``; an
      undefined one follows ``empty``), or raises (``error``).

    :param values: ``float64`` ``(..., q)`` metric values (read where defined).
    :param defined: ``bool``, same shape.
    :param missing: ``bool``, broadcastable to ``values``' shape.
    :param error: ``error(kind, mask)`` builds the exception raised for a rule set to
        ``error`` (``kind`` is ``"empty"`` or ``"missing"``, ``mask`` the offending
        queries); default: a plain :class:`EvaluationError`.
    :returns: a new ``float64`` array of ``values``' shape.
    :raises EvaluationError: (or ``error``'s exception) a rule set to ``error`` is hit.
    """
    out = np.array(values, dtype=np.float64)
    defined = np.asarray(defined, dtype=bool)
    missing = np.broadcast_to(np.asarray(missing, dtype=bool), out.shape)
    undefined = ~defined
    if missing_rule == "skip":
        undefined &= ~missing
    if undefined.any():
        if empty == "error":
            raise _error(error, "empty", undefined)
        out[undefined] = EMPTY_VALUE[empty]
    affected = missing & defined if missing_rule == "zero" else missing
    if affected.any():
        if missing_rule == "error":
            raise _error(error, "missing", affected)
        out[affected] = 0.0 if missing_rule == "zero" else np.nan
    return out


def _error(build: Any, kind: str, mask: np.ndarray) -> Exception:
    if build is not None:
        return build(kind, mask)
    what = "queries with no relevant judged document" if kind == "empty" else "qrels queries absent from the run"
    return EvaluationError(f"{int(mask.sum())} {what} (convention {kind}=error)")
