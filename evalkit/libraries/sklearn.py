"""scikit-learn (``sklearn.metrics.ndcg_score`` / ``dcg_score``): its presets and the
tie policy of ``ignore_ties=True`` (numpy's argsort reversed). scikit-learn's arrays
(``y_true``, ``y_score`` of shape ``(n_queries, n_documents)``) are read by
:mod:`evalkit.arrays`."""

from __future__ import annotations

import numpy as np

from ..columnar import distinct
from ..components import Preset, TiePolicy, declared, tie_policy
from .._builtin_hookimpl import hookimpl
from ..kernel import SortKeys
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from ..hookspecs import Register

_SK = "scikit-learn sklearn/metrics/_ranking.py"
#: what scikit-learn raises for y_true of one column (sklearn.ndcg_score / dcg_score presets)
_SK_ONE_DOC = ("ValueError: Computing NDCG is only meaningful when there is more than 1 document. "
               "Got 1 instead. (ndcg_score)")
_SK_ONE_COLUMN = ("ValueError: Only ('multilabel-indicator', 'continuous-multioutput', "
                  "'multiclass-multioutput') formats are supported. Got binary instead "
                  "(dcg_score: _check_dcg_target_type reads one column as a 1-D target; "
                  "'binary', 'multiclass' or 'continuous' after the values)")

@tie_policy(
    "numpy_argsort",
    formula="per query: np.argsort(scores in input order)[::-1]",
    source="scikit-learn metrics/_ranking.py _dcg_sample_scores(ignore_ties=True): "
               "ranking = np.argsort(y_score)[:, ::-1]",
    description="numpy's default argsort, reversed: tie order depends on the numpy build and CPU",
)
def numpy_argsort(keys: SortKeys) -> np.ndarray:
    """``np.argsort(scores)[::-1]`` per query, scores in input order (scikit-learn's
    ``ignore_ties=True``). Queries of equal length are sorted together as the rows of
    one 2-D array (numpy sorts each row independently), so the loop runs over
    distinct query lengths, never over queries."""
    base = keys.query_order()  # by query, then input order
    query = keys.query[base]
    n = len(base)
    if n == 0:
        return base
    starts = np.flatnonzero(np.r_[True, query[1:] != query[:-1]])
    lengths = np.diff(np.r_[starts, n])
    out = np.empty(n, dtype=np.int64)
    score = keys.score[base]
    for length in distinct(lengths):
        first = starts[lengths == length]
        idx = first[:, None] + np.arange(length)[None, :]  # (queries, length)
        order = np.argsort(score[idx], axis=1)[:, ::-1]
        out[idx] = base[np.take_along_axis(idx, order, axis=1)]
    return out


#: scikit-learn's presets
PRESETS: tuple[Preset, ...] = (
    # ------------------------------------------------------------------ scikit-learn
    Preset(
        name="sklearn.ndcg_score",
        spec="ndcg(gain=linear,discount=log2,idcg=returned,ties=average,negative=error)",
        description="scikit-learn ndcg_score (ignore_ties=False): LINEAR gain, 1/log2(r+1), "
                    "IDCG from the row's own labels, tied scores averaged; all-zero rows score 0; "
                    "a negative grade raises, as in scikit-learn (negative=error)",
        source=f"{_SK} ndcg_score, _ndcg_sample_scores, _dcg_sample_scores, _tie_averaged_dcg",
        native_name="ndcg_score(k={k})",
        min_documents=2,
        too_few_documents=_SK_ONE_DOC,
    ),
    Preset(
        name="sklearn.ndcg_score_ignore_ties",
        spec="ndcg(gain=linear,discount=log2,idcg=returned,ties=numpy_argsort,negative=error)",
        description="scikit-learn ndcg_score(ignore_ties=True): ranking = np.argsort(y_score)[:, ::-1] "
                    "(tie order is numpy's, CPU-dependent)",
        source=f"{_SK} _dcg_sample_scores ('ranking = np.argsort(y_score)[:, ::-1]')",
        native_name="ndcg_score(k={k},ignore_ties=True)",
        min_documents=2,
        too_few_documents=_SK_ONE_DOC,
    ),
    Preset(
        name="sklearn.dcg_score",
        spec="dcg(gain=linear,discount=log2,ties=average,negative=gain)",
        description="scikit-learn dcg_score (log_base=2, ignore_ties=False): a negative grade is a "
                    "negative linear gain (negative=gain); other bases: "
                    "dcg(discount=log(base=b),ties=average,negative=gain)",
        source=f"{_SK} dcg_score, _dcg_sample_scores ('discount = 1 / (np.log(np.arange(n) + 2) "
               "/ np.log(log_base))'), _tie_averaged_dcg",
        native_name="dcg_score(k={k})",
        min_documents=2,
        too_few_documents=_SK_ONE_COLUMN,
    ),
    Preset(
        name="sklearn.dcg_score_ignore_ties",
        spec="dcg(gain=linear,discount=log2,ties=numpy_argsort,negative=gain)",
        description="scikit-learn dcg_score(ignore_ties=True); negative grades are negative gains",
        source=f"{_SK} _dcg_sample_scores",
        native_name="dcg_score(k={k},ignore_ties=True)",
        min_documents=2,
        too_few_documents=_SK_ONE_COLUMN,
    ),
)


@hookimpl
def evalkit_register_tie_policies() -> Any:
    return declared(__name__, TiePolicy)


@hookimpl
def evalkit_register_presets(register: Register) -> None:
    for preset in PRESETS:
        register(preset)
