"""``evalkit plugins``: every registered component grouped by origin (evalkit's
built-ins first, then each distribution and entry point it came from), then by
family, with its parameters and formula."""

from __future__ import annotations

import argparse
import json
from typing import Any, TYPE_CHECKING


HELP = "list every component (gain, discount, IDCG strategy, tie policy, metric) and its origin"

FAMILY_TITLES = {
    "gain": "Gains (grade -> gain)",
    "discount": "Discounts (rank -> weight)",
    "idcg": "IDCG strategies (which documents form the ideal ranking)",
    "ties": "Tie policies (order of documents with equal scores)",
    "metric": "Metrics",
    "negative": "Negative-grade rules (what a negative judged grade means)",
    "grades": "Grade rules (which grades are accepted, and the grade the gain reads)",
    "run_filter": "Run filters (documents removed from the sorted run)",
    "outcome": "Outcomes (the value reported per query)",
    "aggregate": "Aggregates (over queries)",
}


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = subparsers.add_parser("plugins", help=HELP, description=HELP + ".")
    p.add_argument("--family", choices=tuple(FAMILY_TITLES), help="only this family")
    p.add_argument("--format", choices=("table", "json"), default="table", help="table (default) or json")
    return p


def format_params(component: Any) -> str:
    """``base=2.0, ...`` (name=default; ``name`` alone when required)."""
    parts = [p.name if p.default is None else f"{p.name}={p.default}" for p in component.params]
    if getattr(component, "numeric_keys", None):
        parts.append(component.numeric_keys)
    return ", ".join(parts) or "-"


def component_info(component: Any) -> dict:
    info = {
        "name": component.name,
        "parameters": [
            {"name": p.name, "kind": p.kind, "default": p.default, "description": p.description,
             **({"choices": list(p.choices)} if p.choices else {})}
            for p in component.params
        ],
        "formula": component.formula,
        "source": component.source,
        "description": component.description,
        "origin": component.origin,
    }
    if component.family == "metric":
        info["uses"] = sorted(component.uses)
    if component.family == "ties":
        info["averaged"] = bool(component.averaged)
        info["needs_rank"] = bool(component.needs_rank)
    return info


def run(args: argparse.Namespace) -> int:
    from tabulate import tabulate  # imported when a table is printed

    from .registry_args import registry_for

    registry = registry_for(args)
    families = [args.family] if args.family else list(FAMILY_TITLES)
    if args.format == "json":
        data: dict[str, Any] = {f: [component_info(registry.get(f, n)) for n in registry.names(f)] for f in families}
        data["third_party_plugins"] = dict(registry.plugins)
        data["disabled_plugins"] = {p.name: {"origin": p.origin, "reason": p.reason} for p in registry.disabled}
        print(json.dumps(data, indent=1, default=str))
        return 0
    # grouped by origin (evalkit's built-ins first, then each plugin), then by family
    by_origin: dict[str, dict[str, list[list[str]]]] = {}
    for family in families:
        for name in registry.names(family):
            c = registry.get(family, name)
            label = name
            if family == "metric" and c.uses:
                label += f"  [{', '.join(sorted(c.uses))}]"
            if family == "ties" and c.averaged:
                label += "  [expected value]"
            if family == "ties" and c.needs_rank:
                label += "  [rank column]"
            by_origin.setdefault(c.origin, {}).setdefault(family, []).append([label, format_params(c), c.formula])
    from ..registry import BUILTIN_ORIGIN

    from ..report.escape import text_escape
    from ..report.text import terminal_width

    width = terminal_width()
    blocks = []
    for origin in sorted(by_origin, key=lambda o: (o != BUILTIN_ORIGIN, o)):
        blocks.append(f"== {text_escape(origin)} ==")
        for family, rows in by_origin[origin].items():
            rows = [[text_escape(c) for c in r] for r in rows]  # a plugin's names and texts
            # the columns share the terminal's width (COLUMNS): name and parameters up to
            # a third each, the formula the rest; tabulate folds longer cells at spaces
            name_w = max(len("name"), min(max(len(r[0]) for r in rows), max(12, width // 3)))
            param_w = max(len("parameters (default)"), min(max(len(r[1]) for r in rows), max(12, width // 3)))
            formula_w = max(20, width - name_w - param_w - 6)  # two gaps of 2, and 2 of padding
            blocks.append(f"{FAMILY_TITLES[family]}\n\n"
                          + tabulate(rows, headers=["name", "parameters (default)", "formula"],
                                     tablefmt="simple", disable_numparse=True,
                                     maxcolwidths=[name_w, param_w, formula_w]))
    if registry.plugins:
        blocks.append("Third-party plugins loaded: " + "; ".join(registry.plugins.values()))
    else:
        blocks.append("Third-party plugins loaded: none")
    for p in registry.disabled:
        blocks.append(f"Disabled (it failed at start-up): plugin '{p.name}' from {p.origin}: {p.reason}")
    print("\n\n".join(blocks))
    return 0
