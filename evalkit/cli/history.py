"""``evalkit history CONFIG.yaml|STORE``: each flavour's mean per label from the results
store, the significant changes between consecutive labels, and an HTML page with the
trend plots."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

HELP = "the history of a config in the results store: means per label, significant changes, trend plots"

_MAGIC = b"SQLite format 3\x00"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = subparsers.add_parser("history", help=HELP, description=HELP + ".")
    p.add_argument("source", metavar="CONFIG.yaml|STORE",
                   help="a config (its store: the config's store.path, else .evalkit/results.sqlite beside it) "
                        "or a results store file")
    p.add_argument("--store", metavar="FILE", help="with a config: read this store instead")
    p.add_argument("--config-name", metavar="NAME",
                   help="with a store holding several configs: which one (the config file's name)")
    p.add_argument("--output-dir", metavar="DIR",
                   help="write history.html (trend plots; replaced as a whole) into DIR")
    p.add_argument("--test", choices=("t", "wilcoxon"), default="t",
                   help="paired test between consecutive labels (default t)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--correction", choices=("holm", "bonferroni", "none"), default="holm",
                   help="correction over the changes of one flavour (default holm)")
    p.add_argument("--digits", type=int, choices=range(0, 18), default=4, metavar="0-17",
                   help="decimals shown (default 4)")
    return p


def _is_store(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(len(_MAGIC)) == _MAGIC
    except IsADirectoryError:
        return False


def run(args: argparse.Namespace) -> int:
    from ..errors import ConfigError
    from ..history import history, html_page, text
    from ..store import ResultsStore, store_path
    from ..store.cached import config_name
    from .registry_args import registry_for

    if not 0 < args.alpha < 1:
        raise ConfigError(f"--alpha: {args.alpha} is not between 0 and 1")
    registry = registry_for(args)
    name = args.config_name
    if _is_store(args.source):
        path = args.source
    else:
        from ..runner import load_config

        cfg = load_config(args.source, registry=registry)
        path = store_path(cfg, args.store or True)
        if path is None:
            raise ConfigError(f"{args.source}: store: false, and no --store given: no history to show")
        if not path.exists():
            raise ConfigError(f"{args.source}: no results store at {path} yet (evalkit run records one)")
        name = name or config_name(cfg)
    with ResultsStore(path) as store:
        h = history(store, name, alpha=args.alpha, test=args.test, correction=args.correction, registry=registry)
    print(text(h, args.digits))
    if args.output_dir is not None:
        from ..report.write import write_files

        paths = write_files({"history.html": html_page(h, args.digits)}, args.output_dir)
        print("Wrote " + ", ".join(str(p) for p in paths))
    return 0
