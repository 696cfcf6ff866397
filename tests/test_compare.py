"""The statistics behind ``ltrbv compare`` and the workflow's significance table, against independent
oracles: scipy (ttest_rel, permutation_test, false_discovery_control, bootstrap) and a direct
transcription of Holm (1979)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ltrbv.compare import (adjust_p_values, benjamini_hochberg, cohens_d, compare_per_query, compare_scores, holm,
                           paired_comparison, wins_ties_losses)
from ltrbv.data.from_arrays import ranking_data


def holm_transcription(p):
    """Holm (1979), as written: sort ascending; the i-th (1-based) of m gets (m - i + 1) p_(i), made
    monotone by a running maximum, capped at 1; returned in the input order."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order, start=1):
        running = max(running, (m - rank + 1) * p[i])
        adjusted[i] = min(1.0, running)
    return adjusted


@pytest.mark.parametrize("seed", range(5))
def test_holm_equals_the_transcription_and_bh_equals_scipy(seed):
    rng = np.random.default_rng(seed)
    p = rng.random(int(rng.integers(1, 12))) ** 3
    p[rng.random(p.size) < 0.2] = p[0]  # ties
    np.testing.assert_allclose(holm(p), holm_transcription(list(p)), rtol=1e-15)
    np.testing.assert_allclose(benjamini_hochberg(p), stats.false_discovery_control(p, method="bh"), rtol=1e-13)
    np.testing.assert_array_equal(adjust_p_values(p, "none"), p)


def test_untested_comparisons_are_not_in_the_family():
    p = np.array([0.01, np.nan, 0.04, 0.03])
    tested = p[~np.isnan(p)]
    assert np.isnan(holm(p)[1]) and np.isnan(benjamini_hochberg(p)[1])
    np.testing.assert_allclose(holm(p)[[0, 2, 3]], holm_transcription(list(tested)))
    np.testing.assert_allclose(benjamini_hochberg(p)[[0, 2, 3]], stats.false_discovery_control(tested))
    with pytest.raises(ValueError, match="unknown correction 'bonferroni'"):
        adjust_p_values(p, "bonferroni")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm([0.5, 1.5])


def paired_values(seed, n=156, shift=0.015):
    """Per-query values of two systems on n queries (MQ2008 Fold1 has 156), the first 20 tied."""
    rng = np.random.default_rng(seed)
    baseline = rng.beta(2, 5, n)
    system = np.clip(baseline + shift + rng.normal(0, 0.12, n), 0, 1)
    system[:20] = baseline[:20]  # ties, as queries without relevant documents give
    return system, baseline


@pytest.mark.parametrize("seed", range(3))
def test_paired_comparison_against_scipy(seed):
    system, baseline = paired_values(seed)
    row = paired_comparison(system, baseline, n_permutations=20000, seed=seed)
    t = stats.ttest_rel(system, baseline)
    assert row["t"] == pytest.approx(t.statistic, rel=1e-12) and row["p_t"] == pytest.approx(t.pvalue, rel=1e-12)
    scipy_p = stats.permutation_test((system, baseline), lambda x, y, axis: np.mean(x - y, axis=axis),
                                     permutation_type="samples", n_resamples=20000, vectorized=True,
                                     alternative="two-sided", random_state=seed + 100).pvalue
    # both are Monte-Carlo estimates of one exact p-value from 20000 draws each
    error = 5 * np.sqrt(scipy_p * (1 - scipy_p) * 2 / 20000) + 2 / 20000
    assert 0.001 < scipy_p < 0.9, "pick data whose p-value the comparison can resolve"
    assert abs(row["p_randomisation"] - scipy_p) < error
    d = system - baseline
    assert row["difference"] == pytest.approx(d.mean(), rel=1e-12)
    assert row["cohens_d"] == pytest.approx(d.mean() / np.std(d, ddof=1), rel=1e-12)
    assert (row["wins"], row["ties"], row["losses"]) == (int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()))
    assert row["ties"] >= 20
    scipy_ci = stats.bootstrap((d,), np.mean, n_resamples=20000, method="percentile", random_state=seed).confidence_interval
    width = scipy_ci.high - scipy_ci.low
    assert row["difference_ci_low"] == pytest.approx(scipy_ci.low, abs=0.08 * width)
    assert row["difference_ci_high"] == pytest.approx(scipy_ci.high, abs=0.08 * width)


def test_randomisation_equals_scipys_exact_permutation_test_for_12_queries():
    rng = np.random.default_rng(3)
    baseline = rng.random(12)
    system = baseline + rng.normal(0.15, 0.3, 12)
    exact = stats.permutation_test((system, baseline), lambda x, y, axis: np.mean(x - y, axis=axis),
                                   permutation_type="samples", n_resamples=np.inf, vectorized=True).pvalue
    ours = paired_comparison(system, baseline, n_permutations=50000, seed=1)["p_randomisation"]
    assert abs(ours - exact) < 5 * np.sqrt(exact * (1 - exact) / 50000) + 1e-4


def test_cohens_d_and_wins_ties_losses():
    assert cohens_d([1.0, 2.0, 3.0]) == pytest.approx(2.0)  # mean 2, sd 1
    assert np.isnan(cohens_d([0.5, 0.5]))
    assert wins_ties_losses([0.1, 0.0, 1e-13, -0.2, -1e-13]) == (1, 3, 1)


def test_identical_systems_are_not_tested():
    values = np.linspace(0, 1, 30)
    row = paired_comparison(values, values.copy())
    assert np.isnan(row["p_t"]) and np.isnan(row["p_randomisation"]) and np.isnan(row["cohens_d"])
    assert (row["wins"], row["ties"], row["losses"]) == (0, 30, 0)


def three_systems(seed=0, n=120):
    base, _ = paired_values(seed, n)
    rng = np.random.default_rng(seed + 10)
    return {"base": base, "better": np.clip(base + 0.08 + rng.normal(0, 0.1, n), 0, 1),
            "same": np.clip(base + rng.normal(0, 0.1, n), 0, 1)}


@pytest.mark.parametrize("correction", ["holm", "bh", "none"])
def test_compare_per_query_corrects_each_metrics_family(correction):
    ndcg, ap = three_systems(0), three_systems(1)
    per_query = {name: {"ndcg@10": ndcg[name], "map": ap[name]} for name in ndcg}
    result = compare_per_query(per_query, baseline="base", correction=correction, n_permutations=2000)
    table = result.table.set_index(["system", "metric"])
    oracle = {"holm": holm_transcription, "bh": lambda p: stats.false_discovery_control(p, method="bh"),
              "none": lambda p: p}[correction]
    for metric, values in (("ndcg@10", ndcg), ("map", ap)):
        raw = [stats.ttest_rel(values[name], values["base"]).pvalue for name in ("better", "same")]
        got = [table.loc[(name, metric), "p_t_adjusted"] for name in ("better", "same")]
        np.testing.assert_allclose(got, oracle(raw), rtol=1e-10)
        rand = [table.loc[(name, metric), "p_randomisation"] for name in ("better", "same")]
        np.testing.assert_allclose([table.loc[(n, metric), "p_randomisation_adjusted"] for n in ("better", "same")],
                                   oracle(rand), rtol=1e-10)
        assert table.loc[("base", metric), "mean"] == pytest.approx(values["base"].mean())
        low, high = table.loc[("base", metric), ["ci_low", "ci_high"]]
        assert low < values["base"].mean() < high
        assert np.isnan(table.loc[("base", metric), "p_t"])
    assert table.loc[("better", "ndcg@10"), "p_t_adjusted"] < 1e-6
    assert result.correction == correction and result.to_dict()["rows"][0]["p_t"] is None


def test_compare_per_query_drops_undefined_queries_and_refuses_bad_input():
    values = three_systems(2, n=50)
    values["same"] = values["same"].copy()
    values["same"][:5] = np.nan  # excluded queries (empty_query_value = nan conventions)
    result = compare_per_query({k: {"ndcg": v} for k, v in values.items()}, n_permutations=500)
    assert set(result.table["n_queries"]) == {45}
    kept = slice(5, None)
    assert result.table.set_index("system").loc["better", "p_t"] == pytest.approx(
        stats.ttest_rel(values["better"][kept], values["base"][kept]).pvalue)
    with pytest.raises(ValueError, match="at least 2 systems"):
        compare_per_query({"a": {"map": [0.1, 0.2]}})
    with pytest.raises(ValueError, match="baseline 'zzz' is not one of the systems"):
        compare_per_query({"a": {"map": [0.1, 0.2]}, "b": {"map": [0.2, 0.3]}}, baseline="zzz")
    with pytest.raises(ValueError, match="system 'b' has no per-query values of 'map'"):
        compare_per_query({"a": {"map": [0.1, 0.2]}, "b": {"ndcg": [0.2, 0.3]}})
    with pytest.raises(ValueError, match="unknown correction"):
        compare_per_query({"a": {"map": [0.1, 0.2]}, "b": {"map": [0.2, 0.3]}}, correction="sidak")


def test_compare_scores_evaluates_each_system_with_normalised_metric_names():
    rng = np.random.default_rng(4)
    sizes = rng.integers(2, 15, 80)
    qid = np.repeat(np.arange(80), sizes)
    labels = rng.integers(0, 3, qid.size)
    data = ranking_data(qid, labels)
    good = labels + rng.normal(0, 1.0, qid.size)
    bad = rng.normal(0, 1.0, qid.size)
    result = compare_scores(data, {"bad": bad, "good": good}, metrics=["ndcg_cut_10", "map", "P_5"],
                            convention="trec_eval", n_permutations=500)
    assert result.metrics == ("nDCG@10", "AP", "P@5") and result.baseline == "bad"
    from ltrbv.metrics import evaluate

    expected = evaluate(good, labels, data.query_offsets, ["nDCG@10"], convention="trec_eval")["nDCG@10"]
    table = result.table.set_index(["system", "metric"])
    assert table.loc[("good", "nDCG@10"), "mean"] == pytest.approx(expected.mean())
    assert table.loc[("good", "AP"), "difference"] > 0 and table.loc[("good", "AP"), "p_t_adjusted"] < 0.01
    assert list(result.per_query.index[:3]) == ["0", "1", "2"]
