"""Evaluating score files against a dataset: per-query tables and their means (CLI and workflow)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .data.ranking_data import RankingData
from .metrics import evaluate


def per_query_table(
    data: RankingData, scores: np.ndarray, metrics, conventions, ties: str | None = "input-order", docids=None,
    retrieved=None,
) -> pd.DataFrame:
    """Long table with columns qid, n_docs, convention, metric, value (one row per query x metric x convention).
    ``ties=None``: each convention's; ``docids``, ``retrieved``: see :func:`ltrbv.metrics.evaluate`."""
    frames = []
    for convention in conventions:
        values = evaluate(scores, data.labels, data.query_offsets, metrics=metrics, convention=convention, ties=ties,
                          docids=docids, retrieved=retrieved)
        for metric in metrics:
            frames.append(
                pd.DataFrame(
                    {
                        "qid": data.qids,
                        "n_docs": data.query_sizes,
                        "convention": convention,
                        "metric": metric,
                        "value": values[metric],
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)
