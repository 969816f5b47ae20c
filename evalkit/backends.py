"""Evaluation backends: the one interface the command line and the runner call.

A backend (the registry's ``engine`` family, :class:`evalkit.components.Engine`;
registered through ``evalkit_register_engines``) is looked up by name with
:func:`get_backend` and used through its methods only; no caller names an engine.

* ``backend.evaluate(qrels, runs, flavours, *, labels, registry, subtopics, **options)``
  evaluates data the backend holds in its own form (the in-process engine:
  :class:`~evalkit.Qrels` and runs; Spark: DataFrames) and returns
  :class:`~evalkit.Results`, ``float64`` ``(s, f, q)``, the same per-query values as
  the in-process engine.
* ``backend.evaluate_files(qrels, runs, flavours, *, labels, registry, names, namer,
  subtopics, sensitivity, options)`` evaluates files (paths) that the backend reads
  itself; required when ``backend.in_process`` is ``False``.
* ``backend.in_process`` (capability): ``True`` when the backend evaluates
  :class:`~evalkit.Qrels` and runs read into this process by :mod:`evalkit.io`. The
  command line and the runner then read the files themselves and call
  :meth:`evaluate` run by run, which is what progress per run, the results store,
  unjudged bounds and trec_eval's ``relstring`` need. ``False``: they call
  :meth:`evaluate_files` once, and refuse what needs the data here (``--bounds``).
* ``backend.options``: the settings it takes (:class:`EngineOption`), given as
  ``engine: {name: NAME, KEY: VALUE}`` in a config, or on the command line as
  ``--engine-option KEY=VALUE`` or the option's own flag
  (:mod:`evalkit.cli.engine_args`). :func:`engine_options` refuses a key the backend
  does not declare.

pyspark and other heavy dependencies are imported only when a backend runs: this
module imports nothing but the standard library at import time.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

from ._record import FrozenFields, lean_dataclass

if TYPE_CHECKING:  # pragma: no cover
    from .registry import Registry
    from .results import Results

#: the backend used when none is named (``evalkit eval`` without ``--engine``, a
#: config without ``engine:``)
DEFAULT_BACKEND = "columnar"


@lean_dataclass  # its __init__ below, the rest from FrozenFields (issue 27: nothing generated)
class EngineOption(FrozenFields):
    """A setting of a backend.

    :param key: its name under a config's ``engine:`` and in ``--engine-option KEY=VALUE``.
    :param flag: an ``evalkit eval`` flag of its own (``--spark-master``), or ``""``.
    :param help: one line for ``--help``.
    :param metavar: the value's name in ``--help``.
    :param default: the value when not given (``None``: the backend's own default).
    :param repeat: the flag may be repeated; its values are collected in a list.
    """

    key: str
    flag: str = ""
    help: str = ""
    metavar: str = "VALUE"
    default: Any = None
    repeat: bool = False

    def __init__(self, key: str, flag: str = "", help: str = "", metavar: str = "VALUE", default: Any = None,
                 repeat: bool = False) -> None:
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "flag", flag)
        object.__setattr__(self, "help", help)
        object.__setattr__(self, "metavar", metavar)
        object.__setattr__(self, "default", default)
        object.__setattr__(self, "repeat", repeat)


#: the settings of the Spark backend (a config's ``engine: {name: spark, ...}``)
SPARK_OPTIONS: tuple[EngineOption, ...] = (
    EngineOption("master", "--spark-master", "Spark master (default local[*])", "URL", "local[*]"),
    EngineOption("conf", "--spark-conf", "a Spark setting; repeat for several", "KEY=VALUE", repeat=True),
    EngineOption("partitions", help="number of query partitions (default: spark.sql.shuffle.partitions)",
                 metavar="N"),
)

#: every option of the built-in backends (their flags are ``evalkit eval``'s)
BUILTIN_OPTIONS: tuple[EngineOption, ...] = SPARK_OPTIONS


@runtime_checkable
class Backend(Protocol):
    """What the command line and the runner use of a backend (see the module docstring)."""

    name: str
    in_process: bool
    options: tuple[EngineOption, ...]

    def evaluate(self, qrels: Any, runs: Any, flavours: Sequence[Any], **options: Any) -> Results:
        """Evaluate data held in the backend's own form; :class:`~evalkit.Results` ``(s, f, q)``."""

    def evaluate_files(self, qrels: str | os.PathLike[str], runs: Sequence[str | os.PathLike[str]],
                       flavours: Sequence[Any], *,
                       labels: Sequence[str] | None = None, registry: Registry | None = None,
                       names: Sequence[str | None] | None = None, namer: Callable[..., list[str]] | None = None,
                       subtopics: str | os.PathLike[str] | None = None, sensitivity: bool = False,
                       options: Mapping[str, Any] | None = None) -> Any:
        """Evaluate files the backend reads itself: :class:`~evalkit.Results`, or with
        ``sensitivity`` ``(results, (low, high), judged)`` as :func:`evalkit.run_config`
        computes them."""


def get_backend(name: str | None = None, registry: Registry | None = None) -> Backend:
    """The backend registered (or aliased) as ``name`` (default :data:`DEFAULT_BACKEND`).

    :raises FlavourError: unknown name (the message lists the known backends).
    :raises DisabledPluginError: the backend's plugin was disabled at start-up.
    """
    from .registry import registry_or_default

    backend: Backend = registry_or_default(registry).get("engine", name or DEFAULT_BACKEND)
    return backend


def engine_options(backend: Backend, given: Mapping[str, Any]) -> dict[str, Any]:
    """``given`` (a config's ``engine:`` without ``name``, or the command line's
    options), checked against ``backend.options``; keys left out or ``None`` take the
    option's default (left out when that is ``None``).

    :raises ConfigError: a key the backend does not declare (the message lists its keys).
    """
    from .errors import ConfigError

    known = {o.key: o for o in backend.options}
    unknown = sorted(k for k in given if k not in known)
    if unknown:
        keys = ", ".join(sorted(known)) or "none"
        raise ConfigError(f"engine '{backend.name}' has no option {', '.join(map(repr, unknown))} "
                          f"(its options: {keys})")
    out: dict[str, Any] = {}
    for key, option in known.items():
        value = given.get(key)
        value = option.default if value is None else value
        if value is not None:
            out[key] = value
    return out


__all__ = ["DEFAULT_BACKEND", "Backend", "EngineOption", "engine_options", "get_backend"]
