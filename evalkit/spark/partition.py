"""The executor side of the Spark backend: one partition's queries, evaluated by the
local columnar engine.

A partition holds every qrels row and every run row of its queries (the backend
hash-partitions both by query id), in the union layout of
:mod:`evalkit.spark.columns`. :func:`evaluate_partition` turns its Arrow batches
into one :class:`~evalkit.Qrels` and one :class:`~evalkit.Run` per system, each
sorted by the input-order column, and calls :func:`evalkit.evaluate` once: the loop
is over systems, never over queries. The local engine's per-query values depend on
that query's rows only, so they equal the values of one evaluation of the whole
collection.
"""

from __future__ import annotations

import warnings
from typing import Any, Iterable, Iterator, Sequence, TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import EmptyEvaluationWarning, EvalkitError, InputFormatError
from .columns import QRELS, RUN, SUBTOPICS

if TYPE_CHECKING:
    from ..data import Qrels
    from ..registry import Registry

#: The union layout every input is normalised to before the shuffle.
IN_SCHEMA = pa.schema([
    ("kind", pa.int8()), ("system", pa.string()), ("qid", pa.string()),
    ("docno", pa.string()), ("value", pa.float64()), ("order", pa.int64()), ("subtopic", pa.string()),
])
#: Per-query values: one row per (system, flavour, qrels query); ``value`` is null
#: where a convention leaves the query out (``NaN`` in :class:`~evalkit.Results`).
OUT_SCHEMA = pa.schema([
    ("system", pa.string()), ("flavour", pa.string()), ("canonical", pa.string()),
    ("qid", pa.string()), ("value", pa.float64()),
])
#: What :func:`evalkit.spark.evaluate` collects: one row per qrels query with its
#: ``systems x flavours`` values (C order, ``NaN`` left out), so the driver receives
#: 8 bytes a value and one qid a query; or one row with an evalkit error message.
COMPACT_SCHEMA = pa.schema([("qid", pa.string()), ("values", pa.list_(pa.float64())), ("error", pa.string())])


def _no_nulls(table: pa.Table, source: str, names: dict[str, str]) -> None:
    for column, user_name in names.items():
        nulls = table[column].null_count
        if nulls:
            raise InputFormatError(source, None, user_name, f"{nulls} null value(s)")


def _sorted_by(table: pa.Table, keys: list[str]) -> pa.Table:
    return table.take(pc.sort_indices(table, sort_keys=[(k, "ascending") for k in keys]))


def build_qrels(table: pa.Table, column_names: dict[str, str]) -> Any:
    """:class:`~evalkit.Qrels` from a partition's qrels rows, in input order."""
    from ..data import Qrels

    source = "qrels DataFrame"
    _no_nulls(table, source, {k: column_names[k] for k in ("qid", "docno", "value")})
    table = _sorted_by(table, ["order"])
    return Qrels.from_columns(table["qid"], table["docno"], table["value"].to_numpy(), source=source)


def build_runs(table: pa.Table, systems: Sequence[str], column_names: dict[str, str]) -> list:
    """One :class:`~evalkit.Run` per name in ``systems`` (empty if the partition has
    none of its rows), each in input order; one sort of the partition's run rows."""
    from ..data import Run

    _no_nulls(table, "run DataFrame", {k: column_names[k] for k in ("qid", "docno", "value")})
    table = _sorted_by(table, ["system", "order"])
    names = sorted(systems)
    codes = pc.index_in(table["system"], value_set=pa.array(names, pa.string())).to_numpy(zero_copy_only=False)
    bounds = np.searchsorted(codes, np.arange(len(names) + 1))  # codes are non-decreasing
    runs = {}
    for i, name in enumerate(names):
        part = table.slice(bounds[i], bounds[i + 1] - bounds[i])
        runs[name] = Run.from_columns(part["qid"], part["docno"], part["value"].to_numpy(),
                                      name=name, source=f"run DataFrame (system {name!r})")
    return [runs[name] for name in systems]


def build_subtopics(table: pa.Table, weights: Any = None) -> Any:
    """:class:`~evalkit.SubtopicQrels` from a partition's subtopic rows, in input order."""
    from ..data import SubtopicQrels

    source = "subtopic qrels DataFrame"
    _no_nulls(table, source, {"qid": "qid", "subtopic": "subtopic", "docno": "docno", "value": "grade"})
    table = _sorted_by(table, ["order"])
    return SubtopicQrels.from_columns(table["qid"].to_pylist(), table["subtopic"].to_pylist(),
                                      table["docno"].to_pylist(), table["value"].to_numpy(),
                                      source=source, weights=weights)


def result_batch(results: Any, canonical: Sequence[str]) -> pa.RecordBatch:
    """:class:`~evalkit.Results` ``(s, f, q)`` as :data:`OUT_SCHEMA` rows (C order)."""
    s, f, q = results.values.shape
    values = results.values.reshape(-1)
    return pa.RecordBatch.from_arrays([
        pa.array(np.repeat(np.asarray(results.systems, dtype=object), f * q), pa.string()),
        pa.array(np.tile(np.repeat(np.asarray(results.labels, dtype=object), q), s), pa.string()),
        pa.array(np.tile(np.repeat(np.asarray(canonical, dtype=object), q), s), pa.string()),
        pa.array(np.tile(results.qids, s * f), pa.string()),
        pa.array(values, pa.float64(), mask=np.isnan(values)),
    ], schema=OUT_SCHEMA)


def compact_batch(results: Any, extra: Sequence[np.ndarray] = ()) -> pa.RecordBatch:
    """:class:`~evalkit.Results` ``(s, f, q)`` as :data:`COMPACT_SCHEMA` rows; each of
    ``extra`` (``float64`` ``(s, x, q)``: the tie bounds, judged@k) appended to every
    query's list after the values, in C order."""
    blocks = [results.values] + list(extra)
    q = results.values.shape[2]
    flat = np.concatenate([np.ascontiguousarray(b.transpose(2, 0, 1)).reshape(q, -1) for b in blocks],
                          axis=1).reshape(-1)  # per query: (s, f) values, then each extra (s, x)
    width = sum(b.shape[0] * b.shape[1] for b in blocks)
    offsets = np.arange(0, q * width + 1, width, dtype=np.int32)
    return pa.RecordBatch.from_arrays([
        pa.array(results.qids, pa.string()),
        pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(flat, pa.float64())),
        pa.nulls(q, pa.string()),
    ], schema=COMPACT_SCHEMA)


def sensitivity_blocks(qrels: Qrels, runs: Any, flavours: Any, registry: Registry, subtopics: Any = None) -> tuple[np.ndarray, ...]:
    """The tie spread and judged@k of every system on this partition's queries, as
    the local runner computes them (:func:`evalkit.sensitivity.tie_bounds`,
    :func:`evalkit.sensitivity.judged_at_k` at :func:`~evalkit.sensitivity.cutoffs_of`
    the flavours): a loop over systems, each call vectorised over the queries.

    :returns: ``(low, high, judged)``: ``float64`` ``(s, f, q)``, ``(s, f, q)`` and
        ``(s, c, q)`` over ``qrels.qids``.
    """
    from ..sensitivity import cutoffs_of, judged_at_k, tie_bounds

    cutoffs = cutoffs_of(flavours)
    lows, highs, judged = [], [], []
    for run in runs:
        low, high = tie_bounds(qrels, run, flavours, registry, subtopics)
        lows.append(low)
        highs.append(high)
        judged.append(judged_at_k(qrels, run, cutoffs, registry))
    return np.stack(lows), np.stack(highs), np.stack(judged)


def evaluate_partition(
    batches: Iterable[pa.RecordBatch],
    *,
    systems: Sequence[str],
    flavours: Sequence,
    labels: Sequence[str],
    column_names: dict[str, str],
    registry: Registry | None = None,
    compact: bool = False,
    subtopics: bool = False,
    weights: Any = None,
    sensitivity: bool = False,
) -> Iterator[pa.RecordBatch]:
    """Evaluate one partition (the ``mapInArrow`` function).

    :param batches: Arrow batches in :data:`IN_SCHEMA`.
    :param systems: every system name (a system absent from this partition is an
        empty run here, so the ``missing`` convention applies to its queries).
    :param flavours: :class:`~evalkit.Flavour` values (already expanded).
    :param column_names: the user's column names, for error messages.
    :param registry: the registry to resolve components with; ``None``: the
        executor's :func:`~evalkit.default_registry` (installed plugins).
    :param compact: yield :data:`COMPACT_SCHEMA` rows, an :class:`EvalkitError` as one
        row of it instead of raising it.
    :param subtopics: the partition carries subtopic judgments (kind 2): build a
        :class:`~evalkit.SubtopicQrels` (``weights``: its intent probabilities).
    :param sensitivity: (with ``compact``) also the tie spread and judged@k of every
        system (:func:`sensitivity_blocks`), appended to each query's list.
    :returns: batches of :data:`OUT_SCHEMA` (:data:`COMPACT_SCHEMA` when ``compact``).
    """
    from ..engine.evaluate import evaluate

    batches = list(batches)
    if not batches:
        return
    table = pa.Table.from_batches(batches).combine_chunks()
    del batches
    kind = table["kind"].to_numpy()
    qrels_rows = table.filter(pa.array(kind == QRELS))
    if qrels_rows.num_rows == 0:
        return  # run queries without judgments are ignored, as the local engine ignores them
    try:
        if registry is None:
            from ..registry import default_registry

            registry = default_registry()
        qrels = build_qrels(qrels_rows, column_names)
        runs = build_runs(table.filter(pa.array(kind == RUN)), systems, column_names)
        sub = build_subtopics(table.filter(pa.array(kind == SUBTOPICS)), weights) if subtopics else None
        del table, qrels_rows
        with warnings.catch_warnings():
            # a system without a query in this partition is an empty run here, on purpose
            warnings.simplefilter("ignore", EmptyEvaluationWarning)
            results = evaluate(qrels, runs, list(flavours), labels=list(labels), registry=registry,
                               subtopics=sub)
            extra = sensitivity_blocks(qrels, runs, results.flavours, registry, sub) if sensitivity and compact else ()
    except EvalkitError as exc:
        if not compact:
            raise
        yield pa.RecordBatch.from_arrays(
            [pa.nulls(1, pa.string()), pa.nulls(1, pa.list_(pa.float64())),
             pa.array([f"{type(exc).__name__}\x1f{exc}"], pa.string())], schema=COMPACT_SCHEMA)
        return
    yield compact_batch(results, extra) if compact else result_batch(results, [str(f) for f in flavours])
