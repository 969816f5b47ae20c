"""Qrels by ir_datasets id (``irds:DATASET_ID``) in the readers, ``evalkit eval``, ``explain``
and configs, and ``-m official`` (issue 28).

Nothing downloads: every dataset is registered in ir_datasets' registry from local files
(``ir_datasets.formats.TrecQrels`` / ``TrecSubQrels`` over ``util.LocalDownload``, the parts
``ir_datasets.create_dataset`` is made of), with ``IR_DATASETS_HOME`` in a temporary
directory. The data: trec_eval's graded test qrels (``qrels.rel_level``, grades -1..4) and its
run ``results.test``; ir_measures' diversity fixture for subtopic qrels. The official measures
registered are TREC DL 2020's as ir_datasets states them (``docs/msmarco-passage.yaml``:
``nDCG@10``, ``RR(rel=2)``, ``AP(rel=2)``), and the reference for their values is ir_measures
itself.
"""

from __future__ import annotations

import json
import sys
import uuid

import numpy as np
import pytest

import evalkit
from evalkit.cli import main
from evalkit.ecosystem.ir_datasets import DatasetError, dataset_info

from conftest import shared_path

import ir_datasets as irds  # a light reference (the test extra): missing, the unit layer fails
import ir_measures  # a light reference (the test extra): missing, the unit layer fails

DL20_OFFICIAL = ["nDCG@10", "RR(rel=2)", "AP(rel=2)"]
LEVELS = {-1: "junk", 0: "not relevant", 1: "relevant", 2: "highly relevant", 3: "perfect", 4: "key"}


class _Docs:
    """A dataset part giving ``documentation()``, as ir_datasets' YAML documentation does."""

    def __init__(self, docs):
        self._docs = docs

    def documentation(self):
        return dict(self._docs)


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    """``{name: "irds:ID"}`` of datasets registered for this module (unique ids: ir_datasets'
    registry refuses an id twice in a process)."""
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TrecSubQrels
    from ir_datasets.util import LocalDownload

    home = tmp_path_factory.mktemp("irds_home")
    te = shared_path("trec_eval_test")
    div = shared_path("ir_measures_fixtures", "fixtureC_diversity.qrels")
    tag = f"evalkit-test-{uuid.uuid4().hex[:8]}"
    parts = {
        "graded": [TrecQrels(LocalDownload(te / "qrels.rel_level"), LEVELS), _Docs({"official_measures": DL20_OFFICIAL})],
        "no_official": [TrecQrels(LocalDownload(te / "qrels.rel_level"), LEVELS)],
        "offline": [TrecQrels(LocalDownload(home / "never-downloaded.txt"), {}), _Docs({"official_measures": ["nDCG@10"]})],
        "subtopics": [TrecSubQrels(LocalDownload(div), {0: "no", 1: "yes"})],
        "unsupported": [TrecQrels(LocalDownload(te / "qrels.rel_level"), LEVELS),
                        _Docs({"official_measures": ["nDCG@10", "BPM@10"]})],
    }
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("IR_DATASETS_HOME", str(home))
        out = {}
        for name, constituents in parts.items():
            irds.registry.register(f"{tag}/{name}", Dataset(*constituents))
            out[name] = f"irds:{tag}/{name}"
        yield out
    assert not any(home.iterdir()), "ir_datasets wrote into IR_DATASETS_HOME (a download?)"


@pytest.fixture(scope="module")
def te_dir():
    return shared_path("trec_eval_test")


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.shared
def test_read_qrels_by_id_equals_the_file(datasets, te_dir):
    got = evalkit.read_qrels(datasets["graded"])
    want = evalkit.read_qrels(te_dir / "qrels.rel_level")
    assert got.source == datasets["graded"]
    assert got.to_dict() == want.to_dict() and len(got) == len(want) == 3681
    assert set(np.unique(got.grade)) == {-1.0, 0.0, 1.0, 2.0, 3.0, 4.0}  # as stated, negative grades kept
    info = dataset_info(datasets["graded"])
    assert info["relevance_levels"] == LEVELS and info["official_measures"] == DL20_OFFICIAL
    assert info["subtopics"] is False


@pytest.mark.shared
def test_eval_official_from_the_command_line_equals_ir_measures(datasets, te_dir, capsys):
    run = te_dir / "results.test"
    code, out, err = cli(capsys, "eval", datasets["graded"], run, "-m", "official", "--format", "json", "-q")
    assert code == 0, err
    data = json.loads(out)
    assert [m["label"] for m in data["measures"]] == DL20_OFFICIAL
    got = data["runs"]["STANDARD"]
    ref = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in DL20_OFFICIAL],
                                     ir_measures.read_trec_qrels(str(te_dir / "qrels.rel_level")),
                                     ir_measures.read_trec_run(str(run)))
    for m in DL20_OFFICIAL:
        assert got["all"][m] == pytest.approx(ref[ir_measures.parse_measure(m)], abs=1e-12), m
    # the same as naming the measures on the file
    code, same, _ = cli(capsys, "eval", te_dir / "qrels.rel_level", run, "--format", "json", "-q",
                        *[a for m in DL20_OFFICIAL for a in ("-m", m)])
    assert json.loads(same)["runs"] == data["runs"]
    # official next to other measures, each once
    code, out, _ = cli(capsys, "eval", datasets["graded"], run, "-m", "trec_eval.ndcg_cut@10", "-m", "official",
                       "-m", "nDCG@10", "--format", "json")
    assert [m["label"] for m in json.loads(out)["measures"]] == ["trec_eval.ndcg_cut@10", *DL20_OFFICIAL]


@pytest.mark.shared
def test_explain_reads_an_irds_qrels(datasets, te_dir, capsys):
    code, out, err = cli(capsys, "explain", datasets["graded"], te_dir / "results.test", "--query", "302",
                         "-m", "nDCG@10")
    assert code == 0, err
    code2, out2, _ = cli(capsys, "explain", te_dir / "qrels.rel_level", te_dir / "results.test", "--query", "302",
                         "-m", "nDCG@10")
    assert out == out2.replace(str(te_dir / "qrels.rel_level"), datasets["graded"])


@pytest.mark.shared
def test_config_with_irds_qrels_and_official(datasets, te_dir, tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"qrels: {datasets['graded']}\n"
                   f"runs:\n  - {{name: std, path: {te_dir / 'results.test'}}}\n"
                   "flavours:\n  official: official\n  te: trec_eval.ndcg_cut@10\n"
                   f"output: {{dir: {tmp_path / 'out'}, formats: [json]}}\n")
    report = evalkit.run_config(cfg)
    assert list(report.results.labels) == [*DL20_OFFICIAL, "te"]
    direct = evalkit.evaluate(evalkit.read_qrels(te_dir / "qrels.rel_level"), [evalkit.read_run(te_dir / "results.test")],
                              [*DL20_OFFICIAL, "trec_eval.ndcg_cut@10"])
    np.testing.assert_array_equal(report.results.means(), direct.means())
    assert main(["run", str(cfg)]) == 0
    written = json.loads(next((tmp_path / "out").glob("*.json")).read_text())
    assert datasets["graded"] in json.dumps(written)  # the report names the dataset, not a path


@pytest.mark.shared
def test_subtopic_qrels_by_id(datasets, ir_measures_dir, capsys):
    div = ir_measures_dir / "fixtureC_diversity.qrels"
    got = evalkit.read_subtopic_qrels(datasets["subtopics"])
    want = evalkit.read_subtopic_qrels(div)
    for field in ("qid", "subtopic", "docno", "grade"):
        np.testing.assert_array_equal(getattr(got, field), getattr(want, field))
    # the ordinary qrels: each document's largest grade over its subtopics
    flat = evalkit.read_qrels(datasets["subtopics"]).to_dict()
    best: dict = {}
    for line in div.read_text().split("\n"):
        if line.strip():
            q, _, d, g = line.split()
            best.setdefault(q, {})[d] = max(best.get(q, {}).get(d, -99), float(g))
    assert flat == best
    run = ir_measures_dir / "fixtureA.run"
    a = cli(capsys, "eval", datasets["subtopics"], run, "--subtopic-qrels", datasets["subtopics"],
            "-m", "ndeval.alpha_ndcg@20", "-q", "--format", "tsv")
    b = cli(capsys, "eval", datasets["subtopics"], run, "--subtopic-qrels", div, "-m", "ndeval.alpha_ndcg@20",
            "-q", "--format", "tsv")
    assert a[0] == b[0] == 0 and a[1] == b[1] and "alpha" in a[1]


@pytest.mark.shared
def test_errors_name_the_id_and_exit_2(datasets, te_dir, capsys):
    run = te_dir / "results.test"
    cases = [
        (["eval", "irds:no-such/dataset", run, "-m", "nDCG@10"], "ir_datasets has no dataset 'no-such/dataset'"),
        (["eval", datasets["offline"], run, "-m", "official"], "FileNotFoundError"),
        (["eval", datasets["no_official"], run, "-m", "official"], "states no official measures"),
        (["eval", datasets["unsupported"], run, "-m", "official"], "official measure 'BPM@10'"),
        (["eval", datasets["graded"], run, "--subtopic-qrels", datasets["graded"], "-m", "nDCG@10"],
         "have no subtopics"),
        (["eval", "irds:", run, "-m", "nDCG@10"], "no dataset id"),
    ]
    for argv, message in cases:
        code, out, err = cli(capsys, *argv)
        assert code == 2, (argv, err)
        assert message in err and "Traceback" not in err, (argv, err)
        if "irds:" in str(argv[1]) and argv[1] != "irds:":
            assert str(argv[1]) in err
    with pytest.raises(DatasetError, match="not available offline"):
        evalkit.read_qrels(datasets["offline"])
    # with qrels from a file, official is trec_eval's official measure set (trec_eval -m official)
    code, out, err = cli(capsys, "eval", te_dir / "qrels.test", run, "-m", "official", "--format", "tsv")
    assert code == 0 and out.splitlines()[0].split()[0] == "runid" and "ndcg_cut_10" not in out


def test_missing_ir_datasets_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # import ir_datasets raises ImportError
    from evalkit.ecosystem import MissingDependencyError

    with pytest.raises(MissingDependencyError, match=r"evalkit-ndcg\[irds\]"):
        evalkit.read_qrels("irds:msmarco-passage/trec-dl-2020/judged")
    assert issubclass(MissingDependencyError, evalkit.EvalkitError)


@pytest.mark.shared
@pytest.mark.spark
def test_spark_engine_reads_irds_qrels(datasets, te_dir, ir_measures_dir, spark, capsys):
    """``--engine spark`` takes ``irds:`` qrels and subtopic qrels too, with the same output."""
    run = te_dir / "results.test"
    args = ["-m", "official", "-m", "trec_eval.ndcg_cut@10", "-q", "--format", "tsv"]
    local = cli(capsys, "eval", datasets["graded"], run, *args)
    on_spark = cli(capsys, "eval", datasets["graded"], run, *args, "--engine", "spark", "--spark-master", "local[2]")
    assert local[0] == on_spark[0] == 0, on_spark[2]
    assert on_spark[1] == local[1] and "\nRR " in local[1]  # tsv prints the native name
    div_run = ir_measures_dir / "fixtureA.run"
    # (ndeval.* order by the rank column, which the Spark engine does not carry)
    args = ["--subtopic-qrels", datasets["subtopics"], "-m", "ir_measures.alpha_nDCG@20", "-q", "--format", "tsv"]
    local = cli(capsys, "eval", datasets["subtopics"], div_run, *args)
    on_spark = cli(capsys, "eval", datasets["subtopics"], div_run, *args, "--engine", "spark",
                   "--spark-master", "local[2]")
    assert local[0] == on_spark[0] == 0, on_spark[2]
    assert on_spark[1] == local[1]


@pytest.mark.shared
def test_config_errors_name_the_key_and_line(datasets, te_dir, tmp_path):
    run = te_dir / "results.test"
    for qrels, message in ((datasets["no_official"], "states no official measures"),):
        cfg = tmp_path / "c.yaml"
        cfg.write_text(f"qrels: {qrels}\nruns:\n  - {{path: {run}}}\nflavours:\n  dl: official\n")
        with pytest.raises(evalkit.ConfigError, match=message) as info:
            evalkit.run_config(cfg)
        assert f"{cfg}:5: flavours.dl" in str(info.value)
    cfg.write_text(f"qrels: irds:no-such/id\nruns:\n  - {{path: {run}}}\nflavours:\n  te: trec_eval.ndcg_cut@10\n")
    with pytest.raises(evalkit.EvalkitError, match="irds:no-such/id: ir_datasets has no dataset"):
        evalkit.run_config(cfg)
