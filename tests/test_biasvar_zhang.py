"""Zhang, Song, Wang & Hou (2013): bias-variance of AP across queries (ltrbv.biasvar.zhang)."""

from __future__ import annotations

import numpy as np
import pytest

from ltrbv.biasvar import zhang_bias_variance

# Table 1 of the paper: AP of models A, B, C and the target T on queries q1, q2
TABLE1 = {"A": [0.3, 0.1], "B": [0.6, 0.08], "C": [0.65, 0.03], "T": [0.7, 0.2]}


def table1():
    return zhang_bias_variance(np.array(list(TABLE1.values())), target="T",
                               model_names=list(TABLE1)).set_index("model")


def test_table1_bias_and_variance_of_ap():
    table = table1()
    # MAP row and Bias row of Table 1
    assert table["mean"].to_dict() == pytest.approx({"A": 0.2, "B": 0.34, "C": 0.34, "T": 0.45})
    assert table["bias"].to_dict() == pytest.approx({"A": 0.25, "B": 0.11, "C": 0.11, "T": 0.0})
    # Var row: A and C and T as printed; B is printed 0.0646, but (0.6-0.34)^2 = (0.08-0.34)^2 = 0.0676
    assert table["variance"].to_dict() == pytest.approx({"A": 0.01, "B": 0.0676, "C": 0.0961, "T": 0.0625})
    # Bias^2 + Var row: A 0.0725, B 0.0797 and T 0.0625 as printed; C is printed 0.182 (= 0.0121 + 0.0961
    # is 0.1082)
    assert table["bias2_plus_variance"].to_dict() == pytest.approx(
        {"A": 0.0725, "B": 0.0797, "C": 0.1082, "T": 0.0625})


def test_table2_bias_and_variance_of_rho():
    table = table1()
    assert table["rho_variance"].to_dict() == pytest.approx({"A": 0.0225, "B": 0.0001, "C": 0.0036, "T": 0.0})
    assert table["rho_bias2_plus_variance"].to_dict() == pytest.approx(
        {"A": 0.0850, "B": 0.0122, "C": 0.0157, "T": 0.0})


def test_identities_of_eq_3_7_8_9_on_random_values():
    rng = np.random.default_rng(0)
    values = rng.uniform(size=(6, 40))
    target = rng.uniform(size=40)
    table = zhang_bias_variance(values, target=target)
    for s, row in table.iterrows():
        ap = values[s]
        # eq. 3: Bias^2 + Var = E(AP - MAP_T)^2
        assert row["bias2_plus_variance"] == pytest.approx(np.mean((ap - target.mean()) ** 2))
        # eq. 7: Var(rho) + Bias^2(rho) = E(AP - AP_T)^2
        assert row["rho_bias2_plus_variance"] == pytest.approx(np.mean((ap - target) ** 2))
        # eq. 9: E(AP - 1)^2 = (1 - MAP)^2 + Var(AP)
        assert row["error_to_one"] == pytest.approx(np.mean((ap - 1) ** 2))
        # eq. 8: E(AP - 1)^2 = E(AP - AP_T)^2 + E(AP_T - 1)^2 + 2 E(AP - AP_T)(AP_T - 1)
        assert row["error_to_one"] == pytest.approx(
            row["rho_bias2_plus_variance"] + row["target_error"] + 2 * np.mean((ap - target) * (target - 1)))
        assert row["variance"] == pytest.approx(np.var(ap))  # 1/n, as Table 1


def test_targets_perfect_and_best():
    values = np.array([[0.2, 0.9, 0.5], [0.6, 0.1, 0.5]])
    perfect = zhang_bias_variance(values, target="perfect")
    assert perfect["bias"].tolist() == pytest.approx([1 - 1.6 / 3, 1 - 1.2 / 3])
    assert perfect["rho_variance"].tolist() == pytest.approx(perfect["variance"].tolist())
    best = zhang_bias_variance(values, target="best")
    assert best["target_mean"].iloc[0] == pytest.approx((0.6 + 0.9 + 0.5) / 3)
    ideal = zhang_bias_variance(values, target="perfect", ideal=[1.0, 1.0, 0.0])
    assert ideal["target_mean"].iloc[0] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="unknown target"):
        zhang_bias_variance(values, target="nonesuch")
    with pytest.raises(ValueError, match="finite"):
        zhang_bias_variance(np.array([[0.1, np.nan]]))
