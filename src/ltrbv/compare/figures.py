"""Per-query difference plot (as IR papers show them): for each system compared with the baseline and
each metric, one bar per query of ``system - baseline``, sorted, above zero where the system wins."""

from __future__ import annotations

from pathlib import Path


def difference_plot(comparison, path) -> Path:
    """Write the plot to ``path`` (PNG, written atomically); rows: systems compared, columns: metrics."""
    import matplotlib.pyplot as plt  # the package's __init__ has selected the Agg backend

    from ..io import atomic_path

    systems = [s for s in comparison.systems if s != comparison.baseline]
    metrics = comparison.metrics
    fig, axes = plt.subplots(len(systems), len(metrics), figsize=(4.2 * len(metrics), 2.6 * len(systems)),
                             squeeze=False, sharey="col")
    for i, system in enumerate(systems):
        for j, metric in enumerate(metrics):
            differences = comparison.differences(system, metric).sort_values(ascending=False, kind="stable").to_numpy()
            colours = ["tab:blue" if d > 0 else "tab:red" for d in differences]
            ax = axes[i][j]
            ax.bar(range(differences.size), differences, width=1.0, color=colours)
            ax.axhline(0.0, color="black", linewidth=0.6)
            ax.set_xlim(-0.5, differences.size - 0.5)
            ax.set_xticks([])
            ax.set_title(f"{metric}: {system} - {comparison.baseline}", fontsize=9)
            ax.set_xlabel(f"{differences.size} queries, sorted", fontsize=8)
    fig.tight_layout()
    path = Path(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=120)
    plt.close(fig)
    return path
