"""Bootstrap-over-test-queries percentile intervals (ltrbv.biasvar.uncertainty)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from ltrbv.biasvar import decompose
from ltrbv.biasvar.uncertainty import (
    percentile_interval,
    query_bootstrap_interval,
    query_resample_counts,
    resampled_ratio_means,
)


def synthetic_study(n_queries, seed, n_models=5):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 15, size=n_queries)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    labels = rng.integers(0, 3, size=offsets[-1])
    scores = labels + rng.normal(scale=2.0, size=(n_models, offsets[-1]))
    data = SimpleNamespace(labels=labels, query_offsets=offsets,
                           qids=np.array([f"q{i}" for i in range(n_queries)]))
    return data, scores


def test_counts_are_draws_with_replacement():
    counts = query_resample_counts(7, 500, seed=1)
    assert counts.shape == (500, 7)
    assert np.all(counts.sum(axis=1) == 7)
    # each query is drawn 7 * 1/7 = 1 time per resample on average
    assert counts.mean() == pytest.approx(1.0, abs=0.05)
    assert np.array_equal(counts, query_resample_counts(7, 500, seed=1))
    assert not np.array_equal(counts, query_resample_counts(7, 500, seed=2))


def test_ratio_means_equal_a_loop_over_resampled_queries():
    """Per resample: the document mean over the drawn queries (with repeats), by brute force."""
    rng = np.random.default_rng(4)
    sizes = rng.integers(1, 6, size=9)
    per_doc = [rng.normal(size=s) for s in sizes]
    counts = query_resample_counts(9, 20, seed=3)
    fast = resampled_ratio_means(counts, [v.sum() for v in per_doc], sizes)
    for r in range(20):
        drawn = np.concatenate([per_doc[q] for q in range(9) for _ in range(counts[r, q])])
        assert fast[r] == pytest.approx(drawn.mean(), rel=1e-12)


def test_excluded_queries_are_ignored():
    counts = query_resample_counts(4, 50, seed=0)
    values = np.array([0.2, np.nan, 0.6, 0.4])
    means = resampled_ratio_means(counts, values, [1, 0, 1, 1])
    for r in range(50):
        kept = [values[q] for q in (0, 2, 3) for _ in range(counts[r, q])]
        assert means[r] == pytest.approx(np.mean(kept)) if kept else np.isnan(means[r])


def test_percentile_interval_matches_numpy_quantiles():
    estimates = np.random.default_rng(0).normal(size=1001)
    low, high = percentile_interval(estimates, 0.9)
    assert (low, high) == (pytest.approx(np.quantile(estimates, 0.05)), pytest.approx(np.quantile(estimates, 0.95)))
    with pytest.raises(ValueError):
        percentile_interval(estimates, 1.5)


def test_interval_of_a_mean_covers_and_has_the_normal_width():
    """For iid per-query values the 95% interval is about mean +- 1.96 sd / sqrt(n)."""
    values = np.random.default_rng(8).normal(loc=0.5, scale=0.2, size=400)
    low, high = query_bootstrap_interval(values, n_resamples=2000, seed=1)
    assert low < values.mean() < high
    half_width = 1.96 * values.std() / np.sqrt(values.size)
    assert (high - low) / 2 == pytest.approx(half_width, rel=0.15)


def test_decompose_intervals_contain_the_estimates_shrink_and_are_deterministic():
    small, small_scores = synthetic_study(30, seed=1)
    large, large_scores = synthetic_study(750, seed=2)
    a = decompose(small, small_scores, "bootstrap", metrics=("ndcg", "map"), n_resamples=400, seed=7)
    b = decompose(large, large_scores, "bootstrap", metrics=("ndcg", "map"), n_resamples=400, seed=7)
    for result in (a, b):
        summary = result.summary
        for name in ("bias2", "variance"):
            low, high = summary[f"{name}_ci"]
            assert low <= summary[name] <= high
        for metric in ("ndcg", "map"):
            for name in ("sre", "vre", "ranking_error", "vre_signed", "vre_squared"):
                low, high = summary["metrics"][metric][f"{name}_ci"]
                assert low <= summary["metrics"][metric][name] <= high, (metric, name)

    def width(result, *keys):
        entry = result.summary
        for key in keys[:-1]:
            entry = entry[key]
        low, high = entry[keys[-1]]
        return high - low

    for keys in (("bias2_ci",), ("variance_ci",), ("metrics", "ndcg", "sre_ci"),
                 ("metrics", "ndcg", "vre_ci"), ("metrics", "map", "ranking_error_ci")):
        assert width(b, *keys) < 0.5 * width(a, *keys), keys  # ~ sqrt(30/750) = 0.2

    again = decompose(small, small_scores, "bootstrap", metrics=("ndcg", "map"), n_resamples=400, seed=7)
    assert again.summary == a.summary
    other = decompose(small, small_scores, "bootstrap", metrics=("ndcg", "map"), n_resamples=400, seed=8)
    assert other.summary["bias2_ci"] != a.summary["bias2_ci"]
    assert other.summary["bias2"] == a.summary["bias2"]
