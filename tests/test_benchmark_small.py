"""The inputs of ``benchmarks/small.py`` (issue 27) are what it says they are: the
DL-2020-shaped run has DL 2020's size and is scored alike by evalkit and trec_eval 10.0,
and the many-systems configs are valid and name the four flavours the peers compute.
Nothing here is timed (``benchmarks/small.py`` measures speed)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import shared_path
from reference_programs import parse_trec_eval_q, run_trec_eval

import evalkit
from evalkit.runner.config import load_config

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

import small  # noqa: E402

pytestmark = pytest.mark.shared


def test_dl20_like_run_has_dl2020_shape_and_trec_eval_values(tmp_path):
    shared_path("anserini_tools_qrels", "qrels.dl20-passage.txt")
    run_path, qrels_path = small.write_dl20_like(tmp_path / "a")
    again, _ = small.write_dl20_like(tmp_path / "b")
    assert run_path.read_bytes() == again.read_bytes()  # deterministic
    rows = [line.split() for line in run_path.read_text().splitlines()]
    assert len(rows) == 19_900
    by_topic: dict[str, list[list[str]]] = {}
    for r in rows:
        by_topic.setdefault(r[0], []).append(r)
    assert len(by_topic) == 199 and {len(v) for v in by_topic.values()} == {100}
    for lines in by_topic.values():
        assert [int(r[3]) for r in lines] == list(range(1, 101))
        scores = [float(r[4]) for r in lines]
        assert scores == sorted(scores, reverse=True)
        assert len({r[2] for r in lines}) == 100  # no duplicate docno within a topic
    judged = {line.split()[0] for line in qrels_path.read_text().splitlines()}
    assert len(judged & set(by_topic)) == 54
    # evalkit's per-query ndcg_cut.10 equals trec_eval 10.0's printed values
    want = parse_trec_eval_q(run_trec_eval("10.0", ["-q", "-m", "ndcg_cut.10", qrels_path, run_path]).stdout)
    res = evalkit.evaluate(evalkit.read_qrels(qrels_path), evalkit.read_run(run_path), "trec_eval.ndcg_cut@10")
    got = res.per_query("dl20like", "trec_eval.ndcg_cut@10")
    per_query = {q: v for (m, q), v in want.items() if q != "all"}
    assert len(per_query) == 54 and set(got) == set(per_query)
    for q, v in per_query.items():
        assert f"{got[q]:.4f}" == v, q
    assert 0.05 < float(want[("ndcg_cut_10", "all")]) < 0.6  # neither empty nor trivially perfect


@pytest.mark.parametrize("stats", [False, True])
def test_many_config_loads_with_the_four_flavours(tmp_path, stats):
    shared_path("trectools_robust03", "runs")
    qrels = shared_path("trectools_robust03", "robust03_qrels.txt")
    runs = [tmp_path / f"{name}.run" for name in ("SABIR03BASE", "pircRBa1")]
    for r in runs:
        r.write_text("303 Q0 FT911-1 1 1.0 x\n")
    cfg = load_config(small.many_config(tmp_path, qrels, runs, stats=stats))
    labels = [f.label for f in cfg.flavours]
    assert labels == ["cut10", "cut100", "full", "exp2"]
    ks = [f.flavour.k for f in cfg.flavours]
    assert ks == [10, 100, None, 10]
    assert cfg.output_dir is None  # nothing written: the benchmark times the evaluation
    assert (cfg.statistics is not None) == stats
