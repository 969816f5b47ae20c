"""``evalkit explain QRELS RUN --query QID -m SPEC``: the per-rank table behind one
query's DCG/NDCG.

For the ranked list (ordered by the flavour's tie policy) each row gives the docno,
score, grade, gain, discount, contribution ``gain x discount`` and running DCG; next
to it the ideal ranking the flavour's IDCG strategy builds (``judged``: every judged
document of the query; ``returned``: the returned list's grades; ``returned_top_k``:
the first k returned), with its gains, discounts, contributions and running IDCG.
The last line gives DCG, IDCG and NDCG; NDCG is the value :func:`evalkit.evaluate`
returns for the query (the same engine pieces compute it).

Under an averaged tie policy (``ties=average``) the discount column is the mean
discount over each block of tied scores (McSherry & Najork 2008), so the
contributions add up to the expected DCG over all orderings of the ties.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, field

import numpy as np
from tabulate import tabulate

HELP = "show the per-rank DCG/IDCG table of one query under one flavour"

#: IDCG strategies whose ideal ranking this command can list.
KNOWN_IDEAL = ("judged", "returned", "returned_top_k")


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("explain", help=HELP, description=HELP + ".")
    p.add_argument("qrels", metavar="QRELS", help="TREC qrels file")
    p.add_argument("run", metavar="RUN", help="TREC run file")
    p.add_argument("--query", "-Q", required=True, metavar="QID", help="the query id")
    p.add_argument("-m", "--measure", required=True, metavar="SPEC",
                   help="one flavour or preset with cutoff, e.g. trec_eval.ndcg_cut@10")
    p.add_argument("--rows", type=int, default=None, metavar="N",
                   help="print at most N rows (totals always cover the whole list)")
    p.add_argument("--digits", type=int, default=4, help="decimals (default 4)")
    return p


@dataclass
class ExplainRow:
    """One rank of the table; ``None`` where the column has no entry at that rank."""

    rank: int
    docno: str | None = None
    score: float | None = None
    grade: float | None = None  # NaN = unjudged
    gain: float | None = None
    discount: float | None = None
    contribution: float | None = None
    running_dcg: float | None = None
    ideal_grade: float | None = None
    ideal_gain: float | None = None
    ideal_discount: float | None = None
    ideal_contribution: float | None = None
    running_idcg: float | None = None


@dataclass
class Explanation:
    """The per-rank breakdown of one query under one flavour.

    :param value: what :func:`evalkit.evaluate` gives for the query (``NaN`` if a
        convention leaves it out). :param dcg, idcg: totals (``idcg`` is ``None`` for
        metrics without an ideal, such as ``dcg``).
    """

    qid: str
    run: str
    flavour: object
    rows: list[ExplainRow]
    dcg: float
    idcg: float | None
    value: float
    n_returned: int
    notes: list[str] = field(default_factory=list)


def explain_query(qrels, run, qid: str, flavour, registry=None) -> Explanation:
    """Compute the per-rank table of ``qid`` under ``flavour``.

    :param flavour: a :class:`~evalkit.flavour.Flavour` or spec string that expands to
        one flavour; its metric must use a gain and a discount (``dcg``, ``ndcg``).
    :raises FlavourError: the spec is invalid, expands to several flavours, or its
        metric is not a DCG-family metric.
    :raises EvaluationError: ``qid`` is not a qrels query, or a convention set to
        ``error`` is triggered.
    """
    from ..engine.evaluate import evaluate_problem, resolve
    from ..engine.kernels import MetricInput, apply_gain
    from ..engine.problem import build_problem
    from ..errors import EvaluationError, FlavourError
    from ..presets import expand_spec

    if registry is None:
        from ..registry import default_registry

        registry = default_registry()
    flavours = expand_spec(flavour, registry)
    if len(flavours) != 1:
        raise FlavourError(f"{flavour!r} expands to {len(flavours)} flavours; give one cutoff with @k")
    fl = flavours[0]
    res = resolve(fl, registry)
    if not {"gain", "discount"} <= set(res.metric.uses) or res.metric.needs_subtopics:
        dcg_like = [n for n in registry.names("metric")
                    if {"gain", "discount"} <= set(registry.metric(n).uses) and not registry.metric(n).needs_subtopics]
        raise FlavourError(f"explain shows gain x discount tables; metric '{fl.metric}' is not one of "
                           f"the metrics built that way ({', '.join(dcg_like)})")

    problem = build_problem(qrels, run)
    hit = np.flatnonzero(problem.qids == str(qid))
    if not len(hit):
        where = "is in the run but has no judgments" if (run.qid == str(qid)).any() else "is neither in the qrels nor in the run"
        raise EvaluationError(f"query {qid!r} {where}; evaluated queries come from the qrels "
                              f"({len(problem.qids)} queries, e.g. {', '.join(map(str, problem.qids[:5]))})")
    qi = int(hit[0])
    ranked = problem.ranked(res.ties, res.ties_kw)
    inp = MetricInput(ranked=ranked, judged_grade=problem.judged_grade, judged_offsets=problem.judged_offsets,
                      k=fl.k, gain=res.gain, discount=res.discount, idcg=res.idcg)
    lo, hi = int(ranked.offsets[qi]), int(ranked.offsets[qi + 1])
    gains = inp.ranked_gain()[lo:hi]
    weights = inp.position_weights(res.discount(ranked.rank))[lo:hi]
    contrib = gains * weights
    running = np.cumsum(contrib)
    dcg = float(inp.dcg()[qi])
    idcg = float(inp.ideal()[qi]) if "idcg" in res.metric.uses else None
    value = float(evaluate_problem(problem, res, None, run.name)[qi])

    mask = problem.keys.query == qi
    score_of = dict(zip(problem.keys.docno[mask].tolist(), problem.keys.score[mask].tolist()))
    codes = ranked.docno[lo:hi]
    docnos = problem.docno_vocab[codes]
    grades = ranked.grade[lo:hi]
    ranks = ranked.rank[lo:hi]

    notes = []
    ideal = None
    if idcg is not None:
        name = fl.idcg.name
        if name in KNOWN_IDEAL and registry.get("idcg", name).origin.startswith("evalkit"):
            jlo, jhi = int(problem.judged_offsets[qi]), int(problem.judged_offsets[qi + 1])
            if name == "judged":
                pool = problem.judged_grade[jlo:jhi]
                notes.append("ideal ranking: every judged document of the query (idcg=judged)")
            elif name == "returned":
                pool = grades
                notes.append("ideal ranking: the returned documents' grades, re-sorted (idcg=returned)")
            else:
                pool = grades if fl.k is None else grades[ranks <= fl.k]
                notes.append("ideal ranking: the first k returned documents, re-sorted (idcg=returned_top_k)")
            pool = np.asarray(pool, dtype=np.float64)
            pool_gain = apply_gain(res.gain, pool)
            order = np.argsort(-pool_gain, kind="stable")
            keep = pool_gain[order] > 0  # as evalkit.engine.kernels.ideal_dcg
            ig_grade, ig_gain = pool[order][keep], pool_gain[order][keep]
            if fl.k is not None:
                ig_grade, ig_gain = ig_grade[: fl.k], ig_gain[: fl.k]
            i_rank = np.arange(1, len(ig_gain) + 1, dtype=np.int64)
            i_disc = res.discount(i_rank) if len(i_rank) else np.zeros(0)
            i_contrib = ig_gain * i_disc
            ideal = (ig_grade, ig_gain, i_disc, i_contrib, np.cumsum(i_contrib))
        else:
            notes.append(f"IDCG strategy '{name}' is not one of {', '.join(KNOWN_IDEAL)}: "
                         f"only its total is shown")
    if res.ties.averaged:
        notes.append(f"ties={fl.ties.name}: each discount is the mean over its block of tied scores "
                     f"(expected DCG over all orderings of the ties)")
    if fl.k is not None:
        notes.append(f"cutoff k={fl.k}: ranks after {fl.k} contribute 0")
    if hi == lo:
        notes.append(f"query {qid!r} is not in the run (missing={fl.convention('missing')})")

    shown = len(ranks) if fl.k is None else int(min(len(ranks), fl.k))
    n_ideal = 0 if ideal is None else len(ideal[0])
    rows = []
    for i in range(max(shown, n_ideal)):
        row = ExplainRow(rank=i + 1)
        if i < shown:
            row.docno = str(docnos[i])
            row.score = float(score_of[int(codes[i])])
            row.grade = float(grades[i])
            row.gain, row.discount = float(gains[i]), float(weights[i])
            row.contribution, row.running_dcg = float(contrib[i]), float(running[i])
        if i < n_ideal:
            row.ideal_grade, row.ideal_gain = float(ideal[0][i]), float(ideal[1][i])
            row.ideal_discount, row.ideal_contribution = float(ideal[2][i]), float(ideal[3][i])
            row.running_idcg = float(ideal[4][i])
        rows.append(row)
    return Explanation(str(qid), run.name, fl, rows, dcg, idcg, value, hi - lo, notes)


def _cell(v, digits: int) -> str:
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if isinstance(v, float) and math.isnan(v):
        return "unjudged"
    return f"{v:.{digits}f}"


def _grade(v) -> str:
    if v is None:
        return ""
    if math.isnan(v):
        return "-"
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def render_explanation(ex: Explanation, digits: int = 4, max_rows: int | None = None) -> str:
    """The table and the totals as text (tabulate)."""
    fl = ex.flavour
    at = f"@{fl.k}" if fl.k is not None else ""
    has_ideal = any(r.ideal_gain is not None for r in ex.rows)
    headers = ["rank", "docno", "score", "grade", "gain", "discount", "gain x disc", "DCG"]
    if has_ideal:
        headers += ["ideal grade", "ideal gain", "ideal disc", "ideal gain x disc", "IDCG"]
    rows = []
    for r in ex.rows[: max_rows if max_rows is not None else len(ex.rows)]:
        row = [str(r.rank), r.docno or "", "" if r.score is None else str(r.score), _grade(r.grade),
               _cell(r.gain, digits), _cell(r.discount, digits), _cell(r.contribution, digits),
               _cell(r.running_dcg, digits)]
        if has_ideal:
            row += [_grade(r.ideal_grade), _cell(r.ideal_gain, digits), _cell(r.ideal_discount, digits),
                    _cell(r.ideal_contribution, digits), _cell(r.running_idcg, digits)]
        rows.append(row)
    out = [f"query {ex.qid}, run {ex.run}, {ex.n_returned} documents returned",
           f"flavour {fl}", ""]
    out.append(tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True,
                        colalign=("right", "left") + ("right",) * (len(headers) - 2)))
    if max_rows is not None and len(ex.rows) > max_rows:
        out.append(f"... {len(ex.rows) - max_rows} more rows (totals cover all)")
    out.append("")
    out += [f"note: {n}" for n in ex.notes]
    if ex.notes:
        out.append("")
    value = "skipped (left out of the mean)" if math.isnan(ex.value) else f"{ex.value:.{digits}f}"
    if ex.idcg is None:
        out.append(f"DCG{at} = {ex.dcg:.{digits}f}   {fl.metric}{at} = {value}")
    else:
        ratio = "DCG/IDCG" if ex.idcg > 0 else f"IDCG = 0: empty={fl.convention('empty')}"
        out.append(f"DCG{at} = {ex.dcg:.{digits}f}   IDCG{at} = {ex.idcg:.{digits}f}   "
                   f"{fl.metric.upper()}{at} = {ratio} = {value}")
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    from ..io import read_qrels, read_run
    from . import registry_for

    registry = registry_for(args)
    from ..presets import expand_spec

    expand_spec(args.measure, registry)  # spec errors before reading files
    qrels = read_qrels(args.qrels)
    run_ = read_run(args.run)
    ex = explain_query(qrels, run_, args.query, args.measure, registry)
    print(render_explanation(ex, digits=args.digits, max_rows=args.rows))
    return 0
