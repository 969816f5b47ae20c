"""Conformance rows of trec_eval's measures beyond NDCG (issue 26): ``trec_eval.*`` against
the trec_eval 10.0 binary, ``trec_eval9.*`` against 9.0.8, both built from their release
sources in ``../shared/references`` (``tests/reference_programs.py``), run as
``trec_eval -q -m MEASURE qrels run``; the ``ir_measures.*`` names against ir_measures.

trec_eval 10.0 stops (exit 4) on a qrels topic missing from the run, and so do its presets
(``missing=error``): the row counts such an input as refused by both (``Ref.raised``);
9.0.8 and its presets leave the topic out.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import cf_refs as R
from cf_refs import Ref
from reference_programs import TREC_EVAL_COMMIT, parse_trec_eval_q, run_trec_eval

from evalkit.libraries.trec_eval_measures import MEASURES

_OUT: dict = {}

#: trec_eval argument and printed name of each preset's default flavour
ARGS = {"iprec_at_recall": ("iprec_at_recall.0", "iprec_at_recall_0.00"),
        "Rprec_mult": ("Rprec_mult.1.0", "Rprec_mult_1.00")}
#: measures printed only in the summary: their per-query values are these measures' lines
PER_QUERY_AS = {"gm_map": "map", "gm_bpref": "bpref", "num_q": "num_ret"}


def trec_eval_binary(version: str, measure: str, cut: bool):
    """trec_eval ``version`` run as ``trec_eval -q -m MEASURE[.k] qrels run``; its per-query
    lines and its ``all`` line."""
    def ref(case, k=None) -> Ref:
        arg, printed = ARGS.get(measure, (measure, measure))
        if cut:
            arg, printed = f"{measure}.{k}", f"{measure}_{k}"
        key = (version, case.name, arg)
        if key not in _OUT:
            folder = Path(tempfile.mkdtemp(prefix="cf-te-"))
            qp, rp = case.write(folder)
            other = PER_QUERY_AS.get(measure)
            args = ["-q", "-m", arg] + (["-m", other] if other else []) + [qp, rp]
            done = run_trec_eval(version, args, check=False)
            shutil.rmtree(folder, ignore_errors=True)
            if done.returncode != 0:  # 10.0 on a qrels topic the run lacks: exit 4
                _OUT[key] = Ref({}, raised=f"trec_eval {version} exit {done.returncode}: "
                                + done.stderr.strip().splitlines()[0])
                return _OUT[key]
            out = parse_trec_eval_q(done.stdout)
            per = {q: float(v) for (name, q), v in out.items() if name == (other or printed) and q != "all"}
            if measure == "num_q":
                per = {q: 1.0 for q in per}
            _OUT[key] = Ref(per, float(out[(printed, "all")]))
        return _OUT[key]
    return ref


def _source(version: str) -> str:
    return (f"trec_eval {version} built from ../shared/references/trec_eval/trec_eval-{version}.tar.gz "
            f"(usnistgov/trec_eval {TREC_EVAL_COMMIT[version][:12]}), run as trec_eval -q -m MEASURE qrels run")


DATA = ("trec_eval_test/results.test", "trec_eval_test/qrels.rel_level", "generated", "robust03/InexpC2")
WHY = "trec_eval prints 4 decimals"
TOL = 5e-5 + 1e-12
#: cutoffs compared for the cut measures
CUTS = {"relative_P": (5, 10, 1000), "success": (1, 5, 10), "unj": (5, 10, 20)}
IRM_NAMES = {"Rprec": "Rprec", "Bpref": "Bpref", "infAP": "infAP", "NumQ": "NumQ", "NumRet": "NumRet",
             "NumRelRet": "NumRelRet", "NumRel": "NumRel", "SetP": "SetP", "SetRelP": "SetP(relative=True)",
             "SetR": "SetR", "SetF": "SetF", "SetAP": "SetAP", "Success": "Success@{k}", "IPrec": "IPrec@0.0",
             "Judged": "Judged@{k}"}


def entries(Entry) -> list:
    out = []
    for m in MEASURES:
        if not m.new:
            continue
        cut = m.kind == "cut"
        cuts = CUTS.get(m.name, (None,)) if cut else (None,)
        for prefix, version in (("trec_eval", "10.0"), ("trec_eval9", "9.0.8")):
            if version == "9.0.8" and m.name in ("unj", "rbp", "rbp_resid"):
                continue  # not in trec_eval 9.0.8
            out.append(Entry(f"{prefix}.{m.preset or m.name}", trec_eval_binary(version, m.name, cut),
                             _source(version), DATA, TOL, WHY, cutoffs=cuts))
    irm = lambda: R.version("ir_measures") + " (default providers: pytrec_eval, Judged), TREC files"  # noqa: E731
    for name, text in IRM_NAMES.items():
        cuts = (1, 10) if "{k}" in text else (None,)
        out.append(Entry(f"ir_measures.{name}", R.ir_measures(text), irm, ("generated", "robust03/InexpC2"),
                         1e-12, "both sides compute in float64", cutoffs=cuts))
    return out
