"""Plugin registry: built-ins, entry-point discovery, errors, disabling, call counts.

No installation happens here. Fake third-party distributions are real
``*.dist-info`` folders written into ``tmp_path`` (``METADATA`` +
``entry_points.txt``) next to the plugin module, and ``evalkit.registry._entry_points``
is pointed at ``importlib.metadata.distributions(path=[tmp_path])``, so the
registry sees genuine :class:`importlib.metadata.EntryPoint` objects with their
distribution, and nothing that happens to be installed on the machine.
(``tests/test_plugin_install.py`` does the real ``pip install``.)
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import itertools
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import evalkit
import evalkit.registry as registry_mod
from evalkit import FlavourError, Qrels, RegistryError, Run, build_registry, evaluate
from evalkit.components import FAMILIES
from evalkit.registry import BUILTIN_ORIGIN, DISABLE_ENV

REPO = Path(__file__).resolve().parent.parent

_counter = itertools.count()

HEADER = """\
from evalkit import hookimpl
from evalkit.components import Discount, Gain, IdcgStrategy, Metric, MetricOutput, Param, Preset, TiePolicy
import numpy as np
"""


class FakeSite:
    """Writes fake plugin distributions into one folder on ``sys.path``."""

    def __init__(self, root: Path, monkeypatch):
        self.root = root
        self.modules: list[str] = []
        monkeypatch.syspath_prepend(str(root))
        monkeypatch.setattr(registry_mod, "_entry_points", self.entry_points)

    def add(self, dist: str, body: str, ep_name: str | None = None, version: str = "1.0") -> str:
        """Create distribution ``dist`` whose entry point ``ep_name`` (default: the
        distribution name) loads a fresh module holding ``body``; returns the module name."""
        module = f"evk_fake_{dist.replace('-', '_')}_{next(_counter)}"
        (self.root / f"{module}.py").write_text(HEADER + textwrap.dedent(body))
        info = self.root / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
        (info / "entry_points.txt").write_text(f"[evalkit]\n{ep_name or dist} = {module}\n")
        self.modules.append(module)
        return module

    def entry_points(self):
        eps = []
        for dist in sorted(md.distributions(path=[str(self.root)]), key=lambda d: d.metadata["Name"]):
            eps.extend(ep for ep in dist.entry_points if ep.group == registry_mod.ENTRY_POINT_GROUP)
        return eps

    def module(self, name: str):
        return sys.modules[name]

    def cleanup(self):
        for name in self.modules:
            sys.modules.pop(name, None)


@pytest.fixture
def site(tmp_path, monkeypatch):
    monkeypatch.delenv(DISABLE_ENV, raising=False)
    s = FakeSite(tmp_path, monkeypatch)
    yield s
    s.cleanup()


FLAT_DISCOUNT = """
CALLS = {"discounts": 0, "fn": 0}

def flat(ranks, height):
    CALLS["fn"] += 1
    return np.full(len(ranks), height)

@hookimpl
def evalkit_register_discounts(register):
    CALLS["discounts"] += 1
    register(Discount(name="flat", fn=flat, params=(Param("height", "float", 1.0),),
                      formula="d(r) = height", source="test"))
"""


# ----------------------------------------------------------------------------- built-ins

EXPECTED_BUILTINS = {
    "gain": {"linear", "exp2", "map"},
    "discount": {"log2", "log", "jarvelin", "reciprocal", "none", "natural"},
    "idcg": {"judged", "returned", "returned_top_k"},
    "ties": {"input", "trec_eval", "average", "optimistic", "pessimistic"},
    "metric": {"dcg", "ndcg", "err", "ia_ndcg", "precision", "recall", "ap", "rr"},
    "preset": {"trec_eval.ndcg", "trec_eval.ndcg_cut", "jarvelin2002.ndcg", "burges2005.ndcg"},
}


def test_builtins_are_registered_with_builtin_origin():
    reg = build_registry(disable_plugins=True)
    assert set(reg.components) == set(FAMILIES)
    for family, names in EXPECTED_BUILTINS.items():
        assert names <= set(reg.names(family)), family
    for family, table in reg.components.items():
        for name, comp in table.items():
            assert comp.origin == BUILTIN_ORIGIN == "evalkit (built-in)", (family, name)
            assert isinstance(comp, FAMILIES[family])
    assert reg.plugins == {}


def test_unknown_component_lists_known_names():
    reg = build_registry(disable_plugins=True)
    with pytest.raises(FlavourError, match=r"unknown discount 'nope' \(known: .*jarvelin.*log2"):
        reg.get("discount", "nope")


def test_each_build_is_a_fresh_registry():
    a, b = build_registry(disable_plugins=True), build_registry(disable_plugins=True)
    assert a is not b and a.components is not b.components
    assert evalkit.default_registry(True) is evalkit.default_registry(True)


# ----------------------------------------------------------------------------- discovery

def test_plugin_is_discovered_through_its_entry_point_and_usable(site):
    site.add("evalkit-flat", FLAT_DISCOUNT, ep_name="flat")
    reg = build_registry(disable_plugins=False)
    comp = reg.get("discount", "flat")
    assert comp.origin == "evalkit-flat 1.0 (entry point 'flat')"
    assert reg.plugins == {"flat": "evalkit-flat 1.0 (entry point 'flat')"}
    # built-ins keep their own origin next to the plugin's
    assert reg.get("discount", "log2").origin == BUILTIN_ORIGIN
    # a flat discount of height 2 makes DCG twice the cumulative gain: 2 * (3 + 0 + 2)
    qrels = Qrels.from_rows([("q1", "a", 3), ("q1", "b", 0), ("q1", "c", 2)])
    run = Run.from_rows([("q1", "a", 3.0), ("q1", "b", 2.0), ("q1", "c", 1.0)], name="r")
    res = evaluate(qrels, run, ["dcg(discount=flat(height=2))"], registry=reg)
    assert res.values[0, 0, 0] == pytest.approx(10.0)
    assert str(res.flavours[0]) == "dcg(gain=linear,discount=flat(height=2),ties=trec_eval)"


ALL_HOOKS = """
@hookimpl
def evalkit_register_gains(register):
    register(Gain(name="half", fn=lambda g: g / 2.0, formula="g/2", source="test"))

@hookimpl
def evalkit_register_discounts(register):
    register(Discount(name="unit", fn=lambda r: np.ones(len(r)), formula="1", source="test"))

@hookimpl
def evalkit_register_idcg_strategies(register):
    register(IdcgStrategy(name="one", fn=lambda ctx: np.ones(ctx.ranked.n_queries), formula="1", source="test"))

@hookimpl
def evalkit_register_tie_policies(register):
    register(TiePolicy(name="docno", fn=lambda keys: np.lexsort((keys.docno, keys.query)),
                       formula="docno ascending", source="test"))

@hookimpl
def evalkit_register_metrics(register):
    def hits(inp):
        return MetricOutput(inp.per_query(inp.relevant(1.0) * inp.in_cutoff()), np.ones(inp.n_queries, bool))
    register(Metric(name="hits", fn=hits, formula="number of relevant documents in the top k", source="test"))

@hookimpl
def evalkit_register_presets(register):
    register(Preset(name="test.half", spec="dcg(gain=half,discount=unit,ties=docno)"))

@hookimpl
def evalkit_register_engines(register):
    from evalkit.components import Engine

    def first_flavour_only(qrels, runs, flavours, **options):
        import evalkit
        return evalkit.evaluate(qrels, runs, list(flavours)[:1], **options)
    register(Engine(name="first", fn=first_flavour_only, description="a toy backend"))
"""


def test_plugin_can_implement_every_hook(site):
    site.add("evalkit-all", ALL_HOOKS)
    reg = build_registry(disable_plugins=False)
    origin = "evalkit-all 1.0 (entry point 'evalkit-all')"
    for family, name in [("gain", "half"), ("discount", "unit"), ("idcg", "one"), ("ties", "docno"),
                         ("metric", "hits"), ("preset", "test.half"), ("engine", "first")]:
        assert reg.get(family, name).origin == origin
    qrels = Qrels.from_rows([("q1", "a", 4), ("q1", "b", 1), ("q1", "c", 0)])
    run = Run.from_rows([("q1", "c", 9.0), ("q1", "b", 8.0), ("q1", "a", 7.0)], name="r")
    res = evaluate(qrels, run, ["test.half", "ndcg(gain=half,discount=unit,idcg=one,ties=docno)@1",
                                "hits@2", "hits(ties=docno)@2"], registry=reg)
    # docno order a, b, c: half gains 2 + 0.5 + 0 = 2.5; @1 with IDCG 1: 2.0
    # hits@2 in score order (c, b) = 1; in docno order (a, b) = 2
    assert res.values[0, :, 0].tolist() == pytest.approx([2.5, 2.0, 1.0, 2.0])
    first = reg.get("engine", "first").fn(qrels, run, ["hits(ties=docno)@2", "hits@2"], registry=reg)
    assert first.values[0, :, 0].tolist() == [2.0]


STAGE_HOOKS = """
from evalkit.components import Aggregate, Divergence, GradeRule, NegativeRule, Outcome, Refusal, RunFilter

@hookimpl
def evalkit_register_grade_rules(register):
    register(GradeRule(name="halved", fn=lambda g: g / 2.0, reads_grades=True, formula="the gain reads g/2"))

@hookimpl
def evalkit_register_negative_rules(register):
    register(NegativeRule(name="refuse_all", fn=lambda g: g, formula="refuses every grade",
                          check=lambda g: Refusal(np.isfinite(g), lambda v, n: f"{n} grades refused")))

@hookimpl
def evalkit_register_run_filters(register):
    register(RunFilter(name="drop_top", fn=lambda inp: inp.ranked.rank == 1, formula="drop rank 1"))

@hookimpl
def evalkit_register_outcomes(register):
    register(Outcome(name="negated", fn=lambda v: -v, formula="-v"))

@hookimpl
def evalkit_register_aggregates(register):
    register(Aggregate(name="maximum", fn=lambda v: np.nanmax(v, axis=-1), formula="max"))

@hookimpl
def evalkit_register_divergences(register):
    register(Divergence(name="every_topic", fn=lambda qrels, run: qrels.qids, message="{topics} differ"))
"""


def test_plugin_can_implement_every_stage_hook(site):
    site.add("evalkit-stages", STAGE_HOOKS)
    reg = build_registry(disable_plugins=False)
    origin = "evalkit-stages 1.0 (entry point 'evalkit-stages')"
    for family, name in [("grades", "halved"), ("negative", "refuse_all"), ("run_filter", "drop_top"),
                         ("outcome", "negated"), ("aggregate", "maximum"), ("divergence", "every_topic")]:
        assert reg.get(family, name).origin == origin
    qrels = Qrels.from_rows([("q1", "a", 4), ("q1", "b", 1), ("q2", "c", 2)])
    run = Run.from_rows([("q1", "a", 9.0), ("q1", "b", 8.0), ("q2", "c", 7.0)], name="r")
    res = evaluate(qrels, run, ["dcg(grades=halved)@1", "dcg(run_filter=drop_top)@1",
                                "dcg(outcome=negated)@1", "dcg(aggregate=maximum)@1"], registry=reg)
    # dcg@1 of q1, q2: a (4) and c (2); halved grades 2, 1; without rank 1: b (1), nothing
    assert res.values[0, :, 0].tolist() == [2.0, 1.0, -4.0, 4.0]
    assert res.values[0, :, 1].tolist() == [1.0, 0.0, -2.0, 2.0]
    assert res.means(reg)[0, 3] == 4.0
    with pytest.raises(evalkit.errors.InvalidGradeError, match="3 grades refused"):
        evaluate(qrels, run, ["dcg(negative=refuse_all)@1"], registry=reg)


# ----------------------------------------------------------------------------- errors

def test_duplicate_with_builtin_names_both_origins(site):
    site.add("evalkit-dup", """
        @hookimpl
        def evalkit_register_discounts(register):
            register(Discount(name="log2", fn=lambda r: 1.0 / r))
    """)
    with pytest.raises(RegistryError) as info:
        build_registry(disable_plugins=False, strict=True)
    msg = str(info.value)
    assert "duplicate discount name 'log2'" in msg
    assert "evalkit (built-in)" in msg and "evalkit-dup 1.0" in msg


def test_duplicate_between_two_plugins_names_both_distributions(site):
    for dist in ("evalkit-aaa", "evalkit-bbb"):
        site.add(dist, """
            @hookimpl
            def evalkit_register_gains(register):
                register(Gain(name="cube", fn=lambda g: g ** 3))
        """)
    with pytest.raises(RegistryError, match=r"duplicate gain name 'cube'.*evalkit-aaa 1\.0.*evalkit-bbb 1\.0"):
        build_registry(disable_plugins=False, strict=True)


def test_two_distributions_with_one_entry_point_name(site):
    site.add("evalkit-first", FLAT_DISCOUNT, ep_name="same")
    site.add("evalkit-second", "", ep_name="same")
    with pytest.raises(RegistryError, match=r"plugin name 'same'.*evalkit-first 1\.0.*evalkit-second 1\.0"):
        build_registry(disable_plugins=False, strict=True)


def test_plugin_that_fails_to_import_names_its_distribution(site):
    site.add("evalkit-broken", "import evalkit_module_that_does_not_exist\n", ep_name="broken")
    with pytest.raises(RegistryError) as info:
        build_registry(disable_plugins=False, strict=True)
    msg = str(info.value)
    assert "evalkit-broken 1.0" in msg
    assert "entry point 'broken'" in msg
    assert "evalkit_module_that_does_not_exist" in msg
    assert f"{DISABLE_ENV}=broken" in msg  # the way out is in the message
    assert isinstance(info.value.__cause__, ImportError)
    # ... and that way out works
    reg = build_registry(disable_plugins=["broken"])
    assert reg.plugins == {}


def test_unknown_hook_fails_check_pending(site):
    site.add("evalkit-typo", """
        @hookimpl
        def evalkit_register_scorers(register):
            pass
    """)
    with pytest.raises(RegistryError, match=r"(?s)evalkit-typo 1\.0.*unknown hook.*evalkit_register_scorers"):
        build_registry(disable_plugins=False, strict=True)


def test_hookimpl_with_unknown_argument_is_invalid(site):
    site.add("evalkit-badarg", """
        @hookimpl
        def evalkit_register_gains(register, options):
            pass
    """)
    with pytest.raises(RegistryError, match=r"(?s)evalkit-badarg 1\.0.*invalid plugin.*options"):
        build_registry(disable_plugins=False, strict=True)


def test_wrong_component_type_through_a_hook(site):
    site.add("evalkit-wrongtype", """
        @hookimpl
        def evalkit_register_discounts(register):
            register(Gain(name="oops", fn=lambda g: g))
    """)
    with pytest.raises(RegistryError) as info:
        build_registry(disable_plugins=False, strict=True)
    msg = str(info.value)
    assert "evalkit-wrongtype 1.0" in msg
    assert "discount hook" in msg and "expected an evalkit.components.Discount" in msg


def test_not_a_component_at_all(site):
    site.add("evalkit-notcomp", """
        @hookimpl
        def evalkit_register_metrics(register):
            register("ndcg2")
    """)
    with pytest.raises(RegistryError, match=r"evalkit-notcomp 1\.0 \(entry point 'evalkit-notcomp'\) registered 'ndcg2' through the metric hook"):
        build_registry(disable_plugins=False, strict=True)


def test_hook_that_raises_is_reported_with_its_origin(site):
    site.add("evalkit-crash", """
        @hookimpl
        def evalkit_register_tie_policies(register):
            raise ZeroDivisionError("boom")
    """)
    with pytest.raises(RegistryError, match=r"evalkit-crash 1\.0.*evalkit_register_tie_policies failed: ZeroDivisionError: boom"):
        build_registry(disable_plugins=False, strict=True)


def test_plugin_calling_sys_exit_at_import_is_an_error_naming_it(site):
    """sys.exit(0) at import used to end every command with status 0 and no output."""
    site.add("evalkit-exits", "import sys\nsys.exit(0)\n", ep_name="exits")
    with pytest.raises(RegistryError) as info:
        build_registry(disable_plugins=False, strict=True)
    msg = str(info.value)
    assert "evalkit-exits 1.0" in msg and "entry point 'exits'" in msg
    assert "sys.exit(0)" in msg and f"{DISABLE_ENV}=exits" in msg
    assert isinstance(info.value.__cause__, SystemExit)


def test_plugin_calling_sys_exit_at_import_through_the_cli(site, capsys):
    """sys.exit(0) at import used to end every command with status 0 and no output;
    then it stopped every command (status 2). Now the plugin is disabled with one
    warning line naming it and the way to stop loading it, and the command works."""
    from evalkit.cli import main

    site.add("evalkit-exits", "import sys\nsys.exit(0)\n", ep_name="exits")
    registry_mod._cached.cache_clear()
    try:
        rc = main(["flavours", "trec_eval.ndcg_cut"])
    finally:
        registry_mod._cached.cache_clear()
    out, err = capsys.readouterr()
    assert rc == 0
    assert "trec_eval.ndcg_cut" in out
    warning = [line for line in err.splitlines() if line.startswith("evalkit: warning:")]
    assert len(warning) == 1, err
    assert "plugin 'exits' from evalkit-exits 1.0 (entry point 'exits') is disabled" in warning[0]
    assert "sys.exit(0)" in warning[0] and f"{DISABLE_ENV}=exits" in warning[0] and "--no-plugins" in warning[0]
    assert "Traceback" not in err


def test_keyboard_interrupt_during_import_is_not_swallowed(site):
    """Ctrl-C while a plugin imports stops evalkit (it is the user's, not the plugin's)."""
    site.add("evalkit-slow", "raise KeyboardInterrupt\n", ep_name="slow")
    with pytest.raises(KeyboardInterrupt):
        build_registry(disable_plugins=False)


def test_hook_calling_sys_exit_is_reported_with_its_origin(site):
    site.add("evalkit-hookexit", """
        import sys

        @hookimpl
        def evalkit_register_gains(register):
            sys.exit(3)
    """)
    with pytest.raises(RegistryError, match=r"evalkit-hookexit 1\.0.*evalkit_register_gains failed: it called sys\.exit\(3\)"):
        build_registry(disable_plugins=False, strict=True)


@pytest.mark.parametrize("family,body,expected", [
    ("gain", "register(Gain(name='short', fn=lambda g: g[:-1]))",
     r"gain 'short' failed evalkit's probe.*shape \(4,\); expected \(5,\)"),
    ("gain", "register(Gain(name='texty', fn=lambda g: g.astype(str)))",
     r"gain 'texty' failed evalkit's probe.*dtype <U32; expected a real"),
    ("discount", "register(Discount(name='nan', fn=lambda r: np.where(r > 2, np.nan, 1.0)))",
     r"discount 'nan' failed evalkit's probe.*non-finite values \(nan"),
    ("discount", "register(Discount(name='inf', fn=lambda r: 1.0 / (r - 1)))",
     r"discount 'inf' failed evalkit's probe.*non-finite values \(inf"),
    ("discount", "register(Discount(name='scalar', fn=lambda r: 1.0))",
     r"discount 'scalar' failed evalkit's probe.*shape \(\); expected \(5,\)"),
    ("ties", "register(TiePolicy(name='dup', fn=lambda keys: np.zeros(len(keys.query), dtype=np.int64)))",
     r"tie policy 'dup' failed evalkit's probe.*not a permutation"),
    ("ties", "register(TiePolicy(name='floaty', fn=lambda keys: np.arange(len(keys.query)) * 1.0))",
     r"tie policy 'floaty' failed evalkit's probe.*dtype float64; expected an integer"),
    ("ties", "register(TiePolicy(name='mixer', fn=lambda keys: np.arange(len(keys.query))[::-1].copy()))",
     r"tie policy 'mixer' failed evalkit's probe.*does not keep queries contiguous"),
    ("idcg", "register(IdcgStrategy(name='wide', fn=lambda ctx: np.ones(7)))",
     r"IDCG strategy 'wide' failed evalkit's probe.*shape \(7,\); expected \(2,\)"),
    ("metric", "register(Metric(name='bare', fn=lambda inp: np.zeros(inp.n_queries)))",
     r"metric 'bare' failed evalkit's probe.*expected an evalkit.components.MetricOutput"),
    ("metric", "register(Metric(name='nanm', fn=lambda inp: MetricOutput(np.full(inp.n_queries, np.nan), np.ones(inp.n_queries, bool))))",
     r"metric 'nanm' failed evalkit's probe.*non-finite"),
    ("metric", "register(Metric(name='crashm', fn=lambda inp: 1 / 0))",
     r"metric 'crashm' raised ZeroDivisionError.*probed"),
    ("metric", "register(Metric(name='exitm', fn=lambda inp: sys.exit(0)))",
     r"metric 'exitm' raised SystemExit"),
])
def test_components_are_probed_at_build(site, family, body, expected):
    """Every component runs once at build on a small input; a wrong output is an error
    naming the distribution and the component (before it could give 0.0 silently)."""
    hook = {"gain": "gains", "discount": "discounts", "ties": "tie_policies",
            "idcg": "idcg_strategies", "metric": "metrics"}[family]
    site.add("evalkit-probed", f"""
        import sys

        @hookimpl
        def evalkit_register_{hook}(register):
            {body}
    """)
    with pytest.raises(RegistryError, match="(?s)evalkit-probed 1\\.0.*" + expected):
        build_registry(disable_plugins=False, strict=True)


def test_probe_accepts_integer_outputs_and_skips_required_parameters(site):
    """Integer gains are real numbers; a component whose parameter has no default
    cannot be called without a flavour string, so it is not probed at build."""
    site.add("evalkit-okay", """
        @hookimpl
        def evalkit_register_gains(register):
            register(Gain(name="ints", fn=lambda g: g.astype(np.int64)))
            register(Gain(name="needs", fn=lambda g, base: g[:1], params=(Param("base", "float"),)))
    """)
    reg = build_registry(disable_plugins=False)
    assert {"ints", "needs"} <= set(reg.names("gain"))


@pytest.mark.parametrize("family,name", [
    ("gain", "my gain"), ("gain", "2x"), ("discount", "log(2)"), ("metric", "nd-cg"),
    ("ties", "tie,break"), ("gain", "gaín"), ("preset", "lib.ndcg@10"), ("preset", "lib ndcg"),
])
def test_component_names_must_be_identifiers(site, family, name):
    make = {"gain": "Gain(name={n!r}, fn=lambda g: g)",
            "discount": "Discount(name={n!r}, fn=lambda r: 1.0 / r)",
            "metric": "Metric(name={n!r}, fn=lambda inp: None)",
            "ties": "TiePolicy(name={n!r}, fn=lambda keys: keys.identity())",
            "preset": "Preset(name={n!r}, spec='ndcg')"}[family].format(n=name)
    hook = {"gain": "gains", "discount": "discounts", "ties": "tie_policies",
            "metric": "metrics", "preset": "presets"}[family]
    site.add("evalkit-names", f"""
        @hookimpl
        def evalkit_register_{hook}(register):
            register({make})
    """)
    with pytest.raises(RegistryError, match=r"evalkit-names 1\.0.*invalid " + family + " name"):
        build_registry(disable_plugins=False, strict=True)


def test_aliases_must_be_identifiers(site):
    site.add("evalkit-alias", """
        @hookimpl
        def evalkit_register_gains(register):
            register(Gain(name="lin2", fn=lambda g: g), aliases=("lin 2",))
    """)
    with pytest.raises(RegistryError, match=r"invalid alias 'lin 2' for gain 'lin2'"):
        build_registry(disable_plugins=False, strict=True)


def test_plugin_preset_with_unknown_component(site):
    site.add("evalkit-badpreset", """
        @hookimpl
        def evalkit_register_presets(register):
            register(Preset(name="x.bad", spec="ndcg(gain=quadratic)"))
    """)
    # the registry does not parse flavours (a layer above it); the presets layer
    # does, where the preset is expanded and in the CLI's start-up check
    from evalkit.presets import check_presets, expand_spec

    reg = build_registry(disable_plugins=False)
    for check in (check_presets, lambda r: expand_spec("x.bad@5", r)):
        with pytest.raises(RegistryError, match=r"preset 'x\.bad' from evalkit-badpreset 1\.0.*unknown gain 'quadratic'"):
            check(reg)


def test_broken_plugin_preset_fails_only_when_used(site, capsys):
    """Built-in presets are not parsed at start-up; a plugin's are, and a plugin with a
    broken preset is disabled with a warning: a command that does not use it works; one
    that asks for it exits 2 naming the preset, the plugin and the parse error."""
    from evalkit.cli import main

    site.add("evalkit-badpreset", """
        @hookimpl
        def evalkit_register_presets(register):
            register(Preset(name="x.bad", spec="ndcg(gain=quadratic)"))
    """)
    qrels = REPO / "examples" / "quickstart" / "qrels.txt"
    run = REPO / "examples" / "quickstart" / "system_a.run"
    registry_mod._cached.cache_clear()
    try:
        assert main(["eval", str(qrels), str(run), "-m", "trec_eval.ndcg_cut@10", "--format", "json"]) == 0
        capsys.readouterr()
        assert main(["eval", str(qrels), str(run), "-m", "x.bad@5"]) == 2
    finally:
        registry_mod._cached.cache_clear()
    err = capsys.readouterr().err
    assert "preset 'x.bad' comes from plugin 'evalkit-badpreset' (evalkit-badpreset 1.0" in err, err
    assert "unknown gain 'quadratic'" in err and "Traceback" not in err


# ----------------------------------------------------------------------------- disabling

@pytest.fixture
def two_plugins(site):
    site.add("evalkit-flat", FLAT_DISCOUNT, ep_name="flat")
    site.add("evalkit-all", ALL_HOOKS, ep_name="all")
    return site


@pytest.mark.parametrize("value", ["1", "all", "true", "ALL"])
def test_env_var_disables_every_plugin(two_plugins, monkeypatch, value):
    monkeypatch.setenv(DISABLE_ENV, value)
    reg = build_registry()
    assert reg.plugins == {}
    assert "flat" not in reg.names("discount") and "half" not in reg.names("gain")
    assert "log2" in reg.names("discount")  # built-ins stay


@pytest.mark.parametrize("value", ["0", "", "false"])
def test_env_var_off_values_keep_plugins(two_plugins, monkeypatch, value):
    monkeypatch.setenv(DISABLE_ENV, value)
    assert set(build_registry().plugins) == {"flat", "all"}


def test_env_var_comma_list_disables_only_those(two_plugins, monkeypatch):
    monkeypatch.setenv(DISABLE_ENV, "flat, something-else")
    reg = build_registry()
    assert set(reg.plugins) == {"all"}
    assert "flat" not in reg.names("discount") and "half" in reg.names("gain")
    monkeypatch.setenv(DISABLE_ENV, "all,flat")
    assert build_registry().plugins == {}


def test_build_registry_argument_overrides_env(two_plugins, monkeypatch):
    monkeypatch.setenv(DISABLE_ENV, "1")
    assert set(build_registry(disable_plugins=False).plugins) == {"flat", "all"}
    monkeypatch.delenv(DISABLE_ENV)
    assert build_registry(disable_plugins=True).plugins == {}
    assert set(build_registry(disable_plugins=["all"]).plugins) == {"flat"}
    # a string is a comma-separated list of names, not a set of characters
    assert set(build_registry(disable_plugins="flat").plugins) == {"all"}
    assert build_registry(disable_plugins="flat,all").plugins == {}


# ----------------------------------------------------------------------------- call counts

def _many_queries(n_queries: int, depth: int = 20, seed: int = 0):
    rng = np.random.default_rng(seed)
    qids = np.repeat([f"q{i:04d}" for i in range(n_queries)], depth)
    docnos = np.tile([f"d{j:02d}" for j in range(depth)], n_queries)
    grades = rng.integers(0, 4, size=len(qids))
    scores = rng.random(len(qids))
    qrels = Qrels.from_rows(list(zip(qids, docnos, grades.tolist())))
    run = Run.from_rows(list(zip(qids, docnos, scores.tolist())), name="sys")
    return qrels, run


def test_hooks_called_once_per_build_and_never_during_evaluation(site):
    name = site.add("evalkit-flat", FLAT_DISCOUNT, ep_name="flat")
    reg = build_registry(disable_plugins=False)
    calls = site.module(name).CALLS
    assert calls == {"discounts": 1, "fn": 1}  # the hook once, the kernel once (the build's probe)

    build_registry(disable_plugins=False)
    assert calls == {"discounts": 2, "fn": 2}  # once more for the second registry, not more

    flavours = ["dcg(discount=flat)@10", "ndcg(discount=flat(height=3),idcg=returned)@5"]
    small = evaluate(*_many_queries(3), flavours, registry=reg)
    after_small = dict(calls)
    big = evaluate(*_many_queries(500), flavours, registry=reg)
    # no hook call during evaluation ...
    assert calls["discounts"] == 2
    # ... and the component function is called per flavour, not per query: the same
    # number of times for 3 and for 500 queries
    assert calls["fn"] - after_small["fn"] == after_small["fn"] - 2 > 0
    assert small.values.shape == (1, 2, 3) and big.values.shape == (1, 2, 500)
    assert np.isfinite(big.values).all()


def test_no_plugin_manager_during_evaluation(site, monkeypatch):
    site.add("evalkit-flat", FLAT_DISCOUNT, ep_name="flat")
    reg = build_registry(disable_plugins=False)

    def forbidden(*args, **kwargs):
        raise AssertionError("pluggy used during evaluation")

    import pluggy

    monkeypatch.setattr(pluggy, "PluginManager", forbidden)
    monkeypatch.setattr(registry_mod, "PluginManager", forbidden)
    monkeypatch.setattr(registry_mod, "build_registry", forbidden)
    res = evaluate(*_many_queries(50), ["dcg(discount=flat)@10", "trec_eval.ndcg_cut@10"], registry=reg)
    assert res.values.shape == (1, 2, 50)


# ----------------------------------------------------------------------------- coverage of hooks

def _hookspec_names() -> list[str]:
    tree = ast.parse(Path(evalkit.hookspecs.__file__).read_text())
    return [
        node.name for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any(getattr(d, "id", None) == "hookspec" for d in node.decorator_list)
    ]


def test_every_hookspec_has_a_test():
    """datasette's rule: each hook is exercised by a test in this file."""
    names = _hookspec_names()
    assert len(names) == len(registry_mod._HOOK_FOR_FAMILY) == len(FAMILIES)
    assert set(names) == set(registry_mod._HOOK_FOR_FAMILY.values())
    text = Path(__file__).read_text()
    body = text.split("def _hookspec_names", 1)[0]  # tests, not this check
    missing = [n for n in names if f"def {n}(" not in body]
    assert not missing, f"hooks without a test implementing them: {missing}"
