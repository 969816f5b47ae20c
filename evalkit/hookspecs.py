"""Hook specifications for evalkit plugins.

Every component family has one registration hook. A plugin implements any subset
of them; each implementation receives a ``register`` callback and calls it once per
component it provides::

    from evalkit import hookimpl
    from evalkit.components import Discount

    @hookimpl
    def evalkit_register_discounts(register):
        register(Discount(name="rbp", fn=..., formula="p^(r-1)", source="Moffat & Zobel 2008"))

Hooks are called exactly once, when a :class:`evalkit.registry.Registry` is built.
No per-query work ever goes through pluggy: the registry hands the engine plain
component objects whose functions are vectorised over all queries.

Third-party plugins are discovered through the ``evalkit`` entry-point group
(``[project.entry-points.evalkit]`` in the plugin's ``pyproject.toml``).
"""

from __future__ import annotations

import pluggy

PROJECT_NAME = "evalkit"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def evalkit_register_gains(register):
    """Register gain functions (relevance grade -> gain).

    :param register: call ``register(evalkit.components.Gain(...))`` once per gain.
    """


@hookspec
def evalkit_register_discounts(register):
    """Register rank discounts (1-based rank -> multiplicative discount).

    :param register: call ``register(evalkit.components.Discount(...))`` once per discount.
    """


@hookspec
def evalkit_register_idcg_strategies(register):
    """Register ideal-DCG strategies (which documents form the ideal ranking).

    :param register: call ``register(evalkit.components.IdcgStrategy(...))``.
    """


@hookspec
def evalkit_register_tie_policies(register):
    """Register tie policies (how documents with equal scores are ordered).

    :param register: call ``register(evalkit.components.TiePolicy(...))``.
    """


@hookspec
def evalkit_register_metrics(register):
    """Register metrics (DCG, NDCG, ERR, ...), each a vectorised kernel.

    :param register: call ``register(evalkit.components.Metric(...))``.
    """


@hookspec
def evalkit_register_presets(register):
    """Register named presets (``LIBRARY.MEASURE``) that expand to flavours.

    :param register: call ``register(evalkit.components.Preset(...))``.
    """
