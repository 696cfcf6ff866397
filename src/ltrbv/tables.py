"""Performance tables: per-query metric files -> one row per (learner, fold, metric, convention)."""

from __future__ import annotations

import numpy as np
import pandas as pd

KEYS = ["learner", "fold", "metric", "convention"]


def performance_table(per_query: pd.DataFrame, dataset: str) -> pd.DataFrame:
    """Aggregate per-query metric rows (columns learner, fold, seed, convention, metric, value).

    ``value`` of a fold row is the mean over seeds of the mean over the fold's
    test queries (NaN values, i.e. excluded queries, are skipped); ``fold=mean``
    rows average the fold values (the usual "5-fold average") and carry the
    standard deviation over folds in ``std``.
    """
    per_seed = (
        per_query.groupby(KEYS + ["seed"], sort=False)["value"]
        .agg(value="mean", n_queries="count")
        .reset_index()
    )
    per_fold = (
        per_seed.groupby(KEYS, sort=False)
        .agg(value=("value", "mean"), std=("value", "std"), n_seeds=("seed", "nunique"), n_queries=("n_queries", "max"))
        .reset_index()
    )
    per_fold["std_over"] = "seeds"
    means = (
        per_fold.groupby(["learner", "metric", "convention"], sort=False)
        .agg(value=("value", "mean"), std=("value", "std"), n_seeds=("n_seeds", "min"), n_queries=("n_queries", "sum"))
        .reset_index()
    )
    means["fold"] = "mean"
    means["std_over"] = "folds"
    table = pd.concat([per_fold, means[per_fold.columns]], ignore_index=True)
    table.insert(0, "dataset", dataset)
    table["std"] = table["std"].fillna(0.0)
    return table


def markdown_table(frame: pd.DataFrame, float_format: str = "{:.4f}") -> str:
    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = [
        "| "
        + " | ".join(float_format.format(v) if isinstance(v, (float, np.floating)) else str(v) for v in row)
        + " |"
        for row in frame.itertuples(index=False)
    ]
    return "\n".join([header, rule, *rows]) + "\n"


def performance_markdown(table: pd.DataFrame) -> str:
    """Markdown: for each convention, learners x metrics of the fold=mean rows, then every row."""
    dataset = table["dataset"].iloc[0]
    parts = [f"# Performance on {dataset}\n"]
    mean_rows = table[table["fold"] == "mean"]
    metric_order = list(dict.fromkeys(table["metric"]))
    for convention, rows in mean_rows.groupby("convention", sort=False):
        wide = rows.pivot(index="learner", columns="metric", values="value")[metric_order].reset_index()
        parts.append(f"\n## Mean over folds, `{convention}` convention\n\n" + markdown_table(wide))
    fold_rows = table[table["fold"] != "mean"]
    same = [learner for learner, rows in fold_rows.groupby("learner", sort=False)
            if rows["n_seeds"].min() > 1 and (rows["std"] == 0).all()]
    if same:
        parts.append("\nSeeds that gave identical results on every fold (a deterministic learner): "
                     + ", ".join(f"{learner} ({int(fold_rows[fold_rows.learner == learner]['n_seeds'].min())} seeds)"
                                 for learner in same)
                     + "; their standard deviation over seeds is 0 by construction, not a measured stability.\n")
    parts.append("\n## All rows\n\n" + markdown_table(table))
    return "".join(parts)
