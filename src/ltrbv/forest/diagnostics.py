"""Tree diagnostics: progressive strength (Ibrahim & Carman 2016, Fig. 7) and leaf statistics (Table XII).

The strength of a tree after k node expansions is the mean over queries of
the (untruncated) expected NDCG of the ranking that the tree, stopped after
its first k expansions in the order it made them (breadth-first unless its
forest's ``exploration`` says otherwise), gives the documents (eq. 11-13:
documents in one leaf, or in leaves with equal scores, are tied).
"""

from __future__ import annotations

import sys

import numpy as np

from .. import rounded
from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)
from ..compile_lock import first_call
from ..data.ranking_data import RankingData
from ._builder import leaf_of_rows
from ._ndcg import cumulative_discounts, ideal_dcg


def strength_curve(tree, data: RankingData, setup: tuple | None = None) -> np.ndarray:
    """Mean expected NDCG of ``data``'s queries after each expansion (index 0: before the root split).

    One compiled pass per tree (:func:`_strength_kernel`): each expansion re-scores only the queries with
    a document in the split node.  The NDCG is the metrics module's ``ndcg`` under the ``standard``
    convention with ``ties="expected"`` (gain 2**l - 1, discount 1/log2(r + 1), untruncated, 0 for a query
    without a relevant document); ``tests/test_tree_strength.py`` checks the curve against
    :func:`ltrbv.metrics.evaluate` after every expansion.  ``setup``: :func:`ndcg_setup` of ``data``, when
    the caller scores many trees on the same data.
    """
    gain, ideal, cumulative_discount = setup if setup is not None else ndcg_setup(data)
    split_nodes = np.flatnonzero(tree.feature >= 0)
    split_nodes = split_nodes[np.argsort(tree.visit[split_nodes])]  # in the order the builder expanded them
    with first_call(sys.modules[__name__], _strength_kernel):  # a fresh checkout compiles the kernels once
        node_start, rows, children = _rows_below_nodes(data.X, tree.feature, tree.threshold, tree.left, tree.right)
        return _strength_kernel(split_nodes.astype(np.int64), node_start, rows, children,
                                tree.value.astype(np.float64), gain, data.query_offsets.astype(np.int64),
                                data.query_index.astype(np.int64), ideal, cumulative_discount)


def ndcg_setup(data: RankingData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gains, ideal DCG per query, cumulative log2 discounts) of ``data``: RF-list's own set-up
    (:mod:`._ndcg`), untruncated, the same for every tree."""
    gain = rounded.exp2_of_integers(data.labels) - 1.0
    cumulative_discount = cumulative_discounts(int(data.query_sizes.max()) if data.n_queries else 0, "log2")
    return gain, ideal_dcg(gain, data.query_offsets, cumulative_discount), cumulative_discount


@njit(cache=True, nogil=True)
def _rows_below_nodes(X, feature, threshold, left, right):
    """For each split node, the rows that pass it and the child each takes, as CSR arrays
    (``rows[node_start[n]:node_start[n + 1]]``, ascending, and ``children`` alongside)."""
    n_nodes = feature.size
    counts = np.zeros(n_nodes + 1, dtype=np.int64)
    for row in range(X.shape[0]):
        node = 0
        while feature[node] >= 0:
            counts[node + 1] += 1
            node = left[node] if X[row, feature[node]] <= threshold[node] else right[node]
    node_start = np.cumsum(counts)
    rows = np.empty(node_start[-1], dtype=np.int64)
    children = np.empty(node_start[-1], dtype=np.int64)
    filled = node_start[:-1].copy()
    for row in range(X.shape[0]):
        node = 0
        while feature[node] >= 0:
            nxt = left[node] if X[row, feature[node]] <= threshold[node] else right[node]
            rows[filled[node]] = row
            children[filled[node]] = nxt
            filled[node] += 1
            node = nxt
    return node_start, rows, children


@njit(cache=True, nogil=True)
def _expected_ndcg_of_query(scores, gain, start, stop, ideal_dcg, cumulative_discount, order_buffer):
    """Expected NDCG of one query (documents start..stop-1): a tie group's documents share its ranks' mean discount."""
    n = stop - start
    if ideal_dcg <= 0.0:
        return 0.0  # the standard convention's value for a query without a relevant document
    order = _order_descending(scores, start, n, order_buffer)
    dcg = 0.0
    first = 0
    while first < n:
        last = first
        group_gain = 0.0
        value = scores[order[first]]
        while last < n and scores[order[last]] == value:
            group_gain += gain[order[last]]
            last += 1
        dcg += group_gain * (cumulative_discount[last] - cumulative_discount[first]) / (last - first)
        first = last
    return dcg / ideal_dcg


@njit(cache=True, nogil=True)
def _order_descending(scores, start, n, buffer):
    """Rows start..start+n-1 by descending score: a bottom-up merge sort in ``buffer[:n]`` (scratch ``buffer[n:2n]``).

    Written out rather than ``np.argsort``: numba's sorts cost seconds to compile, this loop a fraction."""
    order = buffer[:n]
    scratch = buffer[n:2 * n]
    for i in range(n):
        order[i] = start + i
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if scores[order[j]] > scores[order[i]]:
                    scratch[k] = order[j]
                    j += 1
                else:
                    scratch[k] = order[i]
                    i += 1
                k += 1
            while i < mid:
                scratch[k] = order[i]
                i += 1
                k += 1
            while j < hi:
                scratch[k] = order[j]
                j += 1
                k += 1
        for i in range(n):
            order[i] = scratch[i]
        width *= 2
    return order


@njit(cache=True, nogil=True)
def _strength_kernel(split_nodes, node_start, rows, children, value, gain, query_offsets, query_of_row, ideal,
                     cumulative_discount):
    """The curve of one tree, re-scoring after each expansion the rows that pass the split node."""
    n_queries = query_offsets.size - 1
    n_rows = query_of_row.size
    scores = np.full(n_rows, value[0])
    order_buffer = np.empty(2 * cumulative_discount.size, dtype=np.int64)
    per_query = np.empty(n_queries)
    for q in range(n_queries):
        per_query[q] = _expected_ndcg_of_query(scores, gain, query_offsets[q], query_offsets[q + 1], ideal[q],
                                               cumulative_discount, order_buffer)
    curve = np.empty(split_nodes.size + 1)
    curve[0] = per_query.mean() if n_queries else np.nan
    stamp = np.full(n_queries, -1, dtype=np.int64)
    for step in range(split_nodes.size):
        node = split_nodes[step]
        for i in range(node_start[node], node_start[node + 1]):
            scores[rows[i]] = value[children[i]]
            stamp[query_of_row[rows[i]]] = step
        for q in range(n_queries):
            if stamp[q] == step:
                per_query[q] = _expected_ndcg_of_query(scores, gain, query_offsets[q], query_offsets[q + 1], ideal[q],
                                                       cumulative_discount, order_buffer)
        curve[step + 1] = per_query.mean() if n_queries else np.nan
    return curve


def leaf_statistics(tree, data: RankingData | None = None) -> dict:
    """Leaf count, sizes and scores of one tree; with ``data``, how many of its rows reach each leaf."""
    leaves = np.flatnonzero(tree.feature < 0)
    out = {"n_leaves": int(leaves.size), "leaf_sizes": tree.n_samples[leaves], "leaf_scores": tree.value[leaves],
           "depth": int(tree.depth.max())}
    if data is not None:
        reached = leaf_of_rows(data.X, tree.feature, tree.threshold, tree.left, tree.right)
        out["rows_per_leaf"] = np.bincount(reached, minlength=tree.feature.size)[leaves]
    return out
