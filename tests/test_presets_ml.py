"""The learning-to-rank and TREC Web presets (evalkit/libraries/ltr.py, gdeval.py).

Differential tests against the libraries themselves where they install from PyPI
(LightGBM, XGBoost, torchmetrics: the ``test`` extra; gdeval.pl ships inside
ir_measures and runs under ``perl``), on the LightGBM lambdarank example data and on
random graded lists with and without ties. RankLib and TF-Ranking cannot be installed
here: their tests compare with values worked out by hand from the cited source lines.
"""

from __future__ import annotations

import importlib
import math
import os
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import evalkit
import evalkit.arrays as ea
from evalkit import Qrels, Run, evaluate, read_qrels
from evalkit.presets import expand_spec

from conftest import assert_per_query, shared_path

LOG2 = math.log2


def _lambdarank(split: str):
    """Labels, group sizes and a dense feature matrix of LightGBM's lambdarank example."""
    from sklearn.datasets import load_svmlight_file

    base = shared_path("lightgbm_lambdarank")
    X, y = load_svmlight_file(str(base / f"rank.{split}"))
    groups = np.loadtxt(base / f"rank.{split}.query", dtype=np.int64)
    assert groups.sum() == len(y)
    return X, y, groups


def _dense(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Group-contiguous values -> (n_groups, max_group) with NaN padding."""
    out = np.full((len(groups), int(groups.max())), np.nan)
    col = np.arange(len(values)) - np.repeat(np.cumsum(groups) - groups, groups)
    out[np.repeat(np.arange(len(groups)), groups), col] = values
    return out


def _preset_mean(y, scores, groups, spec: str) -> float:
    return float(np.nanmean(ea.score(_dense(y, groups), _dense(scores, groups), flavour=spec)))


# ----------------------------------------------------------------------------- LightGBM

def _lightgbm_ndcg(lgb, y, scores, groups, ks):
    """LightGBM's own 'ndcg' metric on scores we control: a booster that has not been
    trained yet scores every row with its init_score."""
    data = lgb.Dataset(np.zeros((len(y), 1)), label=y, group=groups, init_score=scores,
                       params={"verbose": -1})
    booster = lgb.Booster({"objective": "lambdarank", "metric": "ndcg", "eval_at": list(ks),
                           "verbose": -1}, data)
    return {r.metric_name: r.metric_value for r in booster.eval_train()}


@pytest.mark.shared
def test_lightgbm_ndcg_matches_lightgbm_on_lambdarank_data():
    lgb = importlib.import_module("lightgbm")
    _, y, groups = _lambdarank("test")
    y = y.copy()
    y[: groups[0]] = 0  # an all-zero query: LightGBM scores it 1
    rng = np.random.default_rng(7)
    ks = (1, 2, 3, 5, 10, 20)
    tied = rng.integers(0, 3, size=len(y)).astype(float)  # heavy ties
    for scores in (rng.normal(size=len(y)), tied):
        ref = _lightgbm_ndcg(lgb, y, scores, groups, ks)
        for k in ks:
            got = _preset_mean(y, scores, groups, f"lightgbm.ndcg@{k}")
            assert got == pytest.approx(ref[f"ndcg@{k}"], abs=1e-12), k
    # the tie rule matters on the tied scores: averaging ties gives another number
    averaged = _preset_mean(y, tied, groups, "ndcg(gain=exp2,idcg=returned,ties=average,empty=one)@3")
    assert abs(averaged - _lightgbm_ndcg(lgb, y, tied, groups, (3,))["ndcg@3"]) > 1e-4


@pytest.mark.shared
def test_lightgbm_ndcg_per_query_and_after_training():
    lgb = importlib.import_module("lightgbm")
    X, y, groups = _lambdarank("train")
    Xt, yt, gt = _lambdarank("test")
    train = lgb.Dataset(X, label=y, group=groups, params={"verbose": -1})
    valid = lgb.Dataset(Xt, label=yt, group=gt, reference=train, params={"verbose": -1})
    evals = {}
    params = {"objective": "lambdarank", "metric": "ndcg", "eval_at": [1, 5, 10], "verbose": -1,
              "num_leaves": 7, "min_data_in_leaf": 50}
    booster = lgb.train(params, train, num_boost_round=2, valid_sets=[valid], valid_names=["test"],
                        callbacks=[lgb.record_evaluation(evals)])
    pred = booster.predict(Xt.toarray(), raw_score=True)  # a 2-tree model: many tied scores
    for k in (1, 5, 10):
        got = _preset_mean(yt, pred, gt, f"lightgbm.ndcg@{k}")
        assert got == pytest.approx(evals["test"][f"ndcg@{k}"][-1], abs=1e-12)
    # per query: one LightGBM evaluation per group for a few groups
    starts = np.cumsum(gt) - gt
    per_query = ea.score(_dense(yt, gt), _dense(pred, gt), flavour="lightgbm.ndcg@5")
    for g in range(0, len(gt), 7):
        sl = slice(starts[g], starts[g] + gt[g])
        ref = _lightgbm_ndcg(lgb, yt[sl], pred[sl], np.array([gt[g]]), (5,))["ndcg@5"]
        assert per_query[g] == pytest.approx(ref, abs=1e-12)


def test_lightgbm_default_cutoffs_are_eval_at_1_to_5(registry):
    assert [f.k for f in expand_spec("lightgbm.ndcg", registry)] == [1, 2, 3, 4, 5]


# ----------------------------------------------------------------------------- XGBoost

def _xgboost_eval(xgb, y, scores, groups, metrics, **params):
    """XGBoost's own ranking metrics on scores we control: with base_margin set and no
    boosting round, the predictions are the margins (stored as float32)."""
    data = xgb.DMatrix(np.zeros((len(y), 1)), label=y, base_margin=scores)
    data.set_group(groups)
    booster = xgb.train({"objective": "rank:ndcg", "eval_metric": list(metrics), **params}, data,
                        num_boost_round=0)
    fields = booster.eval(data).split("\t")[1:]
    return {f.rsplit(":", 1)[0][len("eval-"):]: float(f.rsplit(":", 1)[1]) for f in fields}


XGB_METRICS = {
    "ndcg": "xgboost.ndcg",
    "ndcg@3": "xgboost.ndcg@3",
    "ndcg@10": "xgboost.ndcg@10",
    "ndcg-": "xgboost.ndcg-",
    "ndcg@5-": "xgboost.ndcg-@5",
}


@pytest.mark.shared
def test_xgboost_ndcg_matches_xgboost_on_lambdarank_data():
    xgb = importlib.import_module("xgboost")
    _, y, groups = _lambdarank("test")
    y = y.copy()
    y[: groups[0]] = 0  # IDCG = 0: 'ndcg' scores 1, 'ndcg-' scores 0
    rng = np.random.default_rng(8)
    starts = np.cumsum(groups) - groups
    for scores in (rng.normal(size=len(y)), rng.integers(0, 3, size=len(y)).astype(float)):
        ref = _xgboost_eval(xgb, y, scores, groups, XGB_METRICS)
        for native, preset in XGB_METRICS.items():
            assert _preset_mean(y, scores, groups, preset) == pytest.approx(ref[native], abs=1e-12), native
        # per query: XGBoost evaluated on each group alone, every group, same group set
        per_group = [_xgboost_eval(xgb, y[a: a + n], scores[a: a + n], [n], XGB_METRICS)
                     for a, n in zip(starts, groups)]
        for native, preset in XGB_METRICS.items():
            got = ea.score(_dense(y, groups), _dense(scores, groups), flavour=preset)
            assert_per_query(dict(enumerate(got)), {g: r[native] for g, r in enumerate(per_group)},
                             abs_tol=1e-12, context=f"xgboost {native}")


def test_xgboost_default_cutoff_float32_ties_and_linear_gain():
    xgb = importlib.import_module("xgboost")
    # plain 'ndcg' stops at rank 32: the grade-3 document at rank 40 is not counted
    y = np.zeros(50)
    y[[0, 39]] = [1, 3]
    s = -np.arange(50.0)
    ref = _xgboost_eval(xgb, y, s, [50], ["ndcg"])["ndcg"]
    assert ea.score(y[None], s[None], flavour="xgboost.ndcg")[0] == pytest.approx(ref, abs=1e-12)
    assert ea.score(y[None], s[None], flavour="xgboost.ndcg@50")[0] > ref + 0.1
    # scores equal in float32 (not in float64) tie and keep their input order
    y = np.array([0, 1, 2, 0, 3, 1.0])
    s = 0.5 + np.arange(6) * 1e-12
    ref = _xgboost_eval(xgb, y, s, [6], ["ndcg@3"])["ndcg@3"]
    assert ea.score(y[None], s[None], flavour="xgboost.ndcg@3")[0] == pytest.approx(ref, abs=1e-12)
    float64_ties = ea.score(y[None], s[None], k=3, flavour="ndcg(gain=exp2,idcg=returned,ties=stable,empty=one)")
    assert abs(float64_ties[0] - ref) > 0.1
    # ndcg_exp_gain=false: the label itself is the gain (non-integer labels allowed)
    rng = np.random.default_rng(9)
    y = rng.integers(0, 5, size=40).astype(float) / 2
    s = rng.integers(0, 4, size=40).astype(float)
    groups = np.array([10, 15, 15])
    ref = _xgboost_eval(xgb, y, s, groups, ["ndcg@5"], ndcg_exp_gain=False)["ndcg@5"]
    assert _preset_mean(y, s, groups, "xgboost.ndcg_linear@5") == pytest.approx(ref, abs=1e-12)


#: label groups around LightGBM's CheckLabel and XGBoost's CheckNDCGLabels: integers at
#: the limits, fractions, negatives, float32 near-integers, a value beyond int32
LABEL_GROUPS = [[0, 1, 2, 3], [0, 30, 1, 2], [0, 31, 1, 2], [0, 32, 1, 2], [0, 1.5, 2, 0], [0, -1, 2, 1],
                [-0.5, 1, 2, 0], [0, 1, 2.00000001, 0], [0, 1, 2.0000005, 1], [0, 1, 2.000002, 1],
                [0, 1, 1.9999999, 1], [0, 1, 30.999999999, 1], [0, 31.0000005, 1, 1], [0, 1, 2.0**40, 1]]


@pytest.mark.parametrize("labels", LABEL_GROUPS, ids=str)
def test_lightgbm_and_xgboost_presets_refuse_the_labels_they_refuse(labels):
    """``lightgbm.ndcg`` raises exactly where LightGBM's CheckLabel stops (a label not an
    integer 0..30 as float32), ``xgboost.ndcg`` / ``ndcg-`` where XGBoost's
    CheckNDCGLabels does (not within 1e-6 above an integer 0..31), and give the library's
    value otherwise (the gain of the integer it reads); ``xgboost.ndcg_linear`` takes
    every label, negative ones as negative gains, the float32 label as the gain, as
    ndcg_exp_gain=false does."""
    lgb = importlib.import_module("lightgbm")
    xgb = importlib.import_module("xgboost")
    y = np.array(labels, dtype=float)
    s = np.array([4.0, 3.0, 3.0, 1.0])  # a tie: input order
    try:
        want = _lightgbm_ndcg(lgb, y, s, np.array([4]), (3,))["ndcg@3"]
    except lgb.basic.LightGBMError:
        with pytest.raises(evalkit.errors.InvalidGradeError, match="grades=lightgbm.*CheckLabel"):
            ea.score(y[None], s[None], flavour="lightgbm.ndcg@3")
    else:
        assert ea.score(y[None], s[None], flavour="lightgbm.ndcg@3")[0] == pytest.approx(want, abs=1e-12)
    for native, preset in (("ndcg@3", "xgboost.ndcg@3"), ("ndcg@3-", "xgboost.ndcg-@3")):
        try:
            want = _xgboost_eval(xgb, y, s, [4], [native])[native]
        except xgb.core.XGBoostError:
            with pytest.raises(evalkit.errors.InvalidGradeError, match="grades=xgboost.*CheckNDCGLabels"):
                ea.score(y[None], s[None], flavour=preset)
        else:
            if labels[2] != 2.0**40:  # accepted by XGBoost only through an undefined float -> uint32 cast
                assert ea.score(y[None], s[None], flavour=preset)[0] == pytest.approx(want, abs=1e-12)
    if y.max() < 2.0**31:
        want = _xgboost_eval(xgb, y, s, [4], ["ndcg@3"], ndcg_exp_gain=False)["ndcg@3"]
        got = ea.score(y[None], s[None], flavour="xgboost.ndcg_linear@3")[0]
        assert got == pytest.approx(want, abs=1e-12)  # the float32 label is the gain (grades=float32)
        assert ea.score(y[None], s[None], flavour="xgboost.ndcg_linear@3")[0] == pytest.approx(got, abs=0)


def test_labels_beyond_float32_are_refused_without_a_numpy_warning():
    """A label beyond float32's range is ``inf`` to LightGBM and XGBoost (``label_t`` is
    ``float``): both refuse it, and so do the presets, with the libraries' messages and
    no NumPy overflow warning on the way (the cast is the libraries' own)."""
    lgb = importlib.import_module("lightgbm")
    xgb = importlib.import_module("xgboost")
    y = np.array([0.0, 1.0, 1e39, 1.0])
    s = np.array([4.0, 3.0, 2.0, 1.0])
    with pytest.raises(lgb.basic.LightGBMError):
        _lightgbm_ndcg(lgb, y, s, np.array([4]), (3,))
    with pytest.raises(xgb.core.XGBoostError):
        _xgboost_eval(xgb, y, s, [4], ["ndcg@3"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(evalkit.errors.InvalidGradeError, match=r"CheckLabel stops with \"label should be "
                                                                  r"int type \(met inf\)"):
            ea.score(y[None], s[None], flavour="lightgbm.ndcg@3")
        with pytest.raises(evalkit.errors.InvalidGradeError, match="CheckNDCGLabels stops with"):
            ea.score(y[None], s[None], flavour="xgboost.ndcg@3")


# ----------------------------------------------------------------------------- RankLib

def test_ranklib_ndcg_and_err_hand_computed():
    """RankLib 2.x, values from the cited lines of NDCGScorer/DCGScorer/ERRScorer.

    Scores [.5, .5, .9, .1, .5, .2] with labels [3, 2, 3, 0, 1, 2]: Ranker.rank's stable
    merge sort gives the label order 3, 3, 2, 1, 2, 0 (the three 0.5s keep their input
    order). DCG@4 = sum (2^l - 1)/log2(i + 1) (DCGScorer.java:26,30,97-103); the ideal is
    the list's own labels sorted, 3, 3, 2, 2 (NDCGScorer.java:167-174)."""
    y = np.array([[3, 2, 3, 0, 1, 2]], dtype=float)
    s = np.array([[0.5, 0.5, 0.9, 0.1, 0.5, 0.2]])
    dcg4 = 7 / LOG2(2) + 7 / LOG2(3) + 3 / LOG2(4) + 1 / LOG2(5)
    idcg4 = 7 / LOG2(2) + 7 / LOG2(3) + 3 / LOG2(4) + 3 / LOG2(5)
    assert ea.score(y, s, flavour="ranklib.ndcg@4")[0] == pytest.approx(dcg4 / idcg4, abs=1e-15)
    # k larger than the list: the whole list (NDCGScorer.java:109); default k = 10
    dcg = dcg4 + 3 / LOG2(6)
    idcg = idcg4 + 1 / LOG2(6)
    assert ea.score(y, s, flavour="ranklib.ndcg@10")[0] == pytest.approx(dcg / idcg, abs=1e-15)
    # ERR@3 = R1 + (1-R1) R2 / 2 + (1-R1)(1-R2) R3 / 3, R = (2^l - 1)/16 (ERRScorer.java:45-73)
    r1, r2, r3 = 7 / 16, 7 / 16, 3 / 16
    err3 = r1 + (1 - r1) * r2 / 2 + (1 - r1) * (1 - r2) * r3 / 3
    assert ea.score(y, s, flavour="ranklib.err@3")[0] == pytest.approx(err3, abs=1e-15)
    # IDCG = 0 scores 0 (NDCGScorer.java:124)
    assert ea.score(np.zeros((1, 3)), np.array([[3.0, 2, 1]]), flavour="ranklib.ndcg@10")[0] == 0.0


def test_ranklib_default_cutoff_is_10(registry):
    assert [f.k for f in expand_spec("ranklib.ndcg", registry)] == [10]
    assert [f.k for f in expand_spec("ranklib.err", registry)] == [10]


# ----------------------------------------------------------------------------- TF-Ranking

def test_tfr_ndcg_hand_computed_expected_value_over_shuffled_ties():
    """TF-Ranking NDCGMetric (metrics_impl.py:31,33,631-670; utils.py sort_by_scores with
    shuffle_ties=True): the two tied documents come in either order with probability
    1/2; evalkit reports the expected NDCG."""
    y = np.array([[2, 0, 1, 3]], dtype=float)
    s = np.array([[0.3, 0.3, 0.1, 0.05]])

    def ndcg(labels, k):
        gains = [2.0**v - 1 for v in labels][:k]
        ideal = sorted((2.0**v - 1 for v in y[0]), reverse=True)[:k]
        disc = lambda xs: sum(g / LOG2(i + 2) for i, g in enumerate(xs))  # noqa: E731
        return disc(gains) / disc(ideal)

    for k in (1, 2, 3, 4):
        expected = (ndcg([2, 0, 1, 3], k) + ndcg([0, 2, 1, 3], k)) / 2
        assert ea.score(y, s, flavour=f"tfr.ndcg@{k}")[0] == pytest.approx(expected, abs=1e-15)
    # topn=None is the whole list; an all-zero list scores 0 (divide_no_nan)
    whole = (ndcg([2, 0, 1, 3], 4) + ndcg([0, 2, 1, 3], 4)) / 2
    assert ea.score(y, s, flavour="tfr.ndcg")[0] == pytest.approx(whole, abs=1e-15)
    assert ea.score(np.zeros((1, 3)), np.array([[1.0, 2, 3]]), flavour="tfr.ndcg")[0] == 0.0


def test_tfr_ndcg_invalid_labels_leave_the_list():
    """TF-Ranking metrics_impl_test.py:701-712 (v0.5.5) test_ndcg_should_ignore_padded_items:
    scores [1, 4, 3, 2], labels [2, -1, 1, 0]; the invalid entry (label -1) has the
    highest score and takes no rank: dcg = 3/log2(4) + 1/log2(2). An invalid entry is
    ranked after every valid one with label 0 (metrics_impl.py:258-266, utils.py:147-163),
    so the value is the same at every cutoff beyond the valid entries, and a list of only
    invalid entries scores 0 (divide_no_nan)."""
    y = np.array([[2, -1, 1, 0]], dtype=float)
    s = np.array([[1.0, 4.0, 3.0, 2.0]])
    want = ((2**2 - 1) / LOG2(4) + 1 / LOG2(2)) / ((2**2 - 1) / LOG2(2) + 1 / LOG2(3))
    for k in (None, 3, 4, 10):
        assert ea.score(y, s, k=k, flavour="tfr.ndcg")[0] == pytest.approx(want, abs=1e-15)
    # topn=1: the valid entry with score 3 (label 1) against the ideal label 2
    assert ea.score(y, s, k=1, flavour="tfr.ndcg")[0] == pytest.approx(1 / 3, abs=1e-15)
    assert ea.score(np.array([[-1.0, -1.0]]), np.array([[1.0, 2.0]]), flavour="tfr.ndcg")[0] == 0.0


# ----------------------------------------------------------------------------- scores beyond float32

#: scores a float64 run can hold that a float32 library reads as +-inf or +-0 (1e308,
#: -1e39), or as a tie (1e-320 and -0.0 are both 0.0f); with 0.5 and 1 between them
EXTREME_SCORES = np.array([[1e308, 3.5e38, 1e-320, -0.0, 0.5, -1e39],
                           [-0.0, 1e-320, 5e-324, 1.0, 1e308, 3.4e38]])
EXTREME_LABELS = np.array([[0.0, 2, 1, 3, 1, 4], [2.0, 1, 0, 0, 3, 1]])


def test_scores_beyond_float32_match_xgboost_and_torchmetrics_without_warnings():
    """A run scored in float64 holds values float32 libraries read as +-inf or 0: the
    float32 presets give the libraries' own numbers, and the conversion (the
    libraries' behaviour, not a user mistake) prints no numpy overflow warning."""
    import warnings

    xgb = importlib.import_module("xgboost")
    y, s = EXTREME_LABELS, EXTREME_SCORES
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning would fail the test
        got_xgb = ea.score(y, s, k=3, flavour="xgboost.ndcg")
        got_tm = ea.score(y, s, flavour="torchmetrics.ndcg")
        qrels = Qrels.from_rows([(f"q{i}", f"d{j}", int(y[i, j])) for i in range(2) for j in range(6)])
        run = Run.from_rows([(f"q{i}", f"d{j}", float(s[i, j])) for i in range(2) for j in range(6)])
        got_trec = evaluate(qrels, run, ["xgboost.ndcg@3", "torchmetrics.ndcg"])
    want_xgb = [_xgboost_eval(xgb, y[i], s[i], [6], ["ndcg@3"])["ndcg@3"] for i in range(2)]
    np.testing.assert_allclose(got_xgb, want_xgb, rtol=0, atol=1e-6)  # XGBoost prints 6 digits
    np.testing.assert_allclose(list(got_trec.per_query(0, 0).values()), want_xgb, rtol=0, atol=1e-6)
    with np.errstate(over="ignore"):
        s32 = s.astype(np.float32)
    want_tm = _torchmetrics_per_query(y, s32, None)
    np.testing.assert_allclose(got_tm, want_tm, rtol=0, atol=1e-7)
    np.testing.assert_allclose(list(got_trec.per_query(0, 1).values()), want_tm, rtol=0, atol=1e-7)


# ----------------------------------------------------------------------------- torchmetrics

def test_torchmetrics_docstring_example():
    """retrieval_normalized_dcg's docstring (functional/retrieval/ndcg.py): 0.6957."""
    y = np.array([[10, 0, 0, 1, 5]], dtype=float)
    s = np.array([[0.1, 0.2, 0.3, 4, 70]])
    assert ea.score(y, s, flavour="torchmetrics.ndcg")[0] == pytest.approx(0.6957, abs=5e-5)


def test_torchmetrics_ndcg_matches_torchmetrics():
    torch = importlib.import_module("torch")
    retrieval = importlib.import_module("torchmetrics.retrieval")
    rng = np.random.default_rng(10)
    for trial in range(12):
        nq, nd = 6, int(rng.integers(2, 25)) if trial < 8 else int(rng.integers(17, 60))
        y = rng.integers(0, 4, size=(nq, nd)).astype(float)
        y[0] = 0  # empty_target_action='neg': 0
        if trial % 2:
            s = rng.integers(0, 5, size=(nq, nd)) / 4.0  # ties (averaged by torchmetrics)
        else:
            s = rng.normal(size=(nq, nd))
        index = torch.tensor(np.repeat(np.arange(nq), nd))
        for k in (None, 1, 3, 10):
            metric = retrieval.RetrievalNormalizedDCG(top_k=k)
            ref = float(metric(torch.tensor(s.ravel(), dtype=torch.float32),
                               torch.tensor(y.ravel(), dtype=torch.long), indexes=index))
            per_query = ea.score(y, s, k=k, flavour="torchmetrics.ndcg")
            # torchmetrics accumulates in float32: agreement to its precision
            assert per_query.mean() == pytest.approx(ref, abs=1e-6), (trial, k)
            # per query: torchmetrics' functional form on each row, every row
            want = _torchmetrics_per_query(y, s.astype(np.float32), k)
            assert_per_query(dict(enumerate(per_query)), dict(enumerate(want)), abs_tol=1e-6,
                             context=f"torchmetrics trial {trial} k={k}")


def _torchmetrics_per_query(y, s, k):
    torch = importlib.import_module("torch")
    functional = importlib.import_module("torchmetrics.functional.retrieval")
    return np.array([functional.retrieval_normalized_dcg(torch.tensor(s[i]), torch.tensor(y[i]).long(),
                                                         top_k=k).item() for i in range(len(y))])


@pytest.mark.parametrize("seed", range(3))
def test_torchmetrics_per_query_exact_on_1000_document_lists(seed):
    """Per query, bit for bit: float32 predictions (scores 1e-9 apart tie and are
    averaged), float32 discounts and sums in torch's order, negative targets counting
    negatively (values above 1)."""
    rng = np.random.default_rng(20 + seed)
    nq, nd = 12, 1000
    y = rng.integers(-2, 5, size=(nq, nd)).astype(float)
    y[0] = 0  # empty_target_action='neg': 0
    s = rng.integers(0, 150, size=(nq, nd)) / 7.0 + rng.integers(0, 3, size=(nq, nd)) * 1e-9
    s[1] = rng.normal(size=nd)  # no ties
    y[2] = -rng.integers(1, 3, size=nd)  # only negative targets: DCG / IDCG of two negatives
    for k in (None, 1, 10, 100, 999):
        want = _torchmetrics_per_query(y, s, k)
        got = ea.score(y, s, k=k, flavour="torchmetrics.ndcg")
        assert np.array_equal(got, want), (k, np.abs(got - want).max())
    assert _torchmetrics_per_query(y, s, None)[2] > 1  # negative targets: values above 1


@pytest.mark.parametrize("k", [None, 1, 3, 10])
def test_ndcg_float32_honours_the_negative_convention(k):
    """ndcg_float32 under negative=zero (the default: a negative grade is judged
    non-relevant, gain 0) is torchmetrics on the targets clipped at 0; under
    negative=gain (the torchmetrics.ndcg preset) torchmetrics on the targets as given;
    negative=error refuses them."""
    rng = np.random.default_rng(7)
    y = rng.integers(-2, 5, size=(40, 15)).astype(float)
    s = rng.integers(0, 4, size=(40, 15)) / 3.0  # ties (averaged)
    y[0] = -1  # only negative targets
    y[1] = 0
    zero = ea.score(y, s, k=k, flavour="ndcg_float32(ties=average)")
    assert np.array_equal(zero, _torchmetrics_per_query(np.maximum(y, 0), s.astype(np.float32), k))
    gain = ea.score(y, s, k=k, flavour="ndcg_float32(ties=average,negative=gain)")
    assert np.array_equal(gain, _torchmetrics_per_query(y, s.astype(np.float32), k))
    assert np.array_equal(gain, ea.score(y, s, k=k, flavour="torchmetrics.ndcg"))
    assert not np.array_equal(zero, gain)
    with pytest.raises(evalkit.errors.NegativeGradeError, match="negative=error"):
        ea.score(y, s, k=k, flavour="ndcg_float32(ties=average,negative=error)")


def test_torchmetrics_class_scores_targets_summing_to_zero_as_empty():
    """RetrievalNormalizedDCG applies empty_target_action to a query whose targets sum
    to 0 (retrieval/base.py: ``if not mini_target.sum()``), negative targets included:
    [1, -1] scores 0 there ('neg'), while the functional form gives a number."""
    torch = importlib.import_module("torch")
    retrieval = importlib.import_module("torchmetrics.retrieval")
    y, s = np.array([[1.0, -1.0, 0.0]]), np.array([[0.2, 0.9, 0.5]])
    ref = float(retrieval.RetrievalNormalizedDCG()(torch.tensor(s[0], dtype=torch.float32),
                                                   torch.tensor(y[0]).long(),
                                                   indexes=torch.zeros(3, dtype=torch.long)))
    assert ref == 0.0 and _torchmetrics_per_query(y, s.astype(np.float32), None)[0] != 0.0
    assert ea.score(y, s, flavour="torchmetrics.ndcg")[0] == ref


@pytest.mark.shared
def test_torchmetrics_per_query_exact_on_a_real_run():
    """A Robust 2003 run with tied scores: each query's returned documents with their
    qrels grades (unjudged: 0) as torchmetrics' targets."""
    from evalkit.io.trec import read_qrels, read_run

    from conftest import shared_path

    qrels = read_qrels(shared_path("trectools_robust03", "robust03_qrels.txt"))
    run = read_run(shared_path("trectools_robust03", "runs", "input.InexpC2.gz"))
    grades = {(q, d): g for q, d, g in zip(qrels.qid, qrels.docno, qrels.grade)}
    res = evalkit.evaluate(qrels, run, ["torchmetrics.ndcg@10", "torchmetrics.ndcg"])
    by_q: dict = {}
    for q, d, sc in zip(run.qid, run.docno, run.score):
        by_q.setdefault(q, ([], []))
        by_q[q][0].append(grades.get((q, d), 0.0))
        by_q[q][1].append(sc)
    assert not any(by_q["433"][0])  # a query with no relevant document retrieved: 0 on both sides
    for f, k in enumerate((10, None)):
        want = {q: _torchmetrics_per_query([np.array(y)], [np.array(s)], k)[0] for q, (y, s) in by_q.items()}
        assert_per_query(res.per_query(0, f), want, abs_tol=0.0, context=f"torchmetrics.ndcg@{k}")


# ----------------------------------------------------------------------------- gdeval

GDEVAL_FIXTURE = {  # ir_measures tests/test_gdeval.py (expected.tsv rows)
    ("gdeval.ndcg@20", "0"): 0.6201, ("gdeval.ndcg@20", "1"): 0.35099,
    ("gdeval.ndcg@2", "0"): 0.17377, ("gdeval.ndcg@2", "1"): 0.38685,
    ("gdeval.err@20", "0"): 0.10175, ("gdeval.err@20", "1"): 0.09375,
    ("gdeval.err@2", "0"): 0.03125, ("gdeval.err@2", "1"): 0.09375,
}


@pytest.mark.shared
def test_gdeval_presets_reproduce_ir_measures_fixture(ir_measures_dir):
    from evalkit import read_run

    qrels = read_qrels(ir_measures_dir / "fixtureA.qrels")
    run = read_run(ir_measures_dir / "fixtureA.run")
    specs = sorted({spec for spec, _ in GDEVAL_FIXTURE})
    res = evaluate(qrels, run, specs)
    for spec in specs:
        want = {qid: v for (sp, qid), v in GDEVAL_FIXTURE.items() if sp == spec}
        assert_per_query(res.per_query(0, specs.index(spec)), want, abs_tol=1e-5, context=spec)


def _gdeval_script() -> str:
    ir_measures = importlib.import_module("ir_measures")
    path = os.path.join(os.path.dirname(ir_measures.__file__), "bin", "gdeval.pl")
    if not os.path.exists(path) or shutil.which("perl") is None:
        pytest.fail("gdeval.pl (inside ir_measures) or perl not available: both are needed (CI has perl)")
    return path


def _run_gdeval(script, qrels_path, run_path, k):
    out = subprocess.run(["perl", script, str(qrels_path), str(run_path), str(k)],
                         capture_output=True, text=True, check=True).stdout
    rows = [line.split(",") for line in out.strip().splitlines()[1:]]
    return {r[1]: (float(r[2]), float(r[3])) for r in rows}


@pytest.mark.shared
def test_gdeval_presets_match_gdeval_pl_on_web_track_qrels(tmp_path):
    """gdeval.pl itself on the TREC 2013 Web adhoc qrels (grades -2..4) and a synthetic
    run with many tied scores, unjudged documents and a missing topic; gdeval prints
    5 decimals."""
    script = _gdeval_script()
    qrels_path = shared_path("anserini_tools_qrels", "qrels.web.201-250.txt")
    qrels = read_qrels(qrels_path)
    rng = np.random.default_rng(11)
    rows = []
    for q in qrels.qids:
        if q == "210":
            continue  # a topic absent from the run: not reported by gdeval (missing=skip)
        docs = qrels.docno[qrels.qid == q]
        picked = list(rng.choice(docs, size=min(40, len(docs)), replace=False))
        picked += [f"unjudged-{q}-{i}" for i in range(3)]
        rows += [(q, d, float(rng.integers(0, 15))) for d in picked]
    run_path = tmp_path / "run.txt"
    run_path.write_text("".join(f"{q} Q0 {d} {i + 1} {s} syn\n" for i, (q, d, s) in enumerate(rows)))
    run = Run.from_rows(rows, name="syn")
    for k in (5, 20):
        ref = _run_gdeval(script, qrels_path, run_path, k)
        res = evaluate(qrels, run, [f"gdeval.ndcg@{k}", f"gdeval.err@{k}"])
        ndcg, err = res.per_query(0, 0), res.per_query(0, 1)
        reported = set(ndcg)  # per_query leaves out the NaN (skipped) topics
        assert reported == set(ref) and "210" not in reported
        for q, (ref_ndcg, ref_err) in ref.items():
            assert ndcg[q] == pytest.approx(ref_ndcg, abs=5e-6 + 1e-12), (k, q)
            assert err[q] == pytest.approx(ref_err, abs=5e-6 + 1e-12), (k, q)


def test_gdeval_with_no_topic_reported_warns_and_the_cli_says_so(tmp_path, capsys):
    """No topic has a positive judgment: gdeval.pl prints its header and no topic (no
    amean line); evalkit leaves every query out, and its NaN mean does not pass silently:
    evaluate warns (EmptyEvaluationWarning) and the command line prints one
    ``evalkit: warning:`` line naming the run, then '-' for the mean, exit status 0."""
    import warnings

    from evalkit.cli import main

    script = _gdeval_script()
    (tmp_path / "q").write_text("1 0 a 0\n1 0 b 0\n2 0 a -1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 sys\n1 Q0 b 2 1.0 sys\n2 Q0 a 1 1.0 sys\n")
    out = subprocess.run(["perl", script, str(tmp_path / "q"), str(tmp_path / "r"), "5"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines() == ["runid,topic,ndcg@5,err@5"]  # nothing reported, no amean
    qrels, run = read_qrels(tmp_path / "q"), evalkit.read_run(tmp_path / "r")
    with pytest.warns(evalkit.EmptyEvaluationWarning, match=r"run 'sys'.*leaves out every query.*NaN"):
        res = evaluate(qrels, run, ["gdeval.ndcg@5", "gdeval.err@5"])
    assert res.per_query(0, 0) == {} and math.isnan(res.mean(0, 0)) and math.isnan(res.mean(0, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the CLI prints its own line, not Python's warning
        assert main(["eval", "-m", "gdeval.ndcg@5", str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("evalkit: warning: run 'sys':") == 1 and "EmptyEvaluationWarning" not in captured.err
    assert captured.out.splitlines()[-1].split() == ["sys", "-"]
    # a flavour that keeps a query gives no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert evaluate(qrels, run, ["ndcg@5"]).mean(0, 0) == 0.0


def test_gdeval_refuses_a_grade_above_4_as_gdeval_pl_does(tmp_path, capsys):
    """gdeval.pl lines 16, 39-42: a judgment above $MAX_JUDGMENT = 4 is a format error
    (exit status 25); the gdeval presets (and ir_measures' gdeval-provider ones) refuse
    it too, naming the file, line, query and document; 4 is accepted and agrees."""
    from evalkit.cli import main
    from evalkit.errors import InvalidGradeError

    script = _gdeval_script()
    run_text = "1 Q0 a 1 1.0 sys\n1 Q0 b 2 2.0 sys\n2 Q0 a 1 1.0 sys\n"
    (tmp_path / "r").write_text(run_text)
    for grade in (5, 4):
        (tmp_path / "q").write_text(f"1 0 b 1\n1 0 a {grade}\n2 0 a 2\n")
        done = subprocess.run(["perl", script, str(tmp_path / "q"), str(tmp_path / "r"), "5"],
                              capture_output=True, text=True)
        qrels, run = read_qrels(tmp_path / "q"), evalkit.read_run(tmp_path / "r")
        if grade == 5:
            assert done.returncode != 0 and "format error on line 2" in done.stderr
            for spec in ("gdeval.ndcg@5", "gdeval.err@5", "ir_measures.nDCG_exp_log2@5", "ir_measures.ERR@5"):
                with pytest.raises(InvalidGradeError, match=r"grade 5 is refused under grades=gdeval.*"
                                                             r"query '1', document 'a', grade 5: .*q:2"):
                    evaluate(qrels, run, [spec])
            assert main(["eval", "-m", "gdeval.ndcg@5", str(tmp_path / "q"), str(tmp_path / "r")]) == 2
            err = capsys.readouterr().err
            assert err.startswith("evalkit: error:") and "q:2" in err and "Traceback" not in err
        else:
            ref = _run_gdeval(script, tmp_path / "q", tmp_path / "r", 5)
            res = evaluate(qrels, run, ["gdeval.ndcg@5", "gdeval.err@5"])
            for q, (ref_ndcg, ref_err) in ref.items():
                assert res.per_query(0, 0)[q] == pytest.approx(ref_ndcg, abs=5e-6)
                assert res.per_query(0, 1)[q] == pytest.approx(ref_err, abs=5e-6)


def test_gdeval_skips_topics_without_a_positive_judgment(tmp_path):
    """gdeval.pl line 175: a topic with no judgment > 0 is not reported, for nDCG and for
    ERR; RankLib's ERR scores it 0."""
    script = _gdeval_script()
    qrels = Qrels.from_rows([("1", "a", 2), ("1", "b", 0), ("2", "a", 0), ("2", "c", -2)])
    run = Run.from_rows([("1", "a", 1.0), ("1", "b", 2.0), ("2", "a", 1.0), ("2", "c", 2.0)])
    (tmp_path / "q").write_text("1 0 a 2\n1 0 b 0\n2 0 a 0\n2 0 c -2\n")
    (tmp_path / "r").write_text("1 Q0 a 2 1.0 x\n1 Q0 b 1 2.0 x\n2 Q0 a 2 1.0 x\n2 Q0 c 1 2.0 x\n")
    ref = _run_gdeval(script, tmp_path / "q", tmp_path / "r", 20)
    assert set(ref) == {"1"}
    res = evaluate(qrels, run, ["gdeval.ndcg@20", "gdeval.err@20", "ranklib.err@20"])
    assert res.per_query(0, 0)["1"] == pytest.approx(ref["1"][0], abs=5e-6)
    assert res.per_query(0, 1)["1"] == pytest.approx(ref["1"][1], abs=5e-6)
    assert "2" not in res.per_query(0, 0) and "2" not in res.per_query(0, 1)  # left out (NaN)
    assert res.per_query(0, 2)["2"] == 0.0
    assert res.means()[0, 1] == pytest.approx(ref["1"][1], abs=5e-6)
