"""Field-wise ``__repr__``, ``==`` and ``hash`` written once (:class:`ByFields`),
dataclasses declared without generated code (:func:`lean_dataclass`), and a
base for evalkit's private records (:class:`Record`): frozen, with ``__slots__``,
compared and hashed by their fields like a frozen dataclass, and created without
``dataclasses``.

A ``@dataclass`` compiles its ``__init__``, ``__eq__``, ``__hash__`` and
``__repr__`` (and, frozen, ``__setattr__``/``__delattr__``) with ``exec`` when its
module is imported: 0.1-0.9 ms a class, paid by every command (issue 27). The public
types (components, flavours, results) stay dataclasses: :func:`lean_dataclass`
gives them what ``dataclasses`` would generate from methods written once here and an
``__init__`` written in their source (compiled once into the ``.pyc``); only
``dataclasses``' collection of their fields remains (~0.07 ms a class). Records
evalkit keeps to itself (no ``dataclasses.fields``/``replace``) are :class:`Record`.
"""

from __future__ import annotations

import dataclasses
import reprlib
import types
from typing import TYPE_CHECKING, Any, Callable, TypeVar

_T = TypeVar("_T", bound=type)

if TYPE_CHECKING:  # type checkers read a lean_dataclass class as @dataclass(frozen=True) makes it
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**_: Any) -> Callable[[Any], Any]:
        return lambda fn: fn


class ByFields:
    """The ``__repr__``, ``==`` and ``hash`` that ``dataclasses`` generates for a frozen
    dataclass (``repr=True, eq=True``), for one declared without them
    (:func:`lean_dataclass`, or ``@dataclass(init=False, repr=False, eq=False)``) and
    for a :class:`Record` (issue 27: every generated method is compiled with ``exec``
    when its module is imported). Fields in declaration order, as
    :func:`dataclasses.fields` gives them: ``repr`` is ``Name(field=value, ...)`` over
    the fields with ``repr=True`` (``...`` for a value that shows itself again, as
    generated); ``==`` compares two instances of the same class as tuples of their
    fields with ``compare=True`` (another class: ``NotImplemented``); ``hash`` is that
    tuple's. A field with ``field(hash=...)`` is not supported (refused by
    :func:`lean_dataclass`). A class may define a faster :meth:`_key` giving the same
    tuple. ``tests/test_startup.py`` and ``tests/test_dataclass_equivalence.py``
    compare each user with the dataclass ``dataclasses`` would make."""

    __slots__ = ()

    def _key(self) -> tuple:
        return tuple(getattr(self, name) for name in _field_names(type(self))[1])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _field_names(type(self))[0])
        return f"{type(self).__qualname__}({shown})"


_FIELD_NAMES: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _field_names(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``cls``'s fields in declaration order (cached per class), as ``(shown by repr,
    compared and hashed)``: a dataclass's :func:`dataclasses.fields` with ``repr=True``
    and with ``compare=True``; else (a :class:`Record`) the ``__slots__`` of its
    classes, base first, for both."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        if hasattr(cls, "__dataclass_fields__"):
            fields = dataclasses.fields(cls)
            names = (tuple(f.name for f in fields if f.repr), tuple(f.name for f in fields if f.compare))
        else:
            slots = tuple(name for klass in reversed(cls.__mro__) for name in klass.__dict__.get("__slots__", ()))
            names = (slots, slots)
        _FIELD_NAMES[cls] = names
    return names


class FrozenFields(ByFields):
    """:class:`ByFields` plus the ``__setattr__`` and ``__delattr__`` of a frozen
    dataclass: assigning or deleting an attribute of an instance of a
    :func:`lean_dataclass` class, or a field of an instance of a plain subclass,
    raises :class:`dataclasses.FrozenInstanceError` with the generated message (another
    attribute of a plain subclass's instance is set as usual, as generated)."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        if _frozen_here(type(self), name):
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if _frozen_here(type(self), name):
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        object.__delattr__(self, name)


def _frozen_here(cls: type, name: str) -> bool:
    """What a generated ``__setattr__`` tests: ``type(self) is cls or name in fields``,
    ``cls`` being the nearest dataclass of ``type(self)``."""
    return "__dataclass_fields__" in cls.__dict__ or name in cls.__dataclass_fields__  # type: ignore[attr-defined]


# The parameters of a frozen dataclass (``__dataclass_params__``: what @dataclass
# reads to refuse a non-frozen subclass of a frozen one), taken once from a template
# (its __setattr__/__delattr__: the only methods generated), and of a plain one.
@dataclasses.dataclass(frozen=True, init=False, repr=False, eq=False)
class _FrozenTemplate:
    """(A docstring: without one, @dataclass writes one from ``inspect.signature``.)"""


@dataclasses.dataclass(init=False, repr=False, eq=False)
class _ThawedTemplate:
    """(See :class:`_FrozenTemplate`.)"""


_FROZEN = _FrozenTemplate.__dataclass_params__  # type: ignore[attr-defined]
_THAWED = _ThawedTemplate.__dataclass_params__  # type: ignore[attr-defined]


@dataclass_transform(frozen_default=True)
def lean_dataclass(cls: Any = None, /, *, frozen: bool = True, eq: bool = True) -> Any:
    """``@dataclass(frozen=frozen, eq=eq)`` without the code ``dataclasses`` generates
    with ``exec`` at import (issue 27).

    The class subclasses :class:`FrozenFields` (not frozen: :class:`ByFields`), which
    gives ``__repr__``, ``==``, ``hash`` (``eq=False``: ``==`` and ``hash`` by identity;
    ``eq`` and not ``frozen``: unhashable) and, frozen, ``__setattr__`` and
    ``__delattr__``; and it writes its ``__init__`` (the one ``dataclasses`` would
    generate: parameters in field order with the fields' annotations and defaults,
    fields set in order, then ``__post_init__`` if any). A subclass adding no field may
    leave it out, and a class with another's fields may borrow its (``__init__ =
    Other.__init__``): it gets a copy under its own name (its errors name the class, as
    generated). It is then a dataclass as ``@dataclass`` makes it:
    :func:`dataclasses.fields`, :func:`~dataclasses.replace`,
    :func:`~dataclasses.asdict`, the same ``inspect.signature``, and a plugin may
    subclass a frozen one with ``@dataclass(frozen=True)`` (a non-frozen ``@dataclass``
    subclass is refused with the same :class:`TypeError`). Its
    ``__dataclass_params__`` say ``frozen`` truly, ``init``, ``repr`` and ``eq`` false.

    :raises TypeError: the class does not subclass the mixin its ``frozen`` needs, adds
        fields without writing ``__init__``, or declares ``field(hash=...)``.
    """

    def wrap(cls: _T) -> _T:
        if issubclass(cls, FrozenFields) is not frozen or not issubclass(cls, ByFields):
            mixin = "FrozenFields" if frozen else "ByFields (not FrozenFields)"
            raise TypeError(f"{cls.__qualname__}: a lean_dataclass with frozen={frozen} subclasses {mixin}")
        if "__init__" not in cls.__dict__ and cls.__dict__.get("__annotations__"):
            raise TypeError(f"{cls.__qualname__} adds fields: write its __init__")
        if cls.__init__.__qualname__ != f"{cls.__qualname__}.__init__":  # inherited or borrowed
            cls.__init__ = _renamed(cls.__init__, cls)  # type: ignore[method-assign]
        cls.__init__.__annotations__["return"] = None  # as generated: `-> None`, not the string 'None'
        if not eq:
            cls.__eq__ = object.__eq__  # type: ignore[method-assign]
            cls.__hash__ = object.__hash__  # type: ignore[method-assign]
        elif not frozen:
            cls.__hash__ = None  # type: ignore[assignment]
        # @dataclass refuses a non-frozen subclass of a frozen dataclass: the bases made
        # here are marked plain while it reads them, frozen again after
        bases = [b for b in cls.__mro__[1:] if b.__dict__.get("__dataclass_params__") is _FROZEN]
        for base in bases:
            base.__dataclass_params__ = _THAWED  # type: ignore[attr-defined]
        try:
            dataclasses.dataclass(init=False, repr=False, eq=False)(cls)  # generates no method
        finally:
            for base in bases:
                base.__dataclass_params__ = _FROZEN  # type: ignore[attr-defined]
        if frozen:
            cls.__dataclass_params__ = _FROZEN  # type: ignore[attr-defined]
        if any(f.hash is not None for f in cls.__dataclass_fields__.values()):  # type: ignore[attr-defined]
            raise TypeError(f"{cls.__qualname__}: field(hash=...) is not supported by lean_dataclass")
        return cls

    return wrap if cls is None else wrap(cls)


def _renamed(init: Any, cls: type) -> Any:
    """A copy of the function ``init`` named ``cls.__init__``."""
    copy = types.FunctionType(init.__code__, init.__globals__, "__init__", init.__defaults__, init.__closure__)
    copy.__kwdefaults__ = init.__kwdefaults__
    copy.__annotations__ = dict(init.__annotations__)
    copy.__doc__, copy.__module__ = init.__doc__, cls.__module__
    copy.__qualname__ = f"{cls.__qualname__}.__init__"
    return copy


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
        return _field_names(cls)[1]

    def _set(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __reduce__(self) -> tuple[type, tuple]:
        return type(self), self._key()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of {type(self).__name__}")
