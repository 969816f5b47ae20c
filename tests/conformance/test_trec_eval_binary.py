"""The trec_eval 9.0.8 binary (built from its release source, ``cf_treceval``) against the
trec_eval 10.0 presets (``trec_eval.*``, scores compared as C double): an honest
cross-check, not their reference (that is the trec_eval 10.0 binary). trec_eval 9
stores scores as C float, so the two may differ only on queries whose scores tie in
float32 but not in float64; these tests show that they agree everywhere else and that
the differences are exactly those ties.
"""

from __future__ import annotations

import numpy as np
import pytest

import cf_data as D
import cf_treceval as TE
from cf_base import DATASETS, TE9_DATA, TE_BIN_TOL

import evalkit

pytestmark = pytest.mark.shared

#: (preset measure, trec_eval's printed name, cutoffs)
MEASURES = (("ndcg", "ndcg", (None,)), ("ndcg_cut", "ndcg_cut_{k}", (5, 10, 1000)),
            ("ndcg_rel", "ndcg_rel", (None,)), ("Rndcg", "Rndcg", (None,)), ("P", "P_{k}", (5, 10, 1000)),
            ("map", "map", (None,)), ("map_cut", "map_cut_{k}", (5, 1000)),
            ("recall", "recall_{k}", (5, 1000)), ("recip_rank", "recip_rank", (None,)))


def f32_only_queries(case: D.Case) -> set:
    """Queries with two scores distinct in float64 and equal in float32."""
    by_q: dict = {}
    for q, _, s in case.run_rows:
        by_q.setdefault(q, []).append(s)
    return {q for q, v in by_q.items() if len(np.unique(np.float32(v))) < len(np.unique(v))}


def as_float_exact_ranks(case: D.Case) -> D.Case:
    """The run with each score replaced by its dense rank in float64 order within the
    query (small integers, exact in float32; equal doubles stay equal): the float64
    order in a form trec_eval 9's C float keeps."""
    by_q: dict = {}
    for q, _, s in case.run_rows:
        by_q.setdefault(q, set()).add(s)
    rank = {q: {s: float(i) for i, s in enumerate(sorted(v))} for q, v in by_q.items()}
    return D.Case(case.name + "/f64-ranks", case.qrels_rows, [(q, d, rank[q][s]) for q, d, s in case.run_rows])


def collapsed_in_float32(case: D.Case) -> D.Case:
    """Every score moved to ``1 + r * 2**-40`` (``r`` its float64 dense rank): the float64
    order is kept and every score of a query is 1.0 in float32 (ulp 2**-23), so trec_eval 9
    orders each query by docno alone."""
    fx = as_float_exact_ranks(case)
    return D.Case(case.name + "/f32-collapsed", case.qrels_rows,
                  [(q, d, 1.0 + s * 2.0 ** -40) for q, d, s in fx.run_rows])


def _evalkit(case, preset, k):
    """``preset`` on ``case`` with the qrels of the run's topics: 9.0.8 leaves a qrels topic
    the run lacks out, where the trec_eval.* presets refuse it as 10.0 does (missing=error)."""
    in_run = {q for q, _, _ in case.run_rows}
    case = D.Case(case.name, [r for r in case.qrels_rows if r[0] in in_run], case.run_rows)
    res = evalkit.evaluate(case.qrels, case.run, [preset + (f"@{k}" if k is not None else "")])
    return res.per_query(0, 0), res.mean(0, 0)


def _differing(case, fed, m, native, k, preset_family="trec_eval"):
    """Queries where evalkit's ``preset_family.m`` on ``case`` and the binary on ``fed``
    differ by more than the printing tolerance; asserts equal query sets."""
    got, _ = _evalkit(case, f"{preset_family}.{m}", k)
    ref = TE.trec_eval(native)(fed, k)
    assert set(got) == set(ref.per_query), f"{case.name} {m}@{k}: query sets differ"
    return {q for q in got if abs(got[q] - ref.per_query[q]) > TE_BIN_TOL}


@pytest.mark.parametrize("name", TE9_DATA)
def test_trec_eval10_presets_agree_with_the_binary_except_on_float32_only_ties(name):
    """Per query: a difference beyond trec_eval's printed precision only where scores tie
    in float32 alone; on data without such ties, per query and mean agree."""
    case = DATASETS[name]()
    f32q = f32_only_queries(case)
    for m, native, cuts in MEASURES:
        for k in cuts:
            bad = _differing(case, case, m, native, k)
            assert bad <= f32q, f"{name} {m}@{k}: differences outside float32-only ties: {sorted(bad - f32q)}"
            if not f32q:
                _, mean = _evalkit(case, f"trec_eval.{m}", k)
                assert abs(mean - TE.trec_eval(native)(case, k).mean) <= TE_BIN_TOL, (name, m, k)


@pytest.mark.parametrize("name", ("robust03/oce03noXbmD", "generated", "trec_eval_test/results.test"))
def test_the_differences_are_exactly_the_float32_ties(name):
    """Scores collapsed to one float32 value: the trec_eval 10.0 presets differ from the
    binary on many queries, trec_eval9.* (float32) on none; the same float64 order
    written as float-exact ranks: the trec_eval 10.0 presets agree on every query."""
    case = collapsed_in_float32(DATASETS[name]())
    assert f32_only_queries(case)
    exact = as_float_exact_ranks(case)
    n_bad = 0
    for m, native, cuts in MEASURES:
        for k in cuts:
            n_bad += len(_differing(case, case, m, native, k))
            assert not _differing(case, case, m, native, k, "trec_eval9"), (m, k)
            assert not _differing(case, exact, m, native, k), (m, k)
    assert n_bad > 0, "no difference: the cross-check would not see the float32 ties"


def test_generated_float32_tie_query_differs():
    """The generated data's float32-only tie changes the value of its query (beyond
    4 decimals) between trec_eval 10.0 and the 9.0.4 binary: the differences the first
    test allows do occur on real float32 ties, not only on the collapsed runs."""
    case = DATASETS["generated"]()
    bad = _differing(case, case, "ndcg", "ndcg", None)
    assert bad and bad <= f32_only_queries(case)


@pytest.mark.parametrize("preset", ("pyserini.ndcg_cut", "pyserini.ndcg_cut_remove_unjudged"))
@pytest.mark.parametrize("name", ("generated", "cast2021/bm25", "robust03/InexpC2"))
def test_pyserini_with_c_is_the_preset_with_missing_zero(preset, name):
    """Pyserini's usual command line has ``-c`` (its own example: ``trec_eval -c -m
    ndcg_cut.10 ... -remove-unjudged``): trec_eval then averages over every qrels query,
    a query absent from the run (or left without rows by -remove-unjudged) counting 0;
    it prints per-query lines only for the queries it evaluated. The preset with
    ``missing=zero`` must give those per-query values and that mean."""
    from cf_refs import on_judged_rows

    from evalkit.presets import preset_flavour

    case = DATASETS[name]()
    ref_fn = TE.trec_eval("ndcg_cut_{k}", ("-c",))
    if preset.endswith("remove_unjudged"):
        ref_fn = on_judged_rows(ref_fn)
    for k in (5, 10, 1000):
        flavour = preset_flavour(preset, k).replace(missing="zero")
        res = evalkit.evaluate(case.qrels, case.run, [flavour])
        got, mean = res.per_query(0, 0), res.mean(0, 0)
        ref = ref_fn(case, k)
        assert set(ref.per_query) <= set(got)
        extra = set(got) - set(ref.per_query)
        assert all(got[q] == 0.0 for q in extra), (name, k)
        assert extra <= {q for q, _, _ in case.qrels_rows}, (name, k)
        assert max(abs(got[q] - ref.per_query[q]) for q in ref.per_query) <= TE_BIN_TOL, (name, k)
        assert abs(mean - ref.mean) <= TE_BIN_TOL, (name, k, mean, ref.mean)
    if name == "generated":
        assert extra, "the generated data has a qrels query missing from the run: -c must count it"


def test_binary_fails_clearly_without_its_release_source(monkeypatch, tmp_path):
    """A missing release archive is a failure naming the file, never a skip."""
    import reference_programs

    monkeypatch.setattr(reference_programs, "REFERENCES", tmp_path)
    monkeypatch.setenv("EVALKIT_REFERENCE_CACHE", str(tmp_path / "cache"))
    with pytest.raises(reference_programs.ReferenceUnavailable, match="release source not found"):
        TE.binary(TE.NINE)


def test_parse_reads_per_query_lines_and_the_mean():
    text = "ndcg_cut_10           \t301\t0.5000\nndcg_cut_10           \tall\t0.2500\nP_10\t301\t0.1000\n"
    assert TE.parse(text, "ndcg_cut_10") == ({"301": 0.5}, 0.25)


PRINTED_VERSION = {TE.NINE: "9.0.7", TE.TEN: "10.0-rc3"}


@pytest.mark.parametrize("version", [TE.NINE, TE.TEN])
def test_binary_prints_its_version_and_four_decimals(version):
    """What the tolerance rests on: the built trec_eval names its release and prints 4 decimals."""
    import subprocess

    out = subprocess.run([str(TE.binary(version)), "-v"], capture_output=True, text=True)
    # the releases' Makefiles set VERSIONID 9.0.7 (tag v9.0.8) and 10.0-rc3 (tag v10.0)
    assert f"trec_eval version {PRINTED_VERSION[version]}\n" == out.stdout + out.stderr
    case = DATASETS["trec_eval_test/results.test"]()
    code, text, _ = TE.run(case, "ndcg", version=version)
    values = [line.split()[2] for line in text.splitlines() if line.startswith("ndcg ")]
    assert code == 0 and values and all(len(v.split(".")[1]) == 4 for v in values)


def test_trec_eval10_refuses_a_qrels_topic_missing_from_the_run_without_c():
    """trec_eval 10.0 stops (exit 4) on a judged topic the run lacks, 9.0.8 skips it: the
    generated data has one, so 10.0 is the reference refusing it there (``Ref.raised``)."""
    case = DATASETS["generated"]()
    ten = TE.trec_eval("ndcg", version=TE.TEN)(case)
    assert ten.raised and "not found in qrels" in ten.raised and not ten.per_query
    nine = TE.trec_eval("ndcg", version=TE.NINE)(case)
    assert nine.raised is None and nine.per_query
