"""The Spark backend (``evalkit.spark``) in local mode ``local[2]``.

The oracle is the local engine: the issue asks for per-query values identical (to
1e-12) to it, on real runs and on generated data, and the local engine is itself
checked against trec_eval, pytrec_eval, ranx ... elsewhere in the suite. Where
trec_eval printed the value (its own test outputs) the Spark numbers are also
checked against trec_eval directly.
"""

from __future__ import annotations

import os
import importlib.metadata as md
from pathlib import Path

import numpy as np
import pytest

import evalkit
import evalkit.registry as registry_mod
from evalkit import EvaluationError, FlavourError, InputFormatError, parse_flavour
from evalkit.presets import expand_spec
from evalkit.spark import RECOMMENDER, Columns
from evalkit import spark as eks
from evalkit.report import write_report

from trec_eval_out import values as trec_eval_values

pytestmark = pytest.mark.spark
PLUGIN_DIR = Path(__file__).resolve().parent.parent / "plugins" / "evalkit-rbp"
TOL = 1e-12


def all_flavours(registry, intents: bool = False) -> list:
    """Every built-in preset (with its default cutoffs, else @10), every metric's
    default flavour @10 and ndcg@10 with every gain, discount, IDCG strategy and tie
    policy; the intent-aware ones (they need subtopic qrels) only with ``intents``."""
    out = []
    for name in registry.names("preset"):
        preset = registry.preset(name)
        if registry.metric(parse_flavour(preset.spec, registry).metric).needs_subtopics and not intents:
            continue
        spec = name if (not preset.requires_cutoff or preset.default_cutoffs) else f"{name}@10"
        out += expand_spec(spec, registry)
    for metric in registry.names("metric"):
        if not registry.metric(metric).needs_subtopics or intents:
            out.append(parse_flavour(f"{metric}@10", registry))
    for family in ("gain", "discount", "idcg", "ties"):
        for name in registry.names(family):
            out.append(parse_flavour(f"ndcg({family}={name})@10", registry))
    # the Spark engine refuses flavours that read a run's rank column (ndeval.*, ties=rank):
    # test_rank_column_flavours_are_refused
    # flavours with negative=error (sklearn.ndcg_score) or a grades rule (lightgbm, xgboost: the
    # labels those libraries refuse) raise on these qrels' negative grades:
    # test_negative_error_raises_on_spark
    return [f for f in dict.fromkeys(out)
            if (f.ties is None or not registry.get("ties", f.ties.name).needs_rank)
            and f.convention("negative") != "error" and f.convention("grades") in ("any", "float32")]


def test_negative_error_raises_on_spark(spark, registry):
    """A negative grade under negative=error: the Spark engine raises the local
    engine's NegativeGradeError, naming the query and document."""
    qrels = spark.createDataFrame([("q1", "d1", -1.0, 0), ("q1", "d2", 2.0, 1)],
                                  "qid string, docno string, grade double, order long")
    run = spark.createDataFrame([("s", "q1", "d1", 2.0, 0), ("s", "q1", "d2", 1.0, 1)],
                                "system string, qid string, docno string, score double, order long")
    with pytest.raises(evalkit.errors.NegativeGradeError, match="q1.*d1"):
        eks.evaluate(qrels, run, ["sklearn.ndcg_score@10"], registry=registry)
    with pytest.raises(evalkit.errors.InvalidGradeError, match="grades=lightgbm.*q1.*d1"):
        eks.evaluate(qrels, run, ["lightgbm.ndcg@10"], registry=registry)


def assert_same(spark_res, local_res):
    assert spark_res.systems == local_res.systems
    assert spark_res.flavours == local_res.flavours
    assert list(spark_res.qids) == list(local_res.qids)
    assert np.array_equal(np.isnan(spark_res.values), np.isnan(local_res.values))
    np.testing.assert_allclose(spark_res.values, local_res.values, rtol=0, atol=TOL, equal_nan=True)


def qrels_frame(spark, qrels: evalkit.Qrels):
    return spark.createDataFrame(list(zip(qrels.qid.tolist(), qrels.docno.tolist(), qrels.grade.tolist())),
                                 "qid string, docno string, grade double")


def run_frame(spark, runs: list[evalkit.Run]):
    """One DataFrame ``system, qid, docno, score, order`` holding every run."""
    rows = [(r.name, q, d, float(s), i) for r in runs
            for i, (q, d, s) in enumerate(zip(r.qid.tolist(), r.docno.tolist(), r.score.tolist()))]
    return spark.createDataFrame(rows, "system string, qid string, docno string, score double, order long")


# ---------------------------------------------------------------- real runs
@pytest.mark.shared
def test_every_flavour_and_preset_on_trec_eval_test_files(spark, trec_eval_dir, registry):
    """Read by Spark's own text reader (two qrels: binary and graded)."""
    flavours = all_flavours(registry)
    for qrels_name in ("qrels.test", "qrels.rel_level"):
        q = eks.read_qrels(spark, trec_eval_dir / qrels_name)
        r = eks.read_run(spark, trec_eval_dir / "results.test")
        got = eks.evaluate(q, r, flavours, registry=registry, partitions=3)
        want = evalkit.evaluate(evalkit.read_qrels(trec_eval_dir / qrels_name),
                                evalkit.read_run(trec_eval_dir / "results.test"), flavours, registry=registry)
        assert_same(got, want)


@pytest.mark.shared
def test_trec_eval_own_output(spark, trec_eval_dir):
    """Independent of the local engine: trec_eval's printed per-query ndcg values."""
    expected = trec_eval_values(trec_eval_dir / "out.test.aq")
    got = eks.evaluate(eks.read_qrels(spark, trec_eval_dir / "qrels.test"),
                       eks.read_run(spark, trec_eval_dir / "results.test"),
                       ["trec_eval.ndcg", "trec_eval.ndcg_cut@10"])
    assert got.systems == ("STANDARD",)  # named by the runid column, as evalkit.read_run names it
    for f, measure in enumerate(("ndcg", "ndcg_cut_10")):
        for q, qid in enumerate(got.qids):
            assert got.values[0, f, q] == pytest.approx(expected[(measure, qid)], abs=5e-5)
        assert got.means()[0, f] == pytest.approx(expected[(measure, "all")], abs=5e-5)


@pytest.mark.shared
def test_robust03_gzip_runs(spark, shared_data, registry):
    """TREC 2003 Robust: gzip runs read by Spark, several systems in one evaluation,
    queries spread over 7 partitions."""
    data = shared_data / "trectools_robust03"
    names = ["input.InexpC2.gz", "input.Sel50.gz", "input.uic0301.gz"]
    flavours = ["trec_eval.ndcg_cut@10", "ndcg(gain=exp2,ties=average)@100", "ndcg(ties=stable,missing=zero)@20",
                "ranx.ndcg@10", "sklearn.ndcg_score_ignore_ties@10", "ndcg(discount=jarvelin,idcg=returned)@1000",
                "lightgbm.ndcg@5", "pytrec_eval.ndcg_rel"]
    runs = {n: eks.read_run(spark, data / "runs" / n) for n in names}
    got = eks.evaluate(eks.read_qrels(spark, data / "robust03_qrels.txt"), runs, flavours, partitions=7,
                       registry=registry)
    local_runs = [evalkit.read_run(data / "runs" / n).renamed(n) for n in names]
    want = evalkit.evaluate(evalkit.read_qrels(data / "robust03_qrels.txt"), local_runs, flavours,
                            registry=registry)
    assert_same(got, want)
    # and against a peer, not only the local engine: pytrec_eval's ndcg_cut_10 and
    # ndcg_rel per query for each system
    import pytrec_eval

    from conftest import assert_per_query, to_pytrec

    qrels = evalkit.read_qrels(data / "robust03_qrels.txt")
    for run in local_runs:
        q, r = to_pytrec(qrels, run)
        peer = pytrec_eval.RelevanceEvaluator(q, {"ndcg_cut.10", "ndcg_rel"}).evaluate(r)
        for flavour, key in (("trec_eval.ndcg_cut@10", "ndcg_cut_10"), ("pytrec_eval.ndcg_rel", "ndcg_rel")):
            assert_per_query(got.per_query(run.name, flavours.index(flavour)),
                             {qid: m[key] for qid, m in peer.items()}, abs_tol=1e-9,
                             context=f"spark {run.name} {flavour}")


@pytest.mark.shared
def test_cast2021_string_ids_directory_of_runs(spark, shared_data, registry, tmp_path):
    """CAsT 2021: string topic ids (``106_1``), graded 0-4; every run file of the
    directory is one system, and one run is read back from Parquet."""
    data = shared_data / "trec_cast_2021"
    files = sorted((data / "document_runs").iterdir())
    runs = {f.name: eks.read_run(spark, f) for f in files}
    first = files[0].name
    runs[first].write.parquet(str(tmp_path / "run.parquet"))
    runs[first] = spark.read.parquet(str(tmp_path / "run.parquet"))
    flavours = ["trec_eval.ndcg_cut@3", "ndcg(gain=exp2,ties=average)@10", "err@20",
                "ndcg(ties=input,missing=zero)@10", "ndcg(ties=numpy_argsort)@5"]
    got = eks.evaluate(eks.read_qrels(spark, data / "trec-cast-qrels-docs.2021.qrel"), runs, flavours,
                       registry=registry, partitions=5)
    local = [evalkit.read_run(f).renamed(f.name) for f in files]
    want = evalkit.evaluate(evalkit.read_qrels(data / "trec-cast-qrels-docs.2021.qrel"), local, flavours,
                            registry=registry)
    assert any("_" in q for q in got.qids)
    assert_same(got, want)


# ---------------------------------------------------------------- generated data
def generated(seed=7, n_queries=120):
    """Qrels and two runs with heavy score ties (scores on a grid of 4 values),
    qrels queries missing from one run, queries without relevant documents, and run
    queries without judgments; the rows of each run are shuffled (input order matters
    to some tie policies)."""
    rng = np.random.default_rng(seed)
    qrels, runs = [], {"sysA": [], "sysB": []}
    for q in range(n_queries):
        qid = f"q{q}"
        docs = [f"d{d}" for d in rng.choice(60, size=int(rng.integers(3, 25)), replace=False)]
        empty = q % 11 == 0  # no relevant document
        for d in docs:
            qrels.append((qid, d, 0.0 if empty else float(rng.integers(-1, 4))))
        for system in runs:
            if system == "sysB" and q % 7 == 0:
                continue  # a qrels query absent from sysB
            ranked = rng.choice(60, size=int(rng.integers(1, 30)), replace=False)
            runs[system] += [(qid, f"d{d}", float(rng.integers(0, 4)) / 2) for d in ranked]
    for q in range(5):  # queries with no judgments at all
        runs["sysA"].append((f"unjudged{q}", "d1", 1.0))
    for rows in runs.values():
        rng.shuffle(rows)
    return qrels, runs


def test_generated_ties_missing_empty_many_partitions(spark, registry):
    qrels_rows, run_rows = generated()
    # a preset with missing=error (ranx's default call) refuses this data on both engines:
    # test_errors_reach_the_driver_as_evalkit_errors covers the refusal
    flavours = [f for f in all_flavours(registry) if f.convention("missing") != "error"] + [
        "ndcg(missing=zero,empty=one)@10", "ndcg(missing=skip,empty=skip)@10", "ndcg(ties=input,depth=5)@10",
        "ndcg(judged_only=yes,min_grade=2)@10", "ndcg(ties=optimistic,empty=skip)@3"]
    # the qrels' order matters to idcg=listed: it travels as a column through the repartition
    qrels = spark.createDataFrame([r + (i,) for i, r in enumerate(qrels_rows)],
                                  "qid string, docno string, grade double, order long").repartition(5)
    rows = [(s, q, d, v, i) for s, rs in run_rows.items() for i, (q, d, v) in enumerate(rs)]
    run = spark.createDataFrame(rows, "system string, qid string, docno string, score double, order long")
    got = eks.evaluate(qrels, run, flavours, registry=registry, partitions=37)
    want = evalkit.evaluate(evalkit.Qrels.from_rows(qrels_rows),
                            [evalkit.Run.from_rows(r, name=s) for s, r in run_rows.items()], flavours,
                            registry=registry)
    assert len(got.qids) == 120 and not any(q.startswith("unjudged") for q in got.qids)
    assert np.isnan(got.values[1, 0, [list(got.qids).index(f"q{q}") for q in (7, 14)]]).all()  # skipped
    assert_same(got, want)


def test_recommender_layout_and_spark_frame(spark, registry):
    """user/item/rating and user/item/prediction with integer ids; the per-query frame
    aggregates in Spark to the same means."""
    rng = np.random.default_rng(3)
    ratings = [(u, int(i), float(rng.integers(1, 6))) for u in range(40) for i in rng.choice(30, 8, replace=False)]
    preds = [(u, int(i), float(np.round(rng.random(), 1))) for u in range(40) for i in rng.choice(30, 12, replace=False)]
    q = spark.createDataFrame(ratings, "user int, item int, rating double")
    r = spark.createDataFrame(preds, "user int, item int, prediction double")
    flavours = ["ndcg(gain=exp2)@10", "ndcg(ties=stable)@5", "precision@5"]
    got = eks.evaluate(q, r, flavours, columns=RECOMMENDER, name="als", registry=registry)
    to_str = lambda rows: [(str(u), str(i), v) for u, i, v in rows]  # noqa: E731
    want = evalkit.evaluate(evalkit.Qrels.from_rows(to_str(ratings)),
                            evalkit.Run.from_rows(to_str(preds), name="als"), flavours, registry=registry)
    assert_same(got, want)
    frame = eks.evaluate_frame(q, r, flavours, columns=RECOMMENDER, name="als", registry=registry)
    assert frame.columns == ["system", "flavour", "canonical", "qid", "value"]
    means = {row["flavour"]: row["m"] for row in frame.groupBy("flavour").agg({"value": "avg"})
             .withColumnRenamed("avg(value)", "m").collect()}
    for f, label in enumerate(want.labels):
        assert means[label] == pytest.approx(want.means()[0, f], abs=1e-12)


def test_errors_reach_the_driver_as_evalkit_errors(spark, registry):
    q = spark.createDataFrame([("1", "a", 1.0), ("2", "b", 1.0)], "qid string, docno string, grade double")
    r = spark.createDataFrame([("1", "a", 1.0)], "qid string, docno string, score double")
    with pytest.raises(EvaluationError, match="has no results for qrels queries: 2"):
        eks.evaluate(q, r, ["ndcg(missing=error)@10"], registry=registry)
    with pytest.raises(FlavourError, match="unknown gain 'cubic'"):
        eks.evaluate(q, r, ["ndcg(gain=cubic)@10"], registry=registry)
    dup = spark.createDataFrame([("1", "a", 1.0), ("1", "a", 2.0)], "qid string, docno string, score double")
    with pytest.raises(InputFormatError, match="duplicate document for query '1', document 'a'"):
        eks.evaluate(q, dup, ["ndcg@10"], registry=registry)
    with pytest.raises(InputFormatError, match="'score': no such column"):
        eks.evaluate(q, q, ["ndcg@10"], registry=registry)
    with pytest.raises(EvaluationError, match="metric 'alpha_ndcg' needs subtopic qrels"):
        eks.evaluate(q, r, ["alpha_ndcg@10"], registry=registry)


@pytest.mark.shared
def test_rbp_plugin_travels_to_executors(spark, trec_eval_dir, monkeypatch):
    """The rbp plugin is loaded from its source folder on the driver only; the
    backend ships its module to the executors (addPyFile). Checked against
    trec_eval's own rbp lines and the local engine."""
    monkeypatch.syspath_prepend(str(PLUGIN_DIR))
    monkeypatch.setattr(registry_mod, "_entry_points",
                        lambda: [md.EntryPoint(name="rbp", value="evalkit_rbp", group="evalkit")])
    reg = evalkit.build_registry(disable_plugins=False)
    flavours = ["trec_eval.rbp", "ndcg(discount=rbp(p=0.8))@10"]
    q = eks.read_qrels(spark, trec_eval_dir / "qrels.test")
    r = eks.read_run(spark, trec_eval_dir / "results.test")
    got = eks.evaluate(q, r, flavours, registry=reg, partitions=2)
    want = evalkit.evaluate(evalkit.read_qrels(trec_eval_dir / "qrels.test"),
                            evalkit.read_run(trec_eval_dir / "results.test"), flavours, registry=reg)
    assert_same(got, want)
    expected = trec_eval_values(trec_eval_dir / "out.test.aq")
    for qx, qid in enumerate(got.qids):
        assert got.values[0, 0, qx] == pytest.approx(expected[("rbp", qid)], abs=5e-5)


def test_bad_text_lines_name_the_file(spark, tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("1 Q0 a 1 2.5 r\n1 Q0 b 2 nan r\n")
    with pytest.raises(InputFormatError, match=r"run.txt: field 'score': expected a finite number, got 'nan'"):
        eks.read_run(spark, path)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 1\n1 0 b\n")
    with pytest.raises(InputFormatError, match=r"qrels.txt: expected 4 fields, got 3: '1 0 b'"):
        eks.read_qrels(spark, qrels)


# ---------------------------------------------------------------- intent-aware metrics
@pytest.mark.shared
def test_intent_aware_metrics_reproduce_ndeval(spark, ir_measures_dir, registry):
    """ndeval's ERR-IA@20 on ir_measures' fixture (expected.tsv; ir_measures
    tests/test_pyndeval.py:79-82): q0 0.4659, q1 0.1803 (pyndeval's order: the Spark
    engine carries no rank column, so ndeval's default order is refused there)."""
    from evalkit.builtins.diversity import topic_qrels

    path, run_path = ir_measures_dir / "fixtureC_diversity.qrels", ir_measures_dir / "fixtureA.run"
    sub = evalkit.read_subtopic_qrels(path)
    specs = ["pyndeval.err_ia@20", "pyndeval.alpha_ndcg@20", "pyndeval.nerr_ia@20"]
    qrels = topic_qrels(sub)
    got = eks.evaluate(qrels_frame(spark, qrels), eks.read_run(spark, run_path), specs, registry=registry,
                       subtopics=eks.read_subtopic_qrels(spark, path), partitions=2)
    assert got.per_query(0, 0) == pytest.approx({"0": 0.4659, "1": 0.1803}, abs=1e-4)
    want = evalkit.evaluate(qrels, evalkit.read_run(run_path), specs, subtopics=sub, registry=registry)
    assert_same(got, want)


def test_rank_column_flavours_are_refused(spark, registry):
    """ndeval's default order reads the run's rank column, which the Spark engine does
    not carry: a clear error before any Spark job, not a silent score order."""
    from evalkit.errors import RankColumnError

    qrels = evalkit.Qrels.from_rows([("1", "a", 1)])
    run = spark.createDataFrame([("1", "a", 1.0)], "qid string, docno string, score double")
    with pytest.raises(RankColumnError, match="Spark engine does not carry a run's rank column"):
        eks.evaluate(qrels_frame(spark, qrels), run, ["ndcg(ties=rank)@5"], registry=registry)


def test_intent_aware_generated_with_weights_many_partitions(spark, registry):
    rng = np.random.default_rng(4)
    sub_rows, run_rows, weights = [], [], {}
    for t in range(60):
        intents = [f"s{i}" for i in range(int(rng.integers(1, 5)))]
        if t % 3 == 0:
            p = rng.dirichlet(np.ones(len(intents)))
            weights.update({(f"t{t}", s): float(w) for s, w in zip(intents, p)})
        for d in range(20):
            for s in intents:
                if rng.random() < 0.3:
                    sub_rows.append((f"t{t}", s, f"d{d}", float(rng.integers(0, 3))))
        if t % 10 != 5:  # some topics missing from the run
            run_rows += [(f"t{t}", f"d{d}", float(rng.integers(0, 5))) for d in rng.choice(25, 15, replace=False)]
    if not any(r[0] == "t0" for r in sub_rows):
        sub_rows.append(("t0", "s0", "d0", 1.0))
    sub = evalkit.SubtopicQrels.from_rows(sub_rows, weights=weights)
    from evalkit.builtins.diversity import topic_qrels

    qrels = topic_qrels(sub)
    flavours = [f for f in all_flavours(registry, intents=True) if registry.metric(f.metric).needs_subtopics]
    flavours += ["alpha_ndcg(alpha=0.2,missing=zero)@5", "err_ia(ties=stable)@10"]
    sub_df = spark.createDataFrame(sub_rows, "qid string, subtopic string, docno string, grade double")
    got = eks.evaluate(qrels_frame(spark, qrels), spark.createDataFrame(run_rows, "qid string, docno string, score double"),
                       flavours, registry=registry, subtopics=sub_df, weights=weights, partitions=13)
    want = evalkit.evaluate(qrels, evalkit.Run.from_rows(run_rows), flavours, subtopics=sub, registry=registry)
    assert_same(got, want)


# ---------------------------------------------------------------- command line and config
def _cli(argv) -> tuple[int, str, str]:
    import contextlib
    import io

    from evalkit.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.shared
def test_cli_engine_spark_prints_what_the_local_engine_prints(spark, trec_eval_dir, tmp_path):
    """Same lines as the in-process engine; trec_eval's own ndcg_cut_10 lines among them.
    The run is given twice, once as Parquet, so the file names tell the runs apart."""
    qrels, run = str(trec_eval_dir / "qrels.test"), str(trec_eval_dir / "results.test")
    eks.read_run(spark, run).drop("system").write.parquet(str(tmp_path / "results.parquet"))
    printed = {}
    for fmt in ("tsv", "json", "table"):
        args = ["eval", qrels, run, "-m", "trec_eval.ndcg_cut@10", "-m", "ndcg(ties=average)@5", "-q",
                "--format", fmt]
        status, local, _ = _cli(args)
        assert status == 0
        status, on_spark, err = _cli(args + ["--engine", "spark", "--spark-master", "local[2]",
                                             "--spark-conf", "spark.sql.shuffle.partitions=3"])
        assert status == 0, err
        assert on_spark == local
        printed[fmt] = on_spark
    expected = trec_eval_values(trec_eval_dir / "out.test.aq")
    lines = dict(((m.strip(), q), float(v)) for m, q, v in (line.split("\t") for line in printed["tsv"].splitlines()
                                                         if line.startswith("ndcg_cut_10")))
    assert lines and all(v == pytest.approx(expected[key], abs=5e-5) for key, v in lines.items())
    status, out, _ = _cli(["eval", qrels, run, str(tmp_path / "results.parquet"), "-m", "trec_eval.ndcg_cut@10",
                           "--format", "tsv", "--engine", "spark"])
    assert status == 0
    mean = expected[("ndcg_cut_10", "all")]
    assert out.splitlines() == [f"STANDARD\tndcg_cut_10           \tall\t{mean:.4f}",
                                f"results\tndcg_cut_10           \tall\t{mean:.4f}"]
    status, _, err = _cli(["eval", qrels, run, "-m", "ndcg@10", "--engine", "spark", "--spark-conf", "oops"])
    assert status == 2 and "expected KEY=VALUE" in err and "Traceback" not in err


@pytest.mark.shared
def test_config_engine_spark(spark, trec_eval_dir):
    config = {"qrels": str(trec_eval_dir / "qrels.rel_level"),
              "runs": [{"name": "a", "path": str(trec_eval_dir / "results.test")},
                       {"name": "b", "path": str(trec_eval_dir / "results.trunc")}],
              # trec_eval 9.0.8's: results.trunc lacks topic 302, which trec_eval.* (10.0) refuses
              "flavours": {"trec": "trec_eval9.ndcg_cut", "exp": "ndcg(gain=exp2,ties=average,missing=zero)"},
              "cutoffs": [5, 10]}
    local = evalkit.run_config(config).results
    got = evalkit.run_config({**config, "engine": {"name": "spark", "master": "local[2]",
                                                   "conf": {"spark.sql.shuffle.partitions": 2}}}).results
    assert got.labels == local.labels and got.systems == ("a", "b")
    assert_same(got, local)
    with pytest.raises(evalkit.ConfigError, match="engine"):
        evalkit.run_config({**config, "engine": {"name": "dask"}})
    # report.sensitivity: false turns the tie spread and judged@k off on Spark too
    quiet = evalkit.run_config({**config, "report": {"sensitivity": False},
                                "engine": {"name": "spark", "master": "local[2]",
                                           "conf": {"spark.sql.shuffle.partitions": 2}}})
    assert quiet.tie_bounds is None and quiet.judged is None
    assert_same(quiet.results, local)


def _tied_run(path: Path, qrels: Path, seed: int) -> None:
    """A run over the qrels' documents with scores rounded to 0..3 (many ties), a
    quarter of each query's documents unjudged, one query left out."""
    rng = np.random.default_rng(seed)
    by_q: dict = {}
    for line in qrels.read_text().split("\n"):
        if line.strip():
            q, _, d, _ = line.split()
            by_q.setdefault(q, []).append(d)
    lines = []
    for q, docs in sorted(by_q.items())[1:]:
        docs = docs[:30] + [f"unjudged-{q}-{i}" for i in range(10)]
        for d in rng.permutation(docs):
            lines.append(f"{q} Q0 {d} 0 {int(rng.integers(0, 4))} tied{seed}")
    path.write_text("\n".join(lines) + "\n")


def _judged_brute_force(qrels: Path, run: Path, k: int) -> dict:
    """ir_measures' Judged@k from the files: score descending, docno ascending, the
    judged fraction of the first min(k, n) documents."""
    judged = {(q, d) for q, _, d, _ in (line.split() for line in qrels.read_text().splitlines() if line.strip())}
    by_q: dict = {}
    for q, _, d, _, score, _ in (line.split() for line in run.read_text().splitlines() if line.strip()):
        by_q.setdefault(q, []).append((-float(score), d))
    return {q: sum((q, d) in judged for _, d in sorted(docs)[:k]) / min(k, len(docs)) for q, docs in by_q.items()}


@pytest.mark.shared
def test_config_engine_spark_report_has_tie_spread_and_judged(spark, trec_eval_dir, tmp_path):
    """The tie spread and judged@k come from the executors, equal to the local
    engine's, and every report file is the same (bar the output directory)."""
    qrels = trec_eval_dir / "qrels.rel_level"
    _tied_run(tmp_path / "tied1.txt", qrels, 1)
    _tied_run(tmp_path / "tied2.txt", qrels, 2)
    config = {"qrels": str(qrels),
              "runs": [{"name": "std", "path": str(trec_eval_dir / "results.test")},
                       {"name": "tied1", "path": str(tmp_path / "tied1.txt")},
                       {"name": "tied2", "path": str(tmp_path / "tied2.txt")}],
              "flavours": {"trec": "trec_eval9.ndcg_cut", "avg": "ndcg(gain=exp2,ties=average)",
                           "whole": "ndcg(ties=stable,missing=zero)"},
              "cutoffs": [5, 10], "baseline": "std",
              "output": {"dir": str(tmp_path / "local"), "formats": ["markdown", "csv", "json", "latex", "html"]}}
    local = evalkit.run_config(config)
    got = evalkit.run_config({**config, "output": {**config["output"], "dir": str(tmp_path / "spark")},
                              "engine": {"name": "spark", "master": "local[2]", "partitions": 3}})
    assert_same(got.results, local.results)
    assert got.tie_bounds is not None and got.judged is not None
    for mine, theirs in zip(got.tie_bounds, local.tie_bounds):
        np.testing.assert_allclose(mine, theirs, rtol=0, atol=TOL, equal_nan=True)
    assert got.judged.cutoffs == local.judged.cutoffs == (5, 10)
    assert got.judged.systems == ("std", "tied1", "tied2") and list(got.judged.qids) == list(local.judged.qids)
    np.testing.assert_allclose(got.judged.values, local.judged.values, rtol=0, atol=TOL, equal_nan=True)
    # independent of both engines: judged@10 from the files, and the spread of a tied run is wide
    want = _judged_brute_force(qrels, tmp_path / "tied1.txt", 10)
    row = got.judged.values[1, 1]
    assert {q: row[i] for i, q in enumerate(got.judged.qids) if not np.isnan(row[i])} == pytest.approx(want, abs=1e-12)
    low, high = got.tie_bounds
    assert (high[1:] - low[1:] > 0.05).any() and np.all(low[~np.isnan(low)] <= high[~np.isnan(low)] + 1e-12)
    write_report(local)
    write_report(got)
    files = sorted(p.relative_to(tmp_path / "local") for p in (tmp_path / "local").rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "spark") for p in (tmp_path / "spark").rglob("*") if p.is_file())
    assert "tie_spread.csv" in {f.name for f in files} and "judged_at_k.csv" in {f.name for f in files}
    for f in files:
        a = _without_output_dir((tmp_path / "local" / f).read_text(), tmp_path / "local")
        b = _without_output_dir((tmp_path / "spark" / f).read_text(), tmp_path / "spark")
        assert a == b, f


def _without_output_dir(text: str, out_dir) -> str:
    """``text`` with every spelling of ``out_dir`` replaced by ``OUT``: absolute, resolved,
    relative to the working directory (a mapping config's ``output_dir`` is recorded relative
    to it, so the spelling depends on where pytest runs), and relative from a file in it
    (``../local``); normalised paths, longest first, so no spelling is half-replaced."""
    cwd = os.getcwd()
    forms = {str(out_dir), str(Path(out_dir).resolve()), os.path.relpath(out_dir, cwd),
             os.path.relpath(Path(out_dir).resolve(), Path(cwd).resolve()), f"../{Path(out_dir).name}"}
    for form in sorted(forms, key=len, reverse=True):
        text = text.replace(form.replace(os.sep, "/"), "OUT")
    return text


@pytest.mark.shared
def test_engines_come_from_the_registry(trec_eval_dir):
    qrels, run = str(trec_eval_dir / "qrels.test"), str(trec_eval_dir / "results.test")
    status, _, err = _cli(["eval", qrels, run, "-m", "ndcg@10", "--engine", "dask"])
    assert status == 2 and "unknown engine 'dask' (known: columnar, spark)" in err
    assert _cli(["eval", qrels, run, "-m", "ndcg@10", "--engine", "local"])[1] == \
        _cli(["eval", qrels, run, "-m", "ndcg@10"])[1]
