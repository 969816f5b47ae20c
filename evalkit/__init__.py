"""evalkit: evaluate rankings with explicit, composable NDCG flavours.

Quick use::

    import evalkit
    qrels = evalkit.read_qrels("qrels.txt")
    run = evalkit.read_run("run.txt")
    res = evalkit.evaluate(qrels, [run], ["trec_eval.ndcg_cut@10", "ndcg(gain=exp2)@10"])
    res.means()

The names below are imported on first use (PEP 562), so ``import evalkit.arrays``
or ``import evalkit.kernel`` does not load the YAML runner, the report renderers or
their dependencies.
"""

from __future__ import annotations

import importlib
from typing import Any, TYPE_CHECKING


#: public name -> module that defines it (relative to this package)
_LAZY = {
    "Discount": ".components", "Gain": ".components", "IdcgStrategy": ".components",
    "Metric": ".components", "MetricOutput": ".components", "Param": ".components",
    "Preset": ".components", "TiePolicy": ".components",
    "Qrels": ".data", "Run": ".data", "SubtopicQrels": ".data",
    "evaluate": ".resolve", "resolve_measures": ".resolve",
    "ArgumentError": ".errors", "ComponentOutputError": ".errors", "ConfigError": ".errors",
    "EmptyEvaluationWarning": ".errors", "EvalkitError": ".errors", "EvaluationError": ".errors",
    "FlavourError": ".errors", "InputFormatError": ".errors", "ReferenceDivergenceWarning": ".errors",
    "RegistryError": ".errors", "ReportError": ".errors", "UnknownNameError": ".errors",
    "Flavour": ".flavour", "parse_flavour": ".flavour",
    "hookimpl": ".hookspecs",
    "read_qrels": ".io", "read_run": ".io", "read_subtopic_qrels": ".io",
    "expand_spec": ".presets",
    "build_registry": ".registry", "default_registry": ".registry",
    "Results": ".results",
    "run_config": ".runner",
}

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if name == "__version__":  # read on first use: the command line's start imports no evalkit._version
        from ._version import __version__

        globals()["__version__"] = __version__
        return __version__
    if module is None:
        from importlib.util import find_spec  # here: a name that is not a lazy export (~0.3 ms to import)

        if not name.startswith("_") and find_spec(f"{__name__}.{name}") is not None:
            return importlib.import_module(f"{__name__}.{name}")  # a submodule: evalkit.registry
        raise AttributeError(f"module 'evalkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"__version__"})


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from ._version import __version__
    from .components import Discount, Gain, IdcgStrategy, Metric, MetricOutput, Param, Preset, TiePolicy
    from .data import Qrels, Run, SubtopicQrels
    from .resolve import evaluate, resolve_measures
    from .errors import (
        ArgumentError,
        ComponentOutputError,
        ConfigError,
        EmptyEvaluationWarning,
        EvalkitError,
        EvaluationError,
        FlavourError,
        InputFormatError,
        ReferenceDivergenceWarning,
        RegistryError,
        ReportError,
        UnknownNameError,
    )
    from .flavour import Flavour, parse_flavour
    from .hookspecs import hookimpl
    from .io import read_qrels, read_run, read_subtopic_qrels
    from .presets import expand_spec
    from .registry import build_registry, default_registry
    from .results import Results
    from .runner import run_config
