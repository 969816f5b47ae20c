"""Command-line options shared by ``evalkit run`` and ``evalkit gate``: the results
store (``--store``, ``--no-store``, ``--label``) and the gates (``--gate-dir``), and
how ``evalkit run --gate`` / ``evalkit gate`` check, print and write the gates."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_store_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", metavar="FILE",
                   help="the results store (SQLite; relative to the current directory); overrides store.path "
                        "of the config (default .evalkit/results.sqlite beside the config)")
    p.add_argument("--no-store", action="store_true",
                   help="evaluate everything and store nothing (overrides store: of the config)")
    p.add_argument("--label", metavar="LABEL",
                   help="the label this evaluation is recorded under in the store (default: git describe "
                        "--always --dirty in the config's directory, else today's date)")


def add_gate_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gate-dir", metavar="DIR",
                   help="write junit.xml and gates.md here (relative to the current directory; replaced as a "
                        "whole); overrides output.gates_dir of the config")


def store_setting(args: argparse.Namespace) -> Any:
    """``run_config``'s ``store=`` from the options: a path, ``False`` or ``True``."""
    if args.no_store:
        if args.store:
            from ..errors import ConfigError

            raise ConfigError("--store and --no-store contradict each other")
        return False
    return args.store or True


def gate_directory(args: argparse.Namespace, config: Any) -> Any:
    """Where the gate files go (``--gate-dir``, else ``output.gates_dir``, else ``None``),
    checked now so that a refused directory fails before anything is evaluated."""
    from ..gate_output import JUNIT_FILE, SUMMARY_FILE
    from ..report.write import check_output_directory

    directory = args.gate_dir if args.gate_dir is not None else config.gates_dir
    if directory is not None:
        check_output_directory(directory, {JUNIT_FILE, SUMMARY_FILE})
    return directory


def check_and_report(report: Any, config: Any, args: argparse.Namespace, out: Any = None) -> int:
    """Check the config's gates on ``report``; print one line per verdict; write the
    JUnit XML and Markdown files and the GitHub job summary. Returns 0 (all hold) or 1."""
    from ..errors import ConfigError
    from ..gate_output import append_github_summary, write_gate_files
    from ..gates import check_gates
    from ..report.escape import text_escape
    from ..store import ResultsStore

    if not config.gates:
        raise ConfigError(f"{config.source}: the config has no gates: section (see docs/ci.md)")
    out = sys.stdout if out is None else out
    use = report.metadata.get("_store")
    store = None
    if use is not None and any(g.against == "last" for g in config.gates):
        store = ResultsStore(use.path)
    try:
        result = check_gates(report, config.gates, store=store, config=use.config if use else "",
                             label=use.label if use else None, invocation=use.invocation if use else None,
                             no_store=use is None)
    finally:
        if store is not None:
            store.close()
    for v in result.verdicts:
        print(text_escape(v.line()), file=out)
    c = result.counts()
    print(f"gates: {c['pass']} passed, {c['fail']} failed, {c['skip']} skipped", file=out)
    directory = gate_directory(args, config)
    if directory is not None:
        paths = write_gate_files(result, directory)
        print("Wrote " + ", ".join(str(p) for p in paths), file=out)
    summary = append_github_summary(result)
    if summary is not None:
        print(f"Appended the gate summary to {summary}", file=out)
    return 0 if result.passed else 1
