"""Hypothesis strategies that generate flavours from a registry.

Everything is read from the registry's declarations, so a new component, parameter
or convention is generated without touching this file:

* the metric (any, or one of ``metrics``) and its declared parameters;
* every component family the metric uses (gain, discount, IDCG strategy) and the
  tie policy, each with its declared parameters (and a grade=gain table for
  components with numeric keys, such as ``map``); averaged tie policies only for
  metrics that support them;
* every convention of :data:`evalkit.flavour.CONVENTIONS` (``empty``, ``missing``,
  ``depth``, ``judged_only``, ``min_grade``, ``negative``: ``gain`` only for the
  metrics (and IDCG strategies) that accept it, with the tie policy's own ``negative``
  parameter set to match, never ``error``, which refuses data), and a cutoff or none.

Flavours are built with :meth:`evalkit.Flavour.of` (the structural constructor).
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from evalkit import Flavour
from evalkit.flavour import COMPONENT_KEYS, CONVENTIONS, NEGATIVE_GAIN_IDCG, NEGATIVE_GAIN_METRICS


def param_values(param, lo_default: float = -1.0, hi_default: float = 5.0):
    """Valid values of a declared :class:`evalkit.components.Param`: its default,
    small integers (grades are small integers) and floats within its bounds."""
    if param.kind == "str":
        return st.sampled_from(param.choices) if param.choices else st.just(param.default or "x")
    lo = param.minimum if param.minimum is not None else lo_default
    hi = param.maximum if param.maximum is not None else max(lo, 0.0) + hi_default
    if param.kind == "int":
        first = int(math.floor(lo)) + 1 if param.exclusive_minimum or lo != int(lo) else int(lo)
        last = int(math.ceil(hi)) - 1 if param.exclusive_maximum or hi != int(hi) else int(hi)
        return st.integers(first, max(first, last))
    whole = [float(v) for v in range(int(math.ceil(lo)), int(math.floor(hi)) + 1)
             if (v > lo or not param.exclusive_minimum) and (v < hi or not param.exclusive_maximum)]
    floats = st.floats(lo, hi, exclude_min=param.exclusive_minimum, exclude_max=param.exclusive_maximum,
                       allow_nan=False)
    options = [floats] + ([st.sampled_from(whole)] if whole else [])
    if param.default is not None:
        options.append(st.just(param.default))
    return st.one_of(options)


@st.composite
def component(draw, registry, family: str, names=None):
    """``(name, {param: value})`` of a component of ``family``."""
    name = draw(st.sampled_from(sorted(names if names is not None else registry.names(family))))
    comp = registry.get(family, name)
    params = {}
    for p in comp.params:
        if p.default is None or draw(st.booleans()):
            params[p.name] = draw(param_values(p))
    if comp.numeric_keys is not None and draw(st.booleans()):
        table = draw(st.dictionaries(st.integers(-1, 4), st.floats(0.0, 10.0, allow_nan=False),
                                     min_size=1, max_size=4))
        params.update({str(grade): gain for grade, gain in table.items()})
    return name, params


@st.composite
def flavours(draw, registry, metrics=None, max_k: int = 8, max_depth: int = 8):
    """A :class:`Flavour` drawn from ``registry`` (see the module docstring).

    :param metrics: metric names to draw from (default: every registered metric).
    """
    name = draw(st.sampled_from(sorted(metrics if metrics is not None else registry.names("metric"))))
    metric = registry.metric(name)
    parts = {}
    for p in metric.params:
        if p.default is None or draw(st.booleans()):
            parts[p.name] = draw(param_values(p))
    for family in COMPONENT_KEYS:
        if family == "ties":
            # runs drawn for these flavours have no rank column: ties=rank (needs_rank) has
            # its own tests (test_rank_column.py, test_fuzz.py, the ndeval conformance rows)
            names = [n for n in registry.names("ties")
                     if (metric.supports_averaged_ties or not registry.get("ties", n).averaged)
                     and not registry.get("ties", n).needs_rank]
            parts["ties"] = draw(component(registry, "ties", names))
        elif family in metric.uses:
            parts[family] = draw(component(registry, family))
    # the conventions, and the negative-grade rule (a stage family since issue 23)
    for key, conv in [*CONVENTIONS.items(), ("negative", None)]:
        if not draw(st.booleans()):
            continue
        if key == "depth":
            parts[key] = draw(st.integers(1, max_depth))
        elif key == "negative":  # gain only where defined; error refuses the data (tested apart)
            gain_ok = name in NEGATIVE_GAIN_METRICS or (name == "ndcg" and parts["idcg"][0] in NEGATIVE_GAIN_IDCG)
            parts[key] = draw(st.sampled_from(["zero", "gain"] if gain_ok else ["zero"]))
            ties, ties_params = parts["ties"]
            if parts[key] == "gain" and any(p.name == "negative" for p in registry.get("ties", ties).params):
                parts["ties"] = (ties, {**ties_params, "negative": "gain"})  # as the flavour requires
        elif key == "min_grade":
            parts[key] = draw(st.one_of(st.sampled_from([-1.0, 0.0, 1.0, 2.0, 3.0, 5.0]),
                                        st.floats(-1.0, 4.0, allow_nan=False)))
        else:
            parts[key] = draw(param_values(conv))
    k = draw(st.one_of(st.none(), st.integers(1, max_k)))
    return Flavour.of(name, k, registry, **parts)
