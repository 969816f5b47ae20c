"""trec_eval's command line inside ``evalkit eval``: its measure names (as typed after
``-m`` and as printed), its flags and its output.

* :func:`parse_name` reads a trec_eval measure name: ``P``, ``P.5,7,3``,
  ``iprec_at_recall..10,.20``, ``utility.2,-1,0,0``, ``ndcg.1=3,2=9``, ``rbp.p=0.8``,
  ``ndcg_cut.23.4`` (``atol``: 23), a nickname (``all_trec``, ``official``, ``set``),
  and the names trec_eval prints (``P_10``, ``iprec_at_recall_0.10``,
  ``utility_2,-1,0,0``), so that the output's names are accepted back as ``-m``.
  Parameters are parsed as trec_eval 10.0's ``meas_init.c`` does: after the first
  ``.``, comma separated, read with ``atol`` / ``atof``, cutoff and value lists sorted
  with duplicates removed, names printed ``NAME_%ld`` / ``NAME_%3.2f`` /
  ``NAME_PARAMS`` (``te_init_meas_a_*``, ``te_init_meas_s_*_p_*``).
* :func:`with_flags` applies ``-c`` (``missing=zero``), ``-M n`` (``depth=n``),
  ``-J`` (``judged_only=yes``), ``-l n`` (the relevance level of the binary
  measures: ``threshold``; ``Rndcg``'s ``rel_level``) and ``-N n`` (``utility``'s
  ``num_docs``) to a flavour.
* :func:`tsv_lines` prints trec_eval's lines (``%-22s\\t%s\\t%6.4f``, counts as
  ``%ld``, per query in trec_eval's measure order, ``runid`` and ``num_q`` in the
  summary, ``relstring`` per query).

Not reproduced: preference qrels (``-R prefs``, ``qrels_prefs``), judgment groups
(``-R qrels_jg``), z-scores (``-Z``), ``yaap``, ``dcg`` / ``ideal_dcg`` (not in
``all_trec``) and ``-D`` debugging; ``-m`` of any of them is an unknown measure.

Source: usnistgov/trec_eval v10.0 (f4253652c8efd0d86ddffd0d163cc0a0f813111a)
measures.c, meas_init.c, meas_print_single.c, meas_print_final.c, m_relstring.c,
m_runid.c, trec_eval.c.
"""

from __future__ import annotations

import math
import re
from ._record import Record
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from .libraries.trec_eval_measures import BY_NAME, MEASURES, NICKNAMES, TrecMeasure
from .errors import FlavourError
from typing import Any

if TYPE_CHECKING:
    from .data import Qrels, Run
    from .registry import Registry

if TYPE_CHECKING:
    from .cli.specs import Measure
    from .data import Qrels, Run
    from .flavour import Flavour
    from .registry import Registry
    from .results import Results

#: the trec_eval versions whose flavours evalkit has: preset prefix per version
VERSIONS = {"10.0": "trec_eval", "9.0.8": "trec_eval9"}
ORDER = {m.name: i for i, m in enumerate(MEASURES)}


class TrecName(Record):
    """One printed value of a trec_eval measure: ``native`` (trec_eval's printed
    name), ``label`` (evalkit's label: the name as typed, ``NAME.value`` per value of
    a list), the preset, cutoff ``k`` and extra flavour settings ``params``. Frozen,
    compared by its fields."""

    __slots__ = ("native", "label", "measure", "preset", "k", "params")
    native: str
    label: str
    measure: TrecMeasure
    preset: str
    k: int | None
    params: tuple

    def __init__(self, native: str, label: str, measure: TrecMeasure, preset: str, k: int | None = None,
                 params: tuple = ()) -> None:
        self._set(native=native, label=label, measure=measure, preset=preset, k=k, params=params)


def _atol(text: str) -> int:
    """C ``atol``: leading blanks, an optional sign, digits; anything else ends it."""
    s = text.strip()
    i = 1 if s[:1] in "+-" else 0
    j = i
    while j < len(s) and s[j].isdigit():
        j += 1
    return int(s[:j]) if j > i else 0


def _atof(text: str) -> float:
    """C ``atof`` of a whole number text (trailing junk refused: a clear error beats
    trec_eval's silent 0)."""
    try:
        return float(text)
    except ValueError:
        raise FlavourError(f"trec_eval measure parameter {text!r} is not a number") from None


def _split(name: str, text: str) -> list[str]:
    parts = [t for t in text.split(",")]
    if any(not t.strip() for t in parts):
        raise FlavourError(f"trec_eval measure '{name}.{text}': empty parameter in the list")
    return parts


#: what the parameters of each kind of measure look like (a printed name's suffix
#: must match, so that flavour strings such as ``ndcg_float32`` are not taken for one):
#: the characters a ``[...]+`` suffix may hold (checked without a regular expression:
#: the eval path looks up printed names such as ``ndcg_cut_10``), and the ``pairs``
#: kind's pattern (compiled when first used, by re's own cache)
_PARAM_CHARS = {
    "cut": frozenset("-+0123456789.,"),
    "values": frozenset("-+0123456789.,eE"),
    "params": frozenset("-+0123456789.,eE"),
    "gains": frozenset("-+0123456789.,eE="),
    "string": frozenset("-+0123456789."),
}
_PAIRS = r"[A-Za-z_]+=[-+0-9.eE]+(,[A-Za-z_]+=[-+0-9.eE]+)*"


def _params_match(kind: str, text: str) -> bool:
    """``text`` (non-empty) is the parameter suffix of a printed name of a ``kind`` measure."""
    chars = _PARAM_CHARS.get(kind)
    if chars is not None:
        return chars.issuperset(text)
    return kind == "pairs" and re.fullmatch(_PAIRS, text) is not None


def _lookup(text: str) -> tuple[str, str | None, bool] | None:
    """``(measure, params or None, printed)`` of a name as typed (``P.10``) or printed
    (``P_10``); ``None`` if it is no trec_eval measure."""
    text = text.strip()
    if any(c in text for c in "()@ "):  # a flavour string, a preset with a cutoff
        return None
    if text in BY_NAME:
        return text, None, False
    head, dot, rest = text.partition(".")
    if dot and head in BY_NAME:
        return head, rest, False
    # a printed name: the longest measure name followed by '_' and its parameters
    for i in range(len(text) - 1, 0, -1):
        if text[i] == "_" and text[:i] in BY_NAME and i + 1 < len(text):
            if _params_match(BY_NAME[text[:i]].kind, text[i + 1:]):
                return text[:i], text[i + 1:], True
    return None


def parse_name(text: str, version: str = "10.0") -> list[TrecName] | None:
    """The printed values of trec_eval measure name ``text`` (see the module
    docstring), or ``None`` if ``text`` is no trec_eval measure name.

    :raises FlavourError: a trec_eval measure with bad parameters.
    """
    if version not in VERSIONS:
        raise FlavourError(f"trec_eval version {version!r}: known versions are {', '.join(VERSIONS)}")
    text = text.strip()
    if text in NICKNAMES:
        out: list[TrecName] = []
        for name in NICKNAMES[text]:
            out.extend(parse_name(name, version) or ())  # a nickname lists known names
        return out
    if text == "runid":
        return []
    hit = _lookup(text)
    if hit is None:
        return None
    name, params, printed = hit
    m = BY_NAME[name]
    preset = f"{VERSIONS[version]}.{m.preset or name}"
    if m.kind == "string":  # relstring: printed by tsv_lines, evaluated as num_ret
        length = m.defaults[0] if params is None else int(_atof(params))
        native = name if params is None else f"{name}_{params}"
        return [TrecName(native, text, m, f"{VERSIONS[version]}.num_ret")] if length >= 0 else []
    if m.kind == "plain":
        if params is not None:
            raise FlavourError(f"trec_eval measure {text!r}: '{name}' takes no parameters")
        return [TrecName(name, text, m, preset)]
    if m.kind == "cut":
        if params is not None:
            for t in params.split(","):
                try:
                    float(t)
                except ValueError:
                    raise FlavourError(f"trec_eval measure {text!r}: cutoffs must be numbers ({name}.5,10)") from None
        ks = m.defaults if params is None else sorted({_atol(t) for t in _split(name, params)})
        if any(k < 1 for k in ks):
            raise FlavourError(f"trec_eval measure {text!r}: cutoffs must be positive")
        single = params is not None and len(ks) == 1
        sep = "_" if printed else "."
        return [TrecName(f"{name}_{k}", text if single else f"{name}{sep}{k}", m, preset, int(k)) for k in ks]
    if m.kind == "values":
        values = m.defaults if params is None else sorted({_atof(t) for t in _split(name, params)})
        single = params is not None and len(values) == 1
        return [TrecName(f"{name}_{v:3.2f}", text if single else f"{name}.{v:g}", m, preset, None,
                         ((m.param, float(v)),)) for v in values]
    native = name if params is None else f"{name}_{params}"
    if params is None:
        return [TrecName(native, text, m, preset)]
    if m.kind == "params":
        values = [_atof(t) for t in _split(name, params)]
        extra: tuple[tuple[str, Any], ...]
        if name == "utility":
            if len(values) != 4:
                raise FlavourError(f"trec_eval measure {text!r}: utility takes 4 coefficients "
                                   "(trec_eval.calc_utility: improper number of coefficients)")
            extra = tuple(zip("abcd", values))
        elif name == "11pt_avg":
            extra = (("levels", ":".join(repr(v) for v in values)),)
        else:  # set_F: beta
            extra = (("beta", values[0]),)
        return [TrecName(native, text, m, preset, None, extra)]
    pairs = []
    for t in _split(name, params):
        key, eq, value = t.partition("=")
        if not eq:
            raise FlavourError(f"trec_eval measure {text!r}: parameters are name=value pairs")
        pairs.append((key.strip(), _atof(value)))
    if m.kind == "gains":
        table = {str(_atol(k)): v for k, v in pairs}
        return [TrecName(native, text, m, preset, None, (("gain", ("map", table)),))]
    given = []
    for key, number in pairs:  # rbp.p=0.8
        if key != m.param:
            raise FlavourError(f"trec_eval measure {text!r}: unknown parameter {key!r} (known: {m.param})")
        given.append((key, number))
    return [TrecName(native, text, m, preset, None, tuple(given))]


def as_trec_eval_asks(specs: Any, measures: Any) -> Any:
    """``measures`` as trec_eval would evaluate them: a measure given with parameters
    (``-m all_trec -m relstring.20``, ``-m P -m P.5``) is evaluated with those only,
    not also with its defaults (trec_eval.c: the parameters of the last ``-m`` naming a
    measure replace its defaults). ``specs`` are the ``-m`` arguments as typed."""
    explicit: dict[str, set] = {}
    for spec in specs:
        hit = _lookup(spec) if isinstance(spec, str) else None
        if hit is not None and hit[1] is not None:
            named = parse_name(spec) or []
            explicit[hit[0]] = {n.native for n in named}  # the last one wins
    if not explicit:
        return measures
    out = []
    for m in measures:
        t = measure_of(m.native)
        from_name = _lookup(m.label) is not None  # asked for by a trec_eval name, not a preset
        if from_name and t is not None and t.name in explicit and m.native not in explicit[t.name]:
            continue
        out.append(m)
    return out


#: measures trec_eval 10.0 added (9.0.8's measures.c has no te_meas_unj, te_meas_rbp, te_meas_rbp_resid)
NEW_IN_10 = ("unj", "rbp", "rbp_resid")


def only_in_version(specs: Any, measures: Any, version: str) -> Any:
    """``measures`` without those trec_eval ``version`` lacks (9.0.8: ``unj``, ``rbp``,
    ``rbp_resid``, left out of its ``all_trec``).

    :raises FlavourError: one of them was asked for by name (trec_eval 9.0.8: "illegal measure").
    """
    if version != "9.0.8":
        return measures
    for spec in specs:
        hit = _lookup(spec) if isinstance(spec, str) else None
        if hit is not None and hit[0] in NEW_IN_10:
            raise FlavourError(f"-m {spec!r}: trec_eval 9.0.8 has no measure '{hit[0]}' (added in 10.0)")
    return [m for m in measures if (t := measure_of(m.native)) is None or t.name not in NEW_IN_10]


def measure_of(native: str) -> TrecMeasure | None:
    """The trec_eval measure a printed name belongs to (``P_10`` -> ``P``), or ``None``."""
    hit = _lookup(native)
    return BY_NAME[hit[0]] if hit is not None else None


def with_flags(flavour: Flavour, registry: Registry, *, complete: bool = False, depth: int | None = None,
               judged_only: bool = False, level: int | None = None, num_docs: float | None = None,
               version: str = "10.0", native: str | None = None) -> Flavour:
    """``flavour`` under trec_eval's flags (see the module docstring); flags a flavour's
    metric does not take (``-l`` for NDCG, ``-N`` but for utility) leave it unchanged.

    ``-c``: ``missing=score`` for trec_eval's own kernels under 10.0 (a missing topic is
    evaluated on a bogus ranking; the kernels score it on an empty one), ``missing=zero``
    for the others; under 9.0.8, which evaluates only the run's topics, sums the values
    and divides by the number of qrels topics, ``missing=zero``, ``skip`` for the counts
    ``num_ret``, ``num_rel_ret``, ``num_nonrel_judged_ret`` and ``score`` for ``num_q``
    and ``num_rel`` (summaries recounted over the qrels: m_num_q.c, m_num_rel.c).

    ``version="9.0.8"``: scores compared as C ``float`` (``ties=trec_eval(score=float32)``
    for a flavour with ``ties=trec_eval``), recall levels counted as ``(long)(x + 0.9)``
    (``iprec_at_recall``, ``11pt_avg``), a qrels topic the run lacks left out where 10.0
    refuses it (``missing=error`` -> ``skip``).

    ``native``: the name trec_eval prints for the measure (``utility_2,-1,1,0.5``). Under
    10.0 ``-c`` (without ``-J``) a missing topic is ranked as trec_eval's bogus
    one-document ranking for ``utility`` and ``rbp_resid`` printed with parameters
    (``missing_ranking=bogus``): trec_eval.c resets only the values named exactly
    ``utility`` and ``rbp_resid``."""
    changes: dict = {}
    if version == "9.0.8":
        if flavour.ties is not None and flavour.ties.name == "trec_eval" and not flavour.ties.params:
            changes["ties"] = ("trec_eval", {"score": "float32"})
        if flavour.metric in ("iprec_at_recall", "pt_avg"):
            changes["cutoff_rounding"] = "plus_0.9"
        if flavour.convention("missing") == "error":  # 10.0 stops on a qrels topic the run lacks, 9.0.8 skips it
            changes["missing"] = "skip"
    if complete:
        changes["missing"] = _complete(flavour, version)
        if (version == "10.0" and not judged_only and native is not None and flavour.metric in _BOGUS
                and native != _BOGUS[flavour.metric] and flavour.convention("judged_only") != "yes"):
            changes["missing_ranking"] = "bogus"
    if depth is not None:
        changes["depth"] = int(depth)
    if judged_only:
        changes["judged_only"] = "yes"
    metric = registry.metric(flavour.metric)
    if level is not None:
        if metric.param("threshold") is not None:
            changes["threshold"] = float(level)
        elif flavour.metric == "rndcg":
            changes["rel_level"] = float(level)
    if num_docs is not None and metric.param("num_docs") is not None:
        changes["num_docs"] = float(num_docs)
    return flavour.replace(registry, **changes) if changes else flavour


#: the kernels whose value on trec_eval 10.0 -c's bogus ranking of a missing topic is kept
#: unless printed under this exact name (trec_eval.c, the clean-up after the bogus ranking)
_BOGUS = {"utility": "utility", "rbp_resid": "rbp_resid"}

_OWN_KERNELS = frozenset({
    "num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "rprec", "bpref", "infap",
    "iprec_at_recall", "pt_avg", "rprec_mult", "utility", "bing", "g_gain", "relative_precision", "success",
    "set_p", "set_recall", "set_relative_p", "set_map", "set_f", "unjudged", "trec_rbp", "rbp_resid"})


def _complete(flavour: Any, version: str) -> str:
    """The ``missing`` convention of trec_eval ``-c`` for ``flavour`` (see :func:`with_flags`)."""
    if version == "9.0.8":
        if flavour.metric in ("num_q", "num_rel"):
            return "score"
        return "skip" if flavour.metric in ("num_ret", "num_rel_ret", "num_nonrel_judged_ret") else "zero"
    return "score" if flavour.metric in _OWN_KERNELS else "zero"


def relstrings(qrels: Qrels, run: Run, length: int, *, depth: int | None = None, judged_only: bool = False,
               version: str = "10.0", bogus: bool = False) -> dict[str, str]:
    """``{qid: relstring}``: the judgments of the first ``length`` ranked documents as
    m_relstring.c prints them (``0``-``9``, ``>`` above 9, ``-`` not in the qrels,
    ``.`` judged below 0), for the queries the run and the qrels share; with ``bogus``
    also for the qrels topics missing from the run, ranked as trec_eval 10.0 ``-c``
    ranks them (one document not in the qrels: ``-``; without ``-J``)."""
    from .engine.evaluate import prepare_input, resolve
    from .engine.problem import build_problem
    from .flavour import parse_flavour
    from .registry import default_registry

    registry = default_registry()
    ties = "trec_eval" if version == "10.0" else "trec_eval(score=float32)"
    fl = parse_flavour(f"num_ret(ties={ties})", registry)
    fl = with_flags(fl, registry, depth=depth, judged_only=judged_only)
    problem = build_problem(qrels, run, block_order=False)
    inp = prepare_input(problem, resolve(fl, registry))
    r = inp.ranked
    g = np.trunc(r.grade)
    chars = np.full(len(g), "<", dtype="<U1")
    chars[np.isnan(g)] = "-"
    chars[g < 0] = "."
    ok = (g >= 0) & (g <= 9)
    chars[ok] = g[ok].astype(np.int64).astype(str)
    chars[g > 9] = ">"
    keep = r.rank <= max(length, 0)
    out = {}
    offsets = r.offsets
    for q, qid in enumerate(problem.qids):  # output text: one string per query
        if problem.in_run[q]:
            sl = slice(offsets[q], offsets[q + 1])
            out[str(qid)] = "".join(chars[sl][keep[sl]])
        elif bogus and not judged_only and length >= 1 and (depth is None or depth >= 1):
            out[str(qid)] = "-"
    return out


def undefined_iprec(qrels: Qrels, run: Run, flavour: Flavour, registry: Registry) -> dict[str, bool]:
    """``{qid: undefined}`` for an ``iprec_at_recall`` or ``pt_avg`` flavour: where
    trec_eval divides 0 by 0 and prints ``-nan`` (m_iprec_at_recall.c, m_11pt_avg.c: the
    interpolated precision starts as ``num_rel_ret / num_ret``, kept when a recall level
    counts 0 relevant documents). That needs ``num_ret = 0``: a topic ``-J`` (or ``-M0``)
    leaves without documents, or a missing topic's bogus ranking under ``-c -J``. Every
    qrels topic is given (missing ones included); a flavour of another metric gives ``{}``."""
    from .builtins.trec_eval_measures import _count_cut, parse_levels, res_rels
    from .engine.evaluate import prepare_input, resolve
    from .engine.problem import build_problem

    if flavour.metric not in ("iprec_at_recall", "pt_avg"):
        return {}
    resolved = resolve(flavour, registry)
    kw = resolved.metric_kw
    problem = build_problem(qrels, run, block_order=False)
    inp = prepare_input(problem, resolved)
    rr = res_rels(inp, kw["threshold"])
    levels = [kw["recall"]] if flavour.metric == "iprec_at_recall" else parse_levels(kw["levels"])
    zero_cut = np.zeros(problem.n_queries, dtype=bool)
    for level in levels:  # a handful of recall levels, each vectorised over queries
        zero_cut |= _count_cut(level * rr.num_rel, kw["cutoff_rounding"]) == 0
    undefined = (rr.num_ret == 0) & zero_cut
    return {str(qid): bool(u) for qid, u in zip(problem.qids, undefined)}


def _fmt(value: float, integer: bool) -> str:
    return str(int(value)) if integer else f"{value:6.4f}"


#: how trec_eval's printf("%6.4f") shows the NaN of 0.0 / 0.0 (its sign bit set on x86-64)
NAN_TEXT = "  -nan"


def tsv_lines(results: Results, measures: Sequence[Measure], per_query: bool, *,
              runids: dict[str, str] | None = None,
              relstring_text: Callable[[str, int, str], dict[str, str]] | None = None,
              escape: Callable[[str], str] = lambda s: s, hidden: dict[str, set[str]] | None = None,
              undefined: Callable[[str, int], dict[str, bool]] | None = None,
              summary: dict[int, float] | None = None) -> list[str]:
    """trec_eval's output lines for every run (a run's lines start with its name and a
    tab when there are several runs).

    :param measures: the evaluated measures (``.native`` names), in the results' order.
    :param runids: ``{system: runid}``: print trec_eval's ``runid`` summary line first.
    :param relstring_text: ``relstring_text(system, length, native) -> {qid: text}`` for
        the ``relstring`` measures (printed per query only, with ``per_query``; ``native``
        the printed name, ``relstring_15``).
    :param hidden: ``{system: set of qids}`` not printed per query (trec_eval 9.0.8
        under ``-c``: topics missing from the run count in the mean only).
    :param undefined: ``undefined(system, f) -> {qid: bool}``: the queries where
        trec_eval prints ``-nan`` for measure ``f`` (:func:`undefined_iprec`); the mean
        over queries including one is ``-nan`` too.
    :param summary: ``{f: value}``: the summary (``all``) line of measure ``f`` prints
        ``value`` instead of the aggregate (trec_eval ``-c``'s ``num_rel``: the
        judgments > 0 of the whole qrels file, m_num_rel.c ``te_calc_avg_num_rel``).
    """
    info = [measure_of(m.native) for m in measures]
    seen: set = set()
    order = []
    for f, m in enumerate(measures):  # a value asked for twice (P.10 and P_10) is printed once
        if (m.native, m.flavour) not in seen:
            seen.add((m.native, m.flavour))
            order.append(f)
    known = [i for i in info if i is not None]
    if len(known) == len(info):  # trec_eval prints in its own measure order
        order.sort(key=lambda f: ORDER[known[f].name])
    lines = []
    means = results.means()
    prefix_runs = len(results.systems) > 1
    for s, system in enumerate(results.systems):
        pre = f"{escape(system)}\t" if prefix_runs else ""
        strings = {}
        nan_at = {}
        if undefined is not None:
            for f in order:
                cells = undefined(system, f)
                if any(cells.values()):
                    nan_at[f] = cells
        if per_query:
            for f in order:
                t_f = info[f]
                if t_f is not None and t_f.kind == "string" and relstring_text is not None:
                    strings[f] = relstring_text(system, _relstring_length(measures[f].native), measures[f].native)
            skip = (hidden or {}).get(system, ())
            for q, qid in enumerate(results.qids):
                if qid in skip:
                    continue
                for f in order:
                    t = info[f]
                    v = results.values[s, f, q]
                    if math.isnan(v) or (t is not None and not t.per_query):
                        continue
                    name = f"{escape(measures[f].native):<22}"
                    if t is not None and t.kind == "string":
                        text = strings.get(f, {}).get(str(qid), "")
                        lines.append(f"{pre}{name}\t{escape(qid)}\t'{escape(text)}'")
                    elif nan_at.get(f, {}).get(str(qid), False):
                        lines.append(f"{pre}{name}\t{escape(qid)}\t{NAN_TEXT}")
                    else:
                        lines.append(f"{pre}{name}\t{escape(qid)}\t{_fmt(v, t is not None and t.integer)}")
        if runids is not None:
            lines.append(f"{pre}{'runid':<22}\tall\t{escape(runids.get(system, system))}")
        for f in order:
            t = info[f]
            v = means[s, f]
            if math.isnan(v) or (t is not None and not t.summary):
                continue
            if f in nan_at:  # a counted query is -nan: so is the sum, and the mean
                counted = ~np.isnan(results.values[s, f])
                if any(nan_at[f].get(str(qid), False) for qid in results.qids[counted]):
                    lines.append(f"{pre}{escape(measures[f].native):<22}\tall\t{NAN_TEXT}")
                    continue
            if summary is not None and f in summary:
                v = summary[f]
            lines.append(f"{pre}{escape(measures[f].native):<22}\tall\t{_fmt(v, t is not None and t.integer)}")
    return lines


def _relstring_length(native: str) -> int:
    hit = _lookup(native)
    assert hit is not None  # the native name of a relstring measure
    _, params, _ = hit
    return BY_NAME["relstring"].defaults[0] if params is None else int(_atof(params))
