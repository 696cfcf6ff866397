"""``ltrbv plan``: the paper-scale job grid from a dry run on placeholder folds, and the core-hours estimate."""

from __future__ import annotations

import pytest
import yaml

from conftest import REPO
from ltrbv.cli import main
from ltrbv.workflow.dryrun import Job
from ltrbv.workflow.plan import calibration_costs, calibration_targets, dry_run, estimate, merge


@pytest.fixture(scope="module")
def paper_plan():
    """ltrbv plan's dry run of config/paper.yaml on placeholder folds."""
    return dry_run([str(REPO / "config" / "paper.yaml")], placeholders=True)


def test_paper_grid_has_every_study_job(paper_plan):
    jobs, counts, _ = paper_plan
    paper = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    study = paper["biasvar"]
    B, J = study["bootstrap"]["replicates"], study["twofold"]["repetitions"]
    values = study["sweep"]["values"]
    n_boot = sum(v <= 0.63 for v in values)
    n_two = sum(v <= 0.5 for v in values)
    datasets = len(paper["run"]["datasets"])
    assert study["compare"]["schemes"] == ["twofold"]
    # one job per run: a bootstrap job fits B models, a two-fold job 2J
    boot_runs, two_runs = n_boot, n_two + len(study["compare"]["learners"])
    assert counts["train_biasvar_bootstrap"] == datasets * boot_runs
    assert counts["train_biasvar_twofold"] == datasets * two_runs
    assert datasets * (B * boot_runs + 2 * J * two_runs) == 300  # models, as many as with one job per model
    assert counts["reduce_biasvar"] == datasets * (n_boot + n_two + len(study["compare"]["learners"]))
    assert counts["biasvar_sample"] == datasets * (B + 2 * J)
    assert counts["train_model"] == datasets * len(paper["run"]["learners"])  # one fold, one seed each
    assert counts["total"] == len(jobs) + 1  # + rule all
    p_points = {j.get("setting") for j in jobs if j.rule == "train_biasvar_twofold"}
    assert "subsample=0.63" not in p_points and "subsample=0.5" in p_points


def test_calibration_targets_cover_each_learner_and_setting_once(paper_plan):
    jobs, _, _ = paper_plan
    targets = calibration_targets(jobs)
    keys = {(j.rule, j.get("learner"), j.get("setting")) for j in jobs
            if j.rule in ("train_model", "train_biasvar_bootstrap", "train_biasvar_twofold")}
    assert len(targets) == len(keys) == len(set(targets))


def test_estimate_multiplies_job_counts_by_calibrated_medians(tmp_path):
    root = tmp_path / "benchmarks"
    header = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    for fold, cpu in (("Fold1", 10.0), ("Fold2", 30.0), ("Fold3", 20.0)):  # median 20 core-seconds
        path = root / "train_biasvar_bootstrap/rf-point" / fold / "subsample=0.1.tsv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(header + f"{cpu / 2}\t0\t1\t1\t1\t1\t0\t0\t50\t{cpu}\n")
    path = root / "performance_table.tsv"
    path.write_text(header + "4.0\t0\t1\t1\t1\t1\t0\t0\t50\t0\n")  # no CPU time recorded: wall time counts
    costs = calibration_costs([str(root)])
    assert len(costs) == 4
    jobs = [Job("train_biasvar_bootstrap", (("learner", "rf-point"), ("setting", "subsample=0.1"))) for _ in range(90)]
    jobs += [Job("train_biasvar_bootstrap", (("learner", "rf-point"), ("setting", "subsample=0.5")))] * 9
    jobs += [Job("performance_table", ()), Job("plot_performance", ())]
    table = estimate(jobs, costs, scale=3.0).set_index(["rule", "setting"])
    assert estimate(jobs, costs, scale={"other": 5.0})["core_hours"].sum() == pytest.approx((99 * 20.0 + 4.0) / 3600)
    assert table.loc[("train_biasvar_bootstrap", "subsample=0.1"), "core_seconds_each"] == pytest.approx(60.0)
    assert table.loc[("train_biasvar_bootstrap", "subsample=0.5"), "source"] == "rule+learner"
    assert table.loc[("performance_table", ""), "core_seconds_each"] == pytest.approx(4.0)  # not scaled
    assert table.loc[("plot_performance", ""), "source"] == "uncalibrated"
    total = table["core_hours"].sum()
    assert total == pytest.approx((99 * 60.0 + 4.0) / 3600)


def test_plan_cli_prints_the_job_count(capsys):
    assert main(["plan", "--configfile", str(REPO / "config" / "paper.yaml"), "--placeholders"]) == 0
    out = capsys.readouterr().out
    # 129 jobs of the study (30 of them train its 300 models, one job per run) + 15 report pages
    assert out.startswith("144 jobs") and "train_biasvar_bootstrap" in out


def test_merge_is_snakemakes_nested_update():
    assert merge({"a": {"b": 1, "c": 2}, "d": [1]}, {"a": {"b": 3}, "d": [2]}) == {"a": {"b": 3, "c": 2}, "d": [2]}
