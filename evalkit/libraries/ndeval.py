"""ndeval (TREC Web track diversity, 4.5) and pyndeval: the presets of alpha-nDCG,
ERR-IA and nERR-IA under each program's run order. The metrics themselves (``alpha_ndcg``,
``err_ia``) are built-in components (:mod:`evalkit.builtins.diversity`): ndeval's
definitions, which other tools reuse."""

from __future__ import annotations

from typing import Any, TYPE_CHECKING

import numpy as np

from ..components import Divergence, Preset
from .._builtin_hookimpl import hookimpl

if TYPE_CHECKING:
    from ..hookspecs import Register

NDEVAL = "ndeval 4.5 (pyndeval 0.0.8 src/ndeval.c = trec-web/trec-web-2014 src/eval/ndeval.c)"


#: pyndeval, reading a run in line order, starts a topic at every change of query id
PYNDEVAL_INTERLEAVED = (
    "pyndeval 0.0.8 starts a new topic at every change of query id in the run's line order "
    "(pyndeval/__init__.py:140-167, _coerce_run_iter): each contiguous part of the topic is "
    "scored as a topic of its own against the topic's full judgments, ir_measures reports "
    "the topic once per part and its mean counts every part; sort the run by topic to get "
    "pyndeval's number for the whole topic, which is evalkit's")


@hookimpl
def evalkit_register_presets(register: Register) -> None:
    common: dict[str, Any] = dict(requires_cutoff=True, default_cutoffs=(5, 10, 20))
    # ndeval's run order: by default the rank column (resultCompareByRank, 421-439; the TREC
    # Web track's official numbers); with -traditional, score descending then docno
    # descending (forceTraditionalRanks, 992; resultCompareByScore, 470-492)
    orders = (
        ("ndeval", "rank", "run ordered by its rank column (ndeval's default; read the run with "
                           "keep_rank=True, as the command line and the config runner do for it)",
         "420-439 (resultCompareByRank: topic, then rank; resultSortByRank), 1099-1106 (duplicate "
         "ranks refused), 218-237 (naturalNumber)"),
        ("ndeval_traditional", "trec_eval", "run ordered as ndeval -traditional (score descending, "
                                            "then docno descending)",
         "987-1008 (forceTraditionalRanks), 1096-1097 (if traditional), 470-492 (resultCompareByScore)"),
    )
    for prefix, ties, order, order_lines in orders:
        register(Preset(
            name=f"{prefix}.alpha_ndcg",
            spec=f"alpha_ndcg(discount=log2,ties={ties})",
            description=("ndeval alpha-nDCG@k (α = 0.5): subtopic judgments > 0 relevant, 1/log2(i+1), "
                         f"greedy ideal ranking; {order}"),
            source=(f"{NDEVAL} lines 69-78 (DEPTH 20, α = 0.5), 367-415 (idealResult), 595 (discount), "
                    f"667-713 (computeDCG), 923 (judgment > 1 -> 1), 1159-1171 (renormalize), {order_lines}"),
            native_name="alpha-nDCG@{k}",
            **common,
        ))
        register(Preset(
            name=f"{prefix}.err_ia",
            spec=f"err_ia(ties={ties})",
            description=("ndeval ERR-IA@k (α = 0.5) with the collection-independent normalisation "
                         f"|S| sum_i (1-α)^{{i-1}}/i; {order}"),
            source=f"{NDEVAL} lines 352-362 (actualSubtopics), 613-658 (computeERR), 923, {order_lines}",
            native_name="ERR-IA@{k}",
            **common,
        ))
        register(Preset(
            name=f"{prefix}.nerr_ia",
            spec=f"err_ia(norm=ideal,ties={ties})",
            description=f"ndeval nERR-IA@k (α = 0.5): ERR-IA divided by that of the greedy ideal ranking; {order}",
            source=(f"{NDEVAL} lines 367-415 (idealResult), 613-658 (computeERR), 1159-1171 (renormalize), "
                    f"{order_lines}"),
            native_name="nERR-IA@{k}",
            **common,
        ))
    # pyndeval (what ir_measures' alpha_nDCG / ERR_IA / nERR_IA run): ndeval's measures on
    # a ranking pyndeval builds itself, by score descending then docno ascending
    pyndeval = ("pyndeval 0.0.8 pyndeval/__init__.py _coerce_run_iter (sorted by (-score, docno), "
                "ranks 1..n) and src/pyndeval.c (ndeval.c's measures)")
    for name, spec, native, what in (
        # native names: ir_measures' (alpha_nDCG@20, ERR_IA@20, nERR_IA@20), which run pyndeval (ir_measures.alpha_nDCG adds missing=zero)
        ("alpha_ndcg", "alpha_ndcg(discount=log2,ties=docno_ascending)", "alpha_nDCG@{k}", "alpha-nDCG@k"),
        ("err_ia", "err_ia(ties=docno_ascending)", "ERR_IA@{k}", "ERR-IA@k"),
        ("nerr_ia", "err_ia(norm=ideal,ties=docno_ascending)", "nERR_IA@{k}", "nERR-IA@k"),
    ):
        register(Preset(
            name=f"pyndeval.{name}",
            spec=spec,
            description=(f"pyndeval / ir_measures {what} (α = 0.5): ndeval's measure, run ordered by "
                         "score descending then docno ascending (ndeval -traditional: docno descending)"),
            source=f"{pyndeval}; {NDEVAL}",
            native_name=native,
            interleaved_topics=PYNDEVAL_INTERLEAVED,
            **common,
        ))


# ---------------------------------------------------------------- divergences (family ``divergence``)
def interleaved_topics(qrels: Any, run: Any) -> np.ndarray:
    """Judged query ids whose lines in ``run`` are not contiguous (another query's lines
    come between two of theirs), in sorted order.

    :param qrels: :class:`~evalkit.data.Qrels` (or any object with ``qids``).
    :param run: :class:`~evalkit.data.Run`; its rows in the order they were read.
    :returns: ``object`` array of ``str`` ``(m,)``; empty when every judged query's
        lines form one block. O(rows), no sort of the rows.
    """
    from ..columnar import isin_ids

    codes, vocab = run._qid_codes()
    heads = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1]))) if len(codes) else codes[:0]
    blocks = np.bincount(codes[heads], minlength=len(vocab))  # the runs of equal query codes of each query
    split = np.flatnonzero(blocks > 1)
    if len(split) == 0:
        return vocab[:0]
    names = vocab[split]
    return names[isin_ids(names, qrels.qids)]


@hookimpl
def evalkit_register_divergences() -> Any:
    return [Divergence(
        name="interleaved_topics", fn=interleaved_topics,
        message="the lines of topic(s) {topics} are not contiguous; evalkit scores each topic whole",
        description="a topic whose lines are not contiguous in the run: pyndeval (and ir_measures' alpha_nDCG, "
                    "ERR_IA, nERR_IA, which run it on a TREC file's lines in order) starts a topic at every change "
                    "of query id and scores each contiguous part as a topic",
        source="pyndeval/__init__.py:140-167")]
