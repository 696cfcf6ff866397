"""Figures of the bias-variance study: Figs. 5, 6 and 7 of Ibrahim (2021) and Figs. 1-2 of Zhang et al. (2013)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..plots import plt, save_figure
from .tables import SCHEME_LABELS

_MARKERS = {"bootstrap": "o", "twofold": "s"}


def _sweep_rows(sweep: pd.DataFrame) -> pd.DataFrame:
    rows = sweep[sweep["setting"] != "base"].copy()
    rows["value"] = pd.to_numeric(rows["value"], errors="coerce")
    return rows.sort_values("value")


def _panel(ax, rows: pd.DataFrame, quantity: str, metric: str, label_prefix: str = "") -> bool:
    drawn = False
    for (learner, scheme), line in rows[(rows["quantity"] == quantity) & (rows["metric"] == metric)].groupby(
            ["learner", "scheme"], sort=False):
        line = line.groupby("value", as_index=False)[["estimate", "ci_low", "ci_high"]].mean()  # over folds
        err = np.vstack([line["estimate"] - line["ci_low"], line["ci_high"] - line["estimate"]])
        ax.errorbar(line["value"], line["estimate"], yerr=np.clip(err, 0, None), marker=_MARKERS.get(scheme, "^"),
                    capsize=2, label=f"{label_prefix}{learner}, {SCHEME_LABELS.get(scheme, scheme)}")
        drawn = True
    return drawn


def _finish(fig, axes, param: str, title: str, outputs) -> None:
    for ax in axes:
        ax.set_xlabel(f"{param} (share of the original training queries)" if param == "subsample" else param)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="x-small", frameon=False)
    fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    save_figure(fig, outputs)


def plot_pointwise(sweep: pd.DataFrame, param: str, dataset: str, outputs) -> None:
    """Fig. 5 analogue: pointwise squared bias (eq. 5/7) and variance (eq. 6/8) of the scores against p."""
    rows = _sweep_rows(sweep)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, quantity, label in ((axes[0], "bias2", "squared bias"), (axes[1], "variance", "variance")):
        _panel(ax, rows, quantity, "score")
        ax.set_ylabel(f"ensemble {label}")
    _finish(fig, axes, param, f"{dataset}: pointwise bias² and variance (bootstrap and repeated two-fold)", outputs)


def plot_listwise(sweep: pd.DataFrame, param: str, metric: str, dataset: str, outputs) -> None:
    """Fig. 6 analogue: SRE (eq. 14/16) and VRE (eq. 15/17) against p."""
    rows = _sweep_rows(sweep)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, quantity, label in ((axes[0], "sre", "SRE"), (axes[1], "vre", "VRE")):
        _panel(ax, rows, quantity, metric)
        ax.set_ylabel(f"{label} ({metric})")
    _finish(fig, axes, param, f"{dataset}: systematic ranking error and variability ({metric})", outputs)


def plot_ranking_error(sweep: pd.DataFrame, param: str, metric: str, dataset: str, outputs) -> None:
    """Fig. 7 analogue: ranking error (mean 1 - metric of the individual models) against p, one panel per scheme."""
    rows = _sweep_rows(sweep)
    schemes = [s for s in ("bootstrap", "twofold") if s in set(rows["scheme"])] or ["bootstrap"]
    fig, axes = plt.subplots(1, len(schemes), figsize=(4.5 * len(schemes), 3.6), squeeze=False)
    for ax, scheme in zip(axes[0], schemes):
        _panel(ax, rows[rows["scheme"] == scheme], "ranking_error", metric)
        ax.set_ylabel(f"ranking error (1 - {metric})")
        ax.set_title(SCHEME_LABELS.get(scheme, scheme), fontsize="small")
    _finish(fig, list(axes[0]), param, f"{dataset}: ranking error", outputs)


def plot_zhang(table: pd.DataFrame, dataset: str, outputs) -> None:
    """Zhang et al. (2013) Figs. 1-2 analogues: bias² against variance, and bias² against bias² + variance,
    one point per learner, one colour per target, one marker per metric."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8))
    markers = ["o", "s", "^", "D", "v"]
    metrics = list(dict.fromkeys(table["metric"]))
    for (target, metric), rows in table.groupby(["target", "metric"], sort=False):
        marker = markers[metrics.index(metric) % len(markers)]
        for ax, y in ((axes[0], "variance"), (axes[1], "bias2_plus_variance")):
            ax.scatter(rows["bias2"], rows[y], marker=marker, label=f"{metric}, target {target}")
            for _, row in rows.iterrows():
                ax.annotate(row["learner"], (row["bias2"], row[y]), fontsize="xx-small", xytext=(2, 2),
                            textcoords="offset points")
    axes[0].set_ylabel("variance across queries")
    axes[1].set_ylabel("bias² + variance")
    lo = float(np.nanmin(table["bias2"])) if len(table) else 0.0
    hi = float(np.nanmax(table["bias2_plus_variance"])) if len(table) else 1.0
    axes[1].plot([lo, hi], [lo, hi], color="grey", lw=0.8, ls="--", label="bias² + variance = bias²")
    for ax in axes:
        ax.set_xlabel("bias²")
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize="xx-small", frameon=False)
    fig.suptitle(f"{dataset}: bias and variance of the metric across test queries (Zhang et al. 2013)",
                 fontsize="medium")
    fig.tight_layout()
    save_figure(fig, outputs)
