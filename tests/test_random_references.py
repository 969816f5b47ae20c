"""Presets whose reference breaks ties at random: each reproduces the EXPECTED value
over the orders of tied documents (``ties=average``), not one run of the library.

TF-Ranking (``sort_by_scores(..., shuffle_ties=True)``), pytorchltr (random tie break in
``rank_by_score``), allRank (``y_pred.sort``, not stable) and TorchRec (``torch.sort``,
not stable) give a different number from run to run on tied scores; the presets'
descriptions and docs/flavours.md say they report the expectation. TF-Ranking does not
install here (TensorFlow); allRank 1.4.3 (in its own environment), pytorchltr
0.2.1 (its sdist's pure-Python package) and TorchRec 1.8.0 are run by the conformance
suite, averaged over item orders or seeds (tests/conformance). The oracle here is
exhaustive: every order of the tied documents
consistent with the scores (itertools.permutations within each tie block), each
order's NDCG computed from the library's formula written below from its cited source
lines, and the plain mean over the orders. Lists stay small (<= 7 documents, at most
5040 orders) so the enumeration is complete.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import evalkit.arrays as ea


def exp2(label):
    return 2.0**label - 1


def linear(label):
    return float(label)


def log2_discount(rank):  # rank from 1: 1 / log2(rank + 1) (tfr: log(2) / log1p(rank))
    return 1.0 / math.log2(rank + 1)


def _ndcg(labels, gain, k, idcg_zero):
    """NDCG@k of ``labels`` in ranked order, ideal = the list's own labels sorted, cut at
    k (k None or beyond the list: the whole list); ``idcg_zero`` when IDCG is 0."""
    n = len(labels) if k is None else min(k, len(labels))
    dcg = sum(gain(labels[i]) * log2_discount(i + 1) for i in range(n))
    best = sorted(labels, reverse=True)
    idcg = sum(gain(best[i]) * log2_discount(i + 1) for i in range(n))
    return dcg / idcg if idcg > 0 else idcg_zero


# preset -> (gain, value when IDCG = 0, per-query transform, tolerance, source of the formula)
REFERENCES = {
    # tensorflow_ranking/python/metrics_impl.py NDCGMetric (_DEFAULT_GAIN_FN 2^l - 1,
    # _DEFAULT_RANK_DISCOUNT_FN log(2)/log1p(r)); divide_no_nan: IDCG 0 -> 0
    "tfr.ndcg": (exp2, 0.0, lambda v: v, 1e-12),
    # pytorchltr/evaluation/dcg.py:36-38 (idcg 0 set to 1 -> NDCG 0), :91-93 (2^y - 1 or y)
    "pytorchltr.ndcg": (exp2, 0.0, lambda v: v, 1e-12),
    "pytorchltr.ndcg_linear": (linear, 0.0, lambda v: v, 1e-12),
    # allrank/models/metrics.py:7-8 (2^x - 1), :21-24 (idcg == 0 -> filler_value 1.0)
    "allrank.ndcg": (exp2, 1.0, lambda v: v, 1e-12),
    # torchrec/metrics/ndcg.py: 1 - NDCG (report_ndcg_as_decreasing_curve), IDCG clamped to
    # 1e-6 (NDCG 0, reported 1), float32 discounts -> agreement to float32 precision
    "torchrec.ndcg": (linear, 0.0, lambda v: 1.0 - v, 1e-6),
    "torchrec.ndcg_exp": (exp2, 0.0, lambda v: 1.0 - v, 1e-6),
}


def expected_over_tie_orders(labels, scores, gain, k, idcg_zero, transform):
    """Mean over every order consistent with ``scores`` (descending; tied documents in
    any order) of ``transform(NDCG@k)``; also returns the number of orders."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    blocks = [list(g) for _, g in itertools.groupby(order, key=lambda i: scores[i])]
    values = [transform(_ndcg([labels[i] for block in perm for i in block], gain, k, idcg_zero))
              for perm in itertools.product(*(itertools.permutations(b) for b in blocks))]
    return float(np.mean(values)), len(values)


def _lists(seed, n_lists=60):
    """Small lists with heavy ties (1 to 3 score levels), grades 0..4, a few all-zero lists."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_lists):
        n = int(rng.integers(1, 8))
        labels = rng.integers(0, 5, n).astype(float)
        if i % 10 == 0:
            labels[:] = 0  # IDCG = 0: each library's own convention
        scores = rng.integers(0, int(rng.integers(1, 4)), n).astype(float) / 3
        out.append((labels, scores))
    return out


@pytest.mark.parametrize("preset", sorted(REFERENCES))
@pytest.mark.parametrize("k", [None, 1, 2, 3, 5, 10])
def test_random_tie_presets_equal_the_exhaustive_expectation(preset, k):
    gain, idcg_zero, transform, tol = REFERENCES[preset]
    lists = _lists(seed=len(preset) * 31 + (k or 0))
    width = max(len(y) for y, _ in lists)
    y_true = np.full((len(lists), width), np.nan)
    y_score = np.full((len(lists), width), np.nan)
    want, orders = [], []
    for i, (labels, scores) in enumerate(lists):
        y_true[i, : len(labels)] = labels
        y_score[i, : len(scores)] = scores
        value, n_orders = expected_over_tie_orders(list(labels), list(scores), gain, k, idcg_zero, transform)
        want.append(value)
        orders.append(n_orders)
    assert max(orders) >= 120  # tie blocks of 5+ documents are enumerated
    got = ea.score(y_true, y_score, k=k, flavour=preset)
    assert got.shape == (len(lists),)
    np.testing.assert_allclose(got, want, rtol=0, atol=tol, err_msg=preset)


def test_one_tie_order_is_not_the_expectation():
    """The expectation differs from what any single order gives when ties straddle the
    relevant documents: a preset claiming one library run would be wrong on such lists."""
    labels, scores = [3.0, 0.0, 1.0], [0.5, 0.5, 0.5]
    got = ea.score([labels], [scores], flavour="tfr.ndcg")[0]
    singles = {round(_ndcg([labels[i] for i in p], exp2, None, 0.0), 12) for p in itertools.permutations(range(3))}
    assert len(singles) > 1 and all(abs(got - s) > 1e-3 for s in singles)
    want, n = expected_over_tie_orders(labels, scores, exp2, None, 0.0, lambda v: v)
    assert n == 6 and got == pytest.approx(want, abs=1e-12)
