"""Evaluating files on Spark: what ``evalkit eval --engine spark`` and a config's
``engine: {name: spark}`` call.

A qrels or run argument is a TREC text file (plain or gzip), a glob, a directory
of text shards, or Parquet (a ``.parquet`` path or a directory of Parquet files,
columns named as :data:`~evalkit.spark.columns.TREC`). Each run argument is one
system.
"""

from __future__ import annotations

import os
from types import SimpleNamespace
from typing import Any, Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from .columns import TREC

if TYPE_CHECKING:
    from ..registry import Registry


def read_qrels_any(spark: Any, path: Any) -> Any:
    """Qrels from TREC text or Parquet (see module docstring), or ``irds:DATASET_ID``
    (:func:`evalkit.ecosystem.ir_datasets.spark_qrels`)."""
    from .io import is_parquet, read_qrels, read_table

    if isinstance(path, str) and path.startswith("irds:"):
        from ..ecosystem.ir_datasets import spark_qrels

        return spark_qrels(spark, path)

    return read_table(spark, path) if is_parquet(os.fspath(path)) else read_qrels(spark, path)


def read_run_any(spark: Any, path: Any, name: str | None = None) -> Any:
    """``(DataFrame, name)``: a run from TREC text (named by its first runid) or
    Parquet (named by the file, without ``.parquet``)."""
    from .io import is_parquet, read_run, read_table

    path = os.fspath(path)
    if is_parquet(path):
        base = os.path.basename(path.rstrip("/"))
        base = base[: -len(".parquet")] if base.endswith(".parquet") else base
        return read_table(spark, path), name or base
    df = read_run(spark, path, system=name)
    return df, name or df.select("system").limit(1).collect()[0][0]


def evaluate_paths(qrels_path: Any, run_paths: Sequence, flavours: Any, *, labels: Any = None, registry: Registry | None = None,
                   names: Sequence[str | None] | None = None, namer: Callable | None = None,
                   master: str = "local[*]", conf: Mapping[str, object] | None = None,
                   partitions: int | None = None, subtopics_path: Any = None, sensitivity: bool = False) -> Any:
    """Evaluate files on Spark; returns :class:`~evalkit.Results` with the systems in
    the order of ``run_paths``, named by ``names``, else by each file's first runid
    (Parquet: the file name), passed through ``namer(paths, runs)`` when given (the
    command line's rule for clashing runids; ``runs`` have a ``name``). ``subtopics_path``:
    subtopic qrels for intent-aware metrics. ``sensitivity``: return
    ``(results, (low, high), judged)`` (:func:`evalkit.spark.evaluate_with_sensitivity`),
    the tie spread and judged@k computed on the executors."""
    from .backend import evaluate, evaluate_with_sensitivity
    from .session import session

    spark = session(master, conf)
    qrels = read_qrels_any(spark, qrels_path)
    names = list(names) if names is not None else [None] * len(run_paths)
    frames, found = zip(*(read_run_any(spark, p, n) for p, n in zip(run_paths, names))) if run_paths else ((), ())
    final = list(found)
    if namer is not None:
        final = namer([os.fspath(p) for p in run_paths], [SimpleNamespace(name=n) for n in found])
    from .io import read_subtopic_qrels

    if isinstance(subtopics_path, str) and subtopics_path.startswith("irds:"):
        from ..ecosystem.ir_datasets import spark_qrels

        subtopics = spark_qrels(spark, subtopics_path, subtopics=True)
    else:
        subtopics = read_subtopic_qrels(spark, subtopics_path) if subtopics_path is not None else None
    run = evaluate_with_sensitivity if sensitivity else evaluate
    return run(qrels, dict(zip(final, frames)), flavours, columns=TREC, labels=labels, registry=registry,
               partitions=partitions, subtopics=subtopics)


def evaluate_files(qrels: Any, runs: Sequence[Any], flavours: Any, *, labels: Sequence[str] | None = None,
                   registry: Any = None, names: Sequence[str | None] | None = None,
                   namer: Callable[..., list[str]] | None = None, subtopics: Any = None, sensitivity: bool = False,
                   options: Mapping[str, Any] | None = None) -> Any:
    """The Spark backend's ``files`` (:meth:`evalkit.backends.Backend.evaluate_files`):
    :func:`evaluate_paths` with the backend's options ``master`` (default ``local[*]``),
    ``conf`` (a mapping, or ``KEY=VALUE`` items as ``--spark-conf`` gives them) and
    ``partitions`` (an integer, or its text).

    :raises ConfigError: a ``conf`` item without ``=``, or ``partitions`` not a positive integer.
    """
    from ..errors import ConfigError
    from .session import parse_conf

    opts = dict(options or {})
    conf = opts.get("conf")
    if conf is not None and not isinstance(conf, Mapping):
        conf = parse_conf([conf] if isinstance(conf, str) else conf)
    partitions = opts.get("partitions")
    if partitions is not None:
        try:
            partitions = int(partitions)
        except (TypeError, ValueError):
            partitions = 0
        if partitions < 1:
            raise ConfigError(f"engine spark: partitions must be a positive integer, got {opts['partitions']!r}")
    return evaluate_paths(qrels, runs, flavours, labels=labels, registry=registry, names=names, namer=namer,
                          master=opts.get("master") or "local[*]", conf=conf, partitions=partitions,
                          subtopics_path=subtopics, sensitivity=sensitivity)
