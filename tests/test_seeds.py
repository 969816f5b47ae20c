"""Every worked number of the seed documents (``../shared/seeds/``).

The seeds are ground truth. Where a seed prints a number, the test asserts it at the
seed's printed precision; where a seed gives code whose output is deterministic, the
expected value is recomputed here with plain NumPy following the seed's code (not with
evalkit), and evalkit's flavour that matches the seed's convention must agree.

Seed files: 000 (NDCG lecture: CG/DCG/NDCG, Approach 1/2, gain and discount impact),
001 (bluetooth headphones walk-through), 002 (``dcg([3,0,2]) = 4.0``), 003 (Järvelin vs
Burges flavours), 004 (scikit-learn ``ndcg_score`` notebook: A-H example, ties).
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

import evalkit
import evalkit.arrays as ea

sklearn_metrics = importlib.import_module("sklearn.metrics")


# --------------------------------------------------------------------------- helpers
def _qrels_run(grades, corpus=None, order=None):
    """One query. Without ``corpus``: the ranked list ``grades`` is both the run (in
    that order) and the judged set. With ``corpus`` (grades of items 0..n-1) and
    ``order`` (item indices ranked): the judged set is the whole corpus."""
    if corpus is None:
        corpus, order = list(grades), list(range(len(grades)))
    qrels = evalkit.Qrels.from_rows([("q", f"d{i}", g) for i, g in enumerate(corpus)])
    n = len(order)
    run = evalkit.Run.from_rows([("q", f"d{i}", float(n - r)) for r, i in enumerate(order)])
    return qrels, run


def value(spec, grades, corpus=None, order=None) -> float:
    qrels, run = _qrels_run(grades, corpus, order)
    res = evalkit.evaluate(qrels, run, [spec])
    return float(res.means()[0, 0])


def seed_dcg(rels, gain="exp2", discount=None):
    """Seed 000 ``dcg_at_k`` / seed 004 ``dcg_at_k_numpy``: input order."""
    rel = np.asarray(rels, dtype=float)
    pos = np.arange(1, len(rel) + 1)
    disc = 1.0 / np.log2(pos + 1) if discount is None else discount(pos)
    g = (2**rel) - 1 if gain == "exp2" else (rel if gain == "linear" else gain(rel))
    return float(np.sum(g * disc))


def seed_ndcg_at_k(rels, k=None, gain="exp2", discount=None):
    """Seed 000 ``ndcg_at_k``: truncate to k FIRST, then the ideal is the sorted
    gains of that truncated list (evalkit's ``idcg=returned_top_k``)."""
    rel = np.asarray(rels, dtype=float)
    if k is not None:
        rel = rel[:k]
    if len(rel) == 0:
        return 0.0
    dcg = seed_dcg(rel, gain, discount)
    g = (2**rel) - 1 if gain == "exp2" else (rel if gain == "linear" else gain(rel))
    pos = np.arange(1, len(rel) + 1)
    disc = 1.0 / np.log2(pos + 1) if discount is None else discount(pos)
    idcg = float(np.sum(np.sort(g)[::-1] * disc))
    return dcg / idcg if idcg > 0 else 0.0


# --------------------------------------------------------------------------- seed 002
def test_dcg_302_hand_check():
    """Seed 002: dcg([3, 0, 2]) = 3/log2(2) + 0/log2(3) + 2/log2(4) = 4.0 (linear gain)."""
    assert value("dcg(gain=linear,discount=log2,ties=input)", [3, 0, 2]) == pytest.approx(4.0, abs=1e-12)
    assert ea.score([[3, 0, 2]], [[3, 2, 1]], flavour="dcg(gain=linear,discount=log2)")[0] == \
        pytest.approx(4.0, abs=1e-12)
    # the exp2 gain gives a different number: 7 + 0 + 3/2
    assert value("dcg(gain=exp2,discount=log2)", [3, 0, 2]) == pytest.approx(8.5, abs=1e-12)


def test_seed002_perfect_and_reversed():
    """Seed 002: 1.0 for the best order, strictly below for a reversed one; an
    all-zero ranking is 0.0."""
    assert value("ndcg(idcg=returned)", [3, 2, 1, 0]) == pytest.approx(1.0)
    assert value("ndcg(idcg=returned)", [0, 1, 2, 3]) < 1.0
    assert value("ndcg(idcg=returned)", [0, 0, 0]) == 0.0


# --------------------------------------------------------------------------- seed 001
BLUETOOTH_JUDGED = {  # Table 1: product id -> relevance score
    1: 3, 2: 3, 3: 2, 4: 2, 5: 1, 6: 0, 7: 0,
}
BLUETOOTH_RETURNED = [6, 5, 3, 1, 4, 7, 2]  # Table 3, ranks 1..7


@pytest.fixture(scope="module")
def bluetooth():
    qrels = evalkit.Qrels.from_rows([("bluetooth headphones", str(p), g) for p, g in BLUETOOTH_JUDGED.items()])
    run = evalkit.Run.from_rows(
        [("bluetooth headphones", str(p), float(10 - r)) for r, p in enumerate(BLUETOOTH_RETURNED)]
    )
    return qrels, run


def test_bluetooth_headphones_ndcg5(bluetooth):
    """Seed 001: DCG@5 = 6.31, IDCG@5 = 14.6, NDCG@5 = 6.31 / 14.6 ~ 0.43 (exp2 gain)."""
    qrels, run = bluetooth
    res = evalkit.evaluate(qrels, run, ["dcg(gain=exp2)@5", "ndcg(gain=exp2)@5", "ndcg(gain=exp2,idcg=returned)@5"])
    dcg5, ndcg5, returned = res.means()[0]
    burges = evalkit.evaluate(qrels, run, "burges2005.ndcg@5").means()[0, 0]
    idcg5 = dcg5 / ndcg5
    assert round(dcg5, 2) == 6.31
    assert round(idcg5, 2) == 14.60  # seed: 7 + 4.42 + 1.50 + 1.29 + 0.39 = 14.6
    assert round(ndcg5, 2) == 0.43
    assert burges == ndcg5
    # every judged product was returned, so both IDCG strategies agree here
    assert returned == pytest.approx(ndcg5, abs=1e-15)


def test_bluetooth_table4_contributions(bluetooth):
    """Seed 001 Table 4: per-rank values 0, 0.63, 1.50, 3.02, 1.16, 0, 2.33.

    The seed's 3.02 is 7 / 2.32 (log2 5 rounded first); the exact 7 / log2(5) is 3.0147,
    so the per-rank values are compared to within 0.01 and their sum exactly."""
    qrels, run = bluetooth
    res = evalkit.evaluate(qrels, run, [f"dcg(gain=exp2)@{k}" for k in range(1, 8)])
    cum = res.means()[0]
    contrib = np.diff(np.concatenate([[0.0], cum]))
    np.testing.assert_allclose(contrib, [0.0, 0.63, 1.50, 3.02, 1.16, 0.0, 2.33], atol=0.0101)
    assert round(contrib[:5].sum(), 2) == 6.31


# --------------------------------------------------------------------------- seed 000
def test_cumulative_gain_cannot_see_order():
    """Seed 000: CG@4 is 5 for both [3,2,0,0] and [0,0,2,3]; CG at each position."""
    a = [value(f"dcg(gain=linear,discount=none)@{k}", [3, 2, 0, 0]) for k in range(1, 5)]
    b = [value(f"dcg(gain=linear,discount=none)@{k}", [0, 0, 2, 3]) for k in range(1, 5)]
    assert a == [3, 5, 5, 5]
    assert b == [0, 0, 2, 5]


def test_contribution_table_3200():
    """Seed 000, 'Contribution Breakdown for Ranking A (rel = [3, 2, 0, 0])': exp2 gains
    7, 3, 0, 0 times 1/log2(pos+1) give 7.0000, 1.8928, 0.0000, 0.0000."""
    cum = [value(f"dcg(gain=exp2)@{k}", [3, 2, 0, 0]) for k in range(1, 5)]
    contrib = np.diff(np.concatenate([[0.0], cum]))
    assert [f"{c:.4f}" for c in contrib] == ["7.0000", "1.8928", "0.0000", "0.0000"]
    # and ranking B's DCG@4 from the same section, vs the seed's code
    for ranking in ([3, 2, 0, 0], [0, 0, 2, 3]):
        assert value("dcg(gain=exp2)", ranking) == pytest.approx(seed_dcg(ranking), abs=1e-12)
    assert value("dcg(gain=exp2)", [3, 2, 0, 0]) > value("dcg(gain=exp2)", [0, 0, 2, 3])


@pytest.mark.parametrize("ranking", [[3, 3, 2, 1, 0, 0], [3, 2, 3, 1, 0, 0], [0, 0, 1, 2, 3, 3]],
                         ids=["perfect", "slightly-off", "reversed"])
def test_ndcg_demonstration(ranking):
    """Seed 000 'NDCG Demonstration' (exp2 gain, ideal from the list itself)."""
    expected = seed_ndcg_at_k(ranking)
    got = value("ndcg(gain=exp2,idcg=returned_top_k)", ranking)
    assert got == pytest.approx(expected, abs=1e-12)
    if ranking == [3, 3, 2, 1, 0, 0]:
        assert got == pytest.approx(1.0, abs=1e-15)
    else:
        assert got < 1.0


CUTOFF_EXAMPLE = [3, 0, 2, 0, 1, 3, 0, 0, 2, 1]


@pytest.mark.parametrize("k", [1, 3, 5, 10])
def test_ndcg_at_cutoffs_seed_convention(k):
    """Seed 000 'NDCG at Different Cutoffs': its ``ndcg_at_k`` truncates the list to k
    before sorting, i.e. ``idcg=returned_top_k``."""
    expected = seed_ndcg_at_k(CUTOFF_EXAMPLE, k=k)
    assert value(f"ndcg(gain=exp2,idcg=returned_top_k)@{k}", CUTOFF_EXAMPLE) == pytest.approx(expected, abs=1e-12)


def test_returned_top_k_differs_from_returned():
    """The truncate-first convention is a different flavour: at k=3 the ideal is
    [3,2,0] (top 3 only), not [3,3,2] (whole returned list)."""
    top_k = value("ndcg(gain=exp2,idcg=returned_top_k)@3", CUTOFF_EXAMPLE)
    whole = value("ndcg(gain=exp2,idcg=returned)@3", CUTOFF_EXAMPLE)
    assert top_k == pytest.approx(seed_dcg([3, 0, 2]) / seed_dcg([3, 2, 0]), abs=1e-12)
    assert whole < top_k
    assert whole == pytest.approx(seed_dcg([3, 0, 2]) / seed_dcg([3, 3, 2]), abs=1e-12)
    # at k=1 (first item has the top grade) the conventions agree
    assert value("ndcg(gain=exp2,idcg=returned)@1", CUTOFF_EXAMPLE) == pytest.approx(1.0)


TRUE_RATINGS = [5, 4, 3, 2, 1, 3, 0, 4]
SYSTEM_A = [0, 7, 1, 3, 5, 2, 4, 6]
SYSTEM_B = [2, 5, 4, 6, 0, 1, 7, 3]


@pytest.mark.parametrize("order", [SYSTEM_A, SYSTEM_B], ids=["system-A", "system-B"])
@pytest.mark.parametrize("k", [5, 8])
def test_two_recommendation_systems(order, k):
    """Seed 000 'Comparing Two Recommendation Systems' (item ratings
    [5,4,3,2,1,3,0,4]), under the seed's ``ndcg_at_k`` convention."""
    rels = [TRUE_RATINGS[i] for i in order]
    expected = seed_ndcg_at_k(rels, k=k)
    got = value(f"ndcg(gain=exp2,idcg=returned_top_k)@{k}", None, corpus=TRUE_RATINGS, order=order)
    assert got == pytest.approx(expected, abs=1e-12)


def test_system_a_beats_system_b():
    a = value("ndcg(gain=exp2,idcg=returned_top_k)@5", None, corpus=TRUE_RATINGS, order=SYSTEM_A)
    b = value("ndcg(gain=exp2,idcg=returned_top_k)@5", None, corpus=TRUE_RATINGS, order=SYSTEM_B)
    assert a > b


CORPUS = [5, 5, 4, 3, 3, 2, 2, 1, 1, 0]
RETURNED = [7, 2, 9, 5, 4]


def test_approach_1_and_2():
    """Seed 000 'IDCG Approach Comparison': Approach 1 (IDCG from the corpus) is
    ``idcg=judged``; Approach 2 (IDCG from the returned list) is ``idcg=returned``."""
    rel = np.array([CORPUS[i] for i in RETURNED], dtype=float)
    assert rel.tolist() == [1, 4, 0, 2, 3]
    k = 5
    disc = 1.0 / np.log2(np.arange(1, k + 1) + 1)
    gains = 2**rel - 1
    dcg = np.sum(gains * disc)
    ideal1 = np.sort(2 ** np.array(CORPUS, dtype=float) - 1)[::-1][:k]
    approach1 = dcg / np.sum(ideal1 * disc[: len(ideal1)])
    approach2 = dcg / np.sum(np.sort(gains)[::-1] * disc)

    qrels, run = _qrels_run(None, corpus=CORPUS, order=RETURNED)
    res = evalkit.evaluate(qrels, run, ["ndcg(gain=exp2,idcg=judged)@5", "ndcg(gain=exp2,idcg=returned)@5"])
    got1, got2 = res.means()[0]
    assert got1 == pytest.approx(approach1, abs=1e-12)
    assert got2 == pytest.approx(approach2, abs=1e-12)
    # Approach 1 penalises missing the two rel=5 items
    assert got1 < got2 - 0.1


@pytest.mark.parametrize("gain_name, gain_fn", [
    ("linear", lambda r: r),
    ("exp2", lambda r: 2**r - 1),
    ("map(1=1,2=4,3=9)", lambda r: r**2),  # the seed's square gain on grades 0..3
])
def test_impact_of_gain_function(gain_name, gain_fn):
    """Seed 000 'Impact of Gain Function' on [3,1,2,0,2,1], k=6 (ideal from the list)."""
    rels = [3, 1, 2, 0, 2, 1]
    expected = seed_ndcg_at_k(rels, k=6, gain=gain_fn)
    got = value(f"ndcg(gain={gain_name},idcg=returned)@6", rels)
    assert got == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("disc_name, disc_fn", [
    ("log2", lambda i: 1 / np.log2(i + 1)),
    ("reciprocal", lambda i: 1 / i),
    ("natural", lambda i: 1 / np.log(i + np.e)),
])
def test_impact_of_discount_function(disc_name, disc_fn):
    """Seed 000 'Impact of Discount Function' on [3,1,2,0,2,1], exp2 gain, k=6."""
    rels = [3, 1, 2, 0, 2, 1]
    expected = seed_ndcg_at_k(rels, k=6, discount=disc_fn)
    got = value(f"ndcg(gain=exp2,discount={disc_name},idcg=returned)@6", rels)
    assert got == pytest.approx(expected, abs=1e-12)


def test_gain_and_discount_change_the_number():
    rels = [3, 1, 2, 0, 2, 1]
    gains = {g: value(f"ndcg(gain={g},idcg=returned)", rels) for g in ("linear", "exp2")}
    discs = {d: value(f"ndcg(gain=exp2,discount={d},idcg=returned)", rels)
             for d in ("log2", "reciprocal", "natural")}
    assert len({round(v, 6) for v in gains.values()}) == 2
    assert len({round(v, 6) for v in discs.values()}) == 3


def test_ndcg_evaluator_demo():
    """Seed 000 ``NDCGEvaluator`` demo: one query at k=10, mean over three at k=5
    (exp2 gain, ideal from the list)."""
    rel = [3, 2, 3, 0, 1, 2, 0, 0, 1, 0]
    assert value("ndcg(gain=exp2,idcg=returned_top_k)@10", rel) == pytest.approx(seed_ndcg_at_k(rel, 10), abs=1e-12)
    assert value("dcg(gain=exp2)@10", rel) == pytest.approx(seed_dcg(rel), abs=1e-12)

    queries = [[3, 2, 1, 0, 0], [0, 0, 3, 2, 1], [5, 4, 3, 2, 1]]
    rows_q, rows_r = [], []
    for qi, rels in enumerate(queries):
        for i, g in enumerate(rels):
            rows_q.append((f"q{qi}", f"d{i}", g))
            rows_r.append((f"q{qi}", f"d{i}", float(10 - i)))
    res = evalkit.evaluate(evalkit.Qrels.from_rows(rows_q), evalkit.Run.from_rows(rows_r),
                           ["ndcg(gain=exp2,idcg=returned_top_k)@5"])
    expected = np.mean([seed_ndcg_at_k(r, 5) for r in queries])
    assert res.means()[0, 0] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("base", [2.0, 10.0, math.e])
def test_ndcg_evaluator_log_base(base):
    """The evaluator's ``log_base``: 1 / (ln(i+1) / ln(b)) is ``discount=log(base=b)``."""
    rel = [3, 2, 3, 0, 1, 2, 0, 0, 1, 0]
    expected = seed_dcg(rel, discount=lambda i: 1.0 / (np.log(i + 1) / np.log(base)))
    got = value(f"dcg(gain=exp2,discount=log(base={base!r}))", rel)
    assert got == pytest.approx(expected, rel=1e-12)
    # NDCG does not depend on the base (it cancels)
    assert value(f"ndcg(gain=exp2,discount=log(base={base!r}))", rel) == pytest.approx(
        value("ndcg(gain=exp2)", rel), abs=1e-12)


def test_metric_comparison_same_binary_pattern():
    """Seed 000 'Metric Comparison': [5,4,0,0,3] and [1,1,0,0,1] share P@5 = 0.6 and
    AP = (1 + 1 + 3/5) / 3 (all relevant items are in the list), but not NDCG."""
    out = {}
    for name, ranking in (("A", [5, 4, 0, 0, 3]), ("B", [1, 1, 0, 0, 1])):
        qrels, run = _qrels_run(ranking)
        res = evalkit.evaluate(qrels, run, ["precision@5", "ap@5", "ndcg(gain=exp2,idcg=returned)@5"])
        out[name] = res.means()[0]
    for name in "AB":
        assert out[name][0] == pytest.approx(0.6)
        assert out[name][1] == pytest.approx((1 + 1 + 3 / 5) / 3)
    assert out["A"][2] == pytest.approx(seed_ndcg_at_k([5, 4, 0, 0, 3], 5), abs=1e-12)
    assert out["B"][2] == pytest.approx(seed_ndcg_at_k([1, 1, 0, 0, 1], 5), abs=1e-12)
    assert abs(out["A"][2] - out["B"][2]) > 1e-3


# --------------------------------------------------------------------------- seed 003
def _jarvelin_dcg(rels):
    return rels[0] + sum(r / math.log2(i) for i, r in enumerate(rels[1:], start=2))


def _burges_dcg(rels):
    return sum((2**r - 1) / math.log2(i + 1) for i, r in enumerate(rels, start=1))


@pytest.mark.parametrize("k", [None, 3, 10])
def test_jarvelin_vs_burges(k):
    """Seed 003: Järvelin & Kekäläinen 2002 (rel_1 + sum_{i>=2} rel_i / log2 i) and
    Burges et al. 2005 (sum (2^rel_i - 1) / log2(i+1)), ideal from the judgments."""
    judged = {"a": 3, "b": 2, "c": 3, "d": 0, "e": 1, "f": 2, "g": 0, "h": 1, "x": 2}
    ranking = ["b", "a", "d", "c", "h", "e", "g", "f"]  # "x" (grade 2) not retrieved
    rels = [judged[d] for d in ranking]
    ideal = sorted(judged.values(), reverse=True)
    kk = len(ranking) if k is None else k
    want_j = _jarvelin_dcg(rels[:kk]) / _jarvelin_dcg(ideal[:kk])
    want_b = _burges_dcg(rels[:kk]) / _burges_dcg(ideal[:kk])

    qrels = evalkit.Qrels.from_rows([("q", d, g) for d, g in judged.items()])
    run = evalkit.Run.from_rows([("q", d, float(20 - i)) for i, d in enumerate(ranking)])
    suffix = "" if k is None else f"@{k}"
    res = evalkit.evaluate(qrels, run, [f"jarvelin2002.ndcg{suffix}", f"burges2005.ndcg{suffix}"])
    got_j, got_b = res.means()[0]
    assert got_j == pytest.approx(want_j, abs=1e-12)
    assert got_b == pytest.approx(want_b, abs=1e-12)
    assert abs(got_j - got_b) > 1e-3  # two flavours, two numbers


def test_binary_grades_gain_equivalence():
    """Seed 003: for binary relevance exp2 and linear gains coincide (2^1 - 1 = 1).
    (The discounts of the two variants still differ, so only the gain is equal.)"""
    rels = [1, 0, 1, 1, 0, 0, 1]
    assert value("ndcg(gain=exp2)", rels) == value("ndcg(gain=linear)", rels)
    assert value("jarvelin2002.ndcg", rels) != pytest.approx(value("burges2005.ndcg", rels))


# --------------------------------------------------------------------------- seed 004
AH_TRUE = np.array([3, 2, 3, 0, 1, 2, 0, 1])
AH_SCORE = np.array([0.60, 0.20, 0.80, 0.40, 0.10, 0.30, 0.05, 0.70])


def _notebook_exp_ndcg(y_true, y_score, k):
    """Seed 004's worked example: exp gain, stable sort, ideal of the same row."""
    order_pred = np.argsort(-y_score, kind="mergesort")
    order_ideal = np.argsort(-y_true, kind="mergesort")
    discount = 1.0 / np.log2(np.arange(1, len(y_true) + 1) + 1)
    dcg = ((2.0 ** y_true[order_pred] - 1) * discount)[:k].sum()
    idcg = ((2.0 ** y_true[order_ideal] - 1) * discount)[:k].sum()
    return dcg / idcg if idcg > 0 else 0.0


def test_ah_example_sklearn_and_exp_flavours():
    """Seed 004 A-H: scikit-learn's ndcg_score uses LINEAR gain, and evalkit's default
    array flavour equals it; the notebook's hand computation uses exp gain, which is
    ``gain=exp2``. The two flavours give different numbers."""
    k = 5
    sk = sklearn_metrics.ndcg_score(AH_TRUE[None, :], AH_SCORE[None, :], k=k)
    linear = ea.score(AH_TRUE[None, :], AH_SCORE[None, :], k=k)[0]
    exp = ea.score(AH_TRUE[None, :], AH_SCORE[None, :], k=k, flavour="ndcg(gain=exp2,ties=average)")[0]
    assert linear == pytest.approx(sk, abs=1e-12)
    assert round(linear, 4) == 0.8269
    assert exp == pytest.approx(_notebook_exp_ndcg(AH_TRUE, AH_SCORE, k), abs=1e-12)
    assert abs(exp - linear) > 1e-3
    # predicted order CHADFBEG: DCG@5 with exp gains 7, 1, 7, 0, 3
    disc = 1 / np.log2(np.arange(2, 7))
    dcg5 = ea.score(AH_TRUE[None, :], AH_SCORE[None, :], k=k, flavour="dcg(gain=exp2)")[0]
    assert dcg5 == pytest.approx(np.dot([7, 1, 7, 0, 3], disc), abs=1e-12)


def test_ah_monotone_transform():
    """Seed 004: 10 * score + 5 leaves NDCG unchanged."""
    a = ea.score(AH_TRUE[None, :], AH_SCORE[None, :], k=5)
    b = ea.score(AH_TRUE[None, :], (10 * AH_SCORE + 5)[None, :], k=5)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("k", [1, 3, 5, 10, None])
def test_notebook_sanity_check_grid(k):
    """Seed 004's sanity check: 30 x 40 random grades 0..3 and normal scores; mean
    NDCG@k equals sklearn (linear) and the notebook's NumPy exp implementation (exp2)."""
    rng = np.random.default_rng(42)
    y_true = rng.integers(0, 4, size=(30, 40))
    y_score = rng.normal(size=(30, 40))
    sk = sklearn_metrics.ndcg_score(y_true, y_score, k=k)
    assert ea.score(y_true, y_score, k=k).mean() == pytest.approx(sk, abs=1e-12)
    kk = 40 if k is None else k
    nb = np.mean([_notebook_exp_ndcg(t.astype(float), s, kk) for t, s in zip(y_true, y_score)])
    got = ea.score(y_true, y_score, k=k, flavour="ndcg(gain=exp2,ties=average)").mean()
    assert got == pytest.approx(nb, abs=1e-12)


TIE_TRUE = np.array([3, 2, 1, 0, 0])
TIE_SCORE = np.array([0.9, 0.8, 0.8, 0.8, 0.1])


def test_tie_example():
    """Seed 004 ties: y_true [3,2,1,0,0], scores [.9,.8,.8,.8,.1], k=5.
    worst (pessimistic) <= expected (average) <= best (optimistic); the notebook's
    best/worst/expected values; average with linear gain = sklearn ignore_ties=False."""
    k = 5
    y_t, y_s = TIE_TRUE[None, :], TIE_SCORE[None, :]
    disc = 1.0 / np.log2(np.arange(2, 7))
    idcg = np.sum((2.0 ** np.sort(TIE_TRUE)[::-1] - 1) * disc)

    def from_order(order):
        return np.sum((2.0 ** TIE_TRUE[order] - 1) * disc) / idcg

    best = from_order(np.lexsort((-TIE_TRUE, -TIE_SCORE)))
    worst = from_order(np.lexsort((TIE_TRUE, -TIE_SCORE)))
    # notebook's dcg_at_k_expected_ties_1d: gains of the block times mean discount
    gains = 2.0 ** TIE_TRUE - 1
    expected = (gains[0] * disc[0] + gains[1:4].sum() * disc[1:4].mean() + gains[4] * disc[4]) / idcg

    got = {p: ea.score(y_t, y_s, k=k, flavour=f"ndcg(gain=exp2,ties={p})")[0]
           for p in ("pessimistic", "average", "optimistic")}
    assert got["pessimistic"] == pytest.approx(worst, abs=1e-12)
    assert got["optimistic"] == pytest.approx(best, abs=1e-12)
    assert got["average"] == pytest.approx(expected, abs=1e-12)
    assert got["pessimistic"] < got["average"] < got["optimistic"]

    sk = sklearn_metrics.ndcg_score(y_t, y_s, k=k, ignore_ties=False)
    assert ea.score(y_t, y_s, k=k, flavour="ndcg(gain=linear,ties=average)")[0] == pytest.approx(sk, abs=1e-12)
    lin = {p: ea.score(y_t, y_s, k=k, flavour=f"ndcg(ties={p})")[0] for p in ("pessimistic", "optimistic")}
    assert lin["pessimistic"] <= sk <= lin["optimistic"]
