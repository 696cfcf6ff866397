"""Feature binning of ``thresholds: hist``: each feature's cuts and its values' bin numbers (uint8), once per forest.

``histogram_bins`` (the estimator's) sorts every feature once (numpy's sort, one call for all features), finds
its cuts from the sorted values (``feature_cuts``) and bins the values by a branch-free binary search over the
cuts padded to 255 with +inf (``assign_bins``); both kernels are compiled and run in one call each.  The
cut rule is in ``histogram_bins``' docstring (``forest.py``).
"""

from __future__ import annotations

import numpy as np

from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)
from ._splitter import midpoint_threshold


@njit(cache=True, nogil=True)
def feature_cuts(sorted_values, max_bins, cuts):
    """The cuts of one feature from its sorted float32 values into cuts[:k]; returns k (<= max_bins - 1).

    As ``np.unique`` + quantiles: with at most ``max_bins`` distinct values, the midpoints of consecutive
    distinct values; otherwise after the distinct value at which each equal-count quantile j * n / max_bins
    (j = 1 .. max_bins - 1) is reached (searchsorted "left" in the cumulative counts), each once, never
    after the largest value.  The midpoints are ``midpoint_threshold``'s (scikit-learn's).
    """
    n = sorted_values.size
    distinct = np.empty(n, dtype=np.float32)
    ends = np.empty(n, dtype=np.int64)  # cumulative counts up to each distinct value
    m = 0
    for i in range(n):
        if i == 0 or sorted_values[i] != sorted_values[i - 1]:
            distinct[m] = sorted_values[i]
            m += 1
        ends[m - 1] = i + 1
    k = 0
    if m <= max_bins:
        for j in range(m - 1):
            cuts[k] = midpoint_threshold(distinct[j], distinct[j + 1])
            k += 1
        return k
    step = n / max_bins
    d = 0
    last = -1
    for j in range(1, max_bins):
        target = j * step
        while d < m and ends[d] < target:
            d += 1
        if d != last and d < m - 1:
            cuts[k] = midpoint_threshold(distinct[d], distinct[d + 1])
            k += 1
            last = d
    return k


@njit(cache=True, nogil=True)
def assign_bins(values, padded_cuts, out):
    """out[i] = the number of cuts below values[i] (searchsorted "left" in float64): padded_cuts has 255 entries,
    the feature's cuts followed by +inf."""
    for i in range(values.size):
        x = np.float64(values[i])
        b = 0  # the first index whose cut is >= x, by halving (branch-free: a select, not a jump, per step)
        b += 128 * (padded_cuts[b + 127] < x)
        b += 64 * (padded_cuts[b + 63] < x)
        b += 32 * (padded_cuts[b + 31] < x)
        b += 16 * (padded_cuts[b + 15] < x)
        b += 8 * (padded_cuts[b + 7] < x)
        b += 4 * (padded_cuts[b + 3] < x)
        b += 2 * (padded_cuts[b + 1] < x)
        b += 1 * (padded_cuts[b] < x)
        out[i] = b


@njit(cache=True, nogil=True)
def bin_all(Xt_sorted, Xt, max_bins, binned, cut_table, n_cuts):
    """Every feature's cuts (cut_table[f, :n_cuts[f]], +inf after) and bins (binned[f])."""
    for f in range(Xt.shape[0]):
        row = cut_table[f]
        for b in range(row.size):
            row[b] = np.inf
        n_cuts[f] = feature_cuts(Xt_sorted[f], max_bins, row)
        assign_bins(Xt[f], row, binned[f])


def histogram_bins_fast(Xt: np.ndarray, max_bins: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """(binned uint8 (n_features x n_docs, C-contiguous), per-feature float64 cuts); see ``histogram_bins``."""
    if not 2 <= max_bins <= 256:
        raise ValueError("max_bins must be in [2, 256] (bin numbers are uint8)")
    Xt = np.ascontiguousarray(Xt, dtype=np.float32)
    Xt_sorted = np.sort(Xt, axis=1)
    binned = np.empty(Xt.shape, dtype=np.uint8)
    cut_table = np.empty((Xt.shape[0], 255), dtype=np.float64)
    n_cuts = np.zeros(Xt.shape[0], dtype=np.int64)
    bin_all(Xt_sorted, Xt, max_bins, binned, cut_table, n_cuts)
    return binned, [cut_table[f, :n_cuts[f]].copy() for f in range(Xt.shape[0])]
