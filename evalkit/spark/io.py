"""Reading TREC qrels and runs, and Parquet, as Spark DataFrames.

``spark.read.text`` reads plain and gzip files, many paths, globs and directories;
each line is split on whitespace into TREC's fields. A directory of Parquet files
(or a ``.parquet`` path) is read with ``spark.read.parquet``; its columns are
named by :class:`~evalkit.spark.columns.Columns`.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from ..errors import InputFormatError

QRELS_FIELDS = ("qid", "iteration", "docno", "grade")
RUN_FIELDS = ("qid", "q0", "docno", "rank", "score", "runid")
SUBTOPIC_FIELDS = ("qid", "subtopic", "docno", "grade")


def is_parquet(path: str) -> bool:
    """A ``.parquet`` path, or a directory holding ``.parquet`` files."""
    if str(path).endswith(".parquet"):
        return True
    return os.path.isdir(path) and any(f.endswith(".parquet") for f in os.listdir(path))


def _paths(paths: Any) -> list[str]:
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    out = [os.fspath(p) for p in paths]
    for p in out:
        if not any(ch in p for ch in "*?[") and not os.path.exists(p) and "://" not in p:
            raise FileNotFoundError(p)
    return out


def _fields(spark: Any, paths: Sequence[str], names: Any, min_fields: int, max_fields: int | None,
            number: str, integer: bool, validate: bool) -> Any:
    """The text lines split into ``names``; with ``validate``, one pass that raises
    :class:`InputFormatError` naming the file and the offending line's text (Spark's
    text source does not number lines)."""
    from pyspark.sql import functions as F

    lines = spark.read.text(list(paths)).withColumn("order", F.monotonically_increasing_id())
    lines = lines.where(F.trim("value") != "")
    parts = F.split(F.trim("value"), r"\s+")
    df = lines.select("value", "order", F.size(parts).alias("_n"),
                      *[F.get(parts, i).alias(n) for i, n in enumerate(names)])
    if validate:
        count_bad = F.col("_n") < min_fields
        if max_fields is not None:
            count_bad = count_bad | (F.col("_n") > max_fields)
        parsed = F.expr(f"try_cast({number} AS double)")
        number_bad = parsed.isNull() | F.isnan(parsed) | (F.abs(parsed) == float("inf"))
        if integer:
            number_bad = number_bad | (parsed != F.floor(parsed)) | ~F.col(number).rlike(r"^[+-]?[0-9]+$")
        bad = df.where(count_bad | number_bad).select(
            F.input_file_name().alias("file"), "value", "_n", number).limit(1).collect()
        if bad:
            row = bad[0]
            if row["_n"] < min_fields or (max_fields is not None and row["_n"] > max_fields):
                expected = f"{min_fields}" if max_fields == min_fields else f"at least {min_fields}"
                raise InputFormatError(row["file"], None, None,
                                       f"expected {expected} fields, got {row['_n']}: {row['value']!r}")
            kind = "an integer" if integer else "a finite number"
            raise InputFormatError(row["file"], None, number, f"expected {kind}, got {row[number]!r} "
                                   f"in line {row['value']!r}")
    return df.drop("value", "_n")


def read_qrels(spark: Any, paths: Any, *, validate: bool = True) -> Any:
    """TREC qrels ``qid iteration docno grade`` (plain or gzip; files, globs, directories).

    :returns: DataFrame ``qid string, docno string, grade double, order long``.
    :raises InputFormatError: a line without 4 fields or with a non-integer grade
        (with ``validate``; costs one scan of the text).
    """
    df = _fields(spark, _paths(paths), QRELS_FIELDS, 4, 4, "grade", True, validate)
    return df.select("qid", "docno", df["grade"].cast("double").alias("grade"), "order")


def read_subtopic_qrels(spark: Any, paths: Any, *, validate: bool = True) -> Any:
    """Subtopic qrels ``topic subtopic docno grade`` (the TREC diversity tasks' format).

    :returns: DataFrame ``qid string, subtopic string, docno string, grade double, order long``.
    :raises InputFormatError: a line without 4 fields or with a non-integer grade.
    """
    df = _fields(spark, _paths(paths), SUBTOPIC_FIELDS, 4, 4, "grade", True, validate)
    return df.select("qid", "subtopic", "docno", df["grade"].cast("double").alias("grade"), "order")


def read_run(spark: Any, paths: Any, *, system: str | None = None, validate: bool = True) -> Any:
    """A TREC run ``qid Q0 docno rank score runid`` (extra fields ignored), one system
    (plain or gzip; one file, a glob, a directory of shards).

    :param system: the system name in the ``system`` column; default: the runid of
        the first line (as :func:`evalkit.read_run` names a run).
    :returns: DataFrame ``system string, qid string, docno string, score double, order long``
        (``order``: the text's line order, for tie policies that use it).
    :raises InputFormatError: a line with fewer than 6 fields or a non-finite score.
    """
    from pyspark.sql import functions as F

    df = _fields(spark, _paths(paths), RUN_FIELDS, 6, None, "score", False, validate)
    if system is None:
        first = df.select("runid").limit(1).collect()
        system = first[0][0] if first else os.path.basename(_paths(paths)[0])
    return df.select(F.lit(system).alias("system"), "qid", "docno",
                     df["score"].cast("double").alias("score"), "order")


def read_table(spark: Any, path: Any) -> Any:
    """``spark.read.parquet(path)`` (a file or a directory of Parquet files)."""
    return spark.read.parquet(os.fspath(path))
