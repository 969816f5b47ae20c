"""Hook specifications for evalkit plugins.

Every component family has one registration hook. A plugin implements any subset
of them. As pluggy defines hooks, an implementation takes any subset of the
specification's arguments, so there are two equivalent forms:

* with the ``register`` argument, call it once per component (``aliases=`` gives
  other names under which the registry also finds the component)::

    from evalkit import hookimpl
    from evalkit.components import Discount

    @hookimpl
    def evalkit_register_discounts(register):
        register(Discount(name="rbp", fn=..., formula="p^(r-1)", source="Moffat & Zobel 2008"),
                 aliases=("geometric",))

* with no argument, return an iterable of components, or of
  ``(component, aliases)`` pairs (:func:`evalkit.components.declared` collects the
  kernels a module declared with :func:`evalkit.components.discount` & co.)::

    @hookimpl
    def evalkit_register_discounts():
        return declared(__name__)

An implementation that takes ``register`` may also return components; both are
registered. ``@hookimpl(wrapper=True)`` and ``@hookimpl(hookwrapper=True)`` are
refused (:class:`evalkit.RegistryError` naming the plugin): a registration hook has
no result to wrap.

Hooks are called exactly once, when a :class:`evalkit.registry.Registry` is built.
No per-query work ever goes through pluggy: the registry hands the engine plain
component objects whose functions are vectorised over all queries.

Third-party plugins are discovered through the ``evalkit`` entry-point group
(``[project.entry-points.evalkit]`` in the plugin's ``pyproject.toml``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Protocol

import pluggy

if TYPE_CHECKING:
    from .components import (Aggregate, Discount, Divergence, Engine, Gain, GradeRule, IdcgStrategy, Metric, NegativeRule,
                              Outcome, Preset, RunFilter, TiePolicy)

PROJECT_NAME = "evalkit"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

__all__ = ["PROJECT_NAME", "Register", "hookimpl", "hookspec"]


class Register(Protocol):
    """The ``register`` callback handed to a registration hook."""

    def __call__(self, component: Any, aliases: Iterable[str] = ()) -> None:
        """Add ``component`` (and its ``aliases``) to the registry.

        :raises RegistryError: wrong component type for the hook, or a name or alias
            already registered (the message names both plugins).
        """


@hookspec
def evalkit_register_gains(register: Register) -> Iterable[Gain | tuple[Gain, Iterable[str]]] | None:
    """Register gain functions (relevance grade -> gain).

    :param register: call ``register(evalkit.components.Gain(...), aliases=())`` once per gain.
    :returns: ``None``, or an iterable of :class:`~evalkit.components.Gain` (or
        ``(gain, aliases)`` pairs) to register.
    """


@hookspec
def evalkit_register_discounts(
    register: Register,
) -> Iterable[Discount | tuple[Discount, Iterable[str]]] | None:
    """Register rank discounts (1-based rank -> multiplicative discount).

    :param register: call ``register(evalkit.components.Discount(...), aliases=())`` once per discount.
    :returns: ``None``, or an iterable of :class:`~evalkit.components.Discount` (or
        ``(discount, aliases)`` pairs) to register.
    """


@hookspec
def evalkit_register_idcg_strategies(
    register: Register,
) -> Iterable[IdcgStrategy | tuple[IdcgStrategy, Iterable[str]]] | None:
    """Register ideal-DCG strategies (which documents form the ideal ranking).

    :param register: call ``register(evalkit.components.IdcgStrategy(...), aliases=())``.
    :returns: ``None``, or an iterable of :class:`~evalkit.components.IdcgStrategy`
        (or ``(strategy, aliases)`` pairs) to register.
    """


@hookspec
def evalkit_register_tie_policies(
    register: Register,
) -> Iterable[TiePolicy | tuple[TiePolicy, Iterable[str]]] | None:
    """Register tie policies (how documents with equal scores are ordered).

    :param register: call ``register(evalkit.components.TiePolicy(...), aliases=())``.
    :returns: ``None``, or an iterable of :class:`~evalkit.components.TiePolicy` (or
        ``(policy, aliases)`` pairs) to register.
    """


@hookspec
def evalkit_register_metrics(register: Register) -> Iterable[Metric | tuple[Metric, Iterable[str]]] | None:
    """Register metrics (DCG, NDCG, ERR, ...), each a vectorised kernel.

    :param register: call ``register(evalkit.components.Metric(...), aliases=())``.
    :returns: ``None``, or an iterable of :class:`~evalkit.components.Metric` (or
        ``(metric, aliases)`` pairs) to register.
    """


@hookspec
def evalkit_register_presets(register: Register) -> Iterable[Preset | tuple[Preset, Iterable[str]]] | None:
    """Register named presets (``LIBRARY.MEASURE``) that expand to flavours.

    :param register: call ``register(evalkit.components.Preset(...), aliases=())``.
    :returns: ``None``, or an iterable of :class:`~evalkit.components.Preset` (or
        ``(preset, aliases)`` pairs) to register.
    """


@hookspec
def evalkit_register_engines(register: Register) -> Iterable[Engine | tuple[Engine, Iterable[str]]] | None:
    """Register evaluation backends (where qrels and runs are evaluated: in process,
    on Spark, ...).

    :param register: call ``register(evalkit.components.Engine(...), aliases=())``.
    :returns: ``None``, or an iterable of :class:`~evalkit.components.Engine` (or
        ``(engine, aliases)`` pairs) to register.
    """


# ---------------------------------------------------------------- stage families
# The fixed pipeline of docs/architecture.md: every stage is a family registered like
# gains. Each hook takes ``register`` or returns components, as above.


@hookspec
def evalkit_register_grade_rules(
    register: Register,
) -> Iterable[GradeRule | tuple[GradeRule, Iterable[str]]] | None:
    """Register grade rules (flavour key ``grades``): which judged grades are accepted
    and the grade the gain reads (:class:`~evalkit.components.GradeRule`)."""


@hookspec
def evalkit_register_negative_rules(
    register: Register,
) -> Iterable[NegativeRule | tuple[NegativeRule, Iterable[str]]] | None:
    """Register negative-grade rules (flavour key ``negative``): what a negative judged
    grade means (:class:`~evalkit.components.NegativeRule`)."""


@hookspec
def evalkit_register_run_filters(
    register: Register,
) -> Iterable[RunFilter | tuple[RunFilter, Iterable[str]]] | None:
    """Register run filters (flavour key ``run_filter``): documents that leave the
    sorted run before the cut (:class:`~evalkit.components.RunFilter`)."""


@hookspec
def evalkit_register_outcomes(register: Register) -> Iterable[Outcome | tuple[Outcome, Iterable[str]]] | None:
    """Register per-query outcomes (flavour key ``outcome``): what is reported for a
    query's value, e.g. ``1 - value`` or the value rounded (:class:`~evalkit.components.Outcome`)."""


@hookspec
def evalkit_register_aggregates(
    register: Register,
) -> Iterable[Aggregate | tuple[Aggregate, Iterable[str]]] | None:
    """Register aggregates over queries (flavour key ``aggregate``): the mean, a rounded
    mean, ... (:class:`~evalkit.components.Aggregate`)."""


@hookspec
def evalkit_register_divergences(
    register: Register,
) -> Iterable[Divergence | tuple[Divergence, Iterable[str]]] | None:
    """Register divergences (:class:`~evalkit.components.Divergence`): inputs on which a
    library computes something other than its preset, named by presets in
    ``Preset.diverges``."""


def _mark_builtins() -> None:
    """Mark with :data:`hookimpl` the built-in hook implementations decorated before this
    module was imported (:mod:`evalkit._builtin_hookimpl`)."""
    from ._builtin_hookimpl import mark_pending

    mark_pending(hookimpl)


_mark_builtins()
