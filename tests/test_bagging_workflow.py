"""BL-MART and the bagging experiments through Snakemake, on a tiny synthetic config in a scratch directory."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest

from test_workflow import SMALL, run

LM = {"n_estimators": 30, "learning_rate": 0.3, "max_leaves": 8, "early_stopping_rounds": 5, "eval_train": False}

BAGGED = {
    **SMALL,
    "run": {"datasets": ["tiny"], "learners": ["lambdamart-rand", "bl-mart", "bl-mart-of"], "seeds": [1]},
    "learners": {
        "lambdamart-rand": {"kind": "xgboost", "params": {**LM, "query_subsample": 0.5, "colsample_bynode": 0.5}},
        "bl-mart": {"kind": "bag", "params": {"base": "lambdamart-rand", "n_models": 3}},
        "bl-mart-of": {"kind": "bag", "params": {"base": "lambdamart-rand", "n_models": 2,
                                                 "base_params": {"overfit_tolerance": 0.02,
                                                                 "overfit_max_extra_trees": 10}}},
        "bl-borda": {"kind": "bag", "params": {"base": "lambdamart-rand", "n_models": 2, "combine": "borda"}},
    },
    "bagging": {
        "bag_size": {"enabled": True, "learners": ["bl-mart", "bl-mart-of"], "draws": 5},
        "variance_trials": {"enabled": True, "n_trials": 2, "learners": ["lambdamart-rand", "bl-mart"],
                            "baseline": "lambdamart-rand"},
        "bagging_table": True,
    },
}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """The bagging workflow on a tiny config: bags, sub-models, trials and bag-size tables."""
    workdir = tmp_path_factory.mktemp("bagwf")
    run(workdir, BAGGED)
    return workdir


def raw_groups(path):
    """Line numbers (0-based) of each qid in a raw LETOR file, read independently of ltrbv's parser."""
    groups = defaultdict(list)
    for i, line in enumerate(path.read_text().splitlines()):
        groups[line.split()[1]].append(i)
    return groups


def minmax_average(score_files, groups):
    matrix = np.array([np.loadtxt(p) for p in score_files])
    out = np.empty(matrix.shape[1])
    for lines in groups.values():
        block = matrix[:, lines]
        lo, hi = block.min(axis=1, keepdims=True), block.max(axis=1, keepdims=True)
        span = np.where(hi > lo, hi - lo, 1.0)
        out[lines] = (np.where(hi > lo, (block - lo) / span, 0.0)).mean(axis=0)
    return out


@pytest.mark.parametrize("learner,n_models", [("bl-mart", 3), ("bl-mart-of", 2)])
def test_bag_prediction_is_the_minmax_average_of_its_submodels(finished, learner, n_models):
    base = finished / "results" / "tiny"
    for fold in ("Fold1", "Fold2"):
        for split in ("test", "vali"):
            subs = [base / f"bags/{learner}/{fold}/seed1/sub{k}/{split}.scores" for k in range(n_models)]
            bag = np.loadtxt(base / f"predictions/{learner}/{fold}/seed1/{split}.scores")
            groups = raw_groups(base / f"raw/{fold}/{split}.txt")
            np.testing.assert_allclose(bag, minmax_average(subs, groups), rtol=0, atol=1e-12)
            # the sub-models differ (different query samples and seeds)
            assert not np.array_equal(np.loadtxt(subs[0]), np.loadtxt(subs[1]))
    meta = json.loads((base / f"predictions/{learner}/Fold1/seed1/meta.json").read_text())
    assert meta["n_models"] == n_models and meta["combine"] == "minmax"
    sub = json.loads((base / f"bags/{learner}/Fold1/seed1/sub0/meta.json").read_text())
    n_train = json.loads((base / "trials/Fold1/trial1.json").read_text())["n_queries"]
    assert sub["train_queries"] == round(0.67 * n_train) == len(set(sub["train_query_indices"]))


def test_overfitted_submodels_keep_more_trees(finished):
    base = finished / "results" / "tiny" / "bags"
    for k in range(2):
        info = json.loads((base / f"bl-mart-of/Fold1/seed1/sub{k}/meta.json").read_text())["fit_info"]
        assert info["best_iteration"] <= info["kept_iteration"] <= info["best_iteration"] + 10
        curve = info["eval_history"]["valid"]["ndcg@10"]
        top = curve[info["best_iteration"]]
        assert all(top - v <= 0.02 * top for v in curve[info["best_iteration"]:info["kept_iteration"] + 1])


def test_bags_are_in_the_performance_table(finished):
    table = pd.read_csv(finished / "results/tiny/tables/performance.csv", dtype={"fold": str})
    assert set(table.learner) == {"lambdamart-rand", "bl-mart", "bl-mart-of"}
    assert set(table.fold) == {"Fold1", "Fold2", "mean"}
    summary = pd.read_csv(finished / "results/tiny/tables/bagging_performance.csv", dtype={"fold": str})
    assert set(summary.metric) == {"ndcg@1", "ndcg@3", "ndcg@5", "mean_ndcg", "map"}
    assert summary.value.between(0, 1).all()
    # MAP agrees with the evaluate rule's
    a = table[(table.metric == "map") & (table.fold == "mean")].set_index("learner").value
    b = summary[(summary.metric == "map") & (summary.fold == "mean")].set_index("learner").value
    np.testing.assert_allclose(a.sort_index(), b.sort_index(), atol=1e-6)


def test_variance_trials(finished):
    base = finished / "results" / "tiny"
    samples = [json.loads((base / f"trials/Fold1/trial{t}.json").read_text()) for t in (1, 2)]
    for s in samples:
        assert len(s["query_indices"]) == len(set(s["query_indices"])) == round(0.67 * s["n_queries"])
    assert samples[0]["query_indices"] != samples[1]["query_indices"]
    # a trial's bag sub-model trains on 67% of the trial's queries
    sub = json.loads((base / "bags/bl-mart/Fold1/trial2/sub0/meta.json").read_text())
    assert set(sub["train_query_indices"]) <= set(samples[1]["query_indices"])
    assert sub["train_queries"] == round(0.67 * len(samples[1]["query_indices"]))
    trial_model = json.loads((base / "predictions/lambdamart-rand/Fold1/trial1/meta.json").read_text())
    assert trial_model["train_query_indices"] == samples[0]["query_indices"]
    summary = pd.read_csv(base / "tables/variance_trials.csv")
    assert set(summary.learner) == {"lambdamart-rand", "bl-mart"}
    assert set(summary.metric) >= {"ndcg@1", "ndcg@3", "mean_ndcg", "map"}
    assert (summary.n_trials == 2).all() and (summary.variance >= 0).all()
    runs = pd.read_csv(base / "tables/variance_trials_runs.csv")
    sel = runs[(runs.learner == "bl-mart") & (runs.metric == "map")]
    row = summary[(summary.learner == "bl-mart") & (summary.metric == "map")]
    for convention, part in sel.groupby("convention"):
        r = row[row.convention == convention].iloc[0]
        assert np.isclose(r["variance"], np.var(part.value, ddof=1))
    assert "variance change" in (base / "tables/variance_trials.md").read_text()


def test_bag_size_figure(finished):
    base = finished / "results" / "tiny"
    table = pd.read_csv(base / "tables/bag_size.csv", dtype={"fold": str})
    assert set(table.learner) == {"bl-mart", "bl-mart-of"}
    assert sorted(set(table.n_models)) == [1, 2]  # sizes up to the smaller pool
    assert (table.draws == 5).all() and table.value.between(0, 1).all()
    assert (base / "figures/bag_size.png").stat().st_size > 1000


def test_second_run_does_nothing(finished):
    result = run(finished, BAGGED, "--dry-run")
    assert "Nothing to be done" in result.stdout + result.stderr


def test_borda_bag(finished):
    run(finished, BAGGED, "results/tiny/predictions/bl-borda/Fold1/seed1/test.scores")
    base = finished / "results" / "tiny"
    bag = np.loadtxt(base / "predictions/bl-borda/Fold1/seed1/test.scores")
    groups = raw_groups(base / "raw/Fold1/test.txt")
    subs = np.array([np.loadtxt(base / f"bags/bl-borda/Fold1/seed1/sub{k}/test.scores") for k in range(2)])
    want = np.empty(bag.size)
    for lines in groups.values():
        block = subs[:, lines]
        # points = documents ranked below + half the documents tied with it
        points = [(row[None, :] < row[:, None]).sum(1) + ((row[None, :] == row[:, None]).sum(1) - 1) / 2 for row in block]
        want[lines] = np.mean(points, axis=0)
    np.testing.assert_allclose(bag, want, atol=1e-12)


def test_one_job_per_submodel_writes_the_same_files(finished, tmp_path):
    """`jobs: submodel` (one bag_submodel job per sub-model, as on a cluster) against the default `jobs: run` (one
    train_bag_<n> job fitting the run's sub-models one after another): the same sub-model and bag score files, bit
    for bit, the same records but the fit time and provenance; one job per sub-model, one per run."""
    per_submodel = {**BAGGED, "learners": {**BAGGED["learners"],
                                           "bl-mart": {**BAGGED["learners"]["bl-mart"], "jobs": "submodel"}}}
    targets = [f"results/tiny/predictions/bl-mart/Fold1/{run}/test.scores" for run in ("seed1", "trial1")]
    result = run(tmp_path, per_submodel, *targets)
    out = result.stdout + result.stderr
    assert "rule train_bag_" not in out and out.count("rule bag_submodel:") == 6  # 3 sub-models x (seed1, trial1)
    logs = sorted((finished / "results/tiny/logs/train_bag/bl-mart/Fold1").glob("*.log"))
    assert [p.name for p in logs] == ["seed1.log", "trial1.log", "trial2.log"] and "sub-model 2 of bl-mart" in logs[0].read_text()
    for run_name in ("seed1", "trial1"):
        for k in range(3):
            for split in ("test", "vali"):
                path = f"results/tiny/bags/bl-mart/Fold1/{run_name}/sub{k}/{split}.scores"
                assert (tmp_path / path).read_bytes() == (finished / path).read_bytes(), path
            metas = [json.loads((root / f"results/tiny/bags/bl-mart/Fold1/{run_name}/sub{k}/meta.json").read_text())
                     for root in (finished, tmp_path)]
            for meta in metas:
                del meta["fit_seconds"], meta["provenance"]
            assert metas[0] == metas[1]
        path = f"results/tiny/predictions/bl-mart/Fold1/{run_name}/test.scores"
        assert (tmp_path / path).read_bytes() == (finished / path).read_bytes(), path


def test_bag_jobs_is_a_bag_s_option_only(tmp_path):
    for entry, message in (({"kind": "xgboost", "params": LM, "jobs": "run"}, "learners.lambdamart-rand.jobs: only a bag"),
                           ({**BAGGED["learners"]["bl-mart"], "jobs": "sub"},
                            "learners.bl-mart.jobs: 'sub' is not one of ['run', 'submodel']"),
                           ({**BAGGED["learners"]["bl-mart"], "jobs": 1}, "learners.bl-mart.jobs: 1 is not of type 'string'")):
        name = "bl-mart" if entry["kind"] == "bag" else "lambdamart-rand"
        bad = {**BAGGED, "learners": {**BAGGED["learners"], name: entry}}
        result = run(tmp_path, bad, "--dry-run", check=False)
        assert result.returncode != 0 and message in result.stderr + result.stdout, result.stderr[-2000:]
        assert not (tmp_path / "results").exists()


def test_bad_bag_base_fails_before_any_job(tmp_path):
    bad = {**BAGGED, "learners": {**BAGGED["learners"], "bl-mart": {"kind": "bag", "params": {"base": "nothing"}}}}
    result = run(tmp_path, bad, check=False)
    assert result.returncode != 0 and "nothing" in result.stderr + result.stdout
    assert not (tmp_path / "results").exists()
    bad = {**BAGGED, "bagging": {"variance_trials": {"enabled": True, "fold": "Fold9"}}}
    result = run(tmp_path, bad, check=False)
    assert result.returncode != 0 and "Fold9" in result.stderr + result.stdout
