"""Plugin discovery: builds a :class:`Registry` of components from the built-in
plugins and from third-party distributions that declare the ``evalkit`` entry-point
group.

The registry is built by a function, never held in a module global, so tests and
parallel workers can each build their own (:func:`build_registry`). The
convenience :func:`default_registry` caches one per process and per
``disable_plugins`` setting.

Third-party plugins can be disabled with the environment variable
``EVALKIT_DISABLE_PLUGINS`` (``1``/``all`` disables every one; a comma-separated
list of entry-point names disables those) or ``evalkit --no-plugins``.
"""

from __future__ import annotations

import functools
import importlib.metadata as md
import os
import re
from dataclasses import dataclass, field
from typing import Iterable

import pluggy

from . import hookspecs
from .components import FAMILIES, Metric, Preset, replace_origin
from .errors import FlavourError, RegistryError
from .probe import probe_registry

ENTRY_POINT_GROUP = "evalkit"
DISABLE_ENV = "EVALKIT_DISABLE_PLUGINS"

#: Modules that hold the built-in components, registered directly (not via entry points).
DEFAULT_PLUGINS = (
    "evalkit.builtins.gains",
    "evalkit.builtins.discounts",
    "evalkit.builtins.idcg",
    "evalkit.builtins.ties",
    "evalkit.builtins.metrics",
    "evalkit.builtins.presets",
    "evalkit.builtins.presets_ml",
    "evalkit.builtins.metrics_spark",
    "evalkit.builtins.presets_spark",
    "evalkit.builtins.diversity",
    "evalkit.engine.backends",
    "evalkit.builtins.library_components",
    "evalkit.builtins.presets_libraries",
)

_HOOK_FOR_FAMILY = {
    "gain": "evalkit_register_gains",
    "discount": "evalkit_register_discounts",
    "idcg": "evalkit_register_idcg_strategies",
    "ties": "evalkit_register_tie_policies",
    "metric": "evalkit_register_metrics",
    "preset": "evalkit_register_presets",
    "engine": "evalkit_register_engines",
}

BUILTIN_ORIGIN = "evalkit (built-in)"

#: A preset name: identifiers joined by dots or hyphens, optionally ending in ``-``
#: (``trec_eval.ndcg_cut``, XGBoost's ``xgboost.ndcg-``).
_PRESET_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:[.-][A-Za-z_0-9]+)*-?\Z")
_NAME_RULE = {
    False: "component names must be Python identifiers (letters, digits, '_'; not starting with a digit), "
           "so that flavour strings such as ndcg(gain=NAME) parse",
    True: "preset names are identifiers joined by '.' or '-' (no spaces, '@', '(', ')', ',' or '=')",
}


def valid_name(family: str, name: object) -> bool:
    """``True`` if ``name`` may name a component of ``family``: an ASCII identifier,
    or for presets identifiers joined by ``.`` or ``-`` (``xgboost.ndcg-``)."""
    if not isinstance(name, str) or not name.isascii():
        return False
    if family == "preset":
        return _PRESET_NAME.match(name) is not None
    return name.isidentifier()


@dataclass
class Registry:
    """Every known component, by family and name.

    ``components[family][name]`` is the component object; each has ``origin`` set to
    ``"evalkit (built-in)"`` or ``"<distribution> <version> (entry point <name>)"``.
    ``alias_names[family][alias]`` is the name of the component an alias stands for
    (``register(component, aliases=(...))``); :meth:`get` resolves aliases,
    :meth:`names` lists only the components' own names.
    """

    components: dict[str, dict[str, object]] = field(
        default_factory=lambda: {family: {} for family in FAMILIES}
    )
    #: entry-point names of the third-party plugins that were loaded
    plugins: dict[str, str] = field(default_factory=dict)
    alias_names: dict[str, dict[str, str]] = field(
        default_factory=lambda: {family: {} for family in FAMILIES}
    )

    def add(self, family: str, component, origin: str, aliases: Iterable[str] = ()) -> None:
        """Add ``component`` (and its ``aliases``) to ``family``.

        :raises RegistryError: wrong component type, or a name or alias already taken
            (the message names both registrants).
        """
        expected = FAMILIES[family]
        if not isinstance(component, expected):
            raise RegistryError(
                f"{origin} registered {component!r} through the {family} hook; "
                f"expected an evalkit.components.{expected.__name__}"
            )
        if isinstance(aliases, str):
            aliases = (aliases,)
        aliases = tuple(aliases)
        if not valid_name(family, component.name):
            raise RegistryError(f"{origin}: invalid {family} name {component.name!r}: {_NAME_RULE[family == 'preset']}")
        for alias in aliases:
            if not isinstance(alias, str) or not alias or alias == component.name:
                raise RegistryError(f"{origin}: invalid alias {alias!r} for {family} '{component.name}'")
            if not valid_name(family, alias):
                raise RegistryError(f"{origin}: invalid alias {alias!r} for {family} '{component.name}': "
                                    f"{_NAME_RULE[family == 'preset']}")
        for name in (component.name, *aliases):
            first = self._owner(family, name)
            if first is not None:
                raise RegistryError(
                    f"duplicate {family} name '{name}': registered by {first} and by {origin}"
                )
        self.components[family][component.name] = replace_origin(component, origin)
        for alias in aliases:
            self.alias_names[family][alias] = component.name

    def _owner(self, family: str, name: str) -> str | None:
        """Origin of whatever holds ``name`` in ``family`` (component or alias), or ``None``."""
        table = self.components[family]
        if name in table:
            return table[name].origin
        target = self.alias_names[family].get(name)
        return None if target is None else f"{table[target].origin} (alias of '{target}')"

    def get(self, family: str, name: str):
        """Return the component named (or aliased) ``name``.

        :raises FlavourError: unknown name; the message lists the known names.
        """
        table = self.components[family]
        hit = table.get(name)
        if hit is None:
            target = self.alias_names[family].get(name)
            if target is not None:
                return table[target]
            raise FlavourError(unknown_name_message(family, name, sorted(table), self.alias_names[family]))
        return hit

    def names(self, family: str) -> list[str]:
        """The components' own names (not their aliases), sorted."""
        return sorted(self.components[family])

    def aliases(self, family: str) -> dict[str, str]:
        """``{alias: component name}`` of ``family``."""
        return dict(self.alias_names[family])

    def is_alias(self, family: str, name: str) -> bool:
        """``True`` if ``name`` is an alias, or a component that at its default
        parameters equals another one (its ``same_as``: ``log`` is ``log2``). Tools that
        enumerate components (``identify``) skip these names."""
        if name in self.alias_names[family]:
            return True
        comp = self.components[family].get(name)
        return getattr(comp, "same_as", None) is not None

    def metric(self, name: str) -> Metric:
        return self.get("metric", name)

    def preset(self, name: str) -> Preset:
        return self.get("preset", name)


def registry_or_default(registry: Registry | None) -> Registry:
    """``registry``, or the process-wide :func:`default_registry` when it is ``None``
    (the one way public functions taking ``registry=None`` pick theirs)."""
    return default_registry() if registry is None else registry


def _disabled_from_env() -> bool | frozenset[str]:
    value = os.environ.get(DISABLE_ENV, "").strip()
    if not value or value.lower() in ("0", "false", "no"):
        return False
    if value.lower() in ("1", "true", "yes", "all"):
        return True
    return frozenset(v.strip() for v in value.split(",") if v.strip())


def _normalise_disable(disable_plugins) -> bool | frozenset[str]:
    """``None`` -> the environment variable; a string is a comma-separated list of
    entry-point names (not an iterable of characters); other iterables -> frozenset."""
    if disable_plugins is None:
        return _disabled_from_env()
    if disable_plugins is True or disable_plugins is False:
        return disable_plugins
    if isinstance(disable_plugins, str):
        return frozenset(v.strip() for v in disable_plugins.split(",") if v.strip())
    return frozenset(disable_plugins)


def _entry_points() -> Iterable[md.EntryPoint]:
    return md.entry_points(group=ENTRY_POINT_GROUP)


def build_registry(disable_plugins: bool | Iterable[str] | None = None) -> Registry:
    """Build a fresh registry.

    :param disable_plugins: ``True`` loads no third-party plugin; an iterable of
        entry-point names blocks those; ``None`` (default) reads ``EVALKIT_DISABLE_PLUGINS``.
    :raises RegistryError: a plugin fails to import (the message names its
        distribution), registers a duplicate name, implements an unknown hook or a
        wrapper, or its hook fails. Presets are not parsed here: see
        :func:`evalkit.presets.check_presets`.
    """
    disable_plugins = _normalise_disable(disable_plugins)

    pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    origins: dict[int, str] = {}

    import importlib

    for modname in DEFAULT_PLUGINS:
        module = importlib.import_module(modname)
        pm.register(module, name=modname)
        origins[id(module)] = BUILTIN_ORIGIN

    registry = Registry()
    if disable_plugins is not True:
        blocked = disable_plugins or set()
        for ep in _entry_points():
            if ep.name in blocked or pm.is_blocked(ep.name):
                continue
            dist = getattr(ep, "dist", None)
            dist_label = f"{dist.name} {dist.version}" if dist is not None else "unknown distribution"
            origin = f"{dist_label} (entry point '{ep.name}')"
            if pm.has_plugin(ep.name):
                # Two distributions declare the same entry-point name: loading only
                # one of them would silently drop the other's components.
                first = registry.plugins.get(ep.name, ep.name)
                raise RegistryError(
                    f"duplicate evalkit plugin name '{ep.name}': declared by {first} and by {origin}"
                )
            try:
                plugin = ep.load()
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - any import failure is reported
                # SystemExit too: a plugin calling sys.exit() at import would otherwise end
                # every command silently with its status. KeyboardInterrupt is the user's.
                raise RegistryError(
                    f"evalkit plugin from distribution {dist_label} (entry point '{ep.name}' = "
                    f"{ep.value}) failed to import: {_describe(exc)}. "
                    f"Uninstall it or set {DISABLE_ENV}={ep.name}"
                ) from exc
            try:
                pm.register(plugin, name=ep.name)
            except pluggy.PluginValidationError as exc:
                raise RegistryError(f"{origin}: invalid plugin: {exc}") from exc
            origins[id(plugin)] = origin
            registry.plugins[ep.name] = origin
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        who = origins.get(id(exc.plugin), getattr(exc.plugin, "__name__", repr(exc.plugin)))
        raise RegistryError(f"{who} implements an unknown hook: {exc}") from exc

    # Call each implementation once, individually, so that every component is
    # attributed to the plugin that registered it.
    for family, hook_name in _HOOK_FOR_FAMILY.items():
        hook = getattr(pm.hook, hook_name)
        for impl in hook.get_hookimpls():  # in registration order
            origin = origins.get(id(impl.plugin), impl.plugin_name)
            _call_registration(registry, family, hook_name, impl, origin)
    # Presets are flavour strings, parsed where presets are expanded
    # (evalkit.presets.expand_spec / check_presets, which the CLI runs at start-up):
    # the flavour grammar is a layer above the registry, which does not import it.
    probe_registry(registry)
    return registry


def _call_registration(registry: Registry, family: str, hook_name: str, impl, origin: str) -> None:
    """Call one hook implementation the way pluggy calls it: with only the arguments
    it declares (a hookimpl may take fewer than the spec), then register what it
    returns (an iterable of components or ``(component, aliases)`` pairs) besides what
    it passed to ``register``. Wrapper implementations are refused: a registration
    hook has no result to wrap, and a wrapper would be called with a different
    protocol."""
    if impl.hookwrapper or getattr(impl, "wrapper", False):
        kind = "hookwrapper=True" if impl.hookwrapper else "wrapper=True"
        raise RegistryError(
            f"{origin}: {hook_name} is declared with @hookimpl({kind}); evalkit's registration "
            f"hooks take plain implementations only (remove '{kind}')"
        )

    def register(component, aliases: Iterable[str] = ()) -> None:
        registry.add(family, component, origin, aliases)

    available = {"register": register}
    try:
        returned = impl.function(*[available[name] for name in impl.argnames])
        if returned is not None:
            if isinstance(returned, (str, bytes)) or not hasattr(returned, "__iter__"):
                raise RegistryError(
                    f"{origin}: {hook_name} returned {returned!r}; return None or an iterable of "
                    f"components (or (component, aliases) pairs)"
                )
            for item in returned:
                if isinstance(item, tuple) and len(item) == 2 and not isinstance(item[1], str) \
                        and not isinstance(item[0], tuple):
                    register(item[0], item[1])
                else:
                    register(item)
    except RegistryError:
        raise
    except (Exception, SystemExit) as exc:  # a plugin's hook crashed (or exited): say whose
        raise RegistryError(f"{origin}: {hook_name} failed: {_describe(exc)}") from exc


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"it called sys.exit({exc.code!r})"
    return f"{type(exc).__name__}: {exc}"


@functools.lru_cache(maxsize=4)
def _cached(disable: bool | frozenset[str]) -> Registry:
    return build_registry(disable_plugins=disable)


def default_registry(disable_plugins: bool | Iterable[str] | None = None) -> Registry:
    """The process-wide registry for a given ``disable_plugins`` setting (built once)."""
    return _cached(_normalise_disable(disable_plugins))


#: an unknown name's message lists every known name up to this many, else the closest
LIST_ALL_UP_TO = 20


def unknown_name_message(family: str, name: str, known: list[str], aliases=()) -> str:
    """``unknown gain 'exp' (known: binary, exp2, ...); did you mean: exp2?``: the known
    names when they are few (else how many, and where to list them), and the closest
    of the family's names and aliases (``difflib``)."""
    import difflib

    pool = sorted(set(known) | set(aliases))
    close = difflib.get_close_matches(name, pool, n=5, cutoff=0.6)
    hint = f"; did you mean: {', '.join(close)}?" if close else ""
    if len(known) <= LIST_ALL_UP_TO:
        listed = ", ".join(known) or "none"
        return f"unknown {family} '{name}' (known: {listed}){hint}"
    where = "`evalkit flavours` lists them" if family == "preset" else "`evalkit plugins` lists them"
    return f"unknown {family} '{name}' ({len(known)} known; {where}){hint}"
