"""Progressive strength of individual trees, averaged over trees (Ibrahim & Carman 2016, §6.3, Fig. 7).

Per tree, :func:`ltrbv.forest.diagnostics.strength_curve` gives the mean over
queries of the untruncated expected NDCG of the tree stopped after each node
expansion (breadth-first; index 0 is the root alone, before its split).  Trees
stop growing after different numbers of expansions; as in the paper, a tree
that has terminated keeps contributing its final value to the average
("if a tree terminates earlier than others, then we use the final value").

The table written by the ``tree_strength`` rule has one row per (expansion,
split) with columns ``expansion`` (0 = before the root split, k = after the
k-th expansion), ``split`` (``train`` / ``test``), ``mean_ndcg`` (the mean over
trees) and ``n_trees_active`` (trees that made at least ``expansion``
expansions; the others are carried forward).
"""

from __future__ import annotations

import dataclasses
import logging

import numpy as np
import pandas as pd

from ...data.ranking_data import RankingData
from ...forest.diagnostics import ndcg_setup, strength_curve

COLUMNS = ["expansion", "split", "mean_ndcg", "n_trees_active"]


def truncate_tree(tree, max_expansions: int | None):
    """The tree stopped after its first ``max_expansions`` expansions (in its order of visit), or the tree itself.

    Split nodes after the first ``max_expansions`` become leaves (their score is
    already their samples' expected relevance) and nodes no longer reachable
    are dropped, so a diagnostic of a truncated tree costs what the prefix costs.
    """
    split_nodes = np.flatnonzero(tree.feature >= 0)
    if max_expansions is None or split_nodes.size <= max_expansions:
        return tree
    # the k-th expansion creates nodes 2k + 1 and 2k + 2, so the first k keep a prefix of the node arrays
    kept = split_nodes[np.argsort(tree.visit[split_nodes])][:max_expansions]
    n_keep = int(max(tree.left[kept].max(), tree.right[kept].max())) + 1 if kept.size else 1
    sliced = {f.name: getattr(tree, f.name)[:n_keep].copy() for f in dataclasses.fields(tree)}
    feature = sliced["feature"]
    drop = np.ones(n_keep, dtype=bool)
    drop[kept] = False
    feature[drop & (feature >= 0)] = -1
    return type(tree)(**sliced)


def tree_curves(trees, data: RankingData, max_expansions: int | None = None) -> list[np.ndarray]:
    """The strength curve of each tree on ``data`` (length = its number of expansions, capped, + 1)."""
    setup = ndcg_setup(data)  # the same for every tree
    return [strength_curve(truncate_tree(tree, max_expansions), data, setup) for tree in trees]


def average_curves(curves) -> tuple[np.ndarray, np.ndarray]:
    """Mean over curves of unequal length, each carried forward at its final value; and how many are still growing.

    Returns ``(mean, n_active)``, both of the longest curve's length, where
    ``n_active[e]`` counts the curves with a value of their own at position
    ``e`` (length > e).
    """
    lengths = np.array([len(c) for c in curves], dtype=np.int64)
    if lengths.size == 0 or lengths.min() < 1:
        raise ValueError("need at least one curve, each with at least one value")
    width = int(lengths.max())
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    flat = np.concatenate([np.asarray(c, dtype=np.float64) for c in curves])
    position = np.minimum(np.arange(width)[None, :], lengths[:, None] - 1)  # carry forward past the end
    matrix = flat[starts[:, None] + position]
    n_active = (lengths[:, None] > np.arange(width)[None, :]).sum(axis=0)
    return matrix.mean(axis=0), n_active


def strength_table(train_curves, test_curves) -> pd.DataFrame:
    """The rule's long table: one row per (expansion, split) with the carried-forward mean over trees."""
    parts = []
    for split, curves in (("train", train_curves), ("test", test_curves)):
        mean, active = average_curves(curves)
        parts.append(pd.DataFrame({"expansion": np.arange(mean.size), "split": split, "mean_ndcg": mean,
                                   "n_trees_active": active}))
    return pd.concat(parts, ignore_index=True)[COLUMNS]


def strength_forest(params: dict, n_trees: int, random_state: int, n_threads: int = 1):
    """An unfitted forest of ``n_trees`` trees of a ``random_forest`` learner's parameters, keeping its trees."""
    from ...learners import make_learner

    params = {**params, "n_estimators": int(n_trees), "keep_trees": True}
    return make_learner("random_forest", params, random_state=random_state, n_threads=n_threads)


def progressive_strength(params: dict, train: RankingData, test: RankingData, n_trees: int = 20,
                         random_state: int = 0, n_threads: int = 1, max_expansions: int | None = None,
                         log: logging.Logger | None = None) -> pd.DataFrame:
    """Fig. 7 for one learner: grow ``n_trees`` trees on ``train``; average their strength on train and test.

    Each tree is grown as in the forest (its own query sub-sample of ``train``);
    its training strength is measured on all of ``train``, as the paper does.
    """
    log = log or logging.getLogger("ltrbv")
    forest = strength_forest(params, n_trees, random_state, n_threads).fit(train)
    n_splits = [int(np.count_nonzero(t.feature >= 0)) for t in forest.trees_]
    log.info("grew %d trees: %d..%d expansions (mean %.1f)%s", len(n_splits), min(n_splits), max(n_splits),
             float(np.mean(n_splits)), f"; curves capped at {max_expansions}" if max_expansions else "")
    curves = {}
    for split, data in (("train", train), ("test", test)):
        curves[split] = tree_curves(forest.trees_, data, max_expansions)
        log.info("%s strength after the last expansion: mean over trees %.4f", split,
                 float(np.mean([c[-1] for c in curves[split]])))
    return strength_table(curves["train"], curves["test"])


def read_strength_table(path) -> pd.DataFrame:
    table = pd.read_csv(path)
    missing = set(COLUMNS) - set(table.columns)
    if missing:
        raise ValueError(f"{path}: not a tree-strength table (missing columns {sorted(missing)})")
    return table
