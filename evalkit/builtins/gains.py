"""Built-in gain functions (relevance grade -> gain).

The engine gives unjudged documents and negative grades gain 0 before these run
(trec_eval: negative grades mark judged-non-relevant / unjudged-in-pool documents).
"""

from __future__ import annotations

import numpy as np

from ..components import Gain, Param, declared, gain
from .._builtin_hookimpl import hookimpl
from typing import Any


@gain(
    "linear",
    formula="g(rel) = rel",
    source="Järvelin & Kekäläinen, ACM TOIS 20(4), 2002; trec_eval m_ndcg.c",
    description="the grade itself (trec_eval, scikit-learn, ranx 'ndcg')",
)
def linear(grades: np.ndarray) -> np.ndarray:
    return grades.astype(np.float64, copy=True)


@gain(
    "exp2",
    formula="g(rel) = 2^rel - 1",
    source="Burges et al., ICML 2005 (RankNet); LightGBM, XGBoost, gdeval, ranx 'ndcg_burges'",
    description="exponential gain that amplifies high grades",
)
def exp2(grades: np.ndarray) -> np.ndarray:
    return np.exp2(grades) - 1.0


#: the default threshold of ``binary``: the smallest positive float64, so that
#: ``rel >= threshold`` is ``rel > 0`` for every real grade (Spark MLlib's binary NDCG: an
#: item of the ground-truth set, i.e. a positive grade, gains 1; for integer grades the same
#: as ``threshold=1``)
POSITIVE = float(np.nextafter(0.0, 1.0))


@gain(
    "binary",
    params=(Param("threshold", "float", POSITIVE, "smallest grade that counts as relevant (default: "
                  "every positive grade, rel > 0)"),),
    formula="g(rel) = 1 if rel >= threshold else 0 (default: 1 if rel > 0 else 0)",
    source=("apache/spark mllib/src/main/scala/org/apache/spark/mllib/evaluation/RankingMetrics.scala "
            "ndcgAt (relevance values absent: an item of the ground-truth set has gain 1); "
            "implicit evaluation.pyx ndcg_at_k (a test item is relevant); sentence-transformers "
            "information_retrieval.py:541 (1 if corpus_id in relevant_docs); RecBole "
            "evaluator/metrics.py NDCG; Elliot and recommenders at threshold 0 (every test item)"),
    description="binary relevance at a threshold (default: every positive grade gains 1)",
)
def binary(grades: np.ndarray, threshold: float = POSITIVE) -> np.ndarray:
    """``grades``: ``float64`` array of any shape; returns ``float64`` 0/1 of the same shape."""
    return (grades >= threshold).astype(np.float64)


@gain(
    "map",
    numeric_keys="grade=gain pairs, e.g. map(1=3,2=9,4=4.5)",
    formula="g(rel) = table[rel] if rel in table else rel",
    source="trec_eval -m ndcg.1=3,2=9 (m_ndcg.c setup_gains): unlisted grades keep their value",
    description="grade -> gain table; grades not in the table keep their linear gain",
)
def table_gain(grades: np.ndarray, table: dict[float, float]) -> np.ndarray:
    """``table``: ``{grade: gain}`` (``float`` keys and values), built from the numeric keys."""
    out = grades.astype(np.float64, copy=True)
    for grade, gain_value in table.items():
        out[grades == grade] = gain_value
    return out


@hookimpl
def evalkit_register_gains() -> Any:
    return declared(__name__, Gain)
