"""evalkit against trec_eval's own expected outputs (``../shared/data/trec_eval_test``).

Which flags produced which ``out.*`` file is documented in the data README (the
``quicktest`` Makefile target of usnistgov/trec_eval). Every line of a measure that
evalkit's current metrics express is compared, per query and ``all``, at trec_eval's
printed precision (4 decimals: |diff| <= 5e-5).

Not compared (not expressible yet): ``ndcg_rel``, ``Rndcg``, ``-M``, ``-J``, ``-Z``,
bpref, infAP, Rprec, iprec_at_recall, success, utility, set_* and the counts.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import evalkit

from trec_eval_out import parse_trec_eval_output, values

pytestmark = pytest.mark.shared

TOL = 5e-5


def flavour_for(measure: str, threshold: int = 1, missing: str = "skip") -> str | None:
    """The evalkit flavour that computes trec_eval measure ``measure``, or ``None``.

    ``threshold`` is trec_eval's ``-l`` (binary measures only; trec_eval's ndcg uses
    the grades themselves, whatever ``-l`` says). ``missing="zero"`` is ``-c``.
    """
    binary_args = []
    if threshold != 1:
        binary_args.append(f"threshold={threshold}")
    conv = [] if missing == "skip" else [f"missing={missing}"]

    def build(metric: str, args: list[str], k: str | None = None) -> str:
        all_args = args + conv
        text = metric + (f"({','.join(all_args)})" if all_args else "")
        return text + (f"@{k}" if k else "")

    if measure == "ndcg":
        return build("ndcg", [])
    m = re.fullmatch(r"ndcg_cut_(\d+)", measure)
    if m:
        return build("ndcg", [], m.group(1))
    m = re.fullmatch(r"ndcg_((?:[\d.]+=[\d.]+,?)+)", measure)  # ndcg.1=3,2=9,4=4.5
    if m:
        return build("ndcg", [f"gain=map({m.group(1)})"])
    if measure == "map":
        return build("ap", binary_args)
    m = re.fullmatch(r"map_cut_(\d+)", measure)
    if m:
        return build("ap", binary_args, m.group(1))
    m = re.fullmatch(r"P_(\d+)", measure)
    if m:
        return build("precision", binary_args, m.group(1))
    m = re.fullmatch(r"recall_(\d+)", measure)
    if m:
        return build("recall", binary_args, m.group(1))
    if measure == "recip_rank":
        return build("rr", binary_args)
    return None


def compare(out_path, qrels, run, *, threshold=1, missing="skip"):
    """Evaluate every expressible measure of ``out_path``; return (compared, mismatches)."""
    expected = values(out_path)
    measures = sorted({m for m, _ in expected if flavour_for(m, threshold, missing)})
    specs = [flavour_for(m, threshold, missing) for m in measures]
    res = evalkit.evaluate(qrels, run, specs, labels=measures)
    means = res.means()[0]
    compared, bad = 0, []
    for f, measure in enumerate(measures):
        per_q = res.per_query(0, f)
        printed = {qid for (m, qid) in expected if m == measure and qid != "all"}
        if any(qid != "all" for _, qid in expected) and set(per_q) != printed:  # a query evalkit adds, or one it drops
            bad.append(f"{measure}: query sets differ: evalkit only {sorted(set(per_q) - printed)}, "
                       f"trec_eval only {sorted(printed - set(per_q))}")
        for (m, qid), want in expected.items():
            if m != measure:
                continue
            got = means[f] if qid == "all" else per_q.get(qid, np.nan)
            compared += 1
            if not abs(got - want) <= TOL:
                bad.append(f"{measure} {qid}: trec_eval {want:.4f}, evalkit {got:.6f} ({specs[f]})")
    return compared, bad


@pytest.fixture(scope="module")
def qrels_test(trec_eval_dir):
    return evalkit.read_qrels(trec_eval_dir / "qrels.test")


@pytest.fixture(scope="module")
def results_test(trec_eval_dir):
    return evalkit.read_run(trec_eval_dir / "results.test")


def test_parser_reads_every_line(trec_eval_dir):
    lines = parse_trec_eval_output(trec_eval_dir / "out.test.aq")
    assert len(lines) == 387
    assert lines[("runid", "all")] == "STANDARD"
    assert lines[("ndcg", "all")] == "0.4021"
    assert lines[("num_q", "all")] == "3"


def test_out_test_a_means(trec_eval_dir, qrels_test, results_test):
    """``-m all_trec``: ndcg, ndcg_cut_*, map, map_cut_*, P_*, recall_*, recip_rank."""
    compared, bad = compare(trec_eval_dir / "out.test.a", qrels_test, results_test)
    # 1 ndcg + 9 ndcg_cut + 1 map + 9 map_cut + 9 P + 9 recall + 1 recip_rank
    assert compared == 39
    assert not bad, "\n".join(bad)


def test_out_test_aq_per_query(trec_eval_dir, qrels_test, results_test):
    """``-m all_trec -q``: the same measures for topics 301-303 and ``all``."""
    compared, bad = compare(trec_eval_dir / "out.test.aq", qrels_test, results_test)
    assert compared == 39 * 4
    assert not bad, "\n".join(bad)


def test_out_test_aq_ndcg_presets(trec_eval_dir, qrels_test, results_test):
    """The trec_eval presets reproduce ``ndcg`` and every ``ndcg_cut_k`` line."""
    expected = values(trec_eval_dir / "out.test.aq")
    res = evalkit.evaluate(qrels_test, results_test, ["trec_eval.ndcg", "trec_eval.ndcg_cut"])
    assert len(res.flavours) == 10  # ndcg + nine default cutoffs
    names = ["ndcg"] + [f"ndcg_cut_{f.k}" for f in res.flavours[1:]]
    for f, name in enumerate(names):
        assert set(res.per_query(0, f)) == {q for (m, q) in expected if m == name and q != "all"}, name
        for qid, v in res.per_query(0, f).items():
            assert v == pytest.approx(expected[(name, qid)], abs=TOL), (name, qid)
        assert res.means()[0, f] == pytest.approx(expected[(name, "all")], abs=TOL), name


def test_out_test_aqc_missing_zero(trec_eval_dir, qrels_test):
    """``-c`` (missing topics score 0, mean over all qrels topics) on ``results.trunc``,
    which has junk columns after the runid and only 2 of the 3 topics."""
    run = evalkit.read_run(trec_eval_dir / "results.trunc")
    assert set(run.qids) == {"301", "303"}
    compared, bad = compare(trec_eval_dir / "out.test.aqc", qrels_test, run, missing="zero")
    # with -c trec_eval also prints the missing topic 302 (all zeros)
    assert compared == 39 * 4
    assert not bad, "\n".join(bad)
    res = evalkit.evaluate(qrels_test, run, ["ndcg(missing=zero)"])
    assert res.per_query(0, 0)["302"] == 0.0


def test_out_test_aqc_differs_without_c(trec_eval_dir, qrels_test):
    """Without ``missing=zero`` trec_eval 9.0.8 averages over the run's 2 topics: it must
    differ (trec_eval 10.0 refuses the run: topic 302 is missing)."""
    run = evalkit.read_run(trec_eval_dir / "results.trunc")
    expected = values(trec_eval_dir / "out.test.aqc")
    with pytest.raises(evalkit.errors.EvaluationError, match="302"):
        evalkit.evaluate(qrels_test, run, ["ndcg"])
    res = evalkit.evaluate(qrels_test, run, ["trec_eval9.ndcg"])
    per_q = res.per_query(0, 0)
    assert set(per_q) == {"301", "303"}
    assert res.means()[0, 0] == pytest.approx((per_q["301"] + per_q["303"]) / 2)
    assert res.means()[0, 0] == pytest.approx(expected[("ndcg", "all")] * 3 / 2, abs=2 * TOL)


def test_out_test_aql_graded_threshold(trec_eval_dir, results_test):
    """``qrels.rel_level`` (grades -1..4) with ``-l2``: binary measures count grade >= 2;
    ndcg uses the grades as gains (unaffected by ``-l``)."""
    qrels = evalkit.read_qrels(trec_eval_dir / "qrels.rel_level")
    compared, bad = compare(trec_eval_dir / "out.test.aql", qrels, results_test, threshold=2)
    assert compared == 39 * 4
    assert not bad, "\n".join(bad)


def test_out_test_meas_params(trec_eval_dir, qrels_test, results_test):
    """``-mndcg.1=3,2=9,4=4.5`` (gain map), ``-mndcg_cut.10,20,23.4`` (cutoff 23),
    ``-m P.5,7,3``, ``-m recall.20,2000``."""
    expected = values(trec_eval_dir / "out.test.meas_params")
    compared, bad = compare(trec_eval_dir / "out.test.meas_params", qrels_test, results_test)
    want = {m for m, _ in expected if flavour_for(m)}
    assert want == {"ndcg_1=3,2=9,4=4.5", "ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23",
                    "P_3", "P_5", "P_7", "recall_20", "recall_2000"}
    assert compared == len(want) * 4
    assert not bad, "\n".join(bad)


def test_gain_map_changes_graded_ndcg(trec_eval_dir, results_test):
    """qrels.test only has grade 1, so the gain map cannot change ``ndcg`` there; on
    the graded qrels it must (a check that the map is applied at all)."""
    qrels = evalkit.read_qrels(trec_eval_dir / "qrels.rel_level")
    res = evalkit.evaluate(qrels, results_test, ["ndcg", "ndcg(gain=map(1=3,2=9,4=4.5))"])
    a, b = res.means()[0]
    assert abs(a - b) > 1e-3


def test_out_comment_test_hash_in_docnos(trec_eval_dir):
    """MS MARCO v2.1 docnos contain ``#``; default measures (map, P_k, recall not
    printed, recip_rank)."""
    qrels = evalkit.read_qrels(trec_eval_dir / "qrels.comment.test")
    run = evalkit.read_run(trec_eval_dir / "results.comment.test")
    assert any("#" in d for d in qrels.docno[:10])
    compared, bad = compare(trec_eval_dir / "out.comment.test", qrels, run)
    assert compared == 11  # map + recip_rank + nine P_k
    assert not bad, "\n".join(bad)


def test_qrels_with_comments_identical(trec_eval_dir, qrels_test, results_test):
    """``qrels.test.with-comments`` gives exactly the results of ``qrels.test``."""
    commented = evalkit.read_qrels(trec_eval_dir / "qrels.test.with-comments")
    assert len(commented) == len(qrels_test)
    specs = ["ndcg", "ndcg@10", "ndcg(gain=exp2)@20", "ap", "precision@10", "rr"]
    a = evalkit.evaluate(qrels_test, results_test, specs)
    b = evalkit.evaluate(commented, results_test, specs)
    np.testing.assert_array_equal(a.qids, b.qids)
    np.testing.assert_array_equal(a.values, b.values)
