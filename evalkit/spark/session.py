"""Starting a SparkSession for evalkit (the command line and the config runner).

Spark's Python workers must run the driver's interpreter (ISSUE-NOTES, Spark):
``PYSPARK_PYTHON`` (which pyspark reads) and ``spark.pyspark.python`` are set to
:data:`sys.executable` unless the caller sets them;
in local mode ``spark.executorEnv.PYTHONPATH`` puts the driver's evalkit first.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Mapping

from ..errors import ConfigError


def parse_conf(items: Any) -> dict[str, str]:
    """``["k=v", ...]`` (``--spark-conf``) to a dict.

    :raises ConfigError: an item without ``=``.
    """
    out = {}
    for item in items or ():
        key, sep, value = str(item).partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--spark-conf {item!r}: expected KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


def _package_file() -> str:
    from .. import __file__ as evalkit_init

    return evalkit_init


def session(master: str = "local[*]", conf: Mapping[str, object] | None = None, app_name: str = "evalkit") -> Any:
    """``SparkSession.builder.master(master)`` with ``conf`` (values as strings);
    returns the active session if one exists (Spark allows one per process, and then
    ``master`` and static settings of ``conf`` do not change it).

    :raises ConfigError: pyspark is not installed.
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError:  # pragma: no cover - depends on the environment
        raise ConfigError('the Spark engine needs pyspark: pip install "evalkit-ndcg[spark]" '
                          "(and a Java 17+ runtime)") from None
    # pyspark reads the workers' interpreter from the environment (pyspark/core/context.py:
    # ``os.environ.get("PYSPARK_PYTHON", "python3")``; the spark.pyspark.python setting below does
    # not reach mapInArrow's workers in pyspark 4.3): a venv's evalkit run without activating the
    # venv would otherwise start workers on whatever ``python3`` is first on PATH
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.master(master).appName(app_name)
    settings = {"spark.pyspark.python": sys.executable, "spark.pyspark.driver.python": sys.executable,
                "spark.ui.showConsoleProgress": "false"}
    if master.startswith("local"):
        # local mode: the Python workers import the driver's evalkit (a checkout, not
        # only an installed copy); on a cluster, ship it (docs/scale.md)
        root = os.path.dirname(os.path.dirname(os.path.abspath(_package_file())))
        settings["spark.executorEnv.PYTHONPATH"] = os.pathsep.join(
            filter(None, [root, os.environ.get("PYTHONPATH")]))
    settings.update({str(k): str(v) for k, v in (conf or {}).items()})
    for key, value in settings.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()
