"""The tree builder: flat node arrays, grown in the frontier's order, one compiled call per tree.

Nodes are numbered in creation order; the frontier (``_frontier``) picks the
open node to visit next by the tree's ``exploration`` strategy (breadth-first,
the paper's choice, is creation order, a FIFO queue), and ``visit`` records the
order in which nodes were taken (to be split or left as leaves).  A node at
depth < ``listwise_depth`` is split by
the listwise criterion (RF-list: listwise_depth = large; RF-hybrid-L: L;
RF-point: 0); deeper nodes by the pointwise criterion, or at random for
RF-rand.  A node becomes a leaf when it is pure, smaller than
``min_samples_split``, at ``max_depth``, or when no split has positive gain
(unpruned trees, Ibrahim & Carman 2016 §4.1.3).  A leaf's score is the mean
label of its training documents, i.e. the expected relevance
sum_c p(c | leaf) c (eq. 9).

The builder owns the node arrays; the splitters (``_splitter``) own the shared
feature loop and scratch bundle, the criteria their own modules (``_criteria``
is the registry).  A listwise node is split by the one listwise search
(``_listwise``) with the criterion's code, ``TreeConfig.listwise_criterion``
(decoded once by the estimator), and its data (``ListwiseData``, the
criterion's ``prepare``).  While nodes are split listwise, each training
query's score levels are kept current (``_levels.update_levels`` on the
criterion's per-document values) for the next listwise node.

With ``thresholds: hist`` (``TreeConfig.hist``; ``Xt`` holds uint8 bin numbers and ``Xr`` the same
document-major) the tree copies its rows of bins and their labels in the order of ``samples`` and keeps
them so through every partition (``_splitter.partition_rows``), so a node's pointwise histograms
(``_splitter.best_pointwise_hist_split``) and its label sums read the node's rows contiguously rather than
scattered over the data.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)

from ._frontier import node_key, pop, push
from ._criteria import node_impurity_sum
from ._levels import init_levels, make_workspace, update_levels
from ._listwise import best_listwise_split, check_code
from ._splitter import (best_pointwise_hist_split, best_pointwise_split, make_scratch, partition_rows, partition_samples,
                        random_split)

MIN_IMPURITY_DECREASE = 1e-9  # pointwise gains at or below this are rounding noise

# how a tree grows (shared by all trees of a fit)
# (hist: Xt holds bin numbers, ``thresholds: hist``; pointwise splits from histograms, listwise keys by counting sort)
TreeConfig = namedtuple("TreeConfig", "n_classes criterion listwise_depth random_splits max_features "
                                      "min_samples_leaf min_samples_split max_depth n_queries listwise_criterion "
                                      "exploration hist", defaults=(False,))


@njit(cache=True, nogil=True)
def build_tree(Xt, labels, samples, config, xlogx, rng, listwise, Xr=None):
    """Grow one tree on ``samples`` (document indices, grouped by query; permuted in place).

    ``config`` is a TreeConfig, ``listwise`` the listwise criterion's data (``_levels.ListwiseData``; a
    placeholder, ``_levels.unused_data()``, for trees without listwise splits).
    Returns (feature, threshold, left, right, value, n_samples, depth, gain, visit) trimmed to the node
    count; ``gain`` is each split node's impurity decrease (pointwise) or mean increase of the listwise
    objective (expected NDCG or ERR) over the tree's training queries (listwise); ``visit`` is each
    node's place in the order the builder took nodes from the frontier (0: the root), i.e. when it was split
    or found to be a leaf.
    """
    n = samples.size
    n_features = Xt.shape[0]
    n_classes = config.n_classes
    listwise_depth = config.listwise_depth
    random_splits = config.random_splits
    capacity = 2 * n + 1
    feature = np.full(capacity, -1, dtype=np.int32)
    threshold = np.zeros(capacity, dtype=np.float64)
    left = np.full(capacity, -1, dtype=np.int32)
    right = np.full(capacity, -1, dtype=np.int32)
    value = np.zeros(capacity, dtype=np.float64)
    n_samples = np.zeros(capacity, dtype=np.int32)
    depth = np.zeros(capacity, dtype=np.int32)
    gain = np.zeros(capacity, dtype=np.float64)
    visit = np.zeros(capacity, dtype=np.int32)
    frontier_keys = np.zeros(capacity, dtype=np.float64)
    frontier_nodes = np.zeros(capacity, dtype=np.int64)
    node_start = np.zeros(capacity, dtype=np.int64)
    node_end = np.zeros(capacity, dtype=np.int64)

    scratch = make_scratch(n, n_features, n_classes, samples[:1], config.hist)
    class_counts = np.zeros(n_classes, dtype=np.int64)
    use_listwise = listwise_depth > 0 and not random_splits
    if use_listwise:  # slot arrays: at most one slot per query of the tree
        check_code(config.listwise_criterion)
        workspace = make_workspace(n, config.n_queries, listwise.n_tree_queries, listwise)
    else:
        workspace = make_workspace(1, 1, 1, listwise)

    # thresholds: hist (Xr, the bin numbers document-major, given): the tree's rows of bins and labels, kept in the
    # order of samples (partition_rows), so that a node's histograms read its rows contiguously
    hist = False
    Xn = np.empty((1, 1), dtype=np.uint8)
    yn = np.empty(1, dtype=labels.dtype)
    if Xr is not None:  # (pruned at compile time without Xr)
        if config.hist:
            hist = True
            Xn = np.empty((n, Xr.shape[1]), dtype=np.uint8)
            yn = np.empty(n, dtype=labels.dtype)
            for i in range(n):
                Xn[i] = Xr[samples[i]]
                yn[i] = labels[samples[i]]
    row_buffer = np.empty_like(Xn)
    label_buffer = np.empty_like(yn)

    node_start[0] = 0
    node_end[0] = n
    label_sum = 0.0
    for i in range(n):
        label_sum += labels[samples[i]]
    value[0] = label_sum / n
    if use_listwise:
        init_levels(workspace, listwise, samples, value[0])
    n_nodes = 1
    n_visited = 0
    n_open = push(frontier_keys, frontier_nodes, 0, 0, node_key(config.exploration, 0, True, n, value[0]))
    while n_open > 0:
        node, n_open = pop(frontier_keys, frontier_nodes, n_open, config.exploration, rng)
        visit[node] = n_visited
        n_visited += 1
        start = node_start[node]
        end = node_end[node]
        size = end - start
        n_samples[node] = size
        for c in range(n_classes):
            class_counts[c] = 0
        total = 0.0
        total_sq = 0.0
        if hist:
            for i in range(start, end):
                y = yn[i]
                class_counts[y] += 1
                total += y
                total_sq += y * y
        else:
            for i in range(start, end):
                y = labels[samples[i]]
                class_counts[y] += 1
                total += y
                total_sq += y * y
        pure = False
        for c in range(n_classes):
            if class_counts[c] == size:
                pure = True
        if pure or size < config.min_samples_split or depth[node] >= config.max_depth:
            continue
        split_feature = -1
        split_threshold = 0.0
        split_gain = 0.0
        listwise_node = False
        if random_splits:
            split_feature, split_threshold = random_split(Xt, samples, start, end, rng, scratch)
        elif depth[node] < listwise_depth:
            listwise_node = True
            split_feature, split_threshold, change = best_listwise_split(
                Xt, labels, samples, start, end, value[node], config.max_features, config.min_samples_leaf, rng,
                scratch, config.listwise_criterion, listwise, workspace,
            )
            split_gain = change / listwise.n_tree_queries
        else:
            parent = node_impurity_sum(config.criterion, class_counts, size, xlogx, total, total_sq)
            if hist:
                split_feature, split_threshold, children = best_pointwise_hist_split(
                    Xt, Xn, yn, samples, start, end, class_counts, config.criterion, config.max_features,
                    config.min_samples_leaf, xlogx, rng, scratch,
                )
            else:
                split_feature, split_threshold, children = best_pointwise_split(
                    Xt, labels, samples, start, end, class_counts, config.criterion, config.max_features,
                    config.min_samples_leaf, xlogx, rng, scratch,
                )
            split_gain = (parent - children) / size
            if split_feature >= 0 and parent - children <= MIN_IMPURITY_DECREASE * max(parent, 1.0):
                split_feature = -1
        if split_feature < 0:
            continue
        if hist:
            middle = partition_rows(Xn, yn, split_feature, split_threshold, samples, start, end, scratch.buffer,
                                    row_buffer, label_buffer)
        else:
            middle = partition_samples(Xt, split_feature, split_threshold, samples, start, end, scratch.buffer)
        if middle == start or middle == end:  # cannot happen for a valid threshold; stay a leaf
            continue
        feature[node] = split_feature
        threshold[node] = split_threshold
        gain[node] = split_gain
        for child, lo, hi in ((n_nodes, start, middle), (n_nodes + 1, middle, end)):
            node_start[child] = lo
            node_end[child] = hi
            depth[child] = depth[node] + 1
            child_sum = 0.0
            if hist:
                for i in range(lo, hi):
                    child_sum += yn[i]
            else:
                for i in range(lo, hi):
                    child_sum += labels[samples[i]]
            value[child] = child_sum / (hi - lo)
            if listwise_node:
                # later listwise nodes see these documents at their child's score: keep the level lists current
                update_levels(workspace, listwise, samples, lo, hi, value[node], value[child])
        left[node] = n_nodes
        right[node] = n_nodes + 1
        for child in (n_nodes, n_nodes + 1):
            n_open = push(frontier_keys, frontier_nodes, n_open, child,
                          node_key(config.exploration, child, child == n_nodes, node_end[child] - node_start[child],
                                   value[child]))
        n_nodes += 2
    return (
        feature[:n_nodes].copy(), threshold[:n_nodes].copy(), left[:n_nodes].copy(), right[:n_nodes].copy(),
        value[:n_nodes].copy(), n_samples[:n_nodes].copy(), depth[:n_nodes].copy(), gain[:n_nodes].copy(),
        visit[:n_nodes].copy(),
    )


@njit(cache=True, nogil=True)
def predict_tree(X, feature, threshold, left, right, value, out, weight):
    """out[i] += weight * value of the leaf that row i of X reaches."""
    for i in range(X.shape[0]):
        node = 0
        while feature[node] >= 0:
            if X[i, feature[node]] <= threshold[node]:
                node = left[node]
            else:
                node = right[node]
        out[i] += weight * value[node]


@njit(cache=True, nogil=True)
def left_bin_max(Xt, samples, feature, threshold, left, right):
    """Per split node, the largest value of its feature among its training samples that go left (-1 at leaves)."""
    out = np.full(feature.size, -1.0)
    for i in range(samples.size):
        row = samples[i]
        node = 0
        while feature[node] >= 0:
            x = Xt[feature[node], row]
            if x <= threshold[node]:
                if x > out[node]:
                    out[node] = x
                node = left[node]
            else:
                node = right[node]
    return out


@njit(cache=True, nogil=True)
def leaf_of_rows(X, feature, threshold, left, right):
    """The leaf each row of X reaches."""
    out = np.empty(X.shape[0], dtype=np.int32)
    for i in range(X.shape[0]):
        node = 0
        while feature[node] >= 0:
            if X[i, feature[node]] <= threshold[node]:
                node = left[node]
            else:
                node = right[node]
        out[i] = node
    return out
