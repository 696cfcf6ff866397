"""Figures of the active-evaluation experiments (Figs. 2-6 of Sawade et al. 2013)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...plotting import plt, save_figure

MEASURE_TITLES = {"err": "ERR", "dcg": "DCG"}
METHOD_STYLES = {"passive": ("k", "o"), "active": ("C3", "s"), "active_uniD": ("C0", "^"), "active_uniC": ("C2", "v")}


def _curves(ax, part: pd.DataFrame, column: str) -> None:
    for method, rows in part.groupby("method", sort=False):
        rows = rows.sort_values("budget", kind="stable")
        color, marker = METHOD_STYLES.get(method, (None, "."))
        ax.errorbar(rows["budget"], rows[column], yerr=rows[f"{column}_se"], color=color, marker=marker,
                    markersize=3, capsize=2, linewidth=1, label=method)


def plot_error_curves(table: pd.DataFrame, kind: str, title: str, outputs) -> None:
    """Error vs budget, one column per measure (ERR left, DCG right as in the paper).

    ``estimate``: absolute estimation error (Fig. 2).  ``compare``: model-selection error
    (top, Fig. 3) and absolute error of the estimated difference (bottom, Figs. 4-5).
    """
    measures = [m for m in ("err", "dcg") if m in set(table["measure"])]
    rows = [("abs_error", "absolute estimation error")] if kind == "estimate" else [
        ("selection_error", "model-selection error"), ("abs_error", "|estimated - true difference|")]
    fig, axes = plt.subplots(len(rows), len(measures), figsize=(4.2 * len(measures), 3.2 * len(rows)),
                             squeeze=False)
    for c, measure in enumerate(measures):
        part = table[table["measure"] == measure]
        for r, (column, label) in enumerate(rows):
            ax = axes[r][c]
            _curves(ax, part, column)
            ax.set_xlabel("labeling budget Λ")
            ax.set_ylabel(f"{label} ({MEASURE_TITLES.get(measure, measure)})")
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize="small", frameon=False)
    fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    save_figure(fig, outputs)


def plot_sampling_distribution(costs, expected, q, draws: pd.DataFrame, budget: float, title: str, outputs) -> None:
    """Fig. 6: q(x) over (lambda(x), E[L | x; theta]) as a heatmap; queries drawn per method at ``budget``."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(9.5, 3.6), gridspec_kw={"width_ratios": [1.3, 1]})
    cells = left.hexbin(costs, expected, C=q * q.size, reduce_C_function=np.mean, gridsize=22, cmap="viridis",
                        mincnt=1)
    fig.colorbar(cells, ax=left, label="m · q(x) (1 = uniform)")
    left.set_xlabel("labeling cost λ(x)")
    left.set_ylabel("E[L(r(x), y) | x; θ]")
    left.axhline(float(np.mean(expected)), color="w", linewidth=0.8, linestyle="--")
    left.set_title("sampling distribution q* (eq. 16)", fontsize="small")
    rows = draws[np.isclose(draws["budget"], budget)]
    methods = list(rows["method"])
    colors = [METHOD_STYLES.get(m, ("C7", ""))[0] for m in methods]
    right.bar(range(len(methods)), rows["n_draws"], yerr=rows["n_draws_se"], color=colors, capsize=3)
    right.set_xticks(range(len(methods)), methods, rotation=20, fontsize="small")
    right.set_ylabel(f"queries drawn at Λ = {budget:g}")
    fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    save_figure(fig, outputs)


def plot_training_size(table: pd.DataFrame, first_share: float | None, title: str, outputs) -> None:
    """Fig. 5, bottom row: absolute error of the estimated difference at one budget against the share of the
    training half the second ranker was trained on, one column per measure (ERR left, DCG right)."""
    measures = [m for m in ("err", "dcg") if m in set(table["measure"])]
    fig, axes = plt.subplots(1, len(measures), figsize=(4.2 * len(measures), 3.2), squeeze=False)
    for ax, measure in zip(axes[0], measures):
        part = table[table["measure"] == measure]
        for method, rows in part.groupby("method", sort=False):
            rows = rows.sort_values("share", kind="stable")
            color, marker = METHOD_STYLES.get(method, (None, "."))
            ax.errorbar(rows["share"], rows["abs_error"], yerr=rows["abs_error_se"], color=color, marker=marker,
                        markersize=3, capsize=2, linewidth=1, label=method)
        label = "second ranker: share of the training half"
        if first_share is not None:
            label += f"\n(first ranker: {first_share:g})"
        ax.set_xlabel(label)
        ax.set_ylabel(f"abs. error of the difference ({MEASURE_TITLES.get(measure, measure)})")
        ax.set_title(f"Λ = {float(part['budget'].iloc[0]):g}", fontsize="small")
        ax.grid(alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize="small", frameon=False)
    fig.suptitle(title, fontsize="medium")
    fig.tight_layout(rect=(0, 0.07, 1, 1))  # the legend below the panels, clear of the curves
    save_figure(fig, outputs)
