"""``evalkit eval QRELS RUN [RUN ...] -m SPEC ...``: evaluate runs directly.

``--format tsv`` prints trec_eval's lines ``measure<TAB>qid<TAB>value`` (the measure
padded to 22 characters, 4 decimals, ``all`` for the mean), per-query lines first
with ``-q``, as ``trec_eval -q`` prints them; the measure name is the preset's
native name (trec_eval's own for trec_eval presets and names: ``ndcg_cut_10``,
``P_10``, ``map``) or else the canonical flavour string. With more than
one run every line starts with the run name and a tab.
"""

from __future__ import annotations

import argparse
import json
import math
import os

from .argtypes import DIGITS


HELP = "evaluate runs against qrels under one or more measure specs"


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "eval",
        help=HELP,
        description=HELP + ". SPEC is a canonical flavour string "
        "('ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval)@10'), a preset name with an "
        "optional cutoff ('trec_eval.ndcg_cut@10'; see `evalkit flavours`), a trec_eval measure name "
        "('ndcg_cut.10', 'map', 'P.5,10', 'all_trec') or an ir_measures name ('nDCG@10', 'AP').",
    )
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file (plain or .gz)")
    p.add_argument("runs", metavar="RUN", nargs="+", help="TREC run file(s) (plain or .gz; - reads standard input)")
    p.add_argument("-m", "--measure", dest="measures", metavar="SPEC", action="append", required=True,
                   help="measure spec; repeat for several")
    p.add_argument("--subtopic-qrels", metavar="FILE",
                   help="subtopic qrels (ndeval's 'topic subtopic docno grade') for the diversity "
                        "measures (ndeval.alpha_ndcg, ndeval.err_ia, ...; see `evalkit flavours`)")
    p.add_argument("-q", "--per-query", action="store_true", help="also print per-query values")
    p.add_argument("--format", choices=("table", "tsv", "json"), default="table",
                   help="table (default), tsv (trec_eval lines) or json")
    p.add_argument("--digits", type=DIGITS, default=4, help="decimals in the table format (0-17, default 4)")
    p.add_argument("--engine", default="columnar", metavar="NAME",
                   help="evaluation backend from the registry: columnar (alias local; the default, in process) "
                        "or spark (evalkit.spark; QRELS and RUN may then also be directories, globs or Parquet)")
    p.add_argument("--spark-master", default="local[*]", metavar="URL", help="Spark master (default local[*])")
    p.add_argument("--spark-conf", action="append", default=[], metavar="KEY=VALUE",
                   help="a Spark setting; repeat for several")
    return p


def _names(paths: list[str], runs) -> list[str]:
    """Run names: the runid column; file names if two runids clash; else the paths."""
    names = [r.name for r in runs]
    if len(set(names)) == len(names):
        return names
    from ..runner.config import run_name_from_file  # the YAML runner: only when runids clash

    names = [run_name_from_file(os.path.basename(p)) for p in paths]
    if len(set(names)) == len(names):
        return names
    return list(paths)


def _value(v: float, digits: int = 4) -> str:
    return "-" if math.isnan(v) else f"{v:.{digits}f}"


def tsv_lines(results, measures, per_query: bool) -> list[str]:
    """trec_eval-style lines for every run (see module docstring)."""
    from ..report.escape import text_escape as _t

    lines = []
    prefix_runs = len(results.systems) > 1
    means = results.means()
    # one line per name: a measure given twice (trec_eval.ndcg_cut@10 and ndcg_cut.10) is
    # printed once; two different measures under one name are refused (check_tsv_names)
    seen: dict[str, int] = {}
    shown = [seen.setdefault(m.native, f) == f for f, m in enumerate(measures)]
    for s, system in enumerate(results.systems):
        pre = f"{_t(system)}\t" if prefix_runs else ""
        if per_query:
            for q, qid in enumerate(results.qids):
                for f, m in enumerate(measures):
                    v = results.values[s, f, q]
                    if shown[f] and not math.isnan(v):
                        lines.append(f"{pre}{_t(m.native):<22}\t{_t(qid)}\t{v:.4f}")
        for f, m in enumerate(measures):
            v = means[s, f]
            if shown[f] and not math.isnan(v):
                lines.append(f"{pre}{_t(m.native):<22}\tall\t{v:.4f}")
    return lines


def check_tsv_names(measures) -> None:
    """``--format tsv`` prints one name per measure (trec_eval's, or the preset's native
    name): two different measures under one name would be two different values a
    reader cannot tell apart, so they are refused before anything is read.

    :raises EvalkitError: naming the shared name and the measures behind it."""
    from ..errors import EvalkitError
    from ..report.escape import text_escape as _t

    by_name: dict[str, list] = {}
    for m in measures:
        group = by_name.setdefault(m.native, [])
        if all(other.flavour != m.flavour for other in group):
            group.append(m)
    clashes = {name: group for name, group in by_name.items() if len(group) > 1}
    if clashes:
        parts = [f"'{_t(name)}' would name " + " and ".join(f"{_t(m.label)} ({_t(str(m.flavour))})" for m in group)
                 for name, group in clashes.items()]
        raise EvalkitError("--format tsv prints one measure name per line, and " + "; ".join(parts)
                           + ": give only one of them, or use --format table or json (they label each measure)")


def _with_count(value: str, count: int, show: bool) -> str:
    """A mean cell, with its number of queries when ``show`` (the row's means do not
    all average over the same number): ``0.4512 (44 queries)``."""
    return f"{value} ({count} quer{'y' if count == 1 else 'ies'})" if show else value


def table_text(results, measures, per_query: bool, digits: int, width: int | None = None) -> str:
    """The means (and with ``per_query`` every query's values) as a table, one column
    per measure; with ``width`` (``evalkit eval`` passes the terminal's), the columns are
    split into blocks and long measure names folded to fit it, as ``evalkit run``'s
    report (:func:`evalkit.report.text.fit_table`)."""
    from ..report.escape import text_escape as _t
    from ..report.text import fit_table  # imported when a table is printed

    headers = [_t(m.label) for m in measures]
    means = results.means()
    counts = results.counts()
    multi = len(results.systems) > 1

    def mean_cells(s: int) -> list[str]:
        # side by side, means over different query sets show their counts (issue 25)
        uneven = len({int(c) for v, c in zip(means[s], counts[s]) if not math.isnan(v)}) > 1
        return [_with_count(_value(v, digits), int(c), uneven and not math.isnan(v))
                for v, c in zip(means[s], counts[s])]

    if not per_query:
        rows = [[_t(system)] + mean_cells(s) for s, system in enumerate(results.systems)]
        return fit_table(rows, ["run"] + headers, ["left"] * (1 + len(headers)), width)
    rows = []
    for s, system in enumerate(results.systems):
        for q, qid in enumerate(results.qids):
            vals = results.values[s, :, q]
            if not all(math.isnan(v) for v in vals):
                rows.append(([_t(system)] if multi else []) + [_t(qid)] + [_value(v, digits) for v in vals])
        rows.append(([_t(system)] if multi else []) + ["all"] + mean_cells(s))
    key = ["run", "qid"] if multi else ["qid"]
    return fit_table(rows, key + headers, ["left"] * (len(key) + len(headers)), width, keep=len(key))


def json_text(results, measures, per_query: bool) -> str:
    from .._version import __version__

    def num(v):
        return None if math.isnan(v) else float(v)

    means = results.means()
    data = {
        "evalkit_version": __version__,
        "measures": [{"label": m.label, "native": m.native, "canonical": str(m.flavour)} for m in measures],
        "runs": {},
    }
    for s, system in enumerate(results.systems):
        entry = {"all": {m.label: num(means[s, f]) for f, m in enumerate(measures)},
                 "num_q": {m.label: int(c) for m, c in zip(measures, results.counts()[s])}}
        if per_query:
            entry["per_query"] = {
                str(qid): {m.label: num(results.values[s, f, q]) for f, m in enumerate(measures)}
                for q, qid in enumerate(results.qids)
                if not all(math.isnan(v) for v in results.values[s, :, q])
            }
        data["runs"][system] = entry
    return json.dumps(data, indent=1, allow_nan=False)


def run(args: argparse.Namespace) -> int:
    from ..engine.evaluate import evaluate, needs_rank
    from ..io import read_qrels, read_run, read_subtopic_qrels
    from . import registry_for
    from .specs import expand_measures

    registry = registry_for(args)
    measures = expand_measures(args.measures, registry)
    if args.format == "tsv":
        check_tsv_names(measures)
    engine = registry.get("engine", args.engine)  # FlavourError lists the known engines
    if engine.name == "spark":
        from ..spark import files, parse_conf

        results = files.evaluate_paths(args.qrels, args.runs, [m.flavour for m in measures],
                                       labels=[m.label for m in measures], registry=registry, namer=_names,
                                       master=args.spark_master, conf=parse_conf(args.spark_conf),
                                       subtopics_path=args.subtopic_qrels)
    else:
        qrels = read_qrels(args.qrels)
        subtopics = read_subtopic_qrels(args.subtopic_qrels) if args.subtopic_qrels else None
        keep_rank = needs_rank([m.flavour for m in measures], registry)  # ndeval.*: the rank column
        runs = [read_run(p, keep_rank=keep_rank) for p in args.runs]
        from ..engine.checks import require_common_queries

        require_common_queries(qrels, runs)  # nothing evaluated: exit 2, not a table of '-'
        runs = [r.renamed(n) for r, n in zip(runs, _names(args.runs, runs))]
        run_engine = evaluate if engine.name == "columnar" else engine.fn
        results = run_engine(qrels, runs, [m.flavour for m in measures], labels=[m.label for m in measures],
                             subtopics=subtopics, registry=registry)
    if args.format == "tsv":
        text = "\n".join(tsv_lines(results, measures, args.per_query))
    elif args.format == "json":
        text = json_text(results, measures, args.per_query)
    else:
        from ..report.text import terminal_width

        text = table_text(results, measures, args.per_query, args.digits, width=terminal_width())
    print(text)
    return 0
