"""A base for evalkit's private records: frozen, with ``__slots__``, compared and
hashed by their fields like a frozen dataclass, and created without ``dataclasses``.

A ``@dataclass`` compiles its ``__init__``, ``__eq__``, ``__hash__`` and
``__repr__`` (and, frozen, ``__setattr__``/``__delattr__``) with ``exec`` when its
module is imported: 0.4-0.9 ms a class, paid by every command. A record here writes
its ``__init__`` by hand and takes the rest from :class:`Record`, so its class costs
what a plain class costs (issue 27). For records evalkit keeps to itself (no
``dataclasses.fields``/``replace``); public types stay dataclasses.
"""

from __future__ import annotations

from typing import Any


class Record:
    """Fields are the ``__slots__`` of the subclasses, in declaration order (base
    first). ``==`` compares records of the same class field by field (another class:
    ``NotImplemented``), ``hash`` is the fields' tuple's, ``repr`` is
    ``Name(field=value, ...)``; setting or deleting an attribute raises
    :class:`AttributeError` (``__init__`` sets fields through ``_set``). ``pickle`` and
    :mod:`copy` rebuild a record by calling its class with the fields in order (each
    subclass's ``__init__`` takes them so)."""

    __slots__ = ()

    @classmethod
    def _fields(cls) -> tuple[str, ...]:
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            names.extend(klass.__dict__.get("__slots__", ()))
        return tuple(names)

    def _set(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self._fields())

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        args = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields())
        return f"{type(self).__qualname__}({args})"

    def __reduce__(self) -> tuple[type, tuple]:
        return type(self), self._values()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of {type(self).__name__}")
