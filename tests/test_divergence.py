"""Inputs on which a preset's library computes otherwise: evalkit keeps its value and
warns (ReferenceDivergenceWarning). The case: pyndeval (what ir_measures' alpha_nDCG,
ERR_IA and nERR_IA run) starts a topic at every change of query id in the run's line
order, so a topic whose lines are interleaved with another's is scored once per part.
The oracle is ir_measures itself, on the interleaved file and on the same lines sorted
by topic."""

from __future__ import annotations

import warnings

import ir_measures
import pytest

import evalkit
from evalkit.cli import main
from evalkit.errors import ReferenceDivergenceWarning

# ndeval-format subtopic qrels (topic, subtopic, docno, judgment), also read as plain qrels
SUBTOPIC_QRELS = "1 1 d1 1\n1 2 d2 1\n1 1 d3 1\n1 3 d4 1\n2 1 e1 1\n2 2 e2 1\n3 1 f1 1\n"
# topic 1's lines are split by topic 2's; topic 3 is contiguous; topic 9 is not judged
INTERLEAVED = ("1 Q0 d1 1 4.0 r\n1 Q0 d3 2 3.0 r\n2 Q0 e1 1 3.0 r\n9 Q0 x1 1 1.0 r\n"
               "1 Q0 d2 3 2.0 r\n1 Q0 d4 4 1.0 r\n2 Q0 e2 2 2.0 r\n9 Q0 x2 2 0.5 r\n3 Q0 f1 1 1.0 r\n")


def _sorted_by_topic(text: str) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(sorted(lines, key=lambda line: line.split()[0]))  # stable: line order within a topic


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text(SUBTOPIC_QRELS)
    interleaved = tmp_path / "interleaved.run"
    interleaved.write_text(INTERLEAVED)
    grouped = tmp_path / "grouped.run"
    grouped.write_text(_sorted_by_topic(INTERLEAVED))
    return qrels, interleaved, grouped


def _ir_measures(qrels, run, measure):
    return list(ir_measures.iter_calc([measure], ir_measures.read_trec_qrels(str(qrels)),
                                      ir_measures.read_trec_run(str(run))))


def _evaluate(qrels, run, specs):
    return evalkit.evaluate(evalkit.read_qrels(qrels), [evalkit.read_run(run)], specs,
                            subtopics=evalkit.read_subtopic_qrels(qrels))


@pytest.mark.parametrize("preset, measure", [("ir_measures.alpha_nDCG@5", ir_measures.alpha_nDCG @ 5),
                                             ("ir_measures.ERR_IA@5", ir_measures.ERR_IA @ 5),
                                             ("ir_measures.nERR_IA@5", ir_measures.nERR_IA @ 5)])
def test_interleaved_topic_warns_and_evalkit_keeps_the_whole_topic(files, preset, measure):
    qrels, interleaved, grouped = files
    # the library: topics 1 and 2 come out twice from the interleaved file, once from the grouped one
    split = _ir_measures(qrels, interleaved, measure)
    whole = {m.query_id: m.value for m in _ir_measures(qrels, grouped, measure)}
    assert sorted(m.query_id for m in split) == ["1", "1", "2", "2", "3"]
    assert sorted(whole) == ["1", "2", "3"]
    assert {m.value for m in split if m.query_id == "1"} != {whole["1"]}  # the parts differ from the whole
    with pytest.warns(ReferenceDivergenceWarning) as caught:
        res = _evaluate(qrels, interleaved, [preset])
    message = str(caught[0].message)
    assert "run 'r'" in message and "'1', '2'" in message and "'9'" not in message
    assert preset.split("@")[0] in message and "pyndeval/__init__.py:140-167" in message
    # evalkit's values are the library's on the grouped file
    got = dict(zip(res.qids, res.values[0, 0]))
    assert got == pytest.approx(whole, abs=1e-12)


def test_grouped_run_and_other_presets_do_not_warn(files):
    qrels, interleaved, grouped = files
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReferenceDivergenceWarning)
        _evaluate(qrels, grouped, ["ir_measures.alpha_nDCG@5", "pyndeval.err_ia@5"])
        # ndeval itself sorts the run (resultSortByRank / forceTraditionalRanks): no split
        _evaluate(qrels, interleaved, ["ndeval_traditional.alpha_ndcg@5", "trec_eval.ndcg_cut@5"])


def test_only_judged_topics_count(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text(SUBTOPIC_QRELS)
    run = tmp_path / "r.run"  # only topic 9 (not judged) is interleaved
    run.write_text("9 Q0 x1 1 1.0 r\n1 Q0 d1 1 4.0 r\n9 Q0 x2 2 0.5 r\n2 Q0 e1 1 3.0 r\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReferenceDivergenceWarning)
        _evaluate(qrels, run, ["ir_measures.alpha_nDCG@5"])


def test_a_spelt_out_pyndeval_flavour_warns_naming_the_preset(files):
    qrels, interleaved, _ = files
    with pytest.warns(ReferenceDivergenceWarning, match="under pyndeval.alpha_ndcg"):
        _evaluate(qrels, interleaved, ["alpha_ndcg(discount=log2,ties=docno_ascending)@10"])


def test_cli_prints_one_warning_line(files, capsys):
    qrels, interleaved, _ = files
    status = main(["eval", "-m", "ir_measures.alpha_nDCG@5", "-m", "ir_measures.ERR_IA@5",
                   "--subtopic-qrels", str(qrels), str(qrels), str(interleaved)])
    out, err = capsys.readouterr()
    assert status == 0
    lines = [line for line in err.splitlines() if line]
    assert len(lines) == 1 and lines[0].startswith("evalkit: warning: run 'r': the lines of topic(s) '1', '2'")
    assert "ir_measures.ERR_IA, ir_measures.alpha_nDCG" in lines[0]
    assert "Traceback" not in err and "1" in out
