"""``evalkit eval`` output that could be misread (issue 25): ``--format tsv`` never prints
two different measures under one name, and side-by-side means over different query
sets show their counts."""

from __future__ import annotations

import pytest

from evalkit.cli import main

from conftest import shared_path

pytestmark = pytest.mark.shared


@pytest.mark.parametrize("measures, name", [
    (["trec_eval.ndcg_cut@10", "trec_eval9.ndcg_cut@10"], "ndcg_cut_10"),
    (["AP", "AP(rel=2)"], "AP"),
])
def test_tsv_refuses_two_measures_under_one_name(capsys, measures, name):
    d = shared_path("trec_eval_test")
    args = ["eval", str(d / "qrels.test"), str(d / "results.test"), "--format", "tsv"]
    for m in measures:
        args += ["-m", m]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"'{name}' would name {measures[0]} (" in err and f" and {measures[1]} (" in err
    assert "Traceback" not in err


def test_tsv_keeps_one_line_per_name(capsys):
    d = shared_path("trec_eval_test")
    assert main(["eval", str(d / "qrels.test"), str(d / "results.test"), "--format", "tsv",
                 "-m", "trec_eval.ndcg_cut@10", "-m", "ndcg_cut.10", "-m", "map"]) == 0
    names = [line.split("\t")[0].strip() for line in capsys.readouterr().out.splitlines()]
    assert names == ["map", "ndcg_cut_10"]  # once each, in trec_eval's order (trec_eval -m ndcg_cut.10 -m map)


def test_means_over_different_query_sets_show_their_counts(capsys):
    """results.trunc lacks topic 302: trec_eval 9.0.8's ndcg_cut.10 leaves it out (2 queries),
    ir_measures' nDCG@10 scores it 0 (3 queries); trec_eval 10.0 (the default) refuses it."""
    d = shared_path("trec_eval_test")
    assert main(["eval", str(d / "qrels.test"), str(d / "results.trunc"), "-m", "ndcg_cut.10"]) == 2
    assert "302" in capsys.readouterr().err
    assert main(["eval", str(d / "qrels.test"), str(d / "results.trunc"), "-m", "ndcg_cut.10",
                 "-m", "nDCG@10", "--trec-eval-version", "9.0.8"]) == 0
    out = capsys.readouterr().out
    assert "(2 queries)" in out and "(3 queries)" in out
    # the same query set: no counts
    assert main(["eval", str(d / "qrels.test"), str(d / "results.test"), "-m", "ndcg_cut.10",
                 "-m", "nDCG@10"]) == 0
    assert "quer" not in capsys.readouterr().out.split("\n", 2)[2]
