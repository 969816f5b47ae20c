"""Built-in presets: named flavours that reproduce a library's or a paper's NDCG.

Names are ``LIBRARY.MEASURE``; a cutoff is given as ``@k``. Every preset cites the
source file its flavour was read from; ``docs/flavours.md`` tabulates them.

trec_eval's command-line flags are not presets but flavour conventions; use
:func:`trec_eval_flavours` to turn a trec_eval command line (``-m ndcg_cut.10 -c
-M100``) into flavours:

* ``-c`` -> ``missing=zero`` (trec_eval.c evaluates a missing query on a bogus
  one-document ranking, which scores 0 for every NDCG variant);
* ``-M n`` -> ``depth=n`` (form_res_rels.c truncates after sorting);
* ``-J`` -> ``judged_only=yes`` (form_res_rels.c drops ``rel < 0`` and re-ranks);
* ``-l n`` -> only ``ndcg_p`` (``rel_level``: value set only if ``num_rel_ret > 0``)
  and ``Rndcg`` (``rel_level``: 0 if ``num_rel == 0``) depend on it; ``ndcg``,
  ``ndcg_cut`` and ``ndcg_rel`` use the grades themselves.
"""

from __future__ import annotations

import dataclasses
import re

from ..components import Preset
from ..hookspecs import hookimpl

TREC_EVAL_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

_TE = "usnistgov/trec_eval"
_PYTE = ("terrierteam/pytrec_eval src/pytrec_eval.cpp (ResultRankingBuilder: "
         "pair->sim = PyFloat_AsDouble(...), TEXT_RESULTS.sim is a C float in trec_format.h)")
_SK = "scikit-learn sklearn/metrics/_ranking.py"
_RANX = "AmenRa/ranx ranx/metrics/ndcg.py"
#: what scikit-learn raises for y_true of one column (sklearn.ndcg_score / dcg_score presets)
_SK_ONE_DOC = ("ValueError: Computing NDCG is only meaningful when there is more than 1 document. "
               "Got 1 instead. (ndcg_score)")
_SK_ONE_COLUMN = ("ValueError: Only ('multilabel-indicator', 'continuous-multioutput', "
                  "'multiclass-multioutput') formats are supported. Got binary instead "
                  "(dcg_score: _check_dcg_target_type reads one column as a 1-D target; "
                  "'binary', 'multiclass' or 'continuous' after the values)")

#: trec_eval's NDCG family as canonical flavour strings (no conventions, no cutoff).
TREC_EVAL_SPECS = {
    "ndcg": "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval)",
    "ndcg_cut": "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval)",
    "ndcg_p": "ndcg(rel_level=1,gain=linear,discount=jarvelin(base=2),idcg=judged,ties=trec_eval)",
    "ndcg_rel": "ndcg_rel(gain=linear,discount=log2,ties=trec_eval)",
    "Rndcg": "rndcg(gain=linear,discount=log2,ties=trec_eval)",
}


#: pytrec_eval's: trec_eval's flavours with scores compared as 32-bit floats.
PYTREC_EVAL_SPECS = {
    "ndcg": "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval(score=float32))",
    "ndcg_cut": "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval(score=float32))",
    "ndcg_rel": "ndcg_rel(gain=linear,discount=log2,ties=trec_eval(score=float32))",
    "Rndcg": "rndcg(gain=linear,discount=log2,ties=trec_eval(score=float32))",
}


#: trec_eval 9's (scores as 32-bit floats): the trec_eval 10.0 presets' flavours with
#: ``ties=trec_eval(score=float32)``.
TREC_EVAL9_SPECS = {
    **PYTREC_EVAL_SPECS,
    "ndcg_p": "ndcg(rel_level=1,gain=linear,discount=jarvelin(base=2),idcg=judged,"
              "ties=trec_eval(score=float32))",
    "map": "ap(ties=trec_eval(score=float32))",
    "map_cut": "ap(ties=trec_eval(score=float32))",
    "P": "precision(ties=trec_eval(score=float32))",
    "recall": "recall(ties=trec_eval(score=float32))",
    "recip_rank": "rr(ties=trec_eval(score=float32))",
}

_TE9 = ("trec_eval 9.0.8 trec_format.h ('float sim' in TEXT_RESULTS; 10.0 made it double), "
        "as wrapped by pytrec_eval")
_NOT_REGISTERED = ("m_ndcg_p.c is not registered in measures.c (te_trec_measures), so no released "
                   "trec_eval computes ndcg_p from the command line; the preset follows the file")

#: trec_eval 10.0's NDCG presets (scores as C double).
_TREC_EVAL10: tuple[Preset, ...] = (
    Preset(
        name="trec_eval.ndcg",
        spec=TREC_EVAL_SPECS["ndcg"],
        description="trec_eval 10.0 'ndcg' (scores compared as C double): linear gain (grade), 1/log2(r+1), IDCG over all judged "
                    "documents, no cutoff; ties by docno descending; negative grades gain 0",
        source=f"{_TE} m_ndcg.c (te_calc_ndcg, log2(i+2) for 0-based i), gain_init.c, form_res_rels.c",
        native_name="ndcg",
    ),
    Preset(
        name="trec_eval.ndcg_cut",
        spec=TREC_EVAL_SPECS["ndcg_cut"],
        description="trec_eval 10.0 'ndcg_cut.k' (scores compared as C double): as ndcg, DCG and IDCG both cut at k (grades as gains)",
        source=f"{_TE} m_ndcg_cut.c (te_calc_ndcg_cut)",
        requires_cutoff=True,
        default_cutoffs=TREC_EVAL_CUTOFFS,
        native_name="ndcg_cut_{k}",
    ),
    Preset(
        name="trec_eval.ndcg_p",
        spec=TREC_EVAL_SPECS["ndcg_p"],
        description="trec_eval 10.0 'ndcg_p' (scores compared as C double): original Järvelin-Kekäläinen discount (rank 1: 1, "
                    "rank r >= 2: 1/log2(r)); 0 unless a document of grade >= -l is retrieved. "
                    f"{_NOT_REGISTERED}",
        source=f"{_TE} m_ndcg_p.c (te_calc_ndcg_p: 'if (i > 0) gain / log2(i+1)', "
               "'if (res_rels.num_rel_ret > 0)'); measures.c (no te_meas_ndcg_p entry)",
        native_name="ndcg_p",
    ),
    Preset(
        name="trec_eval.ndcg_rel",
        spec=TREC_EVAL_SPECS["ndcg_rel"],
        description="trec_eval 10.0 'ndcg_rel' (experimental; scores compared as C double): NDCG averaged over the relevant documents",
        source=f"{_TE} m_ndcg_rel.c (te_calc_ndcg_rel)",
        native_name="ndcg_rel",
    ),
    Preset(
        name="trec_eval.Rndcg",
        spec=TREC_EVAL_SPECS["Rndcg"],
        description="trec_eval 10.0 'Rndcg' (experimental; scores compared as C double): NDCG averaged at the R-levels of the ideal ranking",
        source=f"{_TE} m_Rndcg.c (te_calc_Rndcg)",
        native_name="Rndcg",
    ),
)

#: trec_eval 10.0's binary measures that evalkit computes (relevant: grade >= -l, 1).
_TREC_EVAL10_BINARY: tuple[Preset, ...] = (
    Preset(
        name="trec_eval.map",
        spec="ap(ties=trec_eval)",
        description="trec_eval 10.0 'map' (scores compared as C double): average precision, "
                    "relevant = grade >= 1 (-l)",
        source=f"{_TE} m_map.c (te_calc_map)",
        native_name="map",
    ),
    Preset(
        name="trec_eval.map_cut",
        spec="ap(ties=trec_eval)",
        description="trec_eval 10.0 'map_cut.k' (scores compared as C double): average precision "
                    "over the first k documents",
        source=f"{_TE} m_map_cut.c (te_calc_map_cut)",
        requires_cutoff=True,
        default_cutoffs=TREC_EVAL_CUTOFFS,
        native_name="map_cut_{k}",
    ),
    Preset(
        name="trec_eval.P",
        spec="precision(ties=trec_eval)",
        description="trec_eval 10.0 'P.k' (scores compared as C double): relevant documents in the "
                    "first k, divided by k",
        source=f"{_TE} m_P.c (te_calc_P)",
        requires_cutoff=True,
        default_cutoffs=TREC_EVAL_CUTOFFS,
        native_name="P_{k}",
    ),
    Preset(
        name="trec_eval.recall",
        spec="recall(ties=trec_eval)",
        description="trec_eval 10.0 'recall.k' (scores compared as C double): relevant documents in "
                    "the first k over the relevant judged documents",
        source=f"{_TE} m_recall.c (te_calc_recall)",
        requires_cutoff=True,
        default_cutoffs=TREC_EVAL_CUTOFFS,
        native_name="recall_{k}",
    ),
    Preset(
        name="trec_eval.recip_rank",
        spec="rr(ties=trec_eval)",
        description="trec_eval 10.0 'recip_rank' (scores compared as C double): 1 / rank of the "
                    "first relevant document",
        source=f"{_TE} m_recip_rank.c (te_calc_recip_rank)",
        native_name="recip_rank",
    ),
)

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

#: Presets, in the order ``evalkit flavours`` lists them.
PRESETS: tuple[Preset, ...] = (
    # ------------------------------------------------------------------ trec_eval 10.0
    *_TREC_EVAL10,
    *_TREC_EVAL10_BINARY,
    # ------------------------------------------------------------------ trec_eval 9.x
    *(dataclasses.replace(p, name=p.name.replace("trec_eval.", "trec_eval9."), spec=TREC_EVAL9_SPECS[p.name.split(".", 1)[1]],
              description=p.description.replace("trec_eval 10.0", "trec_eval 9.0.8 (and earlier)")
              .replace("scores compared as C double", "scores stored as 32-bit C float: scores equal in "
                       "float32 tie, then docno descending"),
              source=f"{p.source}; {_TE9}")
      for p in _TREC_EVAL10 + _TREC_EVAL10_BINARY),
    # ------------------------------------------------------------------ pytrec_eval
    Preset(
        name="pytrec_eval.ndcg",
        spec=PYTREC_EVAL_SPECS["ndcg"],
        description="pytrec_eval 'ndcg': trec_eval's ndcg with scores stored as 32-bit floats "
                    "(scores equal in float32 tie, then docno descending)",
        source=f"{_PYTE}; {_TE} m_ndcg.c",
        native_name="ndcg",
    ),
    Preset(
        name="pytrec_eval.ndcg_cut",
        spec=PYTREC_EVAL_SPECS["ndcg_cut"],
        description="pytrec_eval 'ndcg_cut.k': trec_eval's ndcg_cut with float32 scores",
        source=f"{_PYTE}; {_TE} m_ndcg_cut.c",
        requires_cutoff=True,
        default_cutoffs=TREC_EVAL_CUTOFFS,
        native_name="ndcg_cut_{k}",
    ),
    Preset(
        name="pytrec_eval.ndcg_rel",
        spec=PYTREC_EVAL_SPECS["ndcg_rel"],
        description="pytrec_eval 'ndcg_rel': trec_eval's ndcg_rel with float32 scores",
        source=f"{_PYTE}; {_TE} m_ndcg_rel.c",
        native_name="ndcg_rel",
    ),
    Preset(
        name="pytrec_eval.Rndcg",
        spec=PYTREC_EVAL_SPECS["Rndcg"],
        description="pytrec_eval 'Rndcg': trec_eval's Rndcg with float32 scores",
        source=f"{_PYTE}; {_TE} m_Rndcg.c",
        native_name="Rndcg",
    ),
    # ------------------------------------------------------------------ scikit-learn
    Preset(
        name="sklearn.ndcg_score",
        spec="ndcg(gain=linear,discount=log2,idcg=returned,ties=average,negative=error)",
        description="scikit-learn ndcg_score (ignore_ties=False): LINEAR gain, 1/log2(r+1), "
                    "IDCG from the row's own labels, tied scores averaged; all-zero rows score 0; "
                    "a negative grade raises, as in scikit-learn (negative=error)",
        source=f"{_SK} ndcg_score, _ndcg_sample_scores, _dcg_sample_scores, _tie_averaged_dcg",
        native_name="ndcg_score(k={k})",
        min_documents=2,
        too_few_documents=_SK_ONE_DOC,
    ),
    Preset(
        name="sklearn.ndcg_score_ignore_ties",
        spec="ndcg(gain=linear,discount=log2,idcg=returned,ties=numpy_argsort,negative=error)",
        description="scikit-learn ndcg_score(ignore_ties=True): ranking = np.argsort(y_score)[:, ::-1] "
                    "(tie order is numpy's, CPU-dependent)",
        source=f"{_SK} _dcg_sample_scores ('ranking = np.argsort(y_score)[:, ::-1]')",
        native_name="ndcg_score(k={k},ignore_ties=True)",
        min_documents=2,
        too_few_documents=_SK_ONE_DOC,
    ),
    Preset(
        name="sklearn.dcg_score",
        spec="dcg(gain=linear,discount=log2,ties=average,negative=gain)",
        description="scikit-learn dcg_score (log_base=2, ignore_ties=False): a negative grade is a "
                    "negative linear gain (negative=gain); other bases: "
                    "dcg(discount=log(base=b),ties=average,negative=gain)",
        source=f"{_SK} dcg_score, _dcg_sample_scores ('discount = 1 / (np.log(np.arange(n) + 2) "
               "/ np.log(log_base))'), _tie_averaged_dcg",
        native_name="dcg_score(k={k})",
        min_documents=2,
        too_few_documents=_SK_ONE_COLUMN,
    ),
    Preset(
        name="sklearn.dcg_score_ignore_ties",
        spec="dcg(gain=linear,discount=log2,ties=numpy_argsort,negative=gain)",
        description="scikit-learn dcg_score(ignore_ties=True); negative grades are negative gains",
        source=f"{_SK} _dcg_sample_scores",
        native_name="dcg_score(k={k},ignore_ties=True)",
        min_documents=2,
        too_few_documents=_SK_ONE_COLUMN,
    ),
    # ------------------------------------------------------------------ ranx
    Preset(
        name="ranx.ndcg",
        spec="ndcg(gain=linear,discount=log2,idcg=judged,ties=numba_quicksort(sorts=2),missing=zero)",
        description="ranx 'ndcg' (Järvelin et al. formulation): linear gain, 1/log2(r+1), IDCG from "
                    "the qrels; judgments below rel_lvl (-l, default 1) count 0: add min_grade=l; "
                    "as ranx.evaluate(..., make_comparable=True) computes it: missing queries 0, the "
                    "run sorted twice by numba's quicksort (ties=numba_quicksort(sorts=1) without "
                    "make_comparable)",
        source=f"{_RANX} (_dcg jarvelin=True, _idcg = _dcg(qrels, qrels)), ranx/metrics/common.py "
               "clean_qrels, ranx/data_structures/common.py sort_dict_by_value, "
               "ranx/data_structures/run.py (__init__: create_and_sort; make_comparable: self.sort())",
        native_name="ndcg@{k}",
    ),
    Preset(
        name="ranx.ndcg_burges",
        spec="ndcg(gain=exp2,discount=log2,idcg=judged,ties=numba_quicksort(sorts=2),missing=zero)",
        description="ranx 'ndcg_burges': exponential gain 2^rel - 1, otherwise as ranx.ndcg",
        source=f"{_RANX} (_dcg jarvelin=False: '(2**weighted_hit_list - 1)')",
        native_name="ndcg_burges@{k}",
    ),
    Preset(
        name="ranx.ndcg_sorted_once",
        spec="ndcg(gain=linear,discount=log2,idcg=judged,ties=numba_quicksort,missing=error)",
        description="ranx 'ndcg' as ranx.evaluate(qrels, run, 'ndcg@k') computes it by default "
                    "(make_comparable=False) on a Run from Run.from_file, from_dict, from_df, "
                    "from_parquet, Run(dict) or add_score: the run sorted once by numba's quicksort; "
                    "ranx asserts that run and qrels have the same queries (a qrels query missing "
                    "from the run is an error here; a run query without judgments is left out here, "
                    "ranx refuses the run)",
        source=f"{_RANX}, ranx/meta/evaluate.py check_keys, ranx/data_structures/run.py "
               "(from_dict: create_and_sort), ranx/data_structures/common.py sort_dict_by_value",
        native_name="ndcg@{k}",
    ),
    Preset(
        name="ranx.ndcg_burges_sorted_once",
        spec="ndcg(gain=exp2,discount=log2,idcg=judged,ties=numba_quicksort,missing=error)",
        description="ranx 'ndcg_burges' as ranx.evaluate computes it by default "
                    "(make_comparable=False): as ranx.ndcg_sorted_once with exponential gain",
        source=f"{_RANX} (_dcg jarvelin=False), ranx/meta/evaluate.py check_keys",
        native_name="ndcg_burges@{k}",
    ),
    # ------------------------------------------------------------------ ir_measures
    *_IR_MEASURES,
    # ------------------------------------------------------------------ papers
    Preset(
        name="jarvelin2002.ndcg",
        spec="ndcg(gain=linear,discount=jarvelin(base=2),idcg=judged,ties=trec_eval)",
        description="Järvelin & Kekäläinen 2002: DCG = rel_1 + sum_{i>=2} rel_i / log2(i)",
        source="Järvelin & Kekäläinen, ACM TOIS 20(4):422-446, 2002",
    ),
    Preset(
        name="burges2005.ndcg",
        spec="ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval)",
        description="Burges et al. 2005: DCG = sum (2^rel_i - 1) / log2(i + 1)",
        source="Burges et al., Learning to Rank using Gradient Descent, ICML 2005",
    ),
)


@hookimpl
def evalkit_register_presets(register):
    for preset in PRESETS:
        register(preset)


# --------------------------------------------------------------------------- trec_eval flags

_GAIN_PAIR = re.compile(r"^[+-]?\d+=[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")


def trec_eval_flavours(measure: str, *, complete: bool = False, max_docs: int | None = None,
                       judged_only: bool = False, rel_level: int = 1, float32: bool = False,
                       registry=None) -> list[tuple[str, "Flavour"]]:
    """The flavours of one trec_eval ``-m`` argument under trec_eval's flags.

    :param measure: ``ndcg``, ``ndcg_cut`` / ``ndcg_cut.5,10,23.4``, ``ndcg_p``,
        ``ndcg_rel``, ``Rndcg``, optionally with gains ``ndcg.1=3,2=9`` (grades not
        listed keep their own value; gain_init.c).
    :param complete: ``-c`` (``missing=zero``).
    :param max_docs: ``-M n`` (``depth=n``).
    :param judged_only: ``-J`` (``judged_only=yes``).
    :param rel_level: ``-l n``; changes ``ndcg_p`` and ``Rndcg`` only.
    :param float32: compare scores as 32-bit floats (pytrec_eval).
    :returns: ``[(name trec_eval prints, Flavour), ...]``: ``ndcg_cut.5,23.4`` gives
        ``ndcg_cut_5`` and ``ndcg_cut_23`` (trec_eval reads cutoffs with ``atol``).
    :raises FlavourError: a measure outside trec_eval's NDCG family or a bad parameter.
    """
    from ..errors import FlavourError
    from ..flavour import parse_flavour

    name, _, params = measure.partition(".")
    if name not in TREC_EVAL_SPECS:
        raise FlavourError(f"trec_eval measure '{name}' is not in the NDCG family "
                           f"({', '.join(TREC_EVAL_SPECS)})")
    base = parse_flavour(TREC_EVAL_SPECS[name], registry)
    changes: dict = {}
    if float32:
        changes["ties"] = ("trec_eval", {"score": "float32"})
    if name in ("ndcg_p", "Rndcg") and rel_level != 1:
        changes["rel_level"] = rel_level
    if complete:
        changes["missing"] = "zero"
    if max_docs is not None:
        changes["depth"] = int(max_docs)
    if judged_only:
        changes["judged_only"] = "yes"
    cutoffs: list[int] = []
    printed = name
    if name == "ndcg_cut":
        texts = params.split(",") if params else [str(k) for k in TREC_EVAL_CUTOFFS]
        try:
            cutoffs = [int(float(t)) for t in texts]
        except ValueError:
            raise FlavourError(f"trec_eval measure {measure!r}: cutoffs must be numbers") from None
    elif params:
        pairs = params.split(",")
        if not all(_GAIN_PAIR.match(p) for p in pairs):
            raise FlavourError(f"trec_eval measure {measure!r}: gains must be 'grade=gain' pairs")
        table = [tuple(p.split("=", 1)) for p in pairs]
        changes["gain"] = ("map", [(grade, float(gain)) for grade, gain in table])
        printed = f"{name}_{params}"
    if changes:
        base = base.replace(registry, **changes)
    if name == "ndcg_cut":
        return [(f"ndcg_cut_{k}", base.with_cutoff(k)) for k in cutoffs]
    return [(printed, base)]

