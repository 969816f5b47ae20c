"""The ``grades`` convention: the judged grades a flavour accepts, and the grade its
gain sees, as a learning-to-rank library reads its labels.

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

from ..errors import InvalidGradeError
from ..float32 import scores_as_float32
from .checks import format_number

#: The values of the ``grades`` convention that refuse grades.
GRADE_RULES = ("lightgbm", "xgboost", "gdeval")

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


def refused(rule: str, grades: np.ndarray) -> tuple[np.ndarray, str] | None:
    """The grades ``rule`` refuses and the library's message: ``(mask, message)`` for
    the first reason that applies to any grade, or ``None`` when every grade passes.

    :param grades: ``float64`` ``(m,)`` judged grades (``NaN``: unjudged, never refused).
    """
    judged = ~np.isnan(grades)
    if rule == "gdeval":
        tests = _gdeval_refusals(grades)
    else:
        label = scores_as_float32(grades)  # both libraries hold labels as float32
        tests = _lightgbm_refusals(label) if rule == "lightgbm" else _xgboost_refusals(label)
    for mask, message in tests:
        mask = mask & judged
        if mask.any():
            return mask, message
    return None


def refuses(rule: str, grades: np.ndarray) -> bool:
    """Whether ``rule`` refuses any of ``grades`` (``float64``, ``NaN`` unjudged);
    ``any`` refuses nothing."""
    return rule in GRADE_RULES and refused(rule, np.asarray(grades, dtype=np.float64)) is not None


def check_grades(problem, flavour, first_of) -> None:
    """Raise if the flavour's ``grades`` rule refuses a judged grade of ``problem``.

    :param first_of: ``first_of(mask) -> index`` of the first flagged judged grade in
        sorted qid order (:func:`evalkit.engine.evaluate.first_judgment`).
    :raises InvalidGradeError: naming the grade, the rule and the library's own
        message; :func:`evalkit.evaluate` and :func:`evalkit.arrays.score` add where it
        was judged.
    """
    rule = flavour.convention("grades")
    if rule not in GRADE_RULES:
        return
    hit = refused(rule, problem.judged_grade)
    if hit is None:
        return
    mask, message = hit
    v = float(problem.judged_grade[first_of(mask)])
    label = scores_as_float32(np.float64(v))[()]  # the float32 label; beyond its range: inf
    shown = str(int(label)) if message.startswith("Label {v}") else f"{label:f}"  # %zu, else %f
    raise InvalidGradeError(
        v, f"grade {format_number(v)} is refused under grades={rule}: {_SOURCES[rule]} stops with "
           f"\"{message.format(v=shown, line='N')}\" ({int(mask.sum())} such judgment(s))", f"{flavour}: ")


def library_grade(gain, rule: str):
    """``gain`` given the grade as the library reads it: unchanged under ``gdeval``;
    ``float32(grade)`` under ``float32``; ``floor(float32(grade))`` under ``lightgbm`` / ``xgboost``, the integer
    LightGBM (whose accepted ``float32`` labels are integers) and XGBoost (``uint32``
    conversion) compute their gain from, for grades the rule accepts (>= 0, below 2^32)."""
    if rule == "gdeval":  # Perl reads the integer text: the gain sees the grade itself
        return gain

    def read(grade: np.ndarray) -> np.ndarray:
        label = scores_as_float32(grade)
        return gain((label if rule == "float32" else np.floor(label)).astype(np.float64))
    return read
