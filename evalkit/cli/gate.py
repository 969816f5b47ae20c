"""``evalkit gate CONFIG.yaml``: evaluate a config (through the results store) and
check its ``gates:``; exit status 0 when all hold, 1 when one fails."""

from __future__ import annotations

import argparse
import sys

from .store_args import add_gate_arguments, add_store_arguments
from typing import TYPE_CHECKING

HELP = "check the quality gates of a YAML config (exit status 0: all hold, 1: one fails)"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "gate", help=HELP,
        description=HELP + "; prints one line per gate, system and flavour with the numbers, and writes junit.xml "
                           "and gates.md (--gate-dir or output.gates_dir) and the GitHub job summary "
                           "($GITHUB_STEP_SUMMARY) when set. Values are taken from the results store when stored; "
                           "the rest is evaluated and stored. Exit status 2: a mistake in the input; 3: an "
                           "internal error.")
    p.add_argument("config", metavar="CONFIG.yaml", help="the config file (with a gates: section)")
    p.add_argument("--allow-outside", action="store_true",
                   help="let the config's glob: entries match files outside the config's directory tree")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (by default one is shown on stderr when it is a terminal)")
    add_store_arguments(p)
    add_gate_arguments(p)
    return p


def run(args: argparse.Namespace) -> int:
    from ..errors import ConfigError
    from ..progress import terminal_progress
    from ..report.escape import text_escape
    from ..runner import load_config, run_config
    from .registry_args import registry_for
    from .store_args import check_and_report, gate_directory, store_setting

    registry = registry_for(args)
    config = load_config(args.config, registry=registry, allow_outside=args.allow_outside)
    if not config.gates:
        raise ConfigError(f"{args.config}: the config has no gates: section (see docs/ci.md)")
    gate_directory(args, config)  # fail before evaluating, not after
    progress = None if args.no_progress else terminal_progress(sys.stderr)
    try:
        report = run_config(config, registry=registry, progress=progress, store=store_setting(args),
                            label=args.label, significance=False)  # the gates need no report statistics
    finally:
        if progress is not None:
            progress.close()
    if report.metadata.get("_store_unavailable"):
        from ..report.escape import text_escape as _esc

        print(f"evalkit: warning: {_esc(report.metadata['_store_unavailable'])}", file=sys.stderr)
    use = report.metadata.get("_store")
    if use is not None:
        from .run import _shown

        print(text_escape(use.summary(_shown(use.path))))
    return check_and_report(report, config, args)
