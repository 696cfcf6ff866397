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
is the registry; the one dispatch on the listwise criterion's code,
``TreeConfig.listwise_criterion``, is in ``build_tree``).  While nodes are
split listwise, each training query's score levels are kept current
(``_listwise.update_levels`` on the criterion's per-document values,
``ListwiseSetup.levels``) for the next listwise node.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)
from . import _err, _listwise
from ._frontier import node_key, pop, push
from ._criteria import ERR, LISTWISE, NDCG, NDCG_PRINTED, node_impurity_sum
from ._splitter import best_pointwise_split, make_scratch, partition_samples, random_split

MIN_IMPURITY_DECREASE = 1e-9  # pointwise gains at or below this are rounding noise

# how a tree grows (shared by all trees of a fit)
TreeConfig = namedtuple("TreeConfig", "n_classes criterion listwise_depth random_splits max_features "
                                      "min_samples_leaf min_samples_split max_depth n_queries listwise_criterion "
                                      "exploration")

# the listwise criteria's shared data: ``levels``, the ``_listwise.ListwiseData`` whose per-document values the
# tree-wide level lists sum, and NDCG's data (``_listwise.prepare``; a placeholder for other criteria)
ListwiseSetup = namedtuple("ListwiseSetup", "levels ndcg")


def listwise_setup(code: int, data=None) -> tuple:
    """build_tree's last two arguments (listwise, err) for ``data``, the ``prepare`` of criterion ``code``.

    ``data=None``: no listwise splits.  ``err`` (ERR's data) is None unless the criterion is ERR:
    numba prunes the branches on ``err is None``, so it compiles the ERR search only for ERR forests.
    """
    if data is None:
        return ListwiseSetup(_listwise.unused_data(), _listwise.unused_data()), None
    if code == NDCG or code == NDCG_PRINTED:  # one search; the data's tie_mean tells the two apart
        return ListwiseSetup(data, data), None
    if code == ERR:
        return ListwiseSetup(data.levels, _listwise.unused_data()), data
    raise ValueError(f"unknown listwise criterion code {code}: one of {sorted(LISTWISE.values())}")


@njit(cache=True, nogil=True)
def build_tree(Xt, labels, samples, config, xlogx, rng, listwise, err=None):
    """Grow one tree on ``samples`` (document indices, grouped by query; permuted in place).

    ``config`` is a TreeConfig, ``listwise`` and ``err`` the listwise criteria's shared data (``listwise_setup``).
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

    scratch = make_scratch(n, n_features, n_classes, samples[:1])
    class_counts = np.zeros(n_classes, dtype=np.int64)
    use_listwise = listwise_depth > 0 and not random_splits
    levels = listwise.levels
    if use_listwise:  # slot arrays: at most one slot per query of the tree
        workspace = _listwise.make_workspace(n, config.n_queries, levels.n_tree_queries)
    else:
        workspace = _listwise.make_workspace(1, 1, 1)
    if err is None:
        err_workspace = None
    else:
        err_workspace = _err.make_workspace(n if use_listwise else 1, levels.n_tree_queries if use_listwise else 1,
                                            err)

    node_start[0] = 0
    node_end[0] = n
    label_sum = 0.0
    for i in range(n):
        label_sum += labels[samples[i]]
    value[0] = label_sum / n
    if use_listwise:
        _listwise.init_levels(workspace, levels, samples, value[0])
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
            # the one dispatch on the listwise criterion (``_criteria.LISTWISE``)
            if config.listwise_criterion == NDCG or config.listwise_criterion == NDCG_PRINTED:
                split_feature, split_threshold, change = _listwise.best_listwise_split(
                    Xt, labels, samples, start, end, value[node], config.max_features, config.min_samples_leaf, rng,
                    scratch, listwise.ndcg, workspace,
                )
            elif config.listwise_criterion == ERR:
                if err is None:
                    raise ValueError("the ERR criterion needs its data (_err.prepare)")
                else:
                    split_feature, split_threshold, change = _err.best_err_split(
                        Xt, labels, samples, start, end, value[node], config.max_features, config.min_samples_leaf,
                        rng, scratch, err, workspace, err_workspace,
                    )
            else:
                raise ValueError("unknown listwise criterion code")
            split_gain = change / levels.n_tree_queries
        else:
            parent = node_impurity_sum(config.criterion, class_counts, size, xlogx, total, total_sq)
            split_feature, split_threshold, children = best_pointwise_split(
                Xt, labels, samples, start, end, class_counts, config.criterion, config.max_features,
                config.min_samples_leaf, xlogx, rng, scratch,
            )
            split_gain = (parent - children) / size
            if split_feature >= 0 and parent - children <= MIN_IMPURITY_DECREASE * max(parent, 1.0):
                split_feature = -1
        if split_feature < 0:
            continue
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
            for i in range(lo, hi):
                child_sum += labels[samples[i]]
            value[child] = child_sum / (hi - lo)
            if listwise_node:
                # later listwise nodes see these documents at their child's score: keep the level lists current
                _listwise.update_levels(workspace, levels, samples, lo, hi, value[node], value[child])
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
