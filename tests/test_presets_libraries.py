"""Differential tests of the library presets (evalkit/libraries/*.py)
against the libraries themselves, per query: CatBoost, ir_measures, implicit, LensKit
0.14, pytorch-ignite, sentence-transformers, BEIR and microsoft/recommenders (the
``ref-*`` extras of pyproject.toml; each test runs in its library's layer: tests/conftest.py,
noxfile.py).

Data: a TREC 2003 Robust run and a TREC CAsT 2021 run with their qrels, TREC DL 2019
passage qrels with generated runs, the LightGBM
lambdarank example (graded 0-4 groups), and generated qrels/runs with grades 0-4, tied
scores, queries without a relevant document, queries absent from the run and short
lists.
"""

from __future__ import annotations

import copy
import gzip
import math

import numpy as np
import pytest

import evalkit.arrays as ea
from evalkit import Qrels, Run, evaluate

from conftest import shared_path

#: queries checked one by one where the library only reports a mean (each is a call
#: of the library on that query alone); the mean over all queries is checked as well
PER_QUERY = 25


# ----------------------------------------------------------------------------- data

def _read_trec(path, fields: int, limit_per_query: int | None = None):
    opener = gzip.open if str(path).endswith(".gz") else open
    rows, seen = [], {}
    with opener(path, "rt") as fh:
        for line in fh:
            parts = line.split()
            if not parts:
                continue
            if fields == 4:  # qrels: qid iter docno grade
                rows.append((parts[0], parts[2], int(parts[3])))
            else:  # run: qid Q0 docno rank score tag
                n = seen.get(parts[0], 0)
                if limit_per_query is None or n < limit_per_query:
                    rows.append((parts[0], parts[2], float(parts[4])))
                seen[parts[0]] = n + 1
    return rows


def _nested(rows, cast=float):
    out: dict[str, dict[str, float]] = {}
    for q, d, v in rows:
        out.setdefault(q, {})[d] = cast(v)
    return out


def _robust():
    base = shared_path("trectools_robust03")
    qrels = _read_trec(base / "robust03_qrels.txt", 4)
    run = _read_trec(base / "runs" / "input.MU03rob01.gz", 6, limit_per_query=200)
    return qrels, run


def _cast():
    base = shared_path("trec_cast_2021")
    qrels = _read_trec(base / "trec-cast-qrels-docs.2021.qrel", 4)
    run = _read_trec(base / "document_runs" / "org_manual_bm25.run", 6)
    return qrels, run


def _generated(seed: int = 7):
    """Qrels with grades 0-4 and runs with tied scores (scores on a coarse grid), a
    query whose judgments are all 0, a judged query absent from the run, a query with
    one document, docnos equal to their qid (for the identical-id filter)."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(30):
        qid = f"q{q}"
        docs = [f"d{i}" for i in range(rng.integers(1, 25))]
        for d in docs:
            if rng.random() < 0.7:
                qrels.append((qid, d, int(rng.integers(0, 5))))
        qrels.append((qid, f"x{q}", int(rng.integers(1, 5))))  # judged, never retrieved
        if q == 3:  # nothing relevant
            qrels = [(a, b, 0) if a == qid else (a, b, g) for a, b, g in qrels]
        if q == 4:  # judged, absent from the run
            continue
        if q == 5:
            docs = docs[:1]
        if q % 6 == 0:
            docs = [qid] + docs  # a document whose id is the query's
            qrels.append((qid, qid, 3))
        for d in docs:
            run.append((qid, d, float(rng.integers(0, 6)) / 2))  # many ties
    return qrels, run


def _dl19():
    """TREC DL 2019 passage qrels (grades 0-3) with a generated run per query: a sample of
    its judged passages and unjudged ones, scores on a coarse grid (ties)."""
    qrels = _read_trec(shared_path("anserini_tools_qrels") / "qrels.dl19-passage.txt", 4)
    rng = np.random.default_rng(19)
    by_query: dict[str, list[str]] = {}
    for q, d, _ in qrels:
        by_query.setdefault(q, []).append(d)
    queries = sorted(by_query)[:25]
    run = []
    for q in queries[1:]:  # the first query is judged but absent from the run
        docs = list(rng.choice(by_query[q], size=min(len(by_query[q]), 30), replace=False))
        docs += [f"unjudged{i}" for i in range(int(rng.integers(0, 10)))]
        for d in rng.permutation(docs):
            run.append((q, str(d), float(rng.integers(0, 20))))
    keep = set(queries)
    return [r for r in qrels if r[0] in keep], run


DATASETS = {"robust03": _robust, "cast2021": _cast, "dl19": _dl19, "generated": _generated}


@pytest.fixture(params=list(DATASETS), scope="module")
def dataset(request):
    qrels, run = DATASETS[request.param]()
    return request.param, qrels, run


def _per_query(qrels_rows, run_rows, spec: str) -> dict[str, float]:
    res = evaluate(Qrels.from_rows(qrels_rows), Run.from_rows(run_rows, name="r"), [spec])
    return res.per_query("r", 0)


def _mean(qrels_rows, run_rows, spec: str) -> float:
    res = evaluate(Qrels.from_rows(qrels_rows), Run.from_rows(run_rows, name="r"), [spec])
    return res.mean("r", 0)


def _ranked(run_rows):
    """``{qid: [docno, ...]}`` by score descending, ties in input order (a stable sort,
    as the ``stable`` tie policy): the ranking a recommender library is handed."""
    out: dict[str, list[tuple[float, int, str]]] = {}
    for i, (q, d, s) in enumerate(run_rows):
        out.setdefault(q, []).append((-s, i, d))
    return {q: [d for _, _, d in sorted(v)] for q, v in out.items()}


# ----------------------------------------------------------------------------- ir_measures

@pytest.mark.parametrize("judged_only", [False, True])
@pytest.mark.parametrize("k", [None, 10])
def test_ir_measures_ndcg(dataset, k, judged_only):
    import ir_measures

    _, qrels, run = dataset
    measure = ir_measures.nDCG(judged_only=True) if judged_only else ir_measures.nDCG
    if k is not None:
        measure = measure @ k
    qd, rd = _nested(qrels, int), _nested(run)
    theirs = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qd, rd)}
    name = "ir_measures.nDCG_judged_only" if judged_only else "ir_measures.nDCG"  # main's presets
    ours = _per_query(qrels, run, name if k is None else f"{name}@{k}")
    assert theirs.keys() == ours.keys()
    for q in theirs:
        assert ours[q] == pytest.approx(theirs[q], abs=1e-12), q
    agg = ir_measures.calc_aggregate([measure], qd, rd)[measure]
    assert _mean(qrels, run, name if k is None else f"{name}@{k}") == pytest.approx(agg, abs=1e-12)


# ----------------------------------------------------------------------------- BEIR

@pytest.mark.parametrize("ignore_ids", [True, False])
def test_beir_ndcg_cut(dataset, ignore_ids):
    from beir.retrieval.evaluation import EvaluateRetrieval

    _, qrels, run = dataset
    qd, rd = _nested(qrels, int), _nested(run)
    name = "beir.ndcg_cut" if ignore_ids else "beir.ndcg_cut_keep_ids"
    ks = [1, 5, 10]
    theirs = EvaluateRetrieval.evaluate(qd, copy.deepcopy(rd), ks, ignore_identical_ids=ignore_ids)[0]
    for k in ks:
        assert _mean(qrels, run, f"{name}@{k}") == theirs[f"NDCG@{k}"], k  # both rounded to 5 decimals
        ours = _per_query(qrels, run, f"{name}@{k}")
        assert ours.keys() == (rd.keys() & qd.keys())
        for q in sorted(rd.keys() & qd.keys())[:PER_QUERY]:
            one = EvaluateRetrieval.evaluate({q: qd[q]}, copy.deepcopy({q: rd[q]}), [k],
                                             ignore_identical_ids=ignore_ids)[0][f"NDCG@{k}"]
            assert round(ours[q], 5) == one, (q, k)


def test_beir_identical_id_only_document_counts_zero():
    """BEIR 2.2.0: a query whose only retrieved document is its own id still counts, as 0."""
    from beir.retrieval.evaluation import EvaluateRetrieval

    qrels = [("a", "a", 1), ("a", "d1", 1), ("b", "d2", 2)]
    run = [("a", "a", 3.0), ("b", "d2", 1.0)]
    theirs = EvaluateRetrieval.evaluate(_nested(qrels, int), _nested(run), [10])[0]["NDCG@10"]
    assert theirs == 0.5
    assert _per_query(qrels, run, "beir.ndcg_cut@10") == {"a": 0.0, "b": 1.0}
    assert _mean(qrels, run, "beir.ndcg_cut@10") == theirs


# ----------------------------------------------------------------------------- sentence-transformers

def _sbert_evaluator(qd, k):
    from sentence_transformers.sentence_transformer.evaluation import InformationRetrievalEvaluator

    relevant = {q: {d for d, g in docs.items() if g >= 1} for q, docs in qd.items()}
    queries = {q: q for q in qd}
    corpus = {"unused": ""}  # compute_metrics reads the hits and relevant_docs only
    return InformationRetrievalEvaluator(queries, corpus, relevant, ndcg_at_k=[k], mrr_at_k=[k],
                                         accuracy_at_k=[k], precision_recall_at_k=[k], map_at_k=[k],
                                         show_progress_bar=False)


@pytest.mark.parametrize("k", [1, 10])
def test_sentence_transformers_ndcg(dataset, k):
    _, qrels, run = dataset
    qd, rd = _nested(qrels, int), _nested(run)
    ev = _sbert_evaluator(qd, k)
    ours = _per_query(qrels, run, f"sentence_transformers.ndcg@{k}")
    assert set(ours) == set(ev.queries_ids)  # queries without a relevant document dropped
    for q in ev.queries_ids[:PER_QUERY]:
        one = _sbert_evaluator({q: qd[q]}, k)
        hits = [{"corpus_id": d, "score": s} for d, s in rd.get(q, {}).items()]
        theirs = one.compute_metrics([hits])["ndcg@k"][k]
        assert ours[q] == pytest.approx(theirs, abs=1e-12), q
    hits = [[{"corpus_id": d, "score": s} for d, s in rd.get(q, {}).items()] for q in ev.queries_ids]
    mean = ev.compute_metrics(hits)["ndcg@k"][k]
    assert _mean(qrels, run, f"sentence_transformers.ndcg@{k}") == pytest.approx(mean, abs=1e-12)


# ----------------------------------------------------------------------------- microsoft/recommenders

@pytest.mark.parametrize("score_type,preset", [("binary", "recommenders.python_ndcg_at_k"),
                                               ("raw", "recommenders.python_ndcg_at_k_raw"),
                                               ("exp", "recommenders.python_ndcg_at_k_exp")])
def test_recommenders_ndcg_at_k(dataset, score_type, preset):
    import pandas as pd
    from recommenders.evaluation.python_evaluation import ndcg_at_k

    name, qrels, run = dataset
    if name == "robust03":  # 100 users x 200 items through pandas, per user: keep it short
        run = [r for r in run if int(r[0]) < 340]
        qrels = [r for r in qrels if int(r[0]) < 340]
    true = pd.DataFrame(qrels, columns=["userID", "itemID", "rating"])
    pred = pd.DataFrame(run, columns=["userID", "itemID", "prediction"])
    k = 10
    ours = _per_query(qrels, run, f"{preset}@{k}")
    users = sorted(set(true.userID) & set(pred.userID))
    for u in users[:PER_QUERY]:
        theirs = ndcg_at_k(true[true.userID == u], pred[pred.userID == u], k=k, score_type=score_type)
        if math.isnan(theirs):
            assert u not in ours, u
        else:
            assert ours[u] == pytest.approx(theirs, abs=1e-12), u
    theirs = ndcg_at_k(true, pred, k=k, score_type=score_type)
    assert _mean(qrels, run, f"{preset}@{k}") == pytest.approx(theirs, abs=1e-12)


def test_recommenders_negative_ratings():
    """Negative ratings: score_type='binary' gives every row of rating_true gain 1 (the
    preset gave a negative rating gain 0: 0.6309 where recommenders gives 1.0); 'exp'
    raises on negative integer ratings (numpy power) and 'raw' divides by an ideal DCG
    that can be negative or 0: both presets refuse them, naming the judgment."""
    import pandas as pd
    from recommenders.evaluation.python_evaluation import ndcg_at_k

    from evalkit.errors import NegativeGradeError

    qrels = [("u1", "a", -5), ("u1", "b", 2), ("u1", "c", -1), ("u2", "a", -3), ("u2", "b", 1)]
    run = [("u1", "a", 3.0), ("u1", "b", 1.0), ("u1", "c", 1.0), ("u2", "a", 1.0), ("u2", "b", 0.0)]
    true = pd.DataFrame(qrels, columns=["userID", "itemID", "rating"])
    pred = pd.DataFrame(run, columns=["userID", "itemID", "prediction"])
    ours = _per_query(qrels, run, "recommenders.python_ndcg_at_k@10")
    for u in ("u1", "u2"):
        theirs = ndcg_at_k(true[true.userID == u], pred[pred.userID == u], k=10)
        # every returned document is a row of rating_true: gain 1 each, a perfect ranking
        assert theirs == 1.0 and ours[u] == pytest.approx(theirs, abs=1e-12)
    assert _mean(qrels, run, "recommenders.python_ndcg_at_k@10") == pytest.approx(ndcg_at_k(true, pred, k=10), abs=1e-12)
    with pytest.raises(ValueError, match="negative integer powers"):
        ndcg_at_k(true, pred, k=10, score_type="exp")
    assert ndcg_at_k(true, pred, k=10, score_type="raw") > 1  # a negative ideal DCG divides a negative DCG
    for preset in ("recommenders.python_ndcg_at_k_exp@10", "recommenders.python_ndcg_at_k_raw@10"):
        with pytest.raises(NegativeGradeError, match=r"grade -5 is negative.*query 'u1', document 'a'"):
            _mean(qrels, run, preset)


# ----------------------------------------------------------------------------- implicit

class _GivenRanking:
    """A stand-in for an implicit model: ``recommend`` returns a fixed ranking."""

    def __init__(self, ranking: dict[int, list[int]]):
        self.ranking = ranking

    def recommend(self, userid, user_items, N=10, **_):
        ids = np.full((len(userid), N), -1, dtype=np.int32)
        for row, u in enumerate(userid):
            got = self.ranking.get(int(u), [])[:N]
            ids[row, :len(got)] = got
        return ids, np.zeros(ids.shape, dtype=np.float32)


@pytest.mark.parametrize("k", [1, 10])
def test_implicit_ndcg(dataset, k):
    import scipy.sparse as sp
    from implicit.evaluation import ranking_metrics_at_k

    _, qrels, run = dataset
    users = sorted({q for q, _, _ in qrels})
    items = sorted({d for _, d, _ in qrels} | {d for _, d, _ in run})
    uid = {u: i for i, u in enumerate(users)}
    iid = {d: i for i, d in enumerate(items)}
    rel = [(uid[q], iid[d]) for q, d, g in qrels if g >= 1]
    test = sp.csr_matrix((np.ones(len(rel), dtype=np.float32), tuple(zip(*rel))),
                         shape=(len(users), len(items)))
    train = sp.csr_matrix((len(users), len(items)), dtype=np.float32)
    ranking = {uid[q]: [iid[d] for d in docs] for q, docs in _ranked(run).items() if q in uid}
    model = _GivenRanking(ranking)
    ours = _per_query(qrels, run, f"implicit.ndcg@{k}")
    with_items = {users[u] for u, _ in rel}
    assert set(ours) == with_items
    for q in sorted(with_items)[:PER_QUERY]:
        one = test.multiply(sp.csr_matrix(([1.0], ([uid[q]], [0])), shape=(len(users), 1))).tocsr()
        theirs = ranking_metrics_at_k(model, train, one, K=k, show_progress=False)["ndcg"]
        assert ours[q] == pytest.approx(theirs, abs=1e-12), q
    theirs = ranking_metrics_at_k(model, train, test, K=k, show_progress=False)["ndcg"]
    assert _mean(qrels, run, f"implicit.ndcg@{k}") == pytest.approx(theirs, abs=1e-12)


# ----------------------------------------------------------------------------- LensKit 0.14

@pytest.mark.parametrize("rating", [True, False])
@pytest.mark.parametrize("k", [None, 10])
def test_lenskit_ndcg(dataset, rating, k):
    import pandas as pd
    from lenskit import topn

    _, qrels, run = dataset
    ranked = _ranked(run)
    recs = pd.DataFrame([(q, d, r + 1) for q, docs in ranked.items() for r, d in enumerate(docs)],
                        columns=["user", "item", "rank"])
    if rating:
        truth = pd.DataFrame([(q, d, float(g)) for q, d, g in qrels if g >= 0],
                             columns=["user", "item", "rating"])
        name = "lenskit.ndcg"
    else:
        truth = pd.DataFrame([(q, d) for q, d, g in qrels if g >= 1], columns=["user", "item"])
        name = "lenskit.ndcg_binary"
    rla = topn.RecListAnalysis()
    rla.add_metric(topn.ndcg, k=k)
    theirs = rla.compute(recs, truth)["ndcg"]
    ours = _per_query(qrels, run, name if k is None else f"{name}@{k}")
    checked = 0
    for u, value in theirs.items():
        if math.isnan(value):
            assert u not in ours, u
        else:
            assert ours[u] == pytest.approx(value, abs=1e-12), u
            checked += 1
    assert checked == len(ours)


# ----------------------------------------------------------------------------- LTR rows

def _lambdarank_rows():
    from sklearn.datasets import load_svmlight_file

    base = shared_path("lightgbm_lambdarank")
    _, y = load_svmlight_file(str(base / "rank.test"))
    groups = np.loadtxt(base / "rank.test.query", dtype=np.int64)
    rng = np.random.default_rng(3)
    scores = np.round(rng.normal(size=len(y)), 1)  # coarse: many ties
    return y, scores, groups


def _generated_rows(seed=11):
    rng = np.random.default_rng(seed)
    groups = rng.integers(1, 12, size=40)
    y = rng.integers(0, 5, size=groups.sum()).astype(float)
    y[: groups[0]] = 0  # a group with nothing relevant
    scores = rng.integers(0, 4, size=groups.sum()).astype(float)
    return y, scores, groups


def _negative_rows(seed=16):
    """Groups with grades -2..4 and many tied scores (CatBoost orders a tie by the raw
    label, lowest first, and sums negative gains), a group of only negative labels, one
    of only zeros, one of zeros and negatives, and 1-document groups."""
    rng = np.random.default_rng(seed)
    groups = np.r_[rng.integers(1, 14, size=40), 4, 3, 5, 1, 1]
    y = rng.integers(-2, 5, size=groups.sum()).astype(float)
    end = np.cumsum(groups)
    y[end[-5] - 4: end[-5]] = [-1, -2, -1, -2]
    y[end[-4] - 3: end[-4]] = 0
    y[end[-3] - 5: end[-3]] = [0, -1, 0, -2, 0]
    y[end[-2] - 1], y[end[-1] - 1] = -2, 3
    scores = rng.integers(0, 3, size=groups.sum()).astype(float)
    return y, scores, groups


ROWS = {"lambdarank": _lambdarank_rows, "generated": _generated_rows}
#: CatBoost accepts negative labels: its presets are checked on them too
CATBOOST_ROWS = {**ROWS, "negative": _negative_rows}


def _dense(values, groups):
    out = np.full((len(groups), int(groups.max())), np.nan)
    col = np.arange(len(values)) - np.repeat(np.cumsum(groups) - groups, groups)
    out[np.repeat(np.arange(len(groups)), groups), col] = values
    return out


@pytest.mark.parametrize("rows", list(CATBOOST_ROWS))
@pytest.mark.parametrize("kind,preset", [("Base", "catboost.ndcg"), ("Exp", "catboost.ndcg_exp"),
                                         ("Base;denominator=Position", "catboost.ndcg_position")])
@pytest.mark.parametrize("top", [-1, 3, 10])
def test_catboost_ndcg(rows, kind, preset, top):
    from catboost.utils import eval_metric

    y, scores, groups = CATBOOST_ROWS[rows]()
    spec = preset if top == -1 else f"{preset}@{top}"
    ours = ea.score(_dense(y, groups), _dense(scores, groups), flavour=spec)
    start = 0
    for g, n in enumerate(groups):
        sl = slice(start, start + n)
        start += n
        theirs = eval_metric(y[sl], scores[sl], f"NDCG:top={top};type={kind}",
                             group_id=np.zeros(n, dtype=np.int64))[0]
        assert ours[g] == pytest.approx(theirs, abs=1e-12), g
    assert (ours[groups_all_zero(y, groups)] == 1.0).all()


@pytest.mark.parametrize("rows", list(CATBOOST_ROWS))
@pytest.mark.parametrize("top", [-1, 1, 3, 10])
def test_catboost_dcg(rows, top):
    from catboost.utils import eval_metric

    y, scores, groups = CATBOOST_ROWS[rows]()
    spec = "catboost.dcg" if top == -1 else f"catboost.dcg@{top}"
    ours = ea.score(_dense(y, groups), _dense(scores, groups), flavour=spec)
    start = 0
    for g, n in enumerate(groups):
        sl = slice(start, start + n)
        start += n
        theirs = eval_metric(y[sl], scores[sl], f"DCG:top={top};type=Base",
                             group_id=np.zeros(n, dtype=np.int64))[0]
        assert ours[g] == pytest.approx(theirs, abs=1e-12), g
    if rows == "negative":  # negative gains were summed somewhere
        assert (ours < 0).any()


def test_catboost_orders_a_tie_by_the_signed_label():
    """Equal predictions: CatBoost puts the lower label first, -2 before 0 (CompareDocs
    on the raw target); a preset that ranked -2 as 0 would keep the row order."""
    from catboost.utils import eval_metric

    y, s = np.array([0.0, -2.0, 3.0]), np.array([1.0, 1.0, 1.0])
    theirs = eval_metric(y, s, "DCG:top=-1;type=Base", group_id=np.zeros(3, dtype=np.int64))[0]
    assert theirs == pytest.approx(-2 + 0 + 3 / 2)  # order -2, 0, 3
    assert ea.score(y, s, flavour="catboost.dcg")[0] == pytest.approx(theirs, abs=1e-12)


def groups_all_zero(y, groups):
    gid = np.repeat(np.arange(len(groups)), groups)
    return np.bincount(gid, weights=(y > 0).astype(float), minlength=len(groups)) == 0


@pytest.mark.parametrize("rows", list(ROWS))
@pytest.mark.parametrize("preset,kwargs", [
    ("ignite.ndcg", {}),
    ("ignite.ndcg_zero_hits", {"ignore_zero_hits": False}),
    ("ignite.ndcg_linear", {"gain_function": "linear_rank"}),
])
@pytest.mark.parametrize("k", [1, 5])
def test_ignite_ndcg(rows, preset, kwargs, k):
    import torch
    from ignite.exceptions import NotComputableError
    from ignite.metrics import NDCG

    y, scores, groups = ROWS[rows]()
    ours = ea.score(_dense(y, groups), _dense(scores, groups), flavour=f"{preset}@{k}")
    start = 0
    for g, n in enumerate(groups):
        sl = slice(start, start + n)
        start += n
        metric = NDCG(top_k=[k], **kwargs)
        metric.update((torch.tensor(scores[sl][None, :], dtype=torch.float32),
                       torch.tensor(y[sl][None, :], dtype=torch.float32)))
        try:
            theirs = metric.compute()[0]
        except NotComputableError:  # ignore_zero_hits: the row was left out
            assert math.isnan(ours[g]), g
            continue
        assert ours[g] == pytest.approx(theirs, abs=1e-6), g  # ignite sums in float32


# ----------------------------------------------------------------------------- identify

@pytest.mark.parametrize("library", ["beir", "recommenders", "sentence_transformers"])
def test_identify_names_the_library(library):
    """A value printed by the library itself (to 4 decimals), on the CAsT 2021 run, is
    traced back to the library's preset by ``identify``, which reads the registry."""
    from evalkit.identify import identify

    qrels, run = _cast()
    qd, rd = _nested(qrels, int), _nested(run)
    if library == "beir":
        from beir.retrieval.evaluation import EvaluateRetrieval

        value, preset = EvaluateRetrieval.evaluate(qd, copy.deepcopy(rd), [10])[0]["NDCG@10"], "beir.ndcg_cut@10"
    elif library == "recommenders":
        import pandas as pd
        from recommenders.evaluation.python_evaluation import ndcg_at_k

        value = ndcg_at_k(pd.DataFrame(qrels, columns=["userID", "itemID", "rating"]),
                          pd.DataFrame(run, columns=["userID", "itemID", "prediction"]), k=10)
        preset = "recommenders.python_ndcg_at_k@10"
    else:
        ev = _sbert_evaluator(qd, 10)
        hits = [[{"corpus_id": d, "score": s} for d, s in rd.get(q, {}).items()] for q in ev.queries_ids]
        value, preset = ev.compute_metrics(hits)["ndcg@k"][10], "sentence_transformers.ndcg@10"
    found = identify(Qrels.from_rows(qrels), Run.from_rows(run, name="r"), f"{value:.4f}", k=10)
    names = [a.name for a in found.matches] + [n for a in found.matches for n in a.aliases]
    assert preset in names, (value, names[:10])
