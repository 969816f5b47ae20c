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


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("explain", help=HELP, description=HELP + ".")
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file")
    p.add_argument("run", metavar="RUN", help="TREC run file")
    p.add_argument("--query", "-Q", required=True, metavar="QID", help="the query id")
    p.add_argument("-m", "--measure", required=True, metavar="SPEC",
                   help="one flavour or preset with cutoff, e.g. trec_eval.ndcg_cut@10")
    p.add_argument("--rows", type=int_range(0, 10**9), default=None, metavar="N",
                   help=f"print at most N rows (default {DEFAULT_ROWS}; totals always cover the whole list)")
    p.add_argument("--digits", type=DIGITS, default=4, help="decimals (0-17, default 4)")
    p.add_argument("--bounds", nargs="?", const="qrels", default=None, metavar="HIGH",
                   help="also show which ranks are unjudged and the query's unjudged bounds: each unjudged "
                        "document at the lowest grade and at HIGH ('qrels': the qrels' largest grade, the "
                        "default; 'query'; or a grade), and the condensed value (docs/bounds.md)")
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


def render_explanation(ex: Explanation, digits: int = 4, max_rows: int | None = None,
                       width: int | None = None) -> str:
    """The table and the totals as text (tabulate).

    :param max_rows: rows printed (``None``: every row of ``ex.rows``); a line says how
        many of :attr:`Explanation.n_rows` are left out.
    :param width: the line width (``None``: unbounded): a wider table is split into
        blocks of columns, each repeating the rank
        (:func:`evalkit.report.text.fit_table`), and the header lines are wrapped.
    """
    from ..report.escape import text_escape
    from ..report.text import fit_table, fold_flavour, wrap

    fl = ex.flavour
    at = f"@{fl.k}" if fl.k is not None else ""
    has_ideal = ex.ideal_listed
    headers = ["rank", "docno", "score", "grade", "gain", "discount", "gain x disc", "DCG"]
    if has_ideal:
        headers += ["ideal grade", "ideal gain", "ideal disc", "ideal gain x disc", "IDCG"]
    rows = []
    for r in ex.rows[: max_rows if max_rows is not None else len(ex.rows)]:
        row = [str(r.rank), text_escape(r.docno or ""), "" if r.score is None else str(r.score), _grade(r.grade),
               _cell(r.gain, digits), _cell(r.discount, digits), _cell(r.contribution, digits),
               _cell(r.running_dcg, digits)]
        if has_ideal:
            ideal_grade = "" if r.ideal_gain is None else "?" if r.ideal_grade is None else _grade(r.ideal_grade)
            row += [ideal_grade, _cell(r.ideal_gain, digits), _cell(r.ideal_discount, digits),
                    _cell(r.ideal_contribution, digits), _cell(r.running_idcg, digits)]
        rows.append(row)
    line_width = width
    out = [wrap(f"query {text_escape(ex.qid)}, run {text_escape(ex.run)}, {ex.n_returned} documents returned",
                line_width, "", "  "),
           f"flavour {fl}" if width is None else
           "flavour " + fold_flavour(str(fl), max(1, width - 8)).replace("\n", "\n" + " " * 8), ""]
    out.append(fit_table(rows, headers, ("right", "left") + ("right",) * (len(headers) - 2), width, keep=1))
    listed = len(rows)
    if ex.n_rows > listed:
        out.append(f"... {ex.n_rows - listed} more rows (totals cover all; --rows N prints more)")
    out.append("")
    out += [wrap(f"note: {n}", line_width, "", "  ") for n in ex.notes]
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
    if ex.bounds is not None:
        out += [""] + _bounds_lines(ex, digits)
    return "\n".join(out)


def _bounds_lines(ex: Explanation, digits: int) -> list[str]:
    """What each unjudged bound assumes, and the ranks it reads (``ex.bounds``)."""
    b = ex.bounds
    assert b is not None
    within = f"within the first {ex.flavour.k} ranks" if ex.flavour.k is not None else "in the ranking"

    def num(v: float) -> str:
        return "-" if math.isnan(v) else f"{v:.{digits}f}"

    ranks = ", ".join(map(str, b.unjudged_ranks)) if b.unjudged_ranks else "none"
    return [
        f"unjudged ranks (grade '-'): {ranks}",
        f"at the lowest grade {num(ex.value)}: every unjudged document non-relevant (today's value)",
        f"at the highest grade {num(b.at_high)}: the {b.substituted} unjudged document(s) that can sit {within} "
        f"judged {b.assumes}, the ideal recomputed from the judged pool plus them",
        f"bounds [{num(b.lower)}, {num(b.upper)}]: the smaller and the larger of the two (the NDCG family's ideal "
        "moves with the grades, so either can be the larger: docs/bounds.md)",
        f"condensed {num(b.condensed)}: unjudged documents removed and the ranks closed up (judged_only=yes, "
        "trec_eval -J)",
    ]


def run(args: argparse.Namespace) -> int:
    from ..explain import explain_query
    from ..io import read_qrels, read_run
    from .registry_args import registry_for

    from ..engine.evaluate import needs_rank
    from ..resolve import resolve_flavour

    registry = registry_for(args)
    flavour = resolve_flavour(args.measure, registry)  # once; spec errors before reading files
    qrels = read_qrels(args.qrels)
    run_ = read_run(args.run, keep_rank=needs_rank([flavour], registry))
    from ..report.text import terminal_width

    high = None
    if args.bounds is not None:
        from ..bounds import parse_high

        high = parse_high(args.bounds)  # ArgumentError (exit status 2) for anything else
    max_rows = DEFAULT_ROWS if args.rows is None else args.rows
    ex = explain_query(qrels, run_, args.query, flavour, registry, max_rows=max_rows)
    if args.bounds is not None:
        from ..bounds import explain_bounds

        ex.bounds = explain_bounds(qrels, run_, ex, high, registry)
    print(render_explanation(ex, digits=args.digits, max_rows=max_rows, width=terminal_width()))
    return 0
