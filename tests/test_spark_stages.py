"""Every component of every stage family (docs/architecture.md) gives the local
engine's values on the Spark backend, on generated data with heavy score ties: the
Spark backend runs the local engine's stage functions in each partition, with the
run's line order carried as a column, so no component can diverge there (issue 23:
``run_filter=first_stable`` gave 0.0 in Spark where the local engine gave 0.5).

The oracle is the local engine (itself checked against the reference libraries by
the conformance suite); a component that refuses the data (a grade rule, or
``negative=error``) must refuse it on both engines with the same error.
"""

from __future__ import annotations

import numpy as np
import pytest

import evalkit
from evalkit import spark as eks
from evalkit.flavour import STAGE_KEYS

pytestmark = pytest.mark.spark
TOL = 1e-12


def tied_data(seed: int = 11, n_queries: int = 60, lowest_grade: int = -1):
    """Qrels and one run whose scores sit on a grid of three values (ties at the top
    of most queries), docnos that equal the qid in some queries (``query_id``),
    unjudged documents, queries without a relevant document and a qrels query absent
    from the run; the run's rows are shuffled across queries."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(n_queries):
        qid = f"g{q}"
        docs = [f"d{d}" for d in rng.choice(40, size=int(rng.integers(2, 12)), replace=False)]
        for d in docs:
            qrels.append((qid, d, float(rng.integers(lowest_grade, 4)) if q % 9 else 0.0))
        if q % 13 == 5:
            continue  # absent from the run
        ranked = [f"d{d}" for d in rng.choice(40, size=int(rng.integers(1, 15)), replace=False)]
        if q % 4 == 0:
            ranked.append(qid)  # a document named like its query
        run += [(qid, d, float(rng.integers(0, 3))) for d in ranked]
    rng.shuffle(run)
    return qrels, run


def stage_flavours(registry, data_refused) -> list[str]:
    """``ndcg(FAMILY=COMPONENT)@k`` for every component of every stage family, at the
    parameters a preset uses when the component needs some; ``data_refused(flavour)``
    tells those the local engine refuses on this data."""
    needs = {"round": "(decimals=2,rounding=half_up)", "round_mean": "(decimals=3)"}
    out = []
    for family in STAGE_KEYS:
        for name in registry.names(family):
            comp = registry.get(family, name)
            if any(p.default is None for p in comp.params) and name not in needs:
                continue
            for k in (1, 3):
                out.append(f"ndcg({family}={name}{needs.get(name, '')})@{k}")
    out += ["ndcg(run_filter=first_stable,ties=average)@1", "ndcg(run_filter=first_stable,ties=docno_ascending)@1",
            "ndcg(negative=drop,run_filter=first,depth=4)@3", "ndcg(run_filter=unjudged,missing=zero)@3",
            "dcg(negative=gain,outcome=complement)@3", "ndcg(outcome=round(decimals=1,complement=yes))@3"]
    return out


def _frames(spark, qrels, run, order: bool):
    if order:
        q = spark.createDataFrame([r + (i,) for i, r in enumerate(qrels)],
                                  "qid string, docno string, grade double, order long").repartition(3)
        r = spark.createDataFrame([r + (i,) for i, r in enumerate(run)],
                                  "qid string, docno string, score double, order long").repartition(4)
    else:  # the input order taken by the backend (monotonically_increasing_id)
        q = spark.createDataFrame(qrels, "qid string, docno string, grade double")
        r = spark.createDataFrame(run, "qid string, docno string, score double")
    return q, r


@pytest.mark.parametrize("order", [True, False], ids=["order-column", "input-order"])
def test_every_stage_component_on_tied_data_spark_equals_local(spark, registry, order):
    qrels_rows, run_rows = tied_data()
    qrels, run = evalkit.Qrels.from_rows(qrels_rows), evalkit.Run.from_rows(run_rows, name="run")
    accepted, refused = [], []
    for spec in stage_flavours(registry, None):
        try:
            evalkit.evaluate(qrels, run, [spec], registry=registry)
        except evalkit.errors.InvalidGradeError as exc:
            refused.append((spec, type(exc)))
            continue
        accepted.append(spec)
    assert any("first_stable" in s for s in accepted) and refused  # both kinds are exercised
    q, r = _frames(spark, qrels_rows, run_rows, order)
    got = eks.evaluate(q, r, accepted, registry=registry, partitions=7)
    want = evalkit.evaluate(qrels, run, accepted, registry=registry)
    assert list(got.qids) == list(want.qids) and got.flavours == want.flavours
    np.testing.assert_allclose(got.values, want.values, rtol=0, atol=TOL, equal_nan=True)
    np.testing.assert_allclose(got.means(), want.means(), rtol=0, atol=TOL, equal_nan=True)
    # first_stable at @1 on tied tops: the local engine's value, which is not that of ``first``
    col = want.labels.index("ndcg(run_filter=first_stable)@1")
    assert np.nanmean(want.values[0, col]) != np.nanmean(want.values[0, want.labels.index("ndcg(run_filter=first)@1")])
    spec, error = refused[0]
    with pytest.raises(error):
        eks.evaluate(q, r, [spec], registry=registry)
