"""Measure specs that were accepted or crashed (issue 25): non-ASCII digits and a space
after '@', dicts/lists and repeated keywords in ir_measures parameters, ``AP(rel=0)``
(pytrec_eval refuses it); and the error messages that misled (``map@10`` suggesting
``map``, ``gain=exp`` suggesting metrics, 100 preset names on one line, ``expected ,,``)."""

from __future__ import annotations

import importlib

import pytest

from evalkit.cli import main
from evalkit.errors import FlavourError
from evalkit.flavour import parse_flavour
from evalkit.presets import expand_spec


@pytest.fixture
def files(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 2\n")
    run.write_text("1 Q0 a 1 5 r\n1 Q0 b 2 4 r\n")
    return str(qrels), str(run)


@pytest.mark.parametrize("spec", ["ndcg@\u0665", "ndcg@\uff15", "ndcg@ 5", "nDCG@\u0665", "ndcg(gain=exp2,discount=jarvelin(base=\u0663))"])
def test_cutoffs_and_numbers_are_ascii_and_follow_at_directly(spec):
    with pytest.raises(FlavourError, match="cannot parse flavour"):
        expand_spec(spec)


def test_ascii_cutoff_still_parses():
    assert parse_flavour("ndcg@5").k == 5 and parse_flavour("ndcg( gain = exp2 )@5").k == 5


@pytest.mark.parametrize("spec, match", [
    ("nDCG(gains={0:0,1:1})@10", "parameter 'gains' must be a number, a string or a boolean, got a dict"),
    ("nDCG(gains=[0, 1])@10", "got a list"),
    ("nDCG(dcg='log2',dcg='exp-log2')@10", "parameter 'dcg' is given twice"),
    ("AP(rel=1,rel=2)", "parameter 'rel' is given twice"),
    ("AP(rel=0)", "rel must be >= 1"),
])
def test_ir_measures_parameters_refused_with_exit_2(files, capsys, spec, match):
    with pytest.raises(FlavourError, match=match.replace("(", r"\(").replace("[", r"\[")):
        expand_spec(spec)
    assert main(["eval", *files, "-m", spec]) == 2
    err = capsys.readouterr().err
    assert err.startswith("evalkit: error:") and "Traceback" not in err and "internal error" not in err


def test_pytrec_eval_refuses_relevance_level_0_too():
    pytrec_eval = importlib.import_module("pytrec_eval")
    with pytest.raises(TypeError, match="relevance_level should be positive"):
        pytrec_eval.RelevanceEvaluator({"1": {"a": 1}}, {"map"}, relevance_level=0)


def test_map_at_k_explains_the_name():
    with pytest.raises(FlavourError) as e:
        expand_spec("map@10")
    msg = str(e.value)
    assert "did you mean: map" not in msg and "map_cut.10" in msg


def test_unknown_component_suggests_its_own_family():
    with pytest.raises(FlavourError, match=r"unknown gain 'exp' .*did you mean: exp2\?$"):
        expand_spec("ndcg(gain=exp)@10")


def test_unknown_preset_lists_the_closest_not_all():
    with pytest.raises(FlavourError) as e:
        expand_spec("trec_eval.ndcg_cutt@10")
    msg = str(e.value)
    assert "known; `evalkit flavours` lists them" in msg and "did you mean: trec_eval.ndcg_cut" in msg
    assert msg.count("did you mean") == 1 and "allrank.ndcg" not in msg


def test_syntax_error_quotes_what_was_expected():
    with pytest.raises(FlavourError, match=r"expected ',' or '\)', got '@'"):
        parse_flavour("ndcg(gain=exp2@10")


@pytest.mark.parametrize("name", ["map_avgjg", "yaap", "prefs_simp", "P_avgjg.10"])
def test_trec_eval_measures_not_implemented_are_not_unknown(files, capsys, name):
    """Issue 25: trec_eval measures evalkit does not compute were 'unknown metric ...;
    did you mean: ap, map?'. They are named as trec_eval measures not implemented."""
    qrels, run = files
    assert main(["eval", qrels, run, "-m", name]) == 2
    err = capsys.readouterr().err
    base = name.split(".")[0]
    assert f"trec_eval measure '{base}' is not implemented in evalkit" in err and "unknown metric" not in err
