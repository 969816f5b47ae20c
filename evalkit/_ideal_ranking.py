""":class:`evalkit.kernel.IdealRanking`, defined when first used (issue 27): only
:func:`evalkit.kernel.trace_ideal` (``evalkit explain``) records ideal rankings, so an
evaluation never creates the dataclass. :mod:`evalkit.kernel` gives it by name (PEP 562);
its ``__module__`` is ``evalkit.kernel``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True, eq=False)  # arrays: compared by identity (no __eq__/__hash__ generated)
class IdealRanking:
    """An ideal ranking :func:`ideal_dcg` built, after the cutoff (all ``(p,)``):
    ``gain`` (``float64``, decreasing within a query), ``query`` (``int64`` segment),
    ``rank`` (1-based ``int64``) and ``discount`` (``float64``, the discount it used)."""

    __module__ = "evalkit.kernel"

    gain: np.ndarray
    query: np.ndarray
    rank: np.ndarray
    discount: np.ndarray
