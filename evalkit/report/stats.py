"""Significance tests against a baseline, and for the system pairs that flip between flavours.

Everything here works on the per-query values of a :class:`~evalkit.results.Results`
(``float64`` ``(s, f, q)``, ``NaN`` = query left out by a convention) and uses
:mod:`scipy.stats` for the tests themselves:

* **paired t-test** -- :func:`scipy.stats.ttest_rel` (two-sided);
* **Fisher randomization (permutation) test** -- :func:`scipy.stats.permutation_test`
  with ``permutation_type="samples"`` on the two paired samples, statistic = mean of the
  paired differences: the null distribution swaps the two values of each query, which
  is flipping the sign of each difference (Fisher 1935; Smucker, Allan & Carterette,
  CIKM 2007). With ``2**n <= n_resamples`` scipy enumerates every sign pattern (exact test);
* **Wilcoxon signed-rank test** -- :func:`scipy.stats.wilcoxon` of the paired
  differences, two-sided, as R's ``wilcox.test(x, y, paired = TRUE)`` computes it:
  zero differences dropped; the exact null distribution with fewer than 50 non-zero
  differences and no zero or tied one, else the normal approximation with the tie
  correction of the variance and a continuity correction (:func:`wilcoxon_p`);
* **bootstrap** -- :func:`scipy.stats.bootstrap` of the mean paired difference
  (Efron & Tibshirani 1993). Its confidence interval (``ci_method``, level ``1 - alpha``)
  is reported for every comparison whatever the test. When the bootstrap is the test,
  the two-sided p-value is the one of the percentile interval,
  ``p = min(1, 2 * min(P*(mean* <= 0), P*(mean* >= 0)))`` over the bootstrap
  distribution: the smallest ``alpha`` at which the equal-tailed percentile interval
  excludes 0 (Efron & Tibshirani 1993, ch. 15-16).

**Queries compared.** A comparison of systems *a* and *b* under one flavour uses the
queries included (not ``NaN``) for *both*: the intersection. Means over that
intersection can therefore differ from the report's means when conventions skip
different queries for the two systems (``n`` says how many queries were paired).

**Multiple comparisons.** p-values are adjusted with Holm's step-down method (Holm
1979; the default), Bonferroni, or not at all (:func:`adjust_pvalues`), over a
*family*: by default the ``s - 1`` comparisons with the baseline under one flavour
(``family: flavour``), or every comparison of the report (``family: all``). A comparison
is significant when its adjusted p-value is ``<= alpha``. A ``NaN`` p-value (fewer than
two paired queries) is left out of the family and is never significant.

**Win / tie / loss** counts compare the per-query values rounded to
:data:`~evalkit.report.model.ORDER_DECIMALS` decimals (so floating-point noise is a tie).

**Effect size**: Cohen's *d* for paired samples, ``d_z = mean(d) / sd(d)`` with the
sample standard deviation (``ddof=1``) of the paired differences ``d`` (Cohen 1988,
eq. 2.3.5; Lakens 2013, eq. 6). ``NaN`` when ``sd(d) == 0`` or fewer than two queries.

**Several baselines.** ``baselines`` lists every baseline; each one is compared
with every other system, and each baseline's comparisons form their own families (the
first baseline's are :attr:`Significance.comparisons`, every baseline's are in
:attr:`Significance.by_baseline`).

**All pairs** (``all_pairs: true``). Every system against every other under every
flavour: ``s (s - 1) / 2`` tests per flavour, corrected together per flavour (``family:
flavour``) or over every flavour (``family: all``), returned as one
:class:`PairMatrix` per flavour (a systems × systems matrix; row minus column).

**Flipped pairs.** For each pair of flavours (F, G) and each system pair whose order
flips (:func:`~evalkit.report.model.flavour_agreement`), the two systems are tested
against each other under F and under G with the configured test. The family of a
flavour F is the set of distinct system pairs tested under F (the pairs that flip
between F and some other flavour); with ``family: all`` every such test of the report.

**Reproducibility.** Each resampling test draws from its own generator
``numpy.random.default_rng([seed, crc32(kind), crc32("comparison"), crc32(system), crc32(other), crc32(label)])``
(``system`` and ``other`` in name order), so a comparison's result depends on the seed,
``n_resamples`` and its own data only (not on which other systems or flavours are in
the report, nor their order), a rerun with the same settings and library versions gives
identical numbers, and a comparison that appears in several tables (against the
baseline, a flipped pair, all pairs) has one p-value in every output.
"""

from __future__ import annotations

import inspect
import math
import warnings
import zlib
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..errors import ReportError

TESTS = ("t", "wilcoxon", "permutation", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", "none")
FAMILIES = ("flavour", "all")
CI_METHODS = ("percentile", "basic", "BCa")

#: Per-query values are rounded to this many decimals before win/tie/loss counting
#: (the same rounding :mod:`evalkit.report.model` applies before ordering systems).
TIE_DECIMALS = 12

TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "permutation": "Fisher randomization (permutation) test",
    "bootstrap": "bootstrap test (percentile interval)",
}
CORRECTION_NAMES = {"holm": "Holm–Bonferroni", "bonferroni": "Bonferroni", "none": "no"}

ProgressFn = Callable[[str, int, int], None]


#: Largest ``n_resamples`` (the config schema says the same): scipy's permutation
#: test and bootstrap hold arrays of this many resamples.
MAX_RESAMPLES = 1_000_000


@dataclass(frozen=True)
class StatSettings:
    """How the significance tests are run (the ``statistics:`` section of a config).

    :param test: ``"t"`` (paired t-test), ``"wilcoxon"`` (Wilcoxon signed-rank),
        ``"permutation"`` (Fisher randomization) or ``"bootstrap"``: the test whose
        p-values decide significance.
    :param alpha: significance level, ``0 < alpha < 1``; the bootstrap confidence
        intervals have level ``1 - alpha``.
    :param correction: ``"holm"`` (default), ``"bonferroni"`` or ``"none"``.
    :param family: ``"flavour"`` (correct over the comparisons under one flavour) or
        ``"all"`` (over every comparison of the report).
    :param seed: non-negative integer seed of the resampling tests.
    :param n_resamples: resamples of the permutation test and the bootstrap (>= 1).
    :param ci_method: :func:`scipy.stats.bootstrap` interval method
        (``"percentile"``, ``"basic"``, ``"BCa"``).
    :param all_pairs: also test every system against every other (:class:`PairMatrix`).
    :raises ReportError: a value outside the ranges above.
    """

    test: str = "t"
    alpha: float = 0.05
    correction: str = "holm"
    family: str = "flavour"
    seed: int = 42
    n_resamples: int = 10000
    ci_method: str = "percentile"
    all_pairs: bool = False

    def __post_init__(self) -> None:
        for name, allowed in (("test", TESTS), ("correction", CORRECTIONS), ("family", FAMILIES),
                              ("ci_method", CI_METHODS)):
            if getattr(self, name) not in allowed:
                raise ReportError(f"statistics.{name} must be one of {', '.join(allowed)}; got {getattr(self, name)!r}")
        if not (isinstance(self.alpha, (int, float)) and 0 < self.alpha < 1):
            raise ReportError(f"statistics.alpha must be between 0 and 1 (exclusive); got {self.alpha!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ReportError(f"statistics.seed must be a non-negative integer; got {self.seed!r}")
        if isinstance(self.n_resamples, bool) or not isinstance(self.n_resamples, int) or self.n_resamples < 1:
            raise ReportError(f"statistics.n_resamples must be a positive integer; got {self.n_resamples!r}")
        if self.n_resamples > MAX_RESAMPLES:  # memory grows with it (scipy holds the resamples)
            raise ReportError(f"statistics.n_resamples must be <= {MAX_RESAMPLES}; got {self.n_resamples!r}")
        if not isinstance(self.all_pairs, bool):
            raise ReportError(f"statistics.all_pairs must be true or false; got {self.all_pairs!r}")
        object.__setattr__(self, "alpha", float(self.alpha))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any] | None) -> "StatSettings":
        """Settings from a config's ``statistics:`` mapping (missing keys take the defaults).

        :raises ReportError: an unknown key or a value out of range."""
        data = dict(data or {})
        known = [f for f in cls.__dataclass_fields__]
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ReportError(f"unknown statistics key '{unknown[0]}' (known: {', '.join(known)})")
        return cls(**data)

    @property
    def confidence(self) -> float:
        """Level of the bootstrap confidence intervals, ``1 - alpha``."""
        return 1.0 - self.alpha

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "confidence": self.confidence}

    def describe(self, family_size: int | None = None) -> str:
        """``"paired t-test, Holm–Bonferroni correction over 16 comparisons per flavour, α = 0.05"``."""
        if self.correction == "none":
            corr = "no correction for multiple comparisons"
        else:
            per = " per flavour" if self.family == "flavour" else " in all"
            n = f" over {family_size} comparison{'s' if family_size != 1 else ''}{per}" if family_size else ""
            corr = f"{CORRECTION_NAMES[self.correction]} correction{n}"
        extra = ""
        if self.test in ("permutation", "bootstrap"):
            extra = f", {self.n_resamples} resamples, seed {self.seed}"
        return f"{TEST_NAMES[self.test]}, {corr}, α = {self.alpha:g}{extra}"


# ----------------------------------------------------------------------------- corrections


def adjust_pvalues(p: Sequence[float] | np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjust a family of p-values for multiple comparisons.

    :param p: ``float`` ``(m,)`` p-values; ``NaN`` entries are not part of the family
        and stay ``NaN``.
    :param method: ``"holm"``: Holm's (1979) step-down, with the ``m`` p-values sorted
        ascending ``p_(1) <= ... <= p_(m)``, ``p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``;
        ``"bonferroni"``: ``min(1, m p)``; ``"none"``: unchanged. (These are the
        adjusted p-values of ``statsmodels.stats.multitest.multipletests``.)
    :returns: ``float64`` ``(m,)`` adjusted p-values; reject where ``<= alpha``.
    :raises ReportError: unknown ``method``.
    """
    if method not in CORRECTIONS:
        raise ReportError(f"unknown correction {method!r} (known: {', '.join(CORRECTIONS)})")
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.size
    if method == "none" or m == 0:
        out[ok] = q
    elif method == "bonferroni":
        out[ok] = np.minimum(1.0, q * m)
    else:
        order = np.argsort(q, kind="stable")
        stepped = np.maximum.accumulate(q[order] * (m - np.arange(m)))
        adj = np.empty(m)
        adj[order] = np.minimum(1.0, stepped)
        out[ok] = adj
    return out


# ----------------------------------------------------------------------------- one test


def _rng_kwargs(fn: Any, generator: np.random.Generator) -> dict:
    """scipy >= 1.15 takes ``rng=``; older versions ``random_state=`` (same Generator)."""
    params = inspect.signature(fn).parameters
    return {"rng": generator} if "rng" in params else {"random_state": generator}


def _generator(seed: int, *names: str) -> np.random.Generator:
    return np.random.default_rng([seed, *(zlib.crc32(n.encode("utf-8")) for n in names)])


def _mean_diff(x: Any, y: Any, axis: Any = -1) -> Any:
    return np.mean(x - y, axis=axis)


@dataclass(frozen=True)
class PairedResult:
    """One paired comparison of system ``a`` with system ``b`` under one flavour.

    :param n: queries included for both (the intersection).
    :param mean_a, mean_b: means over those queries; ``mean_difference = mean_a - mean_b``.
    :param p_value: two-sided p-value of the test (``NaN`` if ``n < 2``).
    :param ci_low, ci_high: bootstrap interval of the mean difference (``NaN`` if not computed).
    :param wins, ties, losses: queries where ``a`` is above, equal to, below ``b``.
    :param effect_size: Cohen's ``d_z`` of the differences (``NaN`` if undefined).
    """

    n: int
    mean_a: float
    mean_b: float
    mean_difference: float
    p_value: float
    ci_low: float
    ci_high: float
    wins: int
    ties: int
    losses: int
    effect_size: float


#: bytes one resampling test may hold at once (its resamples: ``batch x n`` values)
RESAMPLE_BUDGET = 256 * 2 ** 20
#: bytes per resampled value: the float64 value, its int64 index, a float64 temporary
_BYTES_PER_RESAMPLED_VALUE = 24


def resample_batch(n_resamples: int, n: int) -> int | None:
    """The ``batch`` for :func:`scipy.stats.bootstrap` / :func:`scipy.stats.permutation_test`
    over ``n`` paired queries: ``None`` (all resamples at once, as before) when
    ``n_resamples x n`` values fit :data:`RESAMPLE_BUDGET`, else as many resamples as fit
    (at least 1). ``n_resamples: 1000000`` on 1,000 queries needed 7.45 GiB at once
    (a MemoryError); in batches it needs at most the budget.

    >>> resample_batch(10000, 1000) is None, resample_batch(1000000, 1000)
    (True, 11184)
    """
    per = max(1, n) * _BYTES_PER_RESAMPLED_VALUE
    if n_resamples * per <= RESAMPLE_BUDGET:
        return None
    return max(1, RESAMPLE_BUDGET // per)


def paired_comparison(
    a: np.ndarray,
    b: np.ndarray,
    settings: StatSettings,
    key: Sequence[str] = (),
    *,
    ci: bool = True,
) -> PairedResult:
    """Compare two systems' per-query values under one flavour.

    :param a, b: ``float64`` ``(q,)`` per-query values (``NaN`` = left out); only the
        queries included in both are compared.
    :param settings: the test, ``alpha``, ``seed``, ``n_resamples``, ``ci_method``.
    :param key: names that pick this comparison's random generator (with ``settings.seed``).
    :param ci: compute the bootstrap confidence interval of the mean difference.
    :returns: :class:`PairedResult`. p-values: :func:`scipy.stats.ttest_rel`,
        :func:`scipy.stats.permutation_test` or :func:`scipy.stats.bootstrap` (see the
        module docstring); all differences zero gives ``p = 1`` (no evidence of a difference).
    :raises ReportError: ``a`` and ``b`` differ in shape.
    """
    from scipy import stats

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ReportError(f"paired values have shapes {a.shape} and {b.shape}")
    ok = ~np.isnan(a) & ~np.isnan(b)
    x, y = a[ok], b[ok]
    n = int(x.size)
    d = x - y
    rounded = np.round(x, TIE_DECIMALS) - np.round(y, TIE_DECIMALS)
    wins, losses = int(np.sum(rounded > 0)), int(np.sum(rounded < 0))
    nan = float("nan")
    if n == 0:
        return PairedResult(0, nan, nan, nan, nan, nan, nan, 0, 0, 0, nan)
    mean_d = float(np.mean(d))
    sd = float(np.std(d, ddof=1)) if n >= 2 else nan
    # degenerate cases are judged on the rounded differences (floating-point noise of
    # ~1e-16 between equal values must not turn "no difference" into a test result)
    constant = bool(np.ptp(np.round(rounded, TIE_DECIMALS)) == 0)
    all_tied = wins == 0 and losses == 0
    effect = mean_d / sd if n >= 2 and not constant and sd > 0 else nan
    p = nan
    ci_low = ci_high = nan
    boot_dist = None
    if n >= 2 and (ci or settings.test == "bootstrap"):
        if constant:
            ci_low = ci_high = mean_d
            boot_dist = np.full(1, 0.0 if all_tied else mean_d)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = stats.bootstrap((d,), np.mean, n_resamples=settings.n_resamples,
                                      confidence_level=settings.confidence, method=settings.ci_method,
                                      vectorized=True, batch=resample_batch(settings.n_resamples, n),
                                      **_rng_kwargs(stats.bootstrap, _generator(settings.seed, "bootstrap", *key)))
            ci_low, ci_high = float(res.confidence_interval.low), float(res.confidence_interval.high)
            boot_dist = res.bootstrap_distribution
    if n >= 2:
        if all_tied:
            p = 1.0
        elif settings.test == "t":
            if constant:  # zero variance, non-zero mean: t is infinite
                p = 0.0
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # scipy's precision-loss warning on near-constant data
                    p = float(stats.ttest_rel(x, y).pvalue)
        elif settings.test == "wilcoxon":
            p = wilcoxon_p(rounded)
        elif settings.test == "permutation":
            res = stats.permutation_test((x, y), _mean_diff, permutation_type="samples", vectorized=True,
                                         n_resamples=settings.n_resamples, alternative="two-sided",
                                         batch=resample_batch(settings.n_resamples, n),
                                         **_rng_kwargs(stats.permutation_test,
                                                       _generator(settings.seed, "permutation", *key)))
            p = float(res.pvalue)
        else:
            assert boot_dist is not None  # computed above for the bootstrap test
            p = min(1.0, 2.0 * min(float(np.mean(boot_dist <= 0)), float(np.mean(boot_dist >= 0))))
    if not ci:
        ci_low = ci_high = nan
    return PairedResult(n, float(np.mean(x)), float(np.mean(y)), mean_d, p, ci_low, ci_high,
                        wins, n - wins - losses, losses, effect)


def wilcoxon_p(d: np.ndarray) -> float:
    """Two-sided p-value of the Wilcoxon signed-rank test of the paired differences
    ``d`` (``float64`` ``(n,)``), as R's ``wilcox.test(x, y, paired = TRUE)`` computes it.

    Differences are rounded to :data:`TIE_DECIMALS` decimals (floating-point noise
    neither makes a zero nor breaks a tie); zeros are dropped. With fewer than 50
    non-zero differences, no zero and no tied ``|d|``: the exact null distribution;
    otherwise the normal approximation with the tie-corrected variance
    ``n(n+1)(2n+1)/24 - sum(t^3 - t)/48`` and a continuity correction of 1/2
    (Wilcoxon 1945; R ``stats/R/wilcox.test.R``; computed by
    :func:`scipy.stats.wilcoxon` with ``method`` chosen as R chooses it).
    ``NaN`` when no difference is non-zero.
    """
    from scipy import stats

    d = np.round(np.asarray(d, dtype=np.float64), TIE_DECIMALS)
    nz = d[d != 0]
    if nz.size == 0:
        return float("nan")
    exact = nz.size < 50 and nz.size == d.size and np.unique(np.abs(nz)).size == nz.size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = stats.wilcoxon(nz, zero_method="wilcox", correction=True, alternative="two-sided",
                             method="exact" if exact else "approx")
    return float(res.pvalue)


# ----------------------------------------------------------------------------- report level


@dataclass(frozen=True)
class Comparison:
    """A system against the baseline under one flavour (see :class:`PairedResult`).

    ``mean_difference = mean_system - mean_baseline`` over the ``n`` paired queries;
    ``p_adjusted`` is corrected over the comparison's family; ``significant`` is
    ``p_adjusted <= alpha``; ``direction`` is ``+1`` (significantly better), ``-1``
    (significantly worse) or ``0``.
    """

    system: str
    baseline: str
    label: str
    n: int
    mean_system: float
    mean_baseline: float
    mean_difference: float
    ci_low: float
    ci_high: float
    p_value: float
    p_adjusted: float
    significant: bool
    wins: int
    ties: int
    losses: int
    effect_size: float

    @property
    def direction(self) -> int:
        if not self.significant:
            return 0
        return 1 if self.mean_difference > 0 else (-1 if self.mean_difference < 0 else 0)


@dataclass(frozen=True)
class PairTest:
    """Systems ``a`` and ``b`` tested against each other under flavour ``label``
    (``mean_difference = mean_a - mean_b`` over the ``n`` paired queries)."""

    label: str
    a: str
    b: str
    n: int
    mean_difference: float
    p_value: float
    p_adjusted: float
    significant: bool

    def oriented(self, first: str) -> "PairTest":
        """The same test with ``first`` as ``a`` (the difference changes sign)."""
        if first == self.a:
            return self
        return PairTest(self.label, self.b, self.a, self.n, -self.mean_difference, self.p_value,
                        self.p_adjusted, self.significant)


@dataclass(frozen=True)
class FlipSignificance:
    """A system pair whose order flips between flavours ``first`` and ``second``:
    ``ahead_first`` leads under ``first``, ``ahead_second`` under ``second``; the pair's
    tests under each flavour (oriented as ``ahead_first`` minus ``ahead_second``)."""

    first: str
    second: str
    ahead_first: str
    ahead_second: str
    under_first: PairTest
    under_second: PairTest

    @property
    def significant_under_either(self) -> bool:
        return self.under_first.significant or self.under_second.significant


@dataclass(frozen=True, eq=False)
class PairMatrix:
    """Every system against every other under one flavour (``all_pairs``).

    Arrays are ``(s, s)``, indexed ``[row system, column system]`` in
    :attr:`systems` order, and read "row minus column"; the diagonal is ``NaN``
    (``n`` 0, ``significant`` ``False``).

    :param label: the flavour label.
    :param systems: the systems, in the report's order.
    :param n: ``int64``: queries paired (included for both).
    :param mean_difference: ``float64``: mean of ``row - column`` over the paired queries
        (antisymmetric).
    :param p_value: ``float64``: two-sided p-value of the configured test (symmetric;
        ``NaN`` with fewer than two paired queries).
    :param p_adjusted: ``float64``: corrected over the family (the ``s (s - 1) / 2``
        pairs of this flavour, or of every flavour with ``family: all``).
    :param significant: ``bool``: ``p_adjusted <= alpha``.
    """

    label: str
    systems: tuple[str, ...]
    n: np.ndarray
    mean_difference: np.ndarray
    p_value: np.ndarray
    p_adjusted: np.ndarray
    significant: np.ndarray

    def get(self, a: str, b: str) -> PairTest:
        """The test of ``a`` against ``b`` as a :class:`PairTest` (``a`` minus ``b``)."""
        i, j = self.systems.index(a), self.systems.index(b)
        return PairTest(self.label, a, b, int(self.n[i, j]), float(self.mean_difference[i, j]),
                        float(self.p_value[i, j]), float(self.p_adjusted[i, j]), bool(self.significant[i, j]))

    def records(self) -> list[dict[str, Any]]:
        """One dict per unordered pair (``a`` before ``b`` in :attr:`systems`)."""
        out = []
        for i, a in enumerate(self.systems):
            for j in range(i + 1, len(self.systems)):
                t = self.get(a, self.systems[j])
                out.append({"label": t.label, "a": t.a, "b": t.b, "n": t.n, "mean_difference": t.mean_difference,
                            "p_value": t.p_value, "p_adjusted": t.p_adjusted, "significant": t.significant})
        return out


@dataclass(frozen=True)
class Significance:
    """All significance results of a report.

    :param settings: the :class:`StatSettings` used.
    :param baseline: the baseline system or ``None`` (then ``comparisons`` is empty).
    :param comparisons: one :class:`Comparison` per non-baseline system and flavour,
        system-major in the report's order.
    :param flips: one :class:`FlipSignificance` per flipped system pair of each flavour pair.
    :param pair_tests: the distinct :class:`PairTest` behind ``flips``.
    :param family_size: number of p-values in the family the baseline comparisons were
        corrected over (with ``family: flavour``, the largest per-flavour family).
    :param versions: versions of the libraries that computed the numbers.
    :param by_baseline: ``{baseline: comparisons}`` for every baseline, the first
        (``baseline``) included: each baseline against every other system, each
        baseline's comparisons corrected as their own families.
    :param all_pairs: ``{label: PairMatrix}`` when ``settings.all_pairs``, else empty.
    """

    settings: StatSettings
    baseline: str | None
    comparisons: tuple[Comparison, ...]
    flips: tuple[FlipSignificance, ...]
    pair_tests: tuple[PairTest, ...]
    family_size: int
    versions: Mapping[str, str]
    by_baseline: Mapping[str, tuple[Comparison, ...]] = field(default_factory=dict)
    all_pairs: Mapping[str, PairMatrix] = field(default_factory=dict)

    @property
    def baselines(self) -> tuple[str, ...]:
        """Every baseline, the first being :attr:`baseline`."""
        return tuple(self.by_baseline) or ((self.baseline,) if self.baseline is not None else ())

    def comparison(self, system: str, label: str, baseline: str | None = None) -> Comparison | None:
        """``system`` against ``baseline`` (default: the first baseline) under ``label``."""
        pool = self.comparisons if baseline is None else self.by_baseline.get(baseline, ())
        for c in pool:
            if c.system == system and c.label == label:
                return c
        return None

    def grid(self) -> dict[tuple[str, str], Comparison]:
        """``{(system, label): Comparison}``."""
        return {(c.system, c.label): c for c in self.comparisons}

    def flips_between(self, first: str, second: str) -> tuple[FlipSignificance, ...]:
        return tuple(f for f in self.flips if (f.first, f.second) == (first, second))

    def legend(self) -> str:
        """One sentence explaining the significance markers."""
        return (f"▲ / ▼: significantly better / worse than the baseline {self.baseline} "
                f"({self.settings.describe(self.family_size)}; {INTERSECTION_NOTE})")

    def describe(self) -> str:
        return self.settings.describe(self.family_size)


INTERSECTION_NOTE = "queries compared on the intersection of the queries both systems include"


def _family_groups(labels: Sequence[str], settings: StatSettings) -> list[list[int]]:
    if settings.family == "all":
        return [list(range(len(labels)))]
    return [[i] for i in range(len(labels))]


def compute_significance(
    results: Any,
    baseline: str | None,
    flips: Sequence[tuple[str, str, Sequence[tuple[str, str]]]] = (),
    settings: StatSettings | None = None,
    progress: ProgressFn | None = None,
    *,
    baselines: Sequence[str] | None = None,
) -> Significance:
    """Run every test of a report.

    :param results: :class:`~evalkit.results.Results` (values ``float64`` ``(s, f, q)``).
    :param baseline: system compared against every other (``None``: no comparisons).
    :param flips: ``(first label, second label, ((ahead under first, ahead under second), ...))``
        per flavour pair, as in :class:`~evalkit.report.model.PairAgreement`.
    :param settings: :class:`StatSettings` (default: the defaults).
    :param progress: called as ``progress("statistics", done, total)`` before the first
        and after every test.
    :param baselines: several baselines (the first is the primary one and must equal
        ``baseline`` when both are given); each is compared with every other system.
    :returns: :class:`Significance`.
    :raises ReportError: a baseline is not a system, is repeated, or ``baseline`` is not
        the first of ``baselines``.
    """
    import scipy

    settings = settings or StatSettings()
    systems, labels = tuple(results.systems), tuple(results.labels)
    values = results.values
    bases = list(baselines) if baselines else ([baseline] if baseline is not None else [])
    if baselines and baseline is not None and baseline != bases[0]:
        raise ReportError(f"baseline {baseline!r} must be the first of the baselines ({', '.join(bases)})")
    if len(set(bases)) != len(bases):
        raise ReportError(f"a baseline is listed twice: {', '.join(bases)}")
    for b in bases:
        if b not in systems:
            raise ReportError(f"baseline {b!r} is not one of the systems ({', '.join(systems)})")
    baseline = bases[0] if bases else None
    flips = [(fa, fb, tuple(pairs)) for fa, fb, pairs in flips]
    needed: dict[str, set[tuple[str, str]]] = {}
    for fa, fb, pairs in flips:
        for x, y in pairs:
            first, second = sorted((x, y), key=systems.index)
            key = (first, second)
            needed.setdefault(fa, set()).add(key)
            needed.setdefault(fb, set()).add(key)
    n_pairs = len(systems) * (len(systems) - 1) // 2
    total = (len(bases) * (len(systems) - 1) * len(labels) + sum(len(v) for v in needed.values())
             + (n_pairs * len(labels) if settings.all_pairs else 0))
    done = 0
    if progress is not None:
        progress("statistics", 0, total)

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress("statistics", done, total)

    # -- against each baseline
    by_baseline: dict[str, tuple[Comparison, ...]] = {}
    family_size = 0
    for base in bases:
        comps, size = _against_baseline(values, systems, labels, base, settings, tick)
        by_baseline[base] = comps
        if base == baseline:
            family_size = size
    comparisons = by_baseline.get(baseline, ()) if baseline is not None else ()

    # -- flipped pairs
    pair_raw: dict[tuple[str, str, str], PairedResult] = {}
    for label in labels:
        for x, y in sorted(needed.get(label, ()), key=lambda p: (systems.index(p[0]), systems.index(p[1]))):
            f = labels.index(label)
            pair_raw[(label, x, y)] = paired_comparison(values[systems.index(x), f], values[systems.index(y), f],
                                                        settings, _comparison_key(systems, x, y, label), ci=False)
            tick()
    pair_keys = list(pair_raw)
    pair_adj: dict[tuple[str, str, str], float] = {}
    groups = [pair_keys] if settings.family == "all" else [[k for k in pair_keys if k[0] == l] for l in labels]
    for keys in groups:
        pair_adj.update(zip(keys, adjust_pvalues([pair_raw[k].p_value for k in keys], settings.correction)))
    pair_tests = {
        k: PairTest(k[0], k[1], k[2], r.n, r.mean_difference, r.p_value, float(pair_adj[k]),
                    bool(not math.isnan(pair_adj[k]) and pair_adj[k] <= settings.alpha))
        for k, r in pair_raw.items()
    }
    flip_out = []
    for fa, fb, pairs in flips:
        for x, y in pairs:
            first, second = sorted((x, y), key=systems.index)
            flip_out.append(FlipSignificance(fa, fb, x, y, pair_tests[(fa, first, second)].oriented(x),
                                             pair_tests[(fb, first, second)].oriented(x)))
    all_pairs = _all_pairs(values, systems, labels, settings, tick) if settings.all_pairs else {}
    versions = {"numpy": np.__version__, "scipy": scipy.__version__}
    return Significance(settings, baseline, tuple(comparisons), tuple(flip_out), tuple(pair_tests.values()),
                        family_size, versions, by_baseline, all_pairs)


def _comparison_key(systems: Any, x: str, y: str, label: str) -> tuple[str, ...]:
    """The random generator's names for the comparison of ``x`` and ``y`` under
    ``label``: the same whichever table asks (against the baseline, a flipped pair, all
    pairs) and whichever way round, so every output shows one p-value per comparison
    (the permutation and bootstrap p-values are symmetric in the order: the same draws
    on ``y - x`` give the negated statistics)."""
    a, b = sorted((x, y))  # by name: not by the systems' order in the config
    return ("comparison", a, b, label)


def _against_baseline(values: Any, systems: Any, labels: Any, baseline: Any, settings: Any, tick: Any) -> tuple[tuple[Comparison, ...], int]:
    """Every other system against ``baseline`` under every flavour, corrected per
    family; returns the comparisons (system-major) and the largest family size."""
    others = [s for s in systems if s != baseline]
    bi = systems.index(baseline)
    raw: dict[tuple[str, str], PairedResult] = {}
    for s in others:
        si = systems.index(s)
        for f, label in enumerate(labels):
            raw[(s, label)] = paired_comparison(values[si, f], values[bi, f], settings,
                                                _comparison_key(systems, s, baseline, label))
            tick()
    adjusted: dict[tuple[str, str], float] = {}
    family_size = 0
    for group in _family_groups(labels, settings):
        keys = [(s, labels[f]) for f in group for s in others]
        adj = adjust_pvalues([raw[k].p_value for k in keys], settings.correction)
        family_size = max(family_size, int(np.sum(~np.isnan([raw[k].p_value for k in keys]))))
        adjusted.update(zip(keys, adj))
    comparisons = []
    for s in others:
        for label in labels:
            r = raw[(s, label)]
            pa = float(adjusted[(s, label)])
            comparisons.append(Comparison(
                s, baseline, label, r.n, r.mean_a, r.mean_b, r.mean_difference, r.ci_low, r.ci_high,
                r.p_value, pa, bool(not math.isnan(pa) and pa <= settings.alpha),
                r.wins, r.ties, r.losses, r.effect_size))
    return tuple(comparisons), family_size


def _all_pairs(values: Any, systems: Any, labels: Any, settings: Any, tick: Any) -> dict[str, PairMatrix]:
    """One :class:`PairMatrix` per flavour: each unordered pair tested once (with the
    generator key of a flipped-pair test, so both give the same p-value)."""
    s = len(systems)
    iu, ju = np.triu_indices(s, k=1)
    raw = {}
    for f, label in enumerate(labels):
        for i, j in zip(iu, ju):
            raw[(label, i, j)] = paired_comparison(values[i, f], values[j, f], settings,
                                                   _comparison_key(systems, systems[i], systems[j], label), ci=False)
            tick()
    keys = list(raw)
    groups = [keys] if settings.family == "all" else [[k for k in keys if k[0] == l] for l in labels]
    adjusted: dict[tuple, float] = {}  # (label, i, j): adjusted p-value
    for group in groups:
        adjusted.update(zip(group, adjust_pvalues([raw[k].p_value for k in group], settings.correction)))
    out = {}
    for label in labels:
        n = np.zeros((s, s), dtype=np.int64)
        diff, p, padj = (np.full((s, s), np.nan) for _ in range(3))
        for i, j in zip(iu, ju):
            r = raw[(label, i, j)]
            n[i, j] = n[j, i] = r.n
            diff[i, j], diff[j, i] = r.mean_difference, -r.mean_difference
            p[i, j] = p[j, i] = r.p_value
            padj[i, j] = padj[j, i] = adjusted[(label, i, j)]
        with np.errstate(invalid="ignore"):
            sig = ~np.isnan(padj) & (padj <= settings.alpha)
        out[label] = PairMatrix(label, tuple(systems), n, diff, p, padj, sig)
    return out
