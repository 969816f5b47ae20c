"""Built-in rank discounts (1-based rank -> multiplicative weight)."""

from __future__ import annotations

import numpy as np

from ..components import Discount, Param, declared, discount
from .._builtin_hookimpl import hookimpl
from typing import Any


@discount(
    "log2",
    formula="d(r) = 1 / log2(r + 1)",
    source="Burges et al. 2005; trec_eval m_ndcg.c ('i+2' for 0-based i)",
    description="the common discount: rank 1 undiscounted, then logarithmic",
)
def log2(ranks: np.ndarray) -> np.ndarray:
    return 1.0 / np.log2(ranks + 1.0)


@discount(
    "log",
    params=(Param("base", "float", 2.0, "logarithm base", minimum=1.0, exclusive_minimum=True),),
    formula="d(r) = 1 / log_base(r + 1)",
    source="scikit-learn dcg_score(log_base=...)",
    description="log discount with a configurable base (base 2 equals log2)",
    same_as="log2",
)
def log_base(ranks: np.ndarray, base: float) -> np.ndarray:
    """1/log_b(r+1) (scikit-learn's ``log_base``)."""
    return np.log(base) / np.log(ranks + 1.0)


@discount(
    "jarvelin",
    params=(Param("base", "float", 2.0, "patience base b", minimum=1.0, exclusive_minimum=True),),
    formula="d(r) = 1 if r < b else 1 / log_b(r)",
    source="Järvelin & Kekäläinen, ACM TOIS 20(4):422-446, 2002, eq. for DCG",
    description="original DCG discount: ranks below b undiscounted",
)
def jarvelin(ranks: np.ndarray, base: float) -> np.ndarray:
    r = ranks.astype(np.float64)
    out = np.ones(len(r))
    late = r >= base
    out[late] = np.log(base) / np.log(r[late])
    return out


@discount(
    "reciprocal",
    formula="d(r) = 1 / r",
    source="Zipfian discount: Kanoulas & Aslam, Empirical justification of the gain and discount function for nDCG, CIKM 2009, https://doi.org/10.1145/1645953.1646033",
    description="reciprocal rank discount",
)
def reciprocal(ranks: np.ndarray) -> np.ndarray:
    return 1.0 / ranks


@discount(
    "none",
    formula="d(r) = 1",
    source="cumulative gain (Järvelin & Kekäläinen 2002)",
    description="no discount: CG@k",
)
def none(ranks: np.ndarray) -> np.ndarray:
    return np.ones(len(ranks))


@discount(
    "natural",
    formula="d(r) = 1 / ln(r + e)",
    source="no published source: an example of a gentler decay than log2",
    description="gentle discount, slower decay than log2",
)
def natural(ranks: np.ndarray) -> np.ndarray:
    return 1.0 / np.log(ranks + np.e)


@hookimpl
def evalkit_register_discounts() -> Any:
    return declared(__name__, Discount)
