"""A :class:`~ltrbv.data.ranking_data.RankingData` from in-memory arrays (a notebook, a DataFrame).

``ranking_data(qid, labels, X=None)``: one entry per document; the documents of a query must be
contiguous (as in a LETOR file), so that row order is the input order and score arrays in that order
need no reordering.  Query ids may be any values (ints, strings); they are kept as strings, in order of
first appearance.  Without ``X`` the data has no features (enough for metrics, bias-variance and compare).
"""

from __future__ import annotations

import numpy as np

from .ranking_data import RankingData


def _labels(labels, n: int) -> np.ndarray:
    labels = np.asarray(labels)
    if labels.shape != (n,):
        raise ValueError(f"labels: expected {n} entries (one per document, as qid), got shape {labels.shape}")
    if labels.dtype.kind not in "iub":
        if labels.dtype.kind != "f" or not np.all(np.isfinite(labels)) or np.any(labels != np.round(labels)):
            raise ValueError("labels must be integers (graded relevance)")
    if n and (labels.min() < 0 or labels.max() > 127):
        raise ValueError(f"labels must lie in 0..127, got {labels.min()}..{labels.max()}")
    return labels.astype(np.int8)


def _features(X, n: int) -> np.ndarray:
    if X is None:
        return np.zeros((n, 0), dtype=np.float32)
    X = np.asarray(X, dtype=np.float32)
    if X.ndim != 2 or X.shape[0] != n:
        raise ValueError(f"X: expected shape ({n}, n_features) (one row per document), got {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values")
    return np.ascontiguousarray(X)


def ranking_data(qid, labels, X=None, source: str = "arrays") -> RankingData:
    """Documents grouped by query from per-document arrays ``qid``, ``labels`` and optional features ``X``."""
    qid = np.asarray(qid)
    if qid.ndim != 1 or qid.size == 0:
        raise ValueError(f"qid: expected a non-empty 1-D array (one query id per document), got shape {qid.shape}")
    n = qid.size
    keys = qid.astype(str)
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    if np.unique(keys[starts]).size != starts.size:
        raise ValueError("qid: the documents of each query must be contiguous; sort them first, e.g. "
                         "order = np.argsort(qid, kind='stable') and index every array with it")
    return RankingData(X=_features(X, n), labels=_labels(labels, n),
                       query_offsets=np.r_[starts, n].astype(np.int64), qids=keys[starts],
                       line_numbers=np.arange(1, n + 1, dtype=np.int64), source=source)
