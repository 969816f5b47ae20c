"""The generic components of the stage families (docs/architecture.md): negative-grade
rules, the default grade rule, run filters, per-query outcomes and aggregates.

Library-specific components of these families (LightGBM's and XGBoost's label rules,
gdeval's, MTEB's stable first-result filter) live in
:mod:`evalkit.libraries.label_rules` (grade rules) and the other library modules, with their citations.
"""

from __future__ import annotations

import numpy as np

from ..components import (Aggregate, GradeRule, NegativeRule, Outcome, Param, Refusal, RunFilter, RunFilterInput,
                          aggregate, declared, grade_rule, negative_rule, outcome, run_filter)
from ..errors import NegativeGradeError
from .._builtin_hookimpl import hookimpl
from ..rounding import round_decimals, round_means
from typing import Any

_ROUNDING = Param(
    "rounding", "str", "half_even",
    "how halves are broken: half_even (Python round, numpy) or half_up (Java Math.round, BigDecimal HALF_UP)",
    choices=("half_even", "half_up"),
)
_DECIMALS = Param("decimals", "int", None, "number of decimals", minimum=0, maximum=15)


# ---------------------------------------------------------------- grades
@grade_rule("any", formula="every grade accepted; the gain reads it as it is",
            description="every judged grade accepted as it is (trec_eval)", source="trec_eval 9.0.8 (any number)")
def any_grade(grades: np.ndarray) -> np.ndarray:
    return grades


# ---------------------------------------------------------------- negative grades
def _format(v: float) -> str:
    """A grade for a message: an integer without a decimal point or exponent (as the
    engine's messages write grades)."""
    v = float(v)
    return str(int(v)) if v.is_integer() and abs(v) < 1e30 else repr(v)


@negative_rule("zero", formula="negative grade -> gain 0, out of the ideal ranking; judged non-relevant",
               description="a negative grade is a judged non-relevant document (gain 0)",
               source="trec_eval 9.0.8 (a negative grade is not relevant; -J counts it as unjudged)")
def negative_zero(grades: np.ndarray) -> np.ndarray:
    return grades


@negative_rule("gain", formula="negative grade -> gain(grade), which may be negative",
               description="negative grades go through the gain function like any grade",
               source="scikit-learn sklearn/metrics/_ranking.py _dcg_sample_scores (y_true[ranking] * discount); "
                      "CatBoost catboost/libs/metrics/dcg.cpp CalcIDcg",
               negative_gain=True,
               note="negative grades go through the gain function (scikit-learn dcg_score; CatBoost and "
                    "torchmetrics NDCG)")
def negative_gain(grades: np.ndarray) -> np.ndarray:
    return grades


def _refuse_negative(grades: np.ndarray) -> Refusal | None:
    neg = grades < 0  # False for NaN (unjudged)
    if not neg.any():
        return None
    return Refusal(neg, lambda v, count: (
        f"grade {_format(v)} is negative and the flavour has negative=error ({count} negative judgment(s); "
        "scikit-learn's ndcg_score refuses negative labels, and the presets that reproduce it; see the "
        "preset's description in `evalkit flavours --verbose`)"), NegativeGradeError)


@negative_rule("error", formula="a negative grade stops the evaluation",
               description="a negative judged grade is refused",
               source="scikit-learn sklearn/metrics/_ranking.py ndcg_score: \"ndcg_score should not be used on "
                      "negative y_true values.\"",
               check=_refuse_negative,
               note="a negative grade in the qrels is refused (scikit-learn ndcg_score)")
def negative_error(grades: np.ndarray) -> np.ndarray:
    return grades


def _negative_positions(grades: np.ndarray) -> np.ndarray:
    return grades < 0  # False for NaN (unjudged)


@negative_rule("drop", formula="a document with a negative grade leaves the ranking and the ideal",
               description="documents with a negative grade leave the ranking and the ideal ranking, the "
                           "documents below them move up",
               source="TF-Ranking tensorflow_ranking/python/metrics_impl.py _prepare_and_validate_params, "
                      "utils.py is_label_valid",
               drops=_negative_positions,
               note="documents with a negative grade leave the ranking and the ideal, the documents below "
                    "them move up (TF-Ranking's invalid labels, allRank's padding -1)")
def negative_drop(grades: np.ndarray) -> np.ndarray:
    return grades


# ---------------------------------------------------------------- run filters
@run_filter("none", formula="keep every document", description="no document is removed from the run")
def no_filter(inp: RunFilterInput) -> np.ndarray:
    return np.zeros(len(inp.ranked.query), dtype=bool)


@run_filter("first", formula="drop rank 1 after sorting, renumber",
            description="each query's first document after sorting leaves the run",
            note="each query's first document after sorting is dropped and the ranks renumbered")
def first(inp: RunFilterInput) -> np.ndarray:
    return np.asarray(inp.ranked.rank == 1, dtype=bool)


@run_filter("query_id", formula="drop documents whose docno equals the qid",
            description="documents whose docno equals the query id leave the run (the query stays)",
            source="BEIR beir/retrieval/evaluation.py evaluate(ignore_identical_ids=True)",
            note="documents whose docno equals the query id are dropped (BEIR ignore_identical_ids)")
def query_id(inp: RunFilterInput) -> np.ndarray:
    return np.asarray(inp.docno == inp.qid, dtype=bool)


@run_filter("unjudged", formula="drop documents absent from the qrels; a query left empty is absent",
            description="documents absent from the qrels leave the run; a query left with none counts as "
                        "absent from the run",
            source="Pyserini trec_eval -remove-unjudged (pyserini/eval/trec_eval.py)",
            empties_query=True,
            note="documents absent from the qrels are dropped; a query left with none is absent from the run "
                 "(Pyserini -remove-unjudged)")
def unjudged(inp: RunFilterInput) -> np.ndarray:
    return np.isnan(inp.ranked.grade)


# ---------------------------------------------------------------- outcomes
@outcome("value", formula="v", description="the metric's value")
def value(values: np.ndarray) -> np.ndarray:
    return values


@outcome("complement", formula="1 - v", description="each query scores 1 - value",
         source="TorchRec torchrec/metrics/ndcg.py (report_ndcg_as_decreasing_curve=True)",
         note="each query scores 1 - value (TorchRec reports 1 - NDCG)")
def complement(values: np.ndarray) -> np.ndarray:
    return 1.0 - values


@outcome("round", params=(_DECIMALS, _ROUNDING,
                          Param("complement", "str", "no", "yes: round 1 - value", choices=("no", "yes"))),
         formula="round(v, decimals) (of 1 - v with complement=yes)",
         description="each query's value rounded to a number of decimals",
         source="OpenSearch search-relevance (Java Math.round(x * 100) / 100.0): rounding=half_up",
         note="each query's value is rounded before the mean")
def round_each(values: np.ndarray, decimals: int, rounding: str = "half_even", complement: str = "no") -> np.ndarray:
    return round_decimals(1.0 - values if complement == "yes" else values, decimals, rounding)


# ---------------------------------------------------------------- aggregates
def _mean(values: np.ndarray) -> np.ndarray:
    counts = (~np.isnan(values)).sum(axis=-1)
    out = np.full(counts.shape, np.nan)
    np.divide(np.nansum(values, axis=-1), counts, out=out, where=counts > 0)
    return out


@aggregate("mean", formula="sum of included values / number of included queries",
           description="the arithmetic mean over the included queries")
def mean(values: np.ndarray) -> np.ndarray:
    return _mean(values)


@aggregate("round_mean", params=(_DECIMALS, _ROUNDING), formula="round(mean, decimals)",
           description="the mean over the included queries rounded to a number of decimals",
           source="BEIR beir/retrieval/evaluation.py:112 and MTEB retrieval_metrics.py:519 (Python round)",
           note="the mean over queries is rounded")
def round_mean(values: np.ndarray, decimals: int, rounding: str = "half_even") -> np.ndarray:
    return round_means(_mean(values), decimals, rounding)


@aggregate("gmean", formula="exp(mean(log(max(v, 1e-5))))",
           description="the geometric mean over the included queries, each value floored at 1e-5",
           source="usnistgov/trec_eval v10.0 meas_avg.c te_calc_avg_meas_s_gm (MIN_GEO_MEAN 0.00001): "
                  "gm_map, gm_bpref",
           note="the run's value is the geometric mean of max(v, 1e-5) over queries",
           tried_by_identify=False)  # no library reports a geometric mean of NDCG
def gmean(values: np.ndarray) -> np.ndarray:
    counts = (~np.isnan(values)).sum(axis=-1)
    logs = np.log(np.maximum(values, 1e-5))  # NaN (left out) stays NaN
    out = np.full(counts.shape, np.nan)
    np.divide(np.nansum(logs, axis=-1), counts, out=out, where=counts > 0)
    return np.exp(out)


@aggregate("sum", formula="sum of included values",
           description="the sum over the included queries (NaN when none is included)",
           source="usnistgov/trec_eval v10.0 meas_avg.c te_calc_avg_meas_empty: num_q, num_ret, num_rel, "
                  "num_rel_ret",
           note="the run's value is the sum over queries",
           tried_by_identify=False)  # no library reports a sum of NDCG
def sum_(values: np.ndarray) -> np.ndarray:
    counts = (~np.isnan(values)).sum(axis=-1)
    return np.where(counts > 0, np.nansum(values, axis=-1), np.nan)


@hookimpl
def evalkit_register_grade_rules() -> Any:
    return declared(__name__, GradeRule)


@hookimpl
def evalkit_register_negative_rules() -> Any:
    return declared(__name__, NegativeRule)


@hookimpl
def evalkit_register_run_filters() -> Any:
    return declared(__name__, RunFilter)


@hookimpl
def evalkit_register_outcomes() -> Any:
    return declared(__name__, Outcome)


@hookimpl
def evalkit_register_aggregates() -> Any:
    return declared(__name__, Aggregate)
