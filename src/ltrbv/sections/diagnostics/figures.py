"""Figure of the progressive strength of individual trees (Ibrahim & Carman 2016, Fig. 7)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from ...plotting import save_figure  # also selects the Agg backend

LINESTYLES = {"train": "-", "test": "--"}


def plot_tree_strength(tables: dict[str, pd.DataFrame], outputs, title: str = "") -> None:
    """Mean expected NDCG of single trees against the order of node expansion.

    ``tables`` maps a learner name to its tree-strength table (see
    :mod:`ltrbv.sections.diagnostics.tree_strength`).  One colour per learner, solid = training
    set, dashed = test set; as in the paper the curves start after the root
    split (expansion 1).  Left panel: linear x-axis (the paper's); right panel:
    logarithmic, which shows the first splits, where RF-list and RF-point differ.
    """
    if not tables:
        raise ValueError("no tree-strength tables to plot")
    fig, axes = plt.subplots(1, 2, figsize=(10.0, 3.8), sharey=True)
    for i, (learner, table) in enumerate(tables.items()):
        colour = f"C{i}"
        for split, style in LINESTYLES.items():
            rows = table[(table["split"] == split) & (table["expansion"] >= 1)].sort_values("expansion", kind="stable")
            if rows.empty:
                continue
            for ax in axes:
                ax.plot(rows["expansion"], rows["mean_ndcg"], color=colour, linestyle=style, linewidth=1.2,
                        label=f"{learner} ({split})")
    axes[0].set_ylabel("mean expected NDCG of a tree")
    for ax in axes:
        ax.set_xlabel("order of node expansion (breadth-first)")
        ax.grid(alpha=0.3)
    axes[1].set_xscale("log")
    axes[0].set_title("linear axis")
    axes[1].set_title("logarithmic axis")
    axes[0].legend(fontsize="small", frameon=False, loc="center right")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    save_figure(fig, outputs)
