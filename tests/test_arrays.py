"""``evalkit.arrays.score``: scikit-learn's convention (``y_true``, ``y_score`` of shape
``(n_queries, n_docs)``), NaN padding for rows of different lengths, NaN grades for
unjudged documents, errors on bad shapes."""

from __future__ import annotations

import importlib
import numpy as np
import pytest

import evalkit
import evalkit.arrays as ea
from test_registry import site  # noqa: F401  (the fake-distributions fixture)

sk = importlib.import_module("sklearn.metrics")

Y_TRUE = np.array([[3, 2, 3, 0, 1, 2, 0, 1]])
Y_SCORE = np.array([[0.60, 0.20, 0.80, 0.40, 0.10, 0.30, 0.05, 0.70]])


def test_docstring_example():
    np.testing.assert_allclose(ea.score(Y_TRUE, Y_SCORE, k=5), [0.8269], atol=5e-5)


@pytest.mark.parametrize("k", [None, 1, 2, 5, 8, 20])
def test_default_flavour_equals_sklearn(k):
    rng = np.random.default_rng(k or 0)
    y_true = rng.integers(0, 5, size=(12, 9))
    y_score = rng.integers(0, 4, size=(12, 9)).astype(float)  # ties
    got = ea.score(y_true, y_score, k=k)
    assert got.shape == (12,) and got.dtype == np.float64
    want = [sk.ndcg_score(y_true[i : i + 1], y_score[i : i + 1], k=k) for i in range(12)]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_one_dimensional_input_is_one_query():
    got = ea.score(Y_TRUE[0], Y_SCORE[0], k=5)
    assert got.shape == (1,)
    assert got[0] == pytest.approx(sk.ndcg_score(Y_TRUE, Y_SCORE, k=5), abs=1e-12)


def test_integer_and_list_inputs():
    a = ea.score(Y_TRUE.tolist(), Y_SCORE.tolist(), k=3)
    b = ea.score(Y_TRUE.astype(np.int8), Y_SCORE.astype(np.float32).astype(np.float64), k=3)
    np.testing.assert_array_equal(a, b)


def test_nan_padding_for_variable_length_rows():
    """Rows of different length: pad y_score with NaN (not returned). Each row must
    score as its unpadded self."""
    rng = np.random.default_rng(3)
    rows = [(rng.integers(0, 4, n), rng.integers(0, 5, n) / 4) for n in (2, 5, 9, 3)]
    width = max(len(t) for t, _ in rows)
    y_true = np.zeros((len(rows), width))
    y_score = np.full((len(rows), width), np.nan)
    for i, (t, s) in enumerate(rows):
        y_true[i, : len(t)] = t
        y_score[i, : len(s)] = s
    for k in (None, 2, 4):
        got = ea.score(y_true, y_score, k=k)
        want = [sk.ndcg_score(t[None, :], s[None, :], k=k) for t, s in rows]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    # padding grades with NaN too (neither judged nor returned) changes nothing
    y_true_nan = y_true.copy()
    y_true_nan[np.isnan(y_score)] = np.nan
    np.testing.assert_array_equal(ea.score(y_true_nan, y_score, k=3), ea.score(y_true, y_score, k=3))


@pytest.mark.parametrize("seed", range(4))
def test_nan_padding_with_grades_is_scikit_learn_on_the_unpadded_row(seed):
    """Padded positions that still carry a grade: the default and the
    sklearn.ndcg_score preset are one definition, scikit-learn's ndcg_score of the
    row without its padding."""
    rng = np.random.default_rng(40 + seed)
    nq, width = 12, 30
    y_true = rng.integers(0, 4, (nq, width)).astype(float)  # grades everywhere, padding too
    y_score = (rng.integers(0, 6, (nq, width)) / 5).astype(float)
    lengths = rng.integers(1, width + 1, nq)
    for i, n in enumerate(lengths):
        y_score[i, n:] = np.nan
    for k in (None, 1, 5, 10):
        want = [sk.ndcg_score(y_true[i: i + 1, :n], y_score[i: i + 1, :n], k=k) if n > 1 else np.nan
                for i, n in enumerate(lengths)]
        got = ea.score(y_true, y_score, k=k)
        preset = ea.score(y_true, y_score, k=k, flavour="sklearn.ndcg_score")
        np.testing.assert_array_equal(got, preset)
        for i, n in enumerate(lengths):
            if n > 1:  # scikit-learn refuses one-document rows
                assert got[i] == pytest.approx(want[i], abs=1e-12), (k, i)


def test_judged_but_not_returned_counts_in_the_ideal():
    """A grade with a NaN score is judged but not returned: under idcg=judged it
    enters the ideal (trec_eval), under idcg=returned it does not (sklearn)."""
    y_true = np.array([[1.0, 0.0, 3.0]])
    y_score = np.array([[0.9, 0.8, np.nan]])
    judged = ea.score(y_true, y_score, flavour="ndcg(idcg=judged,ties=average)")[0]
    returned = ea.score(y_true, y_score, flavour="ndcg(idcg=returned,ties=average)")[0]
    assert returned == pytest.approx(1.0)
    assert judged == pytest.approx(1.0 / (3.0 + 1.0 / np.log2(3)), abs=1e-12)


def test_nan_grade_is_unjudged():
    """A NaN grade is unjudged: gain 0 in the ranking and absent from the ideal, the
    same as evaluating qrels without that document."""
    y_true = np.array([[np.nan, 2.0, 1.0, np.nan]])
    y_score = np.array([[0.9, 0.8, 0.7, 0.6]])
    got = ea.score(y_true, y_score, flavour="ndcg(gain=exp2)")[0]
    qrels = evalkit.Qrels.from_rows([("q", "1", 2), ("q", "2", 1)])
    run = evalkit.Run.from_rows([("q", str(i), s) for i, s in enumerate(y_score[0])])
    want = evalkit.evaluate(qrels, run, ["ndcg(gain=exp2)"]).means()[0, 0]
    assert got == pytest.approx(want, abs=1e-15)
    assert got == pytest.approx((3 / np.log2(3) + 1 / np.log2(4)) / (3 + 1 / np.log2(3)), abs=1e-12)


def test_all_zero_row_and_conventions():
    y_true = np.array([[0, 0, 0], [1, 0, 2]])
    y_score = np.array([[0.3, 0.2, 0.1], [0.3, 0.2, 0.1]])
    v = ea.score(y_true, y_score)
    assert v[0] == 0.0  # scikit-learn's convention for IDCG = 0
    assert v[0] == sk.ndcg_score(y_true[:1], y_score[:1])
    assert np.isnan(ea.score(y_true, y_score, flavour="ndcg(empty=skip,ties=average)")[0])
    assert ea.score(y_true, y_score, flavour="ndcg(empty=one,ties=average)")[0] == 1.0


def test_row_with_nothing_returned_follows_missing():
    y_true = np.array([[1.0, 0.0], [1.0, 2.0]])
    y_score = np.array([[np.nan, np.nan], [0.1, 0.2]])
    assert np.isnan(ea.score(y_true, y_score)[0])
    assert ea.score(y_true, y_score, flavour="ndcg(missing=zero,ties=average)")[0] == 0.0


def test_k_overrides_flavour_cutoff():
    a = ea.score(Y_TRUE, Y_SCORE, k=3, flavour="ndcg(ties=average)@7")
    b = ea.score(Y_TRUE, Y_SCORE, flavour="ndcg(ties=average)@3")
    c = ea.score(Y_TRUE, Y_SCORE, flavour="ndcg(ties=average)@7")
    np.testing.assert_array_equal(a, b)
    assert a[0] != c[0]


def test_other_flavours_and_presets():
    exp = ea.score(Y_TRUE, Y_SCORE, k=5, flavour="burges2005.ndcg")[0]
    assert exp == pytest.approx(ea.score(Y_TRUE, Y_SCORE, k=5, flavour="ndcg(gain=exp2)")[0])
    assert ea.score(Y_TRUE, Y_SCORE, flavour="trec_eval.ndcg_cut@5")[0] == pytest.approx(
        sk.ndcg_score(Y_TRUE, Y_SCORE, k=5), abs=1e-12)  # no ties: trec_eval = sklearn
    p = ea.score(Y_TRUE, Y_SCORE, k=4, flavour="precision(threshold=2)")[0]
    assert p == 2 / 4  # top 4 by score: C(3), H(1), A(3), D(0); grade >= 2: C and A
    dcg = ea.score(Y_TRUE, Y_SCORE, k=5, flavour="dcg")
    assert dcg[0] == pytest.approx(sk.dcg_score(Y_TRUE, Y_SCORE, k=5), abs=1e-12)


def test_preset_with_several_cutoffs_needs_one():
    with pytest.raises(ValueError):
        ea.score(Y_TRUE, Y_SCORE, flavour="trec_eval.ndcg_cut")
    # an explicit k picks one
    assert ea.score(Y_TRUE, Y_SCORE, k=5, flavour="trec_eval.ndcg_cut").shape == (1,)


@pytest.mark.parametrize("y_true, y_score", [
    (np.zeros((2, 3)), np.zeros((2, 4))),
    (np.zeros((2, 3)), np.zeros((3, 3))),
    (np.zeros(3), np.zeros((1, 3))),
    (np.zeros((2, 2, 2)), np.zeros((2, 2, 2))),
    (np.zeros(3), np.zeros(4)),
])
def test_shape_mismatch_raises(y_true, y_score):
    with pytest.raises(ValueError, match="shape"):
        ea.score(y_true, y_score)


def test_infinite_scores_raise():
    with pytest.raises(ValueError, match="infinite"):
        ea.score([[1, 0]], [[np.inf, 0.0]])


def test_unknown_flavour_raises():
    with pytest.raises(evalkit.FlavourError):
        ea.score(Y_TRUE, Y_SCORE, flavour="ndcg(gain=cubic)")


def test_gain_that_writes_into_its_input(site):
    """A plugin gain that doubles its grades in place: the values are scikit-learn's
    (NDCG does not change when every gain doubles) and the caller's arrays, which the
    engine reads without copying, are unchanged."""
    site.add("evalkit-inplace", """
        def doubled_in_place(grades):
            grades *= 2.0
            return grades

        @hookimpl
        def evalkit_register_gains():
            return [Gain(name="doubled_in_place", fn=doubled_in_place, formula="g = 2 rel", source="test")]
    """)
    registry = evalkit.build_registry(disable_plugins=False)
    rng = np.random.default_rng(11)
    y_true = rng.integers(0, 4, (20, 15)).astype(float)
    y_score = rng.integers(0, 5, (20, 15)) / 4
    kept = y_true.copy(), y_score.copy()
    got = ea.score(y_true, y_score, k=5, flavour="ndcg(gain=doubled_in_place,idcg=returned,ties=average)", registry=registry)
    want = [sk.ndcg_score(y_true[i: i + 1], y_score[i: i + 1], k=5) for i in range(20)]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(y_true, kept[0])
    np.testing.assert_array_equal(y_score, kept[1])


@pytest.mark.parametrize("preset, fn", [("sklearn.ndcg_score", "ndcg_score"),
                                        ("sklearn.ndcg_score_ignore_ties", "ndcg_score"),
                                        ("sklearn.dcg_score", "dcg_score"),
                                        ("sklearn.dcg_score_ignore_ties", "dcg_score")])
def test_sklearn_presets_refuse_one_document_column_as_sklearn_does(preset, fn):
    """scikit-learn raises ValueError on y_true of one column (ndcg_score: 'Computing
    NDCG is only meaningful when there is more than 1 document'; dcg_score: a column
    is a 1-D target it does not take); the presets gave 1.0 and 0.0."""
    from sklearn import metrics

    y, s = np.array([[1.0], [0.0]]), np.array([[0.5], [0.2]])
    with pytest.raises(ValueError) as ref:
        getattr(metrics, fn)(y, s)
    with pytest.raises(evalkit.errors.ArgumentError) as got:  # a ValueError too
        ea.score(y, s, flavour=preset)
    assert str(ref.value).split(".")[0] in str(got.value) and preset in str(got.value)
    # two columns: both give values, and the same ones
    y2, s2 = np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([[0.5, 0.7], [0.2, 0.1]])
    want = [getattr(metrics, fn)(y2[i:i + 1], s2[i:i + 1]) for i in range(2)]
    np.testing.assert_allclose(ea.score(y2, s2, flavour=preset), want, rtol=0, atol=1e-12)
