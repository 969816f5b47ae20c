"""Resolving measure specs, once, at the edge.

The command line (``-m``), the config runner (``flavours:``) and the public functions
(:func:`evalkit.evaluate`, :func:`evalkit.spark.evaluate`, :mod:`evalkit.arrays`,
:mod:`evalkit.integrations`) turn what a user wrote — a flavour string, a preset name
with an optional ``@k``, a trec_eval or ir_measures measure name — into
:class:`~evalkit.flavour.Flavour` values here, once per command or call. Everything
below (``evalkit.engine``, ``evalkit.results``, ``evalkit.explain``, the Spark backend)
takes resolved flavours and never reads a preset (``tests/test_layers.py``).

Preset specs are parsed when a preset is used, not at start-up: a plugin's broken
preset fails with a :class:`~evalkit.errors.RegistryError` naming the preset and the
plugin when it is asked for, and every other command works
(:func:`evalkit.presets.expand_labelled`). The tests parse every registered preset
(``tests/test_resolve.py``).
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable, Iterable, TYPE_CHECKING

from .errors import ArgumentError, FlavourError
from .flavour import Flavour
from .presets import expand_labelled, expand_spec
from .registry import registry_or_default

if TYPE_CHECKING:
    from ._resolved_measure import ResolvedMeasure
    from .components import Preset
    from .registry import Registry


# ResolvedMeasure (a named tuple) is defined in evalkit._resolved_measure, when first
# used (PEP 562 __getattr__ below); so is ``evaluate``.


def resolve_measures(specs: Flavour | str | Iterable[Flavour | str], registry: Registry | None = None,
                     cutoffs: Iterable[int] | None = None) -> list[ResolvedMeasure]:
    """Resolve measure specs into ``(label, preset or None, flavour)`` triples, in order.

    :param specs: one spec or an iterable of specs; a spec is a :class:`Flavour`, a
        flavour string (``ndcg(gain=exp2)@10``), a preset name with optional ``@k``
        (``trec_eval.ndcg_cut@10``; a preset with default cutoffs and no ``@k`` gives one
        measure per default cutoff), a trec_eval name (``ndcg_cut.5,10``, ``P.10``,
        ``all_trec``) or an ir_measures name (``nDCG@10``).
    :param cutoffs: optional cutoffs; each spec gives one flavour per cutoff.
    :returns: list of :class:`ResolvedMeasure`; specs giving the same flavour stay
        separate entries (each under its own label).
    :raises ArgumentError: ``specs`` is neither a spec nor an iterable of specs.
    :raises FlavourError: an unknown name (with the closest known names), component or
        parameter, or an invalid flavour string.
    :raises RegistryError: a preset's own spec is not a valid flavour (the message names
        the preset and the plugin that registered it).
    """
    from ._resolved_measure import ResolvedMeasure

    return [ResolvedMeasure(*triple) for triple in resolve_labelled(specs, registry, cutoffs)]


def resolve_labelled(specs: Flavour | str | Iterable[Flavour | str], registry: Registry | None = None,
                     cutoffs: Iterable[int] | None = None) -> list[tuple[str, Preset | None, Flavour]]:
    """:func:`resolve_measures` as plain ``(label, preset or None, flavour)`` tuples
    (what the command line reads; the same values, order and errors)."""
    registry = registry_or_default(registry)
    if isinstance(specs, (str, Flavour)):
        specs = [specs]
    elif not isinstance(specs, Iterable):
        raise ArgumentError(f"flavours must be a flavour string, a Flavour or a list of them, "
                            f"got {type(specs).__name__}")
    return [triple for spec in specs for triple in expand_labelled(spec, registry, cutoffs)]


def resolve_flavour(spec: Flavour | str, registry: Registry | None = None) -> Flavour:
    """The one flavour ``spec`` names (``evalkit explain``'s ``-m``).

    :raises FlavourError: as :func:`resolve_measures`, or the spec gives several
        flavours (a preset with default cutoffs and no ``@k``).
    """
    measures = resolve_measures(spec, registry)
    if len(measures) != 1:
        raise FlavourError(f"{spec!r} expands to {len(measures)} flavours; give one cutoff with @k")
    return measures[0].flavour


def resolving(fn: Callable) -> Callable:
    """``fn`` (an engine's ``evaluate(qrels, runs, flavours, *, labels=None,
    registry=None, ...)``, which takes resolved flavours) as a public function taking
    specs: its ``flavours`` are resolved once with :func:`resolve_measures`, and its
    ``labels`` default to the specs as written (``preset@k`` per expanded cutoff).
    The signature and docstring are ``fn``'s."""
    import inspect  # only where a public function is wrapped (evalkit.evaluate, the Spark engine's)

    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def edge(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        # the registry argument is passed on as given: None means the engine's default
        # (the Spark engine ships a given registry's plugins to its executors)
        measures = resolve_measures(bound.arguments["flavours"], bound.arguments.get("registry"))
        bound.arguments["flavours"] = [m.flavour for m in measures]
        if bound.arguments.get("labels") is None:
            bound.arguments["labels"] = [m.label for m in measures]
        # the engine's warnings name its caller's line (stacklevel); through this wrapper
        # that line would be here: they are recorded and warned again from the caller
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = fn(*bound.args, **bound.kwargs)
        for w in caught:
            warnings.warn(w.message, w.category, stacklevel=2)
        return result

    return edge


def _engine_evaluate() -> Any:
    from .engine.evaluate import evaluate

    return evaluate


# ``evaluate`` (:func:`evalkit.evaluate`: the local engine's evaluate, taking specs, resolved
# here once) is made when first used (__getattr__ below): the command line does not call it.


def _flavours_of_spec(text: str) -> list[Flavour]:
    """What :meth:`evalkit.Results.flavour_index` looks a spec up by."""
    return expand_spec(text)


def _install_results_lookup() -> None:
    from . import results

    results.set_spec_resolver(_flavours_of_spec)


_install_results_lookup()


def __getattr__(name: str) -> Any:
    """:class:`ResolvedMeasure` (:mod:`evalkit._resolved_measure`) and ``evaluate``
    (:func:`resolving` over the local engine's evaluate), made on first use (PEP 562,
    issue 27): ``evalkit eval`` needs neither."""
    value: Any
    if name == "ResolvedMeasure":
        from . import _resolved_measure

        value = _resolved_measure.ResolvedMeasure
    elif name == "evaluate":
        value = resolving(_engine_evaluate())
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"ResolvedMeasure", "evaluate"})
