"""ranx's order of tied documents depends on how the ``ranx.Run`` was built: every path
a ranx user takes is reproduced by a ``ties=numba_quicksort(...)`` composition, proven
per query against ranx 0.3.21 on the issue's kind of data (queries in random file
order, 2-200 documents, 2-50 % distinct 3-decimal scores, grades 0-3, judged
documents not retrieved).

The paths (ranx 0.3.21 ``data_structures/run.py``, ``data_structures/common.py``,
``meta/evaluate.py``, ``utils.py``):

* ``Run.from_file``, ``Run.from_dict``, ``Run(dict)``, ``Run.from_df``: one numba
  quicksort of ``-score`` per query (``create_and_sort``): ``numba_quicksort``
  (``sorts=1``); ``make_comparable=True`` sorts again: ``sorts=2`` (the ``ranx.*``
  presets);
* ``add_score``: the run is unsorted until ``make_comparable`` or ``to_typed_list``
  sorts it once: ``sorts=1`` either way;
* ``Run.add`` once per query: ``add_and_sort`` re-sorts every query added so far:
  ``numba_quicksort(added=yes)``;
* plain dicts given to ``ranx.evaluate``: ``descending_sort`` (``np.argsort(score)[::-1]``):
  ``numba_quicksort(key=reversed)``.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import evalkit

import ranx  # a light reference (the test extra): missing, the unit layer fails
import pandas as pd  # a light reference (the test extra): missing, the unit layer fails

K = 10


def _write(tmp_path, seed: int, n_queries: int = 60):
    rng = np.random.default_rng(seed)
    run_lines, qrels_lines = [], []
    for q in range(n_queries):
        qid = f"q{q + 1}"
        n = int(rng.integers(2, 201))
        distinct = max(1, int(round(n * rng.uniform(0.02, 0.5))))
        values = np.round(rng.uniform(0, 10, distinct), 3)
        scores = rng.choice(values, n)
        docs = [f"d{q}_{i}" for i in range(n)]
        run_lines += [f"{qid} Q0 {d} 0 {s:.3f} sys" for d, s in zip(docs, scores)]
        judged = [d for d in docs if rng.random() < 0.5] or docs[:1]
        qrels_lines += [f"{qid} 0 {d} {int(rng.integers(0, 4))}" for d in judged]
        qrels_lines += [f"{qid} 0 unretrieved{q}_{i} {int(rng.integers(1, 4))}"
                        for i in range(int(rng.integers(0, 5)))]
    rng.shuffle(run_lines)  # random file order: the queries' lines interleave
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run_path.write_text("\n".join(run_lines) + "\n")
    qrels_path.write_text("\n".join(qrels_lines) + "\n")
    return run_path, qrels_path


def _rows(path):
    out = []
    for line in path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        out.append((q, d, float(s)))
    return out


def _nested(rows):
    d: dict = {}
    for q, doc, s in rows:
        d.setdefault(q, {})[doc] = s
    return d


def _evalkit(qrels_path, run_path, spec):
    qrels, run = evalkit.read_qrels(qrels_path), evalkit.read_run(run_path)
    return evalkit.evaluate(qrels, [run], [spec]).per_query("sys", spec)


def _ranx_run_scores(qrels, run, make_comparable=False):
    metric = f"ndcg@{K}"
    ranx.evaluate(qrels, run, metric, make_comparable=make_comparable)
    return {q: float(v) for q, v in run.scores[metric].items()}


def _build(path_name, run_path):
    rows = _rows(run_path)
    if path_name == "from_file":
        return ranx.Run.from_file(str(run_path), kind="trec")
    if path_name == "from_dict":
        return ranx.Run.from_dict(_nested(rows))
    if path_name == "Run(dict)":
        return ranx.Run(_nested(rows))
    if path_name == "from_df":
        df = pd.DataFrame(rows, columns=["q_id", "doc_id", "score"])
        return ranx.Run.from_df(df)
    if path_name == "add_score":
        run = ranx.Run()
        for q, d, s in rows:
            run.add_score(q, d, s)
        return run
    if path_name == "add":
        run = ranx.Run()
        for q, docs in _nested(rows).items():  # queries in the order of their first lines
            run.add(q, list(docs), list(docs.values()))
        return run
    raise AssertionError(path_name)


ONE_SORT = "ndcg(ties=numba_quicksort,missing=error)@10"
ADDED = "ndcg(ties=numba_quicksort(added=yes),missing=error)@10"


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("path_name, make_comparable, spec", [
    ("from_file", False, ONE_SORT),
    ("from_file", True, "ranx.ndcg@10"),
    ("from_dict", False, ONE_SORT),
    ("from_dict", True, "ranx.ndcg@10"),
    ("Run(dict)", False, ONE_SORT),
    ("from_df", False, ONE_SORT),
    ("from_df", True, "ranx.ndcg@10"),
    ("add_score", False, ONE_SORT),
    ("add_score", True, "ndcg(ties=numba_quicksort,missing=zero)@10"),  # sorted once, by make_comparable
    ("add", False, ADDED),
    ("add", True, "ndcg(ties=numba_quicksort(added=yes,sorts=2),missing=zero)@10"),
])
def test_each_way_of_building_a_ranx_run(tmp_path, seed, path_name, make_comparable, spec):
    run_path, qrels_path = _write(tmp_path, seed)
    qrels = ranx.Qrels.from_file(str(qrels_path), kind="trec")
    expected = _ranx_run_scores(qrels, _build(path_name, run_path), make_comparable)
    ours = _evalkit(qrels_path, run_path, spec)
    assert set(ours) == set(expected)
    wrong = {q: (ours[q], expected[q]) for q in expected if abs(ours[q] - expected[q]) > 1e-12}
    assert not wrong, f"{len(wrong)} of {len(expected)} queries differ: {dict(list(wrong.items())[:3])}"


def test_the_paths_really_differ(tmp_path):
    """The data has ties enough that the compositions disagree: each test above could fail."""
    run_path, qrels_path = _write(tmp_path, 1)
    specs = [ONE_SORT, "ranx.ndcg@10", ADDED, "ndcg(ties=numba_quicksort(key=reversed),missing=error)@10"]
    values = [_evalkit(qrels_path, run_path, s) for s in specs]
    for i in range(len(values)):
        for j in range(i + 1, len(values)):
            assert sum(abs(values[i][q] - values[j][q]) > 1e-9 for q in values[i]) >= 5, (specs[i], specs[j])


@pytest.mark.parametrize("seed", [1, 2])
def test_plain_dicts_given_to_ranx_evaluate(tmp_path, seed):
    """``ranx.evaluate(qrels_dict, run_dict, ...)``: ``descending_sort``, i.e. numba's
    ``np.argsort(score)[::-1]``; queries pair up by position, so both dicts list them in
    the same order here."""
    run_path, qrels_path = _write(tmp_path, seed)
    run = _nested(_rows(run_path))
    qrels_all: dict = {}
    for line in qrels_path.read_text().splitlines():
        q, _, d, g = line.split()
        qrels_all.setdefault(q, {})[d] = int(g)
    qrels = {q: qrels_all[q] for q in run}
    # two metrics: with one, return_mean=False looks the result up under 'ndcg' (KeyError)
    values = ranx.evaluate(qrels, run, [f"ndcg@{K}", "precision@1"], return_mean=False)[f"ndcg@{K}"]
    expected = dict(zip(run, map(float, values)))
    ours = _evalkit(qrels_path, run_path, "ndcg(ties=numba_quicksort(key=reversed),missing=error)@10")
    wrong = {q: (ours[q], expected[q]) for q in expected if abs(ours[q] - expected[q]) > 1e-12}
    assert not wrong, f"{len(wrong)} of {len(expected)} queries differ: {dict(list(wrong.items())[:3])}"
