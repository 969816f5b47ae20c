"""Rounding of metric values to a number of decimals, as the libraries that report
rounded numbers do it (the flavour conventions ``round``, ``round_mean`` and
``rounding``, :mod:`evalkit.flavour`)."""

from __future__ import annotations

import numpy as np

__all__ = ["round_decimals", "round_means"]


def round_decimals(values: np.ndarray, decimals: int | None, mode: str = "half_even") -> np.ndarray:
    """``values`` rounded to ``decimals`` decimals (``NaN`` stays ``NaN``).

    * ``half_even``: ``np.round`` (a half goes to the even digit). Python's
      ``round(x, d)`` (BEIR ``evaluation.py:112``, MTEB) rounds the exact binary value
      correctly instead; the two differ only when ``x * 10^d`` lands within one ulp of a
      half, which ``np.round`` resolves after scaling.
    * ``half_up``: ``floor(x * 10^d + 0.5) / 10^d`` (Java ``Math.round(x * 100) / 100.0``,
      OpenSearch search-relevance's per-query rounding).

    :param values: ``float64`` array of any shape.
    :param decimals: ``None`` returns ``values`` unchanged.
    :returns: a new ``float64`` array of the same shape.
    """
    values = np.asarray(values, dtype=np.float64)
    if decimals is None:
        return values
    if mode == "half_up":
        scale = 10.0 ** decimals
        return np.floor(values * scale + 0.5) / scale
    if mode != "half_even":
        raise ValueError(f"rounding must be half_even or half_up, got {mode!r}")
    return np.round(values, decimals)


def round_means(means: np.ndarray, decimals: int | None, mode: str = "half_even") -> np.ndarray:
    """Means over queries (a few values: one per system) rounded as the libraries round
    them: ``half_even`` calls Python's ``round(x, decimals)`` on each value, exactly as
    BEIR (``evaluation.py:112``) and MTEB (``retrieval_metrics.py:519``) do (correct
    rounding of the binary value, which ``np.round``'s scaling can miss by one unit);
    ``half_up`` as :func:`round_decimals`.

    :param means: ``float64`` array of any shape (``NaN`` stays ``NaN``).
    :returns: a new ``float64`` array of the same shape.
    """
    means = np.asarray(means, dtype=np.float64)
    if decimals is None or mode != "half_even":
        return round_decimals(means, decimals, mode)
    return np.array([x if np.isnan(x) else round(float(x), decimals) for x in means.ravel()],
                    dtype=np.float64).reshape(means.shape)
