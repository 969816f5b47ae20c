"""Field-wise ``__repr__``, ``==`` and ``hash`` written once (:class:`ByFields`) for
dataclasses that write their ``__init__``, and a base for evalkit's private records
(:class:`Record`): frozen, with ``__slots__``, compared and hashed by their fields like
a frozen dataclass, and created without ``dataclasses``.

A ``@dataclass`` compiles its ``__init__``, ``__eq__``, ``__hash__`` and
``__repr__`` (and, frozen, ``__setattr__``/``__delattr__``) with ``exec`` when its
module is imported: 0.4-0.9 ms a class, paid by every command. A record here writes
its ``__init__`` by hand and takes the rest from :class:`Record`, so its class costs
what a plain class costs (issue 27). For records evalkit keeps to itself (no
``dataclasses.fields``/``replace``); public types stay dataclasses.
"""

from __future__ import annotations

from typing import Any


class ByFields:
    """The ``__repr__``, ``==`` and ``hash`` that ``dataclasses`` generates for a frozen
    dataclass (``repr=True, eq=True``), for one declared with ``init=False, repr=False,
    eq=False`` that writes its own ``__init__`` (issue 27: every generated method is
    compiled with ``exec`` when its module is imported). Fields in declaration order, as
    :func:`dataclasses.fields` gives them: ``repr`` is ``Name(field=value, ...)``; ``==``
    compares two instances of the same class as tuples of their fields (another class:
    ``NotImplemented``); ``hash`` is that tuple's. A class whose fields all compare, hash
    and show (no ``field(compare=False, ...)``) only; it may define a faster
    :meth:`_key` giving the same tuple. ``tests/test_startup.py`` compares each user
    with the dataclass ``dataclasses`` would make."""

    __slots__ = ()

    def _key(self) -> tuple:
        return tuple(getattr(self, name) for name in _field_names(type(self)))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _field_names(type(self)))
        return f"{type(self).__qualname__}({shown})"


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """``cls``'s fields in declaration order (cached per class): a dataclass's
    :func:`dataclasses.fields`, else (a :class:`Record`) the ``__slots__`` of its
    classes, base first."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        if hasattr(cls, "__dataclass_fields__"):
            import dataclasses

            names = tuple(f.name for f in dataclasses.fields(cls))
        else:
            names = tuple(name for klass in reversed(cls.__mro__) for name in klass.__dict__.get("__slots__", ()))
        _FIELD_NAMES[cls] = names
    return names


class Record(ByFields):
    """Fields are the ``__slots__`` of the subclasses, in declaration order (base
    first). ``==``, ``hash`` and ``repr`` are :class:`ByFields`'s over them (records of
    the same class compared field by field; another class: ``NotImplemented``);
    setting or deleting an attribute raises :class:`AttributeError` (``__init__`` sets
    fields through ``_set``). ``pickle`` and :mod:`copy` rebuild a record by calling its
    class with the fields in order (each subclass's ``__init__`` takes them so)."""

    __slots__ = ()

    @classmethod
    def _fields(cls) -> tuple[str, ...]:
        """The field names, in order (what ``__init__`` takes)."""
        return _field_names(cls)

    def _set(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __reduce__(self) -> tuple[type, tuple]:
        return type(self), self._key()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of {type(self).__name__}")
