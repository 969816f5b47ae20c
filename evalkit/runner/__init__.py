"""The YAML runner behind ``evalkit run``: :func:`load_config` validates a config,
:func:`run_config` evaluates it and returns a :class:`~evalkit.report.Report`."""

from .config import Config, FlavourEntry, RunEntry, config_schema, load_config, run_name_from_file
from .runner import run_config

__all__ = ["Config", "FlavourEntry", "RunEntry", "config_schema", "load_config", "run_config",
           "run_name_from_file"]
