"""Every measure of trec_eval 10.0 (issue 26) against trec_eval itself.

* trec_eval's own test suite (``../shared/data/trec_eval_test``): for every ``out.test*``
  file that takes qrels and a run, ``evalkit eval`` with the file's command line
  (``trec_eval`` replaced by ``evalkit eval``, ``--format tsv``) prints the file line
  for line (the Makefile's ``quicktest`` commands; ``/work/shared/data/README.md`` §1).
* Generated qrels and runs with tied scores, scores equal only in float32, negative
  grades (-1, -2), large grades (12, 1000), topics without a relevant judgment, a qrels
  topic missing from the run and a run topic missing from the qrels: per query, every
  printed value equals the trec_eval 9.0.8 and 10.0 binaries built from
  ``../shared/references`` (``tests/reference_programs.py``) under the flags ``-c``,
  ``-M``, ``-J``, ``-l``, ``-N`` (9.0.8 through ``--trec-eval-version 9.0.8``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from evalkit.cli import main
from evalkit.trec_eval_compat import parse_name

from conftest import shared_path
from reference_programs import parse_trec_eval_q, run_trec_eval

#: (expected file, flags, qrels, run): trec_eval's Makefile target quicktest
SUITE = [
    ("out.test", [], "qrels.test", "results.test"),
    ("out.test", [], "qrels.test.with-comments", "results.test"),
    ("out.comment.test", [], "qrels.comment.test", "results.comment.test"),
    ("out.test.a", ["-m", "all_trec"], "qrels.test", "results.test"),
    ("out.test.aq", ["-m", "all_trec", "-q"], "qrels.test", "results.test"),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c"], "qrels.test", "results.trunc"),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100"], "qrels.test", "results.trunc"),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2"], "qrels.rel_level", "results.test"),
    ("out.test.meas_params", ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
                              "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
                              "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20"],
     "qrels.test", "results.test"),
]


def _evalkit(capsys, args) -> str:
    code = main(["eval", *map(str, args), "--format", "tsv"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.mark.shared
@pytest.mark.parametrize("expected, flags, qrels, run", SUITE, ids=[f"{s[0]}-{s[2]}" for s in SUITE])
def test_trec_eval_suite_line_for_line(capsys, expected, flags, qrels, run):
    d = shared_path("trec_eval_test")
    out = _evalkit(capsys, [*flags, d / qrels, d / run])
    assert out.splitlines() == (d / expected).read_text().splitlines()


# --------------------------------------------------------------------------- generated data
def _generated(tmp_path, seed: int):
    """Qrels and two runs (all qrels topics; one topic missing) with the hard cases."""
    rng = np.random.default_rng(seed)
    grades = np.array([-2, -1, 0, 0, 0, 0, 1, 1, 2, 3, 4, 12, 1000])
    qrels, full = [], []
    topics = [f"t{i:02d}" for i in range(1, 11)]
    for t, topic in enumerate(topics):
        n_judged = int(rng.integers(3, 40))
        docs = [f"d{j:03d}" for j in rng.choice(300, n_judged + 30, replace=False)]
        judged = docs[:n_judged]
        g = rng.choice(grades, n_judged)
        if t == 3:
            g = np.where(g > 0, 0, g)  # a topic without a relevant judgment
        qrels += [f"{topic} 0 {d} {int(x)}" for d, x in zip(judged, g)]
        depth = int(rng.integers(1, len(docs)))
        ranked = list(rng.permutation(docs)[:depth])
        base = np.round(rng.random(depth), 1)  # many ties
        for i, d in enumerate(ranked):
            score = float(base[i])
            if i % 7 == 3:
                score += 1e-12  # equal to another score only in float32 (trec_eval 9)
            full.append(f"{topic} Q0 {d} {i + 1} {score!r} gen{seed}")
    full += [f"zz Q0 d001 1 0.5 gen{seed}"]  # a run topic the qrels do not judge
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp_path / "full").write_text("\n".join(full) + "\n")
    partial = [line for line in full if not line.startswith("t05 ")]
    (tmp_path / "partial").write_text("\n".join(partial) + "\n")
    return tmp_path / "qrels", tmp_path / "full", tmp_path / "partial"


MEASURES = ["-m", "all_trec", "-m", "P.3,7", "-miprec_at_recall..15,.33", "-m", "Rprec_mult.0.5,3",
            "-mutility.2,-1,1,0.5", "-m", "11pt_avg..2,.5,.8", "-mndcg.1=3,2=9,4=4.5", "-mG.0=0.5,2=7",
            "-mset_F.0.5", "-mrbp.p=0.5", "-mrbp_resid.p=0.7", "-msuccess.2,50", "-munj.3,100",
            "-mrelative_P.4,40", "-mrelstring.15"]
FLAGS = [[], ["-c"], ["-J"], ["-l2"], ["-M8"], ["-c", "-J", "-l3", "-M20", "-N", "500"]]


def _same(ours: dict, theirs: dict, where: str) -> None:
    # every line, '-nan' included (trec_eval divides 0 by 0 when -J leaves a topic no
    # document: iprec_at_recall, 11pt_avg, and so their mean)
    assert set(ours) == set(theirs), (where, sorted(set(ours) ^ set(theirs))[:10])
    bad = [(k, ours[k], theirs[k]) for k in theirs if ours[k] != theirs[k]]
    assert not bad, (where, bad[:10])


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f) or "none")
@pytest.mark.parametrize("version", ["10.0", "9.0.8"])
def test_generated_against_both_binaries(capsys, tmp_path, seed, flags, version):
    qrels, full, partial = _generated(tmp_path, seed)
    runs = [full, partial] if ("-c" in flags or version == "9.0.8") else [full]
    for run in runs:
        # trec_eval 10.0 -c scores a missing topic on a bogus one-document ranking and then
        # zeroes the values named exactly utility, rbp_resid, relstring (trec_eval.c, strcmp);
        # under another name (utility_2,-1,1,0.5) the bogus document counts: both compared
        measures = MEASURES
        if version == "9.0.8":  # measures trec_eval 10.0 added
            measures = [m for m in measures if not m.startswith(("-mrbp", "-munj"))]
        args = [*measures, "-q", *flags, qrels, run]
        want = parse_trec_eval_q(run_trec_eval(version, args).stdout)
        ours = parse_trec_eval_q(_evalkit(capsys, [*args, "--trec-eval-version", version]))
        _same(ours, want, f"trec_eval {version} {' '.join(flags)} {run.name}")


def _edge_cases(tmp_path):
    """Qrels and a run with the topics where trec_eval prints '-nan' or treats a topic
    apart: A ordinary; B every retrieved document unjudged (-J leaves none); C no relevant
    judgment; D judged, missing from the run; E only negative judgments (retrieved);
    F relevant judgment not retrieved, the retrieved ones judged -1. ``qrels_nod``: the
    same without D (trec_eval 10.0 refuses a missing topic without -c)."""
    qrels = ["A 0 a1 1", "A 0 a2 0", "A 0 a3 2", "B 0 b1 1", "B 0 b2 0", "C 0 c1 0", "C 0 c2 0", "D 0 d1 1",
             "D 0 d2 3", "E 0 e1 -1", "E 0 e2 -2", "F 0 f1 1", "F 0 f2 -1", "F 0 f3 -1"]
    run = ["A Q0 a3 1 3.0 r", "A Q0 x1 2 2.0 r", "A Q0 a1 3 1.0 r", "B Q0 y1 1 2.0 r", "B Q0 y2 2 1.0 r",
           "C Q0 c1 1 1.0 r", "C Q0 y3 2 0.5 r", "E Q0 e1 1 1.0 r", "E Q0 z1 2 0.5 r", "F Q0 f2 1 1.0 r",
           "F Q0 f3 2 0.5 r"]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp_path / "qrels_nod").write_text("\n".join(q for q in qrels if not q.startswith("D ")) + "\n")
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    return tmp_path / "qrels", tmp_path / "qrels_nod", tmp_path / "run"


EDGE_FLAGS = [[], ["-J"], ["-J", "-l2"], ["-J", "-M1"], ["-M1"], ["-c"], ["-c", "-J"], ["-c", "-J", "-M1"],
              ["-c", "-J", "-N", "9"], ["-c", "-M1", "-N", "9"]]


@pytest.mark.parametrize("flags", EDGE_FLAGS, ids=lambda f: " ".join(f) or "none")
@pytest.mark.parametrize("version", ["10.0", "9.0.8"])
def test_edge_cases_against_both_binaries(capsys, tmp_path, flags, version):
    """Every measure per query, '-nan' lines (iprec_at_recall and 11pt_avg on a topic
    -J leaves no document) and -c's bogus ranking (utility, rbp_resid, relstring under
    their parameterised names) included, equal to the binary's output."""
    qrels, qrels_nod, run = _edge_cases(tmp_path)
    measures = MEASURES if version == "10.0" else [m for m in MEASURES if not m.startswith(("-mrbp", "-munj"))]
    args = [*measures, "-q", *flags, qrels if "-c" in flags else qrels_nod, run]
    text = run_trec_eval(version, args).stdout
    want = parse_trec_eval_q(text)
    ours = parse_trec_eval_q(_evalkit(capsys, [*args, "--trec-eval-version", version]))
    _same(ours, want, f"trec_eval {version} {' '.join(flags)}")
    if "-J" in flags:  # the case is there: '-nan' for E (no relevant judgment) and the mean
        assert want[("11pt_avg_.2,.5,.8", "E")] == "-nan" and want[("11pt_avg_.2,.5,.8", "all")] == "-nan"


def test_nan_printed_as_trec_eval_prints_it(capsys, tmp_path):
    """The '-nan' token is printed in trec_eval's 6-wide field, line for line."""
    qrels, qrels_nod, run = _edge_cases(tmp_path)
    args = ["-m", "iprec_at_recall.0", "-m", "11pt_avg", "-q", "-J", qrels_nod, run]
    want = run_trec_eval("10.0", args).stdout.splitlines()
    assert "iprec_at_recall_0.00  \tB\t  -nan" in want
    assert _evalkit(capsys, args).splitlines() == want


def test_printed_names_are_accepted_back():
    """The names trec_eval (and --format tsv) prints parse back to the same values."""
    for typed in ("P.5,10", "iprec_at_recall..1,.25", "utility.2,-1,0,0", "ndcg.1=3,2=9", "Rprec_mult.0.2",
                  "ndcg_cut.23.4", "11pt_avg..25,.5", "num_rel_ret", "set_F.0.5"):
        for n in parse_name(typed):
            back = parse_name(n.native)
            assert [(b.native, b.preset, b.k, b.params) for b in back] == [(n.native, n.preset, n.k, n.params)]
    assert parse_name("unknown_measure") is None


@pytest.mark.parametrize("measure", ["bpref", "num_q", "Rprec", "set_F", "P.5"])
def test_a_missing_topic_stops_every_measure_as_trec_eval_10_does(capsys, tmp_path, measure):
    """trec_eval 10.0 stops (exit 4) on a qrels topic with no line in the run, whatever the
    measure; evalkit eval refuses it too (exit 2, naming the topic and -c). With -c both
    score it; with 9.0.8 both leave it out: per query equal to the built binaries."""
    qrels, _, partial = _generated(tmp_path, 1)
    done = run_trec_eval("10.0", ["-q", "-m", measure, qrels, partial], check=False)
    assert done.returncode == 4 and "not found in qrels" in done.stderr
    topics = {line.split()[0] for line in Path(qrels).read_text().splitlines()}
    (missing,) = topics - {line.split()[0] for line in Path(partial).read_text().splitlines()}
    code = main(["eval", "-m", measure, "-q", str(qrels), str(partial), "--format", "tsv"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert missing in err and "trec_eval 10.0 stops there too" in err and "-c scores such a topic 0" in err
    for version, flags in (("10.0", ["-c"]), ("9.0.8", [])):
        want = parse_trec_eval_q(run_trec_eval(version, ["-q", "-m", measure, *flags, qrels, partial]).stdout)
        ours = parse_trec_eval_q(_evalkit(capsys, ["-m", measure, "-q", *flags, qrels, partial,
                                                   "--trec-eval-version", version]))
        _same(ours, want, f"trec_eval {version} {flags} -m {measure}")
