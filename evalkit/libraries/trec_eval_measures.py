"""Presets of trec_eval's measures beyond NDCG (``trec_eval.*``: 10.0; ``trec_eval9.*``:
9.0.8, scores read as C ``float``), and the table of every measure trec_eval 10.0
computes from qrels and a run, in the order trec_eval prints them (``measures.c``
``te_trec_measures``), with what its output needs (:data:`MEASURES`).

The kernels are in :mod:`evalkit.builtins.trec_eval_measures`; the names and the
output in :mod:`evalkit.trec_eval_compat`.
"""

from __future__ import annotations

import dataclasses

from .._record import Record
from ..components import Preset
from .._builtin_hookimpl import hookimpl
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..hookspecs import Register

_TE = "usnistgov/trec_eval v10.0 (f4253652c8efd0d86ddffd0d163cc0a0f813111a)"
_TE9 = "trec_eval 9.0.8 (d95ca64e14a47d763ae349fb65e6d8cde4141dbd; scores as C float, trec_format.h)"
TIES = {"10.0": "ties=trec_eval", "9.0.8": "ties=trec_eval(score=float32)"}
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


class TrecMeasure(Record):
    """One measure of trec_eval's ``-m`` (``te_meas_*`` in measures.c).

    :param name: trec_eval's name.
    :param spec: the flavour without tie policy; ``{ties}`` is replaced by the version's.
    :param kind: ``plain`` (no parameters), ``cut`` (a list of integer cutoffs, one
        value each: ``P.5,10``), ``values`` (a list of numbers, one value each, passed as
        metric parameter ``param``: ``iprec_at_recall..1,.2``), ``params`` (the whole list
        parametrises one value, printed ``name_PARAMS``: ``utility.2,-1,0,0``), ``gains``
        (``rel=gain`` pairs: ``ndcg.1=3,2=9``), ``pairs`` (``name=value`` pairs:
        ``rbp.p=0.8``), ``string`` (``relstring``, printed by the output, not a metric).
    :param defaults: the default cutoffs / values.
    :param integer: printed ``%ld`` (``num_ret``...), else ``%6.4f``.
    :param per_query: printed per query with ``-q`` (``gm_map``, ``num_q`` are not).
    :param summary: printed in the summary (``relstring`` is not).
    :param level: the metric takes ``threshold`` (trec_eval ``-l``); ``rel_level`` for
        ``Rndcg``.
    :param preset: the ``trec_eval.`` preset's suffix (``""``: none, ``relstring``).
    :param source: the ``m_*.c`` file.
    :param new: its preset is registered here (else by builtins/presets.py).

    Frozen, compared by its fields (a :class:`~evalkit._record.Record`: no
    ``dataclasses`` code generation at import, issue 27).
    """

    __slots__ = ("name", "spec", "kind", "defaults", "param", "integer", "per_query", "summary", "level", "source",
                 "description", "new", "preset")
    name: str
    spec: str
    kind: str
    defaults: tuple
    param: str
    integer: bool
    per_query: bool
    summary: bool
    level: str
    source: str
    description: str
    new: bool
    preset: str

    def __init__(self, name: str, spec: str, kind: str = "plain", defaults: tuple = (), param: str = "",
                 integer: bool = False, per_query: bool = True, summary: bool = True, level: str = "threshold",
                 source: str = "", description: str = "", new: bool = True, preset: str = "") -> None:
        self._set(name=name, spec=spec, kind=kind, defaults=defaults, param=param, integer=integer,
                  per_query=per_query, summary=summary, level=level, source=source, description=description,
                  new=new, preset=preset)


_F = "{ties}"
#: every measure trec_eval 10.0 computes from qrels and a run, in its printing order
MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("num_q", f"num_q({_F},aggregate=sum)", integer=True, per_query=False, level="",
                source="m_num_q.c", description="number of queries evaluated"),
    TrecMeasure("num_ret", f"num_ret({_F},aggregate=sum)", integer=True, level="", source="m_num_ret.c",
                description="documents retrieved (summary: the sum)"),
    TrecMeasure("num_rel", f"num_rel({_F},aggregate=sum)", integer=True, source="m_num_rel.c",
                description="relevant judged documents (summary: the sum)"),
    TrecMeasure("num_rel_ret", f"num_rel_ret({_F},aggregate=sum)", integer=True, source="m_num_rel_ret.c",
                description="relevant documents retrieved (summary: the sum)"),
    TrecMeasure("map", f"ap({_F})", source="m_map.c", new=False),
    TrecMeasure("gm_map", f"ap({_F},aggregate=gmean)", per_query=False, source="m_gm_map.c",
                description="average precision, geometric mean over queries (values below 1e-5 count 1e-5)"),
    TrecMeasure("Rprec", f"rprec({_F})", source="m_Rprec.c", description="precision after R documents"),
    TrecMeasure("bpref", f"bpref({_F})", source="m_bpref.c", description="binary preference"),
    TrecMeasure("recip_rank", f"rr({_F})", source="m_recip_rank.c", new=False),
    TrecMeasure("iprec_at_recall", f"iprec_at_recall({_F})", kind="values", param="recall",
                defaults=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0), source="m_iprec_at_recall.c",
                description="interpolated precision at a recall level"),
    TrecMeasure("P", f"precision({_F})", kind="cut", defaults=CUTOFFS, source="m_P.c", new=False),
    TrecMeasure("relstring", "", kind="string", defaults=(10,), summary=False, level="",
                source="m_relstring.c", new=False),
    TrecMeasure("recall", f"recall({_F})", kind="cut", defaults=CUTOFFS, source="m_recall.c", new=False),
    TrecMeasure("infAP", f"infap({_F})", source="m_infap.c", description="inferred average precision"),
    TrecMeasure("gm_bpref", f"bpref({_F},aggregate=gmean)", per_query=False, source="m_gm_bpref.c",
                description="bpref, geometric mean over queries (values below 1e-5 count 1e-5)"),
    TrecMeasure("Rprec_mult", f"rprec_mult({_F})", kind="values", param="mult",
                defaults=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0), source="m_Rprec_mult.c",
                description="precision at a multiple of R"),
    TrecMeasure("utility", f"utility({_F})", kind="params", param="a,b,c,d", defaults=(1.0, -1.0, 0.0, 0.0),
                source="m_utility.c", description="set utility a*rel_ret + b*nonrel_ret + c*rel_nonret + d*nonrel_nonret"),
    TrecMeasure("11pt_avg", f"pt_avg({_F})", kind="params", param="levels",
                defaults=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0), source="m_11pt_avg.c",
                description="interpolated precision averaged over recall levels"),
    TrecMeasure("binG", f"bing({_F})", source="m_binG.c", description="binary G (experimental)"),
    TrecMeasure("G", f"g_gain(gain=linear,{_F})", kind="gains", level="", source="m_G.c",
                description="normalised gain G (experimental)"),
    TrecMeasure("ndcg", f"ndcg(gain=linear,discount=log2,idcg=judged,{_F})", kind="gains", level="",
                source="m_ndcg.c", new=False),
    TrecMeasure("ndcg_rel", f"ndcg_rel(gain=linear,discount=log2,{_F})", kind="gains", level="",
                source="m_ndcg_rel.c", new=False),
    TrecMeasure("Rndcg", f"rndcg(gain=linear,discount=log2,{_F})", kind="gains", level="rel_level",
                source="m_Rndcg.c", new=False),
    TrecMeasure("ndcg_cut", f"ndcg(gain=linear,discount=log2,idcg=judged,{_F})", kind="cut", defaults=CUTOFFS,
                level="", source="m_ndcg_cut.c", new=False),
    TrecMeasure("map_cut", f"ap({_F})", kind="cut", defaults=CUTOFFS, source="m_map_cut.c", new=False),
    TrecMeasure("relative_P", f"relative_precision({_F})", kind="cut", defaults=CUTOFFS, source="m_rel_P.c",
                description="precision at k relative to the best possible, min(k, R)"),
    TrecMeasure("success", f"success({_F})", kind="cut", defaults=(1, 5, 10), source="m_success.c",
                description="1 if a relevant document is in the top k"),
    TrecMeasure("set_P", f"set_p({_F})", source="m_set_P.c", description="num_rel_ret / num_ret"),
    TrecMeasure("set_relative_P", f"set_relative_p({_F})", source="m_set_rel_P.c",
                description="num_rel_ret / min(num_ret, num_rel)"),
    TrecMeasure("set_recall", f"set_recall({_F})", source="m_set_recall.c", description="num_rel_ret / num_rel"),
    TrecMeasure("set_map", f"set_map({_F})", source="m_set_map.c",
                description="num_rel_ret^2 / (num_ret * num_rel)"),
    TrecMeasure("set_F", f"set_f({_F})", kind="params", param="beta", defaults=(1.0,), source="m_set_F.c",
                description="F measure of the retrieved set"),
    TrecMeasure("num_nonrel_judged_ret", f"num_nonrel_judged_ret({_F},aggregate=sum)", integer=True,
                source="m_num_nonrel_judged_ret.c", description="judged non-relevant documents retrieved (summary: the sum)"),
    TrecMeasure("rbp", f"trec_rbp({_F})", kind="pairs", param="p", level="", source="m_rbp.c",
                description="rank-biased precision, p = 0.9, graded: level / max(1, top level)",
                preset="rank_biased_precision"),
    TrecMeasure("rbp_resid", f"rbp_resid({_F})", kind="pairs", param="p", level="", source="m_rbp_resid.c",
                description="RBP residual (weight of unjudged and unseen documents)"),
    TrecMeasure("unj", f"unjudged({_F})", kind="cut", defaults=(5, 10, 20), level="", source="m_unjudged.c",
                description="fraction of unjudged documents in the top k"),
)

BY_NAME = {m.name: m for m in MEASURES}

#: ``-m all_trec`` (measures.c ``trec_names``; ``runid`` is printed by the output)
ALL_TREC = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref",
            "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut",
            "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
            "num_nonrel_judged_ret")
#: ``-m official`` and ``-m set`` (measures.c ``off_names``, ``set_names``)
NICKNAMES = {
    "all_trec": ALL_TREC,
    "official": ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "set": ("num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall", "set_relative_P",
            "set_map", "set_F"),
}


def spec(measure: TrecMeasure, version: str = "10.0") -> str:
    """The measure's flavour string under trec_eval ``version`` (``10.0`` or ``9.0.8``).

    Under 10.0 a qrels topic with no line in the run is refused (``missing=error``):
    trec_eval 10.0 stops there, whatever the measure (trec_eval.c, the loop over
    ``all_rel_info``: ``result qid ... not found in qrels``, exit 4); ``-c`` scores it
    (:func:`evalkit.trec_eval_compat.with_flags`). 9.0.8 leaves such a topic out."""
    s = measure.spec.replace("{ties}", TIES[version])
    if version == "9.0.8" and measure.param == "recall" or version == "9.0.8" and measure.name == "11pt_avg":
        s = s[:-1] + ",cutoff_rounding=plus_0.9)"
    if version == "10.0" and s.endswith(")"):
        s = s[:-1] + ",missing=error)"
    return s


def _presets() -> list[Preset]:
    out = []
    for m in MEASURES:
        if not m.new:
            continue
        for prefix, version, src in (("trec_eval", "10.0", _TE), ("trec_eval9", "9.0.8", _TE9)):
            if version == "9.0.8" and m.name in ("unj", "rbp", "rbp_resid"):
                continue  # measures trec_eval 10.0 added
            what = "trec_eval 10.0" if version == "10.0" else "trec_eval 9.0.8 (scores compared as C float)"
            k = "_{k}" if m.kind == "cut" else ""
            out.append(Preset(
                name=f"{prefix}.{m.preset or m.name}", spec=spec(m, version),
                description=f"{what} '{m.name}': {m.description}",
                source=f"{src} {m.source}" + ("" if version == "10.0" else f"; {_TE} {m.source} for the formula"),
                requires_cutoff=m.kind == "cut", default_cutoffs=m.defaults if m.kind == "cut" else (),
                native_name=f"{m.name}{k}"))
        if m.preset:
            out[-2:] = [dataclasses.replace(p, description=p.description + f" (the evalkit-rbp plugin's preset "
                                            f"trec_eval.{m.name} computes the same with its own metric)")
                        for p in out[-2:]]
    return out


_IRM = ("terrierteam/ir_measures 0.4.3 providers/pytrec_eval_provider.py (pytrec_eval: trec_eval 9.0.8, "
        "scores as C float); providers/base.py Evaluator.iter_calc (qrels queries not reported: measure.DEFAULT = 0)")
_IRM_F32 = "ties=trec_eval(score=float32),missing=zero"

#: ir_measures' names of trec_eval's measures: (ir_measures name, evalkit flavour, measure.NAME -> trec_eval name)
IR_MEASURES = (
    ("Rprec", f"rprec({_IRM_F32})", "Rprec"),
    ("Bpref", f"bpref({_IRM_F32})", "bpref"),
    ("infAP", f"infap({_IRM_F32})", "infAP"),
    ("NumQ", f"num_q({_IRM_F32},aggregate=sum)", "num_q"),
    ("NumRet", f"num_ret({_IRM_F32},aggregate=sum)", "num_ret"),
    ("NumRelRet", f"num_rel_ret({_IRM_F32},aggregate=sum)", "num_rel_ret (NumRet(rel=1))"),
    ("NumRel", f"num_rel({_IRM_F32},aggregate=sum)", "num_rel"),
    ("SetP", f"set_p({_IRM_F32})", "set_P"),
    ("SetRelP", f"set_relative_p({_IRM_F32})", "set_relative_P (SetP(relative=True))"),
    ("SetR", f"set_recall({_IRM_F32})", "set_recall"),
    ("SetF", f"set_f({_IRM_F32})", "set_F"),
    ("SetAP", f"set_map({_IRM_F32})", "set_map"),
    ("Success", f"success({_IRM_F32})", "success_k"),
    ("IPrec", f"iprec_at_recall({_IRM_F32},cutoff_rounding=plus_0.9)", "iprec_at_recall_r"),
)


def _ir_measures_presets() -> list[Preset]:
    out = [Preset(name=f"ir_measures.{name}", spec=spec_, native_name=f"{name}@{{k}}" if name == "Success" else name,
                  description=f"ir_measures {name}: pytrec_eval's {te} (trec_eval 9.0.8, float scores); qrels "
                              "queries missing from the run score 0",
                  source=_IRM, requires_cutoff=name == "Success", default_cutoffs=(1, 5, 10) if name == "Success" else ())
           for name, spec_, te in IR_MEASURES]
    out.append(Preset(
        name="ir_measures.Judged", spec="judged(ties=docno_ascending,missing=zero)", native_name="Judged@{k}",
        description="ir_measures Judged@k: the fraction of the top k (score descending, docno ascending, float64 "
                    "scores) found in the qrels, over min(k, documents retrieved); qrels queries missing from "
                    "the run score 0",
        source="terrierteam/ir_measures 0.4.3 providers/judged_provider.py (JudgedEvaluator: sorted by "
               "(-score, docno), judged_c / min(cutoff, len(run)))"))
    return out


@hookimpl
def evalkit_register_presets(register: Register) -> None:
    for p in _presets():
        register(p)
    for p in _ir_measures_presets():
        register(p)
