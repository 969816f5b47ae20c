"""Running a config: read qrels and runs, evaluate every flavour, return a Report.

The runner prints nothing and writes nothing; ``evalkit run`` prints the report and
writes its files (:meth:`evalkit.report.Report.write`).
"""

from __future__ import annotations

import os
from typing import Any, Mapping

from ..engine.evaluate import evaluate
from ..io import read_qrels, read_run, read_subtopic_qrels
from ..report.model import Report
from .config import Config, load_config


def run_config(
    config: str | os.PathLike | Mapping[str, Any] | Config,
    *,
    registry=None,
    base_dir: str | os.PathLike | None = None,
) -> Report:
    """Evaluate the runs of a config under its flavours.

    The importable equivalent of ``evalkit run CONFIG.yaml`` (minus printing and
    writing: call ``report.write()`` to write the files to the config's ``output.dir``).

    :param config: a YAML file path, a config mapping (paths relative to ``base_dir``,
        default the current directory) or a loaded :class:`Config`.
    :param registry: component registry (default: :func:`evalkit.default_registry`).
    :returns: :class:`~evalkit.report.Report` whose results have shape
        ``(n_runs, n_flavours, n_qrels_queries)``.
    :raises ConfigError: invalid config (file, line and key in the message).
    :raises InputFormatError: a malformed qrels or run file (file, line, field).
    :raises EvaluationError: a convention set to ``error`` was triggered.

    Each run is read once, joined with the qrels once and sorted once per tie policy;
    every flavour reuses those arrays (:func:`evalkit.evaluate`).
    """
    if registry is None:
        from ..registry import default_registry

        registry = default_registry()
    cfg = config if isinstance(config, Config) else load_config(config, registry=registry, base_dir=base_dir)
    qrels = read_qrels(cfg.qrels)
    subtopics = read_subtopic_qrels(cfg.subtopic_qrels) if cfg.subtopic_qrels is not None else None
    runs = [read_run(r.path, name=r.name) for r in cfg.runs]
    results = evaluate(
        qrels,
        runs,
        [f.flavour for f in cfg.flavours],
        labels=list(cfg.labels),
        subtopics=subtopics,
        registry=registry,
    )
    return Report(results=results, baseline=cfg.baseline, metadata=config_metadata(cfg))


def config_metadata(cfg: Config) -> dict[str, Any]:
    """JSON-friendly facts about a config for the report."""
    return {
        "title": cfg.title,
        "config": cfg.source,
        "base_dir": str(cfg.base_dir),
        "qrels": str(cfg.qrels),
        "subtopic_qrels": None if cfg.subtopic_qrels is None else str(cfg.subtopic_qrels),
        "runs": {r.name: str(r.path) for r in cfg.runs},
        "flavour_specs": {f.label: f.spec for f in cfg.flavours},
        "baseline": cfg.baseline,
        "output_dir": None if cfg.output_dir is None else str(cfg.output_dir),
        "formats": list(cfg.formats),
    }
