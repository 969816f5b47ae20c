"""Specs resolved once, at the edge (evalkit/resolve.py), and presets validated here,
by the tests, instead of at every command's start-up."""

from __future__ import annotations

from pathlib import Path

import pytest

import evalkit
import evalkit.presets
import evalkit.resolve
from evalkit import FlavourError, build_registry, parse_flavour, read_qrels, read_run
from evalkit.resolve import ResolvedMeasure, resolve_flavour, resolve_measures

REPO = Path(__file__).resolve().parent.parent
QS = REPO / "examples" / "quickstart"
REGISTRY = build_registry(disable_plugins=True)
PRESETS = REGISTRY.names("preset")


@pytest.mark.parametrize("name", PRESETS)
def test_every_registered_preset_parses(name):
    """What check_presets did at every start-up: each built-in preset's spec is a valid
    flavour, canonical (its string parses back to the same value), and the preset
    resolves at its default cutoffs (or at @10 when it needs one and has none)."""
    preset = REGISTRY.preset(name)
    flavour = parse_flavour(preset.spec, REGISTRY)
    assert parse_flavour(str(flavour), REGISTRY) == flavour
    if preset.requires_cutoff and not preset.default_cutoffs:
        spec, ks = f"{name}@10", [10]
    elif preset.requires_cutoff:
        spec, ks = name, list(preset.default_cutoffs)
    else:
        spec, ks = name, [None]
    measures = resolve_measures(spec, REGISTRY)
    assert [m.flavour for m in measures] == [flavour.with_cutoff(k) for k in ks]
    assert all(m.preset is preset for m in measures)


def test_resolve_measures_labels_presets_and_flavours():
    out = resolve_measures(["trec_eval.ndcg_cut@10", "ndcg(gain=exp2)@5", "ndcg_cut.5,10"], REGISTRY)
    assert [m.label for m in out] == ["trec_eval.ndcg_cut@10", "ndcg(gain=exp2)@5", "ndcg_cut.5", "ndcg_cut.10"]
    assert out[0] == ResolvedMeasure("trec_eval.ndcg_cut@10", REGISTRY.preset("trec_eval.ndcg_cut"),
                                     parse_flavour("ndcg(ties=trec_eval,missing=error)@10", REGISTRY))
    assert out[1].preset is None and out[1].flavour == parse_flavour("ndcg(gain=exp2)@5", REGISTRY)
    assert [m.flavour.k for m in out[2:]] == [5, 10]
    with pytest.raises(FlavourError, match="expands to 9 flavours"):
        resolve_flavour("trec_eval.ndcg_cut", REGISTRY)
    with pytest.raises(evalkit.ArgumentError, match="flavours must be"):
        resolve_measures(3, REGISTRY)


def test_eval_resolves_each_spec_once_and_parses_no_other_preset(monkeypatch, capsys):
    """One ``-m`` spec: one resolution (not three: cli/specs, needs_rank, the engine) and
    one preset spec parsed (not all of them at start-up)."""
    from evalkit.cli import main

    calls = {"resolve": 0, "preset_parse": 0}
    real_expand, real_parse = evalkit.resolve.expand_labelled, evalkit.presets.parse_flavour

    def counting_expand(*args, **kwargs):
        calls["resolve"] += 1
        return real_expand(*args, **kwargs)

    def counting_parse(*args, **kwargs):
        calls["preset_parse"] += 1
        return real_parse(*args, **kwargs)

    monkeypatch.setattr(evalkit.resolve, "expand_labelled", counting_expand)
    monkeypatch.setattr(evalkit.presets, "parse_flavour", counting_parse)
    rc = main(["eval", str(QS / "qrels.txt"), str(QS / "system_a.run"), "-m", "trec_eval.ndcg_cut@10",
               "--format", "json"])
    assert rc == 0, capsys.readouterr().err
    assert calls == {"resolve": 1, "preset_parse": 1}


def test_public_evaluate_resolves_the_engine_takes_flavours():
    """evalkit.evaluate takes preset names (resolved at the edge); the engine's evaluate
    takes resolved flavours and gives the same values; a preset name handed to the
    engine is refused with a message saying where presets are expanded."""
    from evalkit.engine.evaluate import evaluate as engine_evaluate

    qrels, run = read_qrels(QS / "qrels.txt"), read_run(QS / "system_a.run")
    res = evalkit.evaluate(qrels, run, ["trec_eval.ndcg_cut@10", "ndcg(gain=exp2)@5"])
    assert res.labels == ("trec_eval.ndcg_cut@10", "ndcg(gain=exp2)@5")
    flavours = [m.flavour for m in resolve_measures(["trec_eval.ndcg_cut@10", "ndcg(gain=exp2)@5"])]
    direct = engine_evaluate(qrels, run, flavours)
    assert direct.flavours == res.flavours
    assert (direct.values == res.values).all()
    assert res.per_query(0, "trec_eval.ndcg_cut@10") == res.per_query(0, 0)
    # a lookup by a preset name that is not a label (Results.flavour_index's resolver)
    custom = evalkit.evaluate(qrels, run, ["ndcg(ties=trec_eval,missing=error)@10"], labels=["mine"])
    assert custom.flavour_index("trec_eval.ndcg_cut@10") == 0
    with pytest.raises(FlavourError, match="looks like a preset name"):
        engine_evaluate(qrels, run, ["trec_eval.ndcg_cut@10"])


def _same_as_preset_spec_pattern(text: str) -> None:
    import re

    m = re.match(evalkit.presets.PRESET_SPEC_PATTERN, text)
    assert evalkit.presets._preset_spec(text) == (None if m is None else (m.group("name"), m.group("k"))), text


@pytest.mark.parametrize("spec", ["trec_eval.ndcg_cut@10", "trec_eval.ndcg_cut", " a.b@5 \n", "a.@1", "a.b@", "a.b@@1",
                                  "a..b", "ndcg@10", "xgboost.ndcg-", "a.b\n\n", "_.x", "1a.b", "a-b.c@٥", "é.b",
                                  "a.é²", "a .b", "a.b @1", "a.b@1 2", ""])
def test_preset_spec_is_read_as_its_pattern_reads_it(spec):
    """``_preset_spec`` (string methods, no pattern compiled at start-up, issue 27)
    accepts what :data:`evalkit.presets.PRESET_SPEC_PATTERN` matches, with the same
    name and cutoff (Unicode word characters and digits included, as ``\\w`` and ``\\d``)."""
    _same_as_preset_spec_pattern(spec)


def test_preset_spec_agrees_with_its_pattern_on_drawn_text():
    from hypothesis import given, strategies as st

    given(st.text(alphabet="aZ_-.@19٥５ \n\t\u00a0éßǅ²Ⅻ\u2028(x", max_size=10))(_same_as_preset_spec_pattern)()
