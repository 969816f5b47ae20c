"""evalkit: evaluate rankings with explicit, composable NDCG flavours.

Quick use::

    import evalkit
    qrels = evalkit.read_qrels("qrels.txt")
    run = evalkit.read_run("run.txt")
    res = evalkit.evaluate(qrels, [run], ["trec_eval.ndcg_cut@10", "ndcg(gain=exp2)@10"])
    res.means()
"""

from __future__ import annotations

from .components import Discount, Gain, IdcgStrategy, Metric, MetricOutput, Param, Preset, TiePolicy
from .data import Qrels, Run, SubtopicQrels
from .engine.evaluate import evaluate
from .errors import (
    ConfigError,
    EvalkitError,
    EvaluationError,
    FlavourError,
    InputFormatError,
    RegistryError,
)
from .flavour import Flavour, parse_flavour
from .hookspecs import hookimpl
from .io import read_qrels, read_run, read_subtopic_qrels
from .presets import expand_spec
from .registry import build_registry, default_registry
from .results import Results
from .runner import run_config

__version__ = "0.1.0"

__all__ = [
    "ConfigError", "Discount", "EvalkitError", "EvaluationError", "Flavour", "FlavourError", "Gain",
    "IdcgStrategy", "InputFormatError", "Metric", "MetricOutput", "Param", "Preset", "Qrels",
    "RegistryError", "Results", "Run", "SubtopicQrels", "TiePolicy", "build_registry",
    "default_registry", "evaluate", "expand_spec", "hookimpl", "parse_flavour", "read_qrels",
    "read_run", "read_subtopic_qrels", "run_config", "__version__",
]
