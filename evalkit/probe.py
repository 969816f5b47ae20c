"""Probing components once, at registry build, on a small known input.

A component whose kernel returns the wrong dtype, the wrong shape or non-finite
values would otherwise turn into 0.0 (or NaN dropped from a mean) far away from its
cause, in the middle of an evaluation. :func:`probe_registry` calls every component
once at its default parameters on a fixed two-query problem (grades 0..3 and an
unjudged document, one tied pair, a cutoff) and raises :class:`RegistryError` naming
the component and its origin (the distribution that registered it) when the output is
wrong. The probe costs a few hundred microseconds per component: it runs at every
CLI start for third-party components; the built-in ones are probed by the tests.

What is checked, per family (``n`` ranked positions, ``q`` queries):

* gain ``fn(grades float64 (n,))``: real dtype, shape ``(n,)``, finite;
* discount ``fn(ranks int64 (n,))``: real dtype, shape ``(n,)``, finite;
* tie policy ``fn(keys)``: integer dtype, a permutation of ``0..n-1`` that keeps
  queries contiguous in their original order;
* IDCG strategy ``fn(ctx)``: real dtype, shape ``(q,)``, finite;
* metric ``fn(inp) -> MetricOutput``: ``values`` real ``(q,)``, ``defined`` bool
  ``(q,)``, values finite where defined.

Components that cannot be called without a value the user gives (a required
parameter, or a numeric-key table such as the ``map`` gain) and intent-aware
metrics (they need subtopic qrels) are not probed at build.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, TYPE_CHECKING

import numpy as np

from .data import Qrels, Run
from .errors import RegistryError
from .isolation import stdout_to_stderr

if TYPE_CHECKING:
    from .engine.problem import Problem
    from .engine.ranking import RankedList
    from .registry import Registry

__all__ = ["probe_registry", "probe_component"]

#: the probe's qrels and run: query ``a`` has grades 3, 0, 1, 2 and a tie (d2, d3);
#: ``d9`` is unjudged; query ``b`` has one relevant document, ranked second.
_QRELS = (("a", "d1", 3), ("a", "d2", 0), ("a", "d3", 1), ("a", "d4", 2),
          ("b", "e1", 0), ("b", "e2", 1))
_RUN = (("a", "d1", 4.0), ("a", "d2", 3.0), ("a", "d3", 3.0), ("a", "d9", 2.0), ("a", "d4", 1.0),
        ("b", "e1", 2.0), ("b", "e2", 1.0))
#: the probe run's rank column (for tie policies that need one: ties=rank)
_RANK = (2, 1, 3, 5, 4, 1, 2)
_K = 3


class _ProbeFailure(Exception):
    pass


def _numeric(out: Any, what: str, shape: tuple[int, ...], *, integer: bool = False) -> np.ndarray:
    try:
        arr = np.asarray(out)
    except Exception as exc:  # noqa: BLE001 - an object numpy cannot read
        raise _ProbeFailure(f"returned {type(out).__name__}, not an array ({exc})") from None
    kinds = "iu" if integer else "iuf"
    if arr.dtype.kind not in kinds:
        expected = "an integer array" if integer else "a real (float64) array"
        raise _ProbeFailure(f"{what} has dtype {arr.dtype}; expected {expected}")
    if arr.shape != shape:
        raise _ProbeFailure(f"{what} has shape {arr.shape}; expected {shape}")
    if not integer and not np.isfinite(arr).all():
        bad = arr[~np.isfinite(arr)]
        raise _ProbeFailure(f"{what} has non-finite values ({', '.join(map(str, bad[:3]))})")
    return arr


class _Probe:
    """The probe problem, built once per registry."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._problem: Problem | None = None
        self._reference_ranked: RankedList | None = None

    @property
    def problem(self) -> Problem:
        """The probe's qrels joined with its run, built on first use: a start whose
        components are all skipped (built-in only) builds none (issue 27)."""
        if self._problem is None:
            from .engine.problem import build_problem

            self._problem = build_problem(Qrels.from_rows(_QRELS, source="<probe>"),
                                          Run.from_columns(*zip(*_RUN), rank=_RANK, name="probe", source="<probe>"))
        return self._problem

    def _builtin(self, family: str, name: str, fallback: Any = None) -> Any:
        find = getattr(self.registry, "find", None)
        comp = find(family, name) if find is not None else self.registry.components[family].get(name)
        return comp if comp is not None else fallback

    def ranked(self) -> Any:
        if self._reference_ranked is None:
            stable = self._builtin("ties", "stable")
            if stable is None:  # only in a registry stripped of the built-ins
                return None
            self._reference_ranked = self.problem.ranked(stable, stable.bind(()))
        return self._reference_ranked

    def _bound(self, family: str, name: str, fallback: Any) -> Any:
        comp = self._builtin(family, name)
        if comp is None:
            return fallback
        kw = comp.bind(())
        return lambda x: np.asarray(comp.fn(x, **kw), dtype=np.float64)

    def gain(self, comp: Any, kw: Any) -> None:
        grades = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
        _numeric(comp.fn(grades, **kw), "the gains of grades 0..4", grades.shape)

    def discount(self, comp: Any, kw: Any) -> None:
        ranks = np.arange(1, 6, dtype=np.int64)
        _numeric(comp.fn(ranks, **kw), "the discounts of ranks 1..5", ranks.shape)

    def ties(self, comp: Any, kw: Any) -> None:
        keys = self.problem.keys
        n = len(keys.query)
        order = _numeric(comp.fn(keys, **kw), "the order", (n,), integer=True)
        if not np.array_equal(np.sort(order), np.arange(n)):
            raise _ProbeFailure(f"the order {order.tolist()} is not a permutation of 0..{n - 1}")
        if not np.array_equal(keys.query[order], np.sort(keys.query, kind="stable")):
            raise _ProbeFailure(f"the order {order.tolist()} does not keep queries contiguous")

    def _input(self, k: Any) -> Any:
        from .kernel import MetricInput

        ranked = self.ranked()
        if ranked is None:
            return None
        p = self.problem
        return MetricInput(
            ranked=ranked, judged_grade=p.judged_grade, judged_offsets=p.judged_offsets, k=k,
            gain=self._bound("gain", "linear", lambda g: np.asarray(g, dtype=np.float64)),
            discount=self._bound("discount", "log2", lambda r: 1.0 / np.log2(r + 1.0)),
            idcg=None,
        )

    def idcg(self, comp: Any, kw: Any) -> None:
        from .kernel import IdealContext

        inp = self._input(_K)
        if inp is None:
            return
        ctx = IdealContext(inp.ranked_gain, inp.ranked, inp.judged_gain, inp.judged_offsets,
                           inp.discount, _K)
        _numeric(comp.fn(ctx, **kw), "the ideal DCG", (inp.n_queries,))

    def metric(self, comp: Any, kw: Any) -> None:
        if comp.needs_subtopics:
            return
        inp = self._input(_K)
        if inp is None:
            return
        judged = self._builtin("idcg", "judged")
        if judged is not None:
            jkw = judged.bind(())
            inp.idcg = lambda ctx: judged.fn(ctx, **jkw)
        out = comp.fn(inp, **kw)
        q = inp.n_queries
        values = _numeric(getattr(out, "values", None), "MetricOutput.values", (q,)) \
            if hasattr(out, "values") else None
        if values is None:
            raise _ProbeFailure(f"returned {type(out).__name__}; expected an evalkit.components.MetricOutput")
        defined = np.asarray(getattr(out, "defined", None))
        if defined.dtype != bool or defined.shape != (q,):
            raise _ProbeFailure(f"MetricOutput.defined is {defined.dtype} {defined.shape}; expected bool ({q},)")


_FAMILY_NOUN = {"gain": "gain", "discount": "discount", "idcg": "IDCG strategy",
                "ties": "tie policy", "metric": "metric"}


def probe_component(probe: _Probe, family: str, comp: Any) -> None:
    """Call ``comp`` once on the probe input.

    :raises RegistryError: the call raised (``SystemExit`` included) or returned
        a wrong output; the message names the component and its origin.
    """
    if any(p.default is None for p in comp.params) or comp.numeric_keys is not None:
        return  # needs a value only a flavour string gives
    check = getattr(probe, family)
    noun = _FAMILY_NOUN[family]
    try:
        with np.errstate(all="ignore"), stdout_to_stderr():  # a plugin's print
            check(comp, comp.bind(()))
    except _ProbeFailure as exc:
        raise RegistryError(f"{comp.origin}: {noun} '{comp.name}' failed evalkit's probe "
                            f"(called once at start-up on a small input): {exc}") from None
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a plugin's kernel crashed
        raise RegistryError(f"{comp.origin}: {noun} '{comp.name}' raised {type(exc).__name__}: {exc} "
                            f"when evalkit probed it (called once at start-up on a small input)") from exc


def probe_registry(registry: Any, on_failure: Callable[[str, Any, RegistryError], None] | None = None,
                   skip_origin: str | None = None, tables: Mapping[str, Mapping[str, Any]] | None = None) -> None:
    """Probe every component of ``registry`` (presets excluded: they are flavour
    strings, parsed where they are resolved, :mod:`evalkit.resolve`, and all of them by
    :func:`evalkit.presets.check_presets`, which the tests run).

    :param skip_origin: components of this origin are not probed:
        :func:`evalkit.registry.build_registry` skips the built-in ones (evalkit's own
        code, probed by the tests, tests/test_registry_cache.py), so a start probes only
        third-party components.

    :param on_failure: ``on_failure(family, component, error)`` is called for each
        component whose probe fails (:func:`evalkit.registry.build_registry` disables
        its plugin there, which removes the plugin's components from ``registry``);
        ``None`` raises the error.
    :param tables: the ``{family: {name: component}}`` to probe (default:
        ``registry.components``, every component); :func:`evalkit.registry.build_registry`
        passes the components loaded so far, the plugins' (built-in modules load when
        first needed).
    :raises RegistryError: the first component whose probe fails, without ``on_failure``.
    """
    probe = _Probe(registry)  # its problem is built when a component is probed
    for family in ("gain", "discount", "ties", "idcg", "metric"):
        table = (registry.components if tables is None else tables)[family]
        for comp in list(table.values()):
            if (skip_origin is not None and comp.origin == skip_origin) or table.get(comp.name) is not comp:
                continue  # not probed here, or removed with its disabled plugin
            try:
                probe_component(probe, family, comp)
            except RegistryError as exc:
                if on_failure is None:
                    raise
                on_failure(family, comp, exc)
