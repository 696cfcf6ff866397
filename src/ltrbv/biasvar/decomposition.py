"""The one entry point of the bias-variance reducers: :func:`decompose`.

It combines the pointwise squared bias and variance (Ibrahim 2021 eq. 5-8), the
listwise SRE/VRE (eq. 14-17), the ranking error (eq. 11) and the rejected VRE
variants of §5.3.5, each with a percentile bootstrap interval over test queries
(:mod:`ltrbv.biasvar.uncertainty`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..metrics.names import canonical_metrics
from ..metrics.ranking import query_index_of_rows, segment_sum
from .listwise import QUANTITIES, ListwiseTerms, listwise_terms
from .models import grouped_scores
from .pointwise import squared_bias_per_document, variance_per_document
from .uncertainty import percentile_interval, query_resample_counts, resampled_ratio_means


@dataclass(frozen=True)
class BiasVarianceResult:
    """Everything :func:`decompose` computed; ``summary`` and ``per_query`` are the reports."""

    method: str
    n_models: int
    qids: np.ndarray                  # (n_queries,)
    query_offsets: np.ndarray         # (n_queries + 1,)
    bias2_per_document: np.ndarray    # (n_docs,) in the data's row order
    variance_per_document: np.ndarray  # (n_docs,)
    listwise: dict                    # {metric: ListwiseTerms}
    intervals: dict                   # {"bias2": (lo, hi), ..., metric: {quantity: (lo, hi)}}
    level: float
    n_resamples: int

    @property
    def n_queries(self) -> int:
        return int(self.qids.size)

    @property
    def n_docs(self) -> int:
        return int(self.bias2_per_document.size)

    @property
    def bias2(self) -> float:
        """Eq. 5 (bootstrap) or eq. 7 (twofold)."""
        return float(self.bias2_per_document.mean())

    @property
    def variance(self) -> float:
        """Eq. 6 (bootstrap) or eq. 8 (twofold)."""
        return float(self.variance_per_document.mean())

    @property
    def summary(self) -> dict:
        """A flat JSON-serialisable dict of every mean with its ``<name>_ci`` interval."""
        metrics = {}
        for metric, terms in self.listwise.items():
            means = terms.means()
            entry = {"n_queries": int(terms.included.sum())}
            for name in QUANTITIES:
                entry[name] = means[name]
                entry[f"{name}_ci"] = list(self.intervals[metric][name])
            metrics[metric] = entry
        return {
            "method": self.method,
            "n_models": self.n_models,
            "n_queries": self.n_queries,
            "n_docs": self.n_docs,
            "bias2": self.bias2,
            "variance": self.variance,
            "bias2_ci": list(self.intervals["bias2"]),
            "variance_ci": list(self.intervals["variance"]),
            "ci_level": self.level,
            "ci_resamples": self.n_resamples,
            "metrics": metrics,
        }

    @property
    def per_query(self) -> pd.DataFrame:
        """One row per (qid, metric): qid, metric, n_docs, the listwise quantities (nan for
        excluded queries) and the query's mean pointwise bias2 and variance."""
        sizes = np.diff(self.query_offsets)
        bias2, variance = (_per_query_mean(v, self.query_offsets)
                           for v in (self.bias2_per_document, self.variance_per_document))
        frames = []
        for metric, terms in self.listwise.items():
            frame = pd.DataFrame({"qid": self.qids, "metric": metric, "n_docs": sizes})
            for name in QUANTITIES:
                frame[name] = terms.values[name]
            frame["bias2"] = bias2
            frame["variance"] = variance
            frames.append(frame)
        return pd.concat(frames, ignore_index=True)


def _per_query_sum(values: np.ndarray, query_offsets: np.ndarray) -> np.ndarray:
    return segment_sum(values, query_index_of_rows(query_offsets), query_offsets.size - 1)


def _per_query_mean(values: np.ndarray, query_offsets: np.ndarray) -> np.ndarray:
    sizes = np.diff(query_offsets).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _per_query_sum(values, query_offsets) / sizes


def decompose(data, scores, method: str, metrics=("ndcg",), convention="standard",
              n_resamples: int = 1000, level: float = 0.95, seed=0, ties: str | None = None,
              empty_queries: str = "exclude", docids=None) -> BiasVarianceResult:
    """Pointwise and listwise bias-variance of R models' scores on one test set.

    ``data`` has ``labels``, ``query_offsets`` and ``qids`` (a :class:`~ltrbv.data.RankingData`);
    ``scores`` is (R, n_docs) in the data's internal row order.  ``method="bootstrap"``:
    R = B >= 2 models (eq. 5, 6, 14, 15); ``"twofold"``: R = 2J models ordered
    1a, 1b, 2a, 2b, ... (eq. 7, 8, 16, 17).  ``metrics``: ndcg (untruncated, the paper's),
    ndcg@k, map/ap under ``convention``, any spelling (results use the canonical one);
    ``empty_queries``: see :mod:`ltrbv.biasvar.listwise`.  ``ties=None``: the convention's; ``docids`` (one
    per document) order tied scores under the ``trec_eval`` convention.
    Intervals: percentile bootstrap over test queries (``n_resamples``, ``level``, ``seed``).
    """
    labels = np.asarray(data.labels)
    offsets = np.asarray(data.query_offsets, dtype=np.int64)
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 2 or scores.shape[1] != labels.size:
        raise ValueError(
            f"scores must have shape (n_models, {labels.size}) (one row per model, one column per "
            f"document of the data); got {scores.shape}"
        )
    if isinstance(metrics, str):
        metrics = (metrics,)
    if not metrics:
        raise ValueError("need at least one metric")
    metrics = tuple(canonical_metrics(metrics, convention))  # " ndcg " -> "ndcg"; trec_eval: "map" -> "AP"
    grouped = grouped_scores(scores, method)
    bias2 = squared_bias_per_document(grouped, labels)
    variance = variance_per_document(grouped)
    listwise = listwise_terms(scores, labels, offsets, method, metrics, convention, ties, empty_queries, docids)

    counts = query_resample_counts(offsets.size - 1, n_resamples, seed).astype(np.float64)  # one BLAS-ready copy
    sizes = np.diff(offsets)
    intervals: dict = {
        "bias2": percentile_interval(resampled_ratio_means(counts, _per_query_sum(bias2, offsets), sizes), level),
        "variance": percentile_interval(
            resampled_ratio_means(counts, _per_query_sum(variance, offsets), sizes), level),
    }
    for metric, terms in listwise.items():
        weights = terms.included.astype(np.float64)
        intervals[metric] = {
            name: percentile_interval(resampled_ratio_means(counts, terms.values[name], weights), level)
            for name in QUANTITIES
        }
    return BiasVarianceResult(
        method=method, n_models=int(scores.shape[0]), qids=np.asarray(data.qids), query_offsets=offsets,
        bias2_per_document=bias2, variance_per_document=variance, listwise=listwise,
        intervals=intervals, level=level, n_resamples=int(n_resamples),
    )


__all__ = ["BiasVarianceResult", "ListwiseTerms", "decompose"]
