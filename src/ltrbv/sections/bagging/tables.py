"""The tables of Ganjisaffar et al. (2011): Table 4 (performance) and Table 5 (variance across trials).

§4.2 (Table 5): "We randomly select 10 samples from the training data of Fold1
[...]. Each sample contains a random selection of 67% of the training queries in
this fold. We then train LambdaMART and BL-MART models on each of these samples
and evaluate these models on the test data of this fold."  The mean and the
variance across the trials of each test metric are reported, and the change of
variance of BL-MART with overfitting against LambdaMART with randomisation
("NDCG@1: -67.3%", ...).

* Trial ``t``'s training queries: :func:`ltrbv.learners.training_sets.trial_queries`.
* Variance: the sample variance across trials (``ddof=1``).
* Variance change: ``100 * (var(learner) - var(baseline)) / var(baseline)``;
  negative is a reduction (the paper's sign).

Metrics (Tables 4 and 5): NDCG@1, NDCG@3, NDCG@5, mean NDCG and MAP of the test
queries.  **Mean NDCG** (``mean_ndcg``) is, per query, the mean of NDCG@1 ...
NDCG@10 under the dataset's convention, then averaged over queries: the mean of
the ten NDCG@k values the LETOR evaluation scripts print (LETOR's "MeanNDCG").
Under ``letor4`` a query with fewer than k documents has NDCG@k = 0, as in
``Eval-Score-4.0.pl``.  It is computed here from :func:`ltrbv.metrics.evaluate`
(``ndcg@1`` ... ``ndcg@10``), not added to ``ltrbv.metrics``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...data.ranking_data import RankingData
from ...metrics import evaluate
from ...tables import markdown_table

#: the metrics of Tables 4 and 5 (NDCG@5 only in Table 4)
TABLE_METRICS = ("ndcg@1", "ndcg@3", "ndcg@5", "mean_ndcg", "map")
MEAN_NDCG_DEPTH = 10


def mean_ndcg(scores, labels, query_offsets, convention: str, depth: int = MEAN_NDCG_DEPTH) -> np.ndarray:
    """Per query, the mean of NDCG@1 .. NDCG@depth (LETOR's MeanNDCG)."""
    names = [f"ndcg@{k}" for k in range(1, depth + 1)]
    values = evaluate(scores, labels, query_offsets, names, convention=convention)
    return np.mean([values[name] for name in names], axis=0)


def table_metrics(scores: np.ndarray, data: RankingData, conventions, metrics=TABLE_METRICS) -> pd.DataFrame:
    """Per-query values: columns qid, convention, metric, value (``scores`` in row order)."""
    frames = []
    for convention in conventions:
        plain = [m for m in metrics if m != "mean_ndcg"]
        values = evaluate(scores, data.labels, data.query_offsets, plain, convention=convention) if plain else {}
        if "mean_ndcg" in metrics:
            values["mean_ndcg"] = mean_ndcg(scores, data.labels, data.query_offsets, convention)
        for metric in metrics:
            frames.append(pd.DataFrame({"qid": data.qids, "convention": convention, "metric": metric,
                                        "value": values[metric]}))
    return pd.concat(frames, ignore_index=True)


def variance_summary(runs: pd.DataFrame, baseline: str | None = None) -> pd.DataFrame:
    """Mean and variance across trials of each (learner, convention, metric).

    ``runs`` has one row per (learner, trial, convention, metric) with the mean
    over test queries in ``value``.  With a ``baseline`` learner, adds
    ``variance_change_pct`` (negative = less variance than the baseline) and
    ``mean_change_pct``.
    """
    keys = ["learner", "convention", "metric"]
    summary = (
        runs.groupby(keys, sort=False)["value"]
        .agg(mean="mean", variance=lambda v: float(np.var(v, ddof=1)) if len(v) > 1 else float("nan"),
             std=lambda v: float(np.std(v, ddof=1)) if len(v) > 1 else float("nan"), n_trials="count")
        .reset_index()
    )
    if baseline is not None:
        base = summary[summary["learner"] == baseline].set_index(["convention", "metric"])
        index = pd.MultiIndex.from_frame(summary[["convention", "metric"]])
        base_var = base["variance"].reindex(index).to_numpy()
        base_mean = base["mean"].reindex(index).to_numpy()
        with np.errstate(divide="ignore", invalid="ignore"):
            summary["variance_change_pct"] = 100.0 * (summary["variance"].to_numpy() - base_var) / base_var
            summary["mean_change_pct"] = 100.0 * (summary["mean"].to_numpy() - base_mean) / base_mean
        summary["baseline"] = baseline
    return summary


def variance_markdown(summary: pd.DataFrame, settings: dict) -> str:
    """Table 5 layout: per convention, one row per learner, mean and variance of each metric."""
    dataset = summary["dataset"].iloc[0]
    parts = [
        f"# Variance across trials on {dataset}\n\n",
        f"{settings['n_trials']} trials, each training on a random {settings['fraction']:.0%} of the training "
        f"queries of {settings['fold']} (without replacement); test metrics on {settings['fold']}'s test set "
        "(Ganjisaffar et al. 2011, §4.2, Table 5).  Variance: sample variance across trials (ddof=1).  "
        "`mean_ndcg`: per query the mean of NDCG@1..NDCG@10 (LETOR's MeanNDCG).\n",
    ]
    metrics = list(dict.fromkeys(summary["metric"]))
    for convention, rows in summary.groupby("convention", sort=False):
        wide = pd.DataFrame({"learner": list(dict.fromkeys(rows["learner"]))})
        for metric in metrics:
            sel = rows[rows["metric"] == metric].set_index("learner")
            wide[f"{metric} mean"] = sel["mean"].reindex(wide["learner"]).to_numpy()
            wide[f"{metric} variance"] = sel["variance"].reindex(wide["learner"]).to_numpy()
        body = markdown_table(wide, float_format="{:.4g}")
        parts.append(f"\n## `{convention}` convention\n\n{body}")
        if "variance_change_pct" in rows:
            change = pd.DataFrame({"learner": wide["learner"]})
            for metric in metrics:
                sel = rows[rows["metric"] == metric].set_index("learner")
                change[f"{metric} variance change %"] = sel["variance_change_pct"].reindex(change["learner"]).to_numpy()
                change[f"{metric} mean change %"] = sel["mean_change_pct"].reindex(change["learner"]).to_numpy()
            parts.append(f"\nChange against `{rows['baseline'].iloc[0]}` (negative variance change = variance "
                         f"reduction):\n\n{markdown_table(change, float_format='{:+.1f}')}")
    return "".join(parts)
