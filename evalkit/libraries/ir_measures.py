"""ir_measures (terrierteam/ir_measures 0.4.3): its measures as its default pipeline
computes them, each through the provider it picks (pytrec_eval: trec_eval 9 with
float scores; gdeval.pl; pyndeval), with the qrels queries a provider does not report
scored 0. The names users type (``nDCG@10``, ``AP``) are mapped to these presets by
:mod:`evalkit.measure_names`."""

from __future__ import annotations

from ..components import Preset
from .._builtin_hookimpl import hookimpl
from .ndeval import PYNDEVAL_INTERLEAVED
from .trec_eval import TREC_EVAL_CUTOFFS
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from ..hookspecs import Register

_IRM = ("terrierteam/ir_measures 0.4.3 ir_measures/providers/base.py (Evaluator.iter_calc: qrels "
        "queries the provider does not report score measure.DEFAULT = 0), ir_measures/__init__.py "
        "(DefaultPipeline: the first provider that supports the measure)")
_F32 = "ties=trec_eval(score=float32)"

#: ir_measures' measures under its default pipeline (missing queries score 0).
_IR_MEASURES: tuple[Preset, ...] = (
    Preset(
        name="ir_measures.nDCG",
        spec=f"ndcg(gain=linear,discount=log2,idcg=judged,{_F32},missing=zero)",
        description="ir_measures nDCG / nDCG@k: pytrec_eval's ndcg / ndcg_cut.k (trec_eval 9, float "
                    "scores); qrels queries missing from the run score 0",
        source=f"{_IRM}; providers/pytrec_eval_provider.py (nDCG -> ndcg, ndcg_cut_k)",
        native_name="nDCG@{k}",
    ),
    Preset(
        name="ir_measures.nDCG_judged_only",
        spec=f"ndcg(gain=linear,discount=log2,idcg=judged,{_F32},missing=zero,judged_only=yes)",
        description="ir_measures nDCG(judged_only=True)@k: pytrec_eval with judged_docs_only_flag "
                    "(trec_eval -J); missing queries score 0",
        source=f"{_IRM}; providers/pytrec_eval_provider.py (judged_docs_only_flag)",
        native_name="nDCG(judged_only=True)@{k}",
    ),
    Preset(
        name="ir_measures.nDCG_exp_log2",
        spec="ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval,missing=zero,grades=gdeval)",
        description="ir_measures nDCG(dcg='exp-log2')@k: gdeval.pl's nDCG, with the topics gdeval "
                    "does not report (no positive judgment, or missing from the run) scored 0; a "
                    "judgment gdeval.pl refuses (not an integer, or above 4: its format error, which "
                    "ir_measures raises as CalledProcessError) is refused (grades=gdeval)",
        source=f"{_IRM}; providers/gdeval_provider.py (dcg='exp-log2', cutoff required)",
        requires_cutoff=True,
        default_cutoffs=(20,),
        native_name="nDCG(dcg='exp-log2')@{k}",
    ),
    Preset(
        name="ir_measures.ERR",
        spec="err(max_grade=4,ties=trec_eval,missing=zero,grades=gdeval)",
        description="ir_measures ERR@k: gdeval.pl's ERR, topics gdeval does not report scored 0; a "
                    "judgment gdeval.pl refuses (not an integer, or above 4) is refused (grades=gdeval)",
        source=f"{_IRM}; providers/gdeval_provider.py",
        requires_cutoff=True,
        default_cutoffs=(20,),
        native_name="ERR@{k}",
    ),
    Preset(
        name="ir_measures.P",
        spec=f"precision({_F32},missing=zero)",
        description="ir_measures P@k (rel=1): pytrec_eval's P_k; missing queries score 0",
        source=f"{_IRM}; providers/pytrec_eval_provider.py (P -> P_k, rel -> relevance_level)",
        requires_cutoff=True,
        default_cutoffs=TREC_EVAL_CUTOFFS,
        native_name="P@{k}",
    ),
    Preset(
        name="ir_measures.R",
        spec=f"recall({_F32},missing=zero)",
        description="ir_measures R@k: pytrec_eval's recall_k; missing queries score 0",
        source=f"{_IRM}; providers/pytrec_eval_provider.py (R -> recall_k)",
        requires_cutoff=True,
        default_cutoffs=TREC_EVAL_CUTOFFS,
        native_name="R@{k}",
    ),
    Preset(
        name="ir_measures.AP",
        spec=f"ap({_F32},missing=zero)",
        description="ir_measures AP / AP@k: pytrec_eval's map / map_cut_k; missing queries score 0",
        source=f"{_IRM}; providers/pytrec_eval_provider.py (AP -> map, map_cut_k)",
        native_name="AP@{k}",
    ),
    Preset(
        name="ir_measures.RR",
        spec=f"rr({_F32},missing=zero)",
        description="ir_measures RR: pytrec_eval's recip_rank; missing queries score 0",
        source=f"{_IRM}; providers/pytrec_eval_provider.py (RR -> recip_rank)",
        native_name="RR",
    ),
)


def _diversity() -> Any:
    """The pyndeval-provided measures (subtopic qrels)."""
    common: dict[str, Any] = dict(requires_cutoff=True, default_cutoffs=(5, 10, 20))
    yield Preset(
        name="ir_measures.alpha_nDCG",
        spec="alpha_ndcg(discount=log2,ties=docno_ascending,missing=zero)",
        description=("ir_measures alpha_nDCG@k (pyndeval provider): ndeval's alpha-nDCG with the run "
                     "ordered by score then docno ascending (pyndeval), qrels topics missing from "
                     "the run scored 0 (ir_measures' measure.DEFAULT)"),
        source=("terrierteam/ir_measures 0.4.3 providers/pyndeval_provider.py, providers/base.py "
                "(Evaluator.iter_calc); pyndeval 0.0.8 __init__.py _coerce_run_iter"),
        native_name="alpha_nDCG@{k}",
        interleaved_topics=PYNDEVAL_INTERLEAVED,
        **common,
    )
    for name, spec, what in (("ERR_IA", "err_ia(ties=docno_ascending,missing=zero)", "ERR-IA@k"),
                             ("nERR_IA", "err_ia(norm=ideal,ties=docno_ascending,missing=zero)", "nERR-IA@k")):
        yield Preset(
            name=f"ir_measures.{name}",
            spec=spec,
            description=(f"ir_measures {name}@k (pyndeval provider): ndeval's {what} with the run ordered "
                         "by score then docno ascending (pyndeval), qrels topics missing from the run "
                         "scored 0 (ir_measures' measure.DEFAULT)"),
            source=("terrierteam/ir_measures 0.4.3 providers/pyndeval_provider.py, providers/base.py "
                    "(Evaluator.iter_calc); pyndeval 0.0.8 __init__.py _coerce_run_iter"),
            native_name=f"{name}@{{k}}",
            interleaved_topics=PYNDEVAL_INTERLEAVED,
            **common,
        )


@hookimpl
def evalkit_register_presets(register: Register) -> None:
    for preset in (*_IR_MEASURES, *_diversity()):
        register(preset)
