"""The active-evaluation rules end to end on a tiny synthetic config, in a scratch directory."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import REPO, tiny_config

ACTIVE = {
    "partitions": ["Fold1", "Fold2"],
    "repetitions": 200,
    "budgets": [2, 4, 6, 8],
    "models": {"rf_class": {"kind": "rf_class", "params": {"n_estimators": 5}},
               "logit": {"kind": "ordered_logit", "params": {"prior_variances": [1.0]}}},
    "experiments": {
        "estimate_rf_class": {"kind": "estimate", "rankers": ["rf_class"], "label_models": ["rf_class"]},
        "compare_logit_rf_class": {"kind": "compare", "rankers": ["logit", "rf_class"],
                                   "label_models": ["logit", "rf_class"]},
        "index_update": {"kind": "compare", "rankers": ["rf_class", "rf_class"], "label_models": ["rf_class"],
                         "drop_fraction": 0.1},
    },
}


def test_active_rules_write_tables_and_figures(tmp_path):
    config = tiny_config(folds=("Fold1", "Fold2", "Fold3")) | {"active": ACTIVE}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    base = tmp_path / "results" / "tiny" / "active"
    targets = ["results/tiny/active/tables/savings.md", "results/tiny/active/figures/sampling_distribution.png"]
    command = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory",
               str(tmp_path), "--configfile", str(tmp_path / "config.yaml"), "--cores", "2"]
    result = subprocess.run(command + targets, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-4000:]
    savings = pd.read_csv(base / "tables" / "savings.csv")
    assert set(savings["experiment"]) == set(ACTIVE["experiments"])
    assert set(savings["method"]) == {"active", "active_uniD", "active_uniC"}
    # Sawade et al. judge a comparison by model-selection error (Fig. 3), an estimate by absolute error (Fig. 2)
    kinds = {name: spec["kind"] for name, spec in ACTIVE["experiments"].items()}
    for row in savings.itertuples():
        assert row.error == ("selection_error" if kinds[row.experiment] == "compare" else "abs_error"), row
        assert np.isnan(row.abs_savings) == (kinds[row.experiment] != "compare"), row
    compare = next(name for name, kind in kinds.items() if kind == "compare")
    curves = pd.read_csv(base / "tables" / f"{compare}.csv")
    top = curves[curves["budget"] == curves["budget"].max()].set_index(["measure", "method"])
    for row in savings[savings["experiment"] == compare].itertuples():
        assert row.passive_error == pytest.approx(top.loc[(row.measure, "passive"), "selection_error"], abs=1e-6)
        assert row.method_error == pytest.approx(top.loc[(row.measure, row.method), "selection_error"], abs=1e-6)
        assert row.abs_method_error == pytest.approx(top.loc[(row.measure, row.method), "abs_error"], rel=1e-5)
    table = pd.read_csv(base / "tables" / "index_update.csv")
    assert (table["partitions"] == 2).all() and set(table["budget"]) == {2, 4, 6, 8}
    assert (table["abs_error"] >= 0).all() and table["abs_error_se"].gt(0).any()
    for name in ("estimate_rf_class", "compare_logit_rf_class", "index_update", "sampling_distribution"):
        assert (base / "figures" / f"{name}.png").stat().st_size > 1000
        assert (base / "figures" / f"{name}.svg").exists()
    again = subprocess.run(command + targets + ["--dry-run"], capture_output=True, text=True)
    assert "Nothing to be done" in again.stdout + again.stderr
