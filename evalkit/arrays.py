"""Array entry point in scikit-learn's convention, for learning-to-rank and
recommender evaluation without files.

>>> import numpy as np, evalkit.arrays as ea
>>> y_true = np.array([[3, 2, 3, 0, 1, 2, 0, 1]])
>>> y_score = np.array([[.6, .2, .8, .4, .1, .3, .05, .7]])
>>> ea.score(y_true, y_score, k=5).round(4)  # scikit-learn's ndcg_score (linear gain)
array([0.8269])
"""

from __future__ import annotations

import sys

import numpy as np

from .columnar import offsets_from_sorted
from .engine.checks import ComponentOutputError, format_number
from .engine.evaluate import evaluate_problem, resolve
from .engine.memory import without_hugepage_advice
from .engine.problem import Problem
from .engine.ranking import SortKeys
from .errors import ArgumentError, EvalkitError, EvaluationError, InvalidGradeError
from .flavour import Flavour
from .registry import registry_or_default
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from .registry import Registry

#: scikit-learn's ``ndcg_score`` (``ignore_ties=False``), the ``sklearn.ndcg_score``
#: preset: linear gain, log2 discount, ties averaged, IDCG from the row's returned
#: documents, so a NaN-padded position is not a document at all (its grade, if any,
#: is ignored), as scikit-learn scores the unpadded row.
SKLEARN_NDCG = "sklearn.ndcg_score"


@without_hugepage_advice
def score(y_true: Any, y_score: Any, *, k: int | None = None, flavour: str | Flavour = SKLEARN_NDCG,
          registry: Registry | None = None) -> np.ndarray:
    """Per-query metric values from dense arrays.

    :param y_true: relevance grades, shape ``(n_queries, n_docs)``, any real dtype.
        ``NaN`` marks an unjudged document (gain 0, not in the ideal ranking).
    :param y_score: scores, same shape; higher ranks first. ``NaN`` marks padding: the
        document was not returned (use it for queries with fewer documents). Under the
        default flavour a padded position is ignored, grade included (scikit-learn's
        ``ndcg_score`` of the unpadded row); under an ``idcg=judged`` flavour its grade
        still enters the ideal ranking (judged, not returned).
    :param k: cutoff; overrides any ``@k`` in ``flavour``. ``None`` keeps the flavour's.
    :param flavour: flavour string, :class:`Flavour` or preset. The default reproduces
        scikit-learn's ``ndcg_score``. Under the ``trec_eval`` tie policy, ties are broken
        by column index descending (the column index plays the docno's role).
    :returns: ``float64`` of shape ``(n_queries,)``; ``NaN`` where the flavour's
        ``empty=skip`` convention leaves a query out.
    :raises ArgumentError: (a ``ValueError`` and ``TypeError``) shapes differ, arrays are not
        2-D, an array is masked, complex, of strings, or holds infinities, ``k`` is not
        an integer; the ``sklearn.*`` presets (the default) and one document column, which
        scikit-learn refuses ("Computing NDCG is only meaningful when there is more than 1
        document"). A negative ``y_true`` follows the flavour's ``negative`` convention:
        by default a judged non-relevant document (gain 0, as in trec_eval); the
        ``sklearn.dcg_score`` presets give it its linear gain and the
        ``sklearn.ndcg_score`` presets refuse it, as scikit-learn does.
    :raises NegativeGradeError: (an :class:`EvaluationError`) ``negative=error`` and a
        ``y_true`` is negative, naming the row and column.
    :raises InvalidGradeError: ``grades=lightgbm`` / ``grades=xgboost`` (the
        ``lightgbm.*``, ``xgboost.ndcg*`` presets) and a ``y_true`` the library refuses as
        a label (not an integer, negative, or too large), naming the row and column.
    :raises ComponentOutputError: a gain overflows (``exp2`` of a grade >= 1024), naming
        the row and column.
    :raises FlavourError: the flavour or ``k`` is invalid (``k`` above
        :data:`evalkit.flavour.MAX_CUTOFF`).
    :raises RankColumnError: the flavour's tie policy orders by a rank column
        (``ties=rank``, ``ndeval.*``): arrays have none.
    """
    y_true = _real_array(y_true, "y_true")
    y_score = _real_array(y_score, "y_score")
    if y_true.ndim == 1 and y_score.ndim == 1:
        y_true, y_score = y_true[None, :], y_score[None, :]
    if y_true.shape != y_score.shape or y_true.ndim != 2:
        raise ArgumentError(f"y_true and y_score must be 2-D of equal shape; got {y_true.shape} and {y_score.shape}")
    # one pass each when every value is finite (no padding, no unjudged document)
    finite = bool(np.isfinite(y_score).all())
    if not finite and np.isinf(y_score).any():
        raise ArgumentError("y_score contains infinite values")
    if not np.isfinite(y_true).all():
        finite = False
        if np.isinf(y_true).any():
            raise ArgumentError("y_true contains infinite values")
    if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer))):
        raise ArgumentError(f"k must be an integer >= 1 or None, got {k!r}")
    registry = registry_or_default(registry)
    # an explicit k is the cutoff, also for presets with several default cutoffs
    from .resolve import resolve_measures  # the edge: specs resolved once, here

    flavours = [m.flavour for m in resolve_measures(flavour, registry, cutoffs=None if k is None else [k])]
    if len(flavours) != 1:
        raise ArgumentError(f"flavour {flavour!r} expands to {len(flavours)} flavours; give one cutoff")
    fl = flavours[0] if k is None else flavours[0].with_cutoff(k)
    _check_width(flavour, y_true.shape[1], registry)
    res = resolve(fl, registry)
    if res.ties.needs_rank:
        from .errors import RankColumnError

        raise RankColumnError(f"{fl}: tie policy '{res.ties.name}' orders a run by its rank column, which "
                              "arrays do not have (y_score orders each row); use a TREC run read with "
                              "evalkit.read_run(path, keep_rank=True)")
    problem = array_problem(y_true, y_score, finite=finite)
    try:
        return evaluate_problem(problem, res, None, "arrays")
    except ComponentOutputError as exc:
        where = ""
        if exc.family == "gain" and exc.value is not None:
            q, d = np.argwhere(y_true == exc.value)[0]
            where = f" (query row {q}, document column {d}: y_true[{q}, {d}] = {format_number(exc.value)})"
        raise ComponentOutputError(exc.family, exc.component, exc.value, exc.detail + where, f"{fl}: ") from None
    except InvalidGradeError as exc:  # negative=error, grades=lightgbm|xgboost
        q, d = np.argwhere(y_true == exc.value)[0]
        raise exc.at(f" (query row {q}, document column {d}: y_true[{q}, {d}] = {format_number(exc.value)})") from None


def _check_width(flavour: Any, width: int, registry: Registry) -> None:
    """Refuse a matrix narrower than the preset named by ``flavour`` accepts
    (:attr:`evalkit.components.Preset.min_documents`: scikit-learn's ``ndcg_score``
    and ``dcg_score`` raise on ``y_true`` of one column), quoting the library."""
    if not isinstance(flavour, str):
        return
    name = flavour.partition("@")[0].strip()
    try:
        preset = registry.preset(name)
    except EvalkitError:  # a flavour string, not a preset name
        return
    if width < preset.min_documents:
        raise ArgumentError(f"{preset.name}: y_true has {width} document column(s); the library refuses fewer "
                            f"than {preset.min_documents}: {preset.too_few_documents}")


def _real_array(values: Any, name: str) -> np.ndarray:
    """``float64`` array of real numbers, read-only (a ``float64`` input is not
    copied: the engine only reads it); masked, complex, string and object arrays
    that do not hold numbers are refused with :class:`ArgumentError`."""
    what = f"{name} must be an array of real numbers"
    # a masked array exists only once numpy.ma is imported: do not import it (20-40 ms)
    masked = sys.modules.get("numpy.ma")
    if masked is not None and isinstance(values, masked.MaskedArray):
        raise ArgumentError(f"{what}, not a masked array (masks would not be applied): use NaN in y_score "
                            "for documents not returned and NaN in y_true for unjudged ones")
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:  # ragged nested lists
        raise ArgumentError(f"{what}; it is not rectangular: {exc}") from None
    if arr.dtype.kind == "O":
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise ArgumentError(f"{what}; it holds values that are not real numbers (dtype object)") from None
    if arr.dtype.kind not in "biuf":
        raise ArgumentError(f"{what} (bool, int or float); got dtype {arr.dtype}")
    out = arr.astype(np.float64, copy=False)
    if out is arr:  # the caller's array: a read-only view of it
        out = arr.view()
    out.flags.writeable = False
    return out


def array_problem(y_true: np.ndarray, y_score: np.ndarray, *, finite: bool | None = None) -> Problem:
    """A :class:`Problem` from dense ``(n_queries, n_docs)`` arrays (no strings).

    :param finite: whether every value of both arrays is finite (checked if ``None``).
        Then every document is returned and judged: the rows are the queries, as a
        grid (:class:`SortKeys` ``width``): no masking, no docno codes until read."""
    nq, nd = y_true.shape
    if finite is None:
        finite = bool(np.isfinite(y_score).all() and np.isfinite(y_true).all())
    if finite:
        keys = SortKeys(
            query=np.repeat(np.arange(nq, dtype=np.int64), nd),
            score=y_score.reshape(-1),
            docno=None if nd else np.zeros(0, dtype=np.int64),
            line=None,
            grade=y_true.reshape(-1),
            width=nd or None,
        )
        return Problem(
            qids=np.arange(nq).astype(str).astype(object),
            judged_offsets=np.arange(0, nq * nd + 1, nd, dtype=np.int64) if nd else np.zeros(nq + 1, np.int64),
            judged_grade=keys.grade,
            keys=keys,
            in_run=np.full(nq, nd > 0),
            docno_vocab=np.arange(nd).astype(str).astype(object),
        )
    returned = ~np.isnan(y_score)
    qidx, col = np.nonzero(returned)
    keys = SortKeys(
        query=qidx.astype(np.int64),
        score=y_score[returned],
        docno=col.astype(np.int64),
        line=np.arange(len(qidx), dtype=np.int64),
        grade=y_true[returned],
    )
    judged = ~np.isnan(y_true)
    jq, _ = np.nonzero(judged)
    judged_offsets = offsets_from_sorted(jq, nq)
    in_run = returned.any(axis=1)
    return Problem(
        qids=np.arange(nq).astype(str).astype(object),
        judged_offsets=judged_offsets,
        judged_grade=y_true[judged],
        keys=keys,
        in_run=in_run,
        docno_vocab=np.arange(nd).astype(str).astype(object),
    )
