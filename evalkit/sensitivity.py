"""What a reported number depends on besides the system: the order of tied scores
(**tie spread**) and how much of the top k was judged (**judged@k**).

* :func:`tie_bounds` -- every flavour evaluated again with its tie policy replaced
  by ``pessimistic`` (within equal scores, lowest grade first) and ``optimistic``
  (highest grade first; under ``negative=gain`` a negative grade ranks below 0:
  ``pessimistic(negative=gain)``). For metrics that sum a non-negative gain times a
  non-increasing discount over positions (NDCG, DCG, precision...), these are the
  worst and the best value over every ordering of the tied documents (the
  rearrangement inequality; McSherry & Najork, "Computing information retrieval
  performance measures efficiently in the presence of tied scores", ECIR 2008). A
  flavour whose tie policy is ``input`` or ``rank`` ignores scores (the run's line
  order, its rank column), so it has no ties: both bounds are its value. A flavour whose tie policy cannot be replaced (a metric
  with its own ordering) has ``NaN`` bounds.
* :func:`judged_at_k` -- the fraction of the first ``k`` retrieved documents that
  have a judgment (any grade), per system and query, as ir_measures' ``Judged@k``
  computes it (``ir_measures/providers/judged_provider.py``, adapted from OpenNIR):
  documents sorted by score descending then docno ascending, divided by
  ``min(k, number retrieved)``; a query with nothing retrieved has no value
  (``NaN``). A system whose mean judged@k is far below the others' is the pool-bias
  case (Buckley, Dimmick, Soboroff & Voorhees, "Bias and the limits of pooling for
  large collections", Information Retrieval 10(6), 2007): an unjudged-as-irrelevant
  convention punishes a system the pool did not include.

Both are computed with :func:`evalkit.evaluate` (vectorised over queries; each run
sorted once per tie policy).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Sequence, TYPE_CHECKING

import numpy as np

from .engine.evaluate import evaluate
from .errors import EmptyEvaluationWarning, FlavourError
from .flavour import Flavour

if TYPE_CHECKING:
    from .data import Qrels, Run
    from .registry import Registry

#: Judged@k this far (absolute) below the median of the other systems' is flagged
#: as possible pool bias.
JUDGED_GAP = 0.10


def _tie_variant(flavour: Flavour, policy: str, registry: Registry | None) -> Flavour | None:
    """``flavour`` with tie policy ``policy``; the flavour itself for ``ties=input``
    and ``ties=rank`` (orders without ties); ``None`` when the tie policy cannot be
    replaced."""
    if flavour.ties is not None and flavour.ties.name in ("input", "rank"):
        return flavour
    # under a negative rule with negative gains (negative=gain) a negative grade has a
    # negative gain: the bounds order it below 0
    from .registry import registry_or_default

    negative = flavour.stage("negative")
    negative_gain = registry_or_default(registry).get("negative", negative.name).negative_gain
    ties = (policy, {"negative": "gain"}) if negative_gain else policy
    try:
        return flavour.replace(registry, ties=ties)
    except FlavourError:
        return None


def tie_bounds(qrels: Qrels, run: Run, flavours: Sequence[Flavour], registry: Registry | None = None,
               subtopics: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """The worst and best value of every flavour over the orderings of tied scores.

    :param qrels: :class:`~evalkit.Qrels`; :param run: one :class:`~evalkit.Run`;
    :param flavours: ``f`` flavours (as evaluated for the report);
    :param subtopics: subtopic qrels, for intent-aware metrics.
    :returns: ``(low, high)``, each ``float64`` ``(f, q)`` over ``qrels.qids``
        (``NaN`` where the flavour has no value for the query, or no bounds).
    """
    pess = [_tie_variant(f, "pessimistic", registry) for f in flavours]
    opt = [_tie_variant(f, "optimistic", registry) for f in flavours]
    ok = [i for i, (p, o) in enumerate(zip(pess, opt)) if p is not None and o is not None]
    n_q = len(qrels.qids)
    low = np.full((len(flavours), n_q), np.nan)
    high = np.full((len(flavours), n_q), np.nan)
    if ok:
        with warnings.catch_warnings():  # the report's own evaluation of the flavour has warned
            warnings.simplefilter("ignore", EmptyEvaluationWarning)
            res = evaluate(qrels, [run], [pess[i] for i in ok] + [opt[i] for i in ok],
                           labels=[f"low{i}" for i in ok] + [f"high{i}" for i in ok], subtopics=subtopics,
                           registry=registry)
        low[ok] = res.values[0, :len(ok)]
        high[ok] = res.values[0, len(ok):]
    return low, high


def _judged_qrels(qrels: Qrels) -> Any:
    """``qrels`` with every grade set to 1 (a judged document counts, whatever its grade)."""
    import copy

    out = copy.copy(qrels)  # the same (qid, docno) columns and their join indexes
    out.grade = np.ones(len(qrels), dtype=np.float64)
    return out


def judged_at_k(qrels: Qrels, run: Run, cutoffs: Sequence[int | None], registry: Registry | None = None) -> np.ndarray:
    """Judged@k of one run per cutoff and query.

    ``judged@k(q) = |judged documents among the first k of q| / min(k, n_q)`` with
    ``n_q`` the documents retrieved for ``q``, in score-descending, docno-ascending
    order (ir_measures ``Judged@k``); ``k = None``: the whole list.

    :param cutoffs: ``c`` cutoffs (``int >= 1`` or ``None``).
    :returns: ``float64`` ``(c, q)`` over ``qrels.qids``; ``NaN`` for a query with
        nothing retrieved.
    """
    judged = _judged_qrels(qrels)
    # the number of judged documents in the first k = DCG with gain 1 per judged
    # document and no discount, in ir_measures' order
    specs = [Flavour.of("dcg", k, registry, gain="linear", discount="none", ties="docno_ascending")
             for k in cutoffs]
    specs.append(Flavour.of("dcg", None, registry, gain="linear", discount="none", ties="docno_ascending"))
    count = evaluate(judged, [run], specs, labels=[str(i) for i in range(len(specs))], registry=registry).values[0]
    qids = np.asarray(qrels.qids, dtype=object).astype(str)
    run_qids, n = np.unique(np.asarray(run.qid, dtype=object).astype(str), return_counts=True)
    pos = np.searchsorted(run_qids, qids)
    found = pos < len(run_qids)
    found[found] = run_qids[pos[found]] == qids[found]
    retrieved = np.zeros(len(qids))
    retrieved[found] = n[pos[found]]
    out = np.full((len(cutoffs), len(qids)), np.nan)
    for c, k in enumerate(cutoffs):
        denom = retrieved if k is None else np.minimum(retrieved, k)
        np.divide(count[c], denom, out=out[c], where=denom > 0)
    return out


@dataclass(frozen=True, eq=False)
class JudgedAtK:
    """Judged@k of every system.

    :param systems: ``s`` names; :param cutoffs: ``c`` cutoffs (``None``: whole list);
    :param qids: ``q`` query ids; :param values: ``float64`` ``(s, c, q)``, ``NaN`` for
        a query the system retrieved nothing for.
    """

    systems: tuple[str, ...]
    cutoffs: tuple[int | None, ...]
    qids: np.ndarray
    values: np.ndarray

    def means(self) -> np.ndarray:
        """Mean over the queries with a value: ``float64`` ``(s, c)`` (``NaN`` if none)."""
        ok = ~np.isnan(self.values)
        n = ok.sum(axis=2)
        out = np.full(n.shape, np.nan)
        np.divide(np.where(ok, self.values, 0).sum(axis=2), n, out=out, where=n > 0)
        return out

    def low(self, gap: float = JUDGED_GAP) -> list[tuple[str, int | None, float, float]]:
        """Systems whose mean judged@k is more than ``gap`` below the median of the
        other systems' means: ``(system, k, its mean, the others' median)``, by cutoff
        then system. Needs at least two systems."""
        m = self.means()
        out: list[tuple[str, int | None, float, float]] = []
        if len(self.systems) < 2:
            return out
        for c, k in enumerate(self.cutoffs):
            for s, name in enumerate(self.systems):
                others = np.delete(m[:, c], s)
                others = others[~np.isnan(others)]
                if len(others) and not np.isnan(m[s, c]):
                    med = float(np.median(others))
                    if m[s, c] < med - gap:
                        out.append((name, k, float(m[s, c]), med))
        return out

    @staticmethod
    def label(k: int | None) -> str:
        """``"judged@10"``, ``"judged"`` for the whole list."""
        return "judged" if k is None else f"judged@{k}"


def cutoffs_of(flavours: Sequence[Flavour]) -> tuple[int | None, ...]:
    """The distinct cutoffs of ``flavours``, ascending, ``None`` (no cutoff) last."""
    return tuple(sorted({f.k for f in flavours}, key=lambda k: (k is None, k or 0)))
