"""``evalkit flavours``: the named presets, their composition (canonical flavour
string), description, source and the formulas of the components they compose."""

from __future__ import annotations

import argparse
import json
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from ..registry import Registry

HELP = "list the named presets (LIBRARY.MEASURE) with their composition and formulas"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = subparsers.add_parser("flavours", help=HELP, description=HELP + ".")
    p.add_argument("pattern", nargs="?", metavar="PATTERN",
                   help="only presets whose name matches: a shell-style glob when PATTERN contains * ? or [ "
                        "(trec_eval.*, *ndcg_cut*), else a substring (lightgbm); case-insensitive")
    p.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="also show each preset's conformance row (reference, datasets, max |difference|, status)")
    return p


def conformance_rows() -> dict:
    """``{preset: row}`` from the package data ``evalkit/conformance.json`` that the
    conformance suite (tests/conformance) writes together with docs/conformance.md;
    ``{}`` if the file is absent."""
    from importlib import resources

    try:
        text = resources.files("evalkit").joinpath("conformance.json").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return {}
    return json.loads(text)


def _conformance_lines(row: dict | None) -> list[str]:
    if row is None:
        return ["  conformance: no row (not covered by the conformance suite)"]
    return [
        f"  conformance: {row['status']}",
        f"    reference: {row['reference']}",
        f"    datasets: {', '.join(row['datasets']) or '-'}; cutoffs: "
        f"{', '.join(map(str, row['cutoffs'])) or '-'}",
        f"    queries compared: {row['queries_compared']}; ties: {row['ties']}; max |diff| per query: "
        f"{row['max_abs_diff_per_query']} (mean: {row['max_abs_diff_mean']}); tolerance: {row['tolerance']}",
    ] + [line for also in row.get("also", []) for line in (
        f"    also against: {also['reference']}",
        f"      queries compared: {also['queries_compared']}; max |diff| per query: "
        f"{also['max_abs_diff_per_query']} (mean: {also['max_abs_diff_mean']}); tolerance: {also['tolerance']}",
    )]


def _parts(flavour: Any, registry: Registry) -> list[tuple[str, str, str]]:
    """``(family, component as written, formula)`` for the metric and each component."""
    metric = registry.metric(flavour.metric)
    out = [("metric", flavour.metric, metric.formula)]
    from ..flavour import STAGE_KEYS

    for family in ("gain", "discount", "idcg", "ties", *STAGE_KEYS):  # stage components: when not the default
        ref = getattr(flavour, family)
        if ref is not None:
            out.append((family, str(ref), registry.get(family, ref.name).formula))
    return out


def preset_info(preset: Any, registry: Registry) -> dict:
    from ..flavour import parse_flavour

    flavour = parse_flavour(preset.spec, registry)
    return {
        "name": preset.name,
        "composition": str(flavour) + ("@k" if preset.requires_cutoff else ""),
        "requires_cutoff": preset.requires_cutoff,
        "default_cutoffs": list(preset.default_cutoffs),
        "native_name": preset.native_name,
        "description": preset.description,
        "source": preset.source,
        "origin": preset.origin,
        "formulas": {family: {"component": comp, "formula": formula}
                     for family, comp, formula in _parts(flavour, registry)},
    }


def matches(name: str, pattern: str | None) -> bool:
    """``name`` matches ``pattern``: a glob (:func:`fnmatch.fnmatchcase`) when the
    pattern has ``*``, ``?`` or ``[``, else a substring; both case-insensitive;
    ``None`` matches everything.

    >>> matches("trec_eval.ndcg_cut", "TREC*"), matches("sklearn.ndcg_score", "ndcg"), matches("a.b", "a.?x")
    (True, True, False)
    """
    from fnmatch import fnmatchcase

    if pattern is None:
        return True
    name, pattern = name.lower(), pattern.lower()
    return fnmatchcase(name, pattern) if any(c in pattern for c in "*?[") else pattern in name


def run(args: argparse.Namespace) -> int:
    import sys

    from .registry_args import registry_for

    registry = registry_for(args)
    names = [n for n in registry.names("preset") if matches(n, args.pattern)]
    if not names:
        print(f"evalkit flavours: no preset matches {args.pattern!r} (evalkit flavours lists them all)",
              file=sys.stderr)
        return 1
    presets = [registry.preset(n) for n in names]
    infos = [preset_info(p, registry) for p in presets]
    verbose = getattr(args, "verbose", False)
    rows = conformance_rows() if verbose else {}
    if verbose:
        for info in infos:
            info["conformance"] = rows.get(info["name"])
    if args.format == "json":
        print(json.dumps(infos, indent=1, ensure_ascii=False))
        return 0
    from ..report.escape import text_escape
    from ..report.text import terminal_width, wrap

    width = terminal_width()

    def fit(line: str) -> str:
        """One line folded at spaces to the terminal's width (COLUMNS), its
        continuation indented two more; names from plugins escaped."""
        line = text_escape(line)
        lead = line[:len(line) - len(line.lstrip(" "))]
        return wrap(line.lstrip(" "), width, lead, lead + "  ")

    blocks = []
    for info in infos:
        head = info["name"] + ("@k" if info["requires_cutoff"] else "")
        lines = [head, f"  composition: {info['composition']}"]
        if info["default_cutoffs"]:
            lines.append(f"  default cutoffs: {', '.join(map(str, info['default_cutoffs']))}")
        if info["native_name"]:
            lines.append(f"  native name: {info['native_name']}")
        if info["description"]:
            lines.append(f"  {info['description']}")
        if info["source"]:
            lines.append(f"  source: {info['source']}")
        lines.append(f"  origin: {info['origin']}")
        pad = max(len(f"{fam} {c['component']}") for fam, c in info["formulas"].items())
        for family, comp in info["formulas"].items():
            lines.append(f"    {(family + ' ' + comp['component']):<{pad}}  {comp['formula']}")
        if verbose:
            lines.extend(_conformance_lines(info["conformance"]))
        blocks.append("\n".join(fit(line) for line in lines))
    print("\n\n".join(blocks))
    print("\n" + wrap("Use a preset as -m NAME@k (evalkit eval) or as a flavour spec in a config; "
                      "any canonical flavour string works too.", width))
    return 0
