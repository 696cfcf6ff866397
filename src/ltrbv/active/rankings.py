"""Ranking functions as per-document ranks: sort each query's documents by a score.

A ranking r(x) is stored as an int array over the pool's documents: the 1-based rank of
each document within its query, or 0 for a document the ranking does not return (the
simulated index update of Sawade et al. 2013, §5.2, drops 10% of every result list).
"""

from __future__ import annotations

import numpy as np

from ..metrics.ranking import descending_order_within_queries


def ranks_from_scores(scores: np.ndarray, query_offsets: np.ndarray) -> np.ndarray:
    """1-based rank of every document within its query by descending score (ties: row order)."""
    scores = np.asarray(scores, dtype=np.float64)
    order = descending_order_within_queries(scores, query_offsets)
    sizes = np.diff(query_offsets)
    ranks = np.empty(scores.size, dtype=np.int64)
    ranks[order] = np.arange(scores.size, dtype=np.int64) - np.repeat(query_offsets[:-1], sizes) + 1
    return ranks


def drop_documents(ranks: np.ndarray, query_offsets: np.ndarray, fraction: float,
                   rng: np.random.Generator) -> np.ndarray:
    """Remove round(fraction * n) random documents (at least one, never all) from each query's list.

    The remaining documents keep their relative order and are re-ranked 1..n_kept
    (the outdated index of §5.2).
    """
    sizes = np.diff(query_offsets)
    query = np.repeat(np.arange(sizes.size), sizes)
    n_drop = np.clip(np.rint(fraction * sizes).astype(np.int64), 1, np.maximum(sizes - 1, 0))
    # a random key per document; the n_drop smallest keys of each query are dropped
    key = rng.random(ranks.size)
    key_rank = ranks_from_scores(-key, query_offsets)  # 1 = smallest key
    kept = key_rank > n_drop[query]
    kept_rank = np.where(kept, ranks, 0)
    # re-rank the kept documents within each query, preserving order
    score = np.where(kept, -kept_rank.astype(np.float64), -np.inf)
    new_ranks = ranks_from_scores(score, query_offsets)
    return np.where(kept, new_ranks, 0)
