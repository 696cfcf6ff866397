"""Everything reported about one paired comparison of two systems over the same queries.

Given per-query values ``system`` and ``baseline`` (one entry per query, same order) and the
differences ``d = system - baseline``:

* the mean difference with its percentile bootstrap interval over queries
  (:func:`ltrbv.biasvar.uncertainty.query_bootstrap_interval`);
* the two-sided paired t-test and paired randomisation test (:mod:`ltrbv.biasvar.significance`);
* Cohen's d of the paired differences, ``d_z = mean(d) / sd(d)`` (sd with n - 1);
* wins / ties / losses: queries with ``d > 0``, ``d == 0``, ``d < 0`` (a tie up to 1e-12, so that
  two computations of one value compare equal).

Two systems with identical values on every query are not tested: p-values and d are nan.
"""

from __future__ import annotations

import numpy as np

from ..biasvar.significance import paired_randomization_test, paired_t_test
from ..biasvar.uncertainty import query_bootstrap_interval

TIE_TOLERANCE = 1e-12


def cohens_d(differences) -> float:
    """Cohen's d_z of paired differences: their mean over their standard deviation (n - 1); nan if it is 0."""
    d = np.asarray(differences, dtype=np.float64)
    sd = d.std(ddof=1) if d.size > 1 else 0.0
    return float(d.mean() / sd) if sd > 0 else float("nan")


def wins_ties_losses(differences) -> tuple[int, int, int]:
    """Queries where the system is better (d > 0), equal (|d| <= 1e-12) and worse (d < 0)."""
    d = np.asarray(differences, dtype=np.float64)
    ties = np.abs(d) <= TIE_TOLERANCE
    return int(np.count_nonzero((d > 0) & ~ties)), int(np.count_nonzero(ties)), int(np.count_nonzero((d < 0) & ~ties))


def paired_comparison(system, baseline, n_permutations: int = 10000, seed=0, counts=None,
                      n_resamples: int = 1000, level: float = 0.95) -> dict:
    """A dict with ``difference``, ``difference_ci_low``/``_high``, ``t``, ``p_t``, ``p_randomisation``,
    ``cohens_d``, ``wins``, ``ties``, ``losses``.  ``seed`` seeds the randomisation test; ``counts``
    (from :func:`~ltrbv.biasvar.uncertainty.query_resample_counts`) shares bootstrap resamples with
    other quantities, else ``n_resamples`` are drawn with ``seed``."""
    system = np.asarray(system, dtype=np.float64)
    baseline = np.asarray(baseline, dtype=np.float64)
    differences = system - baseline
    low, high = query_bootstrap_interval(differences, counts=counts, n_resamples=n_resamples, level=level,
                                         seed=seed)
    wins, ties, losses = wins_ties_losses(differences)
    row = {"difference": float(differences.mean()), "difference_ci_low": low, "difference_ci_high": high,
           "t": np.nan, "p_t": np.nan, "p_randomisation": np.nan, "cohens_d": np.nan,
           "wins": wins, "ties": ties, "losses": losses}
    if ties == differences.size or differences.size < 2:
        return row
    row["t"], row["p_t"] = paired_t_test(system, baseline)
    row["p_randomisation"] = paired_randomization_test(system, baseline, n_permutations, seed)
    row["cohens_d"] = cohens_d(differences)
    return row
