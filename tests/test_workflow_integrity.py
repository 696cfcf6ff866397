"""Issue 28, part 2, at the workflow level: what the config files say is read as YAML says it, and what a
table claims to summarise is what its files hold.

* Config files: YAML merge keys (``<<: *anchor``) are valid YAML, a real duplicate key is still refused;
  ``1e-1`` is a number (YAML 1.2), a quoted ``'1e-1'`` stays a string; an empty file is named.
* A training set without a relevant document is refused, naming it (a bag's sub-sample: bag and sub-model).
* A job whose Snakemake is gone publishes nothing (the kill -9 workflow test is in test_faults.py; the
  content-digest workflow tests are in test_incremental.py).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml
from snakemake.common.configfile import load_configfile

from conftest import tiny_config
from ltrbv.cli import main
from ltrbv.workflow.config_checks import ConfigError, check_config
from ltrbv.workflow.validation import config_file_problems

LEARNERS = {"gbm": {"kind": "xgboost", "threads": 1, "params": {"n_estimators": 20}}}


def _checked(tmp_path: Path, text: str, monkeypatch) -> dict:
    """The config Snakemake reads from ``text``, after the workflow's check (run in ``tmp_path``)."""
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return check_config(load_configfile(str(path)), [str(path)])


def test_merge_keys_are_read_and_a_duplicate_beside_them_is_refused(tmp_path, monkeypatch):
    text = yaml.safe_dump(tiny_config(learners=copy.deepcopy(LEARNERS)), sort_keys=False)
    text = text.replace("\n  gbm:\n", "\n  gbm: &gbm\n", 1).replace(
        "\nfigures:", "\n  gbm2:\n    <<: *gbm\n    threads: 2\nfigures:", 1)
    config = _checked(tmp_path, text, monkeypatch)
    assert config["learners"]["gbm2"]["threads"] == 2  # the explicit key overrides the merged one
    assert config["learners"]["gbm2"]["params"]["n_estimators"] == 20  # merged from the anchor
    twice = text.replace("    threads: 2\n", "    threads: 2\n    kind: xgboost\n    kind: random_forest\n")
    assert config_file_problems(tmp_path / "c.yaml") == []
    (tmp_path / "d.yaml").write_text(twice)
    problems = config_file_problems(tmp_path / "d.yaml")
    assert len(problems) == 1 and "key 'kind' is given twice" in problems[0], problems


@pytest.mark.parametrize("written, expected", [("1e-1", 0.1), ("5e-2", 0.05), ("1.0e-1", 0.1), ("+2E-1", 0.2),
                                               ("0.1", 0.1), ("1.0e+1", 10.0)])
def test_yaml12_floats_are_numbers_for_every_key(tmp_path, monkeypatch, written, expected):
    text = yaml.safe_dump(tiny_config(learners=copy.deepcopy(LEARNERS)), sort_keys=False)
    text = text.replace("n_estimators: 20", f"n_estimators: 20\n      learning_rate: {written}\n"
                                            f"      min_child_weight: {written}")
    config = _checked(tmp_path, text, monkeypatch)
    params = config["learners"]["gbm"]["params"]
    assert params["learning_rate"] == expected and type(params["learning_rate"]) is float
    assert params["min_child_weight"] == expected and type(params["min_child_weight"]) is float


def test_a_quoted_number_stays_a_string(tmp_path, monkeypatch):
    text = yaml.safe_dump(tiny_config(learners=copy.deepcopy(LEARNERS)), sort_keys=False)
    with pytest.raises(ConfigError, match=r"learners.gbm.params.learning_rate: '1e-1' is not of type 'number'"):
        _checked(tmp_path, text.replace("n_estimators: 20", "n_estimators: 20\n      learning_rate: '1e-1'"),
                 monkeypatch)


@pytest.mark.parametrize("text, message", [("", r"c.yaml: empty config file"), ("# nothing\n", r"c.yaml: empty config"),
                                           ("- a\n- b\n", r"c.yaml: a config file is a mapping of keys")])
def test_an_empty_config_file_is_named(tmp_path, capsys, text, message):
    """Snakemake itself refuses an empty --configfile before the workflow runs, without naming it
    ("Config file must be given as JSON or YAML with keys at top level."); ``ltrbv check-config`` names it."""
    import re

    path = tmp_path / "c.yaml"
    path.write_text(text)
    assert main(["check-config", str(path)]) != 0
    assert re.search(message, capsys.readouterr().err)
    assert path.read_text() == text


# -- a training set without a relevant document (issue 28: a constant model reported as a performance) ----------

def _queries(labels_per_query) -> "RankingData":
    import numpy as np

    from ltrbv.data.ranking_data import RankingData

    labels = np.concatenate([np.asarray(q, dtype=np.int8) for q in labels_per_query])
    offsets = np.cumsum([0] + [len(q) for q in labels_per_query]).astype(np.int64)
    rng = np.random.default_rng(0)
    return RankingData(X=rng.random((labels.size, 4)).astype(np.float32), labels=labels, query_offsets=offsets,
                       qids=np.array([str(i) for i in range(len(labels_per_query))]),
                       line_numbers=np.arange(1, labels.size + 1, dtype=np.int64), source="t/train.txt")


def test_a_training_set_of_zero_labels_is_refused_with_its_name():
    from ltrbv.learners.training_sets import NoRelevantDocumentError, require_relevant

    with pytest.raises(NoRelevantDocumentError, match=r"^fold X: no document with a positive label \(3 queries, 6 "):
        require_relevant(_queries([[0, 0], [0, 0], [0, 0]]), "fold X")
    require_relevant(_queries([[0, 0], [0, 1], [0, 0]]), "fold X")  # one relevant document is enough


def test_a_bag_sub_sample_of_zero_label_queries_is_refused_naming_bag_and_sub_model():
    """A bag whose sub-models each draw 1 of 4 queries, one of which holds the only relevant document: the
    sub-models that drew another query are refused (bag and sub-model named), the others train."""
    import numpy as np

    from ltrbv.learners.bag import Bag
    from ltrbv.learners.training_sets import NoRelevantDocumentError

    train = _queries([[0, 0, 0], [0, 2, 1], [0, 0], [0, 0, 0]])
    bag = Bag(kind="random_forest", params={"n_estimators": 2}, n_models=8, sample_fraction=0.25, name="bl")
    refused, trained = [], []
    for k in range(bag.n_models):
        chosen = bag.submodel_queries(np.arange(4), [1, "d", "Fold1"], k)
        try:
            bag.fit_submodel(k, train, train, (train,), [1, "d", "Fold1"])
            trained.append(int(chosen[0]))
        except NoRelevantDocumentError as error:
            assert re.match(rf"bag 'bl', sub-model {k}: its sample of 1 of 4 training queries of t/train.txt", str(error))
            refused.append(int(chosen[0]))
    assert refused and trained and set(trained) == {1} and 1 not in refused


def test_a_fold_whose_training_labels_are_all_zero_is_refused_by_its_training_job(tmp_path):
    """The workflow on a fold whose train.txt has only label 0: the training job fails, its log names the file,
    no prediction file is written, and the raw file is unchanged."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent / "cluster"))
    from wfhelpers import snakemake, write_letor_folds

    write_letor_folds(tmp_path / "data", ["Fold1"])
    train = tmp_path / "data/Fold1/train.txt"
    train.write_text("".join("0" + line[1:] for line in train.read_text().splitlines(keepends=True)))
    before = train.read_bytes()
    config = {"seed": 3, "run": {"datasets": ["toy"], "learners": ["gbm"], "seeds": [1]}, "metrics": ["ndcg@10"],
              "datasets": {"toy": {"root": "data", "folds": ["Fold1"], "n_features": 6, "label_range": [0, 2],
                                   "conventions": ["letor4"]}},
              "learners": {"gbm": {"kind": "xgboost", "threads": 1, "params": {"n_estimators": 5}}},
              "figures": {"metric": "ndcg@10", "convention": "letor4"}}
    result = snakemake(tmp_path, config, check=False)
    assert result.returncode != 0
    log = (tmp_path / "results/toy/logs/train_model/gbm/Fold1/seed1.log").read_text()
    assert re.search(r"training set results/toy/parsed/Fold1/train.npz \(of data/Fold1/train.txt\): no document with "
                     r"a positive label \(72 queries, 576 documents", log), log[-2000:]
    assert not (tmp_path / "results/toy/predictions").exists() or not list((tmp_path / "results/toy/predictions")
                                                                          .rglob("*.*"))
    assert train.read_bytes() == before


# -- a job whose Snakemake is gone publishes nothing (issue 28: orphaned jobs) -------------------------------

@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="the job guard reads /proc (Linux)")
def test_a_run_whose_owner_is_gone_publishes_nothing(tmp_path, monkeypatch):
    """The owner (a child process standing in for Snakemake) is alive, then killed but not yet collected (a
    zombie, as a killed Snakemake is until its parent waits for it): publishing then refuses and leaves no file,
    temporary or final."""
    import signal
    import subprocess
    import sys

    from ltrbv.workflow import job_guard
    from ltrbv.workflow.run_files import publishing

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        owner = job_guard.Process(child.pid, job_guard._start_time(child.pid))
        monkeypatch.setattr(job_guard, "_OWNER", owner)
        with publishing(tmp_path / "a.scores") as (tmp,):
            tmp.write_text("1\n")
        assert (tmp_path / "a.scores").read_text() == "1\n"  # owner alive: published
        child.send_signal(signal.SIGKILL)
        while job_guard._stat_fields(child.pid)[0] != "Z":
            pass
        assert not owner.alive()
        with pytest.raises(job_guard.OrphanedJobError, match=rf"pid {child.pid}\) is gone"):
            with publishing(tmp_path / "b.scores", tmp_path / "meta.json") as (scores, meta):
                scores.write_text("2\n")
                meta.write_text("{}\n")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["a.scores"]
    finally:
        child.kill()
        child.wait()


def test_a_run_target_that_is_a_symbolic_link_is_refused_and_nothing_is_published(tmp_path):
    """Publishing goes through the package's one writer (ltrbv.io.atomic_path): a target that exists and is not a
    regular file is refused, never replaced, and none of the run's files is published."""
    import os

    from ltrbv.workflow.run_files import publishing

    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("keep\n")
    os.symlink(elsewhere, tmp_path / "meta.json")
    with pytest.raises(ValueError, match=r"meta.json: is a symbolic link"):
        with publishing(tmp_path / "test.scores", tmp_path / "meta.json") as (scores, meta):
            scores.write_text("1\n")
            meta.write_text("{}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere.txt", "meta.json"]
    assert (tmp_path / "meta.json").is_symlink() and elsewhere.read_text() == "keep\n"
