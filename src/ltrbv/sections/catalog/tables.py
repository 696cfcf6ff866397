"""The reproduction catalog's tables: compare, sweep, curve, grid and scores entries.

* :func:`per_query_values`: one row per (learner, fold, seed, query, metric) from prediction files.
* Compare entries: :func:`ltrbv.compare.significance.significance_table` (mean ± std over folds, paired
  t and randomisation tests, pooled over folds and per fold), plus each learner's seconds per model and,
  when asked, the expected metric of a random ranking (every document tied: the mean over all orders,
  ``ties="expected"``), the "random" column of Ibrahim & Carman's Table XI.
* Sweep entries: :func:`sweep_table`, per (learner, value) the metric over the pooled test queries of all
  folds (mean over seeds) with its bootstrap interval over queries, and the seconds per tree.
* Grid entries: :func:`grid_table`, per combination the validation and test metric (mean over folds and
  seeds of the mean over queries, as Ganjisaffar et al. average), ranked by validation (Table 3), and
  :func:`best_of_k`, the expected validation and test metric of the best by validation of k combinations
  drawn at random without replacement, exactly (the paper estimates it from 10,000 draws; Fig. 1).
* Claims: :mod:`ltrbv.sections.catalog.claims` tests them, :mod:`ltrbv.compare.claims` judges them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...biasvar.uncertainty import query_bootstrap_interval
from ...metrics import evaluate
from ...compare.significance import POOLED, significance_table

RANDOM_RANKING = "random ranking"  # the row of a compare entry with random_ranking: true
SECONDS_PER_TREE = "seconds_per_tree"
#: what a 'greater' claim compares: training seconds per model, and the forests' tree structure (Table XII)
QUANTITIES = ("fit_seconds", "leaves_per_tree", "rows_per_leaf", "leaf_score", "depth")


def per_query_values(scores: dict, data: dict, metrics, convention: str) -> pd.DataFrame:
    """Long table (learner, fold, seed, qid, metric, convention, value) of ``scores[learner][fold][seed]``
    (score arrays in row order) against ``data[fold]`` (RankingData)."""
    frames = []
    for learner, by_fold in scores.items():
        for fold, by_seed in by_fold.items():
            d = data[fold]
            for seed, values in by_seed.items():
                metric_values = evaluate(values, d.labels, d.query_offsets, list(metrics), convention=convention)
                for metric in metrics:
                    frames.append(pd.DataFrame({"learner": learner, "fold": fold, "seed": int(seed), "qid": d.qids,
                                                "metric": metric, "convention": convention,
                                                "value": metric_values[metric]}))
    return pd.concat(frames, ignore_index=True)


def random_ranking_values(data: dict, metrics, convention: str) -> pd.DataFrame:
    """The expected metric of a uniformly random ranking of each test query (all documents tied)."""
    frames = []
    for fold, d in data.items():
        values = evaluate(np.zeros(d.n_docs), d.labels, d.query_offsets, list(metrics), convention=convention,
                          ties="expected")
        for metric in metrics:
            frames.append(pd.DataFrame({"learner": RANDOM_RANKING, "fold": fold, "seed": 1, "qid": d.qids,
                                        "metric": metric, "convention": convention, "value": values[metric]}))
    return pd.concat(frames, ignore_index=True)


def fit_seconds(meta: dict) -> pd.DataFrame:
    """(learner, fold, seed, fit_seconds, trees and the forests' structure: leaves_per_tree, rows_per_leaf,
    leaf_score, depth; nan for other learners) of ``meta[learner][fold][seed]`` (parsed meta.json)."""
    rows = []
    for learner, by_fold in meta.items():
        for fold, by_seed in by_fold.items():
            for seed, m in by_seed.items():
                info = m.get("fit_info") or {}
                trees = m["params"].get("n_estimators") if m.get("kind") == "random_forest" else info.get("trees_kept")
                seconds = m["fit_seconds"] if "fit_seconds" in m else m["fit_seconds_total"]  # a bag: its sub-models'
                rows.append({"learner": learner, "fold": fold, "seed": int(seed), "fit_seconds": seconds,
                             "trees": trees, **{q: info.get(q, np.nan) for q in QUANTITIES if q != "fit_seconds"}})
    return pd.DataFrame(rows)


def compare_table(per_query: pd.DataFrame, learners: list[str], metrics: list[str], baseline: str, convention: str,
                  permutations: int, seed: int, seconds: pd.DataFrame, pairs=()) -> pd.DataFrame:
    """The significance table of a compare entry (every learner against ``baseline``, plus ``pairs``), with each
    learner's mean seconds per model and tree structure (:data:`QUANTITIES`) on its pooled rows."""
    table = significance_table(per_query, learners, metrics, baseline, convention, permutations, seed, pairs=pairs)
    per_learner = seconds.groupby("learner")[list(QUANTITIES)].mean()
    for quantity in QUANTITIES:
        table[quantity] = [per_learner[quantity].get(learner, np.nan) if fold == POOLED else np.nan
                           for learner, fold in zip(table["learner"], table["fold"])]
    return table


def sweep_table(per_query: pd.DataFrame, sweep: dict, seconds: pd.DataFrame, n_resamples: int = 1000,
                seed: int = 0) -> pd.DataFrame:
    """Per (learner, value, metric): the mean over the pooled test queries (mean over seeds per query) with its
    95% bootstrap interval over queries, the std of the fold means, the trained learner, seconds per model and
    per tree.  ``sweep``: ``{learner: {value: trained learner}}``."""
    rows = []
    per_seed_mean = per_query.groupby(["learner", "metric", "fold", "qid"], sort=False)["value"].mean()
    for learner, by_value in sweep.items():
        for value, trained in by_value.items():
            time = seconds[seconds["learner"] == trained]
            fit = float(time["fit_seconds"].mean())
            trees = time["trees"].astype(float)
            per_tree = float((time["fit_seconds"] / trees).mean()) if trees.notna().all() else np.nan
            for metric in dict.fromkeys(per_query["metric"]):
                values = per_seed_mean.loc[(trained, metric)].dropna()
                low, high = query_bootstrap_interval(values.to_numpy(), n_resamples=n_resamples, seed=seed)
                fold_means = values.groupby(level="fold").mean()
                rows.append({"learner": learner, "value": value, "trained": trained, "metric": metric,
                             "mean": float(values.mean()), "ci_low": low, "ci_high": high,
                             "std_over_folds": float(fold_means.std()) if len(fold_means) > 1 else np.nan,
                             "n_queries": int(values.size), "fit_seconds": fit, SECONDS_PER_TREE: per_tree})
    return pd.DataFrame(rows)


COMBINATION, BEST_OF_K = "combination", "best of k"  # the two parts of a grid entry's table


def grid_table(validation: pd.DataFrame, test: pd.DataFrame, grid: list[dict], metric: str) -> pd.DataFrame:
    """Per combination of a grid (``grid``: ``[{"learner", "params"}]``): the mean over runs (folds x seeds) of the
    mean over queries of ``metric``, on validation and on test (``per_query_values`` tables), and its rank by
    validation (1: best; ties share the better rank)."""
    def run_means(per_query: pd.DataFrame) -> pd.Series:
        rows = per_query[per_query["metric"] == metric]
        return rows.groupby(["learner", "fold", "seed"])["value"].mean().groupby(level="learner").mean()

    valid, tested = run_means(validation), run_means(test)
    rows = [{"part": COMBINATION, "learner": g["learner"], **{f"param:{k}": v for k, v in g["params"].items()},
             "validation": float(valid[g["learner"]]), "test": float(tested[g["learner"]])} for g in grid]
    table = pd.DataFrame(rows)
    table["rank"] = table["validation"].rank(ascending=False, method="min").astype(int)
    return table


def best_of_k(validation: np.ndarray, test: np.ndarray, k: int) -> tuple[float, float]:
    """(E[validation], E[test]) of the combination with the best validation among k of n drawn uniformly without
    replacement; a tie for the best is broken uniformly at random.

    Sorted by validation (descending), the i-th (0-based) is the best of the draw when it is drawn and none of the
    i before it is: probability C(n - 1 - i, k - 1) / C(n, k).  Within a group of equal validation values each
    member is equally likely to be the one picked, so each takes the group's mean test value.
    """
    import math

    validation = np.asarray(validation, dtype=float)
    test = np.asarray(test, dtype=float)
    n = validation.size
    if not 1 <= k <= n:
        raise ValueError(f"k = {k} combinations of {n}")
    order = np.argsort(-validation, kind="stable")
    v, t = validation[order], test[order].copy()
    for level in np.unique(v):
        tied = v == level
        t[tied] = t[tied].mean()
    total = math.comb(n, k)
    p = np.array([math.comb(n - 1 - i, k - 1) / total for i in range(n)])
    return float(p @ v), float(p @ t)


def best_of_k_table(table: pd.DataFrame, sizes) -> pd.DataFrame:
    """The ``best of k`` rows of a grid entry: for each k of ``sizes``, the expected validation and test metric."""
    combinations = table[table["part"] == COMBINATION]
    rows = []
    for k in sorted(sizes):
        v, t = best_of_k(combinations["validation"].to_numpy(), combinations["test"].to_numpy(), int(k))
        rows.append({"part": BEST_OF_K, "k": int(k), "validation": v, "test": t})
    return pd.DataFrame(rows)


def curve_table(meta: dict) -> pd.DataFrame:
    """Per (learner, split, round): the monitored metric after that many boosting rounds, mean and std over the
    runs (folds x seeds) that reached it, from ``meta[learner][fold][seed]["fit_info"]["eval_history"]``
    (``{split: {metric: [value per round]}}``; ``train`` is absent when the learner ran with eval_train off)."""
    rows = []
    for learner, by_fold in meta.items():
        curves = {}
        for by_seed in by_fold.values():
            for m in by_seed.values():
                history = (m.get("fit_info") or {}).get("eval_history")
                if not history:
                    raise ValueError(f"{learner}: meta.json has no eval_history (not a boosted learner?)")
                for split, by_metric in history.items():
                    for metric, values in by_metric.items():
                        curves.setdefault((split, metric), []).append(np.asarray(values, dtype=float))
        for (split, metric), runs in curves.items():
            longest = max(len(r) for r in runs)
            stacked = np.full((len(runs), longest), np.nan)
            for i, r in enumerate(runs):
                stacked[i, :len(r)] = r
            count = np.sum(~np.isnan(stacked), axis=0)
            mean = np.nanmean(stacked, axis=0)
            std = np.array([np.nanstd(col, ddof=1) if n > 1 else np.nan for col, n in zip(stacked.T, count)])
            rows += [{"learner": learner, "split": split, "metric": metric, "round": k + 1, "mean": mean[k],
                      "std_over_runs": std[k], "n_runs": int(count[k])} for k in range(longest)]
    return pd.DataFrame(rows)


def score_distributions(scores: dict) -> pd.DataFrame:
    """One row per model of ``scores`` ({name: validation scores}): count, mean, std, quantiles; plus, on every
    row, the two-sample
    Kolmogorov-Smirnov statistic and p-value of the first two models' scores (the 'differ' claim)."""
    from scipy.stats import ks_2samp

    names = list(scores)
    test = ks_2samp(scores[names[0]], scores[names[1]])
    rows = []
    for name, values in scores.items():
        values = np.asarray(values, dtype=float)
        q = np.quantile(values, [0.0, 0.05, 0.5, 0.95, 1.0])
        rows.append({"model": name, "n": values.size, "mean": values.mean(), "std": values.std(ddof=1),
                     "min": q[0], "q05": q[1], "median": q[2], "q95": q[3], "max": q[4],
                     "ks_pair": f"{names[0]} vs {names[1]}", "ks_statistic": float(test.statistic),
                     "ks_p": float(test.pvalue)})
    return pd.DataFrame(rows)


#: the entry kinds whose job writes a table (``catalog/<entry>.csv``) that the page reads
TABLE_KINDS = ("compare", "sweep", "curve", "grid", "scores")


def read_entry_table(kind: str, path) -> pd.DataFrame:
    """An entry's table as its job wrote it (a compare table's folds are names, e.g. ``1`` or ``all``)."""
    if kind not in TABLE_KINDS:
        raise ValueError(f"a {kind!r} entry has no table")
    return pd.read_csv(path, dtype={"fold": str} if kind == "compare" else None)


def benchmark_cpu_seconds(files) -> tuple[float, int]:
    """(summed cpu_time, number of files missing) of Snakemake benchmark files."""
    import os

    total, missing = 0.0, 0
    for path in files:
        if not os.path.exists(path):
            missing += 1
            continue
        frame = pd.read_csv(path, sep="\t")
        total += float(frame["cpu_time"].iloc[-1]) if "cpu_time" in frame and len(frame) else 0.0
    return total, missing
