"""Built-in gain functions (relevance grade -> gain).

The engine gives unjudged documents and negative grades gain 0 before these run
(trec_eval: negative grades mark judged-non-relevant / unjudged-in-pool documents).
"""

from __future__ import annotations

import numpy as np

from ..components import Gain
from ..hookspecs import hookimpl


def linear(grades: np.ndarray) -> np.ndarray:
    return grades.astype(np.float64, copy=True)


def exp2(grades: np.ndarray) -> np.ndarray:
    return np.exp2(grades) - 1.0


def table_gain(grades: np.ndarray, table: dict[float, float]) -> np.ndarray:
    out = grades.astype(np.float64, copy=True)
    for grade, gain in table.items():
        out[grades == grade] = gain
    return out


@hookimpl
def evalkit_register_gains(register):
    register(Gain(
        name="linear",
        fn=linear,
        formula="g(rel) = rel",
        source="Järvelin & Kekäläinen, ACM TOIS 20(4), 2002; trec_eval m_ndcg.c",
        description="the grade itself (trec_eval, scikit-learn, ranx 'ndcg')",
    ))
    register(Gain(
        name="exp2",
        fn=exp2,
        formula="g(rel) = 2^rel - 1",
        source="Burges et al., ICML 2005 (RankNet); LightGBM, XGBoost, gdeval, ranx 'ndcg_burges'",
        description="exponential gain that amplifies high grades",
    ))
    register(Gain(
        name="map",
        fn=table_gain,
        numeric_keys="grade=gain pairs, e.g. map(1=3,2=9,4=4.5)",
        formula="g(rel) = table[rel] if rel in table else rel",
        source="trec_eval -m ndcg.1=3,2=9 (m_ndcg.c setup_gains): unlisted grades keep their value",
        description="grade -> gain table; grades not in the table keep their linear gain",
    ))
