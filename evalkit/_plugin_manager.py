""":class:`evalkit.registry.PluginManager`, defined when a registry first needs pluggy
(a third-party plugin to load, or every built-in registered through pluggy:
``build_registry(lazy=False)``; issue 27): a start with no plugin imports neither pluggy
nor :mod:`evalkit.hookspecs`. :mod:`evalkit.registry` gives it by name (PEP 562); its
``__module__`` is ``evalkit.registry``."""

from __future__ import annotations

from typing import Any

import pluggy

from . import hookspecs  # noqa: F401 - marks the built-ins' hook implementations (evalkit._builtin_hookimpl)

PluginValidationError = pluggy.PluginValidationError


class PluginManager(pluggy.PluginManager):
    """pluggy's plugin manager, reading only the ``evalkit_*`` attributes of evalkit's
    built-in modules (their hook implementations; ``tests/test_builtin_index.py`` checks
    that pluggy finds no other): pluggy reads every attribute of a plugin with
    :func:`inspect.getattr_static`, a tenth of a millisecond per built-in module.
    Third-party plugins are read as pluggy reads them (a hook implementation may have
    another name, ``@hookimpl(specname=...)``)."""

    #: the names of the built-in modules (:data:`evalkit.registry.DEFAULT_PLUGINS`; set
    #: by :mod:`evalkit.registry`, which this module does not import)
    builtin_modules: frozenset[str] = frozenset()

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        if not name.startswith("evalkit_") and getattr(plugin, "__name__", None) in self.builtin_modules:
            return None
        return super().parse_hookimpl_opts(plugin, name)


PluginManager.__module__ = "evalkit.registry"
