"""Pointwise (squared-error) bias² and variance of a rank-learner's scores.

Ibrahim (2021), "Bias-variance of learning to rank", §5.2: the scores of several
models trained on resampled training sets are compared with the graded labels
document by document.  See :mod:`ltrbv.biasvar.models` for the grouping of models.
"""

from __future__ import annotations

import numpy as np

from .models import grouped_scores


def squared_bias_per_document(grouped: np.ndarray, labels) -> np.ndarray:
    """Per-document squared bias, averaged over the G groups, shape (n_docs,).

    Bootstrap (G = 1), the summand of eq. 5: ``(l_k - fbar(x_k))**2`` with
    ``fbar = (1/B) sum_i f_{D_i}``.  Twofold, the summand of eq. 7 exchanged with its
    sum over j: ``(1/J) sum_j (l_k - fbar_j(x_k))**2`` with ``fbar_j`` the pair mean
    (``mean_j mean_k == mean_k mean_j``, so the document mean of this is eq. 7).
    """
    systematic = grouped.mean(axis=1)  # (G, n_docs)
    labels = np.asarray(labels, dtype=np.float64)
    return ((labels[np.newaxis, :] - systematic) ** 2).mean(axis=0)


def variance_per_document(grouped: np.ndarray) -> np.ndarray:
    """Per-document variance of the predictions, averaged over the G groups, shape (n_docs,).

    Bootstrap, the summand of eq. 6: ``1/(B-1) sum_i (f_{D_i}(x_k) - fbar(x_k))**2``.
    Twofold, the summand of eq. 8 averaged over j:
    ``(1/J) sum_j 1/(2-1) sum_{i=1,2} (f_{D_ij}(x_k) - fbar_j(x_k))**2``.
    """
    n_per_group = grouped.shape[1]
    deviations = grouped - grouped.mean(axis=1, keepdims=True)
    return ((deviations**2).sum(axis=1) / (n_per_group - 1)).mean(axis=0)


def pointwise_per_document(scores, labels, method: str) -> tuple[np.ndarray, np.ndarray]:
    """``(bias2, variance)`` per document for ``scores`` (R, n_docs) under ``method``.

    Their plain means over documents are eq. 5 and 6 (bootstrap) or eq. 7 and 8 (twofold).
    """
    grouped = grouped_scores(scores, method)
    labels = np.asarray(labels)
    if labels.shape != (grouped.shape[2],):
        raise ValueError(f"labels {labels.shape} must have one entry per document ({grouped.shape[2]},)")
    return squared_bias_per_document(grouped, labels), variance_per_document(grouped)


def pointwise_bias_variance(scores, labels, method: str) -> tuple[float, float]:
    """Squared bias and variance of the scores: eq. 5 and 6 (bootstrap), eq. 7 and 8 (twofold)."""
    bias2, variance = pointwise_per_document(scores, labels, method)
    return float(bias2.mean()), float(variance.mean())
