"""Config loading: schema validation with file:line:key errors, run naming from globs,
cutoff expansion, paths relative to the config file."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from evalkit import ConfigError, build_registry, parse_flavour
from evalkit.runner import load_config, run_config, run_name_from_file

QRELS = "q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d1 1\nq2 0 d4 1\n"
RUN_A = "q1 Q0 d1 1 3.0 A\nq1 Q0 d2 2 2.0 A\nq1 Q0 d3 3 1.0 A\nq2 Q0 d4 1 2.0 A\nq2 Q0 d1 2 1.0 A\n"
RUN_B = "q1 Q0 d3 1 3.0 B\nq1 Q0 d2 2 2.0 B\nq1 Q0 d1 3 1.0 B\nq2 Q0 d5 1 2.0 B\nq2 Q0 d1 2 1.0 B\n"


@pytest.fixture(scope="module")
def registry():
    return build_registry(disable_plugins=True)


@pytest.fixture
def data_dir(tmp_path):
    d = tmp_path / "data"
    d.mkdir()
    (d / "qrels.txt").write_text(QRELS)
    (d / "input.sysA.gz").write_bytes(_gz(RUN_A))
    (d / "input.sysB.gz").write_bytes(_gz(RUN_B))
    (d / "plain.run").write_text(RUN_A)
    return d


def _gz(text: str) -> bytes:
    import gzip

    return gzip.compress(text.encode())


def write_config(tmp_path: Path, text: str) -> Path:
    cfg_dir = tmp_path / "configs"
    cfg_dir.mkdir(exist_ok=True)
    path = cfg_dir / "c.yaml"
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def error_of(path: Path, registry) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path, registry=registry)
    return str(info.value)


def assert_where(message: str, path: Path, line: int, key: str):
    """The message starts with FILE:LINE: KEY:"""
    assert message.startswith(f"{path}:{line}: {key}: "), message


# ----------------------------------------------------------------------------- valid configs


def test_glob_names_cutoffs_and_labels(tmp_path, data_dir, registry, monkeypatch):
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs:
          - {glob: ../data/input.*.gz, allow_outside: true}
          - name: plain
            path: ../data/plain.run
        cutoffs: [5, 10]
        flavours:
          trec: trec_eval.ndcg_cut
          exp2: "ndcg(gain=exp2,discount=log2,idcg=judged,ties=trec_eval)"
          at3: ndcg@3
          full: {spec: trec_eval.ndcg, cutoffs: null}
          own: {spec: "ndcg(discount=reciprocal)", cutoffs: [1]}
        baseline: sysA
        output: {dir: ../out/x}
    """)
    monkeypatch.chdir(tmp_path.parent)  # relative paths must not depend on the cwd
    cfg = load_config(path, registry=registry)
    assert cfg.run_names == ("sysA", "sysB", "plain")
    assert cfg.runs[0].path == (data_dir / "input.sysA.gz").resolve()
    assert cfg.labels == ("trec@5", "trec@10", "exp2@5", "exp2@10", "at3", "full", "own@1")
    by_label = {f.label: f.flavour for f in cfg.flavours}
    assert by_label["trec@10"] == parse_flavour("ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval,"
                                                "missing=error)@10", registry)
    assert by_label["exp2@5"] == parse_flavour("ndcg(gain=exp2)@5", registry)
    assert by_label["at3"].k == 3  # its own @k: the top-level cutoffs do not apply
    assert by_label["full"].k is None
    assert by_label["own@1"] == parse_flavour("ndcg(discount=reciprocal)@1", registry)
    assert cfg.baseline == "sysA"
    assert cfg.output_dir == (tmp_path / "out" / "x").resolve()  # relative to the config file
    assert cfg.formats == ("markdown", "csv", "json")


def test_name_pattern(tmp_path, data_dir, registry):
    path = write_config(tmp_path, r"""
        qrels: ../data/qrels.txt
        runs:
          - glob: ../data/input.*.gz
            name_pattern: 'input\.sys(\w)'
            allow_outside: true
        flavours: {a: ndcg}
    """)
    assert load_config(path, registry=registry).run_names == ("A", "B")


@pytest.mark.parametrize("filename, name", [
    ("input.InexpC2.gz", "InexpC2"),
    ("input.uic0301.gz", "uic0301"),
    ("bm25.run", "bm25.run"),
    ("bm25.run.gz", "bm25.run"),
    ("input.", "input."),
])
def test_run_name_from_file(filename, name):
    assert run_name_from_file(filename) == name


def test_mapping_config_resolves_against_base_dir(data_dir, registry):
    cfg = load_config({"qrels": "qrels.txt", "runs": [{"path": "plain.run"}], "flavours": {"a": "ndcg@2"}},
                      registry=registry, base_dir=data_dir)
    assert cfg.run_names == ("plain.run",)
    assert cfg.source == "<mapping>"


def test_run_config_values_by_hand(tmp_path, data_dir, registry):
    """sysA on q1: grades [2,1,0] in order -> NDCG = 1; on q2: [1,1] judged both -> 1.
    sysB on q1: [0,1,2]: DCG = 1/log2(3) + 2/log2(4) = 1.63093, IDCG = 2 + 1/log2(3) = 2.63093;
    on q2: [unjudged d5, 1]: DCG = 1/log2(3) = 0.63093, IDCG = 1 + 0.63093."""
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs: [{glob: ../data/input.*.gz, allow_outside: true}]
        flavours: {t: trec_eval.ndcg}
    """)
    report = run_config(path, registry=registry)
    import math

    l3 = 1 / math.log2(3)
    b_q1 = (l3 + 1.0) / (2 + l3)
    b_q2 = l3 / (1 + l3)
    assert report.results.per_query("sysA", "t") == pytest.approx({"q1": 1.0, "q2": 1.0})
    assert report.results.per_query("sysB", "t") == pytest.approx({"q1": b_q1, "q2": b_q2})
    assert report.means[1, 0] == pytest.approx((b_q1 + b_q2) / 2)


# ----------------------------------------------------------------------------- errors with lines


def test_unknown_key_names_line_and_key(tmp_path, data_dir, registry):
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs: [{glob: ../data/input.*.gz, allow_outside: true}]
        flavours: {a: ndcg}
        output:
          dir: out
          fromats: [csv]
    """)
    msg = error_of(path, registry)
    assert_where(msg, path, 6, "output.fromats")
    assert "unknown key 'fromats'" in msg and "formats" in msg


def test_bad_cutoff_item_line(tmp_path, data_dir, registry):
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs: [{glob: ../data/input.*.gz, allow_outside: true}]
        flavours: {a: ndcg}
        cutoffs:
          - 10
          - 0
    """)
    msg = error_of(path, registry)
    assert_where(msg, path, 6, "cutoffs[1]")
    assert "minimum of 1" in msg


def test_unknown_component_in_spec(tmp_path, data_dir, registry):
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs: [{glob: ../data/input.*.gz, allow_outside: true}]
        flavours:
          fine: ndcg
          broken: "ndcg(gain=exp3)@10"
    """)
    msg = error_of(path, registry)
    assert_where(msg, path, 5, "flavours.broken")
    assert "unknown gain 'exp3'" in msg and "exp2" in msg and "linear" in msg


def test_unknown_parameter_in_nested_spec(tmp_path, data_dir, registry):
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs: [{glob: ../data/input.*.gz, allow_outside: true}]
        flavours:
          j:
            spec: "ndcg(discount=jarvelin(bse=2))"
            cutoffs: [10]
    """)
    msg = error_of(path, registry)
    assert_where(msg, path, 5, "flavours.j.spec")
    assert "no parameter 'bse'" in msg and "base" in msg


def test_unknown_flavour_key(tmp_path, data_dir, registry):
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs: [{glob: ../data/input.*.gz, allow_outside: true}]
        flavours:
          j:
            spec: ndcg
            cutof: [10]
    """)
    msg = error_of(path, registry)
    assert_where(msg, path, 6, "flavours.j.cutof")


def test_missing_qrels_file(tmp_path, data_dir, registry):
    path = write_config(tmp_path, """
        runs: [{glob: ../data/input.*.gz, allow_outside: true}]
        flavours: {a: ndcg}
        qrels: ../data/nope.txt
    """)
    msg = error_of(path, registry)
    assert_where(msg, path, 3, "qrels")
    assert "not found" in msg and "nope.txt" in msg


def test_missing_run_file(tmp_path, data_dir, registry):
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs:
          - name: a
            path: ../data/plain.run
          - name: b
            path: ../data/missing.run
        flavours: {a: ndcg}
    """)
    msg = error_of(path, registry)
    assert_where(msg, path, 6, "runs[1].path")


def test_empty_glob(tmp_path, data_dir, registry):
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs:
          - {glob: ../data/input.*.gz, allow_outside: true}
          - {glob: ../data/nothing-*.run, allow_outside: true}
        flavours: {a: ndcg}
    """)
    msg = error_of(path, registry)
    assert_where(msg, path, 4, "runs[1].glob")
    assert "no file matches" in msg


def test_unknown_baseline(tmp_path, data_dir, registry):
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs: [{glob: ../data/input.*.gz, allow_outside: true}]
        flavours: {a: ndcg}

        baseline: sysC
    """)
    msg = error_of(path, registry)
    assert_where(msg, path, 5, "baseline")
    assert "sysA" in msg and "sysB" in msg


def test_missing_required_key(tmp_path, data_dir, registry):
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        flavours: {a: ndcg}
    """)
    msg = error_of(path, registry)
    assert msg.startswith(f"{path}:1: ") and "missing required key 'runs'" in msg


def test_bad_run_entry(tmp_path, data_dir, registry):
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs:
          - {glob: ../data/input.*.gz, allow_outside: true}
          - name: only-a-name
        flavours: {a: ndcg}
    """)
    msg = error_of(path, registry)
    assert_where(msg, path, 4, "runs[1]")
    assert "path" in msg and "glob" in msg


def test_bad_format(tmp_path, data_dir, registry):
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs: [{glob: ../data/input.*.gz, allow_outside: true}]
        flavours: {a: ndcg}
        output:
          formats: [csv, xml]
    """)
    msg = error_of(path, registry)
    assert_where(msg, path, 5, "output.formats[1]")
    assert "'xml'" in msg and "markdown" in msg


def test_duplicate_key(tmp_path, data_dir, registry):
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs: [{glob: ../data/input.*.gz, allow_outside: true}]
        flavours: {a: ndcg}
        qrels: ../data/qrels.txt
    """)
    msg = error_of(path, registry)
    assert msg.startswith(f"{path}:4: ") and "'qrels' appears twice" in msg and "line 1" in msg


def test_yaml_syntax_error_line(tmp_path, data_dir, registry):
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs: [{glob: ../data/input.*.gz, allow_outside: true}
        flavours: {a: ndcg}
    """)
    msg = error_of(path, registry)
    assert re.match(rf"{re.escape(str(path))}:3: invalid YAML", msg), msg


def test_same_flavour_twice_under_two_labels(tmp_path, data_dir, registry):
    """Presets that share a flavour are both kept, each under its own label."""
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs: [{glob: ../data/input.*.gz, allow_outside: true}]
        flavours:
          mine: ndcg(missing=error)@10
          preset: trec_eval.ndcg_cut@10
          trec: ndcg_cut.10
    """)
    cfg = load_config(path, registry=registry)
    assert cfg.labels == ("mine", "preset", "trec")
    assert len({e.flavour for e in cfg.flavours}) == 1


def test_duplicate_run_names(tmp_path, data_dir, registry):
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs:
          - {glob: ../data/input.*.gz, allow_outside: true}
          - {name: sysA, path: ../data/plain.run}
        flavours: {a: ndcg}
    """)
    msg = error_of(path, registry)
    assert_where(msg, path, 4, "runs[1]")
    assert "two runs are named 'sysA'" in msg


def test_cutoff_given_twice(tmp_path, data_dir, registry):
    path = write_config(tmp_path, """
        qrels: ../data/qrels.txt
        runs: [{glob: ../data/input.*.gz, allow_outside: true}]
        flavours:
          a:
            spec: ndcg@10
            cutoffs: [5]
    """)
    msg = error_of(path, registry)
    assert_where(msg, path, 6, "flavours.a.cutoffs")


def test_mapping_errors_name_key_without_line(data_dir, registry):
    with pytest.raises(ConfigError, match=r"^<mapping>: flavours.a: unknown discount 'log3'"):
        load_config({"qrels": "qrels.txt", "runs": [{"path": "plain.run"}], "flavours": {"a": "ndcg(discount=log3)"}},
                    registry=registry, base_dir=data_dir)


def test_config_file_missing(tmp_path, registry):
    with pytest.raises(FileNotFoundError, match="no such config file"):
        load_config(tmp_path / "absent.yaml", registry=registry)


def test_never_evaluates_yaml_tags(tmp_path, data_dir, registry):
    """A python/object tag must not construct anything (safe loading)."""
    path = write_config(tmp_path, """
        qrels: !!python/object/apply:os.system ["echo hacked"]
        runs: [{glob: ../data/input.*.gz, allow_outside: true}]
        flavours: {a: ndcg}
    """)
    msg = error_of(path, registry)
    assert msg.startswith(f"{path}:1: invalid YAML")
