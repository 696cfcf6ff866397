"""What the catalog's figures share (each kind draws its own, :mod:`ltrbv.sections.catalog.kinds`)."""

from __future__ import annotations

import textwrap

from ...plotting import plt, save_figure  # also selects the Agg backend

__all__ = ["finish_single", "plt", "save_figure"]


def finish_single(fig, ax, title: str, outputs) -> None:
    """Grid, legend and the wrapped title of a one-panel figure; write it."""
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(textwrap.fill(title, 70), fontsize=9)
    fig.tight_layout()
    save_figure(fig, outputs)
