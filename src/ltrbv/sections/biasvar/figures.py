"""Figures of the bias-variance study: Figs. 5, 6 and 7 of Ibrahim (2021) and Figs. 1-2 of Zhang et al. (2013)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .tables import SCHEME_LABELS
from ...plotting import plt, save_figure

_MARKERS = {"bootstrap": "o", "twofold": "s"}


def _sweep_rows(sweep: pd.DataFrame) -> pd.DataFrame:
    rows = sweep[sweep["setting"] != "base"].copy()
    rows["value"] = pd.to_numeric(rows["value"], errors="coerce")
    return rows.sort_values("value", kind="stable")  # ties (learners, schemes) keep their order on every CPU


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


def _finish(fig, axes, param: str, title: str, outputs, legend_loc: str = "best") -> None:
    for ax in axes:
        ax.set_xlabel(f"{param} (share of the original training queries)" if param == "subsample" else param)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="x-small", frameon=False, loc=legend_loc)
    fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    save_figure(fig, outputs)


def _paired_note(ax, trends: pd.DataFrame | None, quantity: str) -> None:
    """Write the paired test of the trend (largest minus smallest value, on the same test queries) into a panel:
    the error bars of single points are intervals over queries and can hide a change the pairing shows."""
    if trends is None or trends.empty:
        return
    rows = trends[(trends["comparison"] == "last_minus_first") & (trends["quantity"] == quantity)
                  & (trends["metric"] == "score")]
    lines = [f"{r.learner}, {SCHEME_LABELS.get(r.scheme, r.scheme)}: {r.last:g} − {r.first:g} = {r.difference:+.3g} "
             f"[{r.ci_low:+.3g}, {r.ci_high:+.3g}]" for r in rows.itertuples()]
    if lines:
        ax.text(0.0, -0.22, "paired over the same test queries (95% CI):\n" + "\n".join(lines),
                transform=ax.transAxes, fontsize="x-small", va="top", ha="left")


def plot_pointwise(sweep: pd.DataFrame, param: str, dataset: str, outputs, trends: pd.DataFrame | None = None) -> None:
    """Fig. 5 analogue: pointwise squared bias (eq. 5/7) and variance (eq. 6/8) of the scores against p, with the
    paired trend test of each quantity (``trends``: the study's trend table) written in its panel."""
    rows = _sweep_rows(sweep)
    fig, axes = plt.subplots(1, 2, figsize=(9, 4.4))
    for ax, quantity, label in ((axes[0], "bias2", "squared bias"), (axes[1], "variance", "variance")):
        _panel(ax, rows, quantity, "score")
        ax.set_ylabel(f"ensemble {label}")
        _paired_note(ax, trends, quantity)
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
    fig, axes = plt.subplots(1, len(schemes), figsize=(4.5 * len(schemes), 3.6), squeeze=False, sharex=True,
                             sharey=True)  # one x range and one y range: the panels compare at a glance
    for ax, scheme in zip(axes[0], schemes):
        _panel(ax, rows[rows["scheme"] == scheme], "ranking_error", metric)
        ax.set_ylabel(f"ranking error (1 - {metric})")
        ax.set_title(SCHEME_LABELS.get(scheme, scheme), fontsize="small")
    _finish(fig, list(axes[0]), param, f"{dataset}: ranking error", outputs, legend_loc="upper left")


def plot_zhang(table: pd.DataFrame, dataset: str, outputs) -> None:
    """Zhang et al. (2013) Figs. 1-2 analogues: bias² against variance, and bias² against bias² + variance.

    One point per (learner, metric, target): the colour says the metric and target, the marker the learner;
    both legends sit under the panels, so no label covers a point."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    fig, axes = plt.subplots(1, 2, figsize=(9, 4.4))
    markers = ["o", "s", "^", "D", "v", "P", "X", "*"]
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    learners = list(dict.fromkeys(table["learner"]))
    groups = list(dict.fromkeys(zip(table["metric"], table["target"])))
    for g, (metric, target) in enumerate(groups):
        rows = table[(table["metric"] == metric) & (table["target"] == target)]
        for row in rows.itertuples():
            marker = markers[learners.index(row.learner) % len(markers)]
            for ax, y in ((axes[0], row.variance), (axes[1], row.bias2_plus_variance)):
                ax.scatter(row.bias2, y, marker=marker, color=colours[g % len(colours)], s=40,
                           edgecolors="black", linewidths=0.4, zorder=3)
    axes[0].set_ylabel("variance across queries")
    axes[1].set_ylabel("bias² + variance")
    lo = min(0.0, float(np.nanmin(table["bias2"]))) if len(table) else 0.0
    hi = float(np.nanmax(table["bias2_plus_variance"])) if len(table) else 1.0
    axes[1].plot([lo, hi], [lo, hi], color="grey", lw=0.8, ls="--", zorder=1)
    for ax in axes:
        ax.set_xlabel("bias²")
        ax.grid(alpha=0.3)
    handles = [Patch(facecolor=colours[g % len(colours)], edgecolor="black", linewidth=0.4,
                     label=f"{metric}, target {target}") for g, (metric, target) in enumerate(groups)]
    handles += [Line2D([], [], ls="", marker=markers[i % len(markers)], color="0.6", markeredgecolor="black",
                       markeredgewidth=0.4, label=learner) for i, learner in enumerate(learners)]
    handles.append(Line2D([], [], color="grey", lw=0.8, ls="--", label="variance = 0 (right panel)"))
    fig.legend(handles=handles, loc="lower center", ncol=min(4, len(handles)), fontsize="x-small", frameon=False)
    fig.suptitle(f"{dataset}: bias and variance of the metric across test queries (Zhang et al. 2013)",
                 fontsize="medium")
    rows_of_legend = -(-len(handles) // min(4, len(handles)))
    fig.tight_layout(rect=(0, 0.02 + 0.05 * rows_of_legend, 1, 1))
    save_figure(fig, outputs)
