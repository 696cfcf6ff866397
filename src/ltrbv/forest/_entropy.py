"""The entropy criterion (Ibrahim & Carman 2016, Algorithm 3): gain = H(D) - |L|/|D| H(L) - |R|/|D| H(R).

With integer class counts, |S| H(S) = |S| log|S| - sum_c |S_c| log|S_c|, so a
table of k log k makes each step of the boundary scan O(1).
"""

from __future__ import annotations

import numpy as np

from .. import rounded
from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)

LABEL_BITS = 6  # labels 0..63, packed below the sortable value bits
LABEL_MASK = (1 << LABEL_BITS) - 1


def xlogx_table(n: int) -> np.ndarray:
    """k log k for k = 0..n (0 log 0 = 0), log correctly rounded: the same bits on every CPU (ltrbv.rounded;
    numpy's AVX-512 log differs from the C library's on 22 of the integers up to 500,000)."""
    k = np.arange(n + 1)
    out = np.zeros(n + 1)
    out[1:] = k[1:] * rounded.log_of_integers(k[1:])
    return out


@njit(cache=True)
def impurity_sum(class_counts, n, xlogx):
    """|D| H(D)."""
    total = xlogx[n]
    for c in range(class_counts.size):
        total -= xlogx[class_counts[c]]
    return total


@njit(cache=True)
def best_boundary(keys, node_counts, min_leaf, xlogx, left_counts):
    """Best boundary of sorted keys under the entropy criterion.

    Returns (n_left, children_sum) where children_sum = |L| H(L) + |R| H(R);
    n_left = -1 when no boundary is valid (constant values or min_leaf).
    ``left_counts`` is scratch space of size n_classes.
    """
    n = keys.size
    n_classes = node_counts.size
    for c in range(n_classes):
        left_counts[c] = 0
    # sum_c xlogx[count] on each side
    left_terms = 0.0
    right_terms = 0.0
    for c in range(n_classes):
        right_terms += xlogx[node_counts[c]]
    best_left = -1
    best_value = np.inf
    for i in range(n - 1):
        c = keys[i] & LABEL_MASK
        left_terms += xlogx[left_counts[c] + 1] - xlogx[left_counts[c]]
        right_count = node_counts[c] - left_counts[c]
        right_terms += xlogx[right_count - 1] - xlogx[right_count]
        left_counts[c] += 1
        n_left = i + 1
        if (keys[i] >> LABEL_BITS) == (keys[i + 1] >> LABEL_BITS):
            continue
        if n_left < min_leaf or n - n_left < min_leaf:
            continue
        value = xlogx[n_left] - left_terms + xlogx[n - n_left] - right_terms
        if value < best_value:
            best_value = value
            best_left = n_left
    return best_left, best_value


@njit(cache=True)
def counts_children_sum(left_counts, node_counts, n_left, n_right, xlogx):
    """|L| H(L) + |R| H(R) of a boundary from the left child's class counts (the histogram scans), summed afresh:
    equal to ``best_boundary``'s running sums up to rounding."""
    left_terms = 0.0
    right_terms = 0.0
    for c in range(node_counts.size):
        left_terms += xlogx[left_counts[c]]
        right_terms += xlogx[node_counts[c] - left_counts[c]]
    return xlogx[n_left] - left_terms + xlogx[n_right] - right_terms
