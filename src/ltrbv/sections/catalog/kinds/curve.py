"""``curve``: boosted learners trained like a compare entry's; the job draws their training and validation metric
per boosting round (``meta.json``'s ``fit_info.eval_history``), mean over the runs that reached each round."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ....tables import markdown_table
from .. import claims
from ..pages import heading, params_section
from ..tables import Made
from . import _trained

NAME = "curve"
FIGURE = True
#: the report's caption of its figure
CAPTION = ("A curve of the reproduction catalog (``results/{dataset}/catalog/<entry>.md`` names the paper's figure "
           "it mirrors): the learner's monitored metric on the training (solid) and validation (dashed) sets after "
           "each boosting round, the mean over the entry's folds and seeds, as recorded during training "
           '(``meta.json``).')
#: a curve's learners: boosted ones, whose meta.json keeps the per-round metric (fit_info.eval_history)
BOOSTED = ("xgboost", "lightgbm")
FIELDS = {
    "learners": _trained.learners_field("boosted learners whose per-round training and validation metric is drawn"),
    **_trained.RUN_FIELDS,
}
REQUIRED = ("learners",)
CLAIMS = {}


def learners(config: dict, entry: dict) -> list[str]:
    return list(entry["learners"])


def problems(config: dict, key: str, entry: dict, sections) -> list[str]:
    found = _trained.learner_problems(config, key, entry)
    known = config["learners"]
    for learner in entry["learners"]:
        if learner in known and known[learner]["kind"] not in BOOSTED:
            found.append(f"{key}.learners: {learner!r} is of kind {known[learner]['kind']!r}; a curve draws the "
                         f"per-round metric of a boosted learner ({', '.join(BOOSTED)})")
    return found


def claim_problems(where: str, claim: dict, entry: dict, config: dict) -> list[str]:
    return []


def params(config: dict, dataset: str, entry: dict) -> dict:
    return {}


def files(config: dict, dataset: str, name: str, entry: dict) -> dict:
    """Its runs' records (the per-round metric is in each meta.json)."""
    return {"meta": _trained.test_run_files(config, dataset, entry, learners(config, entry))["meta"]}


def benchmarks(config: dict, dataset: str, name: str, entry: dict) -> list[str]:
    return _trained.training_benchmarks(config, dataset, name, entry, learners(config, entry))


# -- the job ---------------------------------------------------------------------------------------------------


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


def markdown(table: pd.DataFrame, entry: dict, dataset: str) -> str:
    """Per learner and split, the best round of the mean curve and the value at the last round."""
    rows = []
    for (learner, split, metric), curve in table.groupby(["learner", "split", "metric"], sort=False):
        best = curve.loc[curve["mean"].idxmax()]
        last = curve.iloc[-1]
        rows.append({"learner": learner, "split": split, "metric": metric, "best round": int(best["round"]),
                     "best": f"{best['mean']:.4f}", "last round": int(last["round"]), "at last": f"{last['mean']:.4f}",
                     "runs at last": int(last["n_runs"])})
    return "".join([
        heading(entry, dataset, "Each learner's own validation metric and convention (its `eval_metric`, "
                                "`eval_convention`)."),
        "The monitored metric after each boosting round, mean over the runs (folds x seeds) that reached the round "
        "(a run stopped early reaches fewer); catalog/<entry>.csv has every round.\n\n",
        markdown_table(pd.DataFrame(rows)), params_section(entry["learner_params"]),
    ])


def plot(table: pd.DataFrame, outputs, title: str = "") -> None:
    """Training (solid) and validation (dashed) metric against the number of boosting rounds, one colour per
    learner, mean over runs."""
    from ..figures import finish_single, plt

    if table.empty:
        raise ValueError("no rows to plot")
    fig, ax = plt.subplots(figsize=(6.0, 3.8))
    styles = {"train": "-", "valid": "--"}
    for i, (learner, rows) in enumerate(table.groupby("learner", sort=False)):
        for (split, metric), curve in rows.groupby(["split", "metric"], sort=False):
            ax.plot(curve["round"], curve["mean"], color=f"C{i}", linestyle=styles.get(split, ":"),
                    label=f"{learner} ({split})")
            ax.set_ylabel(metric)
    ax.set_xlabel("number of trees (boosting rounds)")
    finish_single(fig, ax, title, outputs)


def make(files: dict, entry: dict, seed: int, dataset: str) -> Made:
    table = curve_table(_trained.read_meta(files["meta"]))
    tests = claims.claim_tests(entry, None, seed)
    return Made(table, tests, markdown(table, entry, dataset),
                lambda outputs: plot(table, outputs, title=f"{dataset}: {entry['paper']}, {entry['artefact']}"))
