"""ranx <-> evalkit: a ranx user evaluates ranx ``Qrels``/``Run`` under any evalkit flavour.

* :func:`from_ranx_qrels`, :func:`from_ranx_run`: ranx objects to :class:`~evalkit.Qrels` /
  :class:`~evalkit.Run`; :func:`to_ranx_qrels`, :func:`to_ranx_run`: back.
* :func:`evaluate`: :func:`evalkit.evaluate` on ranx objects (or evalkit's), returning
  :class:`~evalkit.Results`; :func:`store_scores` writes a :class:`~evalkit.Results` into the ranx
  runs' ``scores`` / ``mean_scores``, where ``ranx.evaluate`` keeps its own
  (``ranx/meta/evaluate.py``, ``save_results_in_run``).
* :func:`compare`: ranx's comparison report (``ranx.data_structures.Report``: table, LaTeX,
  ``to_dict``, ``to_dataframe``) of evalkit's values, with ranx's own significance tests.

**Tie order.** A ranx ``Run`` holds each query's documents in a numba typed dict whose order is
the one ranx gave them: ``Run(dict)``, ``from_dict``, ``from_file``, ``from_df`` sort on
construction (``ranx/data_structures/run.py`` ``create_and_sort``: query ids by key, documents
by score with numba's quicksort, which orders tied documents by the order they came in); a
``Run`` filled by ``add_score`` is unsorted until ranx evaluates it. :func:`from_ranx_run`
keeps that order exactly: the evalkit run's rows are the ranx run's documents in the order
ranx holds them at the call. An order-dependent tie policy (``ties=stable``, ranx's own in the
``ranx.*`` presets) therefore starts from what ranx starts from; trec_eval's and the other
order-free policies do not depend on it. :func:`to_ranx_run` hands ranx each query's documents
in the evalkit run's row order (``Run.to_dict``).

**compare.** ``ranx.compare`` takes metric names only and computes them itself
(``ranx/meta/compare.py``: ``evaluate`` through ``ranx/metrics/__init__.py`` ``metric_switch``,
a fixed list that raises ``ValueError`` for any other name), so evalkit's values cannot be passed
to it. :func:`compare` builds the same ``Report`` from evalkit's per-query values with the same
ranx functions ``compare`` calls (``ranx.statistical_tests.compute_statistical_significance``
and the win/tie/loss counts), as ``compare`` does for its own metrics. The report's metric
labels are evalkit's labels (ranx's ``get_metric_label`` only knows its own metric names, so
the returned report, an instance of a ranx ``Report`` subclass, prints the label as given).
A query a flavour leaves out (``NaN``) of any run is left out of that metric's tests for all runs
(the tests are paired); the means are evalkit's (:meth:`Results.means`).

ranx is imported only when one of these functions runs (the ``ranx`` extra).
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence, TYPE_CHECKING

import numpy as np

from ..errors import ArgumentError
from . import require

if TYPE_CHECKING:
    from ..data import Qrels, Run
    from ..registry import Registry


def _ranx() -> Any:
    return require("ranx", "ranx")


def from_ranx_qrels(qrels: Any, *, source: str | None = None) -> Any:
    """A ranx ``Qrels`` (or its ``{qid: {docno: grade}}`` dict) as :class:`~evalkit.Qrels`.

    :returns: qrels in the ranx object's query and document order; grades ``float64`` ``(n,)``.
    :raises ArgumentError: not a ranx ``Qrels`` or a dict.
    """
    from ..data import Qrels

    rx = _ranx()
    name = source or f"<ranx Qrels {getattr(qrels, 'name', None) or ''}>".replace(" >", ">")
    if isinstance(qrels, rx.Qrels):
        qid, docno, grade = _columns(qrels.qrels)
    elif isinstance(qrels, dict):
        qid, docno, grade = _columns(qrels)
    else:
        raise ArgumentError(f"qrels must be a ranx.Qrels or a dict, got {type(qrels).__name__}")
    return Qrels.from_columns(qid, docno, grade, source=name)


def _columns(nested: Any) -> tuple[list, list, list]:
    """``(qid, docno, value)`` lists of a ``{qid: {docno: value}}`` mapping (a numba typed dict
    or a Python dict), in its iteration order: one loop over queries, each query's keys and
    values taken whole."""
    qid: list = []
    docno: list = []
    value: list = []
    for q, docs in nested.items():
        keys = list(docs.keys())
        qid.extend([q] * len(keys))
        docno.extend(keys)
        value.extend(docs.values())
    return qid, docno, value


def from_ranx_run(run: Any, *, name: str | None = None) -> Any:
    """A ranx ``Run`` (or its dict) as :class:`~evalkit.Run`, rows in the order ranx holds
    them (module docstring).

    :param name: the system name; default the ranx run's ``name``, else ``"run"``.
    :raises ArgumentError: not a ranx ``Run`` or a dict.
    :raises InputFormatError: a non-finite score.
    """
    from ..data import Run

    rx = _ranx()
    if isinstance(run, rx.Run):
        qid, docno, score = _columns(run.run)
        name = name or run.name or "run"
    elif isinstance(run, dict):
        qid, docno, score = _columns(run)
        name = name or "run"
    else:
        raise ArgumentError(f"run must be a ranx.Run or a dict, got {type(run).__name__}")
    return Run.from_columns(qid, docno, score, name=name, source=f"<ranx Run {name}>")


def to_ranx_qrels(qrels: Qrels, *, name: str | None = None) -> Any:
    """:class:`~evalkit.Qrels` as a ranx ``Qrels`` (integer grades, as ranx stores them)."""
    rx = _ranx()
    return rx.Qrels({q: {d: int(g) for d, g in docs.items()} for q, docs in qrels.to_dict().items()}, name=name)


def to_ranx_run(run: Run, *, name: str | None = None) -> Any:
    """:class:`~evalkit.Run` as a ranx ``Run`` named ``name`` (default the run's name); ranx
    sorts it on construction from the evalkit run's row order."""
    rx = _ranx()
    return rx.Run(run.to_dict(), name=name or run.name)


def _as_qrels(qrels: Any) -> Any:
    from ..data import Qrels

    return qrels if isinstance(qrels, Qrels) else from_ranx_qrels(qrels)


def _as_runs(runs: Any) -> list:
    from ..data import Run

    rx = _ranx()
    if isinstance(runs, (Run, rx.Run)):
        runs = [runs]
    out = [r if isinstance(r, Run) else from_ranx_run(r, name=None if getattr(r, "name", None) else f"run_{i + 1}")
           for i, r in enumerate(runs)]
    return out


def evaluate(qrels: Any, runs: Any, flavours: Any, *, labels: Sequence[str] | None = None, registry: Registry | None = None) -> Any:
    """:func:`evalkit.evaluate` of ranx (or evalkit) qrels and runs.

    :param qrels: a ranx ``Qrels`` or :class:`~evalkit.Qrels`.
    :param runs: a ranx ``Run``, a list of them (unnamed runs are ``run_1``, ``run_2``, ... as
        ``ranx.compare`` names them), or evalkit runs.
    :param flavours: flavour strings, presets, measure names (as :func:`evalkit.evaluate`).
    :returns: :class:`~evalkit.Results`, values ``float64`` ``(n_runs, n_flavours, n_queries)``.
    :raises: what :func:`evalkit.evaluate` raises.
    """
    from ..resolve import evaluate as _evaluate  # specs (presets, names) resolved at the edge

    return _evaluate(_as_qrels(qrels), _as_runs(runs), flavours, labels=labels, registry=registry)


def store_scores(results: Any, runs: Any) -> None:
    """Write ``results`` into the ranx runs as ``ranx.evaluate(..., save_results_in_run=True)``
    does: ``run.scores[label][qid]`` per included query and ``run.mean_scores[label]`` (the
    mean of :meth:`Results.means`), one entry per flavour label.

    :param runs: the ranx runs, in the order of ``results.systems``.
    :raises ArgumentError: a different number of runs.
    """
    runs = list(runs)
    if len(runs) != len(results.systems):
        raise ArgumentError(f"{len(runs)} ranx runs for {len(results.systems)} systems of the results")
    means = results.means()
    for s, run in enumerate(runs):
        for f, label in enumerate(results.labels):
            row = results.values[s, f]
            keep = ~np.isnan(row)
            run.scores[label] = dict(zip(results.qids[keep].tolist(), row[keep].tolist()))
            run.mean_scores[label] = float(means[s, f])


def _report_class() -> Any:
    from ranx.data_structures import Report

    class EvalkitReport(Report):
        """ranx's ``Report`` whose metric labels are evalkit's flavour labels, printed as given."""

        def get_metric_label(self, m: Any) -> Any:
            return m

    return EvalkitReport


def compare(qrels: Any, runs: Any, flavours: Any, *, labels: Sequence[str] | None = None, stat_test: str = "student",
            n_permutations: int = 1000, max_p: float = 0.01, random_seed: int = 42, rounding_digits: int = 3,
            show_percentages: bool = False, registry: Registry | None = None) -> Any:
    """ranx's comparison ``Report`` of evalkit's values (module docstring).

    :param qrels, runs, flavours, labels: as :func:`evaluate`.
    :param stat_test, n_permutations, max_p, random_seed, rounding_digits, show_percentages:
        as ``ranx.compare`` (``"student"``, ``"fisher"`` or ``"tukey"``).
    :returns: a ``ranx.data_structures.Report`` (``print(report)``, ``to_latex()``,
        ``to_dict()``, ``to_dataframe()``); ``report.results[run][label]`` is evalkit's mean.
    :raises ArgumentError: fewer than two runs, or two runs with one name.
    """
    _ranx()
    from ranx.statistical_tests import compute_statistical_significance

    results = evaluate(qrels, runs, flavours, labels=labels, registry=registry)
    names = list(results.systems)
    if len(names) < 2:
        raise ArgumentError("compare needs at least two runs")
    metrics = list(results.labels)
    means = results.means()
    paired = ~np.isnan(results.values).any(axis=0)  # (f, q): every run has the query
    scores = {name: {m: results.values[s, f][paired[f]] for f, m in enumerate(metrics)}
              for s, name in enumerate(names)}
    comparisons = compute_statistical_significance(model_names=names, metric_scores=scores, stat_test=stat_test,
                                                   n_permutations=n_permutations, max_p=max_p,
                                                   random_seed=random_seed)
    win_tie_loss = {}
    for control in names:
        for treatment in names:
            if control != treatment:
                win_tie_loss[(control, treatment)] = {
                    m: {"W": int(np.sum(scores[control][m] > scores[treatment][m])),
                        "T": int(np.sum(scores[control][m] == scores[treatment][m])),
                        "L": int(np.sum(scores[control][m] < scores[treatment][m]))}
                    for m in metrics}
    return _report_class()(
        model_names=names,
        results={name: {m: float(means[s, f]) for f, m in enumerate(metrics)} for s, name in enumerate(names)},
        comparisons=comparisons, metrics=metrics, max_p=max_p, win_tie_loss=win_tie_loss,
        rounding_digits=rounding_digits, show_percentages=show_percentages, stat_test=stat_test,
    )


__all__: tuple[str, ...] = ("from_ranx_qrels", "from_ranx_run", "to_ranx_qrels", "to_ranx_run", "evaluate",
                          "store_scores", "compare")
