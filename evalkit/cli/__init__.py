"""The ``evalkit`` command line (argparse).

Each command lives in its own module exposing ``add_parser(subparsers)`` (which
returns its :class:`argparse.ArgumentParser`) and ``run(args) -> int``; adding a
command is one more name in :data:`COMMANDS`. Only the CLI prints: the library
returns data objects.

Errors derived from :class:`evalkit.errors.EvalkitError` and OS errors (a missing file) print
``evalkit: error: <message>`` to stderr and exit with status 2, without a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Sequence

from ..errors import EvalkitError

#: Command modules of :mod:`evalkit.cli`, in the order ``evalkit --help`` lists them.
COMMANDS: tuple[str, ...] = ("run", "eval", "plugins", "flavours", "explain", "identify")

EXIT_ERROR = 2


def _version() -> str:
    from .._version import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evalkit",
        description="Evaluate rankings with explicit, composable NDCG flavours.",
    )
    parser.add_argument("--version", action="version", version=f"evalkit {_version()}")
    no_plugins_help = ("load no third-party plugins (built-in components only; "
                       "same as EVALKIT_DISABLE_PLUGINS=1)")
    parser.add_argument("--no-plugins", action="store_true", help=no_plugins_help)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        module = importlib.import_module(f"{__name__}.{name}")
        cmd = module.add_parser(sub)
        # also accepted after the command name; SUPPRESS keeps the global value otherwise
        cmd.add_argument("--no-plugins", action="store_true", default=argparse.SUPPRESS, help=no_plugins_help)
        cmd.set_defaults(_run=module.run)
    return parser


def registry_for(args: argparse.Namespace):
    """The component registry, honouring ``--no-plugins``."""
    from ..presets import check_presets
    from ..registry import default_registry

    registry = default_registry(disable_plugins=True if getattr(args, "no_plugins", False) else None)
    check_presets(registry)  # a plugin's broken preset fails at start-up, naming the plugin
    return registry


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``evalkit`` console script; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors (status 2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_ERROR)
    try:
        return int(args._run(args) or 0)
    except BrokenPipeError:  # `evalkit eval ... | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (EvalkitError, OSError) as exc:  # OSError: missing file, permission denied ...
        print(f"evalkit: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
