"""Figures of the bagging experiments (matplotlib, no display needed)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from ...plotting import save_figure  # also selects the Agg backend


def plot_bag_size(table: pd.DataFrame, outputs) -> None:
    """Ganjisaffar et al. (2011), Fig. 4: metric of the bag against the number of sub-models, one line per
    bag learner (e.g. without / with overfitting tolerance), mean over folds; band = mean std over draws."""
    rows = table[table["fold"] == "mean"].sort_values("n_models", kind="stable")
    fig, ax = plt.subplots(figsize=(5.0, 3.6))
    for learner, sel in rows.groupby("learner", sort=False):
        ax.plot(sel["n_models"], sel["value"], marker="o", markersize=3, label=learner)
        ax.fill_between(sel["n_models"], sel["value"] - sel["std"], sel["value"] + sel["std"], alpha=0.15)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    first = rows.iloc[0]
    ax.set_xlabel("Number of models in bagged ensemble")
    ax.set_ylabel(f"{first['split']} {first['metric']} ({first['convention']})")
    ax.set_title(f"{first['dataset']}: mean over folds of {int(first['draws'])} draws per size")
    ax.legend(fontsize="small", frameon=False)
    fig.tight_layout()
    save_figure(fig, outputs)
