"""``--engine``, ``--engine-option`` and the built-in backends' own flags
(``evalkit eval``): the command line's side of :mod:`evalkit.backends`. No engine is
named here; the flags come from the backends' :class:`~evalkit.backends.EngineOption`
declarations (:data:`evalkit.backends.BUILTIN_OPTIONS`, plain data: building
the parser imports no engine).
"""

from __future__ import annotations

import argparse
from typing import Any

from ..backends import DEFAULT_BACKEND, Backend, EngineOption, engine_options


def _builtin_options() -> tuple[EngineOption, ...]:
    from ..backends import BUILTIN_OPTIONS  # plain data: no engine is imported

    return BUILTIN_OPTIONS


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """``--engine NAME``, ``--engine-option KEY=VALUE`` and the flags of the built-in
    backends' options (a third-party backend's options go through ``--engine-option``)."""
    parser.add_argument("--engine", default=DEFAULT_BACKEND, metavar="NAME",
                        help=f"evaluation backend from the registry (default {DEFAULT_BACKEND}, in process; "
                             "an unknown NAME is refused with the list of known ones; a backend that reads the files "
                             "itself may also take directories, globs or Parquet as QRELS and RUN)")
    parser.add_argument("--engine-option", dest="engine_option", action="append", default=[],
                        metavar="KEY=VALUE", help="a setting of the backend; repeat for several")
    for option in _builtin_options():
        if option.flag:
            parser.add_argument(option.flag, dest=_dest(option), metavar=option.metavar, help=option.help,
                                action="append" if option.repeat else "store",
                                default=[] if option.repeat else None)


def _dest(option: EngineOption) -> str:
    return "engine_flag_" + option.flag.lstrip("-").replace("-", "_")


def options_from_args(backend: Backend, args: argparse.Namespace) -> dict[str, Any]:
    """The backend's options from :func:`add_engine_arguments`' flags: its own flags,
    then ``--engine-option KEY=VALUE`` (a repeated key collects a list when the option
    repeats, else the last value wins); checked by :func:`engine_options`.

    :raises ArgumentError: a flag of another backend, or an item without ``=``.
    :raises ConfigError: a key the backend does not declare.
    """
    from ..errors import ArgumentError

    given: dict[str, Any] = {}
    mine = {o.flag for o in backend.options if o.flag}
    for option in _builtin_options():
        value = getattr(args, _dest(option), None) if option.flag else None
        if value in (None, []):
            continue
        if option.flag not in mine:
            raise ArgumentError(f"{option.flag}: not an option of --engine {backend.name}")
        given[option.key] = value
    repeats = {o.key for o in backend.options if o.repeat}
    for item in getattr(args, "engine_option", None) or ():
        key, sep, value = str(item).partition("=")
        key = key.strip()
        if not sep or not key:
            raise ArgumentError(f"--engine-option {item!r}: expected KEY=VALUE")
        if key in repeats:
            given.setdefault(key, []).append(value.strip())
        else:
            given[key] = value.strip()
    return engine_options(backend, given)
