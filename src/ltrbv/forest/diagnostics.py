"""Tree diagnostics: progressive strength (Ibrahim & Carman 2016, Fig. 7) and leaf statistics (Table XII).

The strength of a tree after k node expansions is the mean over queries of
the (untruncated) expected NDCG of the ranking that the tree, stopped after
its first k expansions in breadth-first order, gives the documents (eq. 11-13:
documents in one leaf, or in leaves with equal scores, are tied).
"""

from __future__ import annotations

import numpy as np

from ..data.ranking_data import RankingData
from ..metrics import evaluate
from ._builder import leaf_of_rows


def node_paths(tree, X: np.ndarray) -> np.ndarray:
    """For every row, the child it takes below each split node it passes (n_rows, n_nodes; -1 = not passed)."""
    n_nodes = tree.feature.size
    child = np.full((X.shape[0], n_nodes), -1, dtype=np.int32)
    node = np.zeros(X.shape[0], dtype=np.int64)
    active = tree.feature[node] >= 0
    rows = np.arange(X.shape[0])
    while active.any():
        r = rows[active]
        n = node[active]
        go_left = X[r, tree.feature[n]] <= tree.threshold[n]
        nxt = np.where(go_left, tree.left[n], tree.right[n])
        child[r, n] = nxt
        node[active] = nxt
        active = tree.feature[node] >= 0
    return child


def strength_curve(tree, data: RankingData) -> np.ndarray:
    """Mean expected NDCG of ``data``'s queries after each expansion (index 0: before the root split)."""
    split_nodes = np.flatnonzero(tree.feature >= 0)  # creation order = breadth-first expansion order
    child = node_paths(tree, data.X)
    scores = np.full(data.n_docs, tree.value[0])
    per_query = _expected_ndcg(scores, data.labels, data.query_offsets)
    curve = [per_query.mean()]
    query_of_row = data.query_index
    for node in split_nodes:
        rows = np.flatnonzero(child[:, node] >= 0)
        if rows.size:
            scores[rows] = tree.value[child[rows, node]]
            queries = np.unique(query_of_row[rows])
            starts = data.query_offsets[queries]
            sizes = data.query_offsets[queries + 1] - starts
            offsets = np.concatenate(([0], np.cumsum(sizes)))
            rows_of_subset = np.repeat(starts - offsets[:-1], sizes) + np.arange(offsets[-1])
            per_query[queries] = _expected_ndcg(scores[rows_of_subset], data.labels[rows_of_subset], offsets)
        curve.append(per_query.mean())
    return np.asarray(curve)


def _expected_ndcg(scores: np.ndarray, labels: np.ndarray, query_offsets: np.ndarray) -> np.ndarray:
    return evaluate(scores, labels, query_offsets, ["ndcg"], convention="standard", ties="expected")["ndcg"]


def leaf_statistics(tree, data: RankingData | None = None) -> dict:
    """Leaf count, sizes and scores of one tree; with ``data``, how many of its rows reach each leaf."""
    leaves = np.flatnonzero(tree.feature < 0)
    out = {"n_leaves": int(leaves.size), "leaf_sizes": tree.n_samples[leaves], "leaf_scores": tree.value[leaves],
           "depth": int(tree.depth.max())}
    if data is not None:
        reached = leaf_of_rows(data.X, tree.feature, tree.threshold, tree.left, tree.right)
        out["rows_per_leaf"] = np.bincount(reached, minlength=tree.feature.size)[leaves]
    return out
