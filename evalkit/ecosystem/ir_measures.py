"""evalkit flavours as ir_measures measures (and so as PyTerrier ``eval_metrics``).

``measure(SPEC)`` returns an ir_measures measure for any flavour string, preset or measure
name evalkit reads (``"trec_eval.ndcg_cut@10"``, ``"ndcg(gain=exp2,ties=average)@5"``,
``"ranx.ndcg@10"``): it goes into ``ir_measures.calc_aggregate``, ``ir_measures.iter_calc``,
``ir_measures.evaluator`` and ``pt.Experiment(eval_metrics=[...])`` next to ir_measures' own
measures, and its value for each query is :func:`evalkit.evaluate`'s::

    import ir_measures
    from evalkit.ecosystem.ir_measures import measure

    ndcg10 = measure("trec_eval.ndcg_cut@10")
    ir_measures.calc_aggregate([ndcg10, ir_measures.nDCG@10], qrels, run)

How it plugs in (ir_measures 0.4.3): ir_measures has no entry point for providers
(``ir_measures/__init__.py``: ``DefaultPipeline`` is a fixed ``FallbackProvider`` list), but
its first provider, the runtime provider, serves every measure made by ``ir_measures.define``
(``ir_measures/providers/runtime_provider.py``, ``RuntimeProvider.supports``: a measure with
a ``runtime_impl``). :func:`measure` defines one per flavour. Its ``impl`` receives the whole
qrels and run as DataFrames once per run (no per-query call: ``define``, not
``define_byquery``), builds an evalkit :class:`~evalkit.Qrels` and :class:`~evalkit.Run`
from them and evaluates the flavour vectorised over the queries.

Conventions, and why:

* **Name.** ir_measures compares and hashes measures by ``repr``
  (``ir_measures/measures/base.py``, ``Measure.__eq__``/``__hash__``), so the name is a
  function of the flavour: ``evalkit:`` followed by the canonical flavour string
  (``evalkit:ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval)@10``). Two specs of
  one flavour give equal measures; two flavours never share a name. ``name=`` chooses
  another name (a PyTerrier column), refused if it already names another flavour.
* **Cutoff inside the flavour.** ``define(..., support_cutoff=True)`` would cut the run with
  ``groupby('query_id').head(k)`` after a pandas ``sort_values`` by score, which does not
  follow trec_eval's (or any evalkit) tie order; the measures are defined with
  ``support_cutoff=False`` and the cutoff is the flavour's ``@k``. ``m @ 5`` is the same
  flavour at cutoff 5 (a new measure), not ir_measures' cutoff parameter.
* **Row order.** The runtime evaluator hands ``impl`` the run after
  ``sort_values(['query_id', 'score'])`` (quicksort, not stable: ``RuntimeEvaluator._iter_calc``);
  the frame keeps its index, so ``impl`` restores the order the run was given in
  (``sort_index(kind='stable')``) before an order-dependent tie policy (``ties=input``, ranx's)
  sees it. trec_eval's tie policy and the other order-free policies do not depend on it.
* **Queries left out.** A query a flavour's conventions leave out (``missing=skip`` for a
  query absent from the run, ``empty=skip``) is ``NaN`` per query, as in
  :class:`~evalkit.Results`; ir_measures' runtime evaluator fills any qrels query
  ``impl`` does not report with the measure's ``DEFAULT`` (``providers/base.py``
  ``Evaluator.iter_calc``), which is ``NaN`` here; and the measure's aggregator, which
  ``calc_aggregate`` calls (``providers/base.py`` ``Evaluator.calc_aggregate``), averages the
  other queries: the mean is :meth:`Results.means`'.
  ir_measures' own measures score such a query 0; ``missing=zero`` in the flavour does too.
  PyTerrier 1.1.2 averages per-query values itself (``pyterrier/_evaluation/_rendering.py``
  ``_mean_of_measures``: sum over count, not the aggregator), so there such a ``NaN`` makes the
  mean ``NaN``: undefined rather than a silently different number.
* **Rank column.** A flavour whose tie policy orders the run by its TREC rank column
  (``ties=rank``, the ``ndeval.*`` presets) reads a ``rank`` column of the run DataFrame;
  ir_measures' own run types (``ScoredDoc``, dicts) have none, which is a :class:`FlavourError`.
* **Diversity metrics** (``ndeval.*``, ``ir_measures.alpha_nDCG``): the qrels' ``iteration``
  column is the subtopic, as ir_measures' pyndeval provider reads it; a document's grade for
  the flavour's ordinary qrels is its largest subtopic grade.

PyTerrier (1.1.2) passes measure objects through to ``ir_measures.iter_calc``
(``pyterrier/_evaluation/_execution.py``) and names its columns by ``str(measure)``; it needs
neither Java nor ``pt.init()`` to evaluate in-memory DataFrames (``tests/test_ecosystem_ir_measures.py``).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Iterable, TYPE_CHECKING

from ..errors import ArgumentError, FlavourError
from ..flavour import Flavour
from . import require

if TYPE_CHECKING:
    from ..registry import Registry

#: name -> flavour of every measure made in this process (ir_measures compares by name).
_NAMES: dict[str, Flavour] = {}
#: Prefix of the default names.
PREFIX = "evalkit:"


def _flavour_of(spec: Any, registry: Registry) -> tuple[str, Flavour]:
    from ..presets import expand_labelled

    if isinstance(spec, Flavour):
        return str(spec), spec
    expanded = expand_labelled(spec, registry)
    if len(expanded) != 1:
        labels = ", ".join(label for label, _, _ in expanded[:5])
        raise FlavourError(f"{spec!r} gives {len(expanded)} flavours ({labels}{', ...' if len(expanded) > 5 else ''});"
                           " an ir_measures measure is one flavour: give the cutoff (@k) or use measures()")
    label, _, flavour = expanded[0]
    return label, flavour


def _nan_mean_agg() -> Any:
    from ir_measures.measures.base import Agg

    class NanMeanAgg(Agg):
        """The mean of the values that are not ``NaN`` (``NaN`` if none): queries a
        flavour's conventions leave out are left out of the mean, as in
        :meth:`evalkit.Results.means`."""

        def __init__(self) -> None:
            self.sum, self.count = 0.0, 0

        def add(self, value: Any) -> None:
            if not math.isnan(value):
                self.sum += value
                self.count += 1

        def result(self) -> Any:
            return self.sum / self.count if self.count else math.nan

    return NanMeanAgg()


def _impl(flavour: Flavour, registry: Registry) -> Any:
    """The ``define`` implementation: ``(qrels DataFrame, run DataFrame) -> [(qid, value)]``
    for every query of the qrels, ``NaN`` where the flavour leaves a query out."""

    def impl(qrels_df: Any, run_df: Any) -> Any:
        from ..data import Qrels, Run, SubtopicQrels
        from ..engine.evaluate import evaluate
        from ..errors import EmptyEvaluationWarning

        reg = registry
        original = {str(q): q for q in qrels_df["query_id"].unique()}  # qids as ir_measures holds them
        subtopics = None
        if reg.metric(flavour.metric).needs_subtopics:
            if "iteration" not in qrels_df.columns:
                raise FlavourError(f"{flavour}: a diversity metric needs the subtopic of each judgment "
                                   "(the qrels' iteration column)")
            subtopics = SubtopicQrels.from_columns(qrels_df["query_id"].astype(str).to_numpy(),
                                                   qrels_df["iteration"].astype(str).to_numpy(),
                                                   qrels_df["doc_id"].astype(str).to_numpy(),
                                                   qrels_df["relevance"].to_numpy(), source="<ir_measures qrels>")
            qrels_df = qrels_df.groupby(["query_id", "doc_id"], as_index=False, sort=False)["relevance"].max()
        qrels = Qrels.from_df(qrels_df, qid="query_id", docno="doc_id", grade="relevance",
                              source="<ir_measures qrels>")
        run_df = run_df.sort_index(kind="stable")  # the order the run was given in (module docstring)
        rank = None
        assert flavour.ties is not None  # a validated flavour always names its tie policy
        if reg.get("ties", flavour.ties.name).needs_rank:  # ties=rank, ndeval.*: the TREC rank column
            if "rank" not in run_df.columns:
                raise FlavourError(f"{flavour}: tie policy '{flavour.ties.name}' orders the run by its rank column, "
                                   "which this ir_measures run does not have (ir_measures' runs carry query_id, "
                                   "doc_id and score); give the run as a DataFrame with a rank column")
            rank = "rank"
        run = Run.from_df(run_df, qid="query_id", docno="doc_id", score="score", name="run",
                          source="<ir_measures run>", rank=rank)
        with warnings.catch_warnings():
            if len(run) == 0:  # PyTerrier evaluates the qrels queries a system did not answer on their own
                warnings.simplefilter("ignore", EmptyEvaluationWarning)
            res = evaluate(qrels, [run], [flavour], subtopics=subtopics, registry=reg)
        return [(original.get(q, q), float(v)) for q, v in zip(res.qids, res.values[0, 0])]

    return impl


def measure(spec: str | Flavour, *, name: str | None = None, registry: Registry | None = None) -> Any:
    """An ir_measures measure computing ``spec`` with evalkit.

    :param spec: a flavour string, a preset with its cutoff (``"trec_eval.ndcg_cut@10"``), a
        trec_eval or ir_measures measure name evalkit reads (``"ndcg_cut.10"``), or a
        :class:`~evalkit.Flavour`: anything giving exactly one flavour.
    :param name: the measure's name (its ``repr``, ``str`` and PyTerrier column); default
        ``"evalkit:" + str(flavour)``.
    :param registry: the component registry (default :func:`evalkit.default_registry`).
    :returns: an ``ir_measures.Measure`` (made by ``ir_measures.define``, ``support_cutoff=False``)
        with ``.flavour`` and ``.label`` (the spec as given); ``m @ k`` gives the flavour at
        cutoff ``k``. Per query it yields ``float`` values equal to
        ``evalkit.evaluate(qrels, run, [flavour])`` (``NaN`` for a query left out);
        ``calc_aggregate`` gives their mean over the other queries.
    :raises FlavourError: ``spec`` is not a flavour, gives several flavours (a preset with
        default cutoffs and no ``@k``), or ``name`` names another flavour already.
    :raises MissingDependencyError: ir_measures is not installed (the ``ir_measures`` extra).
    """
    irm = require("ir_measures", "ir_measures")
    from ..registry import registry_or_default

    reg = registry_or_default(registry)
    label, flavour = _flavour_of(spec, reg)
    if name is None:
        name = PREFIX + str(flavour)
    elif not isinstance(name, str) or not name:
        raise ArgumentError(f"name must be a non-empty string, got {name!r}")
    known = _NAMES.setdefault(name, flavour)
    if known != flavour:
        raise FlavourError(f"the ir_measures name {name!r} already names {known}; ir_measures compares measures "
                           f"by name, so {flavour} needs another")
    base = irm.define(_impl(flavour, reg), name=name, support_cutoff=False,
                      qrel_inputs=["query_id", "doc_id", "relevance"]
                      + (["iteration"] if reg.metric(flavour.metric).needs_subtopics else []),
                      pretty_name=label, short_desc=f"evalkit {flavour}")

    class EvalkitMeasure(type(base)):  # type: ignore[misc]  # the class ir_measures.define built at run time
        __name__ = name
        DEFAULT = math.nan  # a qrels query the flavour leaves out (module docstring)

        def aggregator(self) -> Any:
            return _nan_mean_agg()

        def __matmul__(self, k: Any) -> Any:
            return measure(flavour.with_cutoff(k), registry=reg)

    EvalkitMeasure.flavour, EvalkitMeasure.label = flavour, label
    return EvalkitMeasure()


def measures(specs: Iterable[str | Flavour] | str, *, registry: Registry | None = None) -> list:
    """One measure per flavour of ``specs`` (a preset without ``@k`` gives one per default
    cutoff: ``measures("trec_eval.ndcg_cut")``), each as :func:`measure` makes it."""
    from ..presets import expand_spec
    from ..registry import registry_or_default

    reg = registry_or_default(registry)
    if isinstance(specs, (str, Flavour)):
        specs = [specs]
    out: list[Any] = []  # ir_measures measures
    for spec in specs:
        flavours = [spec] if isinstance(spec, Flavour) else expand_spec(spec, reg)
        out.extend(measure(f, registry=reg) for f in flavours)
    return out
