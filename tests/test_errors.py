"""Every error a user can cause derives from EvalkitError (issue 8) and the CLI never
prints a traceback for one; an internal error says it is internal and how to report
it, with --debug for the traceback (issue 9)."""

from __future__ import annotations

import numpy as np
import pytest

import evalkit.arrays as ea
from evalkit import Results, parse_flavour
from evalkit.cli import EXIT_ERROR, EXIT_INTERNAL, main
from evalkit.errors import ArgumentError, EvalkitError, ReportError, UnknownNameError
from evalkit.report import Report, StatSettings, adjust_pvalues, flavour_agreement, write_report
from evalkit.results import concat


@pytest.fixture
def results(registry) -> Results:
    flavours = (parse_flavour("ndcg@5", registry), parse_flavour("ndcg", registry))
    values = np.array([[[0.5, 0.7], [0.4, 0.6]], [[0.6, 0.2], [0.3, 0.9]]])
    return Results(np.array(["q1", "q2"], dtype=object), ("a", "b"), flavours, ("k5", "all"), values)


# ----------------------------------------------------------------------------- library errors


@pytest.mark.parametrize("call, kind, message", [
    (lambda r: r.mean("nosuch", "k5"), UnknownNameError, "unknown system 'nosuch' (known: a, b)"),
    (lambda r: r.mean("a", "k7"), UnknownNameError, "unknown flavour 'k7' (known: k5, all)"),
    (lambda r: Report(r).agreement.pair("k5", "zz"), UnknownNameError, "no flavour pair 'k5', 'zz'"),
    (lambda r: Report(r, baseline="c"), ReportError, "baseline 'c' is not one of the systems (a, b)"),
    (lambda r: Report(r, statistics={"alpha": 2}), ReportError, "statistics.alpha must be between 0 and 1"),
    (lambda r: Report(r).write(), ReportError, "no output directory"),
    (lambda r: Report(r).render("xml"), ReportError, "unknown output format 'xml'"),
    (lambda r: r.mean(5, "k5"), UnknownNameError, "system index 5 is out of range (2 systems)"),
    (lambda r: r.mean("a", -3), UnknownNameError, "flavour index -3 is out of range (2 flavours)"),
    (lambda r: Report(r, statistics=5), ReportError, "statistics must be StatSettings or a mapping"),
    (lambda r: write_report(Report(r), None), ReportError, "no output directory given"),
    (lambda r: concat([]), ArgumentError, "nothing to concatenate"),
    (lambda r: concat([r, r]), ArgumentError, "overlap in queries"),
    (lambda r: flavour_agreement(np.zeros((2, 3)), ["a", "b"], ["x"]), ReportError, "means has shape (2, 3)"),
    (lambda r: StatSettings(n_resamples=0), ReportError, "n_resamples must be a positive integer"),
    (lambda r: adjust_pvalues([0.1], "nosuch"), ReportError, "unknown correction 'nosuch'"),
    (lambda r: ea.score([["a", "b"]], [[1, 2]]), ArgumentError, "y_true must be an array of real numbers"),
    (lambda r: ea.score([[1, 2]], [[1, 2, 3]]), ArgumentError, "y_true and y_score must be 2-D of equal shape"),
    (lambda r: ea.score([[1, 2]], [[1, np.inf]]), ArgumentError, "y_score contains infinite values"),
])
def test_user_errors_derive_from_evalkit_error(results, call, kind, message):
    with pytest.raises(kind) as err:
        call(results)
    assert isinstance(err.value, EvalkitError)
    assert message in str(err.value)


def test_index_lookups_follow_python(results):
    assert results.mean(-1, -1) == results.mean("b", "all") == pytest.approx((0.3 + 0.9) / 2)


def test_a_single_format_may_be_a_string(results, tmp_path):
    assert [p.name for p in write_report(Report(results), tmp_path / "o", "json")] == ["report.json"]


def test_unknown_name_is_a_key_error_with_a_readable_message(results):
    with pytest.raises(KeyError) as err:  # the Python convention for a failed lookup still holds
        results.mean("nosuch", "k5")
    assert str(err.value) == "unknown system 'nosuch' (known: a, b)"  # no quotes around the message


# ----------------------------------------------------------------------------- CLI


@pytest.fixture
def small(tmp_path):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d2 2\n")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2.0 a\nq1 Q0 d2 2 1.0 a\n")
    return tmp_path


def test_internal_error_says_so_without_a_traceback(small, capsys, monkeypatch):
    from evalkit.cli import eval as eval_cmd

    def broken(args):
        return {}["a bug"]

    monkeypatch.setattr(eval_cmd, "run", broken)
    code = main(["eval", str(small / "qrels.txt"), str(small / "a.run"), "-m", "ndcg"])
    err = capsys.readouterr().err
    assert code == EXIT_INTERNAL
    assert err.startswith("evalkit: internal error: KeyError: 'a bug' (in test_errors.py:")
    assert "bug in evalkit or in one of its plugins" in err and "--debug" in err and "--no-plugins" in err
    assert "Traceback" not in err

    code = main(["--debug", "eval", str(small / "qrels.txt"), str(small / "a.run"), "-m", "ndcg"])
    err = capsys.readouterr().err
    assert code == EXIT_INTERNAL
    assert err.startswith("Traceback (most recent call last)") and "in broken" in err
    assert "evalkit: internal error: KeyError" in err and "the traceback above" in err


@pytest.mark.parametrize("debug_after_command", [False, True])
def test_user_error_prints_one_line_and_a_traceback_only_with_debug(small, capsys, debug_after_command):
    argv = ["eval", str(small / "qrels.txt"), str(small / "a.run"), "-m", "ndcg(gain=exp3)"]
    assert main(argv) == EXIT_ERROR
    err = capsys.readouterr().err
    assert err.startswith("evalkit: error: ") and "exp3" in err and "Traceback" not in err
    assert err.count("\n") == 1
    argv = argv + ["--debug"] if debug_after_command else ["--debug"] + argv
    assert main(argv) == EXIT_ERROR
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "evalkit: error: " in err


def test_report_error_through_the_cli(small, capsys):
    out = small / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    cfg = small / "c.yaml"
    cfg.write_text("qrels: qrels.txt\nruns:\n  - {name: a, path: a.run}\nflavours:\n  t: trec_eval.ndcg_cut@2\n"
                   "output:\n  dir: out\n")
    assert main(["--no-plugins", "run", str(cfg), "--no-progress"]) == EXIT_ERROR
    captured = capsys.readouterr()
    assert captured.out == ""  # refused before evaluating and printing
    err = captured.err
    assert "evalkit: error: output directory" in err and "notes.txt" in err and "Traceback" not in err
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_report_write_error_names_the_directory(results, tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ReportError, match="exists and is not a directory"):
        write_report(Report(results), tmp_path / "file")
