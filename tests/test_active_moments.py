"""The dynamic programmes of ltrbv.active.moments against enumeration of all label vectors (eq. 18)."""

import itertools

import numpy as np
import pytest

from ltrbv.active.moments import (
    expected_difference,
    expected_measure,
    expected_squared_deviation,
    expected_squared_difference_deviation,
    true_measure,
)
from ltrbv.active.rankings import drop_documents, ranks_from_scores


def _dcg(labels_in_rank_order):
    y = np.asarray(labels_in_rank_order, dtype=float)
    return float(np.sum((2.0 ** y - 1.0) / np.log2(np.arange(2, y.size + 2))))


def _err(labels_in_rank_order, y_max):
    total, stay = 0.0, 1.0
    for i, y in enumerate(labels_in_rank_order, start=1):
        r = (2.0 ** y - 1.0) / 2.0 ** y_max
        total += stay * r / i
        stay *= 1.0 - r
    return total


def _measure(measure, labels, ranks, n_labels):
    """Eq. 1 / eq. 2 straight from the definition for one query."""
    present = np.flatnonzero(ranks > 0)
    in_order = labels[present[np.argsort(ranks[present])]]
    return _dcg(in_order) if measure == "dcg" else _err(in_order, n_labels - 1)


def _enumerate(probs, function):
    """sum over all label vectors y of function(y) * prod_z p(y_z) (eq. 18)."""
    n, k = probs.shape
    total = 0.0
    for labels in itertools.product(range(k), repeat=n):
        labels = np.array(labels)
        total += function(labels) * float(np.prod(probs[np.arange(n), labels]))
    return total


def _random_query(rng, n_docs, n_labels, drop):
    probs = rng.dirichlet(np.full(n_labels, 0.7), size=n_docs)
    offsets = np.array([0, n_docs])
    ranks_a = ranks_from_scores(rng.normal(size=n_docs), offsets)
    ranks_b = ranks_from_scores(rng.normal(size=n_docs), offsets)
    if drop and n_docs > 1:
        ranks_b = drop_documents(ranks_b, offsets, 0.34, rng)
    return probs, offsets, ranks_a, ranks_b


CASES = [(n, k, drop) for n in range(1, 7) for k in (2, 3) for drop in (False, True)]


@pytest.mark.parametrize("measure", ["dcg", "err"])
@pytest.mark.parametrize("n_docs,n_labels,drop", CASES)
def test_estimate_moments_equal_enumeration(measure, n_docs, n_labels, drop):
    rng = np.random.default_rng(1000 * n_docs + 10 * n_labels + drop)
    probs, offsets, ranks, _ = _random_query(rng, n_docs, n_labels, drop)
    if drop and n_docs > 1:
        ranks = drop_documents(ranks, offsets, 0.34, rng)
    center = rng.uniform(0, 2)
    loss = lambda y: _measure(measure, y, ranks, n_labels)  # noqa: E731
    mean = _enumerate(probs, loss)
    dev = _enumerate(probs, lambda y: (loss(y) - center) ** 2)
    assert expected_measure(probs, ranks, offsets, measure)[0] == pytest.approx(mean, abs=1e-10)
    assert expected_squared_deviation(probs, ranks, offsets, measure, center)[0] == pytest.approx(dev, abs=1e-10)


@pytest.mark.parametrize("measure", ["dcg", "err"])
@pytest.mark.parametrize("n_docs,n_labels,drop", CASES)
def test_compare_moments_equal_enumeration(measure, n_docs, n_labels, drop):
    rng = np.random.default_rng(7 + 1000 * n_docs + 10 * n_labels + drop)
    probs, offsets, ranks_a, ranks_b = _random_query(rng, n_docs, n_labels, drop)
    center = rng.uniform(-0.5, 0.5)
    delta = lambda y: _measure(measure, y, ranks_a, n_labels) - _measure(measure, y, ranks_b, n_labels)  # noqa: E731
    mean = _enumerate(probs, delta)
    dev = _enumerate(probs, lambda y: (delta(y) - center) ** 2)
    got_mean = expected_difference(probs, ranks_a, ranks_b, offsets, measure)[0]
    got_dev = expected_squared_difference_deviation(probs, ranks_a, ranks_b, offsets, measure, center)[0]
    assert got_mean == pytest.approx(mean, abs=1e-10)
    assert got_dev == pytest.approx(dev, abs=1e-10)


@pytest.mark.parametrize("measure", ["dcg", "err"])
def test_many_queries_at_once_equal_one_at_a_time(measure):
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 9, size=40)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    probs = rng.dirichlet(np.ones(3), size=offsets[-1])
    ranks_a = ranks_from_scores(rng.normal(size=offsets[-1]), offsets)
    ranks_b = drop_documents(ranks_from_scores(rng.normal(size=offsets[-1]), offsets), offsets, 0.1, rng)
    pooled = expected_squared_difference_deviation(probs, ranks_a, ranks_b, offsets, measure, 0.1)
    for q in range(sizes.size):
        s, e = offsets[q], offsets[q + 1]
        single = expected_squared_difference_deviation(probs[s:e], ranks_a[s:e], ranks_b[s:e],
                                                       np.array([0, e - s]), measure, 0.1)
        assert pooled[q] == pytest.approx(single[0], abs=1e-12)


@pytest.mark.parametrize("measure", ["dcg", "err"])
def test_true_measure_matches_definition(measure):
    rng = np.random.default_rng(11)
    offsets = np.array([0, 5, 12])
    labels = rng.integers(0, 3, size=12)
    ranks = ranks_from_scores(rng.normal(size=12), offsets)
    got = true_measure(labels, ranks, offsets, measure, 3)
    for q in range(2):
        s, e = offsets[q], offsets[q + 1]
        assert got[q] == pytest.approx(_measure(measure, labels[s:e], ranks[s:e], 3), abs=1e-12)


def test_ranks_and_dropping():
    offsets = np.array([0, 3, 13])
    ranks = ranks_from_scores(np.array([0.1, 0.9, 0.1, *np.arange(10.0)]), offsets)
    assert ranks[:3].tolist() == [2, 1, 3]  # ties keep row order
    assert ranks[3:].tolist() == list(range(10, 0, -1))
    dropped = drop_documents(ranks, offsets, 0.1, np.random.default_rng(0))
    assert (dropped[:3] == 0).sum() == 1 and (dropped[3:] == 0).sum() == 1
    kept = dropped[3:][dropped[3:] > 0]
    assert sorted(kept.tolist()) == list(range(1, 10))
    # relative order kept
    assert np.all(np.diff(dropped[3:][dropped[3:] > 0]) < 0)
