"""The simulations behind Figs. 2-6 of Sawade et al. (2013), and their summaries.

An experiment (config ``active.experiments.<name>``) is

* ``kind: estimate`` with one ranker: estimate R[r] (eq. 16 for q; Fig. 2), or
* ``kind: compare`` with two rankers: estimate Delta = R[r1] - R[r2] (eq. 17; Figs. 3-5);
  ``drop_fraction`` removes that share of every result list of the *second* ranking
  (the simulated index update, Fig. 4).

``label_models``: the models whose p(y|x,z;theta) drive q; with two, their mixture
(mean of the probabilities, as in Sawade et al. 2012).  True performance = the mean over
the whole pool of the per-query measure under the pool's real labels.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import exact_math
from ..seeding import derive_seed
from .estimation import run_repetitions
from .moments import expected_difference, expected_measure, true_measure
from .rankings import drop_documents, ranks_from_scores
from .sampling import METHODS, method_distribution, query_costs


def experiment_rankings(spec: dict, scores: dict, query_offsets: np.ndarray, seed: int) -> list[np.ndarray]:
    """The ranks of the experiment's ranker(s) on the pool; the second loses ``drop_fraction`` of each list."""
    rankings = [ranks_from_scores(scores[name], query_offsets) for name in spec["rankers"]]
    fraction = float(spec.get("drop_fraction", 0.0))
    if fraction > 0:
        rankings[-1] = drop_documents(rankings[-1], query_offsets, fraction, np.random.default_rng(seed))
    return rankings


def mixture(label_probs: list[np.ndarray]) -> np.ndarray:
    """The mean of several label models' probabilities (the mixture of Sawade et al. 2012)."""
    return np.mean(np.stack(label_probs), axis=0)


def true_values(labels, rankings, query_offsets, measure: str, n_labels: int) -> np.ndarray:
    """Per-query L(r(x), y) (one ranking) or delta(x, y) (two) under the real labels."""
    values = true_measure(labels, rankings[0], query_offsets, measure, n_labels)
    if len(rankings) == 2:
        values = values - true_measure(labels, rankings[1], query_offsets, measure, n_labels)
    return values


def model_expectation(label_probs, rankings, query_offsets, measure: str) -> np.ndarray:
    """E[L | x; theta] or E[delta | x; theta] per query (the y-axis of Fig. 6)."""
    if len(rankings) == 1:
        return expected_measure(label_probs, rankings[0], query_offsets, measure)
    return expected_difference(label_probs, rankings[0], rankings[1], query_offsets, measure)


def simulate(spec: dict, pool, scores: dict, label_probs: np.ndarray, settings: dict, base_seed: int,
             keys: tuple) -> tuple[pd.DataFrame, dict]:
    """All (measure, method) simulations of one experiment on one pool.

    ``settings``: ``budgets``, ``repetitions``, ``measures``, ``methods``, ``length_feature``,
    ``n_labels``.  ``keys`` (dataset, experiment, partition) seed every random choice.
    Returns the per-budget summary rows and, per measure, the arrays of Fig. 6.
    """
    offsets = pool.query_offsets
    n_labels = settings["n_labels"]
    rankings = experiment_rankings(spec, scores, offsets, derive_seed(base_seed, *keys, "drop"))
    costs = query_costs(offsets, pool.X, settings.get("length_feature"))
    budgets = np.asarray(settings["budgets"], dtype=np.float64)
    rows, distributions = [], {}
    for measure in settings["measures"]:
        truth_per_query = true_values(pool.labels, rankings, offsets, measure, n_labels)
        truth = float(truth_per_query.mean())
        distributions[measure] = {"costs": costs, "expected": model_expectation(label_probs, rankings, offsets,
                                                                                measure),
                                  "truth": truth_per_query}
        for method in settings["methods"]:
            q = method_distribution(method, label_probs, rankings, offsets, measure, costs)
            distributions[measure][f"q_{method}"] = q
            rng = np.random.default_rng(derive_seed(base_seed, *keys, measure, method))
            result = run_repetitions(q, costs, truth_per_query, budgets, int(settings["repetitions"]), rng)
            est = result.estimates[:, :, 0]
            rows.append(summarise(est, truth, result, measure, method))
    table = pd.concat(rows, ignore_index=True)
    return table, distributions


def summarise(est: np.ndarray, truth: float, result, measure: str, method: str) -> pd.DataFrame:
    """Per budget: mean |estimate - truth|, the model-selection error (wrong sign), draws; with standard errors."""
    n = est.shape[0]
    abs_error = np.abs(est - truth)
    empty = np.isnan(est)
    # an empty sample cannot pick a model: count it as a coin flip
    wrong = np.where(empty, 0.5, (np.sign(est) != np.sign(truth)).astype(float))
    return pd.DataFrame({
        "measure": measure,
        "method": method,
        "budget": result.budgets,
        "truth": truth,
        "abs_error": np.nanmean(abs_error, axis=0),
        "abs_error_se": np.nanstd(abs_error, axis=0) / np.sqrt(np.maximum((~empty).sum(0), 1)),
        "selection_error": wrong.mean(0),
        "selection_error_se": wrong.std(0) / np.sqrt(n),
        "n_draws": result.n_draws.mean(0),
        "n_draws_se": result.n_draws.std(0) / np.sqrt(n),
        "n_labelled": result.n_labelled.mean(0),
        "spent": result.spent.mean(0),
        "n_empty": empty.sum(0),
        "repetitions": n,
    })


def aggregate(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """Mean over partitions; standard error of that mean = sqrt(sum of squared SEs) / P."""
    data = pd.concat(tables, ignore_index=True)
    keys = ["measure", "method", "budget"]
    grouped = data.groupby(keys, sort=False)
    out = grouped[["truth", "abs_error", "selection_error", "n_draws", "n_labelled", "spent"]].mean()
    n_parts = grouped.size()
    for column in ("abs_error_se", "selection_error_se", "n_draws_se"):
        out[column] = np.sqrt(grouped[column].apply(lambda s: float(np.sum(s ** 2)))) / n_parts
    out["partitions"] = n_parts
    out["n_empty"] = grouped["n_empty"].sum()
    return out.reset_index()


def budget_to_reach(budgets: np.ndarray, errors: np.ndarray, target: float) -> float:
    """Smallest budget at which the (interpolated, log-log) error curve falls to ``target``; nan if never."""
    budgets = np.asarray(budgets, dtype=float)
    errors = np.minimum.accumulate(np.asarray(errors, dtype=float))  # running best: a decreasing curve
    if errors[0] <= target:
        return float(budgets[0])
    below = np.flatnonzero(errors <= target)
    if below.size == 0 or target <= 0:
        return float("nan")
    k = below[0]
    # log-log interpolation with exact_math's log and exp: numpy's take a CPU-dependent path (AVX-512, glibc's FMA)
    x0, x1, y0, y1, log_target = (float(v) for v in exact_math.log(
        [budgets[k - 1], budgets[k], errors[k - 1], max(errors[k], 1e-300), target]))
    t = 0.0 if y1 == y0 else (log_target - y0) / (y1 - y0)
    return float(exact_math.exp(x0 + t * (x1 - x0)))


def label_savings(table: pd.DataFrame, error: str = "abs_error", baseline: str = "passive",
                  method: str = "active") -> pd.DataFrame:
    """Per measure: the share of the largest budget Lambda_max that ``method`` saves over ``baseline``.

    savings = 1 - Lambda_method / Lambda_max, where Lambda_method is the budget at which the
    method's error curve reaches the baseline's error at Lambda_max.  When the method is worse
    at Lambda_max the sign flips: -(1 - Lambda_baseline / Lambda_max), the share the baseline saves.
    A saving beyond the smallest budget is reported as that bound.  When both curves reach an error of 0
    (a model-selection error: every repetition picks the better ranker) the reference is the budget at which
    the baseline first reaches 0 instead of Lambda_max, and the method's budget is where it first does.
    """
    rows = []
    for measure, part in table.groupby("measure", sort=False):
        base = part[part["method"] == baseline].sort_values("budget", kind="stable")
        act = part[part["method"] == method].sort_values("budget", kind="stable")
        budgets = base["budget"].to_numpy()
        top = budgets[-1]
        e_base, e_act = base[error].to_numpy(), act[error].to_numpy()
        if e_base[-1] == 0 and e_act[-1] == 0:
            first_zero = [float(budgets[np.flatnonzero(e == 0)[0]]) for e in (e_base, e_act)]
            needed, reference = first_zero[1], first_zero[0]
            saving = 1.0 - needed / reference if needed <= reference else -(1.0 - reference / needed)
        elif e_act[-1] <= e_base[-1]:
            needed = budget_to_reach(budgets, e_act, e_base[-1])
            saving = 1.0 - needed / top
        else:
            needed = budget_to_reach(budgets, e_base, e_act[-1])
            saving = -(1.0 - needed / top)
        rows.append({"measure": measure, "budget": top, "error": error, f"{baseline}_error": e_base[-1],
                     f"{method}_error": e_act[-1], "savings": saving,
                     "at_bound": bool(needed == budgets[0])})
    return pd.DataFrame(rows)


def training_size_table(tables: dict[float, pd.DataFrame], budget: float) -> pd.DataFrame:
    """Sawade et al. (2013), Fig. 5 bottom row: each experiment's errors at one budget, against the share of the
    training half its second ranker was trained on.

    ``tables`` maps that share to the experiment's :func:`aggregate` table.  One row per (share, measure,
    method): the absolute error of the estimated difference (the figure's), the model-selection error, their
    standard errors and the true difference.
    """
    rows = []
    for share, table in sorted(tables.items()):
        at = table[np.isclose(table["budget"].astype(float), float(budget))]
        if at.empty:
            raise ValueError(f"the experiment of share {share:g} has no row at budget {budget:g}")
        part = at[["measure", "method", "truth", "abs_error", "abs_error_se", "selection_error",
                   "selection_error_se"]].copy()
        part.insert(0, "budget", float(budget))
        part.insert(0, "share", float(share))
        rows.append(part)
    return pd.concat(rows, ignore_index=True)


__all__ = ["METHODS", "aggregate", "budget_to_reach", "label_savings", "simulate", "summarise",
           "training_size_table"]

