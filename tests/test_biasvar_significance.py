"""Paired significance tests over queries (ltrbv.biasvar.significance)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from ltrbv.biasvar import paired_randomization_test, paired_t_test, significance_marker


def exact_sign_flip_p(differences):
    """Exact two-sided p-value over all 2^n sign vectors (brute force)."""
    observed = abs(sum(differences))
    hits = 0
    for signs in itertools.product((-1, 1), repeat=len(differences)):
        hits += abs(sum(s * d for s, d in zip(signs, differences))) >= observed - 1e-12
    return hits / 2 ** len(differences)


def test_t_test_is_scipys_and_the_textbook_formula():
    rng = np.random.default_rng(0)
    a, b = rng.uniform(size=30), rng.uniform(size=30)
    t, p = paired_t_test(a, b)
    reference = stats.ttest_rel(a, b)
    assert (t, p) == (pytest.approx(reference.statistic), pytest.approx(reference.pvalue))
    d = a - b
    assert t == pytest.approx(d.mean() / (d.std(ddof=1) / np.sqrt(d.size)))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_randomization_p_equals_exact_enumeration_for_10_queries(seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(size=10)
    b = a - rng.normal(loc=0.08, scale=0.15, size=10)
    exact = exact_sign_flip_p((a - b).tolist())
    p = paired_randomization_test(a, b, n_permutations=20000, seed=seed)
    # Monte-Carlo standard error <= 0.5 / sqrt(20000) = 0.0035
    assert p == pytest.approx(exact, abs=0.015)


def test_randomization_p_approaches_the_t_test_for_many_queries():
    rng = np.random.default_rng(4)
    a = rng.uniform(size=300)
    b = a - rng.normal(loc=0.03, scale=0.2, size=300)
    _, t_p = paired_t_test(a, b)
    assert 0.02 < t_p < 0.5
    assert paired_randomization_test(a, b, n_permutations=20000, seed=0) == pytest.approx(t_p, abs=0.02)


def test_randomization_is_deterministic_and_validates():
    a, b = np.arange(5.0), np.arange(5.0)[::-1]
    assert paired_randomization_test(a, b, seed=3) == paired_randomization_test(a, b, seed=3)
    assert paired_randomization_test(a, a) == 1.0  # no difference: every flip ties
    with pytest.raises(ValueError, match="equal length"):
        paired_randomization_test(a, b[:3])


def test_markers():
    assert significance_marker(0.2) == ""
    assert significance_marker(0.03) == "*"
    assert significance_marker(0.003) == "**"
    assert significance_marker(0.003, difference=-0.1) == "†**"
    assert significance_marker(0.3, difference=-0.1) == ""
