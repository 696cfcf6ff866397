"""Figures of the catalog's entries: a sweep's metric and seconds per tree against the swept value, a curve's
metric per boosting round, a scores entry's distributions, and a grid's best of k (Ganjisaffar et al. Fig. 1)."""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import pandas as pd

from ...plotting import save_figure  # also selects the Agg backend


def plot_sweep(table: pd.DataFrame, metrics: list[str], param: str, outputs, title: str = "") -> None:
    """One panel per metric (mean over the pooled test queries with its 95% interval over queries, one line
    per learner) and a last panel of the training seconds per tree (per model when a model does not count its
    trees, e.g. a bag); the x-axis is the swept ``param``."""
    if table.empty:
        raise ValueError("no rows to plot")
    numeric = pd.api.types.is_numeric_dtype(table["value"])
    panels = len(metrics) + 1
    # seconds per tree when every model counts its trees (forests, boosting), else per model (e.g. bags)
    time_column = "seconds_per_tree" if table["seconds_per_tree"].notna().all() else "fit_seconds"
    fig, axes = plt.subplots(1, panels, figsize=(3.6 * panels, 3.4))
    for i, (learner, rows) in enumerate(table.groupby("learner", sort=False)):
        colour = f"C{i}"
        for ax, metric in zip(axes, metrics):
            m = rows[rows["metric"] == metric]
            x = m["value"] if numeric else range(len(m))
            ax.plot(x, m["mean"], marker="o", color=colour, label=learner)
            ax.fill_between(x, m["ci_low"], m["ci_high"], color=colour, alpha=0.15, linewidth=0)
            ax.set_ylabel(metric)
        t = rows.drop_duplicates("value")
        axes[-1].plot(t["value"] if numeric else range(len(t)), t[time_column], marker="o", color=colour,
                      label=learner)
    axes[-1].set_ylabel("training seconds per " + ("tree" if time_column == "seconds_per_tree" else "model"))
    values = table["value"].astype(float) if numeric else None
    wide_range = numeric and values.min() > 0 and values.max() / values.min() >= 20  # e.g. 100 ... 2000 trees
    for ax in axes:
        ax.set_xlabel(param + (" (log scale)" if wide_range else ""))
        ax.grid(alpha=0.3)
        if wide_range:
            ax.set_xscale("log")
        if not numeric:
            values = list(dict.fromkeys(table["value"]))
            ax.set_xticks(range(len(values)), [str(v) for v in values])
    axes[0].legend(fontsize=8)
    if title:
        fig.suptitle(textwrap.fill(title, 40 * panels), fontsize=10)
    fig.tight_layout()
    save_figure(fig, outputs)


def plot_curve(table: pd.DataFrame, outputs, title: str = "") -> None:
    """Training (solid) and validation (dashed) metric against the number of boosting rounds, one colour per
    learner, mean over runs."""
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
    _finish_single(fig, ax, title, outputs)


def plot_score_histograms(scores: dict, outputs, title: str = "") -> None:
    """Histograms (step outlines, common bins) of each model's validation scores (Ganjisaffar et al., Fig. 3)."""
    import numpy as np

    values = {name: np.asarray(v, dtype=float) for name, v in scores.items()}
    everything = np.concatenate(list(values.values()))
    bins = np.linspace(everything.min(), everything.max(), 60)
    fig, ax = plt.subplots(figsize=(6.0, 3.8))
    for i, (name, v) in enumerate(values.items()):
        ax.hist(v, bins=bins, histtype="step", linewidth=1.4, color=f"C{i}", label=name)
    ax.set_xlabel("validation score")
    ax.set_ylabel("documents")
    _finish_single(fig, ax, title, outputs)


def _finish_single(fig, ax, title: str, outputs) -> None:
    """Grid, legend and the wrapped title of a one-panel figure; write it."""
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(textwrap.fill(title, 70), fontsize=9)
    fig.tight_layout()
    save_figure(fig, outputs)


def plot_best_of_k(curve: pd.DataFrame, metric: str, outputs, title: str = "") -> None:
    """Ganjisaffar et al.'s Fig. 1: the expected validation (left) and test (right) metric of the best of k
    combinations by validation, against k (log scale); the test panel marks its peak."""
    fig, axes = plt.subplots(1, 2, figsize=(8.0, 3.4))
    for ax, split, colour in zip(axes, ("validation", "test"), ("C0", "C1")):
        ax.plot(curve["k"], curve[split], marker="o", color=colour)
        ax.set_xscale("log")
        ax.set_xticks(curve["k"], [str(int(k)) for k in curve["k"]])
        ax.minorticks_off()
        ax.set_xlabel("combinations tried, k (log scale)")
        ax.set_ylabel(f"{split} {metric}, best of k by validation")
        ax.grid(alpha=0.3)
    peak = curve.loc[curve["test"].idxmax()]
    axes[1].axvline(peak["k"], color="grey", linestyle=":", label=f"test peak at k = {int(peak['k'])}")
    axes[1].legend(fontsize=8)
    if title:
        fig.suptitle(textwrap.fill(title, 80), fontsize=10)
    fig.tight_layout()
    save_figure(fig, outputs)
