"""gdeval.pl (TREC 2010-2014 Web track): its nDCG and ERR. ir_measures runs the same
script for ``nDCG(dcg='exp-log2')`` and ``ERR`` (:mod:`evalkit.libraries.ir_measures`);
the grade rule ``grades=gdeval`` (integers up to 4) is a flavour convention."""

from __future__ import annotations

from ..components import Preset
from .._builtin_hookimpl import hookimpl
from typing import Any, TYPE_CHECKING

if TYPE_CHECKING:
    from ..hookspecs import Register

GDEVAL = "gdeval.pl version 1.2a (TREC 2010-2014 Web track; ir_measures/bin/gdeval.pl in ir_measures 0.4.3)"


def _presets() -> Any:
    yield Preset(
        name="gdeval.ndcg",
        spec="ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval,empty=skip,grades=gdeval)",
        description=("gdeval.pl nDCG@k (TREC Web track): gain 2^rel-1, 1/log(i+2) (log2 after "
                     "normalising), IDCG from every positive judgment of the topic, run sorted by "
                     "score then docno descending, topics with no positive judgment not reported; a judgment "
                     "that is not an integer or is above 4 stops gdeval.pl (format error): refused "
                     "(grades=gdeval)"),
        source=(f"{GDEVAL} lines 16 (MAX_JUDGMENT = 4), 39-42 (format error unless the judgment "
                "is an integer <= MAX_JUDGMENT), 42-45 (only judgments > 0 kept; negative "
                "grades count 0), 73/82 (ideal DCG from the sorted positive judgments), 124-143 "
                "(runOrder: score descending, then docno descending), 151 ((2^g-1)/log(i+2)), 175 "
                "(topics without a positive judgment are skipped)"),
        requires_cutoff=True,
        default_cutoffs=(20,),
        native_name="ndcg@{k}",
    )
    yield Preset(
        name="gdeval.err",
        spec="err(max_grade=4,ties=trec_eval,empty=skip,grades=gdeval)",
        description=("gdeval.pl ERR@k: R = (2^rel - 1)/2^4, run sorted by score then docno "
                     "descending, topics with no positive judgment not reported; a judgment that is not an "
                     "integer or is above 4 stops gdeval.pl (format error): refused (grades=gdeval)"),
        source=(f"{GDEVAL} lines 16 (MAX_JUDGMENT = 4), 39-42 (format error unless the judgment "
                "is an integer <= MAX_JUDGMENT), 42-45, "
                "124-143 (runOrder), 157-169 (err: r = (2^g-1)/2^MAX_JUDGMENT, score += r*decay/(i+1)), "
                "175"),
        requires_cutoff=True,
        default_cutoffs=(20,),
        native_name="err@{k}",
    )


@hookimpl
def evalkit_register_presets(register: Register) -> None:
    for preset in _presets():
        register(preset)
