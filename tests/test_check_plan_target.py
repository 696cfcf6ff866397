"""tests/benchmarks/check_plan_target.py: a model priced as ``ltrbv plan`` prices it, fitted at that size and
projected; bad options refused before any work (argparse's exit 2, the option named, nothing written)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import yaml

from test_plan import DEMO, calibration_run

SCRIPT = Path(__file__).resolve().parent / "benchmarks" / "check_plan_target.py"


def load_script(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("check_plan_target_under_test", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record_fits(monkeypatch) -> list:
    """Every fit of a learner the script makes (``make_learner``'s, a bag's sub-models too), as (kind, n_estimators,
    subsample, training queries, their qids), in order."""
    import ltrbv.learners as learners

    seen = []
    real = learners.make_learner

    def recording(kind, params, **kwargs):
        learner = real(kind, params, **kwargs)
        fit = learner.fit_predict
        learner.fit_predict = lambda train, *a, **k: (seen.append((kind, params["n_estimators"], params.get(
            "subsample"), train.n_queries, tuple(train.qids))), fit(train, *a, **k))[1]
        return learner

    monkeypatch.setattr(learners, "make_learner", recording)
    return seen


@pytest.fixture
def calibrations(tmp_path):
    """Two calibration runs of the demo config with rf-point's training work a known law of its documents."""
    runs = []
    for queries in (40, 160):
        work = {("train_model", "rf-point", seed): 1e-4 * (queries * 20) ** 1.2 for seed in (1, 2)}
        runs.append(str(calibration_run(tmp_path / "cal" / f"q{queries}", queries, 20, work)))
    return runs


@pytest.mark.parametrize("argv, named", [
    (["--boosting-rounds", "25", "5"], "--boosting-rounds"),
    (["--boosting-rounds", "0", "5"], "--boosting-rounds"),
    (["--boosting-rounds", "five", "25"], "--boosting-rounds"),
    (["--forest-trees", "0", "2"], "--forest-trees"),
    (["--forest-trees", "3", "1"], "--forest-trees"),
    (["--forest-trees", "2"], "--forest-trees"),
    (["--one-fit-above", "0"], "--one-fit-above"),
    (["--one-fit-above", "nan"], "--one-fit-above"),
    (["--learners", "demo-rf-point"], "--learners"),
    (["--learners", "demo:"], "--learners"),
    (["--learners", "demo:rf-point:"], "--learners"),
    (["--learners", "demo:rf-point:train_model:x"], "--learners"),
    (["--learners", "demo:rf-point:train_model:trial"], "--learners"),
    (["--learners", "demo:bl-mart:bag_submodel:trial:x"], "--learners"),
    (["--learners", "demo:rf-point:train_biasvar_twofold:"], "--learners"),
    (["--learners", "demo:rf-point:train_biasvar_twofold:subsample=0.3:x"], "--learners"),
    (["--sizes", "yahoo"], "--sizes"),
    (["--sizes", "yahoo=Yahoo-set9"], "--sizes"),
])
def test_bad_options_are_refused_before_any_work(argv, named, calibrations, capsys, tmp_path, monkeypatch):
    script = load_script(monkeypatch)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out.json"
    with pytest.raises(SystemExit) as stop:
        script.main(["--configfile", str(DEMO), "--calibration", *calibrations, "--json", str(out), *argv])
    assert stop.value.code == 2
    assert named in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "results").exists()


def test_a_folder_that_is_no_calibration_run_is_refused(capsys, tmp_path, monkeypatch):
    script = load_script(monkeypatch)
    with pytest.raises(SystemExit) as stop:
        script.main(["--configfile", str(DEMO), "--calibration", str(tmp_path)])
    assert stop.value.code == 2 and "--calibration" in capsys.readouterr().err


def test_unknown_names_are_refused_with_the_config_s_names(calibrations, tmp_path, monkeypatch):
    script = load_script(monkeypatch)
    monkeypatch.chdir(tmp_path)
    for learners, message in ((["mslr10k:rf-point"], "no data set 'mslr10k'"), (["demo:rf-nothing"], "no learner 'rf-nothing'"),
                              (["demo:rf-point:evaluate"], "rule 'evaluate' is not one of"),
                              (["demo:rf-point:bag_submodel"], "a bag's measurement is one of its sub-models"),
                              (["demo:bl-mart:train_model"], "a bag's measurement is one of its sub-models"),
                              (["demo:bl-mart:bag_submodel"], "trains a run a job"),
                              (["demo:rf-point:train_bag"], "a bag's measurement is one of its sub-models"),
                              (["demo:lambdamart:train_trial"], "runs no variance trials"),
                              (["demo:rf-point:train_biasvar_twofold:subsample=0.63"], "the study makes no run of "
                               "'rf-point' at setting 'subsample=0.63' with scheme twofold"),
                              (["demo:rf-point:train_biasvar_twofold:trial"], "a trial run's measurement is a bag's sub-model or run"),
                              (["demo:rf-point:train_biasvar_thrice"], "rule 'train_biasvar_thrice' is not one of")):
        with pytest.raises(SystemExit, match=message):
            script.main(["--configfile", str(DEMO), "--calibration", *calibrations, "--learners", *learners])


def test_the_model_is_priced_as_the_plan_prices_it_and_fitted_at_that_size(calibrations, tmp_path, monkeypatch):
    """The planned price is ltrbv plan's ``estimate`` of the same train_model job (the same cost models, sizes and
    features), the fit's trees are projected to the learner's n_estimators, and the error is planned / projected - 1."""
    from ltrbv.workflow.costs import fit_models
    from ltrbv.workflow.dryrun import Job
    from ltrbv.workflow.plan import MODEL_RULES, SizeTable, calibration_costs, estimate, expanded_config

    script = load_script(monkeypatch)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "check.json"
    assert script.main(["--configfile", str(DEMO), "--calibration", *calibrations, "--learners", "demo:rf-point",
                        "--forest-trees", "2", "6", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())["rows"]
    config = expanded_config(yaml.safe_load(DEMO.read_text()))
    job = Job("train_model", (("dataset", "demo"), ("fold", "Fold1"), ("learner", "rf-point"), ("seed", "0")))
    planned = estimate([job], config, SizeTable(config), fit_models(calibration_costs(calibrations),
                                                                     training_rules=MODEL_RULES))
    assert row["planned_s"] == pytest.approx(planned["core_hours"].sum() * 3600, rel=1e-12)
    sizes = SizeTable(config)("demo", "Fold1", "train")
    assert (row["train_docs"], row["train_queries"], row["trees"]) == (sizes.docs, sizes.queries, 100)
    assert list(row["fits"]) == ["2", "6"] and 0 < row["fits"]["2"] < row["fits"]["6"]
    per_tree = (row["fits"]["6"] - row["fits"]["2"]) / 4
    assert row["measured_per_tree_s"] == pytest.approx(per_tree)
    assert row["projected_s"] == pytest.approx(max(row["fits"]["2"] - 2 * per_tree, 0.0) + 100 * per_tree)
    assert row["error"] == pytest.approx(row["planned_s"] / row["projected_s"] - 1)
    assert not (tmp_path / "results").exists()  # nothing written but the JSON asked for


def test_leave_one_out_prices_each_model_with_the_factor_of_its_family_s_other_models(monkeypatch):
    script = load_script(monkeypatch)
    model = {"rule": "train_model", "family": "xgboost"}
    rows = [{**model, "dataset": "d", "learner": "a", "planned_work_s": 100.0, "projected_s": 200.0},
            {**model, "dataset": "d", "learner": "b", "planned_work_s": 50.0, "projected_s": 400.0},
            {**model, "dataset": "d", "learner": "c", "planned_work_s": 10.0, "projected_s": 30.0},
            {**model, "dataset": "e", "learner": "a", "planned_work_s": 10.0, "projected_s": 30.0},
            {**model, "dataset": "d", "learner": "a", "rule": "train_trial", "planned_work_s": 10.0, "projected_s": 30.0},
            {**model, "dataset": "d", "learner": "f", "family": "forest-list", "planned_work_s": 10.0, "projected_s": 30.0}]
    out = {(r["dataset"], r["learner"], r["rule"]): r for r in script.leave_one_out(rows)}
    assert set(out) == {("d", l, "train_model") for l in "abc"}  # alone in its data set, rule and family: no check
    out = {(r["dataset"], r["learner"]): r for r in out.values()}
    assert out[("d", "a")]["factor"] == pytest.approx((8.0 * 3.0) ** 0.5)
    assert out[("d", "a")]["anchored_s"] == pytest.approx(100.0 * 24 ** 0.5)
    assert out[("d", "c")]["error"] == pytest.approx(10.0 * (2.0 * 8.0) ** 0.5 / 30.0 - 1)
    # a learner measured twice weighs as one (its rows' mean), as ltrbv plan's group factor
    again = {**model, "dataset": "d", "learner": "b", "planned_work_s": 10.0, "projected_s": 20.0}
    out = {(r["dataset"], r["learner"]): r for r in script.leave_one_out(rows + [again]) if r["rule"] == "train_model"}
    assert out[("d", "a")]["factor"] == pytest.approx((4.0 * 3.0) ** 0.5)


def test_a_forest_of_slow_trees_is_fitted_once(calibrations, tmp_path, monkeypatch):
    """Above --one-fit-above CPU-s a tree, the second fit is skipped and the one fit's time a tree projected."""
    script = load_script(monkeypatch)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "check.json"
    assert script.main(["--configfile", str(DEMO), "--calibration", *calibrations, "--learners", "demo:rf-point",
                        "--forest-trees", "2", "6", "--one-fit-above", "1e-9", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())["rows"]
    assert list(row["fits"]) == ["2"] and row["measured_fixed_s"] == 0.0
    assert row["projected_s"] == pytest.approx(row["fits"]["2"] * 100 / 2)


def test_a_sub_model_and_a_trial_are_fitted_on_their_sample_and_priced_as_their_jobs(calibrations, tmp_path, monkeypatch):
    """``demo:bl-mart`` fits one sub-model of the bag's base on its sample_fraction of the queries (as
    ``Bag.fit_submodel``) and prices a ``bag_submodel`` job of a seed run; ``demo:bl-mart:bag_submodel:trial`` the
    same on the trial's share of the queries, priced as a trial run's; ``demo:lambdamart:train_trial`` fits the
    learner on the trial's share and prices a ``train_trial`` job; the default set names them (bags trained a
    sub-model a job, the variance trials' learners)."""
    from ltrbv.workflow.costs import fit_models
    from ltrbv.workflow.plan import MODEL_RULES, SizeTable, calibration_costs, estimate, expanded_config, model_job

    config_path = tmp_path / "trials.yaml"
    raw = yaml.safe_load(DEMO.read_text())
    raw["learners"]["bl-mart"]["jobs"] = "submodel"
    raw["bagging"] = {"variance_trials": {"baseline": "lambdamart-rand", "fraction": 0.5, "n_trials": 2,
                                          "learners": ["lambdamart", "bl-mart"]}}
    config_path.write_text(yaml.safe_dump(raw))
    seen = record_fits(monkeypatch)
    script = load_script(monkeypatch)
    monkeypatch.chdir(tmp_path)
    config = expanded_config(yaml.safe_load(config_path.read_text()))
    assert {(l, r, t) for _, l, r, t, _ in script.default_models(config)} >= {
        ("bl-mart", "bag_submodel", False), ("bl-mart", "bag_submodel", True), ("lambdamart", "train_trial", False)}
    out = tmp_path / "check.json"
    assert script.main(["--configfile", str(config_path), "--calibration", *calibrations, "--learners", "demo:bl-mart",
                        "demo:bl-mart:bag_submodel:trial", "demo:lambdamart:train_trial", "--boosting-rounds", "2",
                        "4", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    measured = (("bl-mart", "bag_submodel", False), ("bl-mart", "bag_submodel", True), ("lambdamart", "train_trial", False))
    assert [(r["learner"], r["rule"], r["run"], r["family"], r["variant"]) for r in rows] == [
        ("bl-mart", "bag_submodel", "seed", "bag-xgboost", ""), ("bl-mart", "bag_submodel", "trial", "bag-xgboost",
                                                                 "trial run"),
        ("lambdamart", "train_trial", "seed", "xgboost", "")]
    n = SizeTable(config)("demo", "Fold1", "train").queries
    timed = [(kind, trees, queries) for kind, trees, _, queries, _ in seen if trees in (2, 4)]  # the warm-ups fit 1 tree
    sub, trial, trial_sub = round(0.67 * n), round(0.5 * n), round(0.67 * round(0.5 * n))
    assert timed == [("xgboost", 2, sub), ("xgboost", 4, sub), ("xgboost", 2, trial_sub), ("xgboost", 4, trial_sub),
                     ("xgboost", 2, trial), ("xgboost", 4, trial)]
    models = fit_models(calibration_costs(calibrations), training_rules=MODEL_RULES)
    for row, (learner, rule, trial_run) in zip(rows, measured):
        planned = estimate([model_job(config, "demo", learner, rule, trial_run)], config, SizeTable(config), models)
        assert row["planned_s"] == pytest.approx(planned["core_hours"].sum() * 3600, rel=1e-12)
        assert row["trees"] == config["learners"][config["learners"][learner]["params"].get("base", learner)]["params"][
            "n_estimators"]


def test_a_study_run_is_fitted_on_its_first_training_set_and_projected_to_its_models(calibrations, tmp_path,
                                                                                      monkeypatch):
    """``demo:rf-point:train_biasvar_twofold:subsample=0.3`` fits rf-point on the first two-fold half with the swept
    p turned into the forest's share of the half (p x all queries / the half's), as the rule does; the projection is
    the scheme's 2J models' and the price ltrbv plan's of the study job; the default set names every study run of a
    built-in learner (a run the study does not make is refused: test_unknown_names_are_refused_...)."""
    from ltrbv.learners.training_sets import training_set
    from ltrbv.workflow.costs import fit_models
    from ltrbv.workflow.plan import MODEL_RULES, SizeTable, calibration_costs, estimate, expanded_config, model_job

    seen = record_fits(monkeypatch)
    script = load_script(monkeypatch)
    monkeypatch.chdir(tmp_path)
    config = expanded_config(yaml.safe_load(DEMO.read_text()))
    defaults = {(l, r, setting) for _, l, r, _, setting in script.default_models(config)}
    assert {("rf-point", "train_biasvar_twofold", "subsample=0.3"), ("rf-point", "train_biasvar_bootstrap",
                                                                     "subsample=0.63"),
            ("lambdamart", "train_biasvar_twofold", "base")} <= defaults
    assert ("rf-point", "train_biasvar_twofold", "subsample=0.63") not in defaults  # past the half: not a run
    out = tmp_path / "check.json"
    assert script.main(["--configfile", str(DEMO), "--calibration", *calibrations, "--learners",
                        "demo:rf-point:train_biasvar_twofold:subsample=0.3", "--forest-trees", "2", "6",
                        "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())["rows"]
    assert (row["rule"], row["setting"], row["models"], row["variant"]) == (
        "train_biasvar_twofold", "subsample=0.3", 6, "subsample=0.3")
    n = SizeTable(config)("demo", "Fold1", "train").queries
    first = training_set("twofold", "1a", n, 0.5, config["seed"], "demo", "Fold1")  # the run's first training set
    half = first.size
    assert 0 < half < n
    timed = [(kind, trees, subsample, queries) for kind, trees, subsample, queries, _ in seen if trees in (2, 6)]
    assert timed == [("random_forest", trees, pytest.approx(0.3 * n / half), half) for trees in (2, 6)]
    # its queries, in its order (the synthetic split's qids are the query numbers)
    assert {qids for _, trees, _, _, qids in seen if trees in (2, 6)} == {tuple(str(q) for q in first)}
    per_tree = (row["fits"]["6"] - row["fits"]["2"]) / 4
    fixed = max(row["fits"]["2"] - 2 * per_tree, 0.0)
    assert row["projected_s"] == pytest.approx(6 * (fixed + 100 * per_tree))
    models = fit_models(calibration_costs(calibrations), training_rules=MODEL_RULES)
    job = model_job(config, "demo", "rf-point", "train_biasvar_twofold", setting="subsample=0.3")
    planned = estimate([job], config, SizeTable(config), models)
    assert row["planned_s"] == pytest.approx(planned["core_hours"].sum() * 3600, rel=1e-12)


def test_a_bag_run_is_its_first_sub_model_projected_to_the_bag_s_models(calibrations, tmp_path, monkeypatch):
    """``demo:bl-mart`` (the demo trains it a run a job) measures a train_bag job: sub-model 0 on the bag's 67% of
    the queries, projected to its 5 sub-models, priced as ltrbv plan prices the run; a bag trained a sub-model a job
    refuses train_bag."""
    from ltrbv.workflow.costs import fit_models
    from ltrbv.workflow.plan import MODEL_RULES, SizeTable, calibration_costs, estimate, expanded_config, model_job

    seen = record_fits(monkeypatch)
    script = load_script(monkeypatch)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "check.json"
    assert script.main(["--configfile", str(DEMO), "--calibration", *calibrations, "--learners", "demo:bl-mart",
                        "--boosting-rounds", "2", "4", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())["rows"]
    config = expanded_config(yaml.safe_load(DEMO.read_text()))
    n = SizeTable(config)("demo", "Fold1", "train").queries
    assert [(trees, queries) for _, trees, _, queries, _ in seen if trees in (2, 4)] == [(2, round(0.67 * n)),
                                                                                      (4, round(0.67 * n))]
    assert (row["rule"], row["family"], row["trees"]) == ("train_bag", "bag-xgboost", 1000)
    per_round = (row["fits"]["4"] - row["fits"]["2"]) / 2
    assert row["projected_s"] == pytest.approx(5 * (max(row["fits"]["2"] - 2 * per_round, 0.0) + 1000 * per_round))
    models = fit_models(calibration_costs(calibrations), training_rules=MODEL_RULES)
    planned = estimate([model_job(config, "demo", "bl-mart", "train_bag")], config, SizeTable(config), models)
    assert row["planned_s"] == pytest.approx(planned["core_hours"].sum() * 3600, rel=1e-12)
    raw = yaml.safe_load(DEMO.read_text())
    raw["learners"]["bl-mart"]["jobs"] = "submodel"
    (tmp_path / "sub.yaml").write_text(yaml.safe_dump(raw))
    with pytest.raises(SystemExit, match="trains a sub-model a job \\(jobs: submodel\\): no train_bag job"):
        script.main(["--configfile", str(tmp_path / "sub.yaml"), "--calibration", *calibrations, "--learners",
                     "demo:bl-mart:train_bag"])
