"""The conformance entries of the third-party plugins in ``plugins/`` that have them
(``cf_search_relevance.py`` for ``plugins/evalkit-search-relevance``): each preset the
plugin registers has an entry and conforms, per query and on the mean, like the
built-in presets of ``test_conformance.py``.

The plugin is used as installed when it is (``pip install ./plugins/evalkit-search-relevance``);
otherwise it is loaded from its source folder through the same ``evalkit`` entry point,
so the suite covers it either way. Its rows are not part of ``docs/conformance.md``
(the page of the built-in presets).
"""

from __future__ import annotations

import importlib.metadata as md
from pathlib import Path

import pytest

import cf_refs
from cf_search_relevance import ENTRIES
from cf_suite import run_entry

import evalkit.registry as registry_mod
from evalkit.registry import BUILTIN_ORIGIN, DISABLE_ENV

REPO = Path(__file__).resolve().parents[2]
PLUGIN = ("search_relevance", "evalkit_search_relevance", REPO / "plugins" / "evalkit-search-relevance")
BY_PRESET = {e.preset: e for e in ENTRIES}

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module", autouse=True)
def plugin_loaded(request):
    """The default registry with the plugin: installed, or from its source folder."""
    cache = getattr(request.config, "cache", None)
    if cache is not None:
        cf_refs.CACHE = Path(cache.mkdir("conformance"))
    mp = pytest.MonkeyPatch()
    mp.delenv(DISABLE_ENV, raising=False)
    name, module, folder = PLUGIN
    if not any(ep.name == name for ep in md.entry_points(group="evalkit")):
        mp.syspath_prepend(str(folder))
        found = registry_mod._entry_points
        # the source folder on sys.path may hold the *.egg-info a local build leaves
        # there: that copy is the same plugin, not a second distribution
        mp.setattr(registry_mod, "_entry_points",
                   lambda: [*(ep for ep in found() if ep.name != name),
                            md.EntryPoint(name=name, value=module, group="evalkit")])
    registry_mod._cached.cache_clear()
    try:
        yield registry_mod.default_registry(False)
    finally:
        mp.undo()
        registry_mod._cached.cache_clear()


def test_every_preset_of_the_plugin_has_an_entry(plugin_loaded):
    reg = plugin_loaded
    origin = reg.plugins[PLUGIN[0]]
    presets = {n for n in reg.names("preset") if reg.get("preset", n).origin == origin}
    assert presets == set(BY_PRESET), "a preset of the plugin without a conformance entry, or an entry without preset"
    assert all(reg.get("preset", n).origin != BUILTIN_ORIGIN for n in BY_PRESET)


@pytest.mark.parametrize("preset", sorted(BY_PRESET))
def test_plugin_preset_conforms(plugin_loaded, preset):
    r = run_entry(BY_PRESET[preset])
    assert r.status == "pass", "\n".join([r.status] + r.problems[:20])
    assert r.queries > 0
