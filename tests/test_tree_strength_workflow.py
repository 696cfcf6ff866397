"""The tree-strength diagnostic (Fig. 7) through Snakemake, on the tiny synthetic config in a scratch directory."""

from __future__ import annotations

import pandas as pd
import pytest

from conftest import tiny_config
from test_workflow import run

FORESTS = {
    "lambdamart": {"kind": "xgboost", "threads": 1, "params": {"n_estimators": 20}},
    "rf-point": {"kind": "random_forest", "threads": 1, "params": {"splitting": "point", "n_estimators": 50}},
    "rf-list": {"kind": "random_forest", "threads": 1, "params": {"splitting": "list", "n_estimators": 50}},
}
CONFIG = {
    **tiny_config(learners=FORESTS),
    "diagnostics": {"tree_strength": {"enabled": True, "datasets": ["tiny"], "learners": ["rf-point", "rf-list"],
                                      "n_trees": 4,
                                      "max_expansions": 25}},
}
CONFIG["run"] = {**CONFIG["run"], "learners": ["lambdamart"]}
FIGURE = "results/tiny/figures/tree_strength.png"


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """The tree-strength diagnostic of the tiny config, run by Snakemake."""
    workdir = tmp_path_factory.mktemp("strength")
    run(workdir, CONFIG, FIGURE)
    return workdir


def test_tables_figure_logs_and_benchmarks(finished):
    base = finished / "results" / "tiny"
    for learner in ("rf-point", "rf-list"):
        table = pd.read_csv(base / f"diagnostics/tree_strength/{learner}.csv")
        assert list(table.columns) == ["expansion", "split", "mean_ndcg", "n_trees_active"]
        assert set(table.split) == {"train", "test"}
        assert table.expansion.max() <= 25 and (table[table.expansion == 0].n_trees_active == 4).all()
        assert table.mean_ndcg.between(0, 1).all()
        assert (base / f"logs/tree_strength/{learner}.log").read_text().count("grew 4 trees") == 1
        assert (base / f"benchmarks/tree_strength/{learner}.tsv").exists()
    for ext in ("png", "svg"):
        assert (base / f"figures/tree_strength.{ext}").stat().st_size > 1000
    assert not list((base / "diagnostics").rglob("*tmp*"))


def test_second_run_does_nothing(finished):
    result = run(finished, CONFIG, FIGURE, "--dry-run")
    assert "Nothing to be done" in result.stdout + result.stderr


def test_rule_all_requests_the_diagnostic(tmp_path):
    out = run(tmp_path, CONFIG, "--dry-run").stdout
    assert "rule tree_strength:" in out and "rule plot_tree_strength:" in out
    assert "results/tiny/diagnostics/tree_strength/rf-list.csv" in out and FIGURE in out


def test_a_non_forest_learner_is_a_config_error(tmp_path):
    bad = {**CONFIG, "diagnostics": {"tree_strength": {"learners": ["rf-point", "lambdamart"]}}}
    result = run(tmp_path, bad, "--dry-run", check=False)
    out = result.stdout + result.stderr
    assert result.returncode != 0 and "diagnostics.tree_strength.learners: 'lambdamart' is of kind 'xgboost'" in out
    assert not (tmp_path / "results").exists()
