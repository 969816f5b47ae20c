"""How learning-to-rank libraries and gdeval.pl read relevance labels: the grade rules
(family ``grades``) of the LightGBM, XGBoost and gdeval presets.

Grade rules (``grades=``): the judged grades a flavour accepts, and the grade its gain
sees, as a learning-to-rank library reads its labels.

LightGBM and XGBoost store labels as 32-bit floats and refuse, with a fatal error,
labels their exponential gain has no value for; a preset that reproduces them must
refuse the same grades (and give the same number for every grade they accept):

* ``lightgbm``: LightGBM 4.7 ``DCGCalculator::CheckLabel``
  (src/metric/dcg_calculator.cpp:155-171; ``label_t`` = ``float``, ``kEpsilon`` =
  1e-15f, include/LightGBM/meta.h:47, :54): a label is refused
  when it is not an integer (``|label - (int)label| > kEpsilon``; a label beyond the
  ``int`` range fails this test too), when it is negative, or when it is at least the
  number of ``label_gain`` entries, 31 by default (``DefaultLabelGain``, :38-42). The
  grades accepted are the integers 0..30 after rounding to ``float32`` (2.00000001 is
  read as 2; 30.999999999 as 31, refused).
* ``xgboost``: XGBoost 3.2 ``CheckNDCGLabels`` with ``ndcg_exp_gain=true``
  (src/common/ranking_utils.h:356-376, ``kRtEps`` = 1e-6f in include/xgboost/base.h):
  first every label must be within 1e-6 above its floor and not negative, then its
  conversion to ``uint32`` (``rel_degree_t``) must be at most 31 (``MaxRel``); the gain
  is ``(1u << label) - 1`` of that ``uint32`` (:42-44), i.e. of the floor. A
  ``float32`` label of 2^32 or more passes XGBoost's test only through an undefined
  ``float`` to ``uint32`` conversion; evalkit refuses it.

Under either rule the gain function is given ``floor(float32(grade))``: the integer
the library computes its gain from. The check covers every judged grade of the qrels
(as ``negative=error`` does), before the metric runs; one vectorised pass.

* ``gdeval``: gdeval.pl 1.2a (the TREC Web track's, as ir_measures 0.4.3 ships it in
  ``bin/gdeval.pl``) dies with ``format error on line N`` of the qrels unless a judgment
  matches ``/^-?[0-9]+$/`` and is at most ``$MAX_JUDGMENT`` = 4 (gdeval.pl lines 16,
  39-42): a grade that is not an integer, or above 4, is refused. An accepted grade is
  the integer Perl reads: the gain sees it unchanged.

* ``float32``: every grade is accepted and the gain function is given
  ``float32(grade)`` (as ``float64``): XGBoost with ``ndcg_exp_gain=false`` checks no
  label and takes the ``float`` label itself as the gain (src/metric/rank_metric.cc:386-389,
  src/common/ranking_utils.cc:104-106), so a grade of 0.1 counts 0.100000001490116.
"""

from __future__ import annotations

import numpy as np

from ..components import GradeRule, Refusal, declared, grade_rule
from ..errors import InvalidGradeError
from ..float32 import scores_as_float32
from .._builtin_hookimpl import hookimpl
from typing import Any

_LIGHTGBM = "microsoft/LightGBM v4.7.0 src/metric/dcg_calculator.cpp:155-171 CheckLabel"
_XGBOOST = "dmlc/xgboost v3.2.0 src/common/ranking_utils.h:356-376 CheckNDCGLabels"
_GDEVAL = ("gdeval.pl 1.2a (ir_measures 0.4.3 bin/gdeval.pl) lines 16 ($MAX_JUDGMENT = 4), 39-42 "
           "(the judgment must match /^-?[0-9]+$/ and be <= $MAX_JUDGMENT)")
_SOURCES = {"lightgbm": _LIGHTGBM, "xgboost": _XGBOOST, "gdeval": _GDEVAL}
_XGB_EPS = np.float32(1e-6)  # kRtEps, include/xgboost/base.h


def _lightgbm_refusals(label: np.ndarray) -> list[tuple[np.ndarray, str]]:
    """``(mask, LightGBM's message)`` per reason, in the order CheckLabel tests a label."""
    finite = np.isfinite(label)
    whole = finite & (np.abs(label) < 2.0**31)  # static_cast<int> is defined
    integer = whole & (label == np.floor(label))
    return [
        (~integer, "label should be int type (met {v}) for ranking task, for the gain of label, please "
                   "set the label_gain parameter"),
        (integer & (label < 0), "Label should be non-negative (met {v}) for ranking task"),
        (integer & (label >= 31), "Label {v} is not less than the number of label mappings (31)"),
    ]


def _xgboost_refusals(label: np.ndarray) -> list[tuple[np.ndarray, str]]:
    """``(mask, XGBoost's message)``: the integer test over every label first, then the
    range test (CheckNDCGLabels runs two passes)."""
    with np.errstate(invalid="ignore"):
        floor = np.floor(label)
        not_integer = ~(np.abs(floor - label) <= _XGB_EPS) | (label < 0)  # NaN-safe: inf fails
    return [
        (not_integer, "When using relevance degree as target, label must be either 0 or positive integer."),
        (~not_integer & (floor > 31), "Relevance degress must be lesser than or equal to 31 when the "
                                      "exponential NDCG gain function is used. Set `ndcg_exp_gain` to "
                                      "false to use custom DCG gain."),
    ]


def _gdeval_refusals(grade: np.ndarray) -> list[tuple[np.ndarray, str]]:
    """``(mask, gdeval.pl's message)``: one test, as gdeval.pl checks a qrels line (on the
    ``float64`` grade: Perl reads the text, not a ``float32`` label)."""
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(grade) & (grade == np.floor(grade)) & (grade <= 4)
    return [(~ok, 'format error on line {line} of "QRELS"')]




def _format(v: float) -> str:
    """A grade for a message: an integer without a decimal point or exponent (as the
    engine's messages write grades)."""
    v = float(v)
    return str(int(v)) if v.is_integer() and abs(v) < 1e30 else repr(v)


def _refusal(rule: str, tests: list[tuple[np.ndarray, str]], grades: np.ndarray) -> Refusal | None:
    """The first reason of ``tests`` that applies to a judged grade, as a :class:`Refusal`
    whose message names the grade, the rule and the library's own message."""
    judged = ~np.isnan(grades)
    for mask, message in tests:
        mask = mask & judged
        if mask.any():
            def describe(v: float, count: int, message: str = message) -> str:
                label = scores_as_float32(np.float64(v))[()]  # the float32 label; beyond its range: inf
                shown = str(int(label)) if message.startswith("Label {v}") else f"{label:f}"  # %zu, else %f
                return (f"grade {_format(v)} is refused under grades={rule}: {_SOURCES[rule]} stops with "
                        f"\"{message.format(v=shown, line='N')}\" ({count} such judgment(s))")
            return Refusal(mask, describe, InvalidGradeError)
    return None


def _check_lightgbm(grades: np.ndarray) -> Refusal | None:
    return _refusal("lightgbm", _lightgbm_refusals(scores_as_float32(grades)), grades)


def _check_xgboost(grades: np.ndarray) -> Refusal | None:
    return _refusal("xgboost", _xgboost_refusals(scores_as_float32(grades)), grades)


def _check_gdeval(grades: np.ndarray) -> Refusal | None:
    return _refusal("gdeval", _gdeval_refusals(grades), grades)


_INTEGER_LABEL = ("grades the library refuses as labels stop the evaluation; the gain reads floor(float32(grade)), "
                  "the integer the library's gain reads")


@grade_rule("lightgbm", formula="integers 0..30 as float32; the gain reads floor(float32(grade))",
            description="LightGBM's labels: integers 0..30 (as float32), others refused",
            source=_LIGHTGBM, check=_check_lightgbm, reads_grades=True, note=_INTEGER_LABEL)
def lightgbm(grades: np.ndarray) -> np.ndarray:
    return np.floor(scores_as_float32(grades)).astype(np.float64)


@grade_rule("xgboost", formula="within 1e-6 above an integer 0..31 as float32; the gain reads floor(float32(grade))",
            description="XGBoost's labels with ndcg_exp_gain=true: within 1e-6 above an integer 0..31",
            source=_XGBOOST, check=_check_xgboost, reads_grades=True, note=_INTEGER_LABEL)
def xgboost(grades: np.ndarray) -> np.ndarray:
    return np.floor(scores_as_float32(grades)).astype(np.float64)


@grade_rule("gdeval", formula="integers at most 4; the gain reads the grade",
            description="gdeval.pl's judgments: integers at most 4 ($MAX_JUDGMENT), others refused",
            source=_GDEVAL, check=_check_gdeval,
            note="a grade that is not an integer or is above 4 stops the evaluation, as gdeval.pl stops; the "
                 "gain reads the grade itself")
def gdeval(grades: np.ndarray) -> np.ndarray:
    return grades


@grade_rule("float32", formula="any grade; the gain reads float32(grade)",
            description="every grade accepted, the gain reads it rounded to float32 (XGBoost ndcg_exp_gain=false)",
            source="dmlc/xgboost v3.2.0 src/metric/rank_metric.cc:386-389, src/common/ranking_utils.cc:104-106",
            reads_grades=True, note="the gain reads each grade as a 32-bit float (XGBoost's labels)")
def float32(grades: np.ndarray) -> np.ndarray:
    return scores_as_float32(grades).astype(np.float64)



@hookimpl
def evalkit_register_grade_rules() -> Any:
    return declared(__name__, GradeRule)
