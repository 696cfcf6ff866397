"""The bias-variance study through Snakemake on a tiny synthetic config: training sets, sweep, reducers,
tables, figures, summary and report (Ibrahim 2021 §5.2, §6; Zhang et al. 2013)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import tiny_config
from test_workflow import run

LEARNERS = {
    "lambdamart": {"kind": "xgboost", "threads": 1, "params": {"n_estimators": 20}},
    "rf-point": {"kind": "random_forest", "threads": 1, "params": {"splitting": "point", "n_estimators": 10}},
}
STUDY = {
    "enabled": True,
    "datasets": ["tiny"],
    "bootstrap": {"replicates": 3, "fraction": 0.63},
    "twofold": {"repetitions": 2},
    "sweep": {"learners": ["rf-point"], "param": "subsample", "values": [0.2, 0.5, 0.63]},
    "compare": {"learners": ["rf-point", "lambdamart"], "schemes": ["twofold"]},
    "uncertainty": {"resamples": 200},
    "significance": {"baseline": "lambdamart", "permutations": 500},
}


def study_config(**changes) -> dict:
    config = tiny_config(folds=("Fold1", "Fold2"), learners=LEARNERS)
    config["biasvar"] = {**STUDY, **changes}
    return config


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """The bias-variance study on a tiny config: samples, study models, reducers, tables, figures, report."""
    workdir = tmp_path_factory.mktemp("biasvar")
    run(workdir, study_config())
    return workdir


def _query_sets(base, scheme, names):
    return {name: json.loads((base / f"biasvar/samples/Fold1/{scheme}/rep{name}.json").read_text()) for name in names}


def test_training_sets_are_query_level_bootstrap_and_disjoint_halves(finished):
    base = finished / "results" / "tiny"
    boot = _query_sets(base, "bootstrap", ["1", "2", "3"])
    n = boot["1"]["n_queries"]
    for sample in boot.values():
        indices = sample["query_indices"]
        assert len(indices) == round(0.63 * n) and len(set(indices)) == len(indices)  # without replacement
    assert len({tuple(s["query_indices"]) for s in boot.values()}) == 3  # different sets
    two = _query_sets(base, "twofold", ["1a", "1b", "2a", "2b"])
    for j in ("1", "2"):
        a, b = set(two[f"{j}a"]["query_indices"]), set(two[f"{j}b"]["query_indices"])
        assert not a & b and a | b == set(range(n)) and abs(len(a) - len(b)) <= 1
    assert two["1a"]["query_indices"] != two["2a"]["query_indices"]


def test_sweep_skips_points_larger_than_the_training_set_and_sets_p_of_the_original(finished):
    reduced = finished / "results/tiny/biasvar/reduced/rf-point/Fold1"
    assert (reduced / "subsample=0.63/bootstrap.json").exists()
    assert not (reduced / "subsample=0.63/twofold.json").exists()  # two-fold stops at 0.5
    assert (reduced / "subsample=0.5/twofold.json").exists()
    meta = json.loads((finished / "results/tiny/biasvar/predictions/rf-point/Fold1/subsample=0.2/twofold/rep1a/"
                       "meta.json").read_text())
    n_orig, n_train = meta["original_train_queries"], meta["train_queries"]
    assert meta["params"]["subsample"] == pytest.approx(0.2 * n_orig / n_train)
    assert meta["scheme"] == "twofold" and meta["replicate"] == "1a" and meta["random_state"] > 0


def test_reducer_output_equals_the_cli_on_the_same_prediction_files(finished, capsys):
    from ltrbv.cli import main

    base = finished / "results/tiny"
    summary = json.loads((base / "biasvar/reduced/rf-point/Fold1/subsample=0.2/twofold.json").read_text())
    assert summary["n_models"] == 4 and summary["prediction_files"][1].endswith("rep1b/test.scores")
    files = [str(finished / p) for p in summary["prediction_files"]]
    assert main(["biasvar", "--data", str(base / "raw/Fold1/test.txt"), "--method", "twofold", "--scores", *files,
                 "--metric", "ndcg", "--convention", summary["convention"], "--resamples", "200"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["bias2"] == pytest.approx(summary["bias2"], rel=1e-12)
    assert cli["variance"] == pytest.approx(summary["variance"], rel=1e-12)
    assert cli["sre"] == pytest.approx(summary["metrics"]["ndcg"]["sre"], rel=1e-12)
    assert cli["vre"] == pytest.approx(summary["metrics"]["ndcg"]["vre"], rel=1e-12)
    per_query = pd.read_csv(base / "biasvar/reduced/rf-point/Fold1/subsample=0.2/twofold.csv")
    assert set(per_query["metric"]) == {"ndcg", "ndcg@10", "map"}


def test_tables_figures_summary_exist_and_agree(finished):
    base = finished / "results/tiny"
    sweep = pd.read_csv(base / "tables/biasvar_sweep.csv")
    assert {"bias2", "variance", "sre", "vre", "ranking_error", "vre_signed", "vre_squared"} <= set(sweep["quantity"])
    assert (sweep["ci_low"] <= sweep["estimate"] + 1e-12).all() and (sweep["estimate"] <= sweep["ci_high"] + 1e-12).all()
    boot_values = sorted(sweep[(sweep.scheme == "bootstrap") & (sweep.setting != "base")]["value"].unique())
    two_values = sorted(sweep[(sweep.scheme == "twofold") & (sweep.setting != "base")]["value"].unique())
    assert boot_values == [0.2, 0.5, 0.63] and two_values == [0.2, 0.5]
    comparison = pd.read_csv(base / "tables/biasvar_comparison.csv")
    assert set(comparison["learner"]) == {"rf-point", "lambdamart"} and set(comparison["scheme"]) == {"twofold"}
    row = sweep[(sweep.learner == "lambdamart") & (sweep.quantity == "sre") & (sweep.metric == "ndcg")]
    assert comparison[(comparison.learner == "lambdamart") & (comparison.metric == "ndcg")]["sre"].iloc[0] == \
        pytest.approx(row["estimate"].iloc[0])
    for name in ("biasvar_pointwise", "biasvar_listwise", "biasvar_ranking_error", "zhang_bias_variance"):
        assert (base / f"figures/{name}.png").stat().st_size > 5000, name
    zhang = pd.read_csv(base / "tables/zhang.csv")
    assert set(zhang["target"]) == {"perfect", "best"} and set(zhang["learner"]) == {"lambdamart", "rf-point"}
    assert np.allclose(zhang["bias2_plus_variance"], zhang["bias"] ** 2 + zhang["variance"])
    significance = pd.read_csv(base / "tables/significance.csv")
    assert set(significance["fold"]) == {"all", "Fold1", "Fold2"}
    summary = (base / "summary.md").read_text()
    for claim in ("Pointwise squared bias falls", "Pointwise variance rises", "Two-fold variance above bootstrap",
                  "SRE far above VRE", "Table 5 analogue"):
        assert claim in summary, claim
    # the claim engine's words and family, as on catalog.md (ltrbv.compare.claims)
    import re

    family = int(re.search(r"Family: the (\d+) tested claim\(s\) of this page, Holm-adjusted", summary).group(1))
    outcomes = {"**reproduced**", "**not reproduced**", "**contradicted**", "**inconclusive**"}
    verdicts = [cell.strip() for line in summary.splitlines() for cell in line.split("|") if cell.strip() in outcomes]
    assert family > 0 and len(verdicts) == family  # every tested row of the two trend tables, one family


def test_report_contains_every_figure_and_table_page(finished):
    built = run(finished, study_config())  # the report pages of the tables (rule report_page)
    assert built.returncode == 0
    pages = finished / "results/tiny/report"
    assert "<table>" in (pages / "summary.html").read_text() and "Pointwise variance rises" in \
        (pages / "summary.html").read_text()
    result = run(finished, study_config(), "--report", "report.html")
    html = (finished / "report.html").read_text(errors="replace")
    assert result.returncode == 0
    for name in ("biasvar_pointwise.png", "biasvar_listwise.png", "zhang_bias_variance.png", "summary.html",
                 "performance.html", "significance.html", "biasvar_trends.html", "zhang.html", "1. Summary"):
        assert name in html, name
    # the first page: the performance means and the summary (rule report_landing)
    assert "Performance on tiny" in html and "paper claims and what this run measured" in html


def test_study_config_errors_name_the_key_before_any_job(tmp_path):
    result = run(tmp_path, study_config(compare={"learners": ["nope"], "schemes": ["twofold"]}), "--dry-run",
                 check=False)
    assert result.returncode != 0 and "biasvar.compare.learners names 'nope'" in result.stdout + result.stderr
    result = run(tmp_path, study_config(bootstrap={"replicates": 1}), "--dry-run", check=False)
    assert result.returncode != 0 and "replicates" in result.stdout + result.stderr
    assert not (tmp_path / "results").exists() or not list((tmp_path / "results").rglob("*.scores"))


def test_adding_a_sweep_value_plans_only_its_jobs_and_the_aggregations(finished):
    from ltrbv.workflow.dryrun import parse_jobs

    sweep = {**STUDY["sweep"], "values": [0.2, 0.3, 0.5, 0.63]}
    result = run(finished, study_config(sweep=sweep), "--dry-run")
    jobs = [job for job in parse_jobs(result.stdout + result.stderr) if job.rule != "all"]
    trained = {(j.rule, j.get("setting")) for j in jobs if j.rule.startswith("train_biasvar")}
    # one job per scheme fits the new point's B (bootstrap) or 2J (two-fold) models
    assert trained == {("train_biasvar_bootstrap", "subsample=0.3"), ("train_biasvar_twofold", "subsample=0.3")}
    assert sum(j.rule.startswith("train_biasvar") for j in jobs) == 2
    assert {j.rule for j in jobs} == {"train_biasvar_bootstrap", "train_biasvar_twofold", "reduce_biasvar",
                                      "biasvar_tables", "plot_biasvar",
                                      "biasvar_summary", "report_page", "report_landing"}
