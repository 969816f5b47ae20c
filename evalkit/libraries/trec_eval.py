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
from .._builtin_hookimpl import hookimpl
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from ..flavour import Flavour
    from ..hookspecs import Register
    from ..registry import Registry

TREC_EVAL_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

_TE = "usnistgov/trec_eval"
_PYTE = ("terrierteam/pytrec_eval src/pytrec_eval.cpp (ResultRankingBuilder: "
         "pair->sim = PyFloat_AsDouble(...), TEXT_RESULTS.sim is a C float in trec_format.h)")

#: trec_eval 10.0's NDCG family as canonical flavour strings (no cutoff). ``missing=error``:
#: without ``-c`` trec_eval 10.0 stops (exit 4, "trec_eval: result qid 'X' not found in
#: qrels": trec_eval.c, the loop over ``all_rel_info``) when a qrels topic has no line in the
#: run, where 9.0.8 leaves the topic out; ``-c`` (``missing=zero``) scores it 0.
TREC_EVAL_SPECS = {
    "ndcg": "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval,missing=error)",
    "ndcg_cut": "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval,missing=error)",
    "ndcg_p": "ndcg(rel_level=1,gain=linear,discount=jarvelin(base=2),idcg=judged,ties=trec_eval,missing=error)",
    "ndcg_rel": "ndcg_rel(gain=linear,discount=log2,ties=trec_eval,missing=error)",
    "Rndcg": "rndcg(gain=linear,discount=log2,ties=trec_eval,missing=error)",
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
        spec="ap(ties=trec_eval,missing=error)",
        description="trec_eval 10.0 'map' (scores compared as C double): average precision, "
                    "relevant = grade >= 1 (-l)",
        source=f"{_TE} m_map.c (te_calc_map)",
        native_name="map",
    ),
    Preset(
        name="trec_eval.map_cut",
        spec="ap(ties=trec_eval,missing=error)",
        description="trec_eval 10.0 'map_cut.k' (scores compared as C double): average precision "
                    "over the first k documents",
        source=f"{_TE} m_map_cut.c (te_calc_map_cut)",
        requires_cutoff=True,
        default_cutoffs=TREC_EVAL_CUTOFFS,
        native_name="map_cut_{k}",
    ),
    Preset(
        name="trec_eval.P",
        spec="precision(ties=trec_eval,missing=error)",
        description="trec_eval 10.0 'P.k' (scores compared as C double): relevant documents in the "
                    "first k, divided by k",
        source=f"{_TE} m_P.c (te_calc_P)",
        requires_cutoff=True,
        default_cutoffs=TREC_EVAL_CUTOFFS,
        native_name="P_{k}",
    ),
    Preset(
        name="trec_eval.recall",
        spec="recall(ties=trec_eval,missing=error)",
        description="trec_eval 10.0 'recall.k' (scores compared as C double): relevant documents in "
                    "the first k over the relevant judged documents",
        source=f"{_TE} m_recall.c (te_calc_recall)",
        requires_cutoff=True,
        default_cutoffs=TREC_EVAL_CUTOFFS,
        native_name="recall_{k}",
    ),
    Preset(
        name="trec_eval.recip_rank",
        spec="rr(ties=trec_eval,missing=error)",
        description="trec_eval 10.0 'recip_rank' (scores compared as C double): 1 / rank of the "
                    "first relevant document",
        source=f"{_TE} m_recip_rank.c (te_calc_recip_rank)",
        native_name="recip_rank",
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
)


def _pyserini() -> Any:
    # ------------------------------------------------------------------ Pyserini
    pys = ("castorini/pyserini v1.6 pyserini/eval/trec_eval.py (runs trec_eval 9 through the "
           "jtreceval jar of Anserini; -remove-unjudged: the run rows without a qrels entry are "
           "dropped before trec_eval, so a query left without rows is not in the run); trec_eval 9 "
           "keeps scores as C floats (float32), as trec_eval9.*")
    yield Preset(
        name="pyserini.ndcg_cut",
        spec="ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval(score=float32))",
        description="Pyserini's trec_eval wrapper, ndcg_cut.k: trec_eval's own",
        source=pys,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="ndcg_cut_{k}",
    )
    yield Preset(
        name="pyserini.ndcg_cut_remove_unjudged",
        spec="ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval(score=float32),run_filter=unjudged)",
        description=("Pyserini trec_eval -remove-unjudged ndcg_cut.k: documents absent from the "
                     "qrels removed before ranking (condensed lists); a query with no judged "
                     "document retrieved leaves the run (out of the mean; with -c it scores 0: "
                     "add missing=zero)"),
        source=pys,
        requires_cutoff=True,
        default_cutoffs=(10,),
        native_name="ndcg_cut_{k}",
    )


@hookimpl
def evalkit_register_presets(register: Register) -> None:
    for preset in (*PRESETS, *_pyserini()):
        register(preset)


# --------------------------------------------------------------------------- trec_eval flags

#: a ``-m ndcg.REL=GAIN,...`` pair (compiled when first used, by re's own cache: only
#: gain pairs need it)
_GAIN_PAIR = r"^[+-]?\d+=[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$"


def trec_eval_flavours(measure: str, *, complete: bool = False, max_docs: int | None = None,
                       judged_only: bool = False, rel_level: int = 1, float32: bool = False,
                       registry: Registry | None = None) -> list[tuple[str, "Flavour"]]:
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
        if not all(re.match(_GAIN_PAIR, p) for p in pairs):
            raise FlavourError(f"trec_eval measure {measure!r}: gains must be 'grade=gain' pairs")
        table = [tuple(p.split("=", 1)) for p in pairs]
        changes["gain"] = ("map", [(grade, float(gain)) for grade, gain in table])
        printed = f"{name}_{params}"
    if changes:
        base = base.replace(registry, **changes)
    if name == "ndcg_cut":
        return [(f"ndcg_cut_{k}", base.with_cutoff(k)) for k in cutoffs]
    return [(printed, base)]

