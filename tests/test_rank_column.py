"""The run's rank column: kept only when asked (``read_run(keep_rank=True)``), the
``rank`` tie policy (ndeval's default order, ndeval.c resultSortByRank) and the
errors when a flavour needs the column and the run has none.

Oracles: trec_eval (pytrec_eval) on the same run with its scores replaced by
``-rank`` (a strict order, so trec_eval's sort is the rank order), hand-worked
values, and ndeval's own refusal of duplicate ranks (the conformance suite compares
the ``ndeval.*`` presets with the ndeval binary per query).
"""

from __future__ import annotations

import gzip
import math

import numpy as np
import pytest

import evalkit
import evalkit.arrays as ea
from evalkit import InputFormatError, Qrels, Run, read_qrels, read_run
from evalkit.cli import main
from evalkit.errors import RankColumnError
from evalkit.identify import candidate_flavours
from evalkit.io import trec

from conftest import shared_path

QRELS = "1 0 a 1\n1 0 b 2\n1 0 c 0\n2 0 x 1\n"
# ranks disagree with scores and with line order
RUN = "1 Q0 a 2 3.0 sys\n1 Q0 b 1 1.0 sys\n1 Q0 c 3 2.0 sys\n2 Q0 y 0 5.0 sys\n2 Q0 x 7 9.0 sys\n"


def test_rank_column_is_not_read_by_default():
    """trec_eval ignores the rank column: junk there reads fine without keep_rank."""
    junk = "1 Q0 a first 3.0 sys\n1 Q0 b 1.5 1.0 sys\n"
    run = read_run(junk)
    assert run.rank is None
    res = evalkit.evaluate(read_qrels(QRELS), run, ["ndcg(ties=trec_eval)"])
    # a (grade 1) then b (grade 2): (1 + 2/log2 3) / (2 + 1/log2 3)
    assert res.per_query(0, 0)["1"] == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))


def test_keep_rank_reads_the_column_as_int32():
    run = read_run(RUN, keep_rank=True)
    assert run.rank.dtype == np.int32
    assert run.rank.tolist() == [2, 1, 3, 0, 7]


@pytest.mark.parametrize("bad, line", [("1.5", 2), ("-1", 2), ("+3", 2), ("x", 2), ("99999999999", 2)])
def test_malformed_rank_is_an_error_only_when_kept(bad, line):
    text = f"1 Q0 a 1 3.0 sys\n1 Q0 b {bad} 1.0 sys\n"
    assert read_run(text).rank is None
    with pytest.raises(InputFormatError, match=rf"<string>:{line}: field 'rank': .*{bad!r}".replace("+", r"\+")):
        read_run(text, keep_rank=True)


def test_fast_reader_keeps_the_same_ranks_and_names_a_bad_line(tmp_path, monkeypatch):
    """The Arrow reader (files of 1 MiB and more) gives the exact reader's ranks, and a
    malformed rank falls back to the exact reader, which names the line."""
    rng = np.random.default_rng(3)
    ranks = rng.permutation(40_000)
    lines = [f"{i % 97} Q0 d{i} {r} {rng.random():.6f} sys\n" for i, r in enumerate(ranks)]
    path = tmp_path / "big.run"
    path.write_text("".join(lines))
    monkeypatch.setattr(trec, "FAST_MIN_BYTES", 1)
    assert read_run(path, keep_rank=True).rank.tolist() == ranks.tolist()
    lines[12345] = lines[12345].replace(f" {ranks[12345]} ", " 12.0 ")
    path.write_text("".join(lines))
    assert read_run(path).rank is None
    with pytest.raises(InputFormatError, match=r"big.run:12346: field 'rank'"):
        read_run(path, keep_rank=True)
    gz = tmp_path / "big.run.gz"
    gz.write_bytes(gzip.compress("".join(lines[:100]).encode()))
    assert read_run(gz, keep_rank=True).rank.tolist() == ranks[:100].tolist()


def test_rank_policy_orders_by_the_rank_column_hand_worked():
    """Query 1 in rank order: b (grade 2), a (1), c (0) -- the ideal order: nDCG 1.
    Query 2: y (rank 0, unjudged) before x (rank 7, grade 1): 1/log2(3)."""
    res = evalkit.evaluate(read_qrels(QRELS), read_run(RUN, keep_rank=True), ["ndcg(ties=rank)"])
    assert res.per_query(0, 0) == pytest.approx({"1": 1.0, "2": 1 / math.log2(3)})


@pytest.mark.shared
def test_rank_policy_matches_trec_eval_on_scores_replaced_by_minus_rank():
    """A real Robust 2003 run with its rank column shuffled (and lines shuffled within
    queries): ndcg_cut.10 under ties=rank equals pytrec_eval's on the run whose scores
    are -rank, per query and on the same query set."""
    import pytrec_eval

    base = shared_path("trectools_robust03")
    qrels = read_qrels(base / "robust03_qrels.txt")
    rng = np.random.default_rng(5)
    with gzip.open(base / "runs" / "input.InexpC2.gz", "rt") as fh:
        rows = [line.split() for line in fh if line.strip()]
    by_q: dict = {}
    for f in rows:
        by_q.setdefault(f[0], []).append(f)
    text, trec_run = [], {}
    for q, fs in by_q.items():
        ranks = rng.permutation(len(fs)) + 1
        for i in rng.permutation(len(fs)):
            f = fs[i]
            text.append(f"{q} Q0 {f[2]} {ranks[i]} {f[4]} sys\n")
            trec_run.setdefault(q, {})[f[2]] = -float(ranks[i])
    run = read_run("".join(text), keep_rank=True)
    res = evalkit.evaluate(qrels, run, ["trec_eval.ndcg_cut@10"])
    spec = str(res.flavours[0]).replace("ties=trec_eval", "ties=rank")
    assert "ties=rank" in spec
    got = evalkit.evaluate(qrels, run, [spec]).per_query(0, 0)
    qrels_dict = {}
    for q, d, g in zip(qrels.qid, qrels.docno, qrels.grade):
        qrels_dict.setdefault(q, {})[d] = int(g)
    want = {q: v["ndcg_cut_10"] for q, v in
            pytrec_eval.RelevanceEvaluator(qrels_dict, {"ndcg_cut.10"}).evaluate(trec_run).items()}
    assert set(got) == set(want)
    for q in want:
        assert got[q] == pytest.approx(want[q], abs=1e-12), q


def test_duplicate_ranks_are_refused_naming_the_lines():
    text = "1 Q0 a 1 3.0 sys\n1 Q0 b 2 1.0 sys\n1 Q0 c 2 2.0 sys\n"
    with pytest.raises(RankColumnError, match=r"<string>:2 and :3\): query '1': documents 'b' and 'c' share rank 2"):
        evalkit.evaluate(read_qrels(QRELS), read_run(text, keep_rank=True), ["ndeval.alpha_ndcg@5"],
                         subtopics=evalkit.SubtopicQrels.from_rows([("1", "s", "a", 1)]))
    # the same rank in two queries is fine
    ok = "1 Q0 a 1 3.0 sys\n2 Q0 x 1 1.0 sys\n"
    assert evalkit.evaluate(read_qrels(QRELS), read_run(ok, keep_rank=True),
                            ["ndcg(ties=rank)"]).per_query(0, 0)["2"] == 1.0


def test_a_run_without_the_column_is_refused_saying_how_to_read_it():
    qrels = read_qrels(QRELS)
    for run in (read_run(RUN), Run.from_rows([("1", "a", 1.0)]), Run.from_columns(["1"], ["a"], [1.0])):
        with pytest.raises(RankColumnError, match=r"no rank column.*keep_rank=True"):
            evalkit.evaluate(qrels, run, ["ndcg(ties=rank)@3"])
    with pytest.raises(RankColumnError, match="arrays do not have"):
        ea.score(np.array([[1.0, 0.0]]), np.array([[0.5, 0.2]]), flavour="ndcg(ties=rank)")


def test_from_columns_and_from_df_take_a_rank_column():
    import pandas as pd
    df = pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b", "c"], "score": [3.0, 1.0, 2.0],
                       "rank": [2, 1, 3]})
    run = Run.from_df(df, rank="rank")
    assert run.rank.tolist() == [2, 1, 3] and run.rank.dtype == np.int32
    assert Run.from_df(df).rank is None  # only when named
    res = evalkit.evaluate(read_qrels(QRELS), run, ["ndcg(ties=rank)"])
    assert res.per_query(0, 0)["1"] == 1.0
    with pytest.raises(InputFormatError, match=r"field 'rank': row 2: .*1.5"):
        Run.from_columns(["1", "1"], ["a", "b"], [1.0, 2.0], rank=[1, 1.5])
    with pytest.raises(InputFormatError, match=r"field 'rank': no column 'pos'"):
        Run.from_df(df, rank="pos")


def test_cli_reads_the_rank_column_when_a_measure_needs_it(tmp_path, capsys):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    code = main(["eval", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "ndcg(ties=rank)", "-q",
                 "--format", "tsv"])
    out = capsys.readouterr().out
    assert code == 0
    values = {line.split("\t")[1]: float(line.split("\t")[2]) for line in out.splitlines()}
    assert values["1"] == pytest.approx(1.0) and values["2"] == pytest.approx(1 / math.log2(3), abs=1e-4)
    # junk ranks: fine for trec_eval's measures, a clear error (exit 2) for a rank measure
    (tmp_path / "junk").write_text(RUN.replace(" 7 ", " seven "))
    assert main(["eval", str(tmp_path / "qrels"), str(tmp_path / "junk"), "-m", "ndcg_cut.10"]) == 0
    capsys.readouterr()
    code = main(["eval", str(tmp_path / "qrels"), str(tmp_path / "junk"), "-m", "ndcg(ties=rank)"])
    err = capsys.readouterr().err
    assert code == 2 and "junk:5: field 'rank'" in err and "Traceback" not in err


def test_identify_tries_rank_orders_only_on_runs_with_ranks():
    reg = evalkit.build_registry(disable_plugins=True)
    without = {str(c.base.ties) for c in candidate_flavours(reg, k=10) if c.preset is None}
    with_ = {str(c.base.ties) for c in candidate_flavours(reg, k=10, ranks=True) if c.preset is None}
    assert "rank" not in without and "rank" in with_


def test_rank_order_has_no_tie_spread():
    """ties=rank is a strict order: the tie spread's bounds are the value itself."""
    from evalkit.sensitivity import tie_bounds

    qrels, run = read_qrels(QRELS), read_run(RUN, keep_rank=True)
    fl = evalkit.parse_flavour("ndcg(ties=rank)")
    low, high = tie_bounds(qrels, run, [fl])
    assert low[0].tolist() == pytest.approx([1.0, 1 / math.log2(3)])
    assert high[0].tolist() == pytest.approx(low[0].tolist())


def test_config_runner_reads_the_rank_column_when_a_flavour_needs_it(tmp_path):
    from evalkit.runner import run_config

    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    report = run_config({"qrels": "qrels", "runs": [{"path": "run"}],
                         "flavours": {"r": "ndcg(ties=rank)", "t": "ndcg(ties=trec_eval)"}}, base_dir=tmp_path)
    assert report.results.per_query("run", "r") == pytest.approx({"1": 1.0, "2": 1 / math.log2(3)})
    # trec_eval's order: a (3.0), c (2.0), b (1.0) -> (1 + 0 + 2/log2 4) / (2 + 1/log2 3)
    assert report.results.per_query("run", "t")["1"] == pytest.approx(2 / (2 + 1 / math.log2(3)))
