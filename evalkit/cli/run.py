"""``evalkit run CONFIG.yaml``: compare systems under flavours, print, write files."""

from __future__ import annotations

import argparse
import sys

from .argtypes import DIGITS, int_range
from typing import Any, TYPE_CHECKING

HELP = "evaluate the runs of a YAML config under its flavours; print and write the report"


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "run",
        help=HELP,
        description=HELP + ". Paths in the config are relative to the config file's directory.",
    )
    p.add_argument("config", metavar="CONFIG.yaml", help="the config file")
    p.add_argument("--output-dir", metavar="DIR",
                   help="write the report files here (relative to the current directory); "
                        "overrides output.dir of the config")
    p.add_argument("--formats", nargs="+", metavar="FORMAT",
                   help="output formats (markdown, csv, json, latex, html); overrides output.formats")
    p.add_argument("--digits", type=DIGITS, default=4, help="decimals in the printed tables (0-17, default 4)")
    p.add_argument("--allow-outside", action="store_true",
                   help="let the config's glob: entries match files outside the config's directory tree")
    p.add_argument("--max-flips", type=int_range(0, 10**9), default=5,
                   help="flipped system pairs printed per flavour pair (default 5; the files list all)")
    p.add_argument("--sensitivity", action=argparse.BooleanOptionalAction, default=None,
                   help="compute the tie spread and judged@k (about two more evaluations per run); "
                        "--no-sensitivity leaves them out; overrides report.sensitivity of the config "
                        "(default: on)")
    p.add_argument("--bounds", nargs="?", const="qrels", default=None, metavar="HIGH",
                   help="also compute the unjudged bounds (docs/bounds.md): each mean's interval, marks on "
                        "comparisons and flipped pairs whose order could change, a sentence in the verdict; "
                        "HIGH: 'qrels' (default: the qrels' largest grade), 'query' or a grade; overrides "
                        "report.unjudged_bounds of the config")
    p.add_argument("--no-bounds", dest="bounds", action="store_const", const=False,
                   help="leave the unjudged bounds out (overrides report.unjudged_bounds)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (by default one is shown on stderr when it is a terminal)")
    # results store and gates (evalkit.store, evalkit.gates)
    from .store_args import add_gate_arguments, add_store_arguments

    add_store_arguments(p)
    p.add_argument("--gate", action="store_true",
                   help="also check the config's gates: (exit status 1 when one fails; see evalkit gate)")
    add_gate_arguments(p)
    return p


def run(args: argparse.Namespace) -> int:
    from ..report.plots import matplotlib_available
    from ..report.render import RENDERERS, to_text
    from ..report.text import terminal_width, wrap
    from ..report.write import check_output_directory, write_report
    from ..runner import load_config, run_config
    from ..errors import ConfigError
    from ..progress import terminal_progress
    from .registry_args import registry_for

    registry = registry_for(args)
    if args.formats:
        unknown = [f for f in args.formats if f not in RENDERERS]
        if unknown:
            raise ConfigError(f"--formats: unknown format(s) {', '.join(unknown)} (known: {', '.join(RENDERERS)})")
    config = load_config(args.config, registry=registry, allow_outside=args.allow_outside)
    from .store_args import check_and_report, gate_directory, store_setting

    if args.gate and not config.gates:
        raise ConfigError(f"{args.config}: --gate: the config has no gates: section (see docs/ci.md)")
    if args.gate:
        gate_directory(args, config)  # fail before evaluating, not after
    directory = args.output_dir if args.output_dir is not None else config.output_dir
    if directory is not None:
        check_output_directory(directory)  # fail before evaluating, not after
    progress = None if args.no_progress else terminal_progress(sys.stderr)
    try:
        bounds = args.bounds
        if isinstance(bounds, str) and bounds not in ("qrels", "query"):
            from ..bounds import parse_high

            bounds = parse_high(bounds)  # a grade; ArgumentError (exit status 2) otherwise
        report = run_config(config, registry=registry, progress=progress, sensitivity=args.sensitivity,
                            store=store_setting(args), label=args.label, unjudged_bounds=bounds)
    finally:
        if progress is not None:
            progress.close()
    width = terminal_width()
    print(to_text(report, digits=args.digits, max_flips=args.max_flips, width=width))
    formats = args.formats or list(config.formats)
    if directory is None:
        print("\nevalkit: no output.dir in the config and no --output-dir: report files not written",
              file=sys.stderr)
    else:
        paths = write_report(report, directory, formats)
        print("\n" + wrap("Wrote " + ", ".join(_shown(p) for p in paths), width, "", "  "))
        if "html" in formats and not matplotlib_available():
            print(wrap("evalkit: the HTML report has no plots: matplotlib is not installed "
                       '(pip install "evalkit-ndcg[report]" or pip install matplotlib)', width), file=sys.stderr)
    if report.metadata.get("_store_unavailable"):
        from ..report.escape import text_escape as _esc

        print(f"evalkit: warning: {_esc(report.metadata['_store_unavailable'])}", file=sys.stderr)
    use = report.metadata.get("_store")
    if use is not None:
        from ..report.escape import text_escape

        print(wrap(text_escape(use.summary(_shown(use.path))), width, "", "  "))
    return check_and_report(report, config, args) if args.gate else 0


def _shown(path: Any) -> str:
    """``path`` relative to the current directory when it lies under it, else as given."""
    from pathlib import Path

    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
