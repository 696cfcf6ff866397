"""Splitters: choose a node's split (feature, threshold) with a criterion or at random.

``best_pointwise_split`` draws features without replacement until K
non-constant ones have been scanned (a feature constant at the node cannot
split it and, as in scikit-learn, does not count towards K), sorts each
feature's values at the node together with the labels, and asks the criterion
for the best boundary.  Thresholds are midpoints between consecutive distinct
values, computed as scikit-learn does.

``random_split`` is RF-rand's (Ibrahim & Carman 2016, §6.1.1): a random
non-constant feature and a threshold uniform between its minimum and maximum
at the node; labels play no part.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint32, int64

from ._criteria import ENTROPY, LABEL_BITS, best_boundary_entropy, best_boundary_mse
from ._rng import randint, uniform


@njit(cache=True)
def sortable_keys(values, payload, shift, keys):
    """keys[i] = order-preserving unsigned bits of float32 values[i] << shift | payload[i].

    Sorting the int64 keys sorts by value and carries the payload (a label or
    a position) along, in one cheap integer sort.
    """
    bits = values.view(np.uint32)
    for i in range(values.size):
        b = bits[i]
        if b & uint32(0x80000000):
            b = ~b
        else:
            b = b | uint32(0x80000000)
        keys[i] = (int64(b) << shift) | payload[i]


@njit(cache=True)
def key_value(key, shift, scratch_bits):
    """Invert sortable_keys for one key: the float32 value."""
    b = uint32(key >> shift)
    if b & uint32(0x80000000):
        b = b & uint32(0x7FFFFFFF)
    else:
        b = ~b
    scratch_bits[0] = b
    return scratch_bits.view(np.float32)[0]


@njit(cache=True)
def reset_feature_pool(feature_pool):
    for j in range(feature_pool.size):
        feature_pool[j] = j


@njit(cache=True)
def draw_feature(rng, feature_pool, visited):
    """One Fisher-Yates step: a feature not yet drawn at this node (features 0..visited-1 are drawn)."""
    r = visited + randint(rng, feature_pool.size - visited)
    feature = feature_pool[r]
    feature_pool[r] = feature_pool[visited]
    feature_pool[visited] = feature
    return feature


@njit(cache=True)
def midpoint_threshold(low, high):
    """scikit-learn's threshold between two consecutive distinct float32 values."""
    threshold = np.float64(low) / 2.0 + np.float64(high) / 2.0
    if threshold == high or threshold == np.inf or threshold == -np.inf:
        threshold = np.float64(low)
    return threshold


@njit(cache=True)
def gather_feature(Xt, feature, samples, start, end, values):
    """values[i] = X[samples[start + i], feature] (+0.0 folds -0.0 into 0.0); returns (min, max)."""
    lo = np.inf
    hi = -np.inf
    zero = np.float32(0.0)
    for i in range(end - start):
        v = Xt[feature, samples[start + i]] + zero
        values[i] = v
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    return lo, hi


@njit(cache=True)
def best_pointwise_split(
    Xt, labels, samples, start, end, node_counts, criterion, max_features, min_leaf, xlogx, rng,
    feature_pool, values, node_labels, keys, left_counts, scratch_bits,
):
    """Best split of samples[start:end] over K random non-constant features.

    Returns (feature, threshold, children_impurity_sum); feature = -1 if no valid split.
    """
    n = end - start
    n_features = Xt.shape[0]
    reset_feature_pool(feature_pool)
    for i in range(n):
        node_labels[i] = labels[samples[start + i]]
    best_feature = -1
    best_threshold = 0.0
    best_value = np.inf
    visited = 0
    scanned = 0
    node_keys = keys[:n]
    node_values = values[:n]
    while visited < n_features and scanned < max_features:
        feature = draw_feature(rng, feature_pool, visited)
        visited += 1
        lo, hi = gather_feature(Xt, feature, samples, start, end, node_values)
        if lo == hi:
            continue
        scanned += 1
        sortable_keys(node_values, node_labels[:n], LABEL_BITS, node_keys)
        node_keys.sort()
        if criterion == ENTROPY:
            n_left, value = best_boundary_entropy(node_keys, node_counts, min_leaf, xlogx, left_counts)
        else:
            n_left, value = best_boundary_mse(node_keys, min_leaf)
        if n_left > 0 and value < best_value:
            best_value = value
            best_feature = feature
            best_threshold = midpoint_threshold(
                key_value(node_keys[n_left - 1], LABEL_BITS, scratch_bits),
                key_value(node_keys[n_left], LABEL_BITS, scratch_bits),
            )
    return best_feature, best_threshold, best_value


@njit(cache=True)
def random_split(Xt, samples, start, end, rng, feature_pool, values):
    """RF-rand: a random non-constant feature, threshold ~ U(min, max) at the node. Returns (feature, threshold)."""
    n_features = Xt.shape[0]
    reset_feature_pool(feature_pool)
    visited = 0
    while visited < n_features:
        feature = draw_feature(rng, feature_pool, visited)
        visited += 1
        lo, hi = gather_feature(Xt, feature, samples, start, end, values)
        if lo == hi:
            continue
        threshold = np.float64(lo) + uniform(rng) * (np.float64(hi) - np.float64(lo))
        if threshold >= hi:
            threshold = np.float64(lo)
        return feature, threshold
    return -1, 0.0


@njit(cache=True)
def partition_samples(Xt, feature, threshold, samples, start, end, buffer):
    """Stable partition of samples[start:end]: x <= threshold first. Returns the first right index."""
    n_left = 0
    n_right = 0
    for i in range(start, end):
        s = samples[i]
        if Xt[feature, s] <= threshold:
            samples[start + n_left] = s
            n_left += 1
        else:
            buffer[n_right] = s
            n_right += 1
    for i in range(n_right):
        samples[start + n_left + i] = buffer[i]
    return start + n_left
