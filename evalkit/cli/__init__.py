"""The ``evalkit`` command line (argparse).

Each command lives in its own module exposing ``add_parser(subparsers)`` (which
returns its :class:`argparse.ArgumentParser`) and ``run(args) -> int``; adding a
command is one more name in :data:`COMMANDS`. Only the CLI prints: the library
returns data objects.

A third-party plugin that fails to load is disabled with one ``evalkit: warning:``
line (:class:`~evalkit.errors.PluginDisabledWarning`); a component that breaks its
contract during an evaluation (:class:`~evalkit.errors.ComponentContractError`:
wrong output, ``sys.exit()``) is an internal error naming it (status 3); Ctrl-C
while a component runs says which one (status 130).

Exit status: 0 success; 2 a user error -- an error derived from
:class:`evalkit.errors.EvalkitError`, an OS error (a missing file) or a usage error --
printed as ``evalkit: error: <message>`` on stderr, never with a traceback; 3 an
internal error (any other exception: a bug in evalkit or in a plugin), printed as
``evalkit: internal error: ...`` with how to report it; ``--debug`` adds the Python
traceback to either; 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
import warnings
from typing import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import (ComponentContractError, EmptyEvaluationWarning, EvalkitError, PluginDisabledWarning,
                      PluginInterrupt, ReferenceDivergenceWarning)
from .registry_args import disable_broken_presets, registry_for  # noqa: F401 - re-exported

if TYPE_CHECKING:
    from ..registry import Registry

#: Command modules of :mod:`evalkit.cli`, in the order ``evalkit --help`` lists them.
COMMANDS: tuple[str, ...] = ("run", "eval", "plugins", "flavours", "explain", "identify",
                            "gate", "history")  # gate, history: evalkit.gates, evalkit.history

EXIT_ERROR = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130

#: Where to report an internal error.
ISSUES = "the evalkit issue tracker"


def _version() -> str:
    from .._version import __version__

    return __version__


class _VersionAction(argparse._VersionAction):
    """argparse's ``--version`` action, reading evalkit's version when it prints it:
    building the parser imports no :mod:`evalkit._version` (issue 27)."""

    @property
    def version(self) -> str:
        return f"evalkit {_version()}"

    @version.setter
    def version(self, value: str | None) -> None:
        """(argparse sets it to ``None``: the property gives the version.)"""


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help formatter, at the width argparse's own takes (the terminal's
    less 2: ``shutil.get_terminal_size().columns - 2``) read by
    :func:`evalkit.report.layout.terminal_columns`, which does not import
    :mod:`shutil` (nor, with it, zlib, bz2 and lzma). argparse builds a formatter for
    every argument it adds; the help it prints is the same, line for line."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        if width is None:
            from ..report.layout import terminal_columns

            width = terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


class Parser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose help formatter is :class:`HelpFormatter`
    unless another is given; its sub-command parsers are of this class too (argparse's
    ``add_subparsers`` makes them of the parent's class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)


def build_parser(commands: Sequence[str] = COMMANDS) -> argparse.ArgumentParser:
    """The ``evalkit`` parser with the sub-commands ``commands`` (default: all, in
    :data:`COMMANDS` order). Each command's module is imported to build its parser;
    :func:`main` builds only the command named on its command line
    (:func:`commands_needed`)."""
    parser = Parser(
        prog="evalkit",
        description="Evaluate rankings with explicit, composable NDCG flavours.",
    )
    parser.add_argument("--version", action=_VersionAction)
    no_plugins_help = ("load no third-party plugins (built-in components only; "
                       "same as EVALKIT_DISABLE_PLUGINS=1)")
    parser.add_argument("--no-plugins", action="store_true", help=no_plugins_help)
    debug_help = "on an error, also print the Python traceback (for bug reports)"
    parser.add_argument("--debug", action="store_true", help=debug_help)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in commands:
        module = importlib.import_module(f"{__name__}.{name}")
        cmd = module.add_parser(sub)
        # also accepted after the command name; SUPPRESS keeps the global value otherwise
        cmd.add_argument("--no-plugins", action="store_true", default=argparse.SUPPRESS, help=no_plugins_help)
        cmd.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=debug_help)
        cmd.set_defaults(_run=module.run)
    return parser


def commands_needed(argv: Sequence[str]) -> tuple[str, ...]:
    """The sub-commands the parser of ``argv`` needs: the one it names, when a known
    command is its first argument that is not an option (the global options take no
    value) and no ``-h``/``--help`` comes before it; else every command (``evalkit
    --help`` lists them all; an unknown name gets argparse's list of choices)."""
    for arg in argv:
        if arg in ("-h", "--help"):
            return COMMANDS
        if not arg.startswith("-"):
            return (arg,) if arg in COMMANDS else COMMANDS
    return COMMANDS


#: The cyclic garbage collector's first threshold while :func:`main` runs (Python's is 700
#: new container objects): the quick-start ``evalkit eval`` creates ~31 000 objects that
#: live to its end (modules, classes, functions; NumPy's among them) and a few hundred in
#: cycles, and at 700 the collector walks them ~45 times (10 M instructions, ~2 ms; issue
#: 27); at this threshold not once. Still a bound on the garbage a longer command holds:
#: its peak memory grew ~2 MB (2%) on ``evalkit run configs/robust03.yaml`` and on the
#: quick start's with every format (100 000 cost 12 MB there; 20 000 nothing, for 70% of
#: the gain).
GC_THRESHOLD = 40_000


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``evalkit`` console script; returns the exit status.

    The garbage collector's first threshold is :data:`GC_THRESHOLD` while it runs. Called
    with ``argv`` (in-process), it restores the threshold on return. Called as the
    program (``argv`` ``None``: the console script, ``python -m evalkit``), whose process
    ends with the command, it leaves it and turns the collector off at the interpreter's
    exit (:mod:`atexit`): Python's last collection before it tears the modules down walks
    every object still alive (8 M instructions, ~2 ms, after the quick start) to free
    what the exit frees anyway; the collection of the teardown itself still runs."""
    threshold = gc.get_threshold()
    if 0 < threshold[0] < GC_THRESHOLD:  # 0: automatic collection is off; leave it off
        gc.set_threshold(GC_THRESHOLD, *threshold[1:])
    if argv is None:
        import atexit

        atexit.register(gc.disable)
        return _main(argv)
    try:
        return _main(argv)
    finally:
        gc.set_threshold(*threshold)  # the objects of the run are collected from now on


def _main(argv: Sequence[str] | None) -> int:
    """:func:`main`'s work."""
    parser = build_parser(commands_needed(sys.argv[1:] if argv is None else argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors (status 2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_ERROR)
    debug = bool(getattr(args, "debug", False))
    try:
        with warnings.catch_warnings():
            for category in _OWN_WARNINGS:
                warnings.simplefilter("default", category)  # shown once, never raised
            warnings.showwarning = _warning_printer(warnings.showwarning)
            return int(args._run(args) or 0)
    except BrokenPipeError:  # `evalkit eval ... | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (EvalkitError, OSError) as exc:  # OSError: missing file, permission denied ...
        if debug:
            _print_traceback()
        print(f"evalkit: error: {_escaped(exc)}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt as exc:
        where = f" ({exc.where})" if isinstance(exc, PluginInterrupt) else ""
        print(f"evalkit: interrupted{where}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - anything else is a bug: say so, no traceback unless --debug
        if debug:
            _print_traceback()
        print(_escaped(internal_error_message(exc, debug, argv)), file=sys.stderr)
        return EXIT_INTERNAL


def _print_traceback() -> None:
    """``--debug``: the Python traceback of the exception being handled, on standard
    error (:mod:`traceback` is imported here, on an error only)."""
    import traceback

    traceback.print_exc()


def _escaped(text: Any) -> str:
    """A message for standard error with every name it quotes made harmless (ESC
    sequences, bidirectional overrides, lone surrogates written as escapes):
    :func:`evalkit.report.escape.message_escape`, the terminal's one escaping function."""
    from ..report.escape import message_escape

    return message_escape(text)


#: the warnings the CLI prints as one ``evalkit: warning:`` line
_OWN_WARNINGS = (EmptyEvaluationWarning, ReferenceDivergenceWarning, PluginDisabledWarning)


def _warning_printer(default: Any) -> Any:
    """A ``warnings.showwarning`` that prints evalkit's own warnings as one ``evalkit:
    warning:`` line on standard error (not Python's ``file:line: Category: message`` and
    source line) and hands the others to ``default``."""
    def show(message: Any, category: Any, filename: Any, lineno: Any, file: Any = None, line: Any = None) -> None:
        if issubclass(category, _OWN_WARNINGS):
            print(f"evalkit: warning: {_escaped(message)}", file=sys.stderr if file is None else file)
        else:
            default(message, category, filename, lineno, file, line)
    return show


def internal_error_message(exc: BaseException, debug: bool, argv: Sequence[str] | None = None) -> str:
    """What the CLI prints for an exception that is not a user error: that it is
    internal, the exception, how to report it and how to get the traceback."""
    from .._version import __version__

    where = _origin(exc)
    command = " ".join(sys.argv[1:] if argv is None else argv)
    plugin = getattr(exc, "plugin", None) if isinstance(exc, ComponentContractError) else None
    if plugin:  # a third-party component broke its contract: name it, not evalkit
        from ..registry import DISABLE_ENV

        assert isinstance(exc, ComponentContractError)  # plugin is read from those only

        return "\n".join([
            f"evalkit: internal error: {type(exc).__name__}: {exc}",
            f"This is a bug in plugin '{plugin}' ({exc.origin}), not a mistake in your input: please report it "
            "to the plugin's authors" + (", with the traceback above." if debug else
                                         " (evalkit --debug COMMAND ... adds the traceback)."),
            f"To run without it: {DISABLE_ENV}={plugin} (or evalkit --no-plugins for every plugin)."])
    lines = [f"evalkit: internal error: {type(exc).__name__}: {exc}" + (f" (in {where})" if where else ""),
             "This is a bug in evalkit or in one of its plugins, not a mistake in your input.",
             f"Please report it to {ISSUES} with the command line (evalkit {command}), "
             f"evalkit {__version__}, Python {sys.version.split()[0]}"
             + (", and the traceback above." if debug else
                ", and the traceback that the same command prints with --debug "
                "(evalkit --debug COMMAND ...)."),
             "To rule out a third-party plugin, run the command again with --no-plugins."]
    return "\n".join(lines)


def _origin(exc: BaseException) -> str:
    """``module:line`` of the innermost frame of the traceback ('' without one)."""
    tb = exc.__traceback__
    if tb is None:
        return ""
    import traceback

    frames = traceback.extract_tb(tb)
    if not frames:
        return ""
    last = frames[-1]
    return f"{os.path.basename(last.filename)}:{last.lineno}"
