"""The lazily built registry (issue 27): its index of built-in names is the eager
registry's, it loads only the built-in module a name needs, and every name, origin,
order and message is the eager registry's.

The eager registry (``build_registry(lazy=False)``) registers every built-in module at
build, as evalkit did before; the lazy one (the default) registers a module when one of
its names is first asked for, through :mod:`evalkit.builtin_index`.
"""

from __future__ import annotations

import pickle
import threading
import textwrap
from pathlib import Path

import pytest

import evalkit.registry as registry_mod
from evalkit import FlavourError, RegistryError, build_registry
from evalkit.components import Engine, Gain, Preset
from evalkit.registry import BUILTIN_ORIGIN, DEFAULT_PLUGINS, builtin_index_source

REPO = Path(__file__).resolve().parent.parent
INDEX = REPO / "evalkit" / "builtin_index.py"


def loaded(reg: registry_mod.Registry) -> set[tuple[str, str]]:
    """The ``(family, name)`` pairs registered so far (nothing loaded on the way)."""
    return {(family, name) for family, table in reg._components.items() for name in table}


def test_the_index_is_generated_from_the_eager_registry():
    """evalkit/builtin_index.py is what builtin_index_source() writes now: a built-in
    component added, renamed or moved without regenerating it fails here."""
    assert INDEX.read_text() == builtin_index_source(), (
        "evalkit/builtin_index.py is out of date; write it again with: python -c \"import evalkit.registry as r; "
        "open('evalkit/builtin_index.py', 'w').write(r.builtin_index_source())\"")


def test_the_index_names_every_builtin_and_its_module():
    from evalkit import builtin_index as index

    eager = build_registry(disable_plugins=True, lazy=False)
    for family, table in eager.components.items():
        assert list(index.NAMES.get(family, {})) == list(table), family
        assert index.ALIASES.get(family, {}) == eager.alias_names[family], family
    assert set(index.NAMES["preset"].values()) | set(index.NAMES["gain"].values()) <= set(DEFAULT_PLUGINS)
    assert index.NAMES["preset"]["trec_eval.ndcg_cut"] == "evalkit.libraries.trec_eval"
    assert index.NAMES["ties"]["numba_quicksort"] == "evalkit.libraries.ranx"
    assert index.ALIASES["engine"] == {"local": "columnar"}


def test_the_divergence_index_holds_each_presets_metric():
    from evalkit import builtin_index as index
    from evalkit.flavour import parse_flavour

    eager = build_registry(disable_plugins=True, lazy=False)
    declaring = {p.name: p for p in eager.components["preset"].values() if p.divergences()}
    assert set(index.DIVERGING_PRESETS) == set(declaring) and len(declaring) == 6
    for name, (module, metric) in index.DIVERGING_PRESETS.items():
        assert parse_flavour(declaring[name].spec, eager).metric == metric
        assert index.NAMES["preset"][name] == module


def test_fully_loaded_the_lazy_registry_is_the_eager_one():
    """Same families, components (the same objects' values), origins, aliases, and in
    the same order, whatever was asked for first."""
    eager = build_registry(disable_plugins=True, lazy=False)
    lazy = build_registry(disable_plugins=True)
    lazy.get("gain", "exp2_from")  # recsys first, then the built-in gains
    lazy.get("preset", "trec_eval.ndcg_cut")
    lazy.get("engine", "local")
    for family in eager.components:
        assert list(lazy.components[family].items()) == list(eager.components[family].items()), family
        assert list(lazy.alias_names[family].items()) == list(eager.alias_names[family].items()), family
        assert lazy.names(family) == eager.names(family)
    assert {c.origin for table in lazy.components.values() for c in table.values()} == {BUILTIN_ORIGIN}


def holding(*modules: str) -> set[tuple[str, str]]:
    """The ``(family, name)`` pairs :mod:`evalkit.builtin_index` gives ``modules``."""
    from evalkit import builtin_index as index

    return {(family, name) for family, table in index.NAMES.items() for name, module in table.items()
            if module in modules}


def test_a_name_loads_only_its_module():
    reg = build_registry(disable_plugins=True)
    assert loaded(reg) == set()
    assert reg.preset("trec_eval.ndcg_cut").origin == BUILTIN_ORIGIN
    assert loaded(reg) == holding("evalkit.libraries.trec_eval") and ("preset", "trec_eval.ndcg") in loaded(reg)
    assert reg.get("engine", "local").name == "columnar"  # an alias loads its module too
    assert loaded(reg) == holding("evalkit.libraries.trec_eval", "evalkit.builtin_backends")
    assert reg.find("gain", "no_such_gain") is None  # not a built-in name: nothing more loaded
    assert reg.is_alias("discount", "log") and not reg.is_alias("discount", "log2")  # log = log2 at its defaults
    assert loaded(reg) == holding("evalkit.libraries.trec_eval", "evalkit.builtin_backends",
                                  "evalkit.builtins.discounts")


@pytest.mark.parametrize("family, name", [("gain", "exp"), ("discount", "log3"), ("metric", "ndcgg"),
                                          ("preset", "trec_eval.ndcg_cutt"), ("ties", "trec"), ("engine", "spark2"),
                                          ("run_filter", "firstt"), ("grades", "lightgbmm")])
def test_an_unknown_name_lists_every_name(family, name):
    eager = build_registry(disable_plugins=True, lazy=False)
    lazy = build_registry(disable_plugins=True)
    lazy.get("metric", "ndcg")
    with pytest.raises(FlavourError) as expected:
        eager.get(family, name)
    with pytest.raises(FlavourError) as got:
        lazy.get(family, name)
    assert str(got.value) == str(expected.value) and "unknown" in str(got.value)


def test_a_name_taken_by_a_builtin_not_loaded_yet_is_refused_as_before():
    """The built-in holding the name registers first (as in an eager build), so the
    duplicate is the plugin's, with the same message."""
    origin = "evalkit-x 1.0 (entry point 'x')"
    taken = "duplicate gain name 'exp2_from': registered by evalkit (built-in) and by "
    for family, name, aliases, expected in (
            ("gain", "exp2_from", (), taken),
            ("gain", "fresh", ("exp2_from",), taken),
            ("engine", "local", (), "duplicate engine name 'local': registered by evalkit (built-in) (alias of "
                                    "'columnar') and by ")):
        messages = []
        for reg in (build_registry(disable_plugins=True, lazy=False), build_registry(disable_plugins=True)):
            component = (Gain(name=name, fn=lambda g: g, source="t") if family == "gain"
                         else Engine(name=name, fn=lambda *a: None))
            with pytest.raises(RegistryError) as exc:
                reg.add(family, component, origin, aliases=aliases)
            messages.append(str(exc.value))
        assert messages[0] == messages[1] == expected + origin


def test_a_plugin_taking_a_builtin_name_is_disabled_as_before(tmp_path, monkeypatch):
    """Through the entry points: the same warning, the plugin's other components gone,
    the built-in kept, lazily and eagerly."""
    import importlib.metadata as md
    import sys

    (tmp_path / "evk_takes_exp2_from.py").write_text(textwrap.dedent("""
        from evalkit import hookimpl
        from evalkit.components import Gain

        @hookimpl
        def evalkit_register_gains(register):
            register(Gain(name="mine", fn=lambda g: g, source="t"))
            register(Gain(name="exp2_from", fn=lambda g: g, source="t"))
    """))
    info = tmp_path / "evalkit_takes-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evalkit-takes\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[evalkit]\ntakes = evk_takes_exp2_from\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry_mod, "_entry_points",
                        lambda: [ep for d in md.distributions(path=[str(tmp_path)]) for ep in d.entry_points
                                 if ep.group == "evalkit"])
    try:
        seen = []
        for lazy in (False, True):
            with pytest.warns(Warning) as caught:
                reg = build_registry(disable_plugins=False, lazy=lazy)
            seen.append(([str(w.message) for w in caught], [(d.name, d.reason) for d in reg.disabled],
                         reg.get("gain", "exp2_from").origin, reg.find("gain", "mine")))
        assert seen[0] == seen[1]
        assert seen[0][2] == BUILTIN_ORIGIN and seen[0][3] is None
        assert ("duplicate gain name 'exp2_from': registered by evalkit (built-in) and by evalkit-takes 1.0"
                in seen[0][0][0])
    finally:
        sys.modules.pop("evk_takes_exp2_from", None)


def test_presets_with_divergences_loads_only_what_may_match():
    eager = build_registry(disable_plugins=True, lazy=False)
    everything = [p for p in eager.components["preset"].values() if p.divergences()]
    lazy = build_registry(disable_plugins=True)
    assert lazy.presets_with_divergences(metrics={"ndcg"}) == []
    assert not any(n.startswith(("pyndeval.", "ir_measures.")) for _, n in loaded(lazy))
    assert lazy.presets_with_divergences(metrics={"err_ia"}) == [p for p in everything if "err_ia" in p.spec]
    assert lazy.presets_with_divergences() == everything == build_registry(True).presets_with_divergences()


def test_a_lazy_registry_pickles_whole():
    """The Spark backend pickles a given registry to its executors: every component goes."""
    reg = build_registry(disable_plugins=True)
    reg.get("metric", "ndcg")
    again = pickle.loads(pickle.dumps(reg))
    assert again.names("preset") == build_registry(True, lazy=False).names("preset")
    assert again.get("ties", "numba_quicksort").origin == BUILTIN_ORIGIN


def test_threads_asking_at_once_register_each_module_once():
    reg = build_registry(disable_plugins=True)
    names = [("preset", "ranx.ndcg"), ("ties", "numba_quicksort"), ("metric", "ndcg"), ("gain", "exp2"),
             ("preset", "trec_eval.ndcg_cut"), ("metric", "alpha_ndcg")] * 3
    start = threading.Barrier(len(names))
    errors: list[BaseException] = []

    def ask(family: str, name: str) -> None:
        start.wait()
        try:
            reg.get(family, name)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=ask, args=pair) for pair in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(reg.components["preset"]) == len(build_registry(True, lazy=False).components["preset"])


def test_a_user_registry_is_plain():
    """``Registry()`` built by hand holds what is added to it, nothing built in."""
    reg = registry_mod.Registry()
    reg.add("preset", Preset(name="mine.ndcg", spec="ndcg"), "me")
    assert reg.names("preset") == ["mine.ndcg"] and reg.find("preset", "trec_eval.ndcg_cut") is None


def test_preset_names_are_checked_as_the_pattern_reads_them():
    """valid_name('preset', ...) checks with string methods what PRESET_NAME_PATTERN
    matches (every string of up to 5 characters over a small alphabet, and real names)."""
    import itertools
    import re

    pattern = re.compile(registry_mod.PRESET_NAME_PATTERN)
    names = ["trec_eval.ndcg_cut", "xgboost.ndcg-", "a.1b", "a-b.c_d", "recsys.implicit.ndcg", "a.", ".a", "a--",
             "a.-", "-a", "1a", "a\n", "a b", "a@10", "_", "a-_", "A.B-C_9-"]
    names += ["".join(t) for n in range(6) for t in itertools.product("a1_.-", repeat=n)]
    for name in names:
        assert registry_mod.valid_name("preset", name) == (pattern.match(name) is not None), repr(name)


def test_builtin_hook_implementations_are_their_evalkit_functions():
    """The registry's plugin manager reads only the ``evalkit_*`` attributes of a
    built-in module: pluggy's own manager finds no other hook implementation there."""
    import importlib

    import pluggy

    from evalkit import hookspecs

    for modname in DEFAULT_PLUGINS:
        module = importlib.import_module(modname)
        found = []
        for manager_class in (pluggy.PluginManager, registry_mod.PluginManager):
            manager = manager_class(hookspecs.PROJECT_NAME)
            manager.add_hookspecs(hookspecs)
            manager.register(module, name=modname)
            found.append(sorted((caller.name, impl.function.__name__) for caller in manager.get_hookcallers(module)
                                for impl in caller.get_hookimpls() if impl.plugin is module))
        assert found[0] == found[1] and found[0], modname


def test_builtins_registered_directly_are_what_pluggy_registers():
    """A lazily built registry registers a built-in module without a plugin manager
    (:func:`evalkit.registry.builtin_hookimpls`): the same functions, in the same hook
    order, called with the same arguments as pluggy's manager registers (plain
    implementations: no wrapper, which the registry refuses), and pluggy finds no
    unknown hook in any built-in module (``check_pending``)."""
    import importlib

    from evalkit import hookspecs

    for modname in DEFAULT_PLUGINS:
        module = importlib.import_module(modname)
        manager = registry_mod.PluginManager(hookspecs.PROJECT_NAME)
        manager.add_hookspecs(hookspecs)
        manager.register(module, name=modname)
        manager.check_pending()
        by_pluggy = {caller.name: impl for caller in manager.get_hookcallers(module)
                     for impl in caller.get_hookimpls() if impl.plugin is module}
        direct = registry_mod.builtin_hookimpls(module)
        assert [hook for _, hook, _ in direct] == [h for h in registry_mod._HOOK_FOR_FAMILY.values() if h in by_pluggy]
        for family, hook, impl in direct:
            theirs = by_pluggy[hook]
            assert (impl.function, impl.argnames) == (theirs.function, theirs.argnames), (modname, hook)
            assert not (theirs.hookwrapper or theirs.wrapper or theirs.tryfirst or theirs.trylast), (modname, hook)
            assert registry_mod._HOOK_FOR_FAMILY[family] == hook


def test_a_start_without_plugins_makes_no_plugin_manager(monkeypatch):
    """No third-party plugin to load: no pluggy ``PluginManager`` is made (its hook
    specifications are not read); the built-ins load directly, as the eager registry
    that pluggy's manager fills has them."""
    made = []
    real = registry_mod.PluginManager
    monkeypatch.setattr(registry_mod, "PluginManager", lambda *a: made.append(a) or real(*a))
    lazy = build_registry(disable_plugins=True)
    assert lazy.get("preset", "trec_eval.ndcg_cut").origin == BUILTIN_ORIGIN and made == []
    monkeypatch.setattr(registry_mod, "_entry_points", lambda: [])
    assert build_registry(disable_plugins=False).names("gain") and made == []
    build_registry(disable_plugins=True, lazy=False)
    assert made == [("evalkit",)]


def test_builtins_imported_before_pluggy_are_marked_when_it_is():
    """A built-in module imported while pluggy is not (a start with no plugin) gets
    pluggy's ``@hookimpl`` marks once :mod:`evalkit.hookspecs` is imported: pluggy's own
    manager then finds in it the implementations the registry calls directly, and an
    eager registry (every built-in through pluggy) equals the lazy one."""
    import subprocess
    import sys

    code = textwrap.dedent("""
        import importlib, sys
        import evalkit.registry as r
        modules = [importlib.import_module(m) for m in r.DEFAULT_PLUGINS]
        assert "pluggy" not in sys.modules and "evalkit.hookspecs" not in sys.modules
        lazy = r.build_registry(disable_plugins=True)
        lazy_names = {f: list(t) for f, t in lazy.components.items()}
        assert "pluggy" not in sys.modules
        import pluggy
        from evalkit import hookspecs
        for module in modules:
            pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
            pm.add_hookspecs(hookspecs)
            pm.register(module)
            pm.check_pending()
            found = sorted((c.name, i.function.__name__) for c in pm.get_hookcallers(module) for i in c.get_hookimpls())
            direct = sorted((hook, impl.function.__name__) for _, hook, impl in r.builtin_hookimpls(module))
            assert found == direct and found, (module.__name__, found, direct)
        eager = r.build_registry(disable_plugins=True, lazy=False)
        assert {f: list(t) for f, t in eager.components.items()} == lazy_names
        print("ok")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
