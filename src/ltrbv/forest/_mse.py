"""The squared-error criterion (the regression setting of Ibrahim 2021): gain = SSE(D) - SSE(L) - SSE(R)."""

from __future__ import annotations

import numpy as np

from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)
from ._entropy import LABEL_BITS, LABEL_MASK


@njit(cache=True)
def impurity_sum(n, label_sum, label_sq_sum):
    """SSE(D)."""
    return label_sq_sum - label_sum * label_sum / n


@njit(cache=True)
def best_boundary(keys, min_leaf):
    """Best boundary of sorted keys under squared error; returns (n_left, SSE(L) + SSE(R))."""
    n = keys.size
    total = 0.0
    total_sq = 0.0
    for i in range(n):
        y = float(keys[i] & LABEL_MASK)
        total += y
        total_sq += y * y
    left = 0.0
    left_sq = 0.0
    best_left = -1
    best_value = np.inf
    for i in range(n - 1):
        y = float(keys[i] & LABEL_MASK)
        left += y
        left_sq += y * y
        n_left = i + 1
        if (keys[i] >> LABEL_BITS) == (keys[i + 1] >> LABEL_BITS):
            continue
        if n_left < min_leaf or n - n_left < min_leaf:
            continue
        right = total - left
        right_sq = total_sq - left_sq
        value = (left_sq - left * left / n_left) + (right_sq - right * right / (n - n_left))
        if value < best_value:
            best_value = value
            best_left = n_left
    return best_left, best_value


@njit(cache=True)
def counts_children_sum(left_counts, node_counts, n_left, n_right):
    """SSE(L) + SSE(R) of a boundary from the left child's class counts (labels are the class numbers; the histogram
    scans).  The sums are of integers, exact, so the value is ``best_boundary``'s for the same partition."""
    node_sum = 0.0
    node_sq = 0.0
    left = 0.0
    left_sq = 0.0
    for c in range(node_counts.size):
        node_sum += c * node_counts[c]
        node_sq += c * c * node_counts[c]
        left += c * left_counts[c]
        left_sq += c * c * left_counts[c]
    right = node_sum - left
    right_sq = node_sq - left_sq
    return (left_sq - left * left / n_left) + (right_sq - right * right / n_right)
