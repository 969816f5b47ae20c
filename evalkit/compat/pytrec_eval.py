"""A stand-in for pytrec_eval (0.5.11, which builds trec_eval 9.0.8):
``RelevanceEvaluator(qrels, measures, relevance_level=1, judged_docs_only_flag=False)``
and ``.evaluate(run)`` returning the same nested dict, per query, with evalkit's
vectorised kernels instead of a C extension to compile.

::

    from evalkit.compat import pytrec_eval   # instead of: import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10,20", "map", "recall.100"})
    evaluator.evaluate(run)   # {qid: {"ndcg_cut_10": ..., "ndcg_cut_20": ..., "map": ..., "recall_100": ...}}

What pytrec_eval does, and so this class (terrierteam/pytrec_eval 0.5.11
``pytrec_eval/__init__.py`` ``RelevanceEvaluator._expand_nicknames`` /
``_combine_measures``, ``src/pytrec_eval.cpp``; trec_eval 9.0.8):

* ``measures``: names of :data:`supported_measures` or :data:`supported_nicknames`
  (``all_trec``, ``official``, ``set``), with parameters after ``.`` or ``_``
  (``ndcg_cut.10,20``, ``P_5``; numbers only); the parameters of one measure given
  several times are merged. Anything else raises ``ValueError('unsupported measure X')``.
* ``evaluate(run)``: ``{qid: {docno: score}}``; a query is reported if the run and the
  qrels (queries with at least one judgment) both have it; values under trec_eval's
  printed names (``P_5``, ``iprec_at_recall_0.10``); scores are compared as C
  ``float`` (trec_eval 9's ``TEXT_RESULTS.sim``), recall levels counted as
  ``(long)(x + 0.9)``; ``gm_map`` and ``gm_bpref`` are per-query logarithms
  (``log(max(v, 1e-5))``, what trec_eval 9 accumulates); ``runid`` and ``relstring``
  are ``0.0``; a measure given with parameters is reported under its bare name
  (``set_F.0.5`` as ``set_F``, ``11pt_avg.0.3`` as ``11pt_avg``), and ``utility`` with
  other than 4 coefficients is 0 (trec_eval's "improper number of coefficients").
  ``G``, ``ndcg``, ``ndcg_rel`` and ``Rndcg`` with parameters make pytrec_eval abort
  the process (its gain pairs cannot be written in its syntax): ``ValueError`` here.
  An empty run gives ``{}``.
* ``relevance_level`` is trec_eval's ``-l``, ``judged_docs_only_flag`` its ``-J``.

:raises ValueError: an unsupported measure (as pytrec_eval).
:raises evalkit.errors.InputFormatError: a grade or score that is not a finite number
    (pytrec_eval raises ``TypeError`` for a non-number).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Iterable, Mapping

import numpy as np

__all__ = ["RelevanceEvaluator", "supported_measures", "supported_nicknames", "parse_qrel", "parse_run",
           "compute_aggregated_measure"]

#: pytrec_eval 0.5.11's ``pytrec_eval_ext.supported_measures`` (trec_eval 9.0.8's measures.c,
#: preference and judgment-group measures aside)
supported_measures = frozenset({
    "11pt_avg", "G", "P", "Rndcg", "Rprec", "Rprec_mult", "binG", "bpref", "gm_bpref", "gm_map", "infAP",
    "iprec_at_recall", "map", "map_cut", "ndcg", "ndcg_cut", "ndcg_rel", "num_nonrel_judged_ret", "num_q",
    "num_rel", "num_rel_ret", "num_ret", "recall", "recip_rank", "relative_P", "relstring", "runid", "set_F",
    "set_P", "set_map", "set_recall", "set_relative_P", "success", "utility"})

#: pytrec_eval 0.5.11's nicknames of evaluable measures (trec_eval 9.0.8 measures.c)
supported_nicknames = {
    "official": frozenset({"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                           "recip_rank", "iprec_at_recall", "P"}),
    "set": frozenset({"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
                      "set_relative_P", "set_map", "set_F"}),
    "all_trec": frozenset(supported_measures),
}

_RE_BASE = r"{}[\._]([0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)"


def _combine(measures: Iterable[str]) -> list[str]:
    """pytrec_eval's ``_expand_nicknames`` then ``_combine_measures``: ``meas`` or
    ``meas.p1,p2`` (parameters merged per measure, sorted as text)."""
    expanded = set()
    for m in measures:
        expanded |= set(supported_nicknames[m]) if m in supported_nicknames else {m}
    params: dict[str, set[str]] = defaultdict(set)
    for m in expanded:
        if m not in supported_measures:
            hit = None
            for base in sorted(supported_measures):
                found = re.match(_RE_BASE.format(re.escape(base)), m)
                if found is not None:
                    hit = (base, found.group(1))
                    break
            if hit is None:
                raise ValueError(f"unsupported measure {m}")
            params[hit[0]].update(hit[1].split(","))
        elif m not in params:
            params[m] = set()
    return [f"{m}.{','.join(sorted(p))}" if p else m for m, p in params.items()]


class RelevanceEvaluator:
    """pytrec_eval's ``RelevanceEvaluator`` (see the module docstring).

    :param query_relevance: ``{qid: {docno: grade}}`` (integers).
    :param measures: measure names and nicknames.
    :param relevance_level: a grade >= it is relevant (trec_eval ``-l``).
    :param judged_docs_only_flag: drop unjudged documents (trec_eval ``-J``).
    :raises ValueError: an unsupported measure.
    """

    def __init__(self, query_relevance: Mapping[str, Mapping[str, int]], measures: Iterable[str],
                 relevance_level: int = 1, judged_docs_only_flag: bool = False) -> None:
        from ..data import Qrels
        from ..flavour import parse_flavour
        from ..registry import default_registry
        from ..trec_eval_compat import parse_name, with_flags

        if isinstance(measures, str):
            raise TypeError("measures must be an iterable of measure names, not a string")
        self._registry = registry = default_registry()
        rows = {str(q): {str(d): g for d, g in docs.items()} for q, docs in query_relevance.items() if len(docs) > 0}
        self._qrels = Qrels.from_rows(rows, source="<pytrec_eval qrels>")
        self._natives: list[str] = []
        self._flavours = []
        self._constant: dict[str, float] = {}
        self._log: set[str] = set()
        for m in sorted(_combine(measures), key=_order):
            base = m.split(".", 1)[0]
            if base in ("G", "ndcg", "ndcg_rel", "Rndcg") and "." in m:
                # trec_eval wants rel=gain pairs; pytrec_eval passes numbers and aborts the
                # process (src/pytrec_eval.cpp:659 assertion): refused here instead
                raise ValueError(f"unsupported measure {m} (pytrec_eval passes '{m.split('.', 1)[1]}' where "
                                 "trec_eval wants rel=gain pairs, and aborts)")
            if base == "utility" and "." in m and len(m.split(".", 1)[1].split(",")) != 4:
                # trec_eval.calc_utility: improper number of coefficients; pytrec_eval reports 0
                self._constant["utility"] = 0.0
                continue
            for n in parse_name(m, "9.0.8") or []:
                native = n.native if n.measure.kind in ("plain", "cut", "values") else n.measure.name
                if n.measure.name in ("relstring",):
                    self._constant[native] = 0.0
                    continue
                fl = parse_flavour(registry.preset(n.preset).spec, registry).with_cutoff(n.k)
                if n.params:
                    fl = fl.replace(registry, **dict(n.params))
                fl = with_flags(fl, registry, level=int(relevance_level), judged_only=bool(judged_docs_only_flag),
                                version="9.0.8")
                if n.measure.name.startswith("gm_"):
                    self._log.add(native)
                self._natives.append(native)
                self._flavours.append(fl)
        if any(m == "runid" or m in supported_nicknames for m in measures):
            self._constant["runid"] = 0.0
        # trec_eval's 0/0 (-J leaves a topic no document): iprec_at_recall at a level
        # counting 0 relevant, and 11pt_avg with such a level, are NaN there
        self._nan_levels = {}
        for native, fl in zip(self._natives, self._flavours):
            if fl.metric == "iprec_at_recall":
                self._nan_levels[native] = [dict(fl.params).get("recall", 0.0)]
            elif fl.metric == "pt_avg":
                from ..builtins.trec_eval_measures import _DEFAULT_11PT, parse_levels

                self._nan_levels[native] = parse_levels(dict(fl.params).get("levels", _DEFAULT_11PT))
        self._counts = None
        if self._nan_levels and judged_docs_only_flag:
            level = f"threshold={float(relevance_level)!r}," if relevance_level != 1 else ""
            self._counts = [parse_flavour(f"num_ret(ties=trec_eval(score=float32),judged_only=yes)", registry),
                            parse_flavour(f"num_rel({level}ties=trec_eval(score=float32))", registry)]

    def evaluate(self, scores: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
        """``{qid: {measure: value}}`` for the queries the run and the qrels share."""
        from ..data import Run
        from ..engine.evaluate import evaluate

        if not scores:
            return {}
        rows = {str(q): {str(d): float(s) for d, s in docs.items()} for q, docs in scores.items() if len(docs) > 0}
        if not rows:
            return {}
        run = Run.from_rows(rows, name="run", source="<pytrec_eval run>")
        judged = set(self._qrels.qids)
        # a query given with no document is evaluated on an empty ranking, as pytrec_eval hands
        # trec_eval a query without results (every measure's value on no documents: 0 for
        # ndcg_cut, map, P...); under missing=score the engine scores such a query so
        empty = [str(q) for q, docs in scores.items() if len(docs) == 0 and str(q) in judged]
        shared = [q for q in self._qrels.qids if q in rows]
        if not shared:
            return {}
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            flavours = self._flavours + (self._counts or [])
            if empty:
                flavours = [fl.replace(missing="score") for fl in flavours]
                rows = {**rows, **{q: {} for q in empty}}
            res = evaluate(self._qrels, run, flavours, labels=[f"{i}" for i in range(len(flavours))],
                           registry=self._registry)
        values = res.values[0]
        if self._counts:
            values = values.copy()
            n_ret, n_rel = values[-2], values[-1]
            values = values[:-2]
            for f, native in enumerate(self._natives):
                levels = self._nan_levels.get(native)
                if levels:
                    zero = np.zeros(len(n_ret), dtype=bool)
                    for x in levels:
                        zero |= np.trunc(x * n_rel + 0.9) == 0  # trec_eval 9: (long)(x * num_rel + 0.9)
                    values[f, (n_ret == 0) & zero] = np.nan
        out: dict[str, dict[str, float]] = {}
        index = {q: i for i, q in enumerate(res.qids)}
        for qid in rows:
            i = index.get(qid)
            if i is None:
                continue
            entry = {}
            if "runid" in self._constant:
                entry["runid"] = 0.0
            for native, v in zip(self._natives, values[:, i]):
                v = float(v)
                entry[native] = math.log(max(v, 1e-5)) if native in self._log else v
            for native, v in self._constant.items():
                entry.setdefault(native, v)
            out[qid] = entry
        return out


def _order(measure: str) -> int:
    from ..trec_eval_compat import ORDER

    return ORDER.get(measure.split(".", 1)[0], len(ORDER))


def parse_run(f_run: Iterable[str]) -> dict[str, dict[str, float]]:
    """pytrec_eval's ``parse_run``: ``qid Q0 docno rank score runid`` lines -> ``{qid: {docno: score}}``."""
    run: dict[str, dict[str, float]] = defaultdict(dict)
    for line in f_run:
        qid, _, docno, _, score, _ = line.strip().split()
        assert docno not in run[qid]
        run[qid][docno] = float(score)
    return run


def parse_qrel(f_qrel: Iterable[str]) -> dict[str, dict[str, int]]:
    """pytrec_eval's ``parse_qrel``: ``qid 0 docno grade`` lines -> ``{qid: {docno: grade}}``."""
    qrel: dict[str, dict[str, int]] = defaultdict(dict)
    for line in f_qrel:
        qid, _, docno, grade = line.strip().split()
        assert docno not in qrel[qid]
        qrel[qid][docno] = int(grade)
    return qrel


def compute_aggregated_measure(measure: str, values: list[float]) -> float:
    """pytrec_eval's aggregation: sum for ``num_*``, ``exp(mean)`` of the logarithms for
    ``gm_*``, else the mean."""
    import numpy as np

    if measure.startswith("num_"):
        return float(np.sum(values))
    if measure.startswith("gm_"):
        return float(np.exp(np.sum(values) / len(values)))
    return float(np.mean(values))
