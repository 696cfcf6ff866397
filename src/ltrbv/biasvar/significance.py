"""Paired significance tests over test queries between two systems' per-query metric values.

* :func:`paired_t_test`: two-sided paired t-test (``scipy.stats.ttest_rel``).
* :func:`paired_randomization_test`: two-sided paired randomisation test (Fisher's
  sign-flip permutation test of the mean difference): under H0 each per-query
  difference is equally likely to carry either sign.
* :func:`significance_marker`: the marks of Ibrahim & Carman (2016), as plain text:
  their "bold" (p < 0.05) is ``"*"``, "bold and italic" (p < 0.01) is ``"**"``, and their
  dagger (significantly *worse* than the baseline) is ``"†"`` in front of the stars.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

_CHUNK_ELEMENTS = 1 << 22  # sign-matrix cells per chunk (32 MiB of float64)


def _differences(system, baseline) -> np.ndarray:
    system = np.asarray(system, dtype=np.float64)
    baseline = np.asarray(baseline, dtype=np.float64)
    if system.ndim != 1 or system.shape != baseline.shape:
        raise ValueError(
            f"paired tests need two 1-D arrays of per-query values of equal length; got "
            f"{system.shape} and {baseline.shape}"
        )
    if system.size < 2:
        raise ValueError("paired tests need at least 2 queries")
    if not (np.all(np.isfinite(system)) and np.all(np.isfinite(baseline))):
        raise ValueError("per-query values must be finite: drop undefined queries from both systems first")
    return system - baseline


def paired_t_test(system, baseline) -> tuple[float, float]:
    """``(t, p)`` of the two-sided paired t-test of ``system - baseline`` over queries."""
    _differences(system, baseline)
    result = stats.ttest_rel(system, baseline, alternative="two-sided")
    return float(result.statistic), float(result.pvalue)


def paired_randomization_test(system, baseline, n_permutations: int = 10000, seed=0) -> float:
    """Two-sided p-value of the paired randomisation (sign-flip) test of the mean difference.

    Each of ``n_permutations`` random sign vectors s (uniform on {-1, +1}^n) gives the
    statistic ``|mean(s * d)|``; the p-value is ``(b + 1) / (n_permutations + 1)`` where b
    counts statistics >= the observed ``|mean(d)|`` (Phipson & Smyth 2010: never 0, a valid
    test; its expectation is within ``1/(n_permutations + 1)`` of the exact p-value over
    all 2^n sign vectors).  Vectorised in chunks of sign matrices; ``seed`` is an int or a
    ``numpy.random.Generator``.
    """
    if n_permutations < 1:
        raise ValueError(f"n_permutations must be >= 1, got {n_permutations}")
    differences = _differences(system, baseline)
    n = differences.size
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    observed = abs(differences.sum())
    tolerance = 1e-12 * max(np.abs(differences).sum(), 1e-300)  # equal sums up to rounding
    at_least = 0
    chunk = max(1, _CHUNK_ELEMENTS // n)
    for start in range(0, n_permutations, chunk):
        rows = min(chunk, n_permutations - start)
        signs = rng.integers(0, 2, size=(rows, n), dtype=np.int8) * 2 - 1
        at_least += int(np.count_nonzero(np.abs(signs @ differences) >= observed - tolerance))
    return (at_least + 1) / (n_permutations + 1)


def significance_marker(p_value: float, difference: float | None = None) -> str:
    """``"**"`` if p < 0.01, ``"*"`` if p < 0.05, else ``""``; prefixed by ``"†"`` when the
    difference (system - baseline) is negative and significant (Ibrahim & Carman 2016)."""
    if not np.isfinite(p_value):
        return ""
    stars = "**" if p_value < 0.01 else "*" if p_value < 0.05 else ""
    if stars and difference is not None and difference < 0:
        return "†" + stars
    return stars
