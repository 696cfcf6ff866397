"""``ltrbv plan``: the paper-scale job grid from a dry run on placeholder folds, and the core-hours estimate."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import yaml

from conftest import REPO
from ltrbv.cli import main
from ltrbv.workflow.dryrun import Job
from ltrbv.workflow.plan import dry_run, merge


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


DEMO = REPO / "config" / "demo.yaml"


def job_block(rule: str, log: str, bench: str, inputs=(), **wildcards) -> str:
    """One job of a Snakemake dry-run listing."""
    lines = [f"rule {rule}:"]
    if inputs:
        lines.append("    input: " + ", ".join(inputs))
    lines += [f"    log: {log}", f"    benchmark: {bench}",
              "    wildcards: " + ", ".join(f"{k}={v}" for k, v in wildcards.items()), ""]
    return "\n".join(lines) + "\n"


def calibration_run(root, queries: int, docs_per_query: int, work: dict, bench_only=()):
    """A calibration run folder (config.yaml, dryrun.txt, results/) of the demo config whose Fold1 splits have
    ``queries`` x ``docs_per_query`` documents; ``work``: {(rule, learner, seed): work seconds} written as the
    jobs' log lines (or, for ``bench_only``, as benchmark files without a log)."""
    from ltrbv.data.cache import save_cache
    from ltrbv.data.from_arrays import ranking_data
    from ltrbv.workflow.logs import CPU_LINE

    root.mkdir(parents=True)
    (root / "config.yaml").write_text(DEMO.read_text())
    for split in ("train", "vali", "test"):
        n = queries if split == "train" else max(1, queries // 3)
        qid = np.repeat(np.arange(n), docs_per_query)
        labels = np.tile([1] + [0] * (docs_per_query - 1), n)
        save_cache(ranking_data(qid, labels, np.zeros((qid.size, 46), np.float32)),
                   root / "results/demo/parsed/Fold1" / f"{split}.npz")
    listing = []
    for (rule, learner, seed), seconds in work.items():
        job = f"{rule}/{learner}/Fold1/seed{seed}" if rule == "train_model" else f"{rule}/{learner}"
        log, bench = f"results/demo/logs/{job}.log", f"results/demo/benchmarks/{job}.tsv"
        wildcards = {"dataset": "demo", "learner": learner, **({"fold": "Fold1", "seed": seed} if rule == "train_model" else {})}
        listing.append(job_block(rule, log, bench, inputs=[f"in{i}" for i in range(5 if rule == "evaluate" else 3)],
                                 **wildcards))
        if (rule, learner, seed) in bench_only:
            (root / bench).parent.mkdir(parents=True, exist_ok=True)
            (root / bench).write_text("s\tcpu_time\n" + f"{seconds}\t{seconds + 0.5}\n")
        else:
            (root / log).parent.mkdir(parents=True, exist_ok=True)
            (root / log).write_text("training ...\n" + CPU_LINE.format(startup=0.5, work=seconds, total=seconds + 0.5,
                                                                       children=0.0) + "\n")
    (root / "dryrun.txt").write_text("Building DAG of jobs...\n" + "".join(listing) + "Job stats:\n")
    return root


def test_calibration_runs_give_each_job_its_cost_and_sizes_and_price_a_larger_plan(tmp_path, monkeypatch):
    from ltrbv.workflow import costs
    from ltrbv.workflow.costs import fit_models

    monkeypatch.setattr(costs, "LOG_NOISE", 0.0)  # the fit alone (no prior): the known laws come back exactly
    from ltrbv.workflow.plan import MODEL_RULES, SizeTable, calibration_costs, estimate, expanded_config

    law = {"rf-point": lambda docs: 1e-4 * docs ** 1.2, "lambdamart": lambda docs: 4e-4 * docs ** 1.0}
    runs = []
    for queries in (40, 160):
        docs = queries * 20
        work = {("train_model", learner, seed): f(docs) for learner, f in law.items() for seed in (1, 2)}
        work[("evaluate", "rf-point", 1)] = 0.2
        runs.append(str(calibration_run(tmp_path / f"q{queries}", queries, 20, work,
                                        bench_only={("train_model", "lambdamart", 2)})))
    table = calibration_costs(runs)
    first = table[(table["run"] == runs[0]) & (table["learner"] == "rf-point") & (table["rule"] == "train_model")]
    assert set(first["docs"]) == {800.0} and set(first["trees"]) == {100.0} and set(first["list_length"]) == {20.0}
    assert set(first["family"]) == {"forest-point"} and set(first["startup"]) == {0.5}
    bench = table[(table["learner"] == "lambdamart") & (table["startup"] == 0.0)]
    assert len(bench) == 2  # the benchmark file's CPU time, all of it work, where a job has no log line
    evaluate = table[table["rule"] == "evaluate"]
    assert set(evaluate["inputs"]) == {5.0} and set(evaluate["docs"]) == {13 * 20.0, 53 * 20.0}

    models = fit_models(table, training_rules=MODEL_RULES)
    assert models.groups[("train_model", "forest-point")].exponents["docs"] == pytest.approx(1.2, abs=2e-3)  # the log lines have 3 decimals
    config = expanded_config(yaml.safe_load(DEMO.read_text()))
    sizes = SizeTable(config, results=tmp_path / "q160" / "results")
    jobs = [Job("train_model", (("dataset", "demo"), ("fold", "Fold1"), ("learner", "rf-point"), ("seed", "1")))]
    planned = estimate(jobs, config, sizes, models)
    assert planned["core_hours"].sum() * 3600 == pytest.approx(0.5 + law["rf-point"](3200), rel=1e-3)
    # a larger data set: the same job priced at its documents (the synthetic spec: 400 x 3/5 queries x 30)
    config["datasets"]["demo"]["synthetic"]["n_queries"] = 4000
    big = estimate(jobs, config, SizeTable(config), models)
    assert big["core_hours"].sum() * 3600 == pytest.approx(0.5 + law["rf-point"](2400 * 30), rel=1e-2)
    assert big["low"].sum() < big["core_hours"].sum() < big["high"].sum()


def test_plan_cli_prints_the_job_count(capsys):
    assert main(["plan", "--configfile", str(REPO / "config" / "paper.yaml"), "--placeholders"]) == 0
    out = capsys.readouterr().out
    # 129 jobs of the study (30 of them train its 300 models, one job per run) + 15 report pages
    assert out.startswith("144 jobs") and "train_biasvar_bootstrap" in out


def test_merge_is_snakemakes_nested_update():
    assert merge({"a": {"b": 1, "c": 2}, "d": [1]}, {"a": {"b": 3}, "d": [2]}) == {"a": {"b": 3, "c": 2}, "d": [2]}


def test_a_bag_run_job_is_priced_as_its_sub_models_one_after_another(tmp_path):
    """A bag's run (rule train_bag_<n>, one per bag size) is the cost models' rule train_bag, fitting n models; a
    bag_submodel job fits one."""
    from ltrbv.workflow.plan import SizeTable, expanded_config, job_features, job_key, planned_jobs

    config = yaml.safe_load(DEMO.read_text())
    config["learners"]["bag4"] = {"kind": "bag", "params": {"base": "lambdamart", "n_models": 4}}
    config = expanded_config(config)
    wildcards = {"dataset": "demo", "learner": "bag4", "fold": "Fold1", "run": "seed1"}
    listing = (job_block("train_bag_4", "l.log", "b.tsv", **wildcards)
               + job_block("bag_submodel", "l.log", "b.tsv", **wildcards, k=2) + job_block("all", "", ""))
    run_job, submodel_job = planned_jobs(listing)
    assert (run_job.rule, submodel_job.rule) == ("train_bag", "bag_submodel")
    sizes = SizeTable(config)
    assert job_features(run_job, config, sizes)["models"] == 4.0
    assert job_features(submodel_job, config, sizes)["models"] == 1.0
    assert job_key(run_job, config) == {"rule": "train_bag", "learner": "bag4", "setting": "", "family": "bag-xgboost"}


def test_a_catalog_timing_job_is_priced_by_the_fits_it_makes():
    """A timing job fits each timed learner `repeats` times, a forest of the timing's trees, on the first fold's
    training split: those are its sizes (a lean calibration run times fewer learners than the full one)."""
    from ltrbv.sections.catalog.grid import settings, timed_entries, timed_learners
    from ltrbv.workflow.plan import SizeTable, expanded_config, job_features, merged_config

    config = expanded_config(merged_config([str(DEMO), str(REPO / "config" / "catalog.yaml")]))
    sizes, timing = SizeTable(config), settings(config)["timing"]
    train = sizes("demo", "Fold1", "train")
    counts = set()
    for entry in timed_entries(config):
        features = job_features(Job("catalog_timing", (("dataset", "demo"), ("entry", entry))), config, sizes)
        n = len(timed_learners(config, entry))
        counts.add(n)
        assert features == {"docs": float(train.docs), "list_length": train.list_length, "trees": float(timing["trees"]),
                            "models": float(n * timing["repeats"]), "inputs": 1.0}
    assert len(counts) > 1  # the entries time different numbers of learners


def _anchor_setup(tmp_path):
    """Two fake calibration runs of the demo config (rf-point's and lambdamart's work known laws), its models and
    sizes at the demo's own size."""
    from ltrbv.workflow.costs import fit_models
    from ltrbv.workflow.plan import MODEL_RULES, SizeTable, calibration_costs, expanded_config

    runs = []
    for queries in (40, 160):
        work = {("train_model", learner, seed): factor * (queries * 20) ** 1.1
                for learner, factor in (("rf-point", 1e-4), ("lambdamart", 4e-4)) for seed in (1, 2)}
        work[("evaluate", "rf-point", 1)] = 0.2
        runs.append(str(calibration_run(tmp_path / f"q{queries}", queries, 20, work)))
    config = expanded_config(yaml.safe_load(DEMO.read_text()))
    return config, SizeTable(config), fit_models(calibration_costs(runs), training_rules=MODEL_RULES)


def test_anchors_scale_a_family_s_training_jobs_to_the_full_size_measurement(tmp_path):
    """A full-size measurement twice the calibrated price doubles the work of that family's training jobs on that
    data set (the start-up stays); other families, a forest of another subsample and other rules keep their price."""
    import json

    from ltrbv.workflow.plan import anchor_factors, estimate, job_features, job_key

    config, sizes, models = _anchor_setup(tmp_path)
    job = Job("train_model", (("dataset", "demo"), ("fold", "Fold1"), ("learner", "rf-point"), ("seed", "0")))
    key = job_key(job, config)
    price = models.predict(key["rule"], key["family"], key["learner"], key["setting"], "demo",
                           job_features(job, config, sizes))
    startup = models.startup["train_model"]
    path = tmp_path / "anchors.json"
    path.write_text(json.dumps({"rows": [{"dataset": "demo", "learner": "rf-point",
                                          "projected_s": 2 * (price["seconds"] - startup)}]}))
    factors = anchor_factors([str(path)], config, sizes, models)
    assert factors == {("demo", "train_model", "forest-point", "subsample=0.63"): pytest.approx(2.0, rel=1e-12)}
    config["learners"]["rf-point-s5"] = {**config["learners"]["rf-point"],
                                         "params": {**config["learners"]["rf-point"]["params"], "subsample": 0.05}}
    jobs = [Job("train_model", (("dataset", "demo"), ("fold", "Fold1"), ("learner", name), ("seed", "1")))
            for name in ("rf-point", "lambdamart", "rf-point-s5")]
    jobs.append(Job("evaluate", (("dataset", "demo"), ("fold", "Fold1"), ("learner", "rf-point"), ("seed", "1")),
                    inputs=("a", "b", "c", "d", "e")))
    before = estimate(jobs, config, sizes, models).set_index(["rule", "learner"])
    models.anchors = factors
    assert anchor_factors([str(path)], config, sizes, models) == factors  # measured against the calibrated price
    after = estimate(jobs, config, sizes, models).set_index(["rule", "learner"])
    point = ("train_model", "rf-point")
    assert after.loc[point, "core_hours"] * 3600 - startup == pytest.approx(
        2 * (before.loc[point, "core_hours"] * 3600 - startup), rel=1e-9)
    assert "anchored x2.00" in after.loc[point, "source"]
    # another family, a forest of another subsample (a tree of other rows), a rule that fits no model: unchanged
    for other in (("train_model", "lambdamart"), ("train_model", "rf-point-s5"), ("evaluate", "rf-point")):
        assert after.loc[other, "core_hours"] == before.loc[other, "core_hours"]


def _trial_setup(tmp_path):
    """The anchor setup with the demo's bl-mart trained a sub-model a job and variance trials of lambdamart and
    bl-mart."""
    config, sizes, models = _anchor_setup(tmp_path)
    config["learners"]["bl-mart"]["jobs"] = "submodel"
    config["bagging"] = {"variance_trials": {"enabled": True, "fraction": 0.67, "n_trials": 2,
                                             "learners": ["lambdamart", "bl-mart"]}}
    return config, sizes, models


def _job(rule, learner, **wildcards):
    return Job(rule, (("dataset", "demo"), ("fold", "Fold1"), ("learner", learner), *wildcards.items()))


def test_a_measured_sub_model_or_trial_anchors_its_own_rule_and_train_model_s_factor_the_rest(tmp_path):
    """A bag_submodel row scales the bag's sub-model jobs of seed runs by its own factor, a trial run's sub-model
    row those of trial runs, a train_trial row the learner family's trials, a study run's row the study's runs of
    its rule, family and forest variant; a train_model row scales the family's training rules measured by none (a
    bag run's job of a seed or a trial run, a study run): each factor is the measurement over its own job's
    calibrated price.  A study run of a rule and variant nothing measured keeps its price."""
    import json

    from ltrbv.workflow.plan import anchor_factors, estimate, model_job_price

    config, sizes, models = _trial_setup(tmp_path)
    measured = {"model": ("train_model", "lambdamart", False), "sub": ("bag_submodel", "bl-mart", False),
                "trial sub": ("bag_submodel", "bl-mart", True), "trial": ("train_trial", "lambdamart", False)}
    work = {name: model_job_price(config, sizes, models, "demo", learner, rule, trial)[3]
            for name, (rule, learner, trial) in measured.items()}
    work["study"] = model_job_price(config, sizes, models, "demo", "rf-point", "train_biasvar_twofold",
                                    setting="subsample=0.3")[3]
    assert all(w > 0 for w in work.values())
    path = tmp_path / "anchors.json"
    path.write_text(json.dumps({"rows": [
        {"dataset": "demo", "learner": "lambdamart", "projected_s": 2 * work["model"]},  # rule: train_model
        {"dataset": "demo", "learner": "bl-mart", "projected_s": 3 * work["sub"]},  # a bag's: bag_submodel
        {"dataset": "demo", "learner": "bl-mart", "run": "trial", "projected_s": 7 * work["trial sub"]},
        {"dataset": "demo", "learner": "lambdamart", "rule": "train_trial", "projected_s": 5 * work["trial"]},
        {"dataset": "demo", "learner": "rf-point", "rule": "train_biasvar_twofold", "setting": "subsample=0.3",
         "projected_s": 11 * work["study"]}]}))
    factors = anchor_factors([str(path)], config, sizes, models)
    assert factors == {("demo", "train_model", "xgboost", ""): pytest.approx(2.0, rel=1e-12),
                       ("demo", "bag_submodel", "bag-xgboost", ""): pytest.approx(3.0, rel=1e-12),
                       ("demo", "bag_submodel", "bag-xgboost", "trial run"): pytest.approx(7.0, rel=1e-12),
                       ("demo", "train_trial", "xgboost", ""): pytest.approx(5.0, rel=1e-12),
                       ("demo", "train_biasvar_twofold", "forest-point", "subsample=0.3"): pytest.approx(11.0,
                                                                                              rel=1e-12)}
    jobs = {"model": (_job("train_model", "lambdamart", seed="1"), 2),
            "sub": (_job("bag_submodel", "bl-mart", run="seed1", k="2"), 3),
            "trial sub": (_job("bag_submodel", "bl-mart", run="trial2", k="4"), 7),
            "trial": (_job("train_trial", "lambdamart", trial="2"), 5),
            "bag run": (_job("train_bag", "bl-mart", run="seed1"), 2),
            "bag trial run": (_job("train_bag", "bl-mart", run="trial1"), 2),
            "study": (_job("train_biasvar_twofold", "lambdamart", setting="base"), 2),
            "measured study run": (_job("train_biasvar_twofold", "rf-point", setting="subsample=0.3"), 11),
            "other scheme": (_job("train_biasvar_bootstrap", "rf-point", setting="subsample=0.3"), None)}
    before = {name: estimate([job], config, sizes, models).iloc[0] for name, (job, _) in jobs.items()}
    models.anchors = factors
    for name, (job, factor) in jobs.items():
        after = estimate([job], config, sizes, models).iloc[0]
        startup = models.startup.get(job.rule, models.startup_all)
        assert after["core_hours"] * 3600 - startup == pytest.approx(
            (factor or 1) * (before[name]["core_hours"] * 3600 - startup), rel=1e-9), name
        assert ("anchored" in after["source"]) == (factor is not None), name
        assert factor is None or f"anchored x{factor:.2f}" in after["source"], name


def test_the_one_model_job_a_measurement_stands_for_is_priced_as_the_dry_run_s_jobs(tmp_path):
    """model_job's job of each measured rule has the key, size features and anchor variant of the jobs the
    workflow's dry run plans (a seed run's model, a bag's sub-model of a seed and of a trial run, a trial), so an
    anchor measured on it scales those jobs."""
    from ltrbv.workflow.plan import SizeTable, anchor_variant, dry_run, expanded_config, job_features, job_key, model_job

    raw = yaml.safe_load(DEMO.read_text())
    raw["run"]["learners"] = ["lambdamart", "bl-mart", "bl-run", "rf-bag"]
    raw["learners"]["bl-mart"]["jobs"] = "submodel"
    raw["learners"]["bl-run"] = {**raw["learners"]["bl-mart"], "jobs": "run"}
    raw["learners"]["rf-bag"] = {"kind": "bag", "jobs": "run", "params": {"base": "rf-point", "n_models": 2,
                                                                           "sample_fraction": 0.5}}
    raw["bagging"] = {"variance_trials": {"baseline": "lambdamart", "n_trials": 2}}
    path = tmp_path / "trials.yaml"
    path.write_text(yaml.safe_dump(raw))
    jobs, _, _ = dry_run([str(path)], placeholders=True)
    config = expanded_config(raw)
    sizes = SizeTable(config)

    def described(job):
        return job_key(job, config), job_features(job, config, sizes), anchor_variant(job, config)

    for rule, learner, trial_run in (("train_model", "lambdamart", False), ("bag_submodel", "bl-mart", False),
                                     ("bag_submodel", "bl-mart", True), ("train_trial", "lambdamart", False),
                                     ("train_bag", "bl-run", False), ("train_bag", "rf-bag", False)):
        planned = [job for job in jobs if job.rule == rule and job.get("learner") == learner
                   and job.get("dataset") == "demo"
                   and (rule not in ("bag_submodel", "train_bag") or job.get("run").startswith("trial") == trial_run)]
        assert planned, (rule, learner, trial_run)
        one = described(model_job(config, "demo", learner, rule, trial_run))
        assert all(described(job) == one for job in planned if job.get("fold") == planned[0].get("fold")), \
            (rule, trial_run)
    assert described(model_job(config, "demo", "bl-mart", "bag_submodel", True))[2] == "trial run"
    assert described(model_job(config, "demo", "rf-bag", "train_bag"))[1:] == (
        {"docs": pytest.approx(described(model_job(config, "demo", "rf-point"))[1]["docs"]), "list_length": pytest.approx(
            described(model_job(config, "demo", "rf-point"))[1]["list_length"]), "trees": 100.0, "models": 2.0,
         "inputs": 1.0}, "subsample=0.63, sample_fraction=0.5")
    for rule, learner, setting in (("train_biasvar_twofold", "lambdamart", "base"),
                                   ("train_biasvar_twofold", "rf-point", "subsample=0.3"),
                                   ("train_biasvar_bootstrap", "rf-point", "subsample=0.63")):
        planned = [job for job in jobs if job.rule == rule and job.get("learner") == learner
                   and job.get("setting") == setting and job.get("dataset") == "demo"]
        assert len(planned) == 1, (rule, learner, setting)
        one = model_job(config, "demo", learner, rule, setting=setting)
        assert one == planned[0], (one, planned[0])
        assert described(one) == described(planned[0])
    assert described(model_job(config, "demo", "rf-point", "train_biasvar_bootstrap", setting="subsample=0.1"))[1][
        "models"] == 5  # the run's B models
    # a study forest's variant is the share of the fold's queries a tree draws: a sweep's p (of the original
    # queries), the base setting's subsample of the run's training set (two-fold: half of them)
    assert [described(model_job(config, "demo", "rf-point", rule, setting=setting))[2] for rule, setting in (
        ("train_biasvar_twofold", "base"), ("train_biasvar_twofold", "subsample=0.3"),
        ("train_biasvar_bootstrap", "subsample=0.63"))] == ["subsample=0.315", "subsample=0.3", "subsample=0.63"]


def test_the_anchors_spread_is_the_leave_one_out_error_and_an_anchored_job_s_band(tmp_path):
    """anchor_spread: transfer_sd, the root mean square, over each measured learner of a group with another measured
    learner, of its log ratio minus the others' mean (a second row of the same learner is no transfer check, a
    group of one learner none); rule_sd, that of each other measured rule's mean log ratio minus its family's
    train_model one.  An anchored job's log-sd is transfer_sd beside the calibration's residual (the
    extrapolation's term dropped), a job borrowing train_model's factor adds rule_sd; a job no anchor touches keeps
    its band."""
    import json
    import math

    from ltrbv.workflow.plan import anchor_spread, estimate, model_job_price

    config, sizes, models = _trial_setup(tmp_path)
    config["learners"]["lambdamart-b"] = config["learners"]["lambdamart"]
    work = {name: model_job_price(config, sizes, models, "demo", name)[3] for name in ("lambdamart", "lambdamart-b",
                                                                                      "rf-point")}
    work["lambdamart trial"] = model_job_price(config, sizes, models, "demo", "lambdamart", "train_trial")[3]

    def spread(rows):
        """anchor_spread of rows (name, measured / calibrated); a name ending in " trial" is its train_trial."""
        path = tmp_path / "anchors.json"
        path.write_text(json.dumps({"rows": [
            {"dataset": "demo", "learner": name.removesuffix(" trial"), "projected_s": ratio * work[name], **(
                {"rule": "train_trial"} if name.endswith(" trial") else {})} for name, ratio in rows]}))
        return anchor_spread([str(path)], config, sizes, models)

    none = spread([("rf-point", 2.0), ("lambdamart", 3.0)])  # one learner a group, no other rule: nothing to check
    assert (none.transfer_sd, none.transfer_checks, none.rule_sd, none.rule_checks) == (None, 0, None, 0)
    assert spread([("lambdamart", 2.0), ("lambdamart", 8.0)]).transfer_sd is None  # the same learner twice
    measured = spread([("lambdamart", 2.0), ("lambdamart-b", 8.0), ("rf-point", 5.0), ("lambdamart trial", 16.0)])
    assert measured.transfer_checks == 2 and measured.transfer_sd == pytest.approx(math.log(4.0), rel=1e-12)
    assert measured.rule_checks == 1 and measured.rule_sd == pytest.approx(math.log(4.0), rel=1e-12)  # 16 vs 4
    measured = spread([("lambdamart", 2.0), ("lambdamart", 8.0), ("lambdamart-b", 1.0)])
    assert measured.transfer_checks == 2 and measured.transfer_sd == pytest.approx(math.log(4.0), rel=1e-12)
    jobs = {"model": _job("train_model", "lambdamart", seed="1"), "forest": _job("train_model", "rf-point", seed="1"),
            "study": _job("train_biasvar_twofold", "lambdamart", setting="base")}
    before = {name: estimate([job], config, sizes, models).iloc[0] for name, job in jobs.items()}
    models.anchors = {("demo", "train_model", "xgboost", ""): 2.0}
    models.anchor_sd, models.anchor_rule_sd = 0.3, 0.4
    after = {name: estimate([job], config, sizes, models).iloc[0] for name, job in jobs.items()}
    assert after["forest"][["core_hours", "low", "high"]].tolist() == before["forest"][["core_hours", "low", "high"]].tolist()
    group = models.groups[("train_model", "xgboost")]
    startup = models.startup["train_model"]
    seconds = after["model"]["core_hours"] * 3600 - startup
    variable = seconds / 2 - group.w0
    log_sd = math.sqrt(group.residual_sd ** 2 + 0.3 ** 2) * variable / (group.w0 + variable)
    assert after["model"]["high"] * 3600 - startup == pytest.approx(seconds * math.exp(log_sd), rel=1e-9)
    assert after["model"]["low"] * 3600 - startup == pytest.approx(seconds * math.exp(-log_sd), rel=1e-9)
    # the study replicate borrows train_model's factor: its model's log-sd with 0.3 and 0.4 in quadrature
    from ltrbv.workflow.costs import INTERCEPT_PRIOR_SD
    from ltrbv.workflow.plan import job_features, job_key

    key = job_key(jobs["study"], config)
    model, fallback = models._model(key["rule"], key["family"])
    work, log_sd, _ = model.work((key["rule"], key["learner"], key["setting"], "demo"),
                                 job_features(jobs["study"], config, sizes), anchored_sd=math.hypot(0.3, 0.4))
    log_sd = math.hypot(log_sd, INTERCEPT_PRIOR_SD) if fallback else log_sd
    startup = models.startup.get("train_biasvar_twofold", models.startup_all)
    assert after["study"]["core_hours"] * 3600 - startup == pytest.approx(2 * work, rel=1e-9)
    assert after["study"]["high"] * 3600 - startup == pytest.approx(2 * work * math.exp(log_sd), rel=1e-9)
    models.anchor_rule_sd = None  # no other rule measured: a borrowed factor keeps the calibration's extrapolation
    kept = estimate([jobs["study"]], config, sizes, models).iloc[0]
    work, log_sd, _ = model.work((key["rule"], key["learner"], key["setting"], "demo"),
                                 job_features(jobs["study"], config, sizes))
    log_sd = math.hypot(log_sd, INTERCEPT_PRIOR_SD) if fallback else log_sd
    assert kept["high"] * 3600 - startup == pytest.approx(2 * work * math.exp(log_sd), rel=1e-9)


@pytest.mark.parametrize("content, message", [
    ("not json", "not a check_plan_target.py --json file"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "rule": "evaluate", "projected_s": 10}]}',
     "row 1: rule 'evaluate' is not one of"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "rule": ["train_model"], "projected_s": 10}]}',
     r"row 1: rule \['train_model'\] is not one of"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "run": "trial", "projected_s": 10}]}',
     "row 1: a trial run's measurement is a bag's sub-model or run, not train_model"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "run": "seed1", "projected_s": 10}]}', "row 1: run 'seed1'"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "projected_s": 1%s}]}' % ("0" * 400),
     "row 1: projected_s must be a positive"),
    ('{"rows": [{"dataset": "demo", "learner": "lambdamart", "rule": "train_trial", "projected_s": 10}]}',
     "row 1: 'lambdamart' runs no variance trials on demo"),
    ('{"rows": [{"dataset": "demo", "learner": "bl-mart", "rule": "train_model", "projected_s": 10}]}',
     "row 1: rule train_model with learner "
     "'bl-mart' \\(a bag\\)"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "rule": "bag_submodel", "projected_s": 10}]}',
     "row 1: rule bag_submodel with learner 'rf-point'"),
    ('{"rows": [{"dataset": "demo", "learner": "bl-mart", "rule": "bag_submodel", "projected_s": 10}]}',
     "row 1: bag 'bl-mart' trains a run a job \\(jobs: run\\): no bag_submodel job of it is planned"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "rule": "train_bag", "projected_s": 10}]}',
     "row 1: rule train_bag with learner 'rf-point'"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "setting": "subsample=0.3", "projected_s": 10}]}',
     "row 1: a setting names a run of the bias-variance study"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "rule": "train_biasvar_twofold", "setting": "subsample=0.63",'
     ' "projected_s": 10}]}', "row 1: the study makes no run of 'rf-point' at setting 'subsample=0.63' with scheme "
     "twofold on demo"),
    ('{"rows": [{"dataset": "demo", "learner": "lambdamart", "rule": "train_biasvar_bootstrap", "projected_s": 10}]}',
     "row 1: the study makes no run of 'lambdamart' at setting 'base' with scheme bootstrap"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "rule": "train_biasvar_twofold", "setting": ["base"],'
     ' "projected_s": 10}]}', r"row 1: setting \['base'\]: a study run's setting"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "rule": "train_biasvar_twofold", "setting": "",'
     ' "projected_s": 10}]}', "row 1: setting '': a study run's setting"),
    ('{"rows": [{"dataset": "demo", "learner": "bl-mart", "rule": "train_biasvar_twofold", "projected_s": 10}]}',
     "row 1: rule train_biasvar_twofold with learner 'bl-mart' \\(a bag\\)"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "projected_s": 10}, {"dataset": "demo", "learner": '
     '"lambdamart", "projected_s": 10}, {"dataset": "demo", "learner": "rf-point", "projected_s": 10}]}',
     "row 3: repeats --anchors .*, row 1 \\(the same measurement twice\\)"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "trees": 7, "projected_s": 10}]}',
     "row 1: measured for trees 7, but the config's train_model job of rf-point has 100: measure it again"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "trees": true, "projected_s": 10}]}',
     "row 1: measured for trees True"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "rule": "train_biasvar_twofold", "setting": "subsample=0.3",'
     ' "models": 4, "projected_s": 10}]}', "row 1: measured for models 4, but the config's train_biasvar_twofold job "
     "of rf-point has 6"),
    ('{"rows": {}}', "'rows' is not a list"),
    ('{"rows": [{"dataset": "mslr10k", "learner": "rf-point", "projected_s": 10}]}', r"row 1: data set 'mslr10k'"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-nothing", "projected_s": 10}]}', r"row 1: learner 'rf-nothing'"),
    ('{"rows": [{"dataset": ["demo"], "learner": "rf-point", "projected_s": 10}]}', r"row 1: data set \['demo'\]"),
    ('{"rows": [{"dataset": "demo", "learner": {"a": 1}, "projected_s": 10}]}', r"row 1: learner \{'a': 1\}"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "projected_s": -1}]}', "row 1: projected_s must be a positive"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "projected_s": "10"}]}', "row 1: projected_s must be a positive"),
    ('{"rows": [{"dataset": "demo", "learner": "rf-point", "projected_s": 10}, 3]}', "row 2: not an object"),
])
def test_a_bad_anchor_file_or_row_is_refused_naming_it(tmp_path, content, message):
    from ltrbv.workflow.plan import anchor_factors

    config, sizes, models = _anchor_setup(tmp_path)
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=message) as error:
        anchor_factors([str(path)], config, sizes, models)
    assert str(path) in str(error.value)


def test_a_measured_bag_run_anchors_its_rule_and_a_forest_bag_s_sample_fraction(tmp_path):
    """A train_bag row (a bag trained a run a job: its sub-models one after another) scales that bag's runs by its own
    factor; a forest bag's anchor variant names its sample fraction, so a bag of another fraction keeps borrowing
    train_model's factor of its forest (the fraction dropped), and a bag trained a sub-model a job refuses the row."""
    import json

    from ltrbv.workflow.plan import anchor_factors, estimate, model_job, model_job_price

    config, sizes, models = _anchor_setup(tmp_path)
    config["learners"]["rf-bag"] = {"kind": "bag", "jobs": "run", "params": {
        "base": "rf-point", "n_models": 2, "sample_fraction": 0.5, "combine": "mean"}}
    config["learners"]["rf-bag-4"] = {"kind": "bag", "jobs": "run", "params": {
        "base": "rf-point", "n_models": 2, "sample_fraction": 0.4, "combine": "mean"}}
    work = {name: model_job_price(config, sizes, models, "demo", name, rule)[3]
            for name, rule in (("bl-mart", "train_bag"), ("rf-bag", "train_bag"), ("rf-point", "train_model"))}
    path = tmp_path / "anchors.json"
    path.write_text(json.dumps({"rows": [
        {"dataset": "demo", "learner": "bl-mart", "projected_s": 3 * work["bl-mart"]},  # its jobs: run, so train_bag
        {"dataset": "demo", "learner": "rf-bag", "rule": "train_bag", "projected_s": 5 * work["rf-bag"]},
        {"dataset": "demo", "learner": "rf-point", "projected_s": 2 * work["rf-point"]}]}))
    factors = anchor_factors([str(path)], config, sizes, models)
    assert factors == {("demo", "train_bag", "bag-xgboost", ""): pytest.approx(3.0, rel=1e-12),
                       ("demo", "train_bag", "bag-forest-point", "subsample=0.63, sample_fraction=0.5"):
                           pytest.approx(5.0, rel=1e-12),
                       ("demo", "train_model", "forest-point", "subsample=0.63"): pytest.approx(2.0, rel=1e-12)}
    models.anchors = factors
    for learner, factor in (("bl-mart", 3), ("rf-bag", 5), ("rf-bag-4", 2)):
        job = model_job(config, "demo", learner, "train_bag")
        before = estimate([job], config, sizes, replace(models, anchors={})).iloc[0]
        after = estimate([job], config, sizes, models).iloc[0]
        startup = models.startup.get("train_bag", models.startup_all)
        assert after["core_hours"] * 3600 - startup == pytest.approx(
            factor * (before["core_hours"] * 3600 - startup), rel=1e-9), learner
    config["learners"]["bl-mart"]["jobs"] = "submodel"
    path.write_text(json.dumps({"rows": [{"dataset": "demo", "learner": "bl-mart", "rule": "train_bag",
                                          "projected_s": 10}]}))
    with pytest.raises(ValueError, match="row 1: bag 'bl-mart' trains a sub-model a job \\(jobs: submodel\\): no "
                                         "train_bag job of it is planned"):
        anchor_factors([str(path)], config, sizes, models)


def test_a_measured_learner_s_jobs_are_priced_by_its_own_factor_with_the_repeats_spread(tmp_path):
    """own_factors: each measured learner's own factor (the geometric mean of its rows) prices its jobs of that rule
    on that data set ('measured' in the source), the group's factor (the mean of its learners') the group's other learners
    ('anchored'); repeat_sd, the pooled log-sd of a learner measured more than once, is the band of a job priced by
    its own measurement (transfer_sd where nothing was measured twice)."""
    import json
    import math

    from ltrbv.workflow.costs import measurement_name
    from ltrbv.workflow.plan import estimate, job_features, job_key, model_job, model_job_price, read_anchors

    config, sizes, models = _anchor_setup(tmp_path)
    for name in ("lambdamart-b", "lambdamart-c"):
        config["learners"][name] = config["learners"]["lambdamart"]
    work = {name: model_job_price(config, sizes, models, "demo", name)[3] for name in ("lambdamart", "lambdamart-b")}
    path = tmp_path / "anchors.json"
    rows = [("lambdamart", 2.0), ("lambdamart", 8.0), ("lambdamart-b", 3.0)]
    path.write_text(json.dumps({"rows": [{"dataset": "demo", "learner": name, "projected_s": ratio * work[name]}
                                         for name, ratio in rows]}))
    factors, spread, own = read_anchors([str(path)], config, sizes, models)
    group = ("demo", "train_model", "xgboost", "")
    assert factors == {group: pytest.approx(12 ** 0.5, rel=1e-12)}  # the learners' means, each learner once
    assert own == {(*group, "lambdamart"): pytest.approx(4.0, rel=1e-12),
                   (*group, "lambdamart-b"): pytest.approx(3.0, rel=1e-12)}
    assert spread.repeat_checks == 1 and spread.repeat_sd == pytest.approx(math.sqrt(2) * math.log(2), rel=1e-12)
    assert measurement_name("rf-point", "subsample=0.3") == "rf-point (subsample=0.3)"
    assert measurement_name("rf-point", "base") == measurement_name("rf-point", "") == "rf-point"

    before = {name: estimate([model_job(config, "demo", name)], config, sizes, models).iloc[0]
              for name in ("lambdamart", "lambdamart-b", "lambdamart-c")}
    models.anchors, models.own_anchors = factors, own
    models.anchor_sd, models.anchor_own_sd = spread.transfer_sd, spread.repeat_sd
    startup = models.startup.get("train_model", models.startup_all)
    for name, factor, label in (("lambdamart", 4.0, "measured x4.00"), ("lambdamart-b", 3.0, "measured x3.00"),
                                ("lambdamart-c", 12 ** 0.5, "anchored x3.46")):
        after = estimate([model_job(config, "demo", name)], config, sizes, models).iloc[0]
        assert after["core_hours"] * 3600 - startup == pytest.approx(
            factor * (before[name]["core_hours"] * 3600 - startup), rel=1e-9), name
        assert label in after["source"], name
    model = models.groups[("train_model", "xgboost")]
    job = model_job(config, "demo", "lambdamart")
    key = job_key(job, config)
    plain, log_sd, _ = model.work((key["rule"], key["learner"], key["setting"], "demo"), job_features(job, config, sizes),
                                  anchored_sd=spread.repeat_sd)
    after = estimate([job], config, sizes, models).iloc[0]
    assert after["high"] * 3600 - startup == pytest.approx(4.0 * plain * math.exp(log_sd), rel=1e-9)
    models.anchor_own_sd = None  # nothing measured twice: the transfer's band
    plain, log_sd, _ = model.work((key["rule"], key["learner"], key["setting"], "demo"), job_features(job, config, sizes),
                                  anchored_sd=spread.transfer_sd)
    after = estimate([job], config, sizes, models).iloc[0]
    assert after["high"] * 3600 - startup == pytest.approx(4.0 * plain * math.exp(log_sd), rel=1e-9)


def test_an_anchor_file_given_twice_is_refused(tmp_path):
    import json

    from ltrbv.workflow.plan import anchor_factors

    config, sizes, models = _anchor_setup(tmp_path)
    path = tmp_path / "anchors.json"
    path.write_text(json.dumps({"rows": [{"dataset": "demo", "learner": "rf-point", "projected_s": 10}]}))
    assert anchor_factors([str(path)], config, sizes, models)
    with pytest.raises(ValueError, match="the same file as .*anchors.json, given twice"):
        anchor_factors([str(path), str(tmp_path / "." / "anchors.json")], config, sizes, models)


def test_ltrbv_plan_prices_a_measured_learner_by_its_own_factor_and_prints_its_band(tmp_path, monkeypatch, capsys):
    """``ltrbv plan --anchors``: a learner measured twice is priced by its own factor ('measured x4.00' in the
    table), the band of its jobs is the repeats' spread (printed), the group's factor prices the others."""
    import json
    import math

    from ltrbv.workflow.plan import SizeTable, expanded_config, model_job_price
    from ltrbv.workflow.costs import fit_models
    from ltrbv.workflow.plan import MODEL_RULES, calibration_costs

    runs = []
    for queries in (40, 160):
        work = {("train_model", learner, seed): factor * (queries * 20) ** 1.1
                for learner, factor in (("rf-point", 1e-4), ("lambdamart", 4e-4)) for seed in (1, 2)}
        runs.append(str(calibration_run(tmp_path / f"q{queries}", queries, 20, work)))
    config = expanded_config(yaml.safe_load(DEMO.read_text()))
    models = fit_models(calibration_costs(runs), training_rules=MODEL_RULES)
    work = model_job_price(config, SizeTable(config), models, "demo", "lambdamart")[3]
    path = tmp_path / "anchors.json"
    path.write_text(json.dumps({"rows": [{"dataset": "demo", "learner": "lambdamart", "projected_s": r * work}
                                         for r in (2.0, 8.0)]}))
    monkeypatch.chdir(tmp_path)
    assert main(["plan", "--configfile", str(DEMO), "--placeholders", "--calibration", *runs, "--anchors",
                 str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 measured learners" in out
    assert f"band of a measured learner's job: log-sd {math.sqrt(2) * math.log(2):.2f}" in out
    rows = [line for line in out.splitlines() if " train_model " in line and " lambdamart " in line]
    assert rows and all("measured x4.00" in line for line in rows)
    # its band is the repeats' spread (sqrt(2) log 2 beside the residual), not the calibration's extrapolation
    from ltrbv.workflow.plan import job_features, job_key, model_job

    job = model_job(config, "demo", "lambdamart")
    key = job_key(job, config)
    model = models.groups[("train_model", "xgboost")]
    x = job_features(job, config, SizeTable(config))
    startup = models.startup.get("train_model", models.startup_all)

    def band(**anchored):  # high / low of the job, start-up included, as the plan prints it
        plain, sd, _ = model.work((key["rule"], key["learner"], key["setting"], "demo"), x, **anchored)
        return (startup + 4 * plain * math.exp(sd)) / (startup + 4 * plain * math.exp(-sd))

    _, low, high = (float(v) for v in rows[0].split()[-3:])
    assert high / low == pytest.approx(band(anchored_sd=math.sqrt(2) * math.log(2)), rel=0.02)
    assert abs(high / low / band() - 1) > 0.1  # not the calibration's extrapolated band
