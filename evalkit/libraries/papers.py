"""Presets of the papers that defined NDCG: Järvelin & Kekäläinen's discount and
Burges et al.'s exponential gain."""

from __future__ import annotations

from ..components import Preset
from .._builtin_hookimpl import hookimpl
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..hookspecs import Register

PRESETS: tuple[Preset, ...] = (
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
def evalkit_register_presets(register: Register) -> None:
    for preset in PRESETS:
        register(preset)
