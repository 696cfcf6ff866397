"""Plotting for every figure of the workflow and the CLIs (matplotlib, no display needed): each section draws its
own figures (``ltrbv.sections.<name>.figures``) through :func:`save_figure`.

Importing this package selects the Agg backend and a fixed SVG hash salt, so the same table always gives
the same SVG; :func:`save_figure` writes each format atomically, without a date.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "ltrbv"  # stable element ids: the same table gives the same SVG

import matplotlib.pyplot as plt  # noqa: E402

from .io import atomic_path  # noqa: E402


def save_figure(fig, outputs) -> None:
    """Write a figure to each path (format from the suffix) atomically, without a date, then close it."""
    for path in outputs:
        with atomic_path(path) as tmp:
            fmt = str(path).rsplit(".", 1)[-1]
            fig.savefig(tmp, format=fmt, dpi=150, metadata={"Date": None} if fmt in ("svg", "pdf") else None)
    plt.close(fig)
