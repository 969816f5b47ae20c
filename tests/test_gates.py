"""Gates (evalkit.gates, evalkit gate, evalkit run --gate): verdicts, the tie-spread rule,
exit statuses, JUnit XML (checked with xml.etree against the JUnit schema's structure)
and the Markdown summary."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import scipy.stats

from evalkit.cli import main
from evalkit.gates import Gate, _Series, check_gate

from gate_data import DROPPED, GATES, write_benchmark


def _cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _gate(tmp_path, capsys, candidate, *extra, gates=GATES, config_extra=""):
    config = write_benchmark(tmp_path / candidate, candidate, gates, config_extra)
    return _cli(capsys, "--no-plugins", "gate", str(config), "--no-progress", "--label", "ci",
                "--gate-dir", str(tmp_path / candidate / "gates"), *extra)


def _lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.split(" ", 1)[0] in ("PASS", "FAIL", "SKIP")]


def test_perturbed_run_fails_naming_flavour_margin_and_queries(tmp_path, capsys):
    code, out, err = _gate(tmp_path, capsys, "perturbed")
    assert code == 1, err
    lines = _lines(out)
    # few-worse on ndcg@10; mean-drop on ndcg@5 and ndcg@10: one line each
    assert len(lines) == 3 and all(line.startswith("FAIL ") for line in lines), out
    few = lines[0]
    assert "few-worse: ndcg@10, candidate vs baseline baseline" in few
    assert "3 of 20 queries worse by more than 0.1000 (more than the 2 allowed)" in few
    assert all(q in few for q in DROPPED)
    drop = next(line for line in lines if line.startswith("FAIL mean-drop: ndcg@10"))
    assert "margin 0.0200" in drop and all(q in drop for q in DROPPED)
    assert "gates: 0 passed, 3 failed, 0 skipped" in out
    # the JUnit file: xml.etree, against the JUnit schema's structure
    root = ET.parse(tmp_path / "perturbed" / "gates" / "junit.xml").getroot()
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    suite = suites[0]
    for attr in ("name", "tests", "failures", "errors"):
        assert attr in suite.attrib
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("3", "3", "0", "0")
    cases = suite.findall("testcase")
    assert len(cases) == 3 and all(c.get("name") and c.get("classname") for c in cases)
    failures = [c.find("failure") for c in cases]
    assert all(f is not None and f.get("type") == "GateFailure" for f in failures)
    assert "ndcg@10" in cases[0].get("name") and "0.1000" in failures[0].get("message")
    assert all(q in failures[0].text for q in DROPPED)
    md = (tmp_path / "perturbed" / "gates" / "gates.md").read_text()
    assert md.startswith("## evalkit gates: config.yaml: FAILED") and md.count("| **FAIL** |") == 3


def test_tied_variant_passes_inside_the_tie_spread(tmp_path, capsys):
    code, out, err = _gate(tmp_path, capsys, "tied")
    assert code == 0, out + err
    lines = _lines(out)
    assert len(lines) == 3 and all(line.startswith("PASS ") for line in lines), out
    # it does fail as scored: the same three queries are worse
    assert "3 of 20 queries worse by more than 0.1000" in lines[0]
    assert all("inside the tie spread" in line and "so it passes" in line for line in lines)
    root = ET.parse(tmp_path / "tied" / "gates" / "junit.xml").getroot()
    assert root.find("testsuite").get("failures") == "0"
    assert all(c.find("failure") is None for c in root.iter("testcase"))


def test_told_to_fail_inside_the_tie_spread(tmp_path, capsys):
    gates = GATES.replace("    max_worse_queries:", "    fail_inside_tie_spread: true\n    max_worse_queries:")
    code, out, _ = _gate(tmp_path, capsys, "tied", gates=gates)
    assert code == 1
    lines = _lines(out)
    assert lines[0].startswith("FAIL few-worse") and "fail_inside_tie_spread: true, so it fails" in lines[0]
    assert all(line.startswith("PASS mean-drop") for line in lines[1:])


def test_identical_run_passes_and_run_gate_exit_status(tmp_path, capsys):
    code, out, _ = _gate(tmp_path, capsys, "baseline")
    assert code == 0 and all(line.startswith("PASS") for line in _lines(out))
    assert not any("tie spread" in line for line in _lines(out))
    config = tmp_path / "perturbed" / "config.yaml"
    write_benchmark(tmp_path / "perturbed", "perturbed")
    code, out, _ = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress", "--gate")
    assert code == 1 and "FAIL few-worse" in out and "Mean NDCG" not in out.split("FAIL")[1]
    code, out, _ = _cli(capsys, "--no-plugins", "run", str(config), "--no-progress")
    assert code == 0 and "FAIL" not in out


def test_user_and_internal_errors_keep_their_exit_status(tmp_path, capsys, monkeypatch):
    bad = GATES.replace("flavour: ndcg@10", "flavour: ndcg@7")
    code, out, err = _gate(tmp_path, capsys, "perturbed", gates=bad)
    assert code == 2 and "config.yaml:" in err and "gates[0].flavour: no flavour labelled or named 'ndcg@7'" in err
    two = GATES.replace("max_drop: 0.02", "max_drop: 0.02\n    min_mean: 0.5")
    code, out, err = _gate(tmp_path, capsys, "perturbed", gates=two)
    assert code == 2 and "exactly one of min_mean" in err
    code, out, err = _gate(tmp_path, capsys, "perturbed", gates="")
    assert code == 2 and "has no gates: section" in err
    import evalkit.gates

    def broken(*a, **k):
        raise RuntimeError("bug")

    monkeypatch.setattr(evalkit.gates, "check_gates", broken)
    code, out, err = _gate(tmp_path, capsys, "tied")
    assert code == 3 and "internal error" in err


def test_against_last_label(tmp_path, capsys):
    gates = "gates:\n  - flavour: ndcg@10\n    against: last\n    max_worse_queries: {count: 0, by: 0.1}\n"
    config = write_benchmark(tmp_path, "baseline", gates)
    code, out, _ = _cli(capsys, "--no-plugins", "gate", str(config), "--no-progress", "--label", "v1")
    assert code == 0 and all(line.startswith("SKIP") for line in _lines(out)) and len(_lines(out)) == 2
    write_benchmark(tmp_path, "perturbed", gates)
    code, out, _ = _cli(capsys, "--no-plugins", "gate", str(config), "--no-progress", "--label", "v2")
    assert code == 1
    lines = _lines(out)
    assert lines[0].startswith("PASS gates[0]: ndcg@10, baseline vs label v1")
    assert lines[1].startswith("FAIL gates[0]: ndcg@10, candidate vs label v1") and "3 of 20" in lines[1]
    # v2 again: compared with v1 still (the latest other label)
    code, out, _ = _cli(capsys, "--no-plugins", "gate", str(config), "--no-progress", "--label", "v2")
    assert code == 1 and "vs label v1" in _lines(out)[1]


def test_names_are_escaped_in_junit_and_markdown(tmp_path, capsys):
    gates = GATES.replace("name: few-worse", 'name: "<b>&\\x01|x"')
    code, out, _ = _gate(tmp_path, capsys, "perturbed", gates=gates)
    assert code == 1
    raw = (tmp_path / "perturbed" / "gates" / "junit.xml").read_text()
    root = ET.fromstring(raw.encode())
    names = [c.get("name") for c in root.iter("testcase")]
    assert names[0].startswith("<b>&\\x01|x:")  # parsed back: the control character made visible
    assert "<b>" not in raw and "\x01" not in raw
    md = (tmp_path / "perturbed" / "gates" / "gates.md").read_text()
    assert "\\<b\\>\\&" in md and "\\|x" in md and "\x01" not in md


def test_github_step_summary(tmp_path, capsys, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out, _ = _gate(tmp_path, capsys, "tied")
    assert code == 0
    text = summary.read_text()
    assert text.startswith("earlier step\n## evalkit gates: config.yaml: passed")
    assert text.count("| pass (inside the tie spread) |") == 3


# ----------------------------------------------------------------------------- the checks


def _series(values, low=None, high=None):
    qids = np.array([f"q{i}" for i in range(len(values))], dtype=object)
    arr = lambda v: None if v is None else np.asarray(v, dtype=float)  # noqa: E731
    return _Series(qids, arr(values), arr(low), arr(high))


def test_non_inferiority_matches_statsmodels():
    from statsmodels.stats.weightstats import DescrStatsW

    rng = np.random.default_rng(7)
    y = rng.uniform(0.2, 0.9, 40)
    x = y + rng.normal(-0.01, 0.05, 40)
    for margin in (0.0, 0.02, 0.05):
        gate = Gate("non_inferiority", {"margin": margin, "alpha": 0.05, "test": "t"}, ("f",), ("s",), "b")
        v = check_gate(gate, "s", "f", _series(x), _series(y), "baseline b", (math.nan, None))
        _t, p_sm = DescrStatsW(x - y).ttest_mean(-margin, alternative="larger")[:2]
        assert v.numbers["p"] == pytest.approx(p_sm, rel=1e-10)
        assert v.status == ("pass" if p_sm < 0.05 else "fail")
    gate = Gate("non_inferiority", {"margin": 0.02, "alpha": 0.05, "test": "wilcoxon"}, ("f",), ("s",), "b")
    v = check_gate(gate, "s", "f", _series(x), _series(y), "b", (math.nan, None))
    assert v.numbers["p"] == pytest.approx(scipy.stats.wilcoxon(x - y + 0.02, alternative="greater").pvalue)


def test_min_mean_and_max_drop_thresholds():
    gate = Gate("min_mean", {"value": 0.5}, ("f",), ("s",), None)
    assert check_gate(gate, "s", "f", _series([0.5]), None, None, (0.5, None)).status == "pass"
    assert check_gate(gate, "s", "f", _series([0.4]), None, None, (0.4999, None)).status == "fail"
    v = check_gate(gate, "s", "f", _series([0.4]), None, None, (0.49, 0.52))
    assert v.status == "pass" and v.inside_ties
    drop = Gate("max_drop", {"margin": 0.1}, ("f",), ("s",), "b")
    # drop exactly the margin (with floating-point noise) passes; more fails
    assert check_gate(drop, "s", "f", _series([0.7, 0.2]), _series([0.8, 0.3]), "b", (0, None)).status == "pass"
    v = check_gate(drop, "s", "f", _series([0.6, 0.2]), _series([0.8, 0.3]), "b", (0, None))
    assert v.status == "fail" and v.numbers["drop"] == pytest.approx(0.15)
    assert v.queries == (("q0", pytest.approx(-0.2)),)
    # queries missing from one side are not paired
    v = check_gate(drop, "s", "f", _series([0.6, np.nan]), _series([0.6, 0.0]), "b", (0, None))
    assert v.status == "pass" and v.numbers["n"] == 1


def test_a_gate_directory_holding_other_files_is_refused_before_evaluating(tmp_path, capsys):
    config = write_benchmark(tmp_path / "b", "tied")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    code, out, err = _cli(capsys, "--no-plugins", "gate", str(config), "--no-progress", "--gate-dir", str(busy))
    assert code == 2 and "notes.txt" in err and out == ""
    assert not (tmp_path / "b" / ".evalkit").exists()  # nothing evaluated or stored
    assert sorted(p.name for p in busy.iterdir()) == ["notes.txt"]
