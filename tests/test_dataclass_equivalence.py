"""The public dataclasses declared with :func:`evalkit._record.lean_dataclass` (issue 27:
their methods are written or shared, not generated with ``exec`` at import) behave as
the (frozen) dataclass ``dataclasses`` makes from the same fields: each is compared with
a reference built by :func:`dataclasses.make_dataclass` from its
:func:`dataclasses.fields` (signature, ``repr``, ``==``, ``hash``, ``replace``,
``asdict``, immutability, ``pickle``/``copy``, subclassing), on instances that differ
in every field. (``tests/test_startup.py`` checks that the quick-start ``evalkit eval``
generates no dataclass method.)"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import itertools
import pickle
from typing import Any, Callable

import numpy as np
import pytest

from evalkit import components as C
from evalkit.backends import EngineOption
from evalkit.data import SubtopicQrels
from evalkit.flavour import ComponentRef, Flavour, parse_flavour
from evalkit.kernel import MetricInput
from evalkit.results import Results


def _fn(x: Any) -> Any:
    return x


def _other_fn(x: Any) -> Any:
    return x


#: a value for each field other than its default (or the required value below)
ALTERNATIVE: dict[str, Any] = {
    "name": "y", "fn": _other_fn, "params": (C.Param("base", default=2.0),), "formula": "F", "source": "S",
    "description": "D", "numeric_keys": "numbers", "same_as": "log2", "tried_by_identify": False,
    "origin": "plugin x", "averaged": True, "needs_rank": True, "uses": frozenset({"gain"}),
    "supports_averaged_ties": True, "needs_subtopics": True, "check": _fn, "drops": _other_fn,
    "negative_gain": True, "reads_grades": True, "note": "a note", "empties_query": True,
    "message": "topics {topics}", "spec": "ndcg(gain=exp2)", "requires_cutoff": True, "default_cutoffs": (5, 10),
    "native_name": "ndcg_cut_{k}", "min_documents": 2, "too_few_documents": "too few",
    "interleaved_topics": "scores each part", "diverges": (("interleaved_topics", "x"),), "files": _other_fn,
    "in_process": False, "options": (EngineOption("master"),), "kind": "int", "default": ["unhashable"],
    "choices": ("a", "b"), "minimum": 1.0, "exclusive_minimum": True, "maximum": 9.0,
    "exclusive_maximum": True, "key": "conf", "flag": "--spark-conf", "help": "a setting",
    "metavar": "KEY=VALUE", "repeat": True, "ranked": "another list", "judged_grade": np.array([2.0]),
    "judged_offsets": np.array([0, 1]), "k": 10, "gain": _fn, "discount": _other_fn, "idcg": _fn,
    "subtopics": "intents", "min_grade": 1.0, "negative": "gain", "_shared": {}, "_gain_key": "g",
    "_discount_key": "d",
}
COMPONENT = {"name": "x", "fn": _fn}
#: class -> the required fields of its first instance (the rest default)
REQUIRED: dict[type, dict[str, Any]] = {
    **{cls: COMPONENT for cls in (C._Component, C.Gain, C.Discount, C.IdcgStrategy, C.TiePolicy, C.Metric,
                                  C._Judgment, C.GradeRule, C.NegativeRule, C.RunFilter, C.Outcome, C.Aggregate,
                                  C.Divergence, C.Engine)},
    C.Preset: {"name": "lib.ndcg", "spec": "ndcg"},
    C.Param: {"name": "base"},
    EngineOption: {"key": "master"},
    C.MetricOutput: {"values": np.array([0.5, 1.0]), "defined": np.array([True, False])},
    ComponentRef: {"name": "a"},
    MetricInput: {"ranked": "a ranked list", "judged_grade": np.array([1.0]), "judged_offsets": np.array([0, 1]),
                  "k": None},
}


def _varied(cls: type) -> list[Any]:
    """An instance with the required fields, and one more for each field, changed."""
    base = REQUIRED[cls]
    out = [cls(**base)]
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        if cls is ComponentRef and f.name == "params":
            value: Any = (("x", 1),)
        elif cls is C.MetricOutput:
            value = np.array([0.5, 1.0]) if f.name == "values" else np.array([True, False])  # equal, not the same
        else:
            value = ALTERNATIVE[f.name]
        out.append(cls(**{**base, f.name: value}))
    return out


def _flavours() -> list[Flavour]:
    texts = ["ndcg@10", "ndcg@5", "ndcg(gain=exp2)@10", "ndcg(discount=jarvelin(base=3))@10",
             "ndcg(idcg=returned)@10", "ndcg(ties=average)@10", "ndcg(missing=zero)@10", "dcg(negative=gain)@10",
             "ndcg(grades=lightgbm)@10", "ndcg(run_filter=unjudged)@10", "ndcg(outcome=complement)@10",
             "ndcg(aggregate=round_mean(decimals=3))@10", "ndcg", "err(max_grade=3)@10"]
    return [parse_flavour(t) for t in texts]


def _results() -> list[Results]:
    fl = parse_flavour("ndcg@10")
    qids = np.array(["q1", "q2"], dtype=object)
    return [Results(qids, ("run",), (fl,), ("ndcg@10",), np.zeros((1, 1, 2))),
            Results(qids, ("a", "b"), (fl,), ("x",), np.ones((2, 1, 2)))]


def _subtopics() -> list[SubtopicQrels]:
    obj = np.array(["1", "1"], dtype=object)
    return [SubtopicQrels(obj, np.array(["a", "b"], dtype=object), np.array(["d1", "d2"], dtype=object),
                          np.array([1.0, 2.0]), np.array([1, 2], dtype=np.int64)),
            SubtopicQrels(obj, obj, obj, np.array([0.0, 1.0]), np.array([3, 4], dtype=np.int64), "file.txt",
                          {("1", "1"): 1.0})]


#: (class, its instances, the dataclass options it was declared with besides frozen=True)
CASES: list[tuple[type, Callable[[], list[Any]], dict[str, Any]]] = [
    *[(cls, (lambda cls=cls: _varied(cls)), {}) for cls in REQUIRED if cls not in (ComponentRef, MetricInput)],
    (MetricInput, lambda: _varied(MetricInput), {"frozen": False}),
    (ComponentRef, lambda: _varied(ComponentRef), {"order": True}),
    (Flavour, _flavours, {}),
    (Results, _results, {"eq": False}),
    (SubtopicQrels, _subtopics, {"eq": False}),
]


def reference(cls: type, **options: Any) -> type:
    """The dataclass ``dataclasses`` generates for ``cls``'s fields (frozen unless
    ``options`` say otherwise)."""
    specs = []
    for f in dataclasses.fields(cls):
        kw: dict[str, Any] = {"repr": f.repr, "compare": f.compare, "init": f.init}
        if f.default is not dataclasses.MISSING:
            kw["default"] = f.default
        if f.default_factory is not dataclasses.MISSING:
            kw["default_factory"] = f.default_factory
        specs.append((f.name, f.type, dataclasses.field(**kw)))
    return dataclasses.make_dataclass(cls.__name__, specs, **{"frozen": True, **options})


def outcome(call: Callable[[], Any]) -> tuple:
    """What ``call()`` returns, or the type and message of what it raises."""
    try:
        return ("returns", call())
    except Exception as e:  # noqa: BLE001 - compared with the reference's
        return ("raises", type(e), str(e))


def as_reference(obj: Any, ref: type) -> Any:
    return ref(**{f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if f.init})


def shown(obj: Any) -> str:
    """``repr`` of every attribute in the instance's ``__dict__`` order."""
    return repr(list(vars(obj).items()))


def test_every_public_dataclass_on_the_quickstart_path_is_declared_without_generated_code():
    from evalkit._record import FrozenFields

    classes = {cls for cls, _, _ in CASES}
    public = {getattr(C, n) for n in C.__all__ if n != "Refusal" and dataclasses.is_dataclass(getattr(C, n))}
    assert public | {C._Component, C._Judgment} <= classes
    for cls in classes - {MetricInput}:  # (MetricInput: the one not frozen)
        assert cls.__dataclass_params__.frozen and issubclass(cls, FrozenFields), cls
    for cls in classes:
        assert "__init__" in vars(cls) and not {"__setattr__", "__delattr__"} & set(vars(cls)), cls


@pytest.mark.parametrize("cls, make, options", CASES, ids=[c.__name__ for c, _, _ in CASES])
def test_behaves_as_the_generated_lean_dataclass(cls, make, options):
    ref = reference(cls, **options)
    instances = make()
    refs = [as_reference(a, ref) for a in instances]
    frozen = options.get("frozen", True)
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen is frozen
    assert inspect.signature(cls) == inspect.signature(ref) and str(inspect.signature(cls)) == str(
        inspect.signature(ref))
    assert cls.__match_args__ == ref.__match_args__
    if not cls.__dict__.get("__doc__"):
        assert cls.__doc__ == ref.__doc__  # made from the signature, as generated
    for a, ra in zip(instances, refs):
        assert shown(a) == shown(ra)  # the same attributes, set in the same order
        if cls is not Flavour:  # Flavour shows its canonical string (its own __repr__)
            assert repr(a) == repr(ra)
        assert outcome(lambda: hash(a)) == outcome(lambda: hash(ra)) or options.get("eq") is False
        assert repr(dataclasses.asdict(a)) == repr(dataclasses.asdict(ra))
        assert repr(dataclasses.astuple(a)) == repr(dataclasses.astuple(ra))
        for copied in (pickle.loads(pickle.dumps(a)), copy.copy(a), copy.deepcopy(a)):
            assert type(copied) is cls and shown(copied) == shown(a)
    for name in (dataclasses.fields(cls)[0].name, "not_a_field"):
        a = make()[-1]
        ra = as_reference(a, ref)
        assert outcome(lambda: setattr(a, name, 1)) == outcome(lambda: setattr(ra, name, 1))
        assert outcome(lambda: delattr(a, name)) == outcome(lambda: delattr(ra, name))
        assert outcome(lambda: setattr(a, name, 1))[0] == ("raises" if frozen else "returns")
    assert outcome(lambda: cls(not_a_field=1)) == outcome(lambda: ref(not_a_field=1))
    assert outcome(lambda: cls()) == outcome(lambda: ref())
    for (a, ra), (b, rb) in itertools.product(zip(instances, refs), repeat=2):
        assert outcome(lambda: (a == b, a != b)) == outcome(lambda: (ra == rb, ra != rb)), (a, b)
        if options.get("eq") is False:
            assert (a == b) is (a is b)
        else:
            assert outcome(lambda: hash(a) == hash(b)) == outcome(lambda: hash(ra) == hash(rb))
        if options.get("order"):
            assert [a < b, a <= b, a > b, a >= b] == [ra < rb, ra <= rb, ra > rb, ra >= rb]
        for name in ["k"] if cls is Flavour else [f.name for f in dataclasses.fields(cls) if f.init]:
            changed = {name: getattr(b, name)}  # (a flavour validates the whole: another metric's components fail)
            assert shown(dataclasses.replace(a, **changed)) == shown(dataclasses.replace(ra, **changed))
    assert a.__eq__(ra) is NotImplemented or options.get("eq") is False  # another class


@pytest.mark.parametrize("cls, make, options", CASES, ids=[c.__name__ for c, _, _ in CASES])
def test_subclasses_as_the_generated_lean_dataclass(cls, make, options):
    """A plugin's ``@dataclass(frozen=True)`` subclass (of a class not frozen: a plain
    ``@dataclass``) works as it does of the generated class; a ``@dataclass`` subclass
    with the other ``frozen`` is refused with the same error; a plain subclass's
    instance refuses (or takes) fields as the generated class's, and takes other
    attributes."""
    ref = reference(cls, **options)
    frozen = options.get("frozen", True)
    a = make()[-1]
    ra = as_reference(a, ref)
    values = {f.name: getattr(a, f.name) for f in dataclasses.fields(a) if f.init}

    def sub_of(base: type, frozen: bool) -> type:
        return dataclasses.dataclass(frozen=frozen)(type("Sub", (base,), {"__annotations__": {"extra": "int"},
                                                                           "extra": 0}))

    sub, ref_sub = sub_of(cls, frozen), sub_of(ref, frozen)
    s, rs = sub(**values, extra=3), ref_sub(**values, extra=3)
    assert inspect.signature(sub) == inspect.signature(ref_sub) and shown(s) == shown(rs)
    if cls is not Flavour:
        assert repr(s) == repr(rs)
    assert outcome(lambda: (s == sub(**values, extra=3), s == sub(**values, extra=4))) == outcome(
        lambda: (rs == ref_sub(**values, extra=3), rs == ref_sub(**values, extra=4)))
    assert outcome(lambda: hash(s)) == outcome(lambda: hash(rs)) or cls is Flavour
    assert outcome(lambda: setattr(s, "extra", 1)) == outcome(lambda: setattr(rs, "extra", 1))
    assert dataclasses.replace(s, extra=5).extra == 5 and type(dataclasses.replace(s)) is sub
    refused = ("^cannot inherit non-frozen dataclass from a frozen one$" if frozen
               else "^cannot inherit frozen dataclass from a non-frozen one$")
    for base in (cls, ref):
        with pytest.raises(TypeError, match=refused):
            sub_of(base, not frozen)
    plain, ref_plain = type("Plain", (cls,), {})(**values), type("Plain", (ref,), {})(**values)
    first = dataclasses.fields(cls)[0].name
    for obj in (plain, ref_plain):
        obj.extra = 1  # not a field: set as usual
        del obj.extra
    assert outcome(lambda: setattr(plain, first, 1)) == outcome(lambda: setattr(ref_plain, first, 1))
    assert outcome(lambda: delattr(plain, first)) == outcome(lambda: delattr(ref_plain, first))
    assert shown(plain) == shown(ref_plain) and shown(ra) == shown(a)


def test_component_types_keep_their_fields():
    """The fields plugins and ``replace_origin`` rely on (names, defaults, ``origin`` and
    ``files`` not compared)."""
    names = [f.name for f in dataclasses.fields(C.Gain)]
    assert names == ["name", "fn", "params", "formula", "source", "description", "numeric_keys", "same_as",
                     "tried_by_identify", "origin"]
    assert [f.name for f in dataclasses.fields(C.GradeRule)] == names + ["check", "drops", "negative_gain",
                                                                         "reads_grades", "note"]
    assert [f.name for f in dataclasses.fields(C.TiePolicy)][-2:] == ["averaged", "needs_rank"]
    assert {cls.__name__: [f.name for f in dataclasses.fields(cls) if not f.compare]
            for cls in (C.Gain, C.Preset, C.Engine, C.Metric)} == {
        "Gain": ["origin"], "Preset": ["origin"], "Engine": ["origin", "files"], "Metric": ["origin"]}
    gain = C.Gain("x", _fn, formula="F")
    moved = C.replace_origin(gain, "plugin y")
    assert type(moved) is C.Gain and moved.origin == "plugin y" and moved == gain and moved.formula == "F"
    with pytest.raises(TypeError, match=r"^Aggregate\.__init__\(\) got an unexpected keyword argument 'notes'$"):
        C.Aggregate("x", _fn, notes="n")  # its __init__ is Outcome's, under its own name


def test_lean_dataclass_refuses_what_it_does_not_write():
    from evalkit._record import FrozenFields, lean_dataclass

    with pytest.raises(TypeError, match="FrozenFields"):
        lean_dataclass(type("Plain", (), {}))
    with pytest.raises(TypeError, match="adds fields: write its __init__"):
        lean_dataclass(type("NoInit", (C.Gain,), {"__annotations__": {"extra": "int"}, "extra": 0}))

    def init(self: Any, x: int) -> None:
        object.__setattr__(self, "x", x)

    hashed = {"__annotations__": {"x": "int"}, "x": dataclasses.field(hash=False), "__init__": init}
    with pytest.raises(TypeError, match="hash"):
        lean_dataclass(type("Hashed", (FrozenFields,), hashed))


def test_component_base_docstring_is_the_one_dataclasses_writes():
    """``_Component`` has no docstring of its own; ``@dataclass`` would write one from
    ``inspect.signature`` at import (tokenize's patterns compiled for it): it is written
    out in the source and must stay what ``dataclasses`` writes."""
    import inspect

    from evalkit.components import _Component

    assert _Component.__doc__ == "_Component" + str(inspect.signature(_Component)).replace(" -> None", "")
