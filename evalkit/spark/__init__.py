"""evalkit on Apache Spark: the same flavours and the same per-query values when the
qrels and runs are Spark DataFrames.

Needs the optional extra ``pip install "evalkit-ndcg[spark]"`` (pyspark) and a Java 17+
runtime; nothing imports pyspark until a function here runs.

::

    from evalkit import spark as eks
    res = eks.evaluate(qrels_df, run_df, ["trec_eval.ndcg_cut@10"])     # evalkit.Results
    frame = eks.evaluate_frame(qrels_df, run_df, ["ndcg@10"])            # Spark DataFrame

See ``docs/scale.md`` for the plan (what is shuffled and why) and cluster use.
"""

from __future__ import annotations

from .backend import collect, evaluate, evaluate_frame, evaluate_with_sensitivity, ship_plugins
from .columns import RECOMMENDER, TREC, Columns
from .io import read_qrels, read_run, read_subtopic_qrels
from .session import parse_conf, session

__all__ = ["Columns", "RECOMMENDER", "TREC", "collect", "evaluate", "evaluate_frame",
           "evaluate_with_sensitivity", "parse_conf",
           "read_qrels", "read_run", "read_subtopic_qrels", "session", "ship_plugins"]
