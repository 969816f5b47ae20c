"""evalkit metrics inside a training loop: LightGBM, XGBoost and CatBoost.

Each adapter evaluates one or more flavour strings or presets (``"trec_eval.ndcg_cut@10"``,
``"ndcg(gain=exp2,ties=average)@5"``) on a validation set's query groups, so a
training log reports the number the offline evaluation (``evalkit eval``) gives for the
same predictions:

* :func:`lightgbm_feval` -- a ``feval`` for :func:`lightgbm.train` /
  :func:`lightgbm.cv` (``feval(preds, eval_data) -> [(name, value, True), ...]``; the
  groups are ``eval_data.get_group()``);
* :func:`xgboost_metric` -- a ``custom_metric`` for :func:`xgboost.train`
  (``custom_metric(predt, dmatrix) -> [(name, value), ...]``; the groups are the
  DMatrix's ``group_ptr``); pass ``maximize=True`` to :func:`xgboost.train` for early
  stopping;
* :class:`CatBoostMetric` -- an ``eval_metric`` / ``custom_metric`` object for
  CatBoost (``is_max_optimal``, ``evaluate``, ``get_final_error``). CatBoost does not pass
  group ids to Python metrics, so the object is built with the validation set's
  ``group_id`` column and checks that the data it is given has that length.

**Documents and ties.** Within a group, the row order of the data set plays the
docno's role: document ``i`` of a group is the docno ``i`` zero-padded, so a run file
written as ``qid Q0 {i:0{w}d} ...`` (:func:`docno_width`) gives ``evalkit eval`` the
same tie order (``trec_eval`` ties: docno descending; ``stable`` ties: row order). Every
document of a group is judged with its label as the grade and returned with its
prediction as the score.

**Value.** The mean over the groups the flavour includes (``NaN`` when it includes
none), as ``evalkit eval`` prints it.

The libraries themselves are not imported here: the adapters only read the objects
the libraries hand them.
"""

from __future__ import annotations

from typing import Any, Sequence, TYPE_CHECKING

import numpy as np

from .errors import ArgumentError

if TYPE_CHECKING:
    from .registry import Registry

__all__ = ["CatBoostMetric", "docno_width", "evaluate_groups", "lightgbm_feval", "qrels_and_run",
           "xgboost_metric"]


def _flavours(specs: str | Sequence[str], registry: Registry | None) -> Any:
    from .resolve import resolve_measures  # the edge: specs resolved once, here

    if registry is None:
        from .registry import default_registry

        registry = default_registry()
    specs = [specs] if isinstance(specs, str) else list(specs)
    if not specs:
        raise ArgumentError("give at least one flavour or preset")
    out = []
    for spec in specs:
        flavours = [m.flavour for m in resolve_measures(spec, registry)]
        for fl in flavours:
            name = str(spec) if len(flavours) == 1 else f"{str(spec).split('@')[0]}@{fl.k}"
            out.append((name, fl))
    return out, registry


def docno_width(group_sizes: Any) -> int:
    """Digits of the zero-padded docnos (the largest group's last position)."""
    largest = int(np.max(group_sizes)) if len(group_sizes) else 1
    return max(1, len(str(max(largest - 1, 0))))


def qrels_and_run(labels: Any, scores: Any, group_sizes: Any, *, name: str = "model") -> Any:
    """The data set as :class:`~evalkit.data.Qrels` and :class:`~evalkit.data.Run`:
    qid = the group's index (``"0"``, ``"1"``, ...), docno = the row's position in its
    group zero-padded to :func:`docno_width` digits, grade = label, score = prediction.
    ``evalkit.evaluate`` of these (or ``evalkit eval`` of them written with
    :func:`evalkit.io.trec.write_run`) gives what the training-loop adapters log.

    :returns: ``(qrels, run)``.
    :raises ArgumentError: lengths disagree.
    """
    from .data import Qrels, Run

    labels = np.asarray(labels, dtype=np.float64).reshape(-1)
    scores = np.asarray(scores, dtype=np.float64).reshape(-1)
    sizes = np.asarray(group_sizes, dtype=np.int64).reshape(-1)
    if not (labels.shape == scores.shape and sizes.sum() == len(labels)):
        raise ArgumentError(f"{len(labels)} labels, {len(scores)} predictions, group sizes summing to {int(sizes.sum())}")
    w = docno_width(sizes)
    group = np.repeat(np.arange(len(sizes)), sizes)
    pos = np.arange(len(labels)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    qid = np.char.mod("%d", group).astype(object)
    docno = np.char.zfill(np.char.mod("%d", pos), w).astype(object)
    return (Qrels.from_columns(qid, docno, labels, source="<groups>"),
            Run.from_columns(qid, docno, scores, name=name, source="<groups>"))


def _padded(labels: np.ndarray, scores: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense ``(n_groups, largest group)`` arrays, ``NaN`` past each group's end
    (neither judged nor returned, see :func:`evalkit.arrays.score`)."""
    n_groups, width = len(sizes), int(sizes.max()) if len(sizes) else 0
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    group = np.repeat(np.arange(n_groups), sizes)
    pos = np.arange(len(labels)) - starts[group]
    y_true = np.full((n_groups, width), np.nan)
    y_score = np.full((n_groups, width), np.nan)
    y_true[group, pos] = labels
    y_score[group, pos] = scores
    return y_true, y_score


def evaluate_groups(labels: Any, scores: Any, group_sizes: Any, specs: str | Sequence[str], *, registry: Registry | None = None) -> dict[str, float]:
    """Mean value of every flavour over the query groups of a data set.

    :param labels: grades, ``(n,)`` real, rows grouped by query (the groups consecutive).
    :param scores: predictions, ``(n,)`` real (``float64``; LightGBM's and XGBoost's raw
        scores), same order.
    :param group_sizes: ``int`` ``(n_groups,)``, summing to ``n`` (LightGBM's ``.query``
        file, ``Dataset.get_group()``).
    :param specs: a flavour string or preset, or a list of them; a preset without a
        cutoff that has several default cutoffs gives one entry per cutoff.
    :returns: ``{name: mean}`` with ``name`` the spec as given (``spec@k`` per expanded cutoff).
    :raises ArgumentError: lengths disagree, a score is not finite, or a spec is invalid.
    """
    flavours, registry = _flavours(specs, registry)
    values = _means(labels, scores, group_sizes, [fl for _, fl in flavours], registry)
    return dict(zip([name for name, _ in flavours], values))


def _means(labels: Any, scores: Any, group_sizes: Any, flavours: Any, registry: Registry) -> list[float]:
    """Mean over the included groups of each flavour (see :func:`evaluate_groups`)."""
    from .arrays import score

    labels = np.asarray(labels, dtype=np.float64).reshape(-1)
    scores = np.asarray(scores, dtype=np.float64).reshape(-1)
    sizes = np.asarray(group_sizes, dtype=np.int64).reshape(-1)
    if labels.shape != scores.shape:
        raise ArgumentError(f"{len(labels)} labels but {len(scores)} predictions "
                         "(one prediction column per row is expected)")
    if sizes.sum() != len(labels) or (sizes < 0).any():
        raise ArgumentError(f"the group sizes sum to {int(sizes.sum())}, not to the {len(labels)} rows")
    if not np.isfinite(scores).all():
        raise ArgumentError("the predictions contain NaN or infinite values")
    y_true, y_score = _padded(labels, scores, sizes)
    out = []
    for fl in flavours:
        values = score(y_true, y_score, flavour=fl, registry=registry)
        included = values[~np.isnan(values)]
        out.append(float(included.mean()) if included.size else float("nan"))
    return out


def lightgbm_feval(specs: str | Sequence[str], *, registry: Registry | None = None) -> Any:
    """A LightGBM ``feval`` that logs evalkit flavours. Usage (a sketch: ``params``,
    ``train_set`` and ``valid`` are yours)::

        booster = lightgbm.train(params, train_set, valid_sets=[valid],
                                 feval=lightgbm_feval(["trec_eval.ndcg_cut@10", "lightgbm.ndcg@5"]))

    :param specs: flavour strings or presets (see :func:`evaluate_groups`).
    :returns: ``feval(preds, eval_data) -> [(name, value, True), ...]``.
    :raises ArgumentError: when called on a data set without query groups.
    """
    flavours, registry = _flavours(specs, registry)
    names = [f for f, _ in flavours]
    fls = [fl for _, fl in flavours]

    def feval(preds: Any, eval_data: Any) -> Any:
        group = eval_data.get_group()
        if group is None:
            raise ArgumentError("evalkit metrics need query groups: build the lightgbm.Dataset with group=...")
        means = _means(eval_data.get_label(), preds, group, fls, registry)
        return [(name, value, True) for name, value in zip(names, means)]

    return feval


def xgboost_metric(specs: str | Sequence[str], *, registry: Registry | None = None) -> Any:
    """An XGBoost ``custom_metric`` that logs evalkit flavours (pass ``maximize=True``
    to :func:`xgboost.train` when early stopping on it).

    :param specs: flavour strings or presets (see :func:`evaluate_groups`).
    :returns: ``custom_metric(predt, dmatrix) -> [(name, value), ...]``.
    :raises ArgumentError: when called on a DMatrix without query groups.
    """
    flavours, registry = _flavours(specs, registry)
    names = [f for f, _ in flavours]
    fls = [fl for _, fl in flavours]

    def custom_metric(predt: Any, dmatrix: Any) -> Any:
        ptr = np.asarray(dmatrix.get_uint_info("group_ptr"), dtype=np.int64)
        if ptr.size < 2:
            raise ArgumentError("evalkit metrics need query groups: build the DMatrix with group=... or qid=...")
        means = _means(dmatrix.get_label(), predt, np.diff(ptr), fls, registry)
        return [(name, value) for name, value in zip(names, means)]

    return custom_metric


class CatBoostMetric:
    """A CatBoost user-defined metric for one flavour or preset. Usage (a sketch: the
    pools and group-id columns are yours)::

        metric = CatBoostMetric("trec_eval.ndcg_cut@10", valid_group_ids, train_group_ids)
        model = catboost.CatBoostRanker(loss_function="YetiRank", eval_metric=metric)
        model.fit(train_pool, eval_set=valid_pool)

    CatBoost hands a Python metric the labels and predictions but not the group ids,
    and evaluates an ``eval_metric`` on the training set as well as on the validation
    set. So the metric is given the group-id column of every data set it will see
    (the ``group_id`` of each :class:`catboost.Pool`) and picks the one whose row count
    matches the data it is called with.

    :param spec: one flavour string or preset (with one cutoff).
    :param group_ids: one group-id column per data set, one id per row, the rows of a
        group consecutive.
    :raises ArgumentError: the spec expands to several flavours, no group ids are given,
        a group's rows are not consecutive, or two data sets of the same row count have
        different groups.
    """

    def __init__(self, spec: str, *group_ids: Any, registry: Registry | None = None) -> None:
        flavours, self._registry = _flavours(spec, registry)
        if len(flavours) != 1:
            raise ArgumentError(f"{spec!r} expands to {len(flavours)} flavours; give one cutoff")
        if not group_ids:
            raise ArgumentError("give the group-id column of each data set the metric will evaluate")
        self.name, self._flavour = flavours[0]
        self._sizes: dict[int, np.ndarray] = {}
        for ids in group_ids:
            ids = np.asarray(ids)
            if len(ids) == 0:
                continue
            starts = np.concatenate(([0], np.flatnonzero(ids[1:] != ids[:-1]) + 1))
            if len(np.unique(ids)) != len(starts):
                raise ArgumentError("the rows of each group must be consecutive (sort the pool by group id)")
            sizes = np.diff(np.append(starts, len(ids)))
            known = self._sizes.get(len(ids))
            if known is not None and not np.array_equal(known, sizes):
                raise ArgumentError(f"two data sets of {len(ids)} rows with different groups: the metric "
                                 "could not tell them apart")
            self._sizes[len(ids)] = sizes

    def is_max_optimal(self) -> bool:
        return True

    def evaluate(self, approxes: Any, target: Any, weight: Any) -> Any:
        """CatBoost's call: ``approxes`` is a list with one prediction column; returns
        ``(mean, 1.0)``."""
        if len(approxes) != 1:
            raise ArgumentError(f"{len(approxes)} prediction columns; a ranking metric takes one")
        sizes = self._sizes.get(len(target))
        if sizes is None:
            raise ArgumentError(f"{len(target)} rows, but the metric knows group ids for data sets of "
                             f"{', '.join(map(str, sorted(self._sizes)))} rows")
        (value,) = _means(target, approxes[0], sizes, [self._flavour], self._registry)
        return value, 1.0

    def get_final_error(self, error: Any, weight: Any) -> Any:
        return error
