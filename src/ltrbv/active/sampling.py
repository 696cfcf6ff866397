"""Labeling costs and the empirical sampling distributions of Corollary 1 (Sawade et al. 2013).

* eq. 16 (one ranking function):  q*(x) ∝ sqrt(E[(L(r(x), y) - R_theta)^2 | x; theta] / lambda(x))
* eq. 17 (two ranking functions): q*(x) ∝ sqrt(E[(delta(x, y) - Delta_theta)^2 | x; theta] / lambda(x))

with R_theta (Delta_theta) the pool mean of E[L | x; theta] (E[delta | x; theta]), p(x) = 1/m.
The four evaluation methods of §5: ``passive`` (q = p, eq. 5), ``active`` (Corollary 1),
``active_uniD`` (a uniform label model p(y|x,z) = 1/|Y|) and ``active_uniC`` (lambda = 1 in q).
"""

from __future__ import annotations

import numpy as np

from .. import exact_math
from .moments import (
    expected_difference,
    expected_measure,
    expected_squared_deviation,
    expected_squared_difference_deviation,
)

METHODS = ("passive", "active", "active_uniD", "active_uniC")


def query_costs(query_offsets: np.ndarray, features: np.ndarray | None = None,
                length_feature: int | None = None) -> np.ndarray:
    """Labeling cost lambda(x) per query, scaled so that the pool's mean cost is 1 (§5).

    With ``length_feature`` (1-based feature number of a document-length feature) each
    document costs ``1 + ln(1 + length)``, logarithmic in its length; otherwise each
    document costs 1, so lambda(x) is proportional to the number of documents |r(x)|.
    """
    sizes = np.diff(query_offsets)
    if length_feature is None:
        per_doc = np.ones(int(query_offsets[-1]))
    else:
        lengths = np.maximum(np.asarray(features[:, int(length_feature) - 1], dtype=np.float64), 0.0)
        per_doc = 1.0 + exact_math.log(1.0 + lengths)  # numpy's log1p takes a CPU-dependent path (AVX-512)
    query = np.repeat(np.arange(sizes.size), sizes)
    costs = np.bincount(query, weights=per_doc, minlength=sizes.size)
    if np.any(costs <= 0):
        raise ValueError("every query needs a positive labeling cost (a query without documents?)")
    return costs / costs.mean()


def _normalise(weights: np.ndarray) -> np.ndarray:
    total = weights.sum()
    if not np.isfinite(total) or total <= 0:
        return np.full(weights.size, 1.0 / weights.size)
    return weights / total


def estimate_distribution(label_probs, ranks, query_offsets, measure: str, costs) -> np.ndarray:
    """Eq. 16: the cost-optimal sampling distribution for estimating R[r]."""
    r_theta = expected_measure(label_probs, ranks, query_offsets, measure).mean()
    deviation = expected_squared_deviation(label_probs, ranks, query_offsets, measure, r_theta)
    return _normalise(np.sqrt(deviation / costs))


def compare_distribution(label_probs, ranks_a, ranks_b, query_offsets, measure: str, costs) -> np.ndarray:
    """Eq. 17: the cost-optimal sampling distribution for estimating R[r_a] - R[r_b]."""
    delta_theta = expected_difference(label_probs, ranks_a, ranks_b, query_offsets, measure).mean()
    deviation = expected_squared_difference_deviation(label_probs, ranks_a, ranks_b, query_offsets, measure,
                                                      delta_theta)
    return _normalise(np.sqrt(deviation / costs))


def method_distribution(method: str, label_probs, rankings, query_offsets, measure: str, costs) -> np.ndarray:
    """The sampling distribution q of one of :data:`METHODS` (eq. 16 for one ranking, eq. 17 for two)."""
    m = query_offsets.size - 1
    if method == "passive":
        return np.full(m, 1.0 / m)
    if method == "active_uniD":
        label_probs = np.full_like(np.asarray(label_probs, dtype=np.float64), 1.0 / label_probs.shape[1])
    elif method == "active_uniC":
        costs = np.ones(m)
    elif method != "active":
        raise ValueError(f"unknown method {method!r}; known: {METHODS}")
    if len(rankings) == 1:
        return estimate_distribution(label_probs, rankings[0], query_offsets, measure, costs)
    return compare_distribution(label_probs, rankings[0], rankings[1], query_offsets, measure, costs)
