"""The built-in evaluation backends, registered as the ``engine`` component family
(:class:`evalkit.components.Engine`, used through :mod:`evalkit.backends`): ``columnar``
(alias ``local``), the in-process engine and the default, and ``spark``
(:mod:`evalkit.spark`; pyspark is imported only when it runs). A Dask or Ray backend
is a plugin implementing ``evalkit_register_engines``.

The backends' options are plain data in :mod:`evalkit.backends` (read when the
command line's parser is built, without loading this module or pluggy). This module is
not under ``evalkit/engine/``: the Spark backend's file reader takes ``irds:`` qrels
through the ecosystem layer, which the engine must not reach.
"""

from __future__ import annotations

from typing import Any

from .backends import SPARK_OPTIONS
from ._builtin_hookimpl import hookimpl


def columnar(qrels: Any, runs: Any, flavours: Any, **options: Any) -> Any:
    """:func:`evalkit.evaluate` (``qrels``: :class:`~evalkit.Qrels`, ``runs``: runs)."""
    from .engine.evaluate import evaluate

    return evaluate(qrels, runs, flavours, **options)


def spark(qrels: Any, runs: Any, flavours: Any, **options: Any) -> Any:
    """:func:`evalkit.spark.evaluate` (``qrels``, ``runs``: Spark DataFrames)."""
    from .spark.backend import evaluate

    return evaluate(qrels, runs, flavours, **options)


def spark_files(qrels: Any, runs: Any, flavours: Any, **kwargs: Any) -> Any:
    """:func:`evalkit.spark.files.evaluate_files`: paths read and evaluated on Spark."""
    from .spark.files import evaluate_files

    return evaluate_files(qrels, runs, flavours, **kwargs)


@hookimpl
def evalkit_register_engines() -> list[Any]:
    from .components import Engine

    return [
        (Engine("columnar", columnar,
                description="in process: joins each run with the qrels, sorts once per tie policy, "
                            "vectorised kernels over all queries (the default)",
                source="evalkit/engine/evaluate.py"), ("local",)),
        Engine("spark", spark,
               description="Apache Spark: query partitions evaluated by the columnar engine through "
                           "mapInArrow; pip install 'evalkit-ndcg[spark]' and Java 17+",
               source="evalkit/spark/backend.py", files=spark_files, in_process=False, options=SPARK_OPTIONS),
    ]
