"""`ties="expected"`: the mean over all orders of tied documents (Ibrahim & Carman 2016,
eq. 11-13; McSherry & Najork 2008 for AP; exact ERR), checked against brute force over
every permutation, plus degenerate inputs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltrbv.metrics import evaluate

METRICS = ("ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "ndcg", "dcg@2", "dcg",
           "p@1", "p@3", "p@10", "map", "err@1", "err@3", "err")


def offsets_from_sizes(sizes) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)


def brute_force_expected(scores, labels, offsets, metrics, convention):
    """Mean over every row permutation of each query of the input-order value.

    Under input order, ties are broken by row order; over all n! row orders each order of
    every tie group occurs equally often, so the mean is the expectation over uniformly
    random tie orders.  All permutations of all queries go into one evaluate() call, each
    permutation as its own query.
    """
    perm_scores, perm_labels, perm_sizes, owner = [], [], [], []
    for q in range(offsets.size - 1):
        rows = np.arange(offsets[q], offsets[q + 1])
        for perm in itertools.permutations(rows):
            perm = list(perm)
            perm_scores.extend(scores[perm])
            perm_labels.extend(labels[perm])
            perm_sizes.append(len(perm))
            owner.append(q)
    values = evaluate(np.array(perm_scores), np.array(perm_labels, dtype=np.int64),
                      offsets_from_sizes(perm_sizes), metrics, convention=convention)
    owner = np.array(owner)
    n_queries = offsets.size - 1
    return {name: np.bincount(owner, weights=v, minlength=n_queries) / np.bincount(owner, minlength=n_queries)
            for name, v in values.items()}


@st.composite
def tie_heavy_queries(draw, max_label):
    sizes = draw(st.lists(st.integers(1, 7), min_size=1, max_size=4))
    n = sum(sizes)
    scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n, max_size=n))
    labels = draw(st.lists(st.integers(0, max_label), min_size=n, max_size=n))
    return np.array(scores), np.array(labels), offsets_from_sizes(sizes)


@pytest.mark.parametrize("convention, max_label", [("standard", 4), ("letor4", 2), ("letor4-mslr", 4)])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_expected_ties_equal_mean_over_all_tie_orders(convention, max_label, data):
    scores, labels, offsets = data.draw(tie_heavy_queries(max_label))
    expected = evaluate(scores, labels, offsets, METRICS, convention=convention, ties="expected")
    brute = brute_force_expected(scores, labels, offsets, METRICS, convention)
    for name in METRICS:
        np.testing.assert_allclose(expected[name], brute[name], rtol=1e-10, atol=1e-12, err_msg=name)


def test_expected_ties_differ_from_input_order_when_ties_matter():
    scores = np.array([1.0, 1.0, 0.0])
    labels = np.array([0, 2, 1])
    offsets = np.array([0, 3])
    in_order = evaluate(scores, labels, offsets, METRICS)
    expected = evaluate(scores, labels, offsets, METRICS, ties="expected")
    for name in ("ndcg@1", "p@1", "map", "err@1", "err"):
        assert expected[name][0] > in_order[name][0], name


def test_ibrahim_carman_table_iii_example():
    # Table III: seven documents in three leaves (scores 1.7, 0.9, 0.4); expected gains
    # 4/3 (= mean of 0, 3, 1), 1/2 and 1 at the tied ranks (eq. 13)
    scores = np.array([1.7, 1.7, 1.7, 0.9, 0.9, 0.4, 0.4])
    labels = np.array([0, 2, 1, 1, 0, 1, 1])
    expected_gain_at_rank = [4 / 3] * 3 + [1 / 2] * 2 + [1.0] * 2
    expected_dcg = sum(g / math.log2(r + 1) for r, g in enumerate(expected_gain_at_rank, start=1))
    got = evaluate(scores, labels, np.array([0, 7]), ("dcg", "ndcg"), ties="expected")
    assert got["dcg"][0] == pytest.approx(expected_dcg)
    ideal = 3 + sum(1 / math.log2(r + 1) for r in range(2, 6))
    assert got["ndcg"][0] == pytest.approx(expected_dcg / ideal)  # eq. 11


def test_large_all_tied_query_is_finite_and_matches_closed_forms():
    # one query of 400 tied documents: expected P@10 = relevant share, expected ERR finite
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 5, 400)
    got = evaluate(np.zeros(400), labels, np.array([0, 400]), ("p@10", "err", "err@10", "ndcg", "map"),
                   ties="expected")
    assert got["p@10"][0] == pytest.approx(np.mean(labels >= 1))
    assert np.isfinite(got["err"][0]) and 0 < got["err@10"][0] <= got["err"][0] <= 1
    gains = 2.0**labels - 1
    discounts = 1 / np.log2(np.arange(2, 402))
    ideal = np.sort(gains)[::-1] @ discounts
    assert got["ndcg"][0] == pytest.approx(gains.mean() * discounts.sum() / ideal)


# -- degenerate inputs -----------------------------------------------------------------------

@pytest.mark.parametrize("ties", ["input-order", "expected"])
def test_single_document_queries(ties):
    scores = np.array([0.3, -1.0])
    labels = np.array([2, 0])
    offsets = np.array([0, 1, 2])
    got = evaluate(scores, labels, offsets, ("ndcg@10", "ndcg", "err", "map", "p@1", "p@10"), ties=ties)
    np.testing.assert_allclose(got["ndcg@10"], [1.0, 0.0])
    np.testing.assert_allclose(got["ndcg"], [1.0, 0.0])
    np.testing.assert_allclose(got["err"], [3 / 16, 0.0])
    np.testing.assert_allclose(got["map"], [1.0, 0.0])
    np.testing.assert_allclose(got["p@1"], [1.0, 0.0])
    np.testing.assert_allclose(got["p@10"], [0.1, 0.0])
    letor = evaluate(scores, labels, offsets, ("ndcg@1", "ndcg@10", "ndcg"), convention="letor4", ties=ties)
    np.testing.assert_allclose(letor["ndcg@1"], [1.0, 0.0])
    np.testing.assert_allclose(letor["ndcg@10"], [0.0, 0.0])  # 1 document < 10
    np.testing.assert_allclose(letor["ndcg"], [1.0, 0.0])


def test_all_scores_tied():
    labels = np.array([0, 0, 1, 2])
    scores = np.full(4, 7.0)
    offsets = np.array([0, 4])
    in_order = evaluate(scores, labels, offsets, ("ndcg", "map", "p@2", "err"))
    # input order: ranks follow rows
    assert in_order["p@2"][0] == 0.0
    assert in_order["map"][0] == pytest.approx((1 / 3 + 2 / 4) / 2)
    expected = evaluate(scores, labels, offsets, ("ndcg", "map", "p@2", "err"), ties="expected")
    assert expected["p@2"][0] == pytest.approx(0.5)  # each top-2 slot holds a relevant doc w.p. 2/4
    brute = brute_force_expected(scores, labels, offsets, ("ndcg", "map", "p@2", "err"), "standard")
    for name in brute:
        assert expected[name][0] == pytest.approx(brute[name][0], rel=1e-12)
    # negative zero ties with zero
    signed = evaluate(np.array([0.0, -0.0]), np.array([0, 1]), np.array([0, 2]), ("p@1",))
    assert signed["p@1"][0] == 0.0
