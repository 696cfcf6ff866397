"""The performance figure: the configured metric per fold and learner."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...plotting import plt, save_figure


def plot_performance(table: pd.DataFrame, metric: str, convention: str | None, outputs) -> None:
    """Grouped bars: one group per fold (and the mean), one bar per learner; error bars = std over seeds/folds."""
    if convention is None:
        convention = table["convention"].iloc[0]
    rows = table[(table["metric"] == metric) & (table["convention"] == convention)]
    if rows.empty:
        raise ValueError(f"no rows for metric {metric!r} and convention {convention!r} in the performance table")
    folds = list(dict.fromkeys(rows["fold"]))
    learners = list(dict.fromkeys(rows["learner"]))
    width = 0.8 / len(learners)
    fig, ax = plt.subplots(figsize=(1.2 + 1.1 * len(folds), 3.6))
    x = np.arange(len(folds))
    for i, learner in enumerate(learners):
        sel = rows[rows["learner"] == learner].set_index("fold").reindex(folds)
        ax.bar(x + (i - (len(learners) - 1) / 2) * width, sel["value"], width, yerr=sel["std"], capsize=2, label=learner)
    ax.set_xticks(x, folds)
    ax.set_ylabel(f"{metric} ({convention})")
    dataset = table["dataset"].iloc[0]
    ax.set_title(f"{dataset}: test {metric} per fold")
    low = float(np.nanmin(rows["value"] - rows["std"].fillna(0.0)))
    bottom = max(0.0, low - 0.1 * abs(low))
    ax.set_ylim(bottom, None)
    if bottom > 0:
        ax.annotate(f"y-axis starts at {bottom:.3g}", xy=(0.0, 0.0), xycoords="axes fraction", xytext=(2, 2),
                    textcoords="offset points", fontsize="x-small", color="0.35")
    ax.legend(fontsize="small", frameon=False)
    fig.tight_layout()
    save_figure(fig, outputs)
