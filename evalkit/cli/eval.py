"""``evalkit eval QRELS RUN [RUN ...] -m SPEC ...``: evaluate runs directly.

``--format tsv`` prints trec_eval's lines ``measure<TAB>qid<TAB>value`` (the measure
padded to 22 characters, 4 decimals, ``all`` for the mean), per-query lines first
with ``-q``, as ``trec_eval -q`` prints them; the measure name is the preset's
native name (trec_eval's own for trec_eval presets and names: ``ndcg_cut_10``,
``P_10``, ``map``) or else the canonical flavour string. With more than
one run every line starts with the run name and a tab. trec_eval's measures print as
trec_eval prints them (:mod:`evalkit.trec_eval_compat`): in its measure order, counts as
integers, ``runid`` with ``all_trec``/``official``/``set``, ``relstring`` per query;
trec_eval's flags ``-c -M -J -l -N`` and ``--trec-eval-version`` apply to every measure,
and without ``-m`` the measures are trec_eval's ``official`` ones.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .argtypes import DIGITS

if TYPE_CHECKING:
    from ..data import Qrels, Run
    from ..registry import Registry
    from ..results import Results
    from .specs import Measure


def POSITIVE_INT(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


HELP = "evaluate runs against qrels under one or more measure specs"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "eval",
        help=HELP,
        description=HELP + ". SPEC is a canonical flavour string "
        "('ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval)@10'), a preset name with an "
        "optional cutoff ('trec_eval.ndcg_cut@10'; see `evalkit flavours`), a trec_eval measure name "
        "('ndcg_cut.10', 'map', 'P.5,10', 'all_trec'), an ir_measures name ('nDCG@10', 'AP'), or 'official' "
        "(the official measures of an irds:DATASET_ID qrels).",
    )
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file (plain or .gz), or irds:DATASET_ID (the qrels "
                                                  "ir_datasets provides; -m official: its official measures)")
    p.add_argument("runs", metavar="RUN", nargs="+", help="TREC run file(s) (plain or .gz; - reads standard input)")
    p.add_argument("-m", "--measure", dest="measures", metavar="SPEC", action="append",
                   help="measure spec; repeat for several (default: trec_eval's 'official' measures)")
    p.add_argument("--subtopic-qrels", metavar="FILE",
                   help="subtopic qrels (ndeval's 'topic subtopic docno grade') for the diversity "
                        "measures (ndeval.alpha_ndcg, ndeval.err_ia, ...; see `evalkit flavours`)")
    p.add_argument("-q", "--per-query", action="store_true", help="also print per-query values")
    p.add_argument("--format", choices=("table", "tsv", "json"), default="table",
                   help="table (default), tsv (trec_eval lines) or json")
    p.add_argument("--digits", type=DIGITS, default=4, help="decimals in the table format (0-17, default 4)")
    te = p.add_argument_group("trec_eval's flags (a trec_eval command line works with 'trec_eval' replaced by "
                              "'evalkit eval'; evalkit/trec_eval_compat.py)")
    te.add_argument("-c", dest="complete", action="store_true",
                    help="average over every qrels topic; a topic missing from the run scores 0 (missing=zero)")
    te.add_argument("-M", dest="max_docs", type=POSITIVE_INT, metavar="N",
                    help="only the first N ranked documents of each topic (depth=N)")
    te.add_argument("-J", dest="judged_only", action="store_true",
                    help="drop unjudged documents before evaluating (judged_only=yes)")
    te.add_argument("-l", dest="rel_level", type=int, metavar="N",
                    help="relevance level: a judgment >= N is relevant (the binary measures' threshold)")
    te.add_argument("-N", dest="num_docs", type=int, metavar="N", help="documents in the collection (utility)")
    te.add_argument("--trec-eval-version", choices=("10.0", "9.0.8"), default="10.0",
                    help="whose numbers: trec_eval 10.0 (default) or 9.0.8 (scores read as C float, "
                         "as pytrec_eval)")
    # --- unjudged bounds (evalkit.bounds, issue 30) ---
    p.add_argument("--bounds", nargs="?", const="qrels", default=None, metavar="HIGH",
                   help="also print, beside each mean (and per query with -q), the bounds the unjudged "
                        "retrieved documents allow (lower: today's value; upper: judged with grade HIGH, "
                        "default the qrels' largest grade, 'query' each query's own) and the condensed "
                        "value (judged_only=yes, trec_eval -J); see docs/bounds.md")
    # --- end unjudged bounds ---
    from .engine_args import add_engine_arguments

    add_engine_arguments(p)  # --engine, --engine-option and the built-in backends' own flags
    return p


def _names(paths: list[str], runs: Any) -> list[str]:
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


def tsv_lines(results: Any, measures: Any, per_query: bool) -> list[str]:
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


def check_tsv_names(measures: Any) -> None:
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


def table_text(results: Any, measures: Any, per_query: bool, digits: int, width: int | None = None) -> str:
    """The means (and with ``per_query`` every query's values) as a table, one column
    per measure; with ``width`` (``evalkit eval`` passes the terminal's), the columns are
    split into blocks and long measure names folded to fit it, as ``evalkit run``'s
    report (:func:`evalkit.report.layout.fit_table`)."""
    from ..report.escape import text_escape as _t
    from ..report.layout import fit_table  # imported when a table is printed

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


def json_text(results: Any, measures: Any, per_query: bool) -> str:
    import json

    from .._version import __version__

    def num(v: Any) -> Any:
        return None if math.isnan(v) else float(v)

    means = results.means()
    data: dict[str, Any] = {
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
    from ..engine.evaluate import needs_rank
    from ..io import read_qrels, read_run, read_subtopic_qrels
    from .registry_args import registry_for
    from .specs import expand_measures

    registry = registry_for(args)
    if not args.measures:  # trec_eval without -m: its official measures
        args.measures = ["official"]
    specs = list(args.measures)
    if "official" in specs:  # an irds: qrels' official measures (the ecosystem layer, only then)
        from ..ecosystem.ir_datasets import expand_official

        specs = expand_official(specs, args.qrels, registry)
    measures = expand_measures(specs, registry)
    measures = _trec_eval_flags(measures, args, registry)
    if args.format == "tsv":
        check_tsv_names(measures)
    from ..backends import get_backend
    from .engine_args import options_from_args

    backend = get_backend(args.engine, registry)  # FlavourError lists the known engines
    options = options_from_args(backend, args)
    bounds = None  # --- unjudged bounds ---
    if args.bounds is not None and not backend.in_process:
        from ..errors import ArgumentError

        raise ArgumentError(f"--bounds: not available with --engine {backend.name} (in-process engines only)")
    runs = qrels = None  # read here only for an in-process backend
    with _trec_eval_refusal(measures):
        if not backend.in_process:  # the backend reads the files itself
            results = backend.evaluate_files(args.qrels, args.runs, [m.flavour for m in measures],
                                             labels=[m.label for m in measures], registry=registry, namer=_names,
                                             subtopics=args.subtopic_qrels, options=options)
        else:
            qrels = read_qrels(args.qrels)
            subtopics = read_subtopic_qrels(args.subtopic_qrels) if args.subtopic_qrels else None
            keep_rank = needs_rank([m.flavour for m in measures], registry)  # ndeval.*: the rank column
            runs = [read_run(p, keep_rank=keep_rank) for p in args.runs]
            runids = [r.name for r in runs]
            from ..engine.checks import require_common_queries

            require_common_queries(qrels, runs)  # nothing evaluated: exit 2, not a table of '-'
            runs = [r.renamed(n) for r, n in zip(runs, _names(args.runs, runs))]
            args.runids = {r.name: rid for r, rid in zip(runs, runids)}
            if args.bounds is not None:  # --- unjudged bounds: the value comes with them ---
                from ..bounds import parse_high, unjudged_bounds

                bounds = unjudged_bounds(qrels, runs, [m.flavour for m in measures], high=parse_high(args.bounds),
                                         labels=[m.label for m in measures], registry=registry, subtopics=subtopics)
                results = bounds.value
            else:
                results = backend.evaluate(qrels, runs, [m.flavour for m in measures],
                                           labels=[m.label for m in measures], subtopics=subtopics, registry=registry,
                                           **options)
    if args.format == "tsv":
        text = "\n".join(_trec_tsv(results, measures, args, runs, qrels))
    elif args.format == "json":
        results, measures = _without_relstring(results, measures)
        text = json_text(results, measures, args.per_query)
    else:
        results, measures = _without_relstring(results, measures)
        from ..report.layout import terminal_width

        text = table_text(results, measures, args.per_query, args.digits, width=terminal_width())
    if bounds is not None:  # --- unjudged bounds: one block per format ---
        from .. import bounds as bounds_out

        if args.format == "tsv":
            text = "\n".join([text] + bounds_out.bounds_tsv(bounds, [m.native for m in measures], args.per_query))
        elif args.format == "json":
            import json

            data = json.loads(text)
            data["bounds"] = bounds_out.bounds_json(bounds, args.per_query)
            text = json.dumps(data, indent=1, allow_nan=False)
        else:
            from ..report.layout import terminal_width

            text += "\n\n" + bounds_out.bounds_table(bounds, args.per_query, args.digits, width=terminal_width())
    # --- end unjudged bounds ---
    print(text)
    return 0


@contextlib.contextmanager
def _trec_eval_refusal(measures: list[Measure]) -> Iterator[None]:
    """A trec_eval 10.0 measure (``missing=error``, the ``trec_eval.*`` presets) met a qrels
    topic with no line in the run: the engine's error, with what trec_eval 10.0 does there
    (exit 4, ``result qid ... not found in qrels``) and the flag that scores the topic 0."""
    from ..errors import EvaluationError, MissingQueriesError

    try:
        yield
    except MissingQueriesError as exc:
        te10 = [m for m in measures if m.flavour.convention("missing") == "error"
                and (m.label.startswith("trec_eval.") or _is_trec_eval_name(m.label))]
        if not te10:
            raise
        raise EvaluationError(f"{exc} (trec_eval 10.0 stops there too: 'result qid ... not found in qrels', "
                              "exit 4; -c scores such a topic 0, as missing=zero; --trec-eval-version 9.0.8 "
                              "leaves it out)") from None


def _is_trec_eval_name(label: str) -> bool:
    from ..trec_eval_compat import parse_name

    try:
        return parse_name(label) is not None
    except Exception:  # a flavour string or another library's name
        return False


def _trec_eval_flags(measures: Any, args: argparse.Namespace, registry: Registry) -> Any:
    """Every measure's flavour under trec_eval's flags ``-c -M -J -l -N`` and
    ``--trec-eval-version`` (:func:`evalkit.trec_eval_compat.with_flags`)."""
    from .specs import Measure
    from ..trec_eval_compat import as_trec_eval_asks, only_in_version, with_flags

    measures = as_trec_eval_asks(args.measures, measures)
    if args.trec_eval_version == "9.0.8":
        measures = only_in_version(args.measures, measures, "9.0.8")

    flags = dict(complete=args.complete, depth=args.max_docs, judged_only=args.judged_only,
                 level=args.rel_level, num_docs=args.num_docs, version=args.trec_eval_version)
    if not any((args.complete, args.max_docs, args.judged_only, args.rel_level is not None,
                args.num_docs is not None, args.trec_eval_version != "10.0")):
        return measures
    return [Measure(m.label, m.native, with_flags(m.flavour, registry, native=m.native, **flags)) for m in measures]


def _is_relstring(m: Any) -> bool:
    return m.native == "relstring" or m.native.startswith("relstring_")


def _without_relstring(results: Any, measures: Any) -> Any:
    """``relstring`` is text, printed by ``--format tsv`` only: left out of the other formats."""
    keep = [f for f, m in enumerate(measures) if not _is_relstring(m)]
    if len(keep) == len(measures):
        return results, measures
    from ..results import Results

    sub = Results(results.qids, results.systems, tuple(results.flavours[f] for f in keep),
                  tuple(results.labels[f] for f in keep), results.values[:, keep])
    return sub, [measures[f] for f in keep]


def _trec_tsv(results: Results, measures: list[Measure], args: argparse.Namespace, runs: list[Run] | None,
              qrels: Qrels | None) -> list[str]:
    """trec_eval's lines (:func:`evalkit.trec_eval_compat.tsv_lines`): its measure order,
    counts as integers, ``runid`` when asked for (``-m runid``, ``all_trec``, ``official``,
    ``set``), ``relstring`` per query."""
    from ..report.escape import text_escape as _t
    from ..trec_eval_compat import relstrings, tsv_lines as trec_lines

    asks_runid = any(s.strip() in ("runid", "all_trec", "official", "set") for s in args.measures)
    by_name = {r.name: r for r in runs} if runs is not None else {}

    def relstring_text(system: str, length: int, native: str) -> dict[str, str]:
        if system not in by_name:
            return {}
        assert qrels is not None  # given with the runs
        # trec_eval 10.0 -c: a missing topic's bogus ranking shows unless the name is 'relstring'
        bogus = args.complete and args.trec_eval_version == "10.0" and native != "relstring"
        return relstrings(qrels, by_name[system], length, depth=args.max_docs, judged_only=args.judged_only,
                          version=args.trec_eval_version, bogus=bogus)

    hidden = None
    if args.complete and args.trec_eval_version == "9.0.8" and runs is not None:
        assert qrels is not None  # given with the runs
        hidden = {r.name: set(map(str, qrels.qids)) - set(map(str, r.qid.tolist())) for r in runs}
    runids = getattr(args, "runids", None) if asks_runid else None
    if asks_runid and runids is None:
        runids = {s: s for s in results.systems}
    undefined = None
    if (args.judged_only or args.max_docs == 0) and runs is not None:  # only then can num_ret be 0
        from ..trec_eval_compat import undefined_iprec

        from .registry_args import registry_for

        registry = registry_for(args)

        def undefined(system: str, f: int) -> dict[str, bool]:
            if system not in by_name:
                return {}
            assert qrels is not None  # given with the runs
            return undefined_iprec(qrels, by_name[system], measures[f].flavour, registry)

    summary = None
    if args.complete and qrels is not None:
        import numpy as np

        # trec_eval -c: num_rel's summary line counts the judgments > 0 of the whole qrels
        # file, whatever -l, -J or -M say (m_num_rel.c te_calc_avg_num_rel, 9.0.8 and 10.0)
        whole = float(np.count_nonzero(np.asarray(qrels.grade) > 0))
        summary = {f: whole for f, m in enumerate(measures) if m.flavour.metric == "num_rel"}
    return trec_lines(results, measures, args.per_query, runids=runids, relstring_text=relstring_text,
                      escape=_t, hidden=hidden, undefined=undefined, summary=summary)
