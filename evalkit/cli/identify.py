"""``evalkit identify QRELS RUN --value 0.4021 [--k 10]``: which flavour produced a number?

With ``--table FILE`` (lines ``system value``) several runs are given; a table's
system matches a run by its runid, its file name or its file name without TREC's
``input.`` prefix and ``.gz``. Prints, by name, the flavours that reproduce every
reported value within its printed precision, most common first (presets by how
widely used their library is, then compositions by their number of non-default
choices). The logic is :func:`evalkit.identify.identify`.
"""

from __future__ import annotations

import argparse
import json
import os


HELP = "find the NDCG flavours that reproduce a reported value"


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "identify",
        help=HELP,
        description=HELP + ": evaluates the run(s) under every preset and every composition "
        "of the registered components and lists those matching within the printed precision "
        "(0.4021 means [0.40205, 0.40215]; 40.21 and 40.21%% are read as percentages).",
    )
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file (plain or .gz)")
    p.add_argument("runs", metavar="RUN", nargs="+", help="TREC run file(s) (plain or .gz)")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--value", help="the reported value, as printed (one RUN)")
    what.add_argument("--table", metavar="FILE", help="file of 'system value' lines, one per run")
    p.add_argument("--k", type=int, default=None, help="the reported cutoff, if known")
    p.add_argument("--cutoffs", default=None,
                   help="comma-separated cutoffs to try when --k is not given "
                        "(default: none, 5, 10, 20, 100, 1000)")
    p.add_argument("--limit", type=int, default=30,
                   help="print at most this many answers (0: all; default 30)")
    p.add_argument("--format", choices=("table", "json"), default="table")
    return p


def _aliases(path: str, run) -> set[str]:
    from ..runner.config import run_name_from_file

    base = os.path.basename(path)
    return {run.name, base, run_name_from_file(base)}


def _cutoffs(text: str | None) -> list[int] | None:
    from ..errors import EvalkitError

    if text is None:
        return None
    try:
        out = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise EvalkitError(f"--cutoffs must be comma-separated integers, got {text!r}") from None
    if any(k < 1 for k in out):
        raise EvalkitError(f"--cutoffs must be >= 1, got {text!r}")
    return out


def run(args: argparse.Namespace) -> int:
    from ..errors import EvalkitError
    from ..identify import identify, parse_reported, read_reported_table
    from ..io import read_qrels, read_run
    from . import registry_for

    registry = registry_for(args)
    qrels = read_qrels(args.qrels)
    runs = [read_run(p) for p in args.runs]
    if args.value is not None:
        if len(runs) != 1:
            raise EvalkitError("--value needs exactly one RUN; use --table for several")
        reported = parse_reported(args.value)
        result = identify(qrels, runs[0], reported, k=args.k, cutoffs=_cutoffs(args.cutoffs),
                          registry=registry)
    else:
        table = read_reported_table(args.table)
        chosen = {}
        for system in table:
            hits = [(p, r) for p, r in zip(args.runs, runs) if system in _aliases(p, r)]
            if not hits:
                raise EvalkitError(f"{args.table}: system {system!r} matches no RUN "
                                   f"(runids: {', '.join(r.name for r in runs)})")
            if len(hits) > 1:
                raise EvalkitError(f"{args.table}: system {system!r} matches several RUNs: "
                                   f"{', '.join(p for p, _ in hits)}")
            chosen[system] = hits[0][1].renamed(system)
        result = identify(qrels, list(chosen.values()), table, k=args.k,
                          cutoffs=_cutoffs(args.cutoffs), registry=registry)
    if args.format == "json":
        print(json.dumps(_json(result), indent=1, allow_nan=False))
        return 0 if result.matches else 1
    print(_text(result, args.limit))
    return 0 if result.matches else 1


def _fmt(v: float) -> str:
    return "-" if v != v else f"{v:.6f}"


def _text(result, limit: int) -> str:
    from tabulate import tabulate  # imported when a table is printed

    wanted = ", ".join(f"{s} {r.text} (±{r.tolerance:.2g})" for s, r in zip(result.systems, result.reported))
    lines = []
    if not result.matches:
        lines.append(f"no flavour of {result.n_candidates} tried reproduces {wanted}; closest:")
        answers = result.closest
    else:
        lines.append(f"{len(result.matches)} of {result.n_candidates} flavours reproduce {wanted}:")
        answers = result.matches
    shown = answers if limit <= 0 else answers[:limit]
    headers = ["#", "flavour"] + list(result.systems) + ["also"]
    rows = [[i + 1, a.name] + [_fmt(v) for v in a.values] + [", ".join(a.aliases)]
            for i, a in enumerate(shown)]
    lines.append(tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True))
    if len(shown) < len(answers):
        lines.append(f"... {len(answers) - len(shown)} more (--limit 0 shows all)")
    presets = [a for a in shown if a.preset is not None]
    for a in presets:
        lines.append(f"{a.name} = {a.flavour}")
    return "\n".join(lines)


def _json(result) -> dict:
    def answer(a):
        return {"name": a.name, "canonical": str(a.flavour), "preset": a.preset,
                "aliases": list(a.aliases), "non_default": a.non_default,
                "values": {s: (None if v != v else v) for s, v in zip(result.systems, a.values)}}

    return {
        "reported": {s: {"text": r.text, "value": r.value, "tolerance": r.tolerance}
                     for s, r in zip(result.systems, result.reported)},
        "tried": result.n_candidates,
        "matches": [answer(a) for a in result.matches],
        "closest": [answer(a) for a in result.closest],
    }
