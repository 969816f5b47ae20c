"""``evalkit explain QRELS RUN --query QID -m SPEC``: the per-rank table behind one
query's DCG/NDCG, rendered from :func:`evalkit.explain.explain_query` (the engine's
own computation: the ranking after ``depth``/``judged_only``, gains with
``min_grade``, the IDCG strategy's ideal ranking).

Each row gives the docno, score, grade, gain, discount, contribution
``gain x discount`` and running DCG; next to it the ideal ranking with its gains,
discounts, contributions and running IDCG. The last line gives DCG, IDCG and the
value :func:`evalkit.evaluate` returns for the query.
"""

from __future__ import annotations

import argparse
import math

from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from ..explain import Explanation

from .argtypes import DIGITS, int_range

HELP = "show the per-rank DCG/IDCG table of one query under one flavour"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = subparsers.add_parser("explain", help=HELP, description=HELP + ".")
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file")
    p.add_argument("run", metavar="RUN", help="TREC run file")
    p.add_argument("--query", "-Q", required=True, metavar="QID", help="the query id")
    p.add_argument("-m", "--measure", required=True, metavar="SPEC",
                   help="one flavour or preset with cutoff, e.g. trec_eval.ndcg_cut@10")
    p.add_argument("--rows", type=int_range(0, 10**9), default=None, metavar="N",
                   help=f"print at most N rows (default {DEFAULT_ROWS}; totals always cover the whole list)")
    p.add_argument("--digits", type=DIGITS, default=4, help="decimals (0-17, default 4)")
    return p


#: rows printed without --rows: a query of 2 M documents printed whole took 3 min and 5.2 GB
DEFAULT_ROWS = 1000


def _cell(v: Any, digits: int) -> str:
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if isinstance(v, float) and math.isnan(v):
        return "unjudged"
    return f"{v:.{digits}f}"


def _grade(v: Any) -> str:
    if v is None:
        return ""
    if math.isnan(v):
        return "-"
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def render_explanation(ex: Explanation, digits: int = 4, max_rows: int | None = None) -> str:
    """The table and the totals as text (tabulate)."""
    from tabulate import tabulate

    fl = ex.flavour
    at = f"@{fl.k}" if fl.k is not None else ""
    has_ideal = ex.ideal_listed
    headers = ["rank", "docno", "score", "grade", "gain", "discount", "gain x disc", "DCG"]
    if has_ideal:
        headers += ["ideal grade", "ideal gain", "ideal disc", "ideal gain x disc", "IDCG"]
    rows = []
    for r in ex.rows[: max_rows if max_rows is not None else len(ex.rows)]:
        row = [str(r.rank), r.docno or "", "" if r.score is None else str(r.score), _grade(r.grade),
               _cell(r.gain, digits), _cell(r.discount, digits), _cell(r.contribution, digits),
               _cell(r.running_dcg, digits)]
        if has_ideal:
            ideal_grade = "" if r.ideal_gain is None else "?" if r.ideal_grade is None else _grade(r.ideal_grade)
            row += [ideal_grade, _cell(r.ideal_gain, digits), _cell(r.ideal_discount, digits),
                    _cell(r.ideal_contribution, digits), _cell(r.running_idcg, digits)]
        rows.append(row)
    out = [f"query {ex.qid}, run {ex.run}, {ex.n_returned} documents returned",
           f"flavour {fl}", ""]
    out.append(tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True,
                        colalign=("right", "left") + ("right",) * (len(headers) - 2)))
    if max_rows is not None and len(ex.rows) > max_rows:
        out.append(f"... {len(ex.rows) - max_rows} more rows (totals cover all; --rows N prints more)")
    out.append("")
    out += [f"note: {n}" for n in ex.notes]
    if ex.notes:
        out.append("")
    value = "skipped (left out of the mean)" if math.isnan(ex.value) else f"{ex.value:.{digits}f}"
    if ex.idcg is None:
        out.append(f"DCG{at} = {ex.dcg:.{digits}f}   {fl.metric}{at} = {value}")
    else:
        if ex.idcg <= 0:
            ratio = f"IDCG = 0: empty={fl.convention('empty')} = "
        elif ex.is_ratio:
            ratio = "DCG/IDCG = "
        else:
            ratio = ""
        out.append(f"DCG{at} = {ex.dcg:.{digits}f}   IDCG{at} = {ex.idcg:.{digits}f}   "
                   f"{fl.metric.upper()}{at} = {ratio}{value}")
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    from ..explain import explain_query
    from ..io import read_qrels, read_run
    from . import registry_for

    from ..engine.evaluate import needs_rank
    from ..resolve import resolve_flavour

    registry = registry_for(args)
    flavour = resolve_flavour(args.measure, registry)  # once; spec errors before reading files
    qrels = read_qrels(args.qrels)
    run_ = read_run(args.run, keep_rank=needs_rank([flavour], registry))
    ex = explain_query(qrels, run_, args.query, flavour, registry)
    print(render_explanation(ex, digits=args.digits, max_rows=DEFAULT_ROWS if args.rows is None else args.rows))
    return 0
