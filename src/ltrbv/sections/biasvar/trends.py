"""Paired tests of the study's claims over test queries: is a change real, or within noise?

All runs of a fold score the same test queries, so the difference between two runs (the largest and
the smallest swept value; two-fold and bootstrap at the same value) is estimated per query and its
confidence interval comes from resampling queries (:mod:`ltrbv.biasvar.uncertainty`) — much tighter
than comparing two marginal intervals, which share the query-to-query spread.

* pointwise quantities (``bias2``, ``variance``; metric ``score``): the document mean, i.e. per-query
  sums ``n_docs * value`` over the summed ``n_docs``;
* listwise quantities (``sre``, ``vre``, ``ranking_error``): the mean over queries where both runs are
  defined (queries without a relevant document are left out by the reducers).

Each row also has the t-test over queries of the claim engine (``p``, ``se``, ``n_queries``); ``summary.md``
judges the rows with it (:mod:`ltrbv.compare.claims`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from ...biasvar import query_bootstrap_interval, query_resample_counts
from ...compare.claims import weighted_difference_test

POINTWISE = ("bias2", "variance")
LISTWISE = ("sre", "vre", "ranking_error")


def _paired(first: pd.DataFrame, last: pd.DataFrame, quantity: str, metric: str | None, counts, level):
    """(estimate_first, estimate_last, difference, ci_low, ci_high, p, se, n) of last - first over the shared
    queries; p, se and n from the claim engine's t-test over queries
    (:func:`ltrbv.compare.claims.weighted_difference_test`)."""
    if metric is None:  # pointwise: one row per query (take the first metric's rows)
        a = first.drop_duplicates("qid").set_index("qid")
        b = last.drop_duplicates("qid").set_index("qid").reindex(a.index)
        weights = a["n_docs"].to_numpy(float)
        va, vb = a[quantity].to_numpy(float), b[quantity].to_numpy(float)
    else:
        a = first[first["metric"] == metric].set_index("qid")
        b = last[last["metric"] == metric].set_index("qid").reindex(a.index)
        va, vb = a[quantity].to_numpy(float), b[quantity].to_numpy(float)
        weights = (np.isfinite(va) & np.isfinite(vb)).astype(float)
    va, vb = np.nan_to_num(va), np.nan_to_num(vb)
    total = weights.sum()
    est_a, est_b = (va * weights).sum() / total, (vb * weights).sum() / total
    low, high = query_bootstrap_interval((vb - va) * weights, weights, counts=counts, level=level)
    test = weighted_difference_test(va, vb, weights, +1, (low, high))
    return est_a, est_b, est_b - est_a, low, high, test.p, test.se, test.n


def _rows_for(first, last, counts, level, metrics):
    for quantity in POINTWISE:
        yield quantity, "score", _paired(first, last, quantity, None, counts, level)
    for metric in metrics:
        for quantity in LISTWISE:
            yield quantity, metric, _paired(first, last, quantity, metric, counts, level)


def trend_table(runs: pd.DataFrame, per_query: dict, n_resamples: int = 1000, level: float = 0.95,
                seed: int = 0) -> pd.DataFrame:
    """Largest minus smallest swept value, per (learner, fold, scheme), for every quantity.

    ``runs``: one row per sweep run (learner, fold, scheme, setting, value, path of its per-query CSV);
    ``per_query``: path -> DataFrame.
    """
    out = []
    sweeps = runs[runs["setting"] != "base"]
    for (learner, fold, scheme), group in sweeps.groupby(["learner", "fold", "scheme"], sort=False):
        group = group.sort_values("value", kind="stable")
        if len(group) < 2:
            continue
        first, last = per_query[group.iloc[0]["path"]], per_query[group.iloc[-1]["path"]]
        counts = query_resample_counts(first["qid"].nunique(), n_resamples, seed).astype(float)
        metrics = list(dict.fromkeys(first["metric"]))
        estimates = {path: per_query[path] for path in group["path"]}
        for quantity, metric, (ea, eb, diff, low, high, p, se, n) in _rows_for(first, last, counts, level, metrics):
            curve = [_mean(estimates[p], quantity, None if metric == "score" else metric) for p in group["path"]]
            rho = stats.spearmanr(group["value"], curve).statistic if len(set(curve)) > 1 else np.nan
            out.append({"comparison": "last_minus_first", "learner": learner, "fold": fold, "scheme": scheme,
                        "quantity": quantity, "metric": metric, "first": group.iloc[0]["value"],
                        "last": group.iloc[-1]["value"], "estimate_first": ea, "estimate_last": eb,
                        "difference": diff, "ci_low": low, "ci_high": high, "p": p, "se": se,
                        "n_queries": n, "spearman": rho, "n_values": len(group)})
    return pd.DataFrame(out)


def scheme_gap_table(runs: pd.DataFrame, per_query: dict, n_resamples: int = 1000, level: float = 0.95,
                     seed: int = 0) -> pd.DataFrame:
    """Two-fold minus bootstrap at every (learner, fold, setting) run by both schemes."""
    out = []
    for (learner, fold, setting), group in runs.groupby(["learner", "fold", "setting"], sort=False):
        by_scheme = dict(zip(group["scheme"], group["path"]))
        if not {"bootstrap", "twofold"} <= set(by_scheme):
            continue
        first, last = per_query[by_scheme["bootstrap"]], per_query[by_scheme["twofold"]]
        counts = query_resample_counts(first["qid"].nunique(), n_resamples, seed).astype(float)
        metrics = list(dict.fromkeys(first["metric"]))
        for quantity, metric, (ea, eb, diff, low, high, p, se, n) in _rows_for(first, last, counts, level, metrics):
            out.append({"comparison": "twofold_minus_bootstrap", "learner": learner, "fold": fold, "scheme": "both",
                        "setting": setting, "quantity": quantity, "metric": metric,
                        "first": group["value"].iloc[0], "last": group["value"].iloc[0], "estimate_first": ea,
                        "estimate_last": eb, "difference": diff, "ci_low": low, "ci_high": high, "p": p, "se": se,
                        "n_queries": n})
    return pd.DataFrame(out)


def _mean(frame: pd.DataFrame, quantity: str, metric: str | None) -> float:
    if metric is None:
        rows = frame.drop_duplicates("qid")
        return float((rows[quantity] * rows["n_docs"]).sum() / rows["n_docs"].sum())
    return float(frame.loc[frame["metric"] == metric, quantity].mean())
