""":class:`evalkit.registry.CachedEntryPoint` and :class:`evalkit.registry.CachedDistribution`,
defined when first used (issue 27): only an entry-point cache that holds an entry point
makes one, so a start with no third-party plugin installed does not create the two named
tuples (a tenth of a millisecond each). :mod:`evalkit.registry` gives them by name
(PEP 562); their ``__module__`` is ``evalkit.registry``."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

#: importlib.metadata's ``EntryPoint.pattern`` (compiled when a plugin is loaded)
_ENTRY_POINT_VALUE = r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$"


class CachedDistribution(NamedTuple):  # a named tuple: a tenth of a dataclass's cost
    """The two fields of an :class:`importlib.metadata.Distribution` the registry reads."""

    name: str
    version: str


class CachedEntryPoint(NamedTuple):
    """An entry point read back from the cache: what the registry reads of an
    :class:`importlib.metadata.EntryPoint` (``name``, ``value``, ``group``, ``dist``)
    and :meth:`load`, which imports it as ``EntryPoint.load`` does."""

    name: str
    value: str
    group: str
    dist: CachedDistribution | None

    def load(self) -> Any:
        """The object ``value`` names (``module`` or ``module:attr.attr``), imported."""
        import importlib

        match = re.match(_ENTRY_POINT_VALUE, self.value)
        if match is None:
            raise ValueError(f"invalid entry point value {self.value!r}")
        obj: Any = importlib.import_module(match.group("module"))
        for attr in filter(None, (match.group("attr") or "").split(".")):
            obj = getattr(obj, attr)
        return obj


for _cls in (CachedDistribution, CachedEntryPoint):
    _cls.__module__ = "evalkit.registry"
