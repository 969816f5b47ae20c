"""The driver side of the Spark backend.

Plan of one evaluation (nothing but the per-query values reaches the driver):

1. Every input DataFrame is projected to the union layout of
   :mod:`evalkit.spark.columns` (``kind, system, qid, docno, value, order``); the
   input order is taken *before* the shuffle (``monotonically_increasing_id()``
   unless an order column is named), because tie policies such as ``stable`` and
   ``input_order`` depend on it and a shuffle does not keep it.
2. The union of qrels and runs is hash-partitioned by ``qid`` (one shuffle of every
   row), so each partition holds all the judgments and all the ranked documents of
   its queries.
3. ``mapInArrow`` evaluates each partition with the local columnar engine
   (:func:`evalkit.spark.partition.evaluate_partition`): one call per partition, a
   loop over systems, no loop over queries.
4. Every qrels query gets a row per system and flavour (null where a convention
   leaves it out), so the conventions that need the global query set (``missing``,
   the number of topics a mean divides by) come from the qrels DataFrame itself.
"""

from __future__ import annotations

import functools
import os
import sys
import tempfile
import zipfile
from typing import Any, Iterable, Mapping, Sequence, TYPE_CHECKING

import numpy as np

from ..errors import (EvalkitError, EvaluationError, FlavourError, InputFormatError, InvalidGradeError,
                      MissingQueriesError, NegativeGradeError)
from ..flavour import Flavour
from ..results import Results
from .columns import QRELS, RUN, SUBTOPICS, TREC, Columns
from .partition import COMPACT_SCHEMA, OUT_SCHEMA, evaluate_partition

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from ..registry import Registry


def _expand(flavours: Any, labels: Any, registry: Registry, subtopics: bool) -> tuple[list[Flavour], list[str]]:
    """Flavours and labels as :func:`evalkit.evaluate` takes them: resolved flavours
    (:class:`Flavour` objects or flavour strings; preset and measure names are resolved at
    the edge, :func:`evalkit.resolve.resolving`, which wraps this module's public
    functions in :mod:`evalkit.spark`); the spec as written is the default label; specs
    giving the same flavour stay separate columns."""
    from ..engine.evaluate import as_flavour

    if isinstance(flavours, (str, Flavour)):
        flavours = [flavours]
    pairs = [(spec.strip() if isinstance(spec, str) else str(fl), fl)
             for spec in flavours for fl in [as_flavour(spec, registry)]]
    expanded = [fl for _, fl in pairs]
    labels = [label for label, _ in pairs] if labels is None else list(labels)
    if len(labels) != len(expanded):
        raise FlavourError(f"{len(labels)} labels for {len(expanded)} flavours")
    if len(set(labels)) != len(labels):
        raise FlavourError("two measures share the label(s) " + ", ".join(
            sorted({str(x) for x in labels if labels.count(x) > 1})) + "; give distinct labels")
    for f in expanded:
        if f.ties is not None and registry.get("ties", f.ties.name).needs_rank:
            from ..errors import RankColumnError

            raise RankColumnError(f"{f}: the Spark engine does not carry a run's rank column, by which tie "
                                  f"policy '{f.ties.name}' orders it; use the local engine")
        if registry.metric(f.metric).needs_subtopics and not subtopics:
            raise EvaluationError(f"metric '{f.metric}' needs subtopic qrels (subtopics=, or subtopic_qrels: "
                                  "in the config)")
    return expanded, labels


def _require(df: Any, names: Iterable[str], what: str) -> None:
    missing = [n for n in names if n not in df.columns]
    if missing:
        raise InputFormatError(f"{what} DataFrame", None, missing[0],
                               f"no such column (columns: {', '.join(df.columns)})")


def _order(df: Any, columns: Columns) -> Any:
    from pyspark.sql import functions as F

    if columns.order and columns.order in df.columns:
        return F.col(columns.order).cast("long")
    return F.monotonically_increasing_id()


def _union_qrels(df: Any, columns: Columns) -> Any:
    from pyspark.sql import functions as F

    _require(df, (columns.qid, columns.docno, columns.grade), "qrels")
    return df.select(
        F.lit(QRELS).cast("byte").alias("kind"), F.lit(None).cast("string").alias("system"),
        F.col(columns.qid).cast("string").alias("qid"), F.col(columns.docno).cast("string").alias("docno"),
        F.col(columns.grade).cast("double").alias("value"), _order(df, columns).alias("order"),
        F.lit(None).cast("string").alias("subtopic"))


def _union_subtopics(df: Any, columns: Columns) -> Any:
    from pyspark.sql import functions as F

    _require(df, (columns.qid, columns.subtopic, columns.docno, columns.grade), "subtopic qrels")
    return df.select(
        F.lit(SUBTOPICS).cast("byte").alias("kind"), F.lit(None).cast("string").alias("system"),
        F.col(columns.qid).cast("string").alias("qid"), F.col(columns.docno).cast("string").alias("docno"),
        F.col(columns.grade).cast("double").alias("value"), _order(df, columns).alias("order"),
        F.col(columns.subtopic).cast("string").alias("subtopic"))


def _union_run(df: Any, columns: Columns, system: Any) -> Any:
    from pyspark.sql import functions as F

    _require(df, (columns.qid, columns.docno, columns.score), "run")
    if system is None:
        assert columns.system is not None  # _runs gives no name only when the column exists
        system_col = F.col(columns.system)
    else:
        system_col = F.lit(system)
    return df.select(
        F.lit(RUN).cast("byte").alias("kind"), system_col.cast("string").alias("system"),
        F.col(columns.qid).cast("string").alias("qid"), F.col(columns.docno).cast("string").alias("docno"),
        F.col(columns.score).cast("double").alias("value"), _order(df, columns).alias("order"),
        F.lit(None).cast("string").alias("subtopic"))


def _runs(runs: Any, columns: Columns, name: str) -> Any:
    """``(systems, [union DataFrames])`` from a DataFrame or ``{name: DataFrame}``."""
    if isinstance(runs, Mapping):
        return list(runs), [_union_run(df, columns, system) for system, df in runs.items()]
    if columns.system is None or columns.system not in runs.columns:
        return [name], [_union_run(runs, columns, name)]
    systems = sorted(r[0] for r in runs.select(runs[columns.system].cast("string")).distinct().collect())
    if any(s is None for s in systems):
        raise InputFormatError("run DataFrame", None, columns.system, "null system name")
    return systems, [_union_run(runs, columns, None)]


# ------------------------------------------------------------------ plugins on executors
_SHIPPED: set[tuple[int, str]] = set()


def _plugin_modules(registry: Registry) -> set[str]:
    """Top-level modules (outside evalkit) whose functions the registry's components call."""
    out = set()
    for table in registry.components.values():
        for comp in table.values():
            fn = getattr(comp, "fn", None)
            module = getattr(fn, "__module__", None) or ""
            top = module.split(".")[0]
            if top and top != "evalkit" and top in sys.modules:
                out.add(top)
    return out


def ship_plugins(spark: Any, registry: Registry) -> list[str]:
    """Make the registry's third-party plugin modules importable on the executors
    (``SparkContext.addPyFile``: a package is zipped, a module file sent as is); once
    per Spark context and module. Returns the shipped module names."""
    sc = spark.sparkContext
    shipped = []
    for top in sorted(_plugin_modules(registry)):
        key = (id(sc), top)
        if key in _SHIPPED:
            continue
        module = sys.modules[top]
        path = getattr(module, "__file__", None)
        if path is None:
            continue
        if os.path.basename(path) == "__init__.py":
            root = os.path.dirname(path)
            target = os.path.join(tempfile.mkdtemp(prefix="evalkit-ship-"), f"{top}.zip")
            with zipfile.ZipFile(target, "w") as zf:
                for folder, _, files in os.walk(root):
                    for file in files:
                        if file.endswith(".py"):
                            full = os.path.join(folder, file)
                            zf.write(full, os.path.relpath(full, os.path.dirname(root)))
            sc.addPyFile(target)
        else:
            sc.addPyFile(path)
        _SHIPPED.add(key)
        shipped.append(top)
    return shipped


# ------------------------------------------------------------------ evaluation
def _frame(qrels: DataFrame, runs: Any, flavours: Any, *, columns: Any, labels: Any, registry: Registry | None, partitions: Any, name: Any, compact: Any,
           subtopics: Any = None, weights: Any = None, sensitivity: bool = False) -> Any:
    from ..registry import default_registry

    driver_registry = registry if registry is not None else default_registry()
    expanded, labels = _expand(flavours, labels, driver_registry, subtopics is not None)
    systems, run_frames = _runs(runs, columns, name)
    if len(set(systems)) != len(systems):
        raise EvaluationError("two runs share a system name; give them distinct names")
    union = _union_qrels(qrels, columns)
    for frame in run_frames:
        union = union.unionByName(frame)
    if subtopics is not None:
        union = union.unionByName(_union_subtopics(subtopics, columns))
    spark = qrels.sparkSession
    if registry is not None:
        ship_plugins(spark, registry)
    union = union.repartition(partitions, "qid") if partitions else union.repartition("qid")
    fn = functools.partial(
        evaluate_partition, systems=tuple(systems), flavours=tuple(expanded), labels=tuple(labels),
        column_names={"qid": columns.qid, "docno": columns.docno,
                      "value": f"{columns.grade} / {columns.score}"},
        registry=registry, compact=compact, subtopics=subtopics is not None,
        weights=dict(weights) if weights else None, sensitivity=sensitivity)
    schema = COMPACT_SCHEMA if compact else OUT_SCHEMA
    from pyspark.sql.pandas.types import from_arrow_schema

    return union.mapInArrow(fn, from_arrow_schema(schema)), systems, expanded, labels


def evaluate_frame(qrels: DataFrame, runs: Any, flavours: Any, *, columns: Columns = TREC, labels: Sequence[str] | None = None,
                   registry: Registry | None = None, partitions: int | None = None, name: str = "run", subtopics: Any = None,
                   weights: Mapping[tuple[str, str], float] | None = None) -> Any:
    """Per-query values as a Spark DataFrame (lazy; nothing runs until an action).

    :param qrels: DataFrame with ``columns.qid``, ``columns.docno``, ``columns.grade``.
    :param runs: DataFrame with ``columns.qid``, ``columns.docno``, ``columns.score``
        (and ``columns.system`` for several systems in one frame), or ``{system: DataFrame}``.
    :param flavours: flavours, canonical strings or preset specs, as for :func:`evalkit.evaluate`.
    :param columns: input column names (:data:`~evalkit.spark.columns.TREC`,
        :data:`~evalkit.spark.columns.RECOMMENDER` or your own :class:`Columns`).
    :param registry: components to use; ``None``: each executor's default registry
        (installed plugins). A given registry is pickled to the executors and the
        modules of its third-party plugins are shipped with ``addPyFile``.
    :param partitions: number of query partitions (default: Spark's
        ``spark.sql.shuffle.partitions``, adaptively coalesced). A partition's rows
        must fit in one Python worker's memory.
    :param name: the system name of a single-system run DataFrame.
    :param subtopics: subtopic qrels DataFrame (``columns.qid``, ``columns.subtopic``,
        ``columns.docno``, ``columns.grade``), needed by intent-aware metrics;
        ``weights``: ``{(topic, subtopic): probability}`` as :class:`~evalkit.SubtopicQrels`.
    :returns: DataFrame ``system string, flavour string, canonical string, qid string,
        value double`` with one row per (system, flavour, qrels query); ``value`` is
        null where a convention leaves the query out. An evalkit error (bad input, a
        convention set to ``error``) fails the Spark job.
    :raises FlavourError: unknown component or parameter (on the driver, before any job).
    """
    return _frame(qrels, runs, flavours, columns=columns, labels=labels, registry=registry,
                  partitions=partitions, name=name, compact=False, subtopics=subtopics,
                  weights=weights)[0]


_ERRORS = {cls.__name__: cls for cls in (EvaluationError, MissingQueriesError, FlavourError, InputFormatError,
                                         InvalidGradeError, NegativeGradeError)}


def evaluate(qrels: DataFrame, runs: Any, flavours: Any, *, columns: Columns = TREC, labels: Sequence[str] | None = None,
             registry: Registry | None = None, partitions: int | None = None, name: str = "run", subtopics: Any = None,
             weights: Mapping[tuple[str, str], float] | None = None) -> Results:
    """Evaluate Spark DataFrames; the same :class:`~evalkit.Results` as
    :func:`evalkit.evaluate` (per-query values identical to the local engine's).

    Parameters as :func:`evaluate_frame`. Only the per-query values
    (systems x flavours x queries) are collected to the driver, as Arrow.

    :raises FlavourError: unknown component or parameter.
    :raises EvaluationError: a convention set to ``error`` is triggered.
    :raises InputFormatError: null, non-finite or duplicate input on an executor
        (the message names the DataFrame and column).
    """
    frame, systems, expanded, labels = _frame(
        qrels, runs, flavours, columns=columns, labels=labels, registry=registry,
        partitions=partitions, name=name, compact=True, subtopics=subtopics, weights=weights)
    return collect(frame, systems, expanded, labels)


def evaluate_with_sensitivity(qrels: DataFrame, runs: Any, flavours: Any, *, columns: Columns = TREC,
                              labels: Sequence[str] | None = None, registry: Registry | None = None, partitions: int | None = None,
                              name: str = "run", subtopics: Any = None,
                              weights: Mapping[tuple[str, str], float] | None = None) -> Any:
    """:func:`evaluate` plus what a report shows besides the values, computed on the
    executors in the same pass (each partition's queries, the local engine's
    :func:`evalkit.sensitivity.tie_bounds` and :func:`~evalkit.sensitivity.judged_at_k`):
    the tie spread and judged@k at every cutoff of the flavours, as
    :func:`evalkit.run_config` computes them with the local engine.

    :returns: ``(results, (low, high), judged)``: :class:`~evalkit.Results`, the tie
        bounds (each ``float64`` ``(s, f, q)``) and a
        :class:`~evalkit.sensitivity.JudgedAtK`; the driver receives
        ``(3 f + c) s`` numbers a query (``c`` distinct cutoffs).
    :raises: as :func:`evaluate`.
    """
    frame, systems, expanded, labels = _frame(
        qrels, runs, flavours, columns=columns, labels=labels, registry=registry,
        partitions=partitions, name=name, compact=True, subtopics=subtopics, weights=weights, sensitivity=True)
    return collect(frame, systems, expanded, labels, sensitivity=True)


def collect(frame: Any, systems: Sequence[str], flavours: Sequence[Flavour], labels: Sequence[str],
            sensitivity: bool = False) -> Any:
    """:class:`~evalkit.Results` from the :data:`~evalkit.spark.partition.COMPACT_SCHEMA`
    rows of the evaluation (one per qrels query); raises the evalkit error an executor
    reported (the first one). ``sensitivity``: the rows also carry the tie bounds and
    judged@k; returns ``(results, (low, high), judged)`` as :func:`evaluate_with_sensitivity`."""
    import pyarrow.compute as pc

    from ..sensitivity import JudgedAtK, cutoffs_of

    table = frame.toArrow()
    errors = table.filter(pc.is_valid(table["error"]))
    if errors.num_rows:
        kind, _, message = errors["error"][0].as_py().partition("\x1f")
        cls = _ERRORS.get(kind, EvalkitError)
        err = cls.__new__(cls)
        Exception.__init__(err, message)  # InputFormatError's own __init__ formats the location again
        raise err
    s, f = len(systems), len(flavours)
    cutoffs = cutoffs_of(flavours) if sensitivity else ()
    widths = [f, f, f, len(cutoffs)] if sensitivity else [f]
    qid = table["qid"].to_numpy(zero_copy_only=False).astype(object)
    flat = pc.list_flatten(table["values"]).to_numpy(zero_copy_only=False).reshape(len(qid), -1)
    order = np.argsort(qid, kind="stable")
    blocks, start = [], 0
    for width in widths:  # per query: (s, width) blocks one after the other (compact_batch)
        block = flat[:, start:start + s * width].reshape(len(qid), s, width).transpose(1, 2, 0)
        blocks.append(np.ascontiguousarray(block[:, :, order], dtype=np.float64))
        start += s * width
    results = Results(qid[order], tuple(systems), tuple(flavours), tuple(labels), blocks[0])
    if not sensitivity:
        return results
    return results, (blocks[1], blocks[2]), JudgedAtK(tuple(systems), cutoffs, results.qids, blocks[3])
