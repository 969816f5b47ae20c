"""Significance tests of reports: corrections, the three tests, win/tie/loss, effect
size, flipped pairs, seeds, the statistics config section, progress callbacks."""

from __future__ import annotations

import importlib
import io
import itertools
import json
import textwrap

import numpy as np
import pytest

from evalkit import ConfigError, Results, parse_flavour
from evalkit.progress import TqdmProgress, terminal_progress
from evalkit.report import Report, StatSettings, adjust_pvalues
from evalkit.report.render import flips_csv, statistics_csv, to_json, to_markdown, to_text
from evalkit.report.stats import compute_significance, paired_comparison
from evalkit.runner import load_config, run_config

# Student's sleep data (Cushny & Peebles 1905; R's `sleep`): extra hours of sleep
# under drug 2 and drug 1 for the same 10 patients.
DRUG1 = np.array([0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0])
DRUG2 = np.array([1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4])


# ----------------------------------------------------------------------------- corrections


def test_holm_and_bonferroni_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    # Holm: sorted 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> running max 0.06
    np.testing.assert_allclose(adjust_pvalues(p, "holm"), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(adjust_pvalues(p, "bonferroni"), [0.04, 0.16, 0.12, 0.02])
    np.testing.assert_allclose(adjust_pvalues(p, "none"), p)
    # NaN is not part of the family: m = 2
    got = adjust_pvalues([0.01, np.nan, 0.04], "holm")
    assert np.isnan(got[1])
    np.testing.assert_allclose(got[[0, 2]], [0.02, 0.04])
    np.testing.assert_allclose(adjust_pvalues([0.5, 0.9], "bonferroni"), [1.0, 1.0])  # capped at 1
    with pytest.raises(ValueError, match="unknown correction 'sidak'"):
        adjust_pvalues(p, "sidak")


@pytest.mark.parametrize("method", ["holm", "bonferroni"])
def test_corrections_match_statsmodels(method):
    multitest = importlib.import_module("statsmodels.stats.multitest")
    rng = np.random.default_rng(7)
    for m in (1, 2, 3, 16, 40):
        p = rng.random(m) ** 3
        reject, adjusted, _, _ = multitest.multipletests(p, alpha=0.05, method=method)
        ours = adjust_pvalues(p, method)
        np.testing.assert_allclose(ours, adjusted, rtol=1e-12)
        np.testing.assert_array_equal(ours <= 0.05, reject)


# ----------------------------------------------------------------------------- one comparison


def test_paired_t_test_sleep_data():
    """R: t.test(extra ~ group, data = sleep, paired = TRUE) -> t = -4.0621, df = 9,
    p-value = 0.002833 (drug 1 minus drug 2); mean difference 1.58."""
    r = paired_comparison(DRUG2, DRUG1, StatSettings(test="t"))
    assert r.n == 10
    assert r.mean_difference == pytest.approx(1.58)
    assert r.p_value == pytest.approx(0.002833, abs=5e-7)
    # Cohen's d_z = mean / sd of the differences = 1.58 / 1.229995
    assert r.effect_size == pytest.approx(1.58 / 1.2299955, rel=1e-6)
    assert (r.wins, r.ties, r.losses) == (9, 1, 0)  # patient 5: -0.1 under both


def test_permutation_test_is_exact_and_matches_enumeration():
    """2**10 = 1024 sign patterns <= n_resamples: scipy enumerates them all. Our own
    enumeration of the sign flips gives the same two-sided p-value."""
    d = DRUG2 - DRUG1
    signs = np.array(list(itertools.product([1, -1], repeat=len(d))))
    null = (signs * d).mean(axis=1)
    obs = d.mean()
    p_greater = np.mean(null >= obs - 1e-12)
    p_less = np.mean(null <= obs + 1e-12)
    expected = min(1.0, 2 * min(p_greater, p_less))
    r = paired_comparison(DRUG2, DRUG1, StatSettings(test="permutation", n_resamples=5000))
    assert r.p_value == pytest.approx(expected, rel=1e-12)
    # by hand for 5 all-positive differences: only all + and all - reach |mean| -> 2/32
    r5 = paired_comparison(np.arange(1.0, 6.0), np.zeros(5), StatSettings(test="permutation"))
    assert r5.p_value == pytest.approx(2 / 32)


def test_bootstrap_interval_and_p_value():
    """The percentile interval of the mean difference agrees with our own numpy
    bootstrap (200,000 resamples of the 10 differences, 2.5% and 97.5% quantiles) up to
    Monte Carlo error; the bootstrap p-value agrees with the interval (0 outside the
    95% interval -> p < 0.05). Same seed, same numbers."""
    s = StatSettings(test="bootstrap", n_resamples=4000, seed=1)
    r = paired_comparison(DRUG2, DRUG1, s)
    d = DRUG2 - DRUG1
    rng = np.random.default_rng(12345)
    means = d[rng.integers(0, len(d), size=(200_000, len(d)))].mean(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    assert r.ci_low == pytest.approx(lo, abs=0.06) and r.ci_high == pytest.approx(hi, abs=0.06)
    assert r.ci_low < 1.58 < r.ci_high
    assert r.ci_low > 0 and r.p_value < 0.05
    # the p-value is twice the smaller tail of the bootstrap distribution at 0
    assert r.p_value == pytest.approx(2 * np.mean(means <= 0), abs=0.003)
    assert paired_comparison(DRUG2, DRUG1, s) == r
    other = paired_comparison(DRUG2, DRUG1, StatSettings(test="bootstrap", n_resamples=4000, seed=2))
    assert (other.ci_low, other.ci_high) != (r.ci_low, r.ci_high)
    # a difference that is 0 for half the queries and +-0.1 otherwise: no evidence
    a = np.array([0.5, 0.6, 0.5, 0.6, 0.5, 0.6])
    b = np.array([0.5, 0.5, 0.5, 0.7, 0.5, 0.6])
    weak = paired_comparison(a, b, s)
    assert weak.ci_low < 0 < weak.ci_high and weak.p_value > 0.5


def test_intersection_of_included_queries():
    a = np.array([np.nan, 0.5, 0.4, 0.9, 0.1])
    b = np.array([0.3, 0.2, 0.4, np.nan, 0.3])
    r = paired_comparison(a, b, StatSettings())
    assert r.n == 3  # q1, q2, q4
    assert r.mean_a == pytest.approx((0.5 + 0.4 + 0.1) / 3)
    assert r.mean_difference == pytest.approx((0.3 + 0.0 - 0.2) / 3)
    assert (r.wins, r.ties, r.losses) == (1, 1, 1)


def test_degenerate_differences():
    same = paired_comparison(np.array([0.1 + 0.2, 0.5, 0.7]), np.array([0.3, 0.5, 0.7]), StatSettings())
    assert same.p_value == 1.0 and (same.wins, same.ties, same.losses) == (0, 3, 0)
    assert np.isnan(same.effect_size)
    shifted = paired_comparison(np.array([0.4, 0.6, 0.8]), np.array([0.3, 0.5, 0.7]), StatSettings())
    assert shifted.p_value == 0.0 and shifted.ci_low == pytest.approx(0.1) and np.isnan(shifted.effect_size)
    one = paired_comparison(np.array([0.4]), np.array([0.3]), StatSettings())
    assert one.n == 1 and np.isnan(one.p_value)


def test_settings_validation():
    with pytest.raises(ValueError, match="statistics.test must be one of t, wilcoxon, permutation, bootstrap"):
        StatSettings(test="sign")
    with pytest.raises(ValueError, match="statistics.all_pairs must be true or false"):
        StatSettings(all_pairs="yes")
    with pytest.raises(ValueError, match="alpha"):
        StatSettings(alpha=1.5)
    with pytest.raises(ValueError, match="seed"):
        StatSettings(seed=-1)
    assert StatSettings(alpha=0.1).confidence == pytest.approx(0.9)
    with pytest.raises(ValueError, match="unknown statistics key 'tests'"):
        StatSettings.from_mapping({"tests": "t"})


# ----------------------------------------------------------------------------- report level


@pytest.fixture
def results(registry):
    """4 systems x 2 flavours x 30 queries: 'good' clearly above 'base', 'same' equal to
    it, 'close' a little above under F and a little below under G (a flip with 'same')."""
    rng = np.random.default_rng(0)
    q = 30
    base = rng.uniform(0.2, 0.6, size=(2, q))
    values = np.stack([
        base,
        base + 0.15 + rng.normal(0, 0.05, size=(2, q)),
        base.copy(),
        base + np.array([[0.01], [-0.01]]) + rng.normal(0, 0.05, size=(2, q)),
    ])
    flavours = (parse_flavour("ndcg@5", registry), parse_flavour("ndcg(gain=exp2)@5", registry))
    return Results(np.array([f"q{i}" for i in range(q)], dtype=object), ("base", "good", "same", "close"),
                   flavours, ("F", "G"), values)


def test_report_significance(results):
    rep = Report(results, baseline="base", statistics={"test": "t", "correction": "holm"})
    sig = rep.significance
    assert sig.family_size == 3
    assert len(sig.comparisons) == 3 * 2
    good = sig.comparison("good", "F")
    assert good.significant and good.direction == 1 and good.wins == 30
    same = sig.comparison("same", "G")
    assert same.p_value == 1.0 and not same.significant and same.ties == 30
    # Holm over the 3 comparisons under F, checked against the raw p-values
    raw = [sig.comparison(s, "F").p_value for s in ("good", "same", "close")]
    np.testing.assert_allclose([sig.comparison(s, "F").p_adjusted for s in ("good", "same", "close")],
                               adjust_pvalues(raw, "holm"))
    # family: all corrects over the 6 comparisons
    allfam = Report(results, baseline="base", statistics={"family": "all", "correction": "bonferroni"}).significance
    c = allfam.comparison("close", "G")
    assert c.p_adjusted == pytest.approx(min(1.0, 6 * c.p_value))
    # the flip: 'close' vs 'same' reverses between F and G; both sides were tested
    (flip,) = [f for f in sig.flips if {f.ahead_first, f.ahead_second} == {"close", "same"}]
    assert (flip.first, flip.second) == ("F", "G")
    assert flip.under_first.mean_difference > 0 > flip.under_second.mean_difference
    assert not flip.significant_under_either


def test_no_tests_without_baseline_or_settings(results):
    assert Report(results).significance is None
    sig = Report(results, statistics={}).significance  # a statistics section alone: flip tests only
    assert sig.comparisons == () and sig.flips


def test_seed_makes_reruns_identical_and_results_independent_of_other_systems(results):
    settings = {"test": "permutation", "n_resamples": 500, "seed": 3}
    a = Report(results, baseline="base", statistics=settings)
    b = Report(results, baseline="base", statistics=settings)
    assert to_json(a) == to_json(b)
    # dropping a system does not change another comparison's raw p-value
    keep = [0, 1, 3]
    sub = Results(results.qids, tuple(results.systems[i] for i in keep), results.flavours, results.labels,
                  results.values[keep])
    c = Report(sub, baseline="base", statistics=settings)
    assert c.significance.comparison("close", "G").p_value == a.significance.comparison("close", "G").p_value
    d = Report(results, baseline="base", statistics={**settings, "seed": 4})
    assert d.significance.comparison("close", "G").p_value != a.significance.comparison("close", "G").p_value


def test_renderers_carry_the_statistics(results):
    rep = Report(results, baseline="base", statistics={"test": "permutation", "n_resamples": 300, "seed": 9})
    data = json.loads(to_json(rep))
    st = data["statistics"]
    assert st["settings"] == {"test": "permutation", "alpha": 0.05, "correction": "holm", "family": "flavour",
                              "seed": 9, "n_resamples": 300, "ci_method": "percentile", "all_pairs": False,
                              "confidence": 0.95}
    assert set(st["versions"]) == {"numpy", "scipy"}
    rec = next(c for c in st["comparisons"] if (c["system"], c["flavour"]) == ("good", "F"))
    assert rec["canonical"] == "ndcg(gain=linear,discount=log2,idcg=judged,ties=trec_eval)@5"
    assert rec["significant"] is True and rec["wins"] == 30 and rec["direction"] == 1
    pair = data["agreement"]["pairs"][0]
    assert pair["flip_tests"] and pair["flip_tests"][0]["ahead_under_first"] == "close"
    # CSV
    rows = statistics_csv(rep).splitlines()
    assert rows[0].startswith("system,baseline,flavour,canonical,n,")
    assert len(rows) == 1 + 6
    assert "close,same" in flips_csv(rep) or "same,close" in flips_csv(rep)
    # terminal and markdown: markers and legend
    text = to_text(rep)
    assert "▲ / ▼: significantly better / worse than the baseline base" in text
    assert "Fisher randomization (permutation) test, Holm–Bonferroni correction over 3 comparisons per flavour" in text
    line = next(l for l in text.splitlines() if l.startswith("good "))
    assert line.count("▲") == 2
    assert "Queries won / tied / lost" in text and "30/0/0" in text
    md = to_markdown(rep)
    assert "## Significance tests against the baseline `base`" in md and "seed 9, n_resamples 300" in md


# ----------------------------------------------------------------------------- config and runner


QRELS = "".join(f"q{q} 0 d{d} {(d + q) % 3}\n" for q in range(1, 7) for d in range(1, 6))


def _run(name, perm):
    return "".join(f"q{q} Q0 d{d} {r + 1} {10 - r} {name}\n"
                   for q in range(1, 7) for r, d in enumerate(perm(q)))


@pytest.fixture
def cfg_dir(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "a.run").write_text(_run("a", lambda q: [1, 2, 3, 4, 5]))
    (tmp_path / "b.run").write_text(_run("b", lambda q: [5, 4, 3, 2, 1]))
    (tmp_path / "c.run").write_text(_run("c", lambda q: [3, 1, 2, 5, 4] if q % 2 else [1, 3, 2, 4, 5]))
    return tmp_path


def write(cfg_dir, extra: str):
    path = cfg_dir / "c.yaml"
    path.write_text(textwrap.dedent("""\
        qrels: qrels.txt
        runs:
          - {name: a, path: a.run}
          - {name: b, path: b.run}
          - {name: c, path: c.run}
        flavours:
          lin: "ndcg@3"
          exp: "ndcg(gain=exp2)@3"
        """) + textwrap.dedent(extra))
    return path


@pytest.mark.parametrize("extra, line, key, message", [
    ("statistics:\n  test: sign\n", 10, "statistics.test", "'sign' is not one of: t, wilcoxon, permutation, bootstrap"),
    ("statistics:\n  seed: 1\n  n_resamples: 10\n", 11, "statistics.n_resamples", "less than the minimum of 100"),
    ("statistics:\n  alpha: 1\n", 10, "statistics.alpha", "greater than or equal to the maximum of 1"),
    ("statistics:\n  tests: t\n", 10, "statistics.tests", "unknown key 'tests'"),
    ("statistics: {correction: holm-bonferroni}\n", 9, "statistics.correction", "not one of: holm, bonferroni, none"),
    ("output: {formats: [pdf]}\n", 9, "output.formats[0]", "'pdf' is not one of: markdown, csv, json, latex, html"),
])
def test_statistics_config_errors_name_file_line_key(cfg_dir, registry, extra, line, key, message):
    path = write(cfg_dir, extra)
    with pytest.raises(ConfigError) as info:
        load_config(path, registry=registry)
    text = str(info.value)
    assert text.startswith(f"{path}:{line}: {key}: "), text
    assert message in text


def test_runner_records_settings_and_reports_progress(cfg_dir, registry):
    path = write(cfg_dir, """\
        baseline: a
        statistics: {test: bootstrap, seed: 5, n_resamples: 200, alpha: 0.1, correction: bonferroni}
        """)
    calls = []
    rep = run_config(path, registry=registry, progress=lambda *a: calls.append(a))
    assert rep.metadata["statistics"]["seed"] == 5
    assert rep.significance.settings == StatSettings(test="bootstrap", seed=5, n_resamples=200, alpha=0.1,
                                                     correction="bonferroni")
    runs = [c for c in calls if c[0] == "runs"]
    assert runs == [("runs", i, 3) for i in range(4)]
    stats_calls = [c for c in calls if c[0] == "statistics"]
    n_tests = 2 * 2 + len(rep.significance.pair_tests)
    assert stats_calls == [("statistics", i, n_tests) for i in range(n_tests + 1)]
    # b reverses a's ranking, c mixes: a's per-query values are reproduced by evaluate
    assert rep.results.mean("a", "lin") == pytest.approx(rep.significance.comparison("b", "lin").mean_baseline)
    again = run_config(path, registry=registry)
    assert to_json(again) == to_json(rep)


def test_tqdm_progress_on_a_terminal_only():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert terminal_progress(io.StringIO()) is None
    assert isinstance(terminal_progress(Tty()), TqdmProgress)
    stream = Tty()
    bar = TqdmProgress(stream, mininterval=0, miniters=1)  # draw every update (tqdm throttles to 0.1 s)
    for i in range(4):
        bar("runs", i, 3)
    bar("statistics", 0, 2)
    bar("statistics", 2, 2)
    out = stream.getvalue()
    assert "evaluating runs" in out and "3/3" in out
    assert "significance tests" in out and "2/2" in out
    assert bar._bar is None  # finished stages close their bar


# ----------------------------------------------------------------------------- Wilcoxon, all pairs, several baselines


def test_wilcoxon_sleep_data_matches_r():
    """R: wilcox.test(extra ~ group, data = sleep, paired = TRUE) -> V = 0,
    p-value = 0.009091 (a zero and a tie: normal approximation with continuity correction)."""
    r = paired_comparison(DRUG2, DRUG1, StatSettings(test="wilcoxon"))
    assert r.p_value == pytest.approx(0.009091, abs=5e-7)
    assert r.mean_difference == pytest.approx(1.58)  # the same comparison record as the other tests


def _signed_rank_exact_p(d: np.ndarray) -> float:
    """Brute force: every sign pattern of the ranks 1..n (no ties, no zeros)."""
    n = len(d)
    ranks = np.argsort(np.argsort(np.abs(d))) + 1
    t_plus = ranks[d > 0].sum()
    signs = np.array(list(itertools.product([0, 1], repeat=n)))
    null = signs @ np.arange(1, n + 1)
    return min(1.0, 2 * min(np.mean(null <= t_plus), np.mean(null >= t_plus)))


def test_wilcoxon_exact_matches_enumeration():
    rng = np.random.default_rng(11)
    for n in (3, 7, 12):
        a, b = rng.uniform(0, 1, n), rng.uniform(0, 1, n) - 0.15
        r = paired_comparison(a, b, StatSettings(test="wilcoxon"))
        assert r.p_value == pytest.approx(_signed_rank_exact_p(a - b), rel=1e-12)
    # 5 all-positive differences: only all + and all - reach T -> 2/32
    assert paired_comparison(np.arange(1.0, 6.0), np.zeros(5), StatSettings(test="wilcoxon")).p_value \
        == pytest.approx(2 / 32)


def test_wilcoxon_normal_approximation_by_hand():
    """60 differences with tied magnitudes: R's normal approximation, written out:
    z = (V - n(n+1)/4 - sign * 1/2) / sqrt(n(n+1)(2n+1)/24 - sum(t^3 - t)/48)."""
    import math

    rng = np.random.default_rng(5)
    d = rng.integers(-3, 6, size=60) / 10.0
    a, b = 0.5 + d, np.full(60, 0.5)
    nz = np.round(d[d != 0], 12)
    n = len(nz)
    absd = np.abs(nz)
    ranks = np.array([np.mean(np.flatnonzero(np.sort(absd) == v) + 1) for v in absd])  # mid-ranks
    v = ranks[nz > 0].sum()
    _, t = np.unique(absd, return_counts=True)
    sigma = math.sqrt(n * (n + 1) * (2 * n + 1) / 24 - np.sum(t ** 3 - t) / 48)
    z = v - n * (n + 1) / 4
    z = (z - math.copysign(0.5, z)) / sigma
    expected = math.erfc(abs(z) / math.sqrt(2))  # 2 * (1 - Phi(|z|))
    r = paired_comparison(a, b, StatSettings(test="wilcoxon"))
    assert r.p_value == pytest.approx(expected, rel=1e-9)
    assert StatSettings(test="wilcoxon").describe(3).startswith("Wilcoxon signed-rank test, Holm")


@pytest.mark.parametrize("family", ["flavour", "all"])
def test_all_pairs_matrix_matches_scipy_and_statsmodels(results, family):
    from scipy import stats as sps

    multitest = importlib.import_module("statsmodels.stats.multitest")
    rep = Report(results, statistics={"all_pairs": True, "family": family})
    sig = rep.significance
    systems = results.systems
    assert set(sig.all_pairs) == {"F", "G"}
    raw, keys = [], []
    for f, label in enumerate(results.labels):
        m = sig.all_pairs[label]
        assert m.systems == systems and np.isnan(np.diag(m.p_value)).all()
        for i, j in itertools.combinations(range(len(systems)), 2):
            x, y = results.values[i, f], results.values[j, f]
            d = x - y
            p = 1.0 if np.all(np.round(x, 12) == np.round(y, 12)) else sps.ttest_rel(x, y).pvalue
            assert m.p_value[i, j] == m.p_value[j, i] == pytest.approx(p, rel=1e-12)
            assert m.mean_difference[i, j] == pytest.approx(d.mean()) and m.mean_difference[j, i] == -m.mean_difference[i, j]
            assert m.n[i, j] == 30
            raw.append(p)
            keys.append((label, i, j))
    groups = [list(range(len(raw)))] if family == "all" else [[k for k, key in enumerate(keys) if key[0] == l]
                                                                for l in results.labels]
    for g in groups:
        reject, adjusted, _, _ = multitest.multipletests([raw[k] for k in g], alpha=0.05, method="holm")
        for k, adj, rej in zip(g, adjusted, reject):
            label, i, j = keys[k]
            m = sig.all_pairs[label]
            assert m.p_adjusted[i, j] == pytest.approx(adj, rel=1e-12)
            assert m.significant[i, j] == m.significant[j, i] == rej
    # good beats every other system under both flavours
    good = systems.index("good")
    assert all(sig.all_pairs[l].significant[good, k] for l in ("F", "G") for k in range(4) if k != good)
    rec = sig.all_pairs["F"].records()
    assert len(rec) == 6 and {(r["a"], r["b"]) for r in rec} >= {("base", "good"), ("same", "close")}
    assert Report(results, baseline="base").significance.all_pairs == {}


def test_several_baselines(results):
    from scipy import stats as sps

    multitest = importlib.import_module("statsmodels.stats.multitest")
    rep = Report(results, baselines=("base", "close"), statistics={"test": "t"})
    assert rep.baseline == "base" and rep.baselines == ("base", "close")
    sig = rep.significance
    assert sig.baselines == ("base", "close")
    assert sig.by_baseline["base"] == sig.comparisons
    against = sig.by_baseline["close"]
    assert [c.system for c in against] == ["base", "base", "good", "good", "same", "same"]
    ci = results.systems.index("close")
    for f, label in enumerate(results.labels):
        comps = [c for c in against if c.label == label]
        raw = [sps.ttest_rel(results.values[results.systems.index(c.system), f], results.values[ci, f]).pvalue
               for c in comps]
        _, adjusted, _, _ = multitest.multipletests(raw, method="holm")
        for c, p, adj in zip(comps, raw, adjusted):
            assert c.baseline == "close" and c.p_value == pytest.approx(p, rel=1e-12)
            assert c.p_adjusted == pytest.approx(adj, rel=1e-12)
            assert sig.comparison(c.system, label, baseline="close") is c
    assert sig.comparison("good", "F", baseline="close").direction == 1
    with pytest.raises(ValueError, match="must be the first of the baselines"):
        Report(results, baseline="good", baselines=("base", "good"))
    with pytest.raises(ValueError, match="listed twice"):
        Report(results, baselines=("base", "base"))
    with pytest.raises(ValueError, match="'nope' is not one of the systems"):
        Report(results, baselines=("base", "nope"))


def test_config_with_several_baselines_and_all_pairs(cfg_dir, registry):
    path = write(cfg_dir, """\
        baseline: [a, c]
        statistics: {test: wilcoxon, all_pairs: true}
        """)
    cfg = load_config(path, registry=registry)
    assert cfg.baseline == "a" and cfg.baselines == ("a", "c")
    rep = run_config(path, registry=registry)
    sig = rep.significance
    assert sig.baselines == ("a", "c") and set(sig.all_pairs) == {"lin", "exp"}
    assert sig.settings.test == "wilcoxon" and sig.settings.all_pairs
    assert rep.metadata["baselines"] == ["a", "c"]
    assert [c.system for c in sig.by_baseline["c"] if c.label == "lin"] == ["a", "b"]
    bad = write(cfg_dir, "baseline: [a, zz]\n")
    with pytest.raises(ConfigError) as info:
        load_config(bad, registry=registry)
    assert str(info.value).startswith(f"{bad}:9: baseline[1]: baseline 'zz' is not one of the runs")
    bad = write(cfg_dir, "baseline: [a, a]\n")
    with pytest.raises(ConfigError, match="baseline"):
        load_config(bad, registry=registry)


@pytest.mark.parametrize("test", ["permutation", "bootstrap"])
def test_one_p_value_per_comparison_in_every_table(results, test):
    """Issue 25: a permutation test of run2 vs run1 showed 0.6403 in statistics.csv (against
    the baseline) and 0.6353 in flips.csv (the flipped pair): each table drew its own
    resamples. The random generator is now the comparison's, whichever table and order."""
    settings = {"test": test, "n_resamples": 500, "seed": 3}
    sig = Report(results, baseline="same", statistics=settings).significance
    (flip,) = [f for f in sig.flips if {f.ahead_first, f.ahead_second} == {"close", "same"}]
    for label, tested in ((flip.first, flip.under_first), (flip.second, flip.under_second)):
        assert tested.p_value == sig.comparison("close", label).p_value
    # the other way round (base "close"): the same p-values
    other = Report(results, baseline="close", statistics=settings).significance
    assert other.comparison("same", flip.first).p_value == sig.comparison("close", flip.first).p_value


@pytest.mark.parametrize("test", ["permutation", "bootstrap"])
def test_resampling_in_batches_gives_the_same_numbers(monkeypatch, test):
    """Issue 25: n_resamples 1000000 on 1,000 queries needed 7.45 GiB at once. Beyond
    RESAMPLE_BUDGET the resamples are drawn in batches (scipy's ``batch``), with the
    same p-value and interval as all at once (shown here with a tiny budget)."""
    from evalkit.report import stats as st

    rng = np.random.default_rng(5)
    a, b = rng.uniform(size=200), rng.uniform(size=200)
    settings = StatSettings(test=test, n_resamples=2000, seed=1)
    whole = paired_comparison(a, b, settings, ("k",))
    monkeypatch.setattr(st, "RESAMPLE_BUDGET", 200 * 24 * 7)  # 7 resamples a batch
    assert st.resample_batch(2000, 200) == 7
    batched = paired_comparison(a, b, settings, ("k",))
    assert batched.p_value == whole.p_value
    assert (batched.ci_low, batched.ci_high) == (whole.ci_low, whole.ci_high)


def test_all_pairs_over_40_runs_resamples_within_the_budget(monkeypatch):
    """Issue 25: a permutation test with ``all_pairs`` over 40 runs failed after 38 s.
    Each of the 780 pair tests draws its resamples in batches of at most
    RESAMPLE_BUDGET (checked on every call to scipy, here with a tiny budget), so
    memory does not grow with the number of runs or resamples; the p-values equal
    those drawn all at once."""
    from scipy import stats as scipy_stats

    from evalkit.report import stats as st

    rng = np.random.default_rng(3)
    s, q = 40, 12
    res = Results(np.array([f"q{i}" for i in range(q)], dtype=object), tuple(f"r{i:02d}" for i in range(s)),
                  (parse_flavour("ndcg@10"),), ("a",), rng.uniform(size=(s, 1, q)))
    settings = StatSettings(test="permutation", n_resamples=60, all_pairs=True)
    whole = compute_significance(res, None, settings=settings).all_pairs["a"]
    calls = []
    real = scipy_stats.permutation_test

    def spy(*args, **kwargs):
        calls.append(kwargs["batch"])
        return real(*args, **kwargs)

    monkeypatch.setattr(scipy_stats, "permutation_test", spy)
    monkeypatch.setattr(st, "RESAMPLE_BUDGET", q * 24 * 7)  # 7 resamples a batch
    batched = compute_significance(res, None, settings=settings).all_pairs["a"]
    assert len(calls) == s * (s - 1) // 2 and set(calls) == {7}
    np.testing.assert_array_equal(batched.p_value, whole.p_value)
