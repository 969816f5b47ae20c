"""Built-in presets: named flavours that reproduce a library's or a paper's NDCG.

Names are ``LIBRARY.MEASURE``; a cutoff is given as ``@k``.
"""

from __future__ import annotations

from ..components import Preset
from ..hookspecs import hookimpl

TREC_EVAL_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@hookimpl
def evalkit_register_presets(register):
    register(Preset(
        name="trec_eval.ndcg",
        spec="ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval)",
        description="trec_eval 'ndcg': linear gain, 1/log2(r+1), IDCG over all judged documents, no cutoff",
        source="usnistgov/trec_eval m_ndcg.c",
        native_name="ndcg",
    ))
    register(Preset(
        name="trec_eval.ndcg_cut",
        spec="ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval)",
        description="trec_eval 'ndcg_cut.k': as ndcg, DCG and IDCG both cut at k",
        source="usnistgov/trec_eval m_ndcg_cut.c",
        requires_cutoff=True,
        default_cutoffs=TREC_EVAL_CUTOFFS,
        native_name="ndcg_cut_{k}",
    ))
    register(Preset(
        name="jarvelin2002.ndcg",
        spec="ndcg(gain=linear,discount=jarvelin(base=2),idcg=judged,ties=trec_eval)",
        description="Järvelin & Kekäläinen 2002: DCG = rel_1 + sum_{i>=2} rel_i / log2(i)",
        source="Järvelin & Kekäläinen, ACM TOIS 20(4):422-446, 2002",
    ))
    register(Preset(
        name="burges2005.ndcg",
        spec="ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval)",
        description="Burges et al. 2005: DCG = sum (2^rel_i - 1) / log2(i + 1)",
        source="Burges et al., Learning to Rank using Gradient Descent, ICML 2005",
    ))
