"""Percentile bootstrap confidence intervals over test queries.

Test queries are the sampling unit: each of ``n_resamples`` resamples draws
``n_queries`` queries with replacement, encoded as a count matrix
``counts[r, q]`` = how often query q was drawn in resample r.  Every reported
quantity is a ratio of per-query sums, so all resamples of all quantities are
matrix products with the same counts (the intervals of different quantities
come from the same resamples):

* a pointwise quantity (mean over documents): numerator = per-query sum of the
  per-document values, denominator = the query's number of documents;
* a listwise quantity (mean over queries): numerator = the per-query value,
  denominator = 1 for included queries and 0 for excluded ones (their value is
  then ignored), i.e. the mean over the included queries drawn.

The interval is the (1-level)/2 and (1+level)/2 quantiles of the resampled
estimates (Efron & Tibshirani 1993, the percentile interval).
"""

from __future__ import annotations

import numpy as np


def query_resample_counts(n_queries: int, n_resamples: int = 1000, seed=0) -> np.ndarray:
    """int64 (n_resamples, n_queries): draws of each query in each resample with replacement.

    ``seed`` is an int or a ``numpy.random.Generator``; the same seed gives the same counts.
    """
    if n_queries < 1:
        raise ValueError("need at least one query to resample")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    draws = rng.integers(0, n_queries, size=(n_resamples, n_queries))
    cells = draws + n_queries * np.arange(n_resamples)[:, np.newaxis]
    return np.bincount(cells.ravel(), minlength=n_resamples * n_queries).reshape(n_resamples, n_queries)


def resampled_ratio_means(counts: np.ndarray, per_query_sums, per_query_weights=None) -> np.ndarray:
    """``(counts @ sums) / (counts @ weights)`` per resample; nan where a resample has zero
    weight.  ``weights=None`` means 1 per query.  Non-finite sums of zero-weight queries are
    ignored."""
    sums = np.asarray(per_query_sums, dtype=np.float64)
    weights = np.ones_like(sums) if per_query_weights is None else np.asarray(per_query_weights, np.float64)
    if sums.shape != (counts.shape[1],) or weights.shape != sums.shape:
        raise ValueError(f"per-query arrays must have shape ({counts.shape[1]},)")
    sums = np.where(weights > 0, sums, 0.0)
    if counts.dtype != np.float64:  # int64 @ float64 is ~50x slower than a BLAS float64 product
        counts = counts.astype(np.float64)
    numerators = counts @ sums
    denominators = counts @ weights
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominators > 0, numerators / np.where(denominators > 0, denominators, 1.0), np.nan)


def percentile_interval(estimates, level: float = 0.95) -> tuple[float, float]:
    """The central ``level`` percentile interval of the resampled ``estimates`` (nan ignored)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    estimates = np.asarray(estimates, dtype=np.float64)
    if not np.isfinite(estimates).any():
        return float("nan"), float("nan")
    low, high = np.nanquantile(estimates, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    return float(low), float(high)


def query_bootstrap_interval(per_query_sums, per_query_weights=None, counts=None, n_resamples=1000,
                             level=0.95, seed=0) -> tuple[float, float]:
    """Percentile interval of ``sum(sums) / sum(weights)`` under resampling of queries.

    Pass ``counts`` from :func:`query_resample_counts` to share resamples between quantities.
    """
    sums = np.asarray(per_query_sums, dtype=np.float64)
    if counts is None:
        counts = query_resample_counts(sums.size, n_resamples, seed)
    return percentile_interval(resampled_ratio_means(counts, sums, per_query_weights), level)
