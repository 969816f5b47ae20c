"""``evalkit identify QRELS RUN --value 0.4021 [--k 10]``: which flavour produced a number?

Evidence: ``--value`` (repeatable; ``0.4021@10`` gives its cutoff), ``--table FILE``
(lines ``system value [value@k ...]``: several runs and cutoffs; a table's system
matches a run by its runid, its file name or its file name without TREC's ``input.``
prefix and ``.gz``), ``--per-query FILE`` (``qid value`` lines or ``trec_eval -q``
output, for one RUN). Every number must be reproduced; candidates equal on every
query of the data are printed as one answer, with the choices the data cannot tell
apart; the verdict says whether a preset reproduces the numbers, or whether the
evidence is too weak to name a flavour. The logic is :func:`evalkit.identify.identify`.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..data import Run

HELP = "find the NDCG flavours that reproduce reported values, and weigh the evidence"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "identify",
        help=HELP,
        description=HELP + ": evaluates the run(s) under every preset and every flavour one "
        "component or convention away from a preset and keeps those matching every number within its printed "
        "precision (0.4021 means [0.40205, 0.40215]; 40.21 and 40.21% are read as percentages). "
        "Presets come first, then compositions by their distance to the nearest preset.",
    )
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file (plain or .gz)")
    p.add_argument("runs", metavar="RUN", nargs="+", help="TREC run file(s) (plain or .gz)")
    p.add_argument("--value", action="append", default=None, metavar="V[@K]",
                   help="a reported value of the one RUN, as printed; repeat it for several "
                        "cutoffs (--value 0.4021@10 --value 0.3812@5)")
    p.add_argument("--table", metavar="FILE",
                   help="file of 'system value [value@k ...]' lines (several runs, several cutoffs)")
    p.add_argument("--per-query", metavar="FILE", dest="per_query",
                   help="the one RUN's per-query values: 'qid value' lines or trec_eval -q output "
                        "(one measure; its 'all' line is the mean)")
    p.add_argument("--k", type=int, default=None, help="the cutoff of values given without one, if known")
    p.add_argument("--cutoffs", default=None,
                   help="comma-separated cutoffs to try when the cutoff is unknown "
                        "(default: none, 5, 10, 20, 100, 1000)")
    p.add_argument("--limit", type=int, default=10,
                   help="print at most this many answers (groups); the rest is counted (0: all; default 10)")
    p.add_argument("--format", choices=("table", "json"), default="table")
    return p


def _aliases(path: str, run: Run) -> set[str]:
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


def _evidence(args: argparse.Namespace, runs: Any) -> tuple[list, list]:
    """The evidence and the runs it names (renamed to the table's system names)."""
    from ..errors import EvalkitError
    from ..identify import Evidence, _parse_value_at, read_evidence_table, read_per_query

    if args.k is not None and args.k < 1:
        raise EvalkitError(f"--k must be >= 1, got {args.k}")
    if not (args.value or args.table or args.per_query):
        raise EvalkitError("give the reported number(s): --value, --table or --per-query")
    if args.table and (args.value or args.per_query):
        raise EvalkitError("--table names its systems; use it alone (not with --value or --per-query)")
    if args.table is None:
        if len(runs) != 1:
            raise EvalkitError("--value and --per-query need exactly one RUN; use --table for several")
        name = runs[0].name
        out = []
        for text in args.value or ():
            reported, k = _parse_value_at(text)
            out.append(Evidence(name, reported, k if k is not None else args.k))
        if args.per_query:
            out += read_per_query(args.per_query, name, k=args.k)
        return out, runs
    evidence = read_evidence_table(args.table, k=args.k)
    chosen = {}
    for system in dict.fromkeys(e.system for e in evidence):
        hits = [(p, r) for p, r in zip(args.runs, runs) if system in _aliases(p, r)]
        if not hits:
            raise EvalkitError(f"{args.table}: system {system!r} matches no RUN "
                               f"(runids: {', '.join(r.name for r in runs)})")
        if len(hits) > 1:
            raise EvalkitError(f"{args.table}: system {system!r} matches several RUNs: "
                               f"{', '.join(p for p, _ in hits)}")
        chosen[system] = hits[0][1].renamed(system)
    return evidence, list(chosen.values())


def run(args: argparse.Namespace) -> int:
    from ..identify import identify
    from ..io import read_qrels, read_run
    from .registry_args import registry_for

    registry = registry_for(args)
    qrels = read_qrels(args.qrels)
    runs = [read_run(p) for p in args.runs]
    from ..engine.checks import require_common_queries

    require_common_queries(qrels, runs)  # nothing evaluated: exit 2, not a table of '-'
    evidence, used = _evidence(args, runs)
    result = identify(qrels, used, evidence, cutoffs=_cutoffs(args.cutoffs), registry=registry)
    if args.format == "json":
        print(json.dumps(_json(result), indent=1, allow_nan=False))
    else:
        from ..report.text import terminal_width

        print(_text(result, args.limit, terminal_width()))
    return 0 if result.matches else 1


def _fmt(v: float) -> str:
    return "-" if v != v else f"{v:.6f}"


def _pct(p: float) -> str:
    return f"{100 * p:.2g}%" if p >= 1e-4 else f"{p:.1e}"


def _evidence_text(result: Any) -> str:
    items = [f"{e.label} {e.reported.text}" for e in result.evidence]
    if len(items) > 4:
        per_q = sum(e.qid is not None for e in result.evidence)
        return f"{len(items)} numbers ({per_q} per query) of {', '.join(result.systems)}"
    return ", ".join(items)


def _indistinguishable(group: Any) -> str:
    parts = []
    for key, values in group.varies.items():
        why = group.reasons.get(key)
        parts.append(f"{key} ({len(values)}: {why})" if why else f"{key} ({', '.join(values)})")
    return "; ".join(parts)


def _short(names: list[str], most: int, skip: str = "") -> str:
    """Preset names without their convention variants (``... with missing=zero``)
    and without ``skip``, at most ``most`` of them and a count of the rest."""
    plain = [n for n in dict.fromkeys(n.split(" with ", 1)[0] for n in names) if n != skip]
    text = ", ".join(plain[:most])
    return text + (f" and {len(plain) - most} more" if len(plain) > most else "")


def _strength_lines(result: Any) -> list[str]:
    s = result.strength
    return [
        f"strength: {s.n_flavours} flavours give {s.n_distinct} distinct values on this data "
        f"({s.n_behaviours} distinct per-query behaviours); the chance that an arbitrary flavour "
        f"lands within the printed rounding is {_pct(s.chance)}, about {s.expected_by_chance:.2g} "
        f"match(es) expected by chance",
    ]


def _cell_lines(text: str, room: int) -> str:
    """``text`` on lines of at most ``room`` characters, broken at spaces only (a
    longer word keeps its own line)."""
    import textwrap

    return "\n".join(textwrap.wrap(text, max(1, room), break_long_words=False, break_on_hyphens=False)) or text


def _fit(lines: list[str], width: int | None) -> list[str]:
    """Prose ``lines`` wrapped to ``width`` (continuations indented by two spaces);
    a too long ``name = flavour`` line puts the flavour on lines of its own, folded
    after ``,`` or ``(`` only."""
    import re

    from ..report.text import fold_flavour, wrap

    if width is None:
        return lines
    out = []
    for line in lines:
        if len(line) <= width or "\n" in line:
            out.append(line)
        elif re.fullmatch(r"\S+ = [a-z_][\w.]*\(.*", line):  # "name = flavour(...)"
            name, flavour = line.split(" = ", 1)
            out.append(name + " =\n  " + fold_flavour(flavour, max(1, width - 2)).replace("\n", "\n  "))
        else:
            out.append(wrap(line, width, "", "  "))
    return out


def _text(result: Any, limit: int, width: int | None = None) -> str:
    """The answer as text; ``width``: the line width (``None``: unbounded), to which the
    prose is wrapped, the flavours folded between parameters and the tables fitted
    (:func:`evalkit.report.text.fit_table`: blocks of columns repeating # and flavour)."""
    from tabulate import tabulate  # imported when a table is printed

    from ..report.text import fit_table, fold_flavour

    def table(rows: list[list[Any]], headers: list[str]) -> str:
        if width is None:
            return tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)
        room = max(20, width // 3)
        cells = [[str(r[0]), fold_flavour(str(r[1]), room)]
                 + [_cell_lines(str(c), max(16, width // 4)) for c in r[2:]] for r in rows]
        return fit_table(cells, headers, ["left"] * len(headers), width, keep=2)

    lines = [f"evidence: {_evidence_text(result)}"]
    if result.status == "none":
        lines.append(f"no flavour of {result.n_candidates} tried reproduces it; closest:")
        headers = ["#", "flavour", "max |difference|"]
        rows = []
        for i, a in enumerate(result.closest):
            gaps = [abs(v - e.reported.value) for v, e in zip(a.values, result.evidence)]
            rows.append([i + 1, a.name, _fmt(max(gaps))])
        lines.append(table(rows, headers))
        lines += _strength_lines(result)
        return "\n".join(_fit(lines, width))
    groups = result.groups
    first = groups[0]
    n_comp_groups = sum(g.first.preset is None for g in groups)
    if result.status == "preset":
        others = _short(list(first.presets), 8, first.name)
        lines.append(f"answer: {first.name} (a preset)"
                     + (f"; the same on this data: {others}" if others else ""))
        if len(groups) > 1:
            lines.append(f"{len(groups) - 1} other answer(s) match too: {first.name} comes first by "
                         f"prior (a preset of a real library), not because the data rules them out")
    elif result.status == "composition":
        lines.append(f"answer: {first.name} (no preset matches; {first.first.distance} change(s) "
                     f"from the nearest preset)")
    else:
        lines.append(f"the evidence is too weak to name a flavour: no preset reproduces it, "
                     f"{n_comp_groups} group(s) of compositions do, and about "
                     f"{result.strength.expected_by_chance:.2g} match(es) are expected by chance. "
                     f"Give more numbers: other runs (--table), other cutoffs (--value V@K) or "
                     f"per-query values (--per-query).")
    if first.varies and result.status != "weak":
        lines.append(f"the data cannot tell apart: {_indistinguishable(first)}")
    lines += _strength_lines(result)
    shown = groups if limit <= 0 else groups[:limit]
    few = len(result.evidence) <= 4
    headers = ["#", "flavour"] + ([e.label for e in result.evidence] if few else ["max |difference|"]) \
        + ["prior", "indistinguishable", "same on this data"]
    rows = []
    for i, g in enumerate(shown):
        a = g.first
        vals = [_fmt(v) for v in a.values] if few else \
            [_fmt(max(abs(v - e.reported.value) for v, e in zip(a.values, result.evidence)))]
        prior = "preset" if a.preset is not None else f"{a.distance} from a preset"
        also_text = _short(list(g.presets), 3, a.name)
        n_other = len(g.answers) - 1
        rows.append([i + 1, a.name] + vals + [prior, ", ".join(g.varies) or "-",
                     also_text or (f"{n_other} composition(s)" if n_other else "-")])
    lines.append(f"{len(groups)} answer(s) ({len(result.matches)} of {result.n_candidates} flavours) "
                 f"reproduce it:")
    lines.append(table(rows, headers))
    if len(shown) < len(groups):
        rest = groups[len(shown):]
        lines.append(f"... and {len(rest)} more answer(s) ({sum(len(g.answers) for g in rest)} flavours), "
                     f"compositions further from a preset (--limit 0 shows all)")
    for g in shown:
        if g.first.preset is not None:
            lines.append(f"{g.name} = {g.first.flavour}")
    return "\n".join(_fit(lines, width))


def _json(result: Any) -> dict:
    def answer(a: Any) -> Any:
        return {"name": a.name, "canonical": str(a.flavour), "preset": a.preset,
                "aliases": list(a.aliases), "non_default": a.non_default, "distance": a.distance,
                "values": [None if v != v else v for v in a.values]}

    s = result.strength
    return {
        "evidence": [{"system": e.system, "k": e.k, "qid": e.qid, "text": e.reported.text,
                      "value": e.reported.value, "tolerance": e.reported.tolerance}
                     for e in result.evidence],
        "status": result.status,
        "tried": result.n_candidates,
        "strength": {"distinct_values": s.n_distinct, "behaviours": s.n_behaviours,
                     "chance": s.chance, "expected_by_chance": s.expected_by_chance,
                     "facts": dict(s.facts)},
        "groups": [{"name": g.name, "members": [a.name for a in g.answers], "presets": list(g.presets),
                    "varies": {k: list(v) for k, v in g.varies.items()}, "reasons": dict(g.reasons)}
                   for g in result.groups],
        "matches": [answer(a) for a in result.matches],
        "closest": [answer(a) for a in result.closest],
    }
