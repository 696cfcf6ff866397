"""Any ranker with one config entry (issue 14): ``kind: command``, ``kind: python`` and ``kind: lightgbm``.

* Unit checks of the command and Python learners: a failing command, a wrong score count, a bad
  template, an unimportable callable are refused naming the command / callable and the file.
* End to end: the tiny workflow with a command learner (tests/rankers/linear_ranker.py, which parses
  LETOR itself) and a Python learner through the main run and the bias-variance study (bootstrap and
  two-fold); the command learner's prediction files, and the reducer's numbers, equal those obtained by
  running the same script by hand on each sample's queries.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from conftest import tiny_config
from ltrbv.biasvar import decompose
from ltrbv.data.cache import load_cache
from ltrbv.data.letor_writer import write_letor
from ltrbv.data.ranking_data import RankingData
from ltrbv.data.synthetic import SyntheticSpec, generate_queries
from ltrbv.io import read_scores
from ltrbv.learners import CommandLearner, LightGBMRanker, PythonLearner, make_learner
from ltrbv.learners.command import CommandLearnerError

REPO = Path(__file__).resolve().parents[1]
RANKER = REPO / "tests" / "rankers" / "linear_ranker.py"
COMMAND = f"{sys.executable} {RANKER} {{train}} {{vali}} {{test}} {{out}} --seed {{seed}}"
SNAKEMAKE = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]


@pytest.fixture(scope="module")
def splits():
    raw = generate_queries(SyntheticSpec(n_queries=40, docs_per_query=8, n_features=6, n_informative=3,
                                         n_query_level=1, seed=11))
    offsets = np.concatenate(([0], np.cumsum(raw.query_sizes)))
    data = RankingData(X=raw.X.astype(np.float32), labels=raw.labels.astype(np.int8), query_offsets=offsets,
                       qids=np.arange(40).astype(str), line_numbers=np.arange(1, offsets[-1] + 1))
    return data.subset_queries(np.arange(20)), data.subset_queries(np.arange(20, 30)), data.subset_queries(np.arange(30, 40))


@pytest.fixture
def in_tests_folder(monkeypatch):
    """Run where py_ranker.py is, as a workflow runs in the folder of the user's module."""
    monkeypatch.chdir(REPO / "tests" / "rankers")
    yield
    sys.modules.pop("py_ranker", None)


# -- the command learner ----------------------------------------------------------------------

def test_command_learner_scores_every_target_in_row_order(splits):
    train, vali, test = splits
    test_scores, vali_scores = CommandLearner(COMMAND, random_state=3).fit_predict(train, vali, (test, vali))
    assert test_scores.shape == (test.n_docs,) and vali_scores.shape == (vali.n_docs,)
    # the same ridge fitted here (alpha = 1 * (1 + 3/100) for seed 3)
    X = train.X.astype(np.float64)
    mean = X.mean(axis=0)
    w = np.linalg.solve((X - mean).T @ (X - mean) + 1.03 * np.eye(X.shape[1]),
                        (X - mean).T @ (train.labels - train.labels.mean()))
    np.testing.assert_allclose(test_scores, (test.X - mean) @ w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(vali_scores, (vali.X - mean) @ w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("template, message", [
    ("python -c 'import sys; sys.exit(3)' {train} {test} {out}", r"command exited with status 3"),
    ("true {train} {test} {out}", r"command wrote no score file"),
    ("sh -c 'echo 0.5 > \"$1\"' x {out} {train} {test}", r"wrote a bad score file: .*test.scores: 1 scores for \d+ documents"),
    ("sh -c 'yes 1 2 | head -n 200 > \"$1\"' x {out} {train} {test}", r"test.scores, line 1: 2 fields"),
])
def test_a_failing_command_is_reported_with_the_command_and_file(splits, template, message):
    train, vali, test = splits
    with pytest.raises(CommandLearnerError, match=message):
        CommandLearner(template).fit_predict(train, vali, (test,))


@pytest.mark.parametrize("template, message", [
    ("ranker {train} {test}", r"must contain \{out\}"),
    ("ranker {train} {tset} {out}", r"unknown placeholder\(s\) \['tset'\]"),
    ("ranker {train {test} {out}", r"malformed template"),
    ("", r"non-empty"),
])
def test_a_bad_template_is_refused_when_built(template, message):
    with pytest.raises(ValueError, match=message):
        CommandLearner(template)


# -- the Python learner -----------------------------------------------------------------------

def test_python_learner_calls_the_function(splits, in_tests_folder):
    train, vali, test = splits
    (scores,) = PythonLearner("py_ranker:fit_predict", options={"alpha": 2.0}).fit_predict(train, vali, (test,))
    X = train.X.astype(np.float64)
    mean = X.mean(axis=0)
    w = np.linalg.solve((X - mean).T @ (X - mean) + 2.0 * np.eye(X.shape[1]),
                        (X - mean).T @ (train.labels - train.labels.mean()))
    np.testing.assert_allclose(scores, (test.X - mean) @ w, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("spec, message", [
    ("no_such_module_xyz:f", r"cannot import module 'no_such_module_xyz'"),
    ("py_ranker:absent", r"has no function 'absent'"),
    ("py_ranker", r"must be 'module:function'"),
])
def test_python_learner_refuses_what_it_cannot_call(spec, message, in_tests_folder):
    with pytest.raises(ValueError, match=message):
        PythonLearner(spec)


@pytest.mark.parametrize("spec, message", [
    ("py_ranker:wrong_length", r"returned \d+ scores for \d+ documents"),
    ("py_ranker:not_finite", r"non-finite score \(row 3\)"),
])
def test_python_learner_checks_what_the_function_returns(splits, spec, message, in_tests_folder):
    train, vali, test = splits
    with pytest.raises(ValueError, match=message):
        PythonLearner(spec).fit_predict(train, vali, (test,))


# -- LightGBM -----------------------------------------------------------------------------------

def test_lightgbm_is_deterministic_and_stops_early(splits):
    train, vali, test = splits
    a = make_learner("lightgbm", {"n_estimators": 300, "early_stopping_rounds": 5, "max_leaves": 4}, 7, 1)
    b = make_learner("lightgbm", {"n_estimators": 300, "early_stopping_rounds": 5, "max_leaves": 4}, 7, 2)
    (sa,), (sb,) = a.fit_predict(train, vali, (test,)), b.fit_predict(train, vali, (test,))
    np.testing.assert_array_equal(sa, sb)
    info = a.fit_info_
    assert info["rounds_trained"] < 300 and info["trees_kept"] + 5 == info["rounds_trained"]
    history = info["eval_history"]["valid"]["ndcg@10"]
    assert int(np.argmax(history)) + 1 == info["trees_kept"]


def test_lightgbm_equals_lightgbm_itself(splits):
    """The wrapper's scores are LightGBM's own booster's at the best iteration (same params, same data)."""
    import lightgbm as lgb

    train, vali, test = splits
    ours = LightGBMRanker(n_estimators=30, early_stopping_rounds=None, max_leaves=4, random_state=1)
    (scores,) = ours.fit_predict(train, None, (test,))
    params = ours._params()
    booster = lgb.train(params, lgb.Dataset(train.X, label=train.labels.astype(float), group=train.query_sizes),
                        num_boost_round=30)
    np.testing.assert_allclose(scores, booster.predict(test.X), rtol=0, atol=1e-12)


@pytest.mark.parametrize("params, message", [
    ({"eval_metric": "map"}, "eval_metric must be ndcg@k"),
    ({"learning_rate": float("nan")}, "learning_rate must be a finite number > 0, got nan"),
    ({"n_estimators": 10.5}, "n_estimators must be an integer"),
    ({"max_depth": 0}, "max_depth must be -1"),
])
def test_lightgbm_refuses_bad_params(params, message):
    with pytest.raises(ValueError, match=message):
        LightGBMRanker(**params)._validate_params()


# -- end to end ------------------------------------------------------------------------------------

LEARNERS = {
    "cmd": {"kind": "command", "params": {"command": COMMAND}},
    "py": {"kind": "python", "params": {"callable": "my_ranker:fit_predict", "options": {"alpha": 2.0}}},
}


@pytest.fixture(scope="module")
def workflow(tmp_path_factory):
    """The tiny workflow with a command learner and a Python learner through the main run and the study."""
    workdir = tmp_path_factory.mktemp("own-learners")
    shutil.copy(REPO / "tests" / "rankers" / "py_ranker.py", workdir / "my_ranker.py")
    config = tiny_config(learners=LEARNERS)
    config["biasvar"] = {"enabled": True, "datasets": ["tiny"], "bootstrap": {"replicates": 3},
                         "twofold": {"repetitions": 2}, "sweep": {"learners": []},
                         "compare": {"learners": ["cmd", "py"], "schemes": ["bootstrap", "twofold"]},
                         "metrics": ["ndcg", "ndcg@10"], "significance": {"baseline": "cmd", "permutations": 200},
                         "zhang": {"metrics": ["map"], "targets": ["perfect"]}, "uncertainty": {"resamples": 200}}
    (workdir / "c.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    result = subprocess.run(SNAKEMAKE + ["--directory", str(workdir), "--configfile", str(workdir / "c.yaml"),
                                         "--cores", "2", "--nocolor"], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, (result.stdout + result.stderr)[-6000:]
    return workdir, config


def test_main_run_writes_prediction_files_for_both(workflow):
    workdir, _ = workflow
    base = workdir / "results/tiny"
    for learner in ("cmd", "py"):
        meta = json.loads((base / f"predictions/{learner}/Fold1/seed1/meta.json").read_text())
        assert meta["kind"] in ("command", "python")
        test = load_cache(base / "parsed/Fold1/test.npz")
        assert read_scores(base / f"predictions/{learner}/Fold1/seed1/test.scores").size == test.n_docs
    performance = (base / "tables/performance.csv").read_text()
    assert ",cmd," in performance and ",py," in performance
    assert "cmd" in (base / "tables/significance.csv").read_text()


@pytest.mark.parametrize("scheme, replicates", [("bootstrap", ["1", "2", "3"]), ("twofold", ["1a", "1b", "2a", "2b"])])
def test_study_of_the_command_learner_equals_the_script_run_by_hand(workflow, tmp_path, scheme, replicates):
    workdir, config = workflow
    base = workdir / "results/tiny"
    train = load_cache(base / "parsed/Fold1/train.npz")
    vali = load_cache(base / "parsed/Fold1/vali.npz")
    test = load_cache(base / "parsed/Fold1/test.npz")
    write_letor(tmp_path / "vali.txt", vali)
    write_letor(tmp_path / "test.txt", test)
    by_hand = []
    for replicate in replicates:
        sample = json.loads((base / f"biasvar/samples/Fold1/{scheme}/rep{replicate}.json").read_text())
        folder = base / f"biasvar/predictions/cmd/Fold1/base/{scheme}/rep{replicate}"
        seed = json.loads((folder / "meta.json").read_text())["random_state"]
        write_letor(tmp_path / "train.txt", train.subset_queries(np.asarray(sample["query_indices"])))
        out = tmp_path / f"{replicate}.scores"
        subprocess.run([sys.executable, str(RANKER), str(tmp_path / "train.txt"), str(tmp_path / "vali.txt"),
                        str(tmp_path / "test.txt"), str(out), "--seed", str(seed)], check=True, capture_output=True)
        hand = np.loadtxt(out)
        workflow_scores = test.from_file_order(read_scores(folder / "test.scores"))
        np.testing.assert_array_equal(workflow_scores, hand)
        by_hand.append(hand)
    reduced = json.loads((base / f"biasvar/reduced/cmd/Fold1/base/{scheme}.json").read_text())
    study = config["biasvar"]
    ours = decompose(test, np.array(by_hand), scheme, metrics=tuple(study["metrics"]), convention="standard",
                     n_resamples=200, level=0.95, seed=reduced["ci_seed"]).summary
    for key in ("bias2", "variance"):
        assert reduced[key] == pytest.approx(ours[key], rel=1e-12, abs=1e-15)
    for metric in study["metrics"]:
        for key in ("sre", "vre", "ranking_error"):
            assert reduced["metrics"][metric][key] == pytest.approx(ours["metrics"][metric][key], rel=1e-12, abs=1e-15)


def test_a_failing_command_fails_its_job_and_leaves_no_prediction_file(tmp_path):
    learners = {"bad": {"kind": "command", "params": {"command": "sh -c 'exit 7' {train} {test} {out}"}}}
    config = tiny_config(learners=learners)
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    result = subprocess.run(SNAKEMAKE + ["--directory", str(tmp_path), "--configfile", str(tmp_path / "c.yaml"),
                                         "--cores", "1", "--nocolor", "results/tiny/predictions/bad/Fold1/seed1/test.scores"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode != 0
    log = (tmp_path / "results/tiny/logs/train_model/bad/Fold1/seed1.log").read_text()
    assert "command exited with status 7: sh -c 'exit 7'" in log
    assert not (tmp_path / "results/tiny/predictions/bad/Fold1/seed1/test.scores").exists()
