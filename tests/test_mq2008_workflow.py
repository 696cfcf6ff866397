"""The real MQ2008 run through Snakemake reproduces the published LambdaMART figures (LETOR 4.0 conventions)."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml

from conftest import MQ2008, REPO, require
from test_workflow import run

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def mq2008_run(tmp_path_factory):
    """config/mq2008.yaml's core run (LambdaMART, RF-point, RF-rand; 5 folds) on the real MQ2008 data."""
    require(MQ2008 / "Fold5" / "test.txt")
    config = yaml.safe_load((REPO / "config" / "mq2008.yaml").read_text())
    config["datasets"]["mq2008"]["root"] = str(MQ2008)
    # RF-list and RF-hybrid take minutes per fold: their MQ2008 figures are measured outside CI (docs/learners.md#performance-on-mq2008)
    config["run"]["learners"] = ["lambdamart", "rf-point", "rf-rand"]
    # the bias-variance study and the tree diagnostics on MQ2008 take tens of minutes (measured outside CI)
    config["biasvar"] = {"enabled": False}
    config["diagnostics"] = {"tree_strength": {"enabled": False}}
    workdir = tmp_path_factory.mktemp("mq2008")
    run(workdir, config)
    return pd.read_csv(workdir / "results/mq2008/tables/performance.csv", dtype={"fold": str})


def value(table, metric, convention="letor4", learner="lambdamart", fold="mean"):
    row = table[(table.learner == learner) & (table.metric == metric) & (table.convention == convention) & (table.fold == fold)]
    assert len(row) == 1
    return float(row.value.iloc[0])


def test_lambdamart_matches_published_mq2008(mq2008_run):
    # Published (Ibrahim & Carman 2016, Table XV): NDCG@10 0.2302, MAP 0.4751, 5-fold mean, Eval-Score-4.0.pl.
    assert 0.220 <= value(mq2008_run, "ndcg@10") <= 0.240
    assert 0.465 <= value(mq2008_run, "map") <= 0.485


def test_rf_point_matches_published_mq2008(mq2008_run):
    # Published (Ibrahim & Carman 2016, Table XV): NDCG@10 0.2234, MAP 0.4693; an independent
    # scikit-learn build of the same forest gave 0.2230 / 0.4675.
    assert 0.2165 <= value(mq2008_run, "ndcg@10", learner="rf-point") <= 0.2305
    assert 0.460 <= value(mq2008_run, "map", learner="rf-point") <= 0.478


def test_rf_rand_matches_published_mq2008(mq2008_run):
    # Published (Table XV): RF-rand NDCG@10 0.2228.
    assert 0.210 <= value(mq2008_run, "ndcg@10", learner="rf-rand") <= 0.235


def test_all_folds_present(mq2008_run):
    assert set(mq2008_run.fold) == {"Fold1", "Fold2", "Fold3", "Fold4", "Fold5", "mean"}
    fold_rows = mq2008_run[(mq2008_run.fold != "mean") & (mq2008_run.metric == "map")]
    assert fold_rows.n_queries.isin([156, 157]).all()
