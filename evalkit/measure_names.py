"""Measure names users already type: trec_eval's (``-m ndcg_cut.10``) and
ir_measures' (``nDCG@10``), each mapped to the preset that reproduces that tool.

trec_eval names (trec_eval 10.0's ``-m`` syntax, ``measures.c``): ``ndcg``,
``ndcg_cut[.k,k,...]``, ``ndcg_rel``, ``Rndcg``, ``ndcg_p``, ``map``,
``map_cut[.k,...]``, ``P[.k,...]``, ``recall[.k,...]``, ``recip_rank``, and the
group ``all_trec`` (the measures above that evalkit computes, at trec_eval's default
cutoffs). A measure without its cutoff list takes trec_eval's defaults (5, 10, 15,
20, 30, 100, 200, 500, 1000); cutoffs are read with ``atol`` (``23.4`` is 23). They
map to the ``trec_eval.*`` presets (trec_eval 10.0).

ir_measures names (ir_measures 0.4.3, ``ir_measures/measures/*.py``), as its
default pipeline computes them (the first provider that supports the measure,
``ir_measures.DefaultPipeline``): ``nDCG``, ``P``, ``R``, ``AP``, ``RR`` and their
``rel=`` / ``judged_only=True`` parameters go to pytrec_eval (trec_eval 9: float
scores); ``nDCG(dcg='exp-log2')`` and ``ERR`` go to gdeval; ``alpha_nDCG``, ``ERR_IA`` and
``nERR_IA`` to pyndeval (ties by docno ascending; needs subtopic qrels). ir_measures scores every qrels query its provider does not report as 0
(``providers/base.py`` ``Evaluator.iter_calc``: ``measure.DEFAULT``), so queries
missing from the run, and gdeval's topics without a positive judgment, count 0: the
``ir_measures.*`` presets.

Nothing is ``eval``-ed: ir_measures' parameters are read from the syntax tree of
the argument list (``ast.parse``), each value with ``ast.literal_eval``.
"""

from __future__ import annotations

import ast
import re
from ._record import Record
from typing import TYPE_CHECKING

from .errors import FlavourError

if TYPE_CHECKING:
    from .registry import Registry

if TYPE_CHECKING:
    from .registry import Registry

#: trec_eval's default cutoffs (m_ndcg_cut.c, m_P.c, m_recall.c, m_map_cut.c).
TREC_EVAL_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

#: trec_eval measure -> (preset, takes a cutoff list).
TREC_EVAL_MEASURES: dict[str, tuple[str, bool]] = {
    "ndcg": ("trec_eval.ndcg", False),
    "ndcg_cut": ("trec_eval.ndcg_cut", True),
    "ndcg_rel": ("trec_eval.ndcg_rel", False),
    "Rndcg": ("trec_eval.Rndcg", False),
    "ndcg_p": ("trec_eval.ndcg_p", False),
    "map": ("trec_eval.map", False),
    "map_cut": ("trec_eval.map_cut", True),
    "P": ("trec_eval.P", True),
    "recall": ("trec_eval.recall", True),
    "recip_rank": ("trec_eval.recip_rank", False),
}

#: ``-m all_trec``: the measures of trec_eval's all_trec group that evalkit computes.
ALL_TREC = ("map", "map_cut", "P", "recall", "recip_rank", "ndcg", "ndcg_cut", "ndcg_rel", "Rndcg")

# compiled when first used (re's own cache): ndcg_cut.10 and presets never need them
_TREC_EVAL_NAME = r"^(?P<name>[A-Za-z_]+)(?:\.(?P<params>[0-9.,]+))?$"
_IR_MEASURES_NAME = r"(?sa)^(?P<name>[A-Za-z_]+)(?:\((?P<args>.*)\))?(?:@(?P<k>[0-9]+|[0-9]*\.[0-9]+))?$"

#: ir_measures measure -> {parameters: preset}; parameters as a sorted tuple of items.
_IR_MEASURES: dict[str, dict[tuple, str]] = {
    "nDCG": {(): "ir_measures.nDCG", (("dcg", "log2"),): "ir_measures.nDCG",
             (("judged_only", True),): "ir_measures.nDCG_judged_only",
             (("dcg", "exp-log2"),): "ir_measures.nDCG_exp_log2"},
    "ERR": {(): "ir_measures.ERR"},
    "alpha_nDCG": {(): "ir_measures.alpha_nDCG"},
    "ERR_IA": {(): "ir_measures.ERR_IA"},
    "nERR_IA": {(): "ir_measures.nERR_IA"},
    "P": {(): "ir_measures.P"},
    "R": {(): "ir_measures.R"},
    "AP": {(): "ir_measures.AP"},
    "RR": {(): "ir_measures.RR"},
    # trec_eval's other measures (issue 26: libraries/trec_eval_measures.py)
    "Rprec": {(): "ir_measures.Rprec"},
    "Bpref": {(): "ir_measures.Bpref"},
    "infAP": {(): "ir_measures.infAP"},
    "NumQ": {(): "ir_measures.NumQ"},
    "NumRet": {(): "ir_measures.NumRet", (("rel", 1),): "ir_measures.NumRelRet"},
    "NumRelRet": {(): "ir_measures.NumRelRet"},
    "NumRel": {(): "ir_measures.NumRel"},
    "SetP": {(): "ir_measures.SetP", (("relative", True),): "ir_measures.SetRelP"},
    "SetRelP": {(): "ir_measures.SetRelP"},
    "SetR": {(): "ir_measures.SetR"},
    "SetF": {(): "ir_measures.SetF"},
    "SetAP": {(): "ir_measures.SetAP"},
    "Success": {(): "ir_measures.Success"},
    "IPrec": {(): "ir_measures.IPrec"},
    "Judged": {(): "ir_measures.Judged"},
}
#: ir_measures' ``rel`` (minimum relevant grade) is evalkit's ``threshold``.
_REL_MEASURES = ("P", "R", "AP", "RR", "Rprec", "Bpref", "infAP", "SetP", "SetRelP", "SetR", "SetF", "SetAP",
                 "Success", "NumRelRet")
#: ir_measures parameters passed on as the metric's own (SetF's beta)
_METRIC_PARAMS = {"SetF": ("beta",)}


class NamedMeasure(Record):
    """A measure a name expands to: the ``preset`` and cutoff ``k`` it maps to, the
    ``label`` to show (the name as typed, one per cutoff of a list) and ``params``,
    extra metric parameters (ir_measures' ``rel=``). Frozen, compared by its fields."""

    __slots__ = ("label", "preset", "k", "params")
    label: str
    preset: str
    k: int | None
    params: tuple

    def __init__(self, label: str, preset: str, k: int | None, params: tuple = ()) -> None:
        self._set(label=label, preset=preset, k=k, params=params)


#: trec_eval 10.0's measures (``measures.c``) that evalkit does not compute: the
#: judgment-group averages (``*_avgjg``, several judgment sets), ``yaap``, ``ideal_dcg``
#: and the preference measures (``prefs_*``, preference judgments). Asked for by name,
#: they are "not implemented", not "unknown".
TREC_EVAL_NOT_IMPLEMENTED = frozenset({
    "P_avgjg", "Rprec_mult_avgjg", "map_avgjg", "yaap", "ideal_dcg",
    "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_avgjg_Rnonrel_ret", "prefs_avgjg_imp", "prefs_avgjg_ret",
    "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_num_prefs_poss", "prefs_pair", "prefs_pair_imp",
    "prefs_pair_ret", "prefs_simp", "prefs_simp_imp", "prefs_simp_ret",
})


def trec_eval_name(text: str, registry: Registry | None = None) -> list[NamedMeasure] | None:
    """The measures of a trec_eval ``-m`` name, or ``None`` if ``text`` is not one (or is
    the name of a plugin metric of ``registry``, default: the process's registry).

    :raises FlavourError: a trec_eval measure with a bad cutoff list.
    """
    from .trec_eval_compat import parse_name  # every measure of trec_eval 10.0 (issue 26)

    if _plugin_metric(text.strip(), registry):
        return None  # a plugin's metric of that name (evalkit-rbp's 'rbp') keeps its name
    named = parse_name(text)
    if named is not None:
        return [NamedMeasure(n.label, n.preset, n.k, n.params) for n in named]
    base = text.strip().split(".", 1)[0].split("@", 1)[0]
    if base in TREC_EVAL_NOT_IMPLEMENTED:
        raise FlavourError(f"trec_eval measure {base!r} is not implemented in evalkit (of trec_eval 10.0's "
                           "measures, the judgment-group averages *_avgjg, yaap, ideal_dcg and the preference "
                           "measures prefs_* are not); trec_eval itself computes it")
    m = re.match(_TREC_EVAL_NAME, text.strip())
    if not m:
        return None
    name, params = m.group("name"), m.group("params")
    if name == "all_trec" and params is None:
        out: list[NamedMeasure] = []
        for member in ALL_TREC:
            out.extend(trec_eval_name(member, registry) or [])
        return out
    if name not in TREC_EVAL_MEASURES:
        return None
    preset, takes_cutoffs = TREC_EVAL_MEASURES[name]
    if not takes_cutoffs:
        return None if params else [NamedMeasure(text.strip(), preset, None)]
    try:
        ks = [int(float(t)) for t in params.split(",")] if params else list(TREC_EVAL_CUTOFFS)
    except ValueError:
        raise FlavourError(f"trec_eval measure {text!r}: cutoffs must be numbers (ndcg_cut.5,10)") from None
    if any(k < 1 for k in ks):
        raise FlavourError(f"trec_eval measure {text!r}: cutoffs must be >= 1")
    single = params is not None and len(ks) == 1
    return [NamedMeasure(text.strip() if single else f"{name}.{k}", preset, k) for k in ks]


def _plugin_metric(name: str, registry: Registry | None = None) -> bool:
    """Whether a plugin of ``registry`` (default: the process's registry) registers a
    metric named ``name`` (a bare trec_eval name such as ``rbp`` is then the plugin's
    metric, as before the name existed)."""
    if not name.isidentifier():
        return False
    from .registry import registry_or_default

    comp = registry_or_default(registry).find("metric", name)  # loads no built-in module for another name
    return comp is not None and comp.name == name and comp.origin != "evalkit (built-in)"


def _ir_measures_args(text: str, args: str) -> dict:
    try:
        call = ast.parse(f"f({args})", mode="eval").body
    except SyntaxError:
        raise FlavourError(f"ir_measures measure {text!r}: cannot parse the parameters") from None
    if not isinstance(call, ast.Call) or call.args:
        raise FlavourError(f"ir_measures measure {text!r}: parameters must be name=value")
    out = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise FlavourError(f"ir_measures measure {text!r}: parameters must be name=value")
        if kw.arg in out:  # Python refuses f(a=1, a=2) when compiling; ast.parse does not
            raise FlavourError(f"ir_measures measure {text!r}: parameter {kw.arg!r} is given twice")
        try:
            value = ast.literal_eval(kw.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            raise FlavourError(f"ir_measures measure {text!r}: parameter {kw.arg!r} must be a literal") from None
        if value is not None and not isinstance(value, (str, int, float, bool)):
            raise FlavourError(f"ir_measures measure {text!r}: parameter {kw.arg!r} must be a number, a string "
                               f"or a boolean, got a {type(value).__name__} (no preset reproduces it)")
        out[kw.arg] = value
    return out


def ir_measures_name(text: str) -> list[NamedMeasure] | None:
    """The measure of an ir_measures name (``nDCG(dcg='exp-log2')@10``), or ``None``.

    :raises FlavourError: an ir_measures measure with parameters evalkit has no preset for.
    """
    m = re.match(_IR_MEASURES_NAME, text.strip())
    if not m or m.group("name") not in _IR_MEASURES:
        return None
    name = m.group("name")
    args = _ir_measures_args(text, m.group("args")) if m.group("args") else {}
    params: tuple = ()
    if name in _REL_MEASURES and "rel" in args:
        rel = args.pop("rel")
        if isinstance(rel, bool) or not isinstance(rel, int):
            raise FlavourError(f"ir_measures measure {text!r}: rel must be an integer")
        if rel < 1:  # ir_measures passes it to pytrec_eval as relevance_level
            raise FlavourError(f"ir_measures measure {text!r}: rel must be >= 1 (pytrec_eval refuses "
                               f"relevance_level {rel}: 'Argument relevance_level should be positive.')")
        params = (("threshold", rel),)
    for key_ in _METRIC_PARAMS.get(name, ()):
        if key_ in args:
            params += ((key_, args.pop(key_)),)
    k_text = m.group("k")
    if name == "IPrec":  # IPrec@0.1: the @ value is the recall level
        if k_text is None:
            raise FlavourError(f"ir_measures measure {text!r}: IPrec needs a recall level (IPrec@0.1)")
        params += (("recall", float(k_text)),)
        k_text = None
    elif k_text is not None and "." in k_text:
        raise FlavourError(f"ir_measures measure {text!r}: the cutoff must be an integer")
    key = tuple(sorted(args.items()))
    preset = _IR_MEASURES[name].get(key)
    if preset is None:
        known = ", ".join(f"{name}({','.join(f'{a}={v!r}' for a, v in k)})" if k else name
                          for k in _IR_MEASURES[name])
        raise FlavourError(f"ir_measures measure {text!r}: no preset reproduces these parameters "
                           f"(supported: {known})")
    k = int(k_text) if k_text else None
    return [NamedMeasure(text.strip(), preset, k, params)]


def known_names(registry: Registry) -> list[str]:
    """Every name a measure spec may start with: presets, metrics, trec_eval's and
    ir_measures' names (for "did you mean")."""
    from .libraries.trec_eval_measures import BY_NAME, NICKNAMES

    return sorted(set(registry.names("preset")) | set(registry.names("metric")) | set(TREC_EVAL_MEASURES)
                  | {"all_trec"} | set(_IR_MEASURES) | set(BY_NAME) | set(NICKNAMES))


def did_you_mean(text: str, registry: Registry, n: int = 4) -> str:
    """``"; did you mean: a, b?"`` with the names closest to ``text``'s head, or ``""``."""
    head = re.split(r"[(@]", text.strip(), maxsplit=1)[0]
    names = known_names(registry)
    if head in TREC_EVAL_MEASURES and "@" in text:  # map@10: the name exists, its form does not
        cut = [n for n in TREC_EVAL_MEASURES if n.startswith(f"{head}_cut")]
        return (f"; '{head}' is a trec_eval measure name, written without '@k'"
                + (f" (at a cutoff: {cut[0]}.k, e.g. {cut[0]}.10)" if cut else ""))
    import difflib  # only when a name is unknown

    names = [x for x in names if x != head]
    close = difflib.get_close_matches(head, names, n=n, cutoff=0.5)
    lower = {x.lower(): x for x in names}
    for c in difflib.get_close_matches(head.lower(), list(lower), n=n, cutoff=0.5):
        if lower[c] not in close:
            close.append(lower[c])
    return f"; did you mean: {', '.join(close[:n])}?" if close else ""
