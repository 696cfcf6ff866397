"""Sawade et al. (2013), Fig. 5 bottom row: the training-size sweep of active evaluation (config
``active.training_size``), its generated models and experiments, its table, and the rules end to end."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import REPO, tiny_config
from ltrbv.active.experiments import training_size_table
from ltrbv.sections.active import grid as active_grid

SWEEP = {"first": "small", "second": "full", "query_fractions": [0.6, 0.8, 1.0], "budget": 4}
MODELS = {"full": {"kind": "rf_class", "params": {"n_estimators": 5}},
          "small": {"kind": "rf_class", "query_fraction": 0.5, "params": {"n_estimators": 5}}}


def section(**changes) -> dict:
    return {"enabled": True, "models": MODELS, "experiments": {}, "budgets": [2, 4, 6], "training_size": SWEEP,
            "heatmap": {"experiment": "training_size_q0.6"}} | changes


def test_one_model_and_one_comparison_per_share_and_the_second_itself_at_its_own_share():
    view = active_grid.settings({"active": section()})
    assert set(view["models"]) == {"full", "small", "full_q0.6", "full_q0.8"}  # share 1.0 is "full" itself
    assert view["models"]["full_q0.6"] == {**MODELS["full"], "query_fraction": 0.6}
    assert view["experiments"]["training_size_q1"]["rankers"] == ["small", "full"]
    assert view["experiments"]["training_size_q0.8"] == {
        "kind": "compare", "rankers": ["small", "full_q0.8"], "label_models": ["small", "full_q0.8"],
        "drop_fraction": 0.0, "title": "Fig. 5 (bottom row): small vs full on 0.8 of the training half"}
    # the user's own entries are left as they are, and a config without the sweep is unchanged
    plain = section(training_size=None)
    assert active_grid.settings({"active": plain}) is plain


def aggregate_table(truth: float, budgets=(2, 4, 6)) -> pd.DataFrame:
    rows = []
    for measure in ("dcg", "err"):
        for method in ("passive", "active"):
            for budget in budgets:
                error = truth / budget + (0.1 if method == "passive" else 0.0)
                rows.append({"measure": measure, "method": method, "budget": budget, "truth": truth,
                             "abs_error": error, "abs_error_se": error / 10, "selection_error": error / 2,
                             "selection_error_se": error / 20})
    return pd.DataFrame(rows)


def test_the_table_reads_each_experiment_at_the_budget():
    table = training_size_table({0.8: aggregate_table(0.3), 0.6: aggregate_table(0.2)}, 4)
    assert list(table["share"].unique()) == [0.6, 0.8] and set(table["budget"]) == {4.0}
    row = table[(table["share"] == 0.8) & (table["measure"] == "err") & (table["method"] == "passive")].iloc[0]
    assert row["abs_error"] == pytest.approx(0.3 / 4 + 0.1) and row["truth"] == 0.3
    assert row["abs_error_se"] == pytest.approx((0.3 / 4 + 0.1) / 10)
    with pytest.raises(ValueError, match="share 0.6 has no row at budget 5"):
        training_size_table({0.6: aggregate_table(0.2)}, 5)


def test_the_rules_make_the_table_and_the_figure(tmp_path):
    active = {"partitions": ["Fold1", "Fold2"], "repetitions": 100, "budgets": [2, 4, 6], "models": MODELS,
              "experiments": {}, "training_size": SWEEP, "heatmap": {"experiment": "training_size_q0.6"}}
    config = tiny_config(folds=("Fold1", "Fold2", "Fold3")) | {"active": active}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    base = tmp_path / "results" / "tiny" / "active"
    command = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory",
               str(tmp_path), "--configfile", str(tmp_path / "config.yaml"), "--cores", "2",
               "results/tiny/active/tables/training_size.md", "results/tiny/active/figures/training_size.png"]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-4000:]
    table = pd.read_csv(base / "tables" / "training_size.csv")
    assert sorted(table["share"].unique()) == [0.6, 0.8, 1.0]
    assert set(table["method"]) == {"passive", "active", "active_uniD", "active_uniC"}
    for share, name in ((0.6, "training_size_q0.6"), (1.0, "training_size_q1")):
        experiment = pd.read_csv(base / "tables" / f"{name}.csv")
        at = experiment[experiment["budget"] == 4].set_index(["measure", "method"])["abs_error"]
        got = table[table["share"] == share].set_index(["measure", "method"])["abs_error"]
        np.testing.assert_allclose(got.sort_index().to_numpy(), at.sort_index().to_numpy(), rtol=1e-9)
    assert (base / "figures" / "training_size.png").stat().st_size > 10_000
    assert "| ERR | 0.6 |" in (base / "tables" / "training_size.md").read_text()


@pytest.mark.parametrize("configs", [("demo.yaml", "active-demo.yaml"), ("mq2008.yaml", "active-mq2008.yaml")])
def test_the_shipped_active_configs_plan_the_bottom_row(configs):
    """Each shipped active config, merged over its data set's config as its header says, passes the checks
    and plans the Fig. 5 bottom row (placeholder folds stand in for MQ2008 where the data is absent)."""
    from ltrbv.workflow.plan import dry_run

    _, counts, _ = dry_run([str(REPO / "config" / name) for name in configs], placeholders=True)
    assert counts["active_training_size"] == 1
    assert counts["active_aggregate"] >= 5 + 8  # the five shares' comparisons and the default experiments
