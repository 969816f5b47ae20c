"""The component registry of a command (``--no-plugins`` honoured): what every command
module calls. A module of its own so that the command modules, which the package
``__init__`` loads, do not import the package back (no import cycle).
"""

from __future__ import annotations

import argparse
import warnings
from typing import TYPE_CHECKING, Any

from ..errors import PluginDisabledWarning

if TYPE_CHECKING:  # pragma: no cover
    from ..registry import Registry


def registry_for(args: argparse.Namespace) -> Registry:
    """The component registry, honouring ``--no-plugins``. Built-in presets are not
    parsed here (the tests parse every registered one); a third-party plugin's presets
    are (a few strings), and a plugin whose preset does not parse is disabled with one
    ``evalkit: warning:`` line, as a plugin that fails to load is
    (:func:`evalkit.registry.build_registry`)."""
    from ..registry import default_registry

    registry = default_registry(disable_plugins=True if getattr(args, "no_plugins", False) else None)
    disable_broken_presets(registry)
    return registry


def disable_broken_presets(registry: Any) -> None:
    """Parse each third-party plugin's presets once; disable (with a
    :class:`~evalkit.errors.PluginDisabledWarning`) each plugin with a preset that does
    not parse. Built-in presets are left to the tests (no start-up cost); one that does
    not parse is an error where it is resolved (:mod:`evalkit.resolve`).
    """
    from ..errors import FlavourError
    from ..flavour import parse_flavour

    plugin_of = {origin: name for name, origin in registry.plugins.items()}
    if not plugin_of:
        return
    for preset in registry.third_party("preset"):  # the built-in modules stay unloaded
        name = plugin_of.get(preset.origin)
        if name is None or registry.find("preset", preset.name) is not preset:
            continue  # gone with a plugin disabled above
        try:
            parse_flavour(preset.spec, registry)
        except FlavourError as exc:
            record = registry.disable(name, preset.origin, f"its preset '{preset.name}' does not parse: {exc}")
            warnings.warn(PluginDisabledWarning(record.warning()), stacklevel=2)
