"""The conformance suite: every preset against its reference, per query and on the
mean, on real and generated tied data; writes/checks ``docs/conformance.md`` and
``evalkit/conformance.json``. See ``tests/conformance/README.md``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import cf_refs
from cf_entries import BY_MODULE, ENTRIES
from cf_suite import render_json, render_page, run_entry

from evalkit import build_registry

from conftest import layer_of_preset

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "conformance.md"
ROWS_JSON = REPO / "evalkit" / "conformance.json"
PRESETS = build_registry(disable_plugins=True).names("preset")
BY_PRESET = {e.preset: e for e in ENTRIES}
_ROWS: dict = {}

pytestmark = pytest.mark.shared


@pytest.fixture(scope="session", autouse=True)
def _build_cache(request):
    # pytest's cache directory when the cache plugin runs (-p no:cacheprovider leaves
    # the temporary-directory default of cf_refs.CACHE)
    cache = getattr(request.config, "cache", None)
    if cache is not None:
        cf_refs.CACHE = Path(cache.mkdir("conformance"))


def row(preset: str):
    if preset not in _ROWS:
        _ROWS[preset] = run_entry(BY_PRESET[preset])
    return _ROWS[preset]


def test_entries_name_existing_presets_once():
    names = [e.preset for e in ENTRIES]
    assert len(names) == len(set(names)), "a preset has two conformance entries"
    assert not set(names) - set(PRESETS), f"entries for unknown presets: {sorted(set(names) - set(PRESETS))}"


def test_entries_live_beside_their_library():
    """``entries/<module>.py`` holds exactly the entries of the presets that
    ``evalkit/libraries/<module>.py`` registers, and every built-in preset comes from a
    library module (none from the generic components of ``evalkit/builtins``)."""
    import importlib

    from evalkit.libraries import MODULES

    registered: dict[str, set] = {}
    for modname in MODULES:
        got: list = []
        importlib.import_module(modname).evalkit_register_presets(lambda p, aliases=(): got.append(p.name))
        registered[modname.rsplit(".", 1)[1]] = set(got)
    assert set().union(*registered.values()) == set(PRESETS)
    assert sorted(BY_MODULE) == sorted(registered), "one entries/<module>.py per evalkit/libraries/<module>.py"
    for module, presets in registered.items():
        beside = {e.preset for e in BY_MODULE[module]}
        assert beside == presets, (f"tests/conformance/entries/{module}.py: entries for presets not in "
                                   f"evalkit/libraries/{module}.py: {sorted(beside - presets)}; missing: "
                                   f"{sorted(presets - beside)}")


@pytest.mark.parametrize("preset", PRESETS)
def test_preset_conforms(preset):
    if preset not in BY_PRESET:
        pytest.fail(f"preset {preset!r} has no conformance entry: add one to the ENTRIES of "
                    f"tests/conformance/entries/<module>.py, beside evalkit/libraries/<module>.py")
    r = row(preset)
    assert r.status == "pass", "\n".join([r.status] + r.problems[:20])


def test_published_page_lists_every_preset_in_order():
    """``docs/conformance.md`` has one row per registered preset, in the registry's order, and
    ``evalkit/conformance.json`` one entry each; the rows' content is checked per layer
    (:func:`test_published_rows_are_what_the_suite_produces`), each in its own environment."""
    missing = [p for p in PRESETS if p not in BY_PRESET]
    assert not missing, f"presets without a conformance entry: {missing}"
    page = PAGE.read_text()
    head = render_page([])
    assert page.startswith(head), "docs/conformance.md: the header differs from what the suite produces"
    listed = [line.split("|")[1].strip().strip("`") for line in page[len(head):].splitlines()]
    assert listed == list(PRESETS), "docs/conformance.md: rows differ from the registered presets (or their order)"
    assert sorted(json.loads(ROWS_JSON.read_text())) == sorted(PRESETS), \
        "evalkit/conformance.json: entries differ from the registered presets"


def _page_line(row) -> str:
    return render_page([row]).splitlines()[-1]


@pytest.mark.parametrize("layer", sorted({layer_of_preset(p) for p in PRESETS}))
def test_published_rows_are_what_the_suite_produces(layer):
    """The rows of ``layer``'s presets in ``docs/conformance.md`` and
    ``evalkit/conformance.json`` are what the suite produces in this environment (each
    layer runs in its own: ``nox``); with ``EVALKIT_WRITE_CONFORMANCE=1`` they are
    rewritten in place, so running every session so regenerates the whole page."""
    presets = [p for p in PRESETS if layer_of_preset(p) == layer and p in BY_PRESET]
    assert presets, f"no preset in layer {layer}"
    rows = {p: row(p) for p in presets}
    lines = PAGE.read_text().split("\n")
    data = json.loads(ROWS_JSON.read_text())
    at = {line.split("|")[1].strip().strip("`"): i for i, line in enumerate(lines) if line.startswith("| `")}
    if os.environ.get("EVALKIT_WRITE_CONFORMANCE") == "1":
        for p, r in rows.items():
            lines[at[p]] = _page_line(r)
            data[p] = json.loads(render_json([r]))[p]
        PAGE.write_text("\n".join(lines))
        ROWS_JSON.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    differ = [p for p, r in rows.items() if lines[at[p]] != _page_line(r)]
    assert not differ, (f"docs/conformance.md: the rows of {differ} differ from what the suite produces; "
                        "regenerate with EVALKIT_WRITE_CONFORMANCE=1")
    differ = [p for p, r in rows.items() if data.get(p) != json.loads(render_json([r]))[p]]
    assert not differ, f"evalkit/conformance.json: the entries of {differ} differ from what the suite produces"


def test_flavours_verbose_shows_each_row(capsys):
    """``evalkit flavours --verbose`` prints each preset's row from the package data,
    the same status as the committed page."""
    from evalkit.cli import main

    assert main(["flavours", "--verbose", "--format", "json"]) == 0
    infos = {i["name"]: i for i in json.loads(capsys.readouterr().out)}
    committed = json.loads(ROWS_JSON.read_text())
    for name in PRESETS:
        assert infos[name]["conformance"] == committed.get(name), name
        assert f"| `{name}` |" in PAGE.read_text()
    # a row's further references (Entry.also) are printed too, in the text format
    assert main(["flavours", "--verbose"]) == 0
    text = capsys.readouterr().out
    seconds = [(n, a) for n in PRESETS for a in committed.get(n, {}).get("also", [])]
    assert seconds, "no row has a second reference (the trec_eval9.* rows should)"
    flat = " ".join(text.split())  # lines are folded to the terminal's width
    for name, also in seconds:
        assert " ".join(f"also against: {also['reference']}".split()) in flat, name


def test_ndeval_and_evalkit_both_refuse_duplicate_ranks(tmp_path):
    """ndeval's default order is the rank column; a topic with two equal ranks makes
    ndeval exit with 'duplicate rank' (ndeval.c:1099-1106), and the ``ndeval.*``
    presets raise instead of picking an order; ``-traditional`` re-ranks by score
    (forceTraditionalRanks), so both accept the run there, with the same values."""
    import subprocess

    import evalkit
    from evalkit.builtins.diversity import topic_qrels
    from evalkit.errors import RankColumnError

    qrels_text = "7 1 a 1\n7 2 b 1\n7 1 c 0\n"
    run_text = "7 Q0 a 1 3.0 r\n7 Q0 b 2 2.0 r\n7 Q0 c 2 1.0 r\n"
    (tmp_path / "q").write_text(qrels_text)
    (tmp_path / "r").write_text(run_text)
    out = subprocess.run([str(cf_refs.ndeval_binary()), str(tmp_path / "q"), str(tmp_path / "r")],
                         capture_output=True, text=True)
    assert out.returncode != 0 and "duplicate rank (2) for topic 7" in out.stderr + out.stdout
    sub = evalkit.read_subtopic_qrels(qrels_text)
    run = evalkit.read_run(run_text, keep_rank=True)
    with pytest.raises(RankColumnError, match="share rank 2"):
        evalkit.evaluate(topic_qrels(sub), run, ["ndeval.alpha_ndcg@5"], subtopics=sub)
    trad = subprocess.run([str(cf_refs.ndeval_binary()), "-traditional", str(tmp_path / "q"), str(tmp_path / "r")],
                          capture_output=True, text=True, check=True).stdout
    want = {r.split(",")[1]: r.split(",") for r in trad.splitlines()}
    header = want.pop("topic")
    got = evalkit.evaluate(topic_qrels(sub), run, ["ndeval_traditional.alpha_ndcg@5"], subtopics=sub)
    assert got.per_query(0, 0)["7"] == pytest.approx(float(want["7"][header.index("alpha-nDCG@5")]), abs=5e-7)
