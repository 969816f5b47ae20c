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

A third-party plugin that fails to import, to register its components (a hook that
raises, a duplicate name, an invalid hook implementation) or evalkit's start-up probe
of one of its components is *disabled*, not fatal: its components are removed, one
:class:`~evalkit.errors.PluginDisabledWarning` names it, why, and the variable or
flag that stops loading it, and every other plugin and built-in keeps working
(``build_registry(strict=True)`` raises the :class:`RegistryError` instead, for a
plugin's own tests). Asking for a component of a disabled plugin raises
:class:`~evalkit.errors.DisabledPluginError` naming the plugin and the reason.
While a plugin's module is imported and its hooks run, ``print`` goes to standard
error, so nothing a plugin prints reaches machine-readable output.

evalkit's own modules (:data:`DEFAULT_PLUGINS`) are imported and registered when a
name of theirs is first asked for (:class:`Registry`; :mod:`evalkit.builtin_index`
says which module holds each name), so a command imports only the library modules
it uses, registering it directly (its ``@hookimpl`` functions called as pluggy calls
them; pluggy's manager registers every built-in module in ``build_registry(lazy=False)``,
which the tests compare with); third-party plugins are loaded, registered (pluggy's
``PluginManager``, made only when there is one) and probed at build.
"""

from __future__ import annotations

import functools
import os
import sys
import re
import stat
import warnings
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from .components import FAMILIES, Metric, Preset, replace_origin
from .errors import DISABLE_ENV, DisabledPluginError, FlavourError, PluginDisabledWarning, RegistryError
from .isolation import stdout_to_stderr

if TYPE_CHECKING:  # pragma: no cover
    import importlib.metadata as md

    from pluggy import PluginValidationError

    from ._cached_entry_point import CachedEntryPoint
    from ._plugin_manager import PluginManager
    from ._disabled_plugin import DisabledPlugin

ENTRY_POINT_GROUP = "evalkit"

#: Modules that hold the built-in components, registered directly (not via entry
#: points), as simonw/llm's ``DEFAULT_PLUGINS``: the generic components of
#: :mod:`evalkit.builtins`, the engines, then one module per library family
#: (:data:`evalkit.libraries.MODULES`: presets, name mappings, quirk components).
DEFAULT_PLUGINS = (
    "evalkit.builtins.gains",
    "evalkit.builtins.discounts",
    "evalkit.builtins.idcg",
    "evalkit.builtins.ties",
    "evalkit.builtins.metrics",
    "evalkit.builtins.diversity",
    "evalkit.builtin_backends",
    "evalkit.builtins.stages",
    "evalkit.libraries.trec_eval",
    "evalkit.libraries.sklearn",
    "evalkit.libraries.ranx",
    "evalkit.libraries.ir_measures",
    "evalkit.libraries.papers",
    "evalkit.libraries.ltr",
    "evalkit.libraries.gdeval",
    "evalkit.libraries.spark",
    "evalkit.libraries.ndeval",
    "evalkit.libraries.recsys",
    "evalkit.libraries.embedding_benchmarks",
    "evalkit.libraries.search_engines",
    "evalkit.libraries.label_rules",
    "evalkit.builtins.trec_eval_measures",
    "evalkit.libraries.trec_eval_measures",
)

_BUILTIN_MODULES = frozenset(DEFAULT_PLUGINS)



# PluginManager (pluggy's, reading only the evalkit_* attributes of a built-in module) is
# defined in evalkit._plugin_manager when a registry first needs pluggy (PEP 562
# __getattr__ below): a start with no third-party plugin imports neither pluggy nor
# evalkit.hookspecs.


_HOOK_FOR_FAMILY = {
    "gain": "evalkit_register_gains",
    "discount": "evalkit_register_discounts",
    "idcg": "evalkit_register_idcg_strategies",
    "ties": "evalkit_register_tie_policies",
    "metric": "evalkit_register_metrics",
    "preset": "evalkit_register_presets",
    "engine": "evalkit_register_engines",
    "grades": "evalkit_register_grade_rules",
    "negative": "evalkit_register_negative_rules",
    "run_filter": "evalkit_register_run_filters",
    "outcome": "evalkit_register_outcomes",
    "aggregate": "evalkit_register_aggregates",
    "divergence": "evalkit_register_divergences",
}

BUILTIN_ORIGIN = "evalkit (built-in)"

#: A preset name: identifiers joined by dots or hyphens, optionally ending in ``-``
#: (``trec_eval.ndcg_cut``, XGBoost's ``xgboost.ndcg-``): what this pattern matches,
#: checked with string methods (:func:`_preset_name`; no pattern compiled at start-up)
PRESET_NAME_PATTERN = r"[A-Za-z_][A-Za-z0-9_]*(?:[.-][A-Za-z_0-9]+)*-?\Z"


def _preset_name(name: str) -> bool:
    """Whether the ASCII string ``name`` matches :data:`PRESET_NAME_PATTERN`."""
    first, *rest = (name[:-1] if name.endswith("-") else name).replace("-", ".").split(".")
    return first.isidentifier() and all(part and part.replace("_", "a").isalnum() for part in rest)

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
        return _preset_name(name)
    return name.isidentifier()


# DisabledPlugin (a plugin disabled at start-up) is defined in evalkit._disabled_plugin,
# imported when a plugin fails (PEP 562 __getattr__ below).


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


class Registry:
    """Every known component, by family and name.

    ``components[family][name]`` is the component object; each has ``origin`` set to
    ``"evalkit (built-in)"`` or ``"<distribution> <version> (entry point <name>)"``.
    ``alias_names[family][alias]`` is the name of the component an alias stands for
    (``register(component, aliases=(...))``); :meth:`get` resolves aliases,
    :meth:`names` lists only the components' own names.

    A registry from :func:`build_registry` loads evalkit's built-in modules
    (:data:`DEFAULT_PLUGINS`) when they are first needed: :meth:`get`, :meth:`find`,
    :meth:`is_alias` and :meth:`add` import and register (its hook implementations
    called as at build, :class:`_PendingBuiltins`) only the module that holds the name asked for
    (:mod:`evalkit.builtin_index`, generated from the eagerly built registry and pinned
    by ``tests/test_builtin_index.py``); ``components``, ``alias_names``,
    :meth:`names`, :meth:`aliases`, an unknown name and pickling load every one first,
    and then list the components in the order an eager build registers them
    (the built-ins in :data:`DEFAULT_PLUGINS` order, then the plugins').
    """

    def __init__(self, components: dict[str, dict[str, Any]] | None = None, plugins: dict[str, str] | None = None,
                 alias_names: dict[str, dict[str, str]] | None = None,
                 disabled: list[DisabledPlugin] | None = None) -> None:
        self._components: dict[str, dict[str, Any]] = \
            {family: {} for family in FAMILIES} if components is None else components
        #: entry-point names of the third-party plugins that were loaded
        self.plugins: dict[str, str] = {} if plugins is None else plugins
        self._alias_names: dict[str, dict[str, str]] = \
            {family: {} for family in FAMILIES} if alias_names is None else alias_names
        #: third-party plugins disabled at build (they failed to import, register or the probe)
        self.disabled: list[DisabledPlugin] = [] if disabled is None else disabled
        #: the built-in modules not loaded yet (``None``: none pending)
        self._builtins: _PendingBuiltins | None = None

    @property
    def components(self) -> dict[str, dict[str, Any]]:
        """``{family: {name: component}}``, every built-in module loaded."""
        self._load_all()
        return self._components

    @components.setter
    def components(self, value: dict[str, dict[str, Any]]) -> None:
        self._load_all()
        self._components = value

    @property
    def alias_names(self) -> dict[str, dict[str, str]]:
        """``{family: {alias: component name}}``, every built-in module loaded."""
        self._load_all()
        return self._alias_names

    @alias_names.setter
    def alias_names(self, value: dict[str, dict[str, str]]) -> None:
        self._load_all()
        self._alias_names = value

    def __repr__(self) -> str:
        pending = 0 if self._builtins is None else len(self._builtins.modules)
        loaded = sum(len(table) for table in self._components.values())
        return (f"Registry({loaded} components, {pending} built-in modules not loaded yet, "
                f"plugins={self.plugins!r}, disabled={self.disabled!r})")

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (the Spark backend ships a registry to its executors) with every
        built-in module loaded, as a plain table."""
        self._load_all()
        return {**self.__dict__, "_builtins": None}

    def add(self, family: str, component: Any, origin: str, aliases: Iterable[str] = ()) -> None:
        """Add ``component`` (and its ``aliases``) to ``family``.

        :raises RegistryError: wrong component type, or a name or alias already taken
            (the message names both registrants; a built-in name counts as taken
            whether or not its module is loaded yet).
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
            if origin != BUILTIN_ORIGIN:
                self._load_holder(family, name)  # a built-in of that name registers first, as in an eager build
            first = self._owner(family, name)
            if first is not None:
                raise RegistryError(
                    f"duplicate {family} name '{name}': registered by {first} and by {origin}"
                )
        self._components[family][component.name] = replace_origin(component, origin)
        for alias in aliases:
            self._alias_names[family][alias] = component.name

    def _owner(self, family: str, name: str) -> str | None:
        """Origin of whatever holds ``name`` in ``family`` (component or alias), or ``None``."""
        table = self._components[family]
        if name in table:
            return table[name].origin
        target = self._alias_names[family].get(name)
        return None if target is None else f"{table[target].origin} (alias of '{target}')"

    def find(self, family: str, name: str) -> Any:
        """The component named (or aliased) ``name``, or ``None``: :meth:`get` without
        the error, loading at most the built-in module that holds ``name``."""
        table = self._components[family]
        hit = table.get(name)
        if hit is None:
            target = self._alias_names[family].get(name)
            if target is not None:
                return table[target]
            if self._load_holder(family, name):
                return self.find(family, name)
        return hit

    def get(self, family: str, name: str) -> Any:
        """Return the component named (or aliased) ``name``.

        :raises FlavourError: unknown name; the message lists the known names.
        """
        hit = self.find(family, name)
        if hit is None:
            for plugin in self.disabled:
                if (family, name) in plugin.components:
                    raise DisabledPluginError(
                        f"{family} '{name}' comes from plugin '{plugin.name}' ({plugin.origin}), which evalkit "
                        f"disabled at start-up: {plugin.reason}")
            unknown = [p for p in self.disabled if not p.components]
            maybe = "".join(f"; plugin '{p.name}' ({p.origin}), which may provide it, is disabled: {p.reason}"
                            for p in unknown)
            table = self.components[family]  # every name, for the message
            raise FlavourError(unknown_name_message(family, name, sorted(table), self._alias_names[family]) + maybe)
        return hit

    def disable(self, name: str, origin: str, reason: str) -> DisabledPlugin:
        """Remove every component (and alias) registered by ``origin`` and record the
        plugin as disabled; returns the record (its :meth:`DisabledPlugin.warning` is
        the message to show)."""
        dropped = []
        for family, table in self._components.items():  # built-in modules not loaded yet hold none of them
            gone = [n for n, comp in table.items() if comp.origin == origin]
            for n in gone:
                del table[n]
                dropped.append((family, n))
            aliases = self._alias_names[family]
            for alias in [a for a, target in aliases.items() if target in gone]:
                del aliases[alias]
                dropped.append((family, alias))
        if self.plugins.get(name) == origin:  # not another distribution's plugin of that name
            del self.plugins[name]
        from ._disabled_plugin import DisabledPlugin

        record = DisabledPlugin(name, origin, _one_line(reason), tuple(dropped))
        self.disabled.append(record)
        return record

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
        self._load_holder(family, name)
        if name in self._alias_names[family]:
            return True
        comp = self._components[family].get(name)
        return getattr(comp, "same_as", None) is not None

    def third_party(self, family: str) -> list[Any]:
        """The components of ``family`` that third-party plugins registered (loaded when
        the registry was built), in registration order; no built-in module is loaded."""
        return [comp for comp in self._components[family].values() if comp.origin != BUILTIN_ORIGIN]

    def metric(self, name: str) -> Metric:
        return self.get("metric", name)

    def preset(self, name: str) -> Preset:
        return self.get("preset", name)

    def presets_with_divergences(self, metrics: Iterable[str] | None = None) -> list[Preset]:
        """The presets that declare a divergence (:meth:`Preset.divergences`), in the
        order of ``components["preset"]``; with ``metrics``, the built-in ones only
        where the preset's metric is one of these names (a preset of another metric
        cannot have the flavour of a measure of these), so that no other built-in
        module is loaded. Third-party presets are all returned (they are loaded)."""
        from . import builtin_index as index

        wanted = None if metrics is None else set(metrics)
        modules = [module for name, (module, metric) in index.DIVERGING_PRESETS.items()
                   if wanted is None or metric in wanted]
        self._load(modules)
        out = [p for p in self._components["preset"].values()
               if (wanted is None or p.origin != BUILTIN_ORIGIN
                   or index.DIVERGING_PRESETS.get(p.name, ("", ""))[1] in wanted) and p.divergences()]
        if len(out) < 2:  # nothing to order: no name-to-order dict over every preset name
            return out
        order = {name: i for i, name in enumerate(index.NAMES["preset"])}
        return sorted(out, key=lambda p: order.get(p.name, len(order)) if p.origin == BUILTIN_ORIGIN
                      else len(order))

    # -- built-in modules loaded when first needed
    def _load_holder(self, family: str, name: str) -> bool:
        """Load the built-in module that registers ``name`` in ``family`` if it is not
        loaded yet; ``True`` if one was loaded."""
        pending = self._builtins
        if pending is None:
            return False
        module = pending.holder(family, name)
        if module is None:
            return False
        self._load((module,))
        return True

    def _load_all(self) -> None:
        pending = self._builtins
        if pending is not None:
            self._load(tuple(pending.modules))

    def _load(self, modules: Iterable[str]) -> None:
        pending = self._builtins
        if pending is None:
            return
        with pending.lock:
            for module in modules:
                if module in pending.modules:
                    pending.load(self, module)
            if not pending.modules and self._builtins is pending:
                self._in_eager_order()
                self._builtins = None  # every built-in loaded: the plugin manager is no longer needed

    def _in_eager_order(self) -> None:
        """Reorder every table as an eager build fills it: the built-ins in their
        registration order (:mod:`evalkit.builtin_index`), then the others as added.
        In place: a table handed out before stays the registry's."""
        from . import builtin_index as index

        for tables, order in ((self._components, index.NAMES), (self._alias_names, index.ALIASES)):
            for family, table in tables.items():
                builtin = [n for n in order.get(family, ()) if n in table]
                if list(table)[:len(builtin)] == builtin:
                    continue
                first = set(builtin)
                items = [(n, table[n]) for n in builtin] + [(n, v) for n, v in table.items() if n not in first]
                table.clear()
                table.update(items)


class _PendingBuiltins:
    """The built-in modules a lazily built :class:`Registry` has not loaded yet.

    A built-in module is registered directly: its hook implementations are its
    ``evalkit_register_*`` functions (pluggy's ``@hookimpl``), called as
    :func:`build_registry` calls every plugin's, without a plugin manager (adding the
    hook specifications and ``pm.register`` inspecting each module cost a start-up
    more than its registration). ``tests/test_builtin_index.py`` checks that pluggy's
    manager finds exactly these implementations, with these arguments, and that a
    registry loaded so equals one whose built-ins pluggy registered
    (``build_registry(lazy=False)``)."""

    def __init__(self, modules: Iterable[str]) -> None:
        import _thread

        self.modules = dict.fromkeys(modules)  # an ordered set
        self.lock = _thread.RLock()  # two threads asking for one module register it once (what
        # threading.RLock() returns; called directly, evaluating imports no threading)

    def holder(self, family: str, name: str) -> str | None:
        """The pending module that registers ``name`` (a name or an alias) in ``family``."""
        from . import builtin_index as index

        module = index.NAMES.get(family, {}).get(name)
        if module is None:
            target = index.ALIASES.get(family, {}).get(name)
            module = None if target is None else index.NAMES[family][target]
        return module if module in self.modules else None

    def load(self, registry: Registry, modname: str) -> None:
        """Import ``modname`` and call its hook implementations (:func:`builtin_hookimpls`),
        family by family, as :func:`build_registry` calls every plugin's."""
        import importlib

        del self.modules[modname]
        module = importlib.import_module(modname)
        for family, hook_name, impl in builtin_hookimpls(module):
            _call_registration(registry, family, hook_name, impl, BUILTIN_ORIGIN)


class _BuiltinImpl:
    """What :func:`_call_registration` reads of a pluggy ``HookImpl``, for a built-in's
    plain hook implementation."""

    __slots__ = ("function", "argnames")
    hookwrapper = wrapper = False

    def __init__(self, function: Any, argnames: tuple[str, ...]) -> None:
        self.function = function
        self.argnames = argnames


def builtin_hookimpls(module: Any) -> list[tuple[str, str, Any]]:
    """``(family, hook name, implementation)`` of each hook a built-in module implements,
    in :data:`_HOOK_FOR_FAMILY` order: its function named after the hook, called with
    its positional parameters without a default (as pluggy calls a hook implementation)."""
    found = []
    for family, hook_name in _HOOK_FOR_FAMILY.items():
        function = getattr(module, hook_name, None)
        if function is not None:
            code = function.__code__
            argnames = code.co_varnames[:code.co_argcount - len(function.__defaults__ or ())]
            found.append((family, hook_name, _BuiltinImpl(function, argnames)))
    return found


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


def _normalise_disable(disable_plugins: bool | str | Iterable[str] | None) -> bool | frozenset[str]:
    """``None`` -> the environment variable; a string is a comma-separated list of
    entry-point names (not an iterable of characters); other iterables -> frozenset."""
    if disable_plugins is None:
        return _disabled_from_env()
    if disable_plugins is True or disable_plugins is False:
        return disable_plugins
    if isinstance(disable_plugins, str):
        return frozenset(v.strip() for v in disable_plugins.split(",") if v.strip())
    return frozenset(disable_plugins)


def _entry_points() -> Iterable[md.EntryPoint | CachedEntryPoint]:
    """The ``evalkit`` entry points of the installed distributions: from the cache of a
    previous process when no distribution has changed since (:func:`cached_entry_points`),
    else found by :mod:`importlib.metadata` (and cached)."""
    return cached_entry_points(ENTRY_POINT_GROUP)


#: where the entry-point cache is kept: ``$EVALKIT_CACHE_DIR``, else
#: ``$XDG_CACHE_HOME/evalkit``, else ``~/.cache/evalkit``
CACHE_ENV = "EVALKIT_CACHE_DIR"

#: what :func:`cached_entry_points` looks at in each folder of ``sys.path``
_METADATA_SUFFIXES = (".dist-info", ".egg-info", ".egg-link", ".pth")


# CachedEntryPoint and CachedDistribution (the entry points read back from the cache) are
# defined in evalkit._cached_entry_point, imported when the cache holds one (PEP 562
# __getattr__ below).


def _cache_dir() -> str | None:
    """Where the entry-point cache lives (:data:`CACHE_ENV`), or ``None`` when there is
    no absolute place for it (no home folder): then nothing is cached."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "evalkit") if os.path.isabs(base) else None


#: a folder modified less than this long before its listing was cached is listed again
#: at the next start: a change within the same tick of the file system's clock leaves
#: its modification time as it was
RACY_NS = 2_000_000_000


def installed_state(previous: Mapping[str, Any] | None = None) -> list[list[Any]]:
    """What identifies the installed distributions' entry points, cheaply: for each
    folder of ``sys.path``, the name of each ``*.dist-info``, ``*.egg-info``,
    ``*.egg-link`` and ``*.pth`` entry with the modification time (ns) of its
    ``entry_points.txt`` (-1 without one; a file's own time) and whether it is a
    folder; a ``sys.path`` entry that is a file (a zip) by its own time. A distribution
    installed, removed, upgraded or reinstalled (pip writes a fresh ``*.dist-info``) or
    an ``entry_points.txt`` edited or removed changes it.

    :param previous: the cache :func:`cached_entry_points` wrote (``state``,
        ``folders``: each folder's modification time, ``taken``: when it was listed).
        A folder whose modification time is unchanged, and was not within
        :data:`RACY_NS` of the listing, holds the same entries (creating, removing or
        renaming one changes it): it is not listed again, and only the
        ``entry_points.txt`` and ``*.pth`` files of its entries are looked at.
    """
    return _scan(previous)[0]


def _scan(previous: Mapping[str, Any] | None) -> tuple[list[list[Any]], dict[str, int]]:
    """``(state, folders)``: :func:`installed_state` and ``{sys.path entry: the folder's
    modification time}``."""
    known: dict[str, list[Any]] = {}
    folders_before: dict[str, Any] = {}
    taken = 0
    try:
        if previous is not None:
            taken = int(previous["taken"])
            folders_before = dict(previous["folders"])
            known = {row[0]: row[1:] for row in previous["state"] if folders_before.get(row[0]) is not None}
    except (KeyError, TypeError, ValueError, IndexError):
        known, folders_before = {}, {}
    state: list[list[Any]] = []
    folders: dict[str, int] = {}
    for entry in sys.path:
        folder = entry or "."
        try:
            st = os.stat(folder)
        except OSError:
            state.append([entry, None])
            continue
        if not stat.S_ISDIR(st.st_mode):
            state.append([entry, st.st_mtime_ns])
            continue
        mtime = folders[entry] = st.st_mtime_ns
        rows = known.get(entry)
        if rows is not None and folders_before.get(entry) == mtime and mtime < taken - RACY_NS:
            try:  # the same entries: only their entry points may have changed
                seen = [[name, -1 if then == -1 else _mtime(os.path.join(folder, name, "entry_points.txt")
                                                           if is_dir else os.path.join(folder, name)), is_dir]
                        for name, then, is_dir in rows]
            except (TypeError, ValueError):
                seen = None  # not a state this function wrote: list the folder
            if seen is not None:
                state.append([entry, *seen])
                continue
        try:
            listed = sorted((e.name, e.is_dir()) for e in os.scandir(folder) if e.name.endswith(_METADATA_SUFFIXES))
        except OSError:
            state.append([entry, None])
            del folders[entry]
            continue
        state.append([entry, *[[name, _mtime(os.path.join(folder, name, "entry_points.txt") if is_dir
                                             else os.path.join(folder, name)), is_dir] for name, is_dir in listed]])
    return state, folders


def _racy(folders: Mapping[str, Any], taken: int) -> bool:
    """Whether a folder was modified within :data:`RACY_NS` of ``taken``."""
    return any(isinstance(m, int) and m >= taken - RACY_NS for m in folders.values())


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


def cached_entry_points(group: str) -> list[md.EntryPoint | CachedEntryPoint]:
    """The entry points of ``group``, in :func:`importlib.metadata.entry_points`' order.

    Finding them means reading every installed distribution's metadata (and importing
    :mod:`importlib.metadata`): tens of milliseconds at every start. The result is kept
    in a text file under :func:`_cache_dir` (:func:`read_cache`; one per interpreter prefix, group and
    ``sys.path``; the :data:`CACHE_FILES` most recent are kept) with
    :func:`installed_state`, and read back while that state is unchanged (a folder of
    ``sys.path`` is listed again only when its modification time changed); otherwise
    (or when the file cannot be read) the distributions are read again and the file
    rewritten (atomically; a cache that cannot be written is skipped silently)."""
    import time

    where = "\0".join([sys.prefix, group, *sys.path]).encode("utf-8", "surrogatepass")
    folder = _cache_dir()
    if folder is None:
        import importlib.metadata

        return list(importlib.metadata.entry_points(group=group))
    path = os.path.join(folder, f"entry-points-{_fnv1a(where):016x}{CACHE_SUFFIX}")
    taken = time.time_ns()  # before the listing: a change while it runs is seen next time
    cached = read_cache(path)
    if cached is not None and cached.get("group") != group:
        cached = None
    state, folders = _scan(cached)
    if cached is not None:
        try:
            if cached["state"] == state:
                found: list[md.EntryPoint | CachedEntryPoint] = []
                if cached["entry_points"]:
                    from ._cached_entry_point import CachedDistribution, CachedEntryPoint

                    found = [CachedEntryPoint(name, value, group, None if dist is None else CachedDistribution(*dist))
                             for name, value, dist in cached["entry_points"]]
                if cached.get("folders") != folders or (_racy(folders, int(cached["taken"]))
                                                        and not _racy(folders, taken)):
                    # a folder changed, not its distributions, or is no longer recent: note it
                    _write_cache(folder, path, {**cached, "folders": folders, "taken": taken})
                return found
        except (TypeError, KeyError, ValueError, AttributeError):
            pass  # an unreadable cache: read the distributions
    import importlib.metadata

    found_eps: list[md.EntryPoint | CachedEntryPoint] = list(importlib.metadata.entry_points(group=group))
    rows = []
    for ep in found_eps:
        dist = getattr(ep, "dist", None)
        rows.append([ep.name, ep.value, None if dist is None else [dist.name, dist.version]])
    _write_cache(folder, path, {"group": group, "state": state, "folders": folders, "taken": taken,
                                "entry_points": rows})
    return found_eps


def _fnv1a(data: bytes) -> int:
    """The 64-bit FNV-1a hash of ``data``: the cache file's name, without importing
    :mod:`zlib` (an extension module) for a checksum of a few hundred bytes. Two
    ``sys.path`` settings of one name share the file and rewrite it in turn (the state
    it holds names every folder)."""
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


#: the entry-point cache's file name ends so and its first line is :data:`CACHE_HEADER`
CACHE_SUFFIX = ".txt"
#: the file names of earlier versions' JSON caches: not read; removed when a cache is written
LEGACY_CACHE_SUFFIX = ".json"
CACHE_HEADER = "evalkit entry-point cache 1"

_ESCAPES = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}


def _escape(field: str) -> str:
    """``field`` with no tab, newline or carriage return (``\\t``, ``\\n``, ``\\r``; ``\\\\``)."""
    return field.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _unescape(field: str) -> str:
    """The inverse of :func:`_escape`; :raises KeyError, IndexError: an invalid escape."""
    if "\\" not in field:
        return field
    out: list[str] = []
    start = 0
    while (at := field.find("\\", start)) >= 0:
        out += (field[start:at], _ESCAPES[field[at + 1]])
        start = at + 2
    out.append(field[start:])
    return "".join(out)


def _cache_text(data: Mapping[str, Any]) -> str:
    """The cache file's text (:func:`read_cache` reads it back): one record a line,
    fields separated by tabs (:func:`_escape`), after :data:`CACHE_HEADER`::

        group <group>
        taken <ns>
        folder <sys.path entry> <ns>    (the ``folders`` mapping, in order)
        missing <entry>                 (a ``state`` row: no such entry)
        file <entry> <ns>               (a ``state`` row: a file, by its time)
        listed <entry> [<name> <ns> <0|1>]...   (a ``state`` row: a folder's entries,
                                        each with its time and whether it is a folder)
        ep <name> <value> [<distribution> <version>]
        end
    """
    lines = [CACHE_HEADER, f"group\t{_escape(data['group'])}", f"taken\t{int(data['taken'])}"]
    lines += [f"folder\t{_escape(entry)}\t{int(mtime)}" for entry, mtime in data["folders"].items()]
    for entry, *rest in data["state"]:
        if rest == [None]:
            lines.append(f"missing\t{_escape(entry)}")
        elif len(rest) == 1 and not isinstance(rest[0], list):
            lines.append(f"file\t{_escape(entry)}\t{int(rest[0])}")
        else:
            lines.append("\t".join(["listed", _escape(entry), *[f"{_escape(name)}\t{int(mtime)}\t{int(is_dir)}"
                                                               for name, mtime, is_dir in rest]]))
    for name, value, dist in data["entry_points"]:
        tail = "" if dist is None else f"\t{_escape(dist[0])}\t{_escape(dist[1])}"
        lines.append(f"ep\t{_escape(name)}\t{_escape(value)}{tail}")
    lines.append("end\n")
    return "\n".join(lines)


_IS_DIR = {"0": False, "1": True}


def read_cache(path: str) -> dict[str, Any] | None:
    """The entry-point cache file at ``path`` (written by :func:`cached_entry_points`)
    as ``{"group", "taken", "folders", "state", "entry_points"}``, or ``None`` when it
    is missing, unreadable, of another version (its first line is not
    :data:`CACHE_HEADER`), truncated (no ``end`` line) or malformed in any way: then
    the distributions are read again and the file rewritten. Parsed with string
    methods (no :mod:`json`, whose import and patterns cost a start-up)."""
    try:
        with open(path, encoding="utf-8", errors="surrogatepass", newline="") as f:
            text = f.read()
    except (OSError, ValueError):
        return None
    lines = text.split("\n")  # not splitlines(): a path may hold \x0b, \x1c, \u2028 ...
    if len(lines) < 5 or lines[0] != CACHE_HEADER or lines[-2:] != ["end", ""]:
        return None
    unescape = _unescape if "\\" in text else str  # str(field) is field
    folders: dict[str, int] = {}
    state: list[list[Any]] = []
    entry_points: list[list[Any]] = []
    try:
        group, taken = lines[1].split("\t"), lines[2].split("\t")
        if group[0] != "group" or taken[0] != "taken" or len(group) != 2 or len(taken) != 2:
            return None
        found = {"group": unescape(group[1]), "taken": int(taken[1]), "folders": folders, "state": state,
                 "entry_points": entry_points}
        for line in lines[3:-2]:
            tag, *fields = line.split("\t")
            if tag == "listed" and len(fields) % 3 == 1:
                state.append([unescape(fields[0]), *[[unescape(fields[i]), int(fields[i + 1]), _IS_DIR[fields[i + 2]]]
                                                     for i in range(1, len(fields), 3)]])
            elif tag == "folder" and len(fields) == 2:
                folders[unescape(fields[0])] = int(fields[1])
            elif tag == "file" and len(fields) == 2:
                state.append([unescape(fields[0]), int(fields[1])])
            elif tag == "missing" and len(fields) == 1:
                state.append([unescape(fields[0]), None])
            elif tag == "ep" and len(fields) in (2, 4):
                name, value, *dist = map(unescape, fields)
                entry_points.append([name, value, dist or None])
            else:
                return None
    except (ValueError, KeyError, IndexError):
        return None
    return found


def _write_cache(folder: str, path: str, data: dict[str, Any]) -> None:
    """Write the cache file atomically; a cache that cannot be written is skipped."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8", errors="surrogatepass", newline="\n") as f:
            f.write(_cache_text(data))
        os.replace(tmp, path)
        _prune(folder)
    except OSError:
        pass  # a read-only home: no cache, the same entry points


#: entry-point cache files kept (one per interpreter, group and ``sys.path``)
CACHE_FILES = 16


def _prune(folder: str) -> None:
    """Remove all but the :data:`CACHE_FILES` most recently written cache files, and
    every cache file of an earlier version (:data:`LEGACY_CACHE_SUFFIX`: never read)."""
    names = [n for n in os.listdir(folder) if n.startswith("entry-points-")]
    files = [os.path.join(folder, n) for n in names if n.endswith(CACHE_SUFFIX)]
    stale = [os.path.join(folder, n) for n in names if n.endswith(LEGACY_CACHE_SUFFIX)]
    if len(files) > CACHE_FILES:
        files.sort(key=_mtime, reverse=True)
        stale += files[CACHE_FILES:]
    for old in stale:
        try:
            os.remove(old)
        except OSError:
            pass  # another process removed it first


def build_registry(disable_plugins: bool | Iterable[str] | None = None, *, strict: bool = False,
                   lazy: bool = True) -> Registry:
    """Build a fresh registry.

    :param disable_plugins: ``True`` loads no third-party plugin; an iterable of
        entry-point names blocks those; ``None`` (default) reads ``EVALKIT_DISABLE_PLUGINS``.
    :param strict: raise on the first failing plugin instead of disabling it (for a
        plugin's own tests).
    :param lazy: ``True`` (default): the built-in modules (:data:`DEFAULT_PLUGINS`) are
        imported and registered when a component of theirs is first asked for
        (:class:`Registry`); third-party plugins are loaded, registered and probed now.
        ``False``: every built-in module is registered now, before the plugins (the
        registry :mod:`evalkit.builtin_index` is generated from). Both give the same
        components, names, origins and errors.
    :raises RegistryError: a built-in component fails (a bug in evalkit); with
        ``strict=True`` also a plugin that fails to import (the message names its
        distribution), registers a duplicate name, implements an unknown hook or a
        wrapper, whose hook fails or whose component fails the probe. Without
        ``strict`` such a plugin is disabled (:class:`DisabledPlugin`, recorded in
        :attr:`Registry.disabled`) with one :class:`~evalkit.errors.PluginDisabledWarning`.
        Presets are not parsed here: a preset is parsed where it is resolved
        (:mod:`evalkit.resolve`), and :func:`evalkit.presets.check_presets` parses them
        all (the tests run it).
    """
    disable_plugins = _normalise_disable(disable_plugins)

    # pluggy's manager, made when a plugin is registered (lazily built, the built-ins are
    # registered directly: _PendingBuiltins; a start with no third-party plugin needs none)
    pm: PluginManager | None = None

    def manager() -> PluginManager:
        nonlocal pm
        if pm is None:
            from . import hookspecs

            pm = sys.modules[__name__].PluginManager(hookspecs.PROJECT_NAME)  # through __getattr__
            pm.add_hookspecs(hookspecs)
        return pm

    origins: dict[int, str] = {}
    ep_names: dict[str, str] = {}  # origin -> entry-point name, for third-party plugins

    registry = Registry()
    if lazy:
        registry._builtins = _PendingBuiltins(DEFAULT_PLUGINS)
    else:
        import importlib

        pm = manager()
        for modname in DEFAULT_PLUGINS:
            module = importlib.import_module(modname)
            pm.register(module, name=modname)
            origins[id(module)] = BUILTIN_ORIGIN

    def fail(name: str, origin: str, error: RegistryError, reason: str) -> None:
        """A third-party plugin failed: raise (strict) or disable it and warn."""
        if strict:
            raise error
        record = registry.disable(name, origin, reason)
        warnings.warn(PluginDisabledWarning(record.warning()), stacklevel=3)

    if disable_plugins is not True:
        blocked: frozenset[str] | set[str] = disable_plugins or set()
        for ep in _entry_points():
            if ep.name in blocked or (pm is not None and pm.is_blocked(ep.name)):
                continue
            dist = getattr(ep, "dist", None)
            dist_label = f"{dist.name} {dist.version}" if dist is not None else "unknown distribution"
            origin = f"{dist_label} (entry point '{ep.name}')"
            if (pm is not None and pm.has_plugin(ep.name)) or (lazy and ep.name in _BUILTIN_MODULES):
                # Two distributions declare the same entry-point name: loading only
                # one of them would silently drop the other's components.
                first = registry.plugins.get(ep.name, ep.name)
                message = f"duplicate evalkit plugin name '{ep.name}': declared by {first} and by {origin}"
                fail(ep.name, origin, RegistryError(message), message)
                continue
            try:
                with stdout_to_stderr():  # a plugin's print is not our output
                    plugin = ep.load()
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - any import failure is reported
                # SystemExit too: a plugin calling sys.exit() at import would otherwise end
                # every command silently with its status. KeyboardInterrupt is the user's.
                error = RegistryError(
                    f"evalkit plugin from distribution {dist_label} (entry point '{ep.name}' = "
                    f"{ep.value}) failed to import: {_describe(exc)}. "
                    f"Uninstall it or set {DISABLE_ENV}={ep.name}"
                )
                error.__cause__ = exc
                fail(ep.name, origin, error, f"it failed to import ({ep.value}): {_describe(exc)}")
                continue
            try:
                manager().register(plugin, name=ep.name)
            except _validation_error() as exc:
                error = RegistryError(f"{origin}: invalid plugin: {exc}")
                error.__cause__ = exc
                fail(ep.name, origin, error, f"invalid plugin: {exc}")
                continue
            origins[id(plugin)] = origin
            ep_names[origin] = ep.name
            registry.plugins[ep.name] = origin
    while pm is not None:
        try:
            pm.check_pending()
            break
        except _validation_error() as exc:
            who = origins.get(id(exc.plugin), getattr(exc.plugin, "__name__", repr(exc.plugin)))
            error = RegistryError(f"{who} implements an unknown hook: {exc}")
            error.__cause__ = exc
            if who not in ep_names:
                raise error from exc
            pm.unregister(exc.plugin)
            fail(ep_names[who], who, error, f"it implements an unknown hook: {exc}")

    # Call each implementation once, individually, so that every component is
    # attributed to the plugin that registered it.
    failed: set[str] = set()
    hooks = pm.hook if pm is not None else None
    for family, hook_name in _HOOK_FOR_FAMILY.items() if hooks is not None else ():
        hook = getattr(hooks, hook_name)
        for impl in hook.get_hookimpls():  # in registration order (the built-ins' first when eager)
            origin = origins.get(id(impl.plugin), impl.plugin_name)
            if origin in failed:
                continue
            try:
                _call_registration(registry, family, hook_name, impl, origin)
            except RegistryError as exc:
                if origin not in ep_names:
                    raise
                failed.add(origin)
                fail(ep_names[origin], origin, exc,
                     "its registration failed: " + str(exc).replace(f"{origin}: ", "", 1))
    # Presets are flavour strings, parsed where they are resolved (evalkit.resolve,
    # at the edge: the CLI, the runner, the public API), not at start-up: the flavour
    # grammar is a layer above the registry, which does not import it.

    def probe_failed(family: str, comp: Any, exc: RegistryError) -> None:
        if comp.origin not in ep_names:
            raise exc
        fail(ep_names[comp.origin], comp.origin, exc, f"{exc}".replace(f"{comp.origin}: ", "", 1))

    # built-ins: in the tests; only the loaded components (the plugins') are probed, and
    # without a plugin there is nothing to probe (evalkit.probe is not imported)
    if registry.plugins:
        from .probe import probe_registry

        probe_registry(registry, on_failure=probe_failed, skip_origin=BUILTIN_ORIGIN, tables=registry._components)
    return registry


def _validation_error() -> type[PluginValidationError]:
    """pluggy's ``PluginValidationError`` (pluggy is imported once a plugin is registered)."""
    from ._plugin_manager import PluginValidationError

    return PluginValidationError


def _call_registration(registry: Registry, family: str, hook_name: str, impl: Any, origin: str) -> None:
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

    def register(component: Any, aliases: Iterable[str] = ()) -> None:
        registry.add(family, component, origin, aliases)

    available = {"register": register}
    try:
        with stdout_to_stderr():  # a plugin's print is not our output
            returned = impl.function(*[available[name] for name in impl.argnames])
            if returned is not None:
                if isinstance(returned, (str, bytes)) or not hasattr(returned, "__iter__"):
                    raise RegistryError(
                        f"{origin}: {hook_name} returned {returned!r}; return None or an iterable of "
                        f"components (or (component, aliases) pairs)"
                    )
                for item in returned:  # a generator's body runs here
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


def unknown_name_message(family: str, name: str, known: list[str], aliases: Iterable[str] = ()) -> str:
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


def builtin_index_source() -> str:
    """The text of :mod:`evalkit.builtin_index`: which built-in module registers each
    built-in name, alias and divergence-declaring preset, read from a registry of the
    built-ins built eagerly (``build_registry(disable_plugins=True, lazy=False)``), in
    its order. ``tests/test_builtin_index.py`` compares the file with it; after adding
    or renaming a built-in component, write it again::

        python -c "import evalkit.registry as r; open('evalkit/builtin_index.py', 'w').write(r.builtin_index_source())"
    """
    eager = build_registry(disable_plugins=True, lazy=False)
    module_of: dict[tuple[str, str], str] = {}
    for modname in DEFAULT_PLUGINS:  # each module's own hooks, alone
        alone = Registry()
        _PendingBuiltins((modname,)).load(alone, modname)
        for family, table in alone._components.items():
            module_of.update({(family, name): modname for name in table})
    names = {family: {name: module_of[family, name] for name in table}
             for family, table in eager.components.items() if table}
    aliases = {family: dict(table) for family, table in eager.alias_names.items() if table}
    diverging = {}
    for preset in eager.components["preset"].values():
        if preset.divergences():
            head = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)", preset.spec)
            metric = eager.get("metric", head.group(1)).name if head else ""
            diverging[preset.name] = (module_of["preset", preset.name], metric)

    def lit(value: Any) -> str:  # double quotes, as the code
        import json

        return f"({', '.join(map(lit, value))})" if isinstance(value, tuple) else json.dumps(value)

    def block(value: dict[str, Any], indent: str) -> str:
        rows = "".join(f"{indent}    {lit(k)}: {lit(v)},\n" for k, v in value.items())
        return "{\n" + rows + indent + "}"

    lines = [
        '"""Which built-in module registers each built-in name: the index a lazily built',
        ":class:`evalkit.registry.Registry` loads its built-in modules by.",
        "",
        "Generated by :func:`evalkit.registry.builtin_index_source` from a registry of the",
        "built-ins built eagerly; ``tests/test_builtin_index.py`` fails when it differs.",
        "Do not edit by hand.",
        '"""',
        "",
        "#: ``{family: {component name: module}}``, in the order an eager build registers them",
        "NAMES: dict[str, dict[str, str]] = {",
        *[f"    {lit(family)}: {block(value, '    ')}," for family, value in names.items()],
        "}",
        "",
        "#: ``{family: {alias: component name}}``, in registration order",
        "ALIASES: dict[str, dict[str, str]] = {",
        *[f"    {lit(family)}: {block(value, '    ')}," for family, value in aliases.items()],
        "}",
        "",
        "#: ``{preset name: (module, metric)}`` of the presets that declare a divergence",
        f"DIVERGING_PRESETS: dict[str, tuple[str, str]] = {block(diverging, '')}",
        "",
    ]
    return "\n".join(lines)


def __getattr__(name: str) -> Any:
    """:class:`DisabledPlugin` (:mod:`evalkit._disabled_plugin`), defined on first use
    (PEP 562, issue 27): a command whose plugins all load does not create it; so are
    :class:`CachedEntryPoint` and :class:`CachedDistribution`
    (:mod:`evalkit._cached_entry_point`), which a start with no plugin installed does not
    need, and :class:`PluginManager` (:mod:`evalkit._plugin_manager`, importing pluggy),
    which only a third-party plugin or ``build_registry(lazy=False)`` needs."""
    if name == "DisabledPlugin":
        from ._disabled_plugin import DisabledPlugin

        globals()[name] = DisabledPlugin  # later lookups skip __getattr__
        return DisabledPlugin
    if name in ("CachedEntryPoint", "CachedDistribution"):  # likewise, for a cache holding entry points
        from . import _cached_entry_point

        globals()[name] = value = getattr(_cached_entry_point, name)
        return value
    if name == "PluginManager":  # likewise, for a plugin or an eager build (pluggy, evalkit.hookspecs)
        from ._plugin_manager import PluginManager

        PluginManager.builtin_modules = _BUILTIN_MODULES
        globals()[name] = PluginManager
        return PluginManager
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"DisabledPlugin", "CachedEntryPoint", "CachedDistribution", "PluginManager"})
