"""Splitters: choose a node's split (feature, threshold) with a criterion or at random.

Every criterion shares one feature loop (``next_feature``): features are
drawn without replacement until K non-constant ones have been scanned (a
feature constant at the node cannot split it and, as in scikit-learn, does not
count towards K); each drawn feature's values at the node are gathered into
the scratch bundle, and the criterion sorts them with its payload
(``sort_keys``: a label for the pointwise criteria, a position for the
listwise ones) and scans the boundaries.  Thresholds are midpoints between
consecutive distinct values, computed as scikit-learn does.

``best_pointwise_split`` asks a pointwise criterion (``_criteria.scan_boundaries``) for
the best boundary of each feature.

``random_split`` is RF-rand's (Ibrahim & Carman 2016, §6.1.1): a random
non-constant feature and a threshold uniform between its minimum and maximum
at the node; labels play no part.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import uint32, int64

from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)
from ._criteria import LABEL_BITS, scan_boundaries
from ._rng import randint, uniform

# per-tree scratch space shared by all splitters
SplitScratch = namedtuple("SplitScratch", "feature_pool counters values keys node_labels left_counts bits buffer")


@njit(cache=True)
def make_scratch(n, n_features, n_classes, samples_dtype_example):
    """Scratch arrays for a tree of n documents (counters: features visited and scanned at this node)."""
    return SplitScratch(
        np.empty(n_features, dtype=np.int64), np.zeros(2, dtype=np.int64), np.empty(n, dtype=np.float32),
        np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.zeros(n_classes, dtype=np.int64),
        np.zeros(1, dtype=np.uint32), np.empty(n, dtype=samples_dtype_example.dtype),
    )


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
def sort_keys(values, payload, shift, keys):
    """keys = sortable_keys(values, payload, shift), sorted: the values in order with their payloads."""
    sortable_keys(values, payload, shift, keys)
    keys.sort()


@njit(cache=True)
def next_feature(Xt, samples, start, end, rng, scratch, max_features):
    """The next candidate feature of this node, its values gathered into scratch.values; -1 when done.

    Call ``start_node(scratch)`` before the node's first call.  Draws features without
    replacement until max_features non-constant ones were returned or all were visited.
    """
    n_features = Xt.shape[0]
    counters = scratch.counters
    values = scratch.values[: end - start]
    while counters[0] < n_features and counters[1] < max_features:
        feature = draw_feature(rng, scratch.feature_pool, counters[0])
        counters[0] += 1
        lo, hi = gather_feature(Xt, feature, samples, start, end, values)
        if lo == hi:
            continue
        counters[1] += 1
        return feature
    return -1


@njit(cache=True)
def start_node(scratch):
    reset_feature_pool(scratch.feature_pool)
    scratch.counters[0] = 0
    scratch.counters[1] = 0


@njit(cache=True)
def best_pointwise_split(Xt, labels, samples, start, end, node_counts, criterion, max_features, min_leaf, xlogx, rng,
                         scratch):
    """Best split of samples[start:end] over K random non-constant features by a pointwise criterion.

    Returns (feature, threshold, children_impurity_sum); feature = -1 if no valid split.
    """
    n = end - start
    node_labels = scratch.node_labels[:n]
    for i in range(n):
        node_labels[i] = labels[samples[start + i]]
    best_feature = -1
    best_threshold = 0.0
    best_value = np.inf
    node_keys = scratch.keys[:n]
    start_node(scratch)
    while True:
        feature = next_feature(Xt, samples, start, end, rng, scratch, max_features)
        if feature < 0:
            break
        sort_keys(scratch.values[:n], node_labels, LABEL_BITS, node_keys)
        n_left, value = scan_boundaries(criterion, node_keys, node_counts, min_leaf, xlogx, scratch.left_counts)
        if n_left > 0 and value < best_value:
            best_value = value
            best_feature = feature
            best_threshold = midpoint_threshold(
                key_value(node_keys[n_left - 1], LABEL_BITS, scratch.bits),
                key_value(node_keys[n_left], LABEL_BITS, scratch.bits),
            )
    return best_feature, best_threshold, best_value


@njit(cache=True)
def random_split(Xt, samples, start, end, rng, scratch):
    """RF-rand: a random non-constant feature, threshold ~ U(min, max) at the node. Returns (feature, threshold)."""
    n_features = Xt.shape[0]
    reset_feature_pool(scratch.feature_pool)
    values = scratch.values[: end - start]
    visited = 0
    while visited < n_features:
        feature = draw_feature(rng, scratch.feature_pool, visited)
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
