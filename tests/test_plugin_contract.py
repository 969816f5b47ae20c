"""The plugin contract: hook implementations called as pluggy defines them, wrapper
implementations refused, aliases held by the registry, component metadata declared
once by a decorator (which also writes the kernel's docstring), and the example of
``docs/plugins.md``.

Fake distributions are written by the ``site`` fixture of ``tests/test_registry.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import evalkit
from evalkit import FlavourError, Qrels, RegistryError, Run, build_registry, evaluate
from evalkit.components import Discount, declared
from test_registry import site  # noqa: F401  (the fake-distributions fixture)

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _data():
    qrels = Qrels.from_rows([("q1", "a", 1), ("q1", "b", 0), ("q1", "c", 2)])
    run = Run.from_rows([("q1", "c", 3.0), ("q1", "b", 2.0), ("q1", "a", 1.0)])
    return qrels, run


# ----------------------------------------------------------------------------- argument subsets

ZERO_ARGUMENT = """
def half(grades):
    return grades / 2.0

def flat(ranks):
    return np.ones(len(ranks))

@hookimpl
def evalkit_register_gains():
    return [Gain(name="half", fn=half, formula="g = rel / 2", source="test")]

@hookimpl
def evalkit_register_discounts():
    yield Discount(name="flat", fn=flat, formula="d = 1", source="test"), ("unit", "one")
"""


def test_zero_argument_hookimpl_returns_its_components(site):
    site.add("evalkit-zero", ZERO_ARGUMENT, ep_name="zero")
    reg = build_registry(disable_plugins=False)
    assert reg.get("gain", "half").origin == "evalkit-zero 1.0 (entry point 'zero')"
    assert reg.get("discount", "flat").origin == reg.plugins["zero"]
    qrels, run = _data()
    # gains 2/2, 0, 1/2 in rank order at no discount: DCG = 1 + 0 + 0.5
    res = evaluate(qrels, run, ["dcg(gain=half,discount=flat)"], registry=reg)
    assert res.means()[0, 0] == pytest.approx(1.5, abs=1e-15)


def test_register_and_return_in_one_hookimpl(site):
    site.add("evalkit-both", """
        @hookimpl
        def evalkit_register_discounts(register):
            register(Discount(name="flat1", fn=lambda r: np.ones(len(r)), source="test"))
            return [Discount(name="flat2", fn=lambda r: np.ones(len(r)), source="test")]
    """)
    reg = build_registry(disable_plugins=False)
    assert {"flat1", "flat2"} <= set(reg.names("discount"))


@pytest.mark.parametrize("returned, shown", [("3", "returned 3"), ("'flat'", "returned 'flat'")])
def test_hookimpl_returning_a_non_iterable_is_refused(site, returned, shown):
    site.add("evalkit-odd", f"""
        @hookimpl
        def evalkit_register_gains():
            return {returned}
    """)
    with pytest.raises(RegistryError, match=rf"evalkit-odd 1\.0 \(entry point 'evalkit-odd'\): "
                                           rf"evalkit_register_gains {shown}; return None or an iterable"):
        build_registry(disable_plugins=False, strict=True)


@pytest.mark.parametrize("marker", ["wrapper=True", "hookwrapper=True"])
def test_wrapper_hookimpl_is_refused_naming_the_plugin(site, marker):
    site.add("evalkit-wrap", f"""
        @hookimpl({marker})
        def evalkit_register_metrics(register):
            return (yield)
    """, ep_name="wrap")
    with pytest.raises(RegistryError) as info:
        build_registry(disable_plugins=False, strict=True)
    message = str(info.value)
    assert message.startswith("evalkit-wrap 1.0 (entry point 'wrap'): evalkit_register_metrics")
    assert f"@hookimpl({marker})" in message


def test_every_hookspec_accepts_a_zero_argument_impl(site):
    """One zero-argument implementation per hook, each returning one component."""
    site.add("evalkit-all0", """
        @hookimpl
        def evalkit_register_gains():
            return [Gain(name="g0", fn=lambda g: g, source="t")]
        @hookimpl
        def evalkit_register_discounts():
            return [Discount(name="d0", fn=lambda r: 1.0 / r, source="t")]
        @hookimpl
        def evalkit_register_idcg_strategies():
            return [IdcgStrategy(name="i0", fn=lambda ctx: np.ones(ctx.ranked.n_queries), source="t")]
        @hookimpl
        def evalkit_register_tie_policies():
            return [TiePolicy(name="t0", fn=lambda keys: keys.score_order(), source="t")]
        @hookimpl
        def evalkit_register_metrics():
            return [Metric(name="m0", fn=lambda inp: MetricOutput(np.full(inp.n_queries, 0.25),
                                                                  np.ones(inp.n_queries, bool)), source="t")]
        @hookimpl
        def evalkit_register_presets():
            return [Preset(name="t.p0", spec="m0(ties=t0)")]
    """, ep_name="all0")
    reg = build_registry(disable_plugins=False)
    for family, name in [("gain", "g0"), ("discount", "d0"), ("idcg", "i0"), ("ties", "t0"),
                         ("metric", "m0"), ("preset", "t.p0")]:
        assert reg.get(family, name).origin == reg.plugins["all0"]
    qrels, run = _data()
    res = evaluate(qrels, run, ["t.p0"], registry=reg)
    assert res.means()[0, 0] == 0.25


# ----------------------------------------------------------------------------- aliases

def test_aliases_resolve_through_the_registry(site):
    site.add("evalkit-zero", ZERO_ARGUMENT, ep_name="zero")
    reg = build_registry(disable_plugins=False)
    assert reg.get("discount", "unit") is reg.get("discount", "flat")
    assert reg.get("discount", "one") is reg.get("discount", "flat")
    assert reg.aliases("discount") == {"unit": "flat", "one": "flat"}
    assert "unit" not in reg.names("discount") and "flat" in reg.names("discount")
    assert reg.is_alias("discount", "unit") and not reg.is_alias("discount", "flat")
    # a flavour written with an alias is the flavour of the component's own name
    fl = evalkit.parse_flavour("dcg(discount=unit)", reg)
    assert fl == evalkit.parse_flavour("dcg(discount=flat)", reg)
    assert "discount=flat" in str(fl) and "unit" not in str(fl)
    qrels, run = _data()
    # grades 2, 0, 1 in rank order, linear gain, no discount
    res = evaluate(qrels, run, ["dcg(discount=one)"], registry=reg)
    assert res.means()[0, 0] == 3.0


def test_alias_clashing_with_a_name_is_a_duplicate(site):
    site.add("evalkit-clash", """
        @hookimpl
        def evalkit_register_discounts(register):
            register(Discount(name="steep", fn=lambda r: 1.0 / r, source="t"), aliases=("log2",))
    """, ep_name="clash")
    with pytest.raises(RegistryError, match=r"duplicate discount name 'log2': registered by evalkit \(built-in\) "
                                            r"and by evalkit-clash 1\.0 \(entry point 'clash'\)"):
        build_registry(disable_plugins=False, strict=True)


def test_name_clashing_with_an_alias_names_the_alias(site):
    site.add("evalkit-a", """
        @hookimpl
        def evalkit_register_gains(register):
            register(Gain(name="twice", fn=lambda g: 2 * g, source="t"), aliases=["double"])
    """, ep_name="a")
    site.add("evalkit-b", """
        @hookimpl
        def evalkit_register_gains(register):
            register(Gain(name="double", fn=lambda g: 2 * g, source="t"))
    """, ep_name="b")
    with pytest.raises(RegistryError, match=r"duplicate gain name 'double': registered by evalkit-a 1\.0 "
                                            r"\(entry point 'a'\) \(alias of 'twice'\) and by evalkit-b"):
        build_registry(disable_plugins=False, strict=True)


def test_unknown_name_lists_names_not_aliases():
    reg = build_registry(disable_plugins=True)
    with pytest.raises(FlavourError, match=r"unknown discount 'log3' \(known: jarvelin, log, log2, natural, none, "
                                           r"reciprocal\)"):
        reg.get("discount", "log3")


def test_identify_skips_components_that_equal_another_at_their_defaults():
    """``log`` at base 2 is ``log2``: the registry says so (no list in identify)."""
    reg = build_registry(disable_plugins=True)
    assert reg.is_alias("discount", "log")
    assert not reg.is_alias("discount", "log2")
    import evalkit.identify as identify

    assert not hasattr(identify, "ALIASES")
    names = {ref.name for ref in identify._component_variants(reg, "discount")}
    assert "log" not in names and "log2" in names


# ----------------------------------------------------------------------------- declared metadata

def test_every_builtin_kernel_has_a_docstring_with_formula_shapes_and_source():
    reg = build_registry(disable_plugins=True)
    for family in ("gain", "discount", "idcg", "ties", "metric"):
        for name in reg.names(family):
            comp = reg.get(family, name)
            doc = comp.fn.__doc__ or ""
            assert comp.formula and f"Formula: ``{comp.formula}``" in doc, (family, name)
            assert comp.source and f"Source: {comp.source}" in doc, (family, name)
            assert re.search(r"(float64|int64)`` ``\([nqm],\)``", doc), (family, name)
            for p in comp.params:
                assert f"``{p.name}``" in doc, (family, name, p.name)


def test_declare_builds_the_component_and_the_docstring():
    from evalkit.kernel import declare, discount

    @discount("sqrt_rank", formula="d(r) = 1 / sqrt(r)", source="a test", description="gentle",
              aliases=("rsqrt",))
    def sqrt_rank(ranks):
        """Only for positive ranks."""
        return 1.0 / np.sqrt(ranks)

    np.testing.assert_array_equal(sqrt_rank(np.array([1, 4])), [1.0, 0.5])  # still a plain function
    doc = sqrt_rank.__doc__
    assert doc.startswith("Gentle.\n\nOnly for positive ranks.\n\nFormula: ``d(r) = 1 / sqrt(r)``")
    assert "``ranks`` 1-based ``int64`` ``(n,)``" in doc and doc.rstrip().endswith("Source: a test")
    import types

    module = types.ModuleType("fake_plugin_module")
    sqrt_rank.__module__ = module.__name__
    module.sqrt_rank = module.also_sqrt_rank = sqrt_rank  # listed once
    module.imported = declared  # not a declared kernel
    (comp, aliases), = declared(module)
    assert isinstance(comp, Discount) and comp.name == "sqrt_rank" and comp.fn is sqrt_rank
    assert aliases == ("rsqrt",)
    assert declared(module, kind=evalkit.Gain) == []
    with pytest.raises(TypeError, match="kernel component type"):
        declare(evalkit.Preset, "x")


def test_docs_plugins_example_runs(site):
    """The decorator example of docs/plugins.md, as a plugin module."""
    text = (DOCS / "plugins.md").read_text()
    section = text.split("### Declaring a kernel's metadata in one place", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    site.add("evalkit-doc", code, ep_name="doc")
    reg = build_registry(disable_plugins=False)
    comp = reg.get("discount", "rsqrt")
    assert comp.name == "reciprocal_sqrt" and comp.origin == reg.plugins["doc"]
    assert comp.fn.__doc__.startswith("A gentle discount.")
    qrels, run = _data()
    res = evaluate(qrels, run, ["dcg(discount=rsqrt)"], registry=reg)
    # grades 2, 0, 1 at ranks 1..3: 2/1 + 0 + 1/sqrt(3)
    assert res.means()[0, 0] == pytest.approx(2.0 + 1.0 / np.sqrt(3.0), rel=1e-15)


def test_kernel_module_lists_the_contract():
    import evalkit.kernel as kernel

    for name in ("MetricInput", "MetricOutput", "IdealContext", "RankedList", "SortKeys", "segment_sum",
                 "segment_cumsum", "segment_ids", "offsets_from_sorted", "ideal_dcg", "apply_gain"):
        assert name in kernel.__all__ and getattr(kernel, name) is not None
    fields = kernel.MetricInput.__dataclass_fields__
    public = {f for f in fields if not f.startswith("_")}
    assert public == {"ranked", "judged_grade", "judged_offsets", "k", "gain", "discount", "idcg",
                      "subtopics", "min_grade", "negative"}


# ----------------------------------------------------------------------------- the contract's size

#: the public names of evalkit.plugin: growing the contract is a decision, made here
CONTRACT = {"hookimpl", "declared", "Param", "Preset",
            "gain", "discount", "idcg_strategy", "tie_policy", "metric",
            "run_filter", "grade_rule", "negative_rule", "outcome", "aggregate",
            "MetricInput", "MetricOutput", "IdealContext", "SortKeys", "RankedList", "RunFilterInput", "Refusal"}

#: MetricInput's documented fields (the issue's bound: at most 8)
METRIC_INPUT_FIELDS = ["ranked", "judged_grade", "judged_offsets", "k", "gain", "discount", "idcg", "subtopics"]


def test_the_plugin_contract_module_is_small_and_keeps_the_old_paths():
    import dataclasses

    import evalkit.components
    import evalkit.kernel
    import evalkit.plugin as plugin

    assert len(plugin.__all__) == len(set(plugin.__all__)) == 21
    assert set(plugin.__all__) == CONTRACT
    public = {n for n, v in vars(plugin).items() if not n.startswith("_") and not isinstance(v, type(plugin))}
    assert public - {"annotations"} == CONTRACT  # nothing else leaks in
    # the same objects as under the older import paths
    for name in CONTRACT:
        old = getattr(evalkit.kernel, name, None) or getattr(evalkit.components, name, None) or getattr(evalkit, name)
        assert getattr(plugin, name) is old, name
    # its docstring states each decorator's input and output
    for decorator in ("gain", "discount", "idcg_strategy", "tie_policy", "metric", "run_filter", "grade_rule",
                      "negative_rule", "outcome", "aggregate"):
        assert f":func:`{decorator}`" in plugin.__doc__, decorator
    # a gain is three concepts: the decorator, the marker and declared
    assert "from evalkit.plugin import declared, gain, hookimpl" in plugin.__doc__

    documented = re.findall(r":param (\w+):", evalkit.kernel.MetricInput.__doc__)
    assert documented == METRIC_INPUT_FIELDS and len(documented) <= 8
    fields = [f.name for f in dataclasses.fields(evalkit.kernel.MetricInput) if not f.name.startswith("_")]
    # every other public field is an engine setting read through a helper, said so
    assert set(fields) - set(documented) == {"min_grade", "negative"}
    assert "``min_grade`` and ``negative`` are\n    the engine's settings" in evalkit.kernel.MetricInput.__doc__
    assert "These eight fields (`ranked`, `judged_grade`, `judged_offsets`, `k`, `gain`" in \
        (DOCS / "plugins.md").read_text()


def test_gain_floor_is_the_floor_the_gain_helpers_apply():
    """``inp.gain_floor()``, the helper that replaces reading ``min_grade`` and
    ``negative``: grades below it give gain 0 in ``ranked_gain()``."""
    from evalkit.engine.evaluate import prepare_input, resolve
    from evalkit.engine.problem import build_problem

    reg = build_registry(disable_plugins=True)
    qrels = Qrels.from_rows([("q", "a", 1), ("q", "b", 2), ("q", "c", -1)])
    run = Run.from_rows([("q", "a", 3.0), ("q", "b", 2.0), ("q", "c", 1.0)], name="r")
    problem = build_problem(qrels, run)
    for spec, floor, gains in (("dcg", 0.0, [1, 2, 0]), ("dcg(min_grade=2)", 2.0, [0, 2, 0]),
                               ("dcg(negative=gain)", -np.inf, [1, 2, -1])):
        inp = prepare_input(problem, resolve(evalkit.parse_flavour(spec, reg), reg))
        assert inp.gain_floor() == floor
        assert inp.ranked_gain().tolist() == gains


def test_tie_order_that_splits_a_query_is_refused_past_the_first_chunk():
    """The engine's check of a tie policy's order (a permutation that keeps each query's
    rows together, ascending) reads the order a chunk of 2**17 positions at a time: a
    query split beyond the first chunk is still found and named by its position; the
    sort keys' own orders returned by a built-in policy pass unchecked."""
    from evalkit.components import TiePolicy
    from evalkit.engine.checks import ComponentContractError, call_component
    from evalkit.engine.ranking import SortKeys

    n = 300_000
    query = np.repeat(np.arange(3, dtype=np.int64), n // 3)
    keys = SortKeys(query=query, score=np.zeros(n), docno=np.arange(n, dtype=np.int64))

    def swap(keys):
        order = np.arange(len(keys.query), dtype=np.int64)
        order[[150_000, 250_000]] = order[[250_000, 150_000]]  # a row of query 2 inside query 1
        return order

    with pytest.raises(ComponentContractError,
                       match=r"position 150001 goes back from query index 2 to 1"):
        call_component("ties", TiePolicy(name="swap", fn=swap), keys)
    fine = TiePolicy(name="own", fn=lambda keys: keys.identity())
    assert call_component("ties", fine, keys) is keys.identity()
