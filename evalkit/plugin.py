"""The plugin contract: everything a plugin imports, in one module.

A gain is three things: a function decorated with :func:`gain`, the marker
:data:`hookimpl`, and the registration hook returning :func:`declared`::

    import numpy as np
    from evalkit.plugin import declared, gain, hookimpl

    @gain("cube", formula="g = rel^3", source="an example")
    def cube(grades):                    # float64 (n,): judged grades >= 0
        return grades ** 3               # float64 (n,)

    @hookimpl
    def evalkit_register_gains():
        return declared(__name__)

Every component is a *vectorised* function over all queries of one run (``n`` ranked
positions, ``m`` judged documents, ``q`` queries, ``s`` systems); the engine calls it
once per flavour and run, never per query, and checks what it returns on every call
(a broken contract is exit status 3 naming the component and its plugin).

What each decorator's function receives (besides ``**params``, its declared
:class:`Param` values) and returns:

* :func:`gain`: ``grades`` ``float64`` ``(n,)``, judged grades ``>= 0`` (negative ones
  too under ``negative=gain``) -> ``float64`` ``(n,)`` gains, finite (unitless);
* :func:`discount`: ``ranks`` ``int64`` ``(n,)``, 1-based -> ``float64`` ``(n,)``
  multiplicative discounts, finite, ``>= 0``;
* :func:`idcg_strategy`: ``ctx`` an :class:`IdealContext` -> ``float64`` ``(q,)``
  ideal DCGs;
* :func:`tie_policy`: ``keys`` a :class:`SortKeys` (columns of shape ``(n,)``) ->
  ``int64`` ``(n,)`` permutation grouping rows by ascending query, rank 1 first;
* :func:`metric`: ``inp`` a :class:`MetricInput` -> a :class:`MetricOutput`
  (``values`` ``float64`` ``(q,)``, finite where ``defined`` ``bool`` ``(q,)``);
* :func:`run_filter`: ``inp`` a :class:`RunFilterInput` -> ``bool`` ``(n,)``, the
  positions that leave the sorted run;
* :func:`grade_rule`, :func:`negative_rule`: ``grades`` ``float64`` ``(n,)`` -> the
  grade the gain reads, ``float64`` ``(n,)``; their ``check(grades float64 (m,))`` ->
  a :class:`Refusal` or ``None``; ``drops(grades float64 (n,))`` -> ``bool`` ``(n,)``;
* :func:`outcome`: ``values`` ``float64`` ``(q,)`` (``NaN``: left out) -> ``float64``
  ``(q,)``, ``NaN`` exactly where the input is;
* :func:`aggregate`: ``values`` ``float64`` ``(s, q)`` (``NaN``: left out) ->
  ``float64`` ``(s,)``, ``NaN`` where no query is included.

:class:`Param` declares a parameter; :class:`Preset` names a flavour string.
Everything else (``evalkit.engine``) is internal. The helpers a kernel may use
(segment sums, ``ideal_dcg``...) are in :mod:`evalkit.kernel`; the component classes
(for registering without a decorator) in :mod:`evalkit.components`; both stay
importable from there. ``docs/plugins.md`` walks through a gain, a stage component and
a metric.
"""

from __future__ import annotations

from .components import (MetricOutput, Param, Preset, Refusal, RunFilterInput, aggregate, declared, discount, gain,
                         grade_rule, idcg_strategy, metric, negative_rule, outcome, run_filter, tie_policy)
from .hookspecs import hookimpl
from .kernel import IdealContext, MetricInput, RankedList, SortKeys

__all__ = [
    # registering: the marker, the module's declared components, a parameter, a preset
    "hookimpl", "declared", "Param", "Preset",
    # one decorator per component family
    "gain", "discount", "idcg_strategy", "tie_policy", "metric",
    "run_filter", "grade_rule", "negative_rule", "outcome", "aggregate",
    # what the functions receive and return
    "MetricInput", "MetricOutput", "IdealContext", "SortKeys", "RankedList", "RunFilterInput", "Refusal",
]
