"""Zhang et al. (2013) on the workflow's learners: per-query AP / NDCG of a family of models on the same
test queries (all folds' test sets together), and their bias and variance against a target.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...biasvar import zhang_bias_variance
from ...data.ranking_data import RankingData
from ...metrics import evaluate
from ...tables import markdown_table


def family_values(datas: list[RankingData], scores: dict[str, list[np.ndarray]], metrics: list[str],
                  convention: str) -> dict[str, np.ndarray]:
    """Per metric, (n_learners, n_queries) per-query values over the folds' test queries that have a relevant
    document (``scores[learner][i]`` scores ``datas[i]`` in internal row order; learners in ``scores`` order).

    Queries without a relevant document are dropped: AP and NDCG are undefined there (Zhang et al. use
    judged queries).  Each ranking is evaluated once for all metrics.
    """
    per_fold = {metric: [] for metric in metrics}
    for i, data in enumerate(datas):
        has_relevant = np.maximum.reduceat(data.labels, data.query_offsets[:-1]) > 0
        values = [evaluate(s[i], data.labels, data.query_offsets, tuple(metrics), convention=convention)
                  for s in scores.values()]
        for metric in metrics:
            per_fold[metric].append(np.array([v[metric] for v in values])[:, has_relevant])
    return {metric: np.hstack(blocks) for metric, blocks in per_fold.items()}


def zhang_table(datas, scores, metrics, targets, convention: str) -> pd.DataFrame:
    frames = []
    names = list(scores)
    for metric, values in family_values(datas, scores, list(metrics), convention).items():
        for target in targets:
            frame = zhang_bias_variance(values, target=target, model_names=names)
            frame.insert(0, "target", target)
            frame.insert(0, "metric", metric)
            frame.insert(2, "n_queries", values.shape[1])
            frames.append(frame)
    return pd.concat(frames, ignore_index=True).rename(columns={"model": "learner"})


def zhang_markdown(table: pd.DataFrame, dataset: str) -> str:
    cols = ["learner", "mean", "target_mean", "bias", "bias2", "variance", "bias2_plus_variance", "rho_variance"]
    parts = [f"# Bias and variance of the metric across test queries on {dataset} (Zhang et al. 2013)\n\n",
             "Bias = M_T - M (eq. 1), Var = variance of the per-query metric (eq. 2), Bias² + Var = E(m - M_T)² "
             "(eq. 3), Var(ρ) with ρ = m_T - m (eq. 6).  Queries without a relevant document are left out.\n"]
    for (metric, target), rows in table.groupby(["metric", "target"], sort=False):
        parts.append(f"\n## {metric}, target: {target} ({rows['n_queries'].iloc[0]} queries)\n\n")
        parts.append(markdown_table(rows[cols]))
    return "".join(parts)
