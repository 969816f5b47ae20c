"""The built-in evaluation backends, registered as the ``engine`` component family
(:class:`evalkit.components.Engine`): ``columnar`` (alias ``local``), the in-process
engine and the default, and ``spark`` (:mod:`evalkit.spark`; pyspark is imported only
when it runs). A Dask or Ray backend is a plugin implementing
``evalkit_register_engines``.
"""

from __future__ import annotations

from ..components import Engine
from ..hookspecs import hookimpl
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from ..data import Qrels


def columnar(qrels: Qrels, runs: Any, flavours: Any, **options: Any) -> Any:
    """:func:`evalkit.evaluate` (``qrels``: :class:`~evalkit.Qrels`, ``runs``: runs)."""
    from .evaluate import evaluate

    return evaluate(qrels, runs, flavours, **options)


def spark(qrels: Any, runs: Any, flavours: Any, **options: Any) -> Any:
    """:func:`evalkit.spark.evaluate` (``qrels``, ``runs``: Spark DataFrames)."""
    from ..spark.backend import evaluate

    return evaluate(qrels, runs, flavours, **options)


@hookimpl
def evalkit_register_engines() -> Any:
    return [
        (Engine("columnar", columnar,
                description="in process: joins each run with the qrels, sorts once per tie policy, "
                            "vectorised kernels over all queries (the default)",
                source="evalkit/engine/evaluate.py"), ("local",)),
        Engine("spark", spark,
               description="Apache Spark: query partitions evaluated by the columnar engine through "
                           "mapInArrow; pip install 'evalkit-ndcg[spark]' and Java 17+",
               source="evalkit/spark/backend.py"),
    ]
