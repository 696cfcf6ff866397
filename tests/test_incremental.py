"""Incremental reruns: after a full run, a change plans only the jobs it affects.

The data set is real (not synthetic): small LETOR files written into the scratch directory, so one
fold's raw file can be edited. Each test works on a copy of one finished run (mtimes preserved) and
reads the job list of ``snakemake --dry-run``. Snakemake 9's default rerun triggers are mtime (with
the input checksums it records for small files), params, input set, code and software env.

Also: a dry run of a paper-scale grid (MSLR-WEB10K-like and Yahoo-like roots of placeholder files).
"""

from __future__ import annotations

import copy
import hashlib
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "cluster"))
from wfhelpers import Job, job_counts, planned_jobs, snakemake, write_letor_folds  # noqa: E402

pytestmark = pytest.mark.slow

FOLDS = ["Fold1", "Fold2"]
CONFIG = {
    "seed": 11,
    "run": {"datasets": ["toy"], "learners": ["gbm", "forest"], "seeds": [1]},
    "metrics": ["ndcg@10", "map"],
    "datasets": {
        "toy": {"root": "data", "folds": FOLDS, "n_features": 6, "label_range": [0, 2], "conventions": ["letor4"]},
    },
    "learners": {
        "gbm": {"kind": "xgboost", "params": {"n_estimators": 10}},
        "forest": {"kind": "random_forest", "params": {"splitting": "point", "n_estimators": 5}},
    },
    "figures": {"metric": "ndcg@10", "convention": "letor4"},
}
AGGREGATES = {Job("performance_table", (("dataset", "toy"),)), Job("plot_performance", (("dataset", "toy"),)),
              # the report's page of the performance table and its first page
              Job("report_page", (("dataset", "toy"), ("page", "performance"))), Job("report_landing", ())}


def job(rule: str, **wildcards) -> Job:
    return Job(rule, tuple(sorted({"dataset": "toy", **wildcards}.items())))


def model_jobs(learners, folds, seeds=(1,)) -> set[Job]:
    """Those runs' training jobs, and each learner's evaluation job (one per learner: all its folds and seeds)."""
    return ({job("train_model", learner=learner, fold=fold, seed=str(seed))
             for learner in learners for fold in folds for seed in seeds}
            | {job("evaluate", learner=learner) for learner in learners})


def assert_plan(planned: list[Job], expected: set[Job]) -> None:
    got = set(planned)
    assert len(got) == len(planned), f"a job planned twice: {sorted(map(str, planned))}"
    extra = sorted(f"{j}  <- {j.reason}" for j in planned if j not in expected)
    missing = sorted(map(str, expected - got))
    assert not extra and not missing, "planned but not expected:\n  " + "\n  ".join(extra) + \
        "\nexpected but not planned:\n  " + "\n  ".join(missing)


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished run of the tiny config, the starting point of every incremental change."""
    workdir = tmp_path_factory.mktemp("incremental")
    write_letor_folds(workdir / "data", FOLDS)
    snakemake(workdir, CONFIG)
    return workdir


@pytest.fixture
def workdir(finished, tmp_path):
    copy_ = tmp_path / "wd"
    shutil.copytree(finished, copy_, symlinks=True)  # copy2: mtimes kept, so the copy is up to date
    return copy_


def test_a_finished_run_plans_nothing(workdir):
    assert planned_jobs(workdir, CONFIG) == []


def test_touching_raw_files_without_changing_them_plans_nothing(workdir):
    later = time.time() + 60
    for path in (workdir / "data").rglob("*.txt"):
        os.utime(path, (later, later))
    assert planned_jobs(workdir, CONFIG) == []


def test_changing_one_folds_raw_file_reruns_only_that_fold_and_the_aggregates(workdir, finished):
    raw = workdir / "data/Fold2/train.txt"
    lines = raw.read_text().splitlines(keepends=True)
    lines[0] = ("2" if lines[0][0] != "2" else "0") + lines[0][1:]  # one label changed
    raw.write_text("".join(lines))

    expected = {job("parse_split", fold="Fold2", split="train")} | model_jobs(["gbm", "forest"], ["Fold2"]) | AGGREGATES
    planned = planned_jobs(workdir, CONFIG)
    assert_plan(planned, expected)
    assert not [j for j in planned if j.get("fold") == "Fold1"]

    # The real run does what the dry run said: Fold1's files are not rewritten, Fold2's are.
    before = {p: p.stat().st_mtime_ns for p in (workdir / "results/toy").rglob("*") if p.is_file()}
    snakemake(workdir, CONFIG)
    changed = {str(p.relative_to(workdir / "results/toy")) for p, t in before.items()
               if not p.exists() or p.stat().st_mtime_ns != t}
    assert not [name for name in changed if "Fold1" in name], sorted(changed)
    assert "predictions/gbm/Fold2/seed1/test.scores" in changed and "tables/performance.csv" in changed
    assert planned_jobs(workdir, CONFIG) == []


def test_changing_one_learners_params_reruns_only_that_learner(workdir):
    config = copy.deepcopy(CONFIG)
    config["learners"]["forest"]["params"]["n_estimators"] = 6
    assert_plan(planned_jobs(workdir, config), model_jobs(["forest"], FOLDS) | AGGREGATES)


def test_adding_a_learner_schedules_only_its_jobs(workdir):
    config = copy.deepcopy(CONFIG)
    config["learners"]["forest-rand"] = {"kind": "random_forest", "params": {"splitting": "rand", "n_estimators": 5}}
    config["run"]["learners"] = ["gbm", "forest", "forest-rand"]
    assert_plan(planned_jobs(workdir, config), model_jobs(["forest-rand"], FOLDS) | AGGREGATES)


def test_adding_a_seed_schedules_only_the_new_replicates(workdir):
    config = copy.deepcopy(CONFIG)
    config["run"]["seeds"] = [1, 2]
    assert_plan(planned_jobs(workdir, config), model_jobs(["gbm", "forest"], FOLDS, seeds=[2]) | AGGREGATES)


def test_changing_the_figure_metric_redraws_only_the_figure(workdir):
    config = copy.deepcopy(CONFIG)
    config["figures"]["metric"] = "map"
    assert_plan(planned_jobs(workdir, config), {Job("plot_performance", (("dataset", "toy"),))})


def test_threads_and_memory_are_not_a_change(workdir):
    config = copy.deepcopy(CONFIG)
    config["learners"]["gbm"].update(threads=2, mem_mb=3000, runtime=90)
    assert planned_jobs(workdir, config) == []


def test_writing_the_same_params_in_another_order_is_not_a_change(workdir):
    config = copy.deepcopy(CONFIG)
    config["learners"]["forest"]["params"] = {"n_estimators": 5, "splitting": "point"}
    assert planned_jobs(workdir, config) == []


# --- paper scale --------------------------------------------------------------------------------

PAPER_LEARNERS = {
    "lambdamart": {"kind": "xgboost", "threads": 4,
                   "params": {"n_estimators": 1000, "learning_rate": 0.05, "max_leaves": 31,
                              "early_stopping_rounds": 100, "eval_metric": "ndcg@10"}},
    "rf-point": {"kind": "random_forest", "threads": 4, "params": {"splitting": "point", "n_estimators": 500}},
    "rf-list": {"kind": "random_forest", "threads": 4, "params": {"splitting": "list", "n_estimators": 500}},
    "rf-hybrid-l2": {"kind": "random_forest", "threads": 4,
                     "params": {"splitting": "hybrid", "listwise_levels": 2, "n_estimators": 500}},
    "rf-rand": {"kind": "random_forest", "threads": 4, "params": {"splitting": "rand", "n_estimators": 500}},
}
PAPER_SEEDS = list(range(1, 6))
MSLR_FOLDS = [f"Fold{i}" for i in range(1, 6)]
YAHOO_FOLDS = ["set1"]


def paper_config(data: Path) -> dict:
    return {
        "seed": 20261122,
        "run": {"datasets": ["mslr10k", "yahoo"], "learners": list(PAPER_LEARNERS), "seeds": PAPER_SEEDS},
        "metrics": ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10", "ndcg", "err@10", "map", "p@10"],
        "datasets": {
            "mslr10k": {"root": str(data / "MSLR-WEB10K"), "layout": "letor", "folds": MSLR_FOLDS,
                        "n_features": 136, "label_range": [0, 4], "conventions": ["letor4-mslr", "standard"]},
            "yahoo": {"root": str(data / "yahoo"), "layout": "yahoo", "folds": YAHOO_FOLDS,
                      "n_features": 700, "label_range": [0, 4], "conventions": ["yahoo", "standard"]},
        },
        "learners": PAPER_LEARNERS,
        "figures": {"metric": "ndcg@10", "convention": "standard"},
    }


def test_paper_scale_dry_run_lists_the_full_grid(tmp_path):
    data = tmp_path / "data"
    placeholder = "0 qid:1 1:0.5\n"
    for fold in MSLR_FOLDS:
        for split in ("train", "vali", "test"):
            (data / "MSLR-WEB10K" / fold).mkdir(parents=True, exist_ok=True)
            (data / "MSLR-WEB10K" / fold / f"{split}.txt").write_text(placeholder)
    (data / "yahoo").mkdir(parents=True)
    for fold in YAHOO_FOLDS:
        for split in ("train", "valid", "test"):
            (data / "yahoo" / f"{fold}.{split}.txt").write_text(placeholder)
    config = paper_config(data)

    result = snakemake(tmp_path / "wd", config, "--dry-run")
    counts = job_counts(result.stdout + result.stderr)
    n_folds = len(MSLR_FOLDS) + len(YAHOO_FOLDS)
    n_models = len(PAPER_LEARNERS) * n_folds * len(PAPER_SEEDS)
    expected = {"parse_split": 3 * n_folds, "train_model": n_models, "evaluate": len(PAPER_LEARNERS) * 2,
                "performance_table": 2, "plot_performance": 2, "report_page": 2, "report_landing": 1, "all": 1}
    assert {rule: counts.get(rule) for rule in expected} == expected, counts
    assert counts["total"] == sum(expected.values()) == 186, counts


# --- content changes that keep the timestamps (issue 28): content digests, not mtimes, decide -----------------

def _reorder_queries(path: Path) -> None:
    """Move the file's first query to its end, keeping the file's mtime (as ``touch -r``, ``cp -p`` leave it)."""
    stat = path.stat()
    lines = path.read_text().splitlines(keepends=True)
    first = lines[0].split()[1]
    path.write_text("".join([line for line in lines if line.split()[1] != first]
                            + [line for line in lines if line.split()[1] == first]))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_a_raw_file_replaced_with_its_old_mtime_reruns_its_fold(workdir):
    """A raw test file whose queries were reordered, given back its old timestamp: Snakemake alone says "Nothing
    to be done"; the workflow sees the content digest change and parses it again, and all that follows."""
    raw = workdir / "data/Fold2/test.txt"
    _reorder_queries(raw)
    old = time.time() - 86400  # older than every output, as `tar x` of an old archive leaves it
    os.utime(raw, (old, old))
    expected = {job("parse_split", fold="Fold2", split="test")} | model_jobs(["gbm", "forest"], ["Fold2"]) | AGGREGATES
    assert_plan(planned_jobs(workdir, CONFIG), expected)
    snakemake(workdir, CONFIG)
    assert planned_jobs(workdir, CONFIG) == []
    assert (workdir / "results/toy/digests/raw/Fold2/test.sha256").read_text().split()[0] == \
        hashlib.sha256(raw.read_bytes()).hexdigest()


def test_a_score_file_edited_with_its_mtime_kept_is_refused_before_any_job(workdir):
    scores = workdir / "results/toy/predictions/gbm/Fold1/seed1/test.scores"
    stat = scores.stat()
    text = scores.read_text()
    edited = text.replace(text.splitlines()[0], "99", 1)
    scores.write_text(edited)
    os.utime(scores, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    result = snakemake(workdir, CONFIG, "--dry-run", check=False)
    out = result.stdout + result.stderr
    assert result.returncode != 0, out[-3000:]
    assert "results/toy/predictions/gbm/Fold1/seed1/test.scores: its content differs from the digest" in out, out[-3000:]
    assert "Job stats" not in out
    assert scores.read_text() == edited, "the changed file is left for the user to inspect"


def test_scores_of_reordered_data_are_refused_by_the_job_reading_them(workdir):
    """The test data parsed again (reordered queries) while the runs were marked up to date (``--touch``): the
    evaluation compares the data's digest with the one the training job recorded and refuses, naming both."""
    _reorder_queries(workdir / "data/Fold1/test.txt")
    snakemake(workdir, CONFIG, "results/toy/parsed/Fold1/test.npz")
    snakemake(workdir, CONFIG, "--touch")
    scores = workdir / "results/toy/predictions/gbm/Fold1/seed1/test.scores"
    before = scores.read_bytes()
    result = snakemake(workdir, CONFIG, "--forcerun", "evaluate", check=False)
    log = (workdir / "results/toy/logs/evaluate/gbm.log").read_text()
    assert result.returncode != 0
    assert ("results/toy/predictions/gbm/Fold1/seed1/test.scores was scored on other data than "
            "results/toy/parsed/Fold1/test.npz") in log, log[-3000:]
    assert not (workdir / "results/toy/metrics/gbm.csv").exists()
    assert scores.read_bytes() == before
