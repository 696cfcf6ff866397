"""Cost models (ltrbv.workflow.costs): fitted exponents recover known power laws, a held-out size is predicted,
the constant work is separated, and what the calibration does not cover is priced with a wider uncertainty."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ltrbv.workflow import costs
from ltrbv.workflow.costs import DEFAULT_EXPONENTS, EXPONENT_BOUNDS, FEATURES, fit_group, fit_models


@pytest.fixture
def no_prior(monkeypatch):
    """The least-squares fit alone: the prior's pseudo-observations weigh LOG_NOISE / EXPONENT_PRIOR, here 0, so a
    noise-free law is recovered exactly (the prior's own effect is tested below)."""
    monkeypatch.setattr(costs, "LOG_NOISE", 0.0)


def rows(law, keys, sizes, noise=0.0, seed=0, **fixed):
    """A calibration table: one job per (key, docs) with work = law(key, features) (times lognormal noise)."""
    rng = np.random.default_rng(seed)
    out = []
    for key in keys:
        for docs in sizes[key] if isinstance(sizes, dict) else sizes:
            x = {"docs": float(docs), "list_length": 1.0, "trees": 1.0, "models": 1.0, "inputs": 1.0, **fixed}
            if callable(x["list_length"]):
                x["list_length"] = x["list_length"](docs)
            work = law(key, x) * math.exp(noise * rng.standard_normal())
            out.append({"rule": "train_model", "learner": key, "setting": "", "dataset": "d", "family": "forest-point",
                        "startup": 0.5, "work": work, **x})
    return pd.DataFrame(out)


K = {"a": 2e-5, "b": 7e-5, "c": 4e-4}


def power(e_docs=1.3, e_list=0.0, e_trees=1.0):
    return lambda key, x: K[key] * x["docs"] ** e_docs * x["list_length"] ** e_list * x["trees"] ** e_trees


def test_two_sizes_recover_a_known_exponent_and_every_intercept(no_prior):
    table = rows(power(1.3), K, [1_000, 4_000], trees=10.0)
    model = fit_group(table, ("train_model", "forest-point"))
    assert model.exponents["docs"] == pytest.approx(1.3, abs=1e-9)
    assert model.w0 == 0.0  # two sizes: no constant fitted
    for key, k in K.items():
        assert math.exp(model.intercepts[("train_model", key, "", "d")]) == pytest.approx(k, rel=1e-9)
    # the same slope from numpy's log-log line fit of one key alone (an independent oracle)
    one = table[table["learner"] == "b"]
    slope, _ = np.polyfit(np.log(one["docs"]), np.log(one["work"]), 1)
    assert model.exponents["docs"] == pytest.approx(slope, abs=1e-9)


def test_a_key_measured_at_one_size_borrows_its_groups_exponent(no_prior):
    sizes = {"a": [1_000, 4_000], "b": [1_000, 4_000], "c": [2_000]}
    model = fit_group(rows(power(1.3), K, sizes), ("train_model", "forest-point"))
    work, _, source = model.work(("train_model", "c", "", "d"), {**dict.fromkeys(FEATURES, 1.0), "docs": 700_000.0})
    assert source == "key"
    assert work == pytest.approx(K["c"] * 700_000 ** 1.3, rel=1e-9)


def test_a_held_out_size_is_predicted_within_noise():
    law = power(1.25)
    table = rows(law, K, [2_000, 8_000], noise=0.05, seed=3, trees=10.0)
    models = fit_models(table, training_rules=["train_model"])
    errors = []
    for key in K:
        x = {"docs": 32_000.0, "list_length": 1.0, "trees": 10.0, "models": 1.0, "inputs": 1.0}
        price = models.predict("train_model", "forest-point", key, "", "d", x)
        truth = 0.5 + law(key, x)
        errors.append(price["seconds"] / truth - 1)
        assert price["low"] < price["seconds"] < price["high"]
    assert max(map(abs, errors)) < 0.2


def test_a_constant_work_is_separated_with_three_sizes(no_prior):
    law = lambda key, x: 0.8 + K[key] * x["docs"] ** 1.2  # noqa: E731  (kernel loading + the variable part)
    table = rows(law, K, [500, 2_000, 8_000])
    model = fit_group(table, ("train_model", "forest-point"))
    assert model.w0 == pytest.approx(0.8, rel=1e-4)
    assert model.exponents["docs"] == pytest.approx(1.2, abs=1e-4)
    x = {**dict.fromkeys(FEATURES, 1.0), "docs": 700_000.0}
    work, _, _ = model.work(("train_model", "a", "", "d"), x)
    assert work == pytest.approx(law("a", x), rel=1e-3)
    # the power law alone, fitted on the two larger sizes, is biased low by the constant: what w0 is for
    biased = fit_group(table[table["docs"] > 500], ("train_model", "forest-point"))
    assert biased.exponents["docs"] < 1.15
    assert biased.work(("train_model", "a", "", "d"), x)[0] < 0.8 * law("a", x)


def test_features_not_varied_within_a_key_keep_their_prior_and_widen_the_uncertainty():
    # list length differs between keys only (a data set's shape): not an exponent the calibration measures
    table = pd.concat([rows(power(1.1), {"a": 0}, [1_000, 4_000], list_length=120.0),
                       rows(power(1.1), {"b": 0}, [1_000, 4_000], list_length=24.0)])
    model = fit_group(table, ("train_model", "forest-point"))
    assert "list_length" not in model.fitted and model.exponents["list_length"] == DEFAULT_EXPONENTS["list_length"]
    assert "trees" not in model.fitted and model.exponents["trees"] == 1.0
    key = ("train_model", "a", "", "d")
    x = {**dict.fromkeys(FEATURES, 1.0), "list_length": 120.0}
    near = model.work(key, {**x, "docs": 2_000.0})[1]
    far = model.work(key, {**x, "docs": 700_000.0})[1]
    longer = model.work(key, {**x, "docs": 700_000.0, "list_length": 500.0})[1]
    assert 0 < near < far < longer  # farther from the calibration, and an assumed exponent: wider


def test_list_length_is_fitted_where_a_key_varies_it(no_prior):
    law = power(1.0, e_list=0.7)
    table = pd.concat([rows(law, K, [1_000, 4_000], list_length=30.0),
                       rows(law, K, [1_000, 4_000], list_length=120.0)])
    model = fit_group(table, ("train_model", "forest-list"))
    assert "list_length" in model.fitted and model.exponents["list_length"] == pytest.approx(0.7, abs=1e-9)


def test_the_exponent_error_is_measured_on_the_largest_size(no_prior):
    # the true exponent bends: 1.0 up to 16,000 documents, 1.5 from there to the largest size; refitted on the
    # three smaller sizes (exponent 1, no constant) the model misses the largest by 0.5 log 4 over log(64k / 4k)
    law = lambda key, x: K[key] * x["docs"] * (max(x["docs"] / 16_000, 1.0) ** 0.5)  # noqa: E731
    model = fit_group(rows(law, K, [1_000, 4_000, 16_000, 64_000]), ("train_model", "forest-point"))
    assert model.exponent_sd_source == "held-out size"
    assert model.exponent_sd["docs"] == pytest.approx(0.5 * math.log(4) / math.log(16), rel=0.05)


def test_what_the_calibration_lacks_is_priced_by_a_fallback_with_a_wider_range():
    table = rows(power(1.2), K, [1_000, 4_000])
    table = pd.concat([table, table.assign(rule="evaluate", family="", learner="a", work=table["work"] / 100)])
    models = fit_models(table, training_rules=["train_model", "train_trial"])
    x = {**dict.fromkeys(FEATURES, 1.0), "docs": 50_000.0}
    calibrated = models.predict("train_model", "forest-point", "a", "", "d", x)
    other_learner = models.predict("train_model", "forest-point", "zzz", "", "d", x)
    other_family = models.predict("train_model", "forest-list", "a", "", "d", x)
    other_rule = models.predict("train_trial", "xgboost", "a", "", "d", x)
    other_data = models.predict("train_model", "forest-point", "a", "", "other", x)
    assert calibrated["source"] == "calibrated"
    assert other_learner["source"] == "calibrated: group median"
    assert other_data["source"] == "calibrated: another data set"
    assert other_family["source"] == "another family's model"
    assert other_rule["source"] == "rule not calibrated"
    width = lambda p: p["high"] / p["low"]  # noqa: E731
    assert width(calibrated) < width(other_learner) and width(calibrated) < width(other_rule)
    for price in (calibrated, other_learner, other_family, other_rule, other_data):
        assert price["seconds"] > 0.5  # every job priced, start-up included


def test_an_empty_calibration_is_refused():
    with pytest.raises(ValueError, match="no calibration jobs"):
        fit_models(pd.DataFrame())


def test_a_constant_is_fitted_only_where_one_key_has_three_sizes():
    # three distinct sizes in the group, but each key (here: a data set's) has two: the constant would be told apart
    # from the exponent by the keys' intercepts alone, which absorb any difference between keys
    law = lambda key, x: 0.8 + K[key] * x["docs"] ** 1.2  # noqa: E731
    table = rows(law, K, {"a": [500, 2_000], "b": [1_000, 4_000], "c": [2_000, 8_000]})
    model = fit_group(table, ("train_model", "forest-point"))
    assert model.sizes == 2 and model.w0 == 0.0


def test_fitted_exponents_stay_in_their_bounds_where_the_work_is_mostly_constant():
    # the calibration of a real rule (rf-rand, 10 trees, MSLR-shaped, 2026-11-27): 1.07, 1.00, 1.49 CPU-s at 1,944,
    # 7,178 and 29,473 documents; a free fit of w0 + c x^e put e at 8.05 and priced 723,412 documents at 10^29 s
    table = pd.DataFrame([{"rule": "train_model", "learner": "rf-rand", "setting": "", "dataset": "mslr10k",
                           "family": "forest-rand", "startup": 0.5, "work": work, "docs": docs, "list_length": 120.0,
                           "trees": 10.0, "models": 1.0, "inputs": 1.0}
                          for docs, work in ((1_944, 1.073), (7_178, 0.999), (29_473, 1.490))])
    model = fit_group(table, ("train_model", "forest-rand"))
    low, high = EXPONENT_BOUNDS
    assert low <= model.exponents["docs"] <= high
    work, _, _ = model.work(("train_model", "rf-rand", "", "mslr10k"),
                            {"docs": 723_412.0, "list_length": 120.0, "trees": 10.0, "models": 1.0, "inputs": 1.0})
    assert work < 1.49 * (723_412 / 29_473) ** high  # at most quadratic beyond the largest size
    # with the prior, the data's near-constant work keeps the exponent near linear: at most 1.5 (the free fit: 8.05)
    assert model.exponents["docs"] < 1.5


def test_the_prior_shrinks_a_measured_exponent_by_little(monkeypatch):
    # noise-free 1.9 (inside the bounds) from three keys at two sizes 4x apart: the posterior mode is the closed form
    # (sum of squared log-size deviations S, prior weight w): e = (S * 1.9 + w^2 * 1) / (S + w^2)
    table = rows(power(1.9), K, [1_000, 4_000])
    shrunk = fit_group(table, ("train_model", "forest-point")).exponents["docs"]
    spread = 3 * 2 * (math.log(4) / 2) ** 2
    weight = costs.LOG_NOISE / costs.EXPONENT_PRIOR
    assert shrunk == pytest.approx((spread * 1.9 + weight ** 2 * 1.0) / (spread + weight ** 2), abs=1e-9)
    assert 1.85 < shrunk < 1.9
    monkeypatch.setattr(costs, "LOG_NOISE", 0.0)
    assert fit_group(table, ("train_model", "forest-point")).exponents["docs"] == pytest.approx(1.9, abs=1e-9)
