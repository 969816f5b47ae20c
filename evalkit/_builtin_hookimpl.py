"""The ``@hookimpl`` of evalkit's built-in modules: pluggy's marker
(:data:`evalkit.hookspecs.hookimpl`), applied once pluggy is in use (issue 27).

A built-in module is a pluggy plugin, but a registry registers it without pluggy
(:func:`evalkit.registry.builtin_hookimpls` calls its ``evalkit_register_*``
functions), so a command with no third-party plugin need not import pluggy (2-3 ms).
A function decorated here is marked with pluggy's marker as soon as
:mod:`evalkit.hookspecs` (which imports pluggy) is imported -- at once if it already is,
otherwise when it is: whatever registers the module with a pluggy manager adds
evalkit's hook specifications from :mod:`evalkit.hookspecs` first
(:func:`evalkit.registry.build_registry` does), so pluggy always reads the marks.
Third-party plugins use :data:`evalkit.hookimpl` (pluggy's marker) directly.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])

#: functions decorated before :mod:`evalkit.hookspecs` was imported, in order
_PENDING: list[Callable[..., Any]] = []


def hookimpl(function: _F) -> _F:
    """Mark ``function`` with pluggy's ``@hookimpl`` (plain: no option), now when
    :mod:`evalkit.hookspecs` is imported, else when it is (:func:`mark_pending`)."""
    specs = sys.modules.get("evalkit.hookspecs")
    marker = getattr(specs, "hookimpl", None)
    if marker is None:
        _PENDING.append(function)
        return function
    marked: _F = marker(function)
    return marked


def mark_pending(marker: Callable[[Any], Any]) -> None:
    """Mark every function decorated before ``marker`` (pluggy's ``hookimpl``) existed;
    :mod:`evalkit.hookspecs` calls it once it defines the marker."""
    while _PENDING:
        marker(_PENDING.pop(0))
