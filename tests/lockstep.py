"""Walking one of our trees and one scikit-learn tree in lock-step (tests/test_forest_point.py,
tests/test_sklearn_lockstep.py): where they split alike, and whether a divergence is a tie of entropy gains."""

from __future__ import annotations

from collections import deque

import numpy as np


def entropy(y: np.ndarray) -> float:
    p = np.bincount(y) / y.size
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def entropy_gain(X, y, rows, feature, threshold) -> float:
    left = X[rows, feature] <= threshold
    return entropy(y[rows]) - left.mean() * entropy(y[rows][left]) - (1 - left.mean()) * entropy(y[rows][~left])


def lockstep(ours, theirs, X, y):
    """Walk both trees breadth-first; return (matching split nodes, tied divergences, untied divergences)."""
    same = ties = other = 0
    queue = deque([(0, 0, np.arange(X.shape[0]))])
    while queue:
        a, b, rows = queue.popleft()
        fa, fb = ours.feature[a], theirs.feature[b]
        if fa < 0 or fb < 0:
            if (fa < 0) != (fb < 0):
                other += 1
            continue
        if fa == fb and abs(ours.threshold[a] - theirs.threshold[b]) < 1e-6:
            same += 1
            go_left = X[rows, fa] <= ours.threshold[a]
            queue.append((ours.left[a], theirs.children_left[b], rows[go_left]))
            queue.append((ours.right[a], theirs.children_right[b], rows[~go_left]))
            continue
        if abs(entropy_gain(X, y, rows, fa, ours.threshold[a]) - entropy_gain(X, y, rows, fb, theirs.threshold[b])) < 1e-12:
            ties += 1
        else:
            other += 1
    return same, ties, other
