"""evalkit metrics in training loops (evalkit.integrations), on LightGBM's lambdarank
example (../shared/data/lightgbm_lambdarank): the logged values equal the libraries'
own NDCG where a preset reproduces it, and the last logged value (and ``evalkit eval``
of the final model's predictions) equals a peer's number for those predictions:
pytrec_eval's ``ndcg_cut_10`` for ``trec_eval.ndcg_cut@10``, CatBoost's own
``NDCG:top=10;type=Exp`` for the CatBoost flavour -- never evalkit compared with itself."""

from __future__ import annotations

import importlib
import json

import numpy as np
import pytest

from evalkit.cli import main
from evalkit.integrations import CatBoostMetric, docno_width, evaluate_groups, lightgbm_feval, xgboost_metric

pytestmark = pytest.mark.shared


@pytest.fixture(scope="module")
def lambdarank(shared_data):
    from sklearn.datasets import load_svmlight_file

    d = shared_data / "lightgbm_lambdarank"
    x_train, y_train = load_svmlight_file(str(d / "rank.train"))
    x_valid, y_valid = load_svmlight_file(str(d / "rank.test"))
    g_train = np.loadtxt(d / "rank.train.query", dtype=np.int64)
    g_valid = np.loadtxt(d / "rank.test.query", dtype=np.int64)
    return x_train, y_train, g_train, x_valid, y_valid, g_valid


def pytrec_ndcg_cut_10(labels, scores, sizes) -> float:
    """pytrec_eval's mean ``ndcg_cut_10`` over the groups (qid = the group's index,
    docno = the row's zero-padded position in its group, as evalkit.integrations names
    them, so tied scores fall in the same docno-descending order; every row judged with
    its label); asserts that no two scores of a group that differ
    in float64 are equal in float32 (pytrec_eval stores scores as C float)."""
    pytrec_eval = importlib.import_module("pytrec_eval")
    qrels: dict = {}
    run: dict = {}
    start = 0
    for g, n in enumerate(sizes):
        ls, ss = labels[start: start + n], np.asarray(scores[start: start + n], dtype=np.float64)
        start += n
        assert len(np.unique(ss)) == len(np.unique(ss.astype(np.float32))), "float32-only ties"
        qrels[str(g)] = {f"d{i:06d}": int(l) for i, l in enumerate(ls)}
        run[str(g)] = {f"d{i:06d}": float(x) for i, x in enumerate(ss)}
    per_q = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
    assert set(per_q) == set(qrels)
    return float(np.mean([m["ndcg_cut_10"] for m in per_q.values()]))


def evalkit_eval(tmp_path, capsys, labels, scores, sizes, spec) -> float:
    """``evalkit eval`` (the command) of predictions written as TREC files: qid = the
    group's index, docno = the row's position in its group, zero-padded."""
    w = docno_width(sizes)
    group = np.repeat(np.arange(len(sizes)), sizes)
    pos = np.arange(len(labels)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    (tmp_path / "qrels").write_text("".join(f"{g} 0 {p:0{w}d} {int(l)}\n" for g, p, l in zip(group, pos, labels)))
    (tmp_path / "run").write_text("".join(f"{g} Q0 {p:0{w}d} 0 {s!r} model\n"
                                          for g, p, s in zip(group, pos, scores.tolist())))
    code = main(["eval", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", spec, "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0
    (value,) = json.loads(out)["runs"]["model"]["all"].values()
    return value


def test_lightgbm_feval_equals_lightgbm_and_pytrec_eval(lambdarank, tmp_path, capsys):
    lgb = importlib.import_module("lightgbm")
    x_train, y_train, g_train, x_valid, y_valid, g_valid = lambdarank
    train = lgb.Dataset(x_train, y_train, group=g_train)
    valid = lgb.Dataset(x_valid, y_valid, group=g_valid, reference=train)
    log: dict = {}
    params = {"objective": "lambdarank", "metric": "ndcg", "ndcg_eval_at": [1, 10], "verbose": -1,
              "num_threads": 1, "seed": 1, "deterministic": True}
    booster = lgb.train(params, train, num_boost_round=15, valid_sets=[valid], valid_names=["valid"],
                        feval=lightgbm_feval(["lightgbm.ndcg@10", "lightgbm.ndcg@1", "trec_eval.ndcg_cut@10"]),
                        callbacks=[lgb.record_evaluation(log)])
    v = log["valid"]
    assert len(v["trec_eval.ndcg_cut@10"]) == 15
    # the lightgbm preset reproduces LightGBM's own metric at every iteration
    np.testing.assert_allclose(v["lightgbm.ndcg@10"], v["ndcg@10"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(v["lightgbm.ndcg@1"], v["ndcg@1"], rtol=0, atol=1e-12)
    # the last logged value is pytrec_eval's ndcg_cut_10 of the final model's predictions,
    # and so is what `evalkit eval` (the command, on TREC files) prints for them
    final = booster.predict(x_valid)
    peer = pytrec_ndcg_cut_10(y_valid, final, g_valid)
    assert v["trec_eval.ndcg_cut@10"][-1] == pytest.approx(peer, abs=1e-12)
    offline = evalkit_eval(tmp_path, capsys, y_valid, final, g_valid, "trec_eval.ndcg_cut@10")
    assert offline == pytest.approx(peer, abs=1e-12)
    assert v["trec_eval.ndcg_cut@10"][-1] != pytest.approx(v["ndcg@10"][-1], abs=1e-3)  # a different flavour


def test_xgboost_metric_equals_xgboost(lambdarank):
    xgb = importlib.import_module("xgboost")
    x_train, y_train, g_train, x_valid, y_valid, g_valid = lambdarank
    dtrain = xgb.DMatrix(x_train, y_train, group=g_train)
    dvalid = xgb.DMatrix(x_valid, y_valid, group=g_valid)
    log: dict = {}
    booster = xgb.train({"objective": "rank:ndcg", "eval_metric": ["ndcg@10"], "nthread": 1, "seed": 1}, dtrain,
                        num_boost_round=8, evals=[(dvalid, "valid")], evals_result=log, verbose_eval=False,
                        custom_metric=xgboost_metric(["xgboost.ndcg@10", "trec_eval.ndcg_cut@10"]), maximize=True)
    v = log["valid"]
    # XGBoost keeps a custom metric's value as printed (6 significant digits)
    np.testing.assert_allclose(v["xgboost.ndcg@10"], v["ndcg@10"], rtol=0, atol=5e-7)
    final = booster.predict(dvalid, output_margin=True)
    peer = pytrec_ndcg_cut_10(y_valid, final, g_valid)
    assert v["trec_eval.ndcg_cut@10"][-1] == pytest.approx(peer, abs=5e-7)
    offline = evaluate_groups(y_valid, final, g_valid, "trec_eval.ndcg_cut@10")["trec_eval.ndcg_cut@10"]
    assert offline == pytest.approx(peer, abs=1e-12)


def test_catboost_metric(lambdarank):
    cb = importlib.import_module("catboost")
    from catboost.utils import eval_metric

    x_train, y_train, g_train, x_valid, y_valid, g_valid = lambdarank
    q_train, q_valid = np.repeat(np.arange(len(g_train)), g_train), np.repeat(np.arange(len(g_valid)), g_valid)
    spec = "catboost.ndcg_exp@10"  # CatBoost's NDCG:top=10;type=Exp, ties included (pessimistic)
    metric = CatBoostMetric(spec, q_valid, q_train)
    # tie-free scores: CatBoost's own NDCG:top=10;type=Exp gives the same number
    scores = np.random.default_rng(0).normal(size=len(y_valid))
    ours, weight = metric.evaluate([scores], y_valid, None)
    assert weight == 1.0
    assert ours == pytest.approx(eval_metric(y_valid, scores, "NDCG:top=10;type=Exp", group_id=q_valid)[0],
                                 abs=1e-12)
    # in training: logged per iteration; the last value is the final model's
    model = cb.CatBoostRanker(loss_function="YetiRank", iterations=6, eval_metric=metric, thread_count=1,
                              random_seed=1, verbose=False, use_best_model=False, allow_writing_files=False)
    model.fit(cb.Pool(x_train.toarray(), y_train, group_id=q_train),
              eval_set=cb.Pool(x_valid.toarray(), y_valid, group_id=q_valid))
    logged = model.get_evals_result()["validation"]["CatBoostMetric"]
    assert len(logged) == 6
    final = model.predict(x_valid.toarray())
    # CatBoost's own NDCG of the final predictions (they have ties: the preset's
    # pessimistic order is CatBoost's)
    peer = eval_metric(y_valid, final, "NDCG:top=10;type=Exp", group_id=q_valid)[0]
    assert logged[-1] == pytest.approx(peer, abs=1e-9)
    assert evaluate_groups(y_valid, final, g_valid, spec)[spec] == pytest.approx(peer, abs=1e-12)
    with pytest.raises(ValueError, match="5 rows, but the metric knows group ids for data sets of 768, 3005 rows"):
        metric.evaluate([np.zeros(5)], np.zeros(5), None)


def test_evaluate_groups_inputs():
    # two groups: [2, 0, 1] scored 0.9 0.8 0.7 (ideal), [0, 1] scored 0.2 0.4 (ideal)
    labels = np.array([2, 0, 1, 0, 1])
    scores = np.array([0.9, 0.8, 0.7, 0.2, 0.4])
    means = evaluate_groups(labels, scores, [3, 2], ["ndcg@3", "ndcg(gain=exp2)@1"])
    assert means == {"ndcg@3": pytest.approx((2 + 1 / 2) / (2 + 1 / np.log2(3)) / 2 + 0.5),
                     "ndcg(gain=exp2)@1": pytest.approx(1.0)}
    with pytest.raises(ValueError, match="the group sizes sum to 4, not to the 5 rows"):
        evaluate_groups(labels, scores, [3, 1], "ndcg@3")
    with pytest.raises(ValueError, match="NaN or infinite"):
        evaluate_groups(labels, np.array([0.1, np.nan, 0, 0, 0]), [3, 2], "ndcg@3")
    with pytest.raises(ValueError, match="expands to 5 flavours"):
        CatBoostMetric("lightgbm.ndcg", [0, 0, 1])
