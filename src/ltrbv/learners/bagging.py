"""Bagged LambdaMART (BL-MART): query samples, combining sub-model scores, bag-size curves.

Ganjisaffar, Caruana & Lopes (2011), SIGIR, §3.5 and §4:

* every sub-model is trained on a random 67% of the training queries, drawn
  without replacement (§4, "randomly selects 67% of the training queries");
  :func:`sample_queries`;
* the bag's score of a document is the mean over sub-models of the sub-model's
  score min-max normalised within the query: "for each query we linearly scale
  the scores of its corresponding documents such that the document with the
  highest score will have a score of 1.0 and the document with the lowest score
  will have a score of 0" (§3.5.1); :func:`combine_minmax`.  A query whose
  documents a sub-model scores all alike gets 0 for all of them from that
  sub-model (any constant ranks the same);
* Borda count, the alternative the paper tried first (§3.5.1): in each
  sub-model's ranking of a query, the lowest-ranked document gets 0 points, the
  next 1, and so on; a document's bag score is its mean number of points over
  the sub-models (the mean ranks as the total does).  Documents a sub-model ties
  share the mean of the points of the places they occupy;
  :func:`combine_borda`;
* Fig. 4: accuracy of bags of m sub-models drawn at random from a pool, averaged
  over draws; :func:`bag_size_curve`.

Scores here are in row order of a :class:`~ltrbv.data.ranking_data.RankingData`
(queries contiguous, ``query_offsets``); score *files* are in file order
(``RankingData.from_file_order`` / ``to_file_order``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

COMBINERS = ("minmax", "borda")


def sample_queries(n_queries: int, fraction: float, seed: int) -> np.ndarray:
    """``round(fraction * n_queries)`` (at least 1) distinct query numbers, sorted; reproducible from ``seed``."""
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"fraction must be in (0, 1], got {fraction}")
    if n_queries < 1:
        raise ValueError("no queries to sample from")
    size = max(1, min(n_queries, int(round(fraction * n_queries))))
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(n_queries, size=size, replace=False)).astype(np.int64)


def minmax_normalise(scores: np.ndarray, query_offsets: np.ndarray) -> np.ndarray:
    """Per query, ``(s - min) / (max - min)``; 0 where a query's scores are all equal.

    ``scores`` has shape ``(n_docs,)`` or ``(n_models, n_docs)`` (one row per sub-model).
    """
    scores = np.asarray(scores, dtype=np.float64)
    offsets = np.asarray(query_offsets, dtype=np.int64)
    single = scores.ndim == 1
    matrix = np.atleast_2d(scores)
    if matrix.shape[1] != offsets[-1]:
        raise ValueError(f"{matrix.shape[1]} scores for {offsets[-1]} documents")
    sizes = np.diff(offsets)
    starts = offsets[:-1][sizes > 0]
    out = np.zeros_like(matrix)
    if starts.size:
        lo = np.minimum.reduceat(matrix, starts, axis=1)
        hi = np.maximum.reduceat(matrix, starts, axis=1)
        column = np.repeat(np.arange(starts.size), sizes[sizes > 0])  # document -> its query's column
        span = (hi - lo)[:, column]
        np.divide(matrix - lo[:, column], span, out=out, where=span > 0)
    return out[0] if single else out


def combine_minmax(score_matrix: np.ndarray, query_offsets: np.ndarray) -> np.ndarray:
    """BL-MART's combination (§3.5.1): the mean over sub-models of per-query min-max normalised scores."""
    return minmax_normalise(np.atleast_2d(score_matrix), query_offsets).mean(axis=0)


def borda_points(scores: np.ndarray, query_offsets: np.ndarray) -> np.ndarray:
    """Borda points of one sub-model's ranking: per query, the number of documents ranked
    below each document (0 for the lowest); tied documents share the mean of their places' points."""
    scores = np.asarray(scores, dtype=np.float64)
    offsets = np.asarray(query_offsets, dtype=np.int64)
    points = np.empty_like(scores)
    for q in range(offsets.size - 1):
        lo, hi = offsets[q], offsets[q + 1]
        block = scores[lo:hi]
        below = (block[None, :] < block[:, None]).sum(axis=1)
        tied = (block[None, :] == block[:, None]).sum(axis=1) - 1
        points[lo:hi] = below + tied / 2.0
    return points


def combine_borda(score_matrix: np.ndarray, query_offsets: np.ndarray) -> np.ndarray:
    """Borda count over sub-models (§3.5.1): mean Borda points."""
    matrix = np.atleast_2d(np.asarray(score_matrix, dtype=np.float64))
    return np.mean([borda_points(row, query_offsets) for row in matrix], axis=0)


def combine(score_matrix: np.ndarray, query_offsets: np.ndarray, method: str = "minmax") -> np.ndarray:
    if method == "minmax":
        return combine_minmax(score_matrix, query_offsets)
    if method == "borda":
        return combine_borda(score_matrix, query_offsets)
    raise ValueError(f"unknown combination {method!r}; known: {', '.join(COMBINERS)}")


def bag_size_curve(
    score_matrix: np.ndarray,
    labels: np.ndarray,
    query_offsets: np.ndarray,
    sizes: Sequence[int],
    n_draws: int,
    seed: int,
    metric: str = "map",
    convention: str = "letor4",
    method: str = "minmax",
) -> dict[int, np.ndarray]:
    """Fig. 4: for each bag size m, the metric (mean over queries) of ``n_draws`` bags of m
    sub-models drawn without replacement from the pool (rows of ``score_matrix``).

    Returns ``{m: array of n_draws values}``.  For ``minmax`` the per-query
    normalisation of each pool member is done once; a bag is then a mean of rows.
    """
    from ..metrics import evaluate

    pool = np.atleast_2d(np.asarray(score_matrix, dtype=np.float64))
    if method == "minmax":
        parts = minmax_normalise(pool, query_offsets)
    elif method == "borda":
        parts = np.array([borda_points(row, query_offsets) for row in pool])
    else:
        raise ValueError(f"unknown combination {method!r}; known: {', '.join(COMBINERS)}")
    rng = np.random.default_rng(seed)
    out: dict[int, np.ndarray] = {}
    for m in sizes:
        if not 1 <= m <= pool.shape[0]:
            raise ValueError(f"bag size {m} is outside 1..{pool.shape[0]} (the pool)")
        values = np.empty(n_draws)
        for d in range(n_draws):
            members = rng.choice(pool.shape[0], size=m, replace=False)
            bag = parts[members].mean(axis=0)
            values[d] = evaluate(bag, labels, query_offsets, (metric,), convention=convention)[metric].mean()
        out[int(m)] = values
    return out
