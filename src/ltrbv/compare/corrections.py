"""Multiple-testing corrections of a family of p-values: Holm (1979) and Benjamini & Hochberg (1995).

Both return adjusted p-values in the input order (compare them with the level, e.g. 0.05).  A nan
p-value (a comparison not tested, e.g. two identical systems) stays nan and is not counted in the
family size m.

* Holm: ``p_(i) -> max_{j <= i} min(1, (m - j + 1) p_(j))`` over the sorted p-values; controls the
  family-wise error rate.
* Benjamini-Hochberg: ``p_(i) -> min_{j >= i} min(1, m p_(j) / j)``; controls the false discovery
  rate (as ``scipy.stats.false_discovery_control(p, method="bh")``).
"""

from __future__ import annotations

import numpy as np

CORRECTIONS = ("holm", "bh", "none")


def _tested(p_values) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"p-values must be a 1-D array, got shape {p.shape}")
    tested = ~np.isnan(p)
    if np.any((p[tested] < 0) | (p[tested] > 1)):
        raise ValueError("p-values must lie in [0, 1]")
    return p, tested


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error rate)."""
    p, tested = _tested(p_values)
    out = np.full(p.shape, np.nan)
    order = np.argsort(p[tested], kind="stable")
    m = order.size
    stepped = (m - np.arange(m)) * p[tested][order]
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(stepped))
    out[tested] = adjusted
    return out


def benjamini_hochberg(p_values) -> np.ndarray:
    """Benjamini-Hochberg step-up adjusted p-values (false discovery rate)."""
    p, tested = _tested(p_values)
    out = np.full(p.shape, np.nan)
    order = np.argsort(p[tested], kind="stable")
    m = order.size
    scaled = m * p[tested][order] / np.arange(1, m + 1)
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    out[tested] = adjusted
    return out


def adjust_p_values(p_values, correction: str = "holm") -> np.ndarray:
    """``correction`` is ``"holm"``, ``"bh"`` (Benjamini-Hochberg) or ``"none"`` (the p-values as they are)."""
    if correction == "holm":
        return holm(p_values)
    if correction == "bh":
        return benjamini_hochberg(p_values)
    if correction == "none":
        return _tested(p_values)[0].copy()
    raise ValueError(f"unknown correction {correction!r}; known: {', '.join(CORRECTIONS)}")
