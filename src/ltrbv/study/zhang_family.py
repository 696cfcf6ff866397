"""Zhang et al. (2013) on the workflow's learners: per-query AP / NDCG of a family of models on the same
test queries (all folds' test sets together), and their bias and variance against a target.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..biasvar import zhang_bias_variance
from ..data.ranking_data import RankingData
from ..metrics import evaluate
from ..tables import markdown_table


def family_values(datas: list[RankingData], scores: dict[str, list[np.ndarray]], metric: str,
                  convention: str) -> tuple[np.ndarray, list[str]]:
    """(n_learners, n_queries) per-query metric over the folds' test queries that have a relevant document.

    ``scores[learner][i]`` are the learner's scores of ``datas[i]`` (internal row order).  Queries without
    a relevant document are dropped: AP and NDCG are undefined there (Zhang et al. use judged queries).
    """
    names = list(scores)
    columns, keep = [], []
    for i, data in enumerate(datas):
        has_relevant = np.maximum.reduceat(data.labels, data.query_offsets[:-1]) > 0
        keep.append(has_relevant)
        columns.append([evaluate(scores[name][i], data.labels, data.query_offsets, (metric,),
                                 convention=convention)[metric] for name in names])
    values = np.hstack([np.asarray(c)[:, k] for c, k in zip(columns, keep)])
    return values, names


def zhang_table(datas, scores, metrics, targets, convention: str) -> pd.DataFrame:
    frames = []
    for metric in metrics:
        values, names = family_values(datas, scores, metric, convention)
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
