""":class:`evalkit.registry.DisabledPlugin`, defined when first used (issue 27): only
a plugin that fails at start-up is recorded with one, so a command whose plugins all
load never creates the dataclass. :mod:`evalkit.registry` gives it by name (PEP 562);
its ``__module__`` is ``evalkit.registry``."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import DISABLE_ENV


@dataclass(frozen=True)
class DisabledPlugin:
    """A third-party plugin evalkit disabled at start-up.

    ``name`` is its entry-point name, ``origin`` ``"<distribution> <version> (entry
    point '<name>')"``, ``reason`` the one-line error (what failed: import,
    registration, probe), ``components`` the ``(family, name)`` pairs it had
    registered before it was disabled (empty when it failed to import)."""

    __module__ = "evalkit.registry"

    name: str
    origin: str
    reason: str
    components: tuple[tuple[str, str], ...] = ()

    def warning(self) -> str:
        """The one-line :class:`~evalkit.errors.PluginDisabledWarning` message."""
        return (f"plugin '{self.name}' from {self.origin} is disabled: {self.reason}. Its components are "
                f"unavailable; to stop loading it, uninstall it or set {DISABLE_ENV}={self.name} "
                "(evalkit --no-plugins loads no plugin)")
