"""evalkit on Apache Spark: the same flavours and the same per-query values when the
qrels and runs are Spark DataFrames.

Needs the optional extra ``pip install "evalkit-ndcg[spark]"`` (pyspark) and a Java 17+
runtime; nothing imports pyspark until a function here runs.

::

    from evalkit import spark as eks
    res = eks.evaluate(qrels_df, run_df, ["ndcg(ties=stable)@10"])   # evalkit.Results
    frame = eks.evaluate_frame(qrels_df, run_df, ["ndcg@10"])            # Spark DataFrame

See ``docs/scale.md`` for the plan (what is shuffled and why) and cluster use.
"""

from __future__ import annotations

from .backend import collect, ship_plugins
from .columns import RECOMMENDER, TREC, Columns
from .io import read_qrels, read_run, read_subtopic_qrels
from .session import parse_conf, session
from typing import Any

#: the public functions that take specs (preset and measure names), resolved once at
#: the edge (:func:`evalkit.resolve.resolving`); :mod:`.backend` takes resolved flavours
_RESOLVING = ("evaluate", "evaluate_frame", "evaluate_with_sensitivity")


def __getattr__(name: str) -> Any:
    # built on first use (PEP 562), so that importing evalkit.spark.backend, as the
    # engine's Spark hook does, does not load the presets layer
    if name not in _RESOLVING:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ..resolve import resolving
    from . import backend

    value = resolving(getattr(backend, name))
    globals()[name] = value
    return value

__all__ = ["Columns", "RECOMMENDER", "TREC", "collect", "evaluate", "evaluate_frame",
           "evaluate_with_sensitivity", "parse_conf",
           "read_qrels", "read_run", "read_subtopic_qrels", "session", "ship_plugins"]
