"""Faults: a workflow killed half-way finishes, after a restart, with the files of an uninterrupted run.

* SIGTERM to Snakemake (what `kill` and Slurm send): it stops starting jobs; the restart with
  --rerun-incomplete finishes the rest.
* SIGKILL of one running job: the job fails, Snakemake removes its outputs, the restart redoes it.
* SIGKILL of Snakemake and all its jobs (power cut, OOM killer, scancel of the head job): the lock
  stays (`--unlock` clears it) and the jobs that were running are planned again, never taken as done.
* The same config gives the same bytes with --cores 1 and --cores 2 (learners asked for 2 threads,
  so the training jobs really run with 1 and with 2 threads).
* A failing job (a score file with a bad line) leaves a log naming the file and line, and the exit
  status says the workflow failed; the next run must do that job again (it does only when the
  intermediate files are requested as targets: see the xfail below).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "cluster"))
from conftest import tiny_config  # noqa: E402
from wfhelpers import (  # noqa: E402
    assert_same_results,
    planned_jobs,
    snakemake,
    snakemake_command,
)

pytestmark = pytest.mark.slow

CONFIG = tiny_config(learners={
    "gbm": {"kind": "xgboost", "threads": 2, "params": {"n_estimators": 40}},
    "forest": {"kind": "random_forest", "threads": 2, "params": {"splitting": "point", "n_estimators": 30}},
})
TRAIN_JOBS = [("gbm", "Fold1"), ("forest", "Fold1")]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run with --cores 2."""
    workdir = tmp_path_factory.mktemp("reference")
    snakemake(workdir, CONFIG, cores=2)
    return workdir


def running_train_jobs(workdir: Path) -> list[tuple[str, str]]:
    """train_model jobs that have started (their log exists) and not finished (no meta.json yet)."""
    base = workdir / "results/tiny"
    return [(learner, fold) for learner, fold in TRAIN_JOBS
            if (base / f"logs/train_model/{learner}/{fold}/seed1.log").exists()
            and not (base / f"predictions/{learner}/{fold}/seed1/meta.json").exists()]


def wait_for_training(workdir: Path, process: subprocess.Popen, timeout: float = 300) -> list[tuple[str, str]]:
    """The running training jobs, once there is one."""
    deadline = time.monotonic() + timeout
    while not (running := running_train_jobs(workdir)):
        if process.poll() is not None:
            out = process.stdout.read()
            raise AssertionError(f"workflow ended (exit {process.returncode}) before a training job ran:\n{out[-3000:]}")
        if time.monotonic() > deadline:
            process.kill()
            raise AssertionError("no training job started in time")
        time.sleep(0.01)
    return running


def start_and_wait_for_training(workdir: Path, timeout: float = 300) -> subprocess.Popen:
    """Start the workflow in its own session; return once a training job is running."""
    process = subprocess.Popen(snakemake_command(workdir, CONFIG, cores=2), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    wait_for_training(workdir, process, timeout)
    return process


def finish_with_rerun_incomplete(workdir: Path, reference: Path) -> None:
    result = snakemake(workdir, CONFIG, "--rerun-incomplete", cores=2)
    assert "Nothing to be done" not in result.stdout + result.stderr, "the interrupted run had already finished"
    assert_same_results(reference / "results", workdir / "results")
    assert planned_jobs(workdir, CONFIG) == []


def test_sigterm_to_snakemake_then_rerun_incomplete_gives_identical_outputs(reference, tmp_path):
    process = start_and_wait_for_training(tmp_path)
    process.send_signal(signal.SIGTERM)
    out, _ = process.communicate(timeout=300)
    assert process.returncode != 0, "a workflow stopped by SIGTERM must not report success"
    assert not (tmp_path / "results/tiny/figures/performance.png").exists(), out[-2000:]
    assert not list((tmp_path / ".snakemake/locks").glob("*")), "a SIGTERM'd Snakemake releases its lock"
    finish_with_rerun_incomplete(tmp_path, reference)


def test_sigkill_of_a_running_job_then_rerun_incomplete_gives_identical_outputs(reference, tmp_path):
    process = start_and_wait_for_training(tmp_path)
    victims = []
    deadline = time.monotonic() + 60
    while not victims and time.monotonic() < deadline:
        victims = [child for child in psutil.Process(process.pid).children(recursive=True)
                   if any("train_model" in part for part in _cmdline(child))]
        time.sleep(0.02)
    assert victims, "could not find the running train_model process"
    killed = victims[0]
    killed.send_signal(signal.SIGKILL)
    out, _ = process.communicate(timeout=300)
    assert process.returncode != 0, out[-3000:]
    assert "Error in rule train_model" in out, out[-3000:]
    finish_with_rerun_incomplete(tmp_path, reference)


def test_sigkill_of_everything_keeps_running_jobs_out_of_the_finished_set(reference, tmp_path):
    process = start_and_wait_for_training(tmp_path)
    time.sleep(0.3)  # let the job get under way; if it has finished meanwhile, the next one will be running
    running = running_train_jobs(tmp_path) or wait_for_training(tmp_path, process)
    _kill_session(process.pid)  # Snakemake and every job it started, at once, as a power cut would
    process.communicate(timeout=60)
    assert running

    # refuses to start: the dead run's lock is left, and a killed job that had written part of its outputs
    # left them marked incomplete (which Snakemake reports first)
    locked = snakemake(tmp_path, CONFIG, cores=2, check=False)
    said = locked.stdout + locked.stderr
    assert locked.returncode != 0 and ("--unlock" in said or "--rerun-incomplete" in said), said[-2000:]
    assert not (tmp_path / "results/tiny/tables/performance.csv").exists()
    snakemake(tmp_path, CONFIG, "--unlock")

    plan = planned_jobs(tmp_path, CONFIG, "--rerun-incomplete")
    planned_training = {(job.get("learner"), job.get("fold")) for job in plan if job.rule == "train_model"}
    assert set(running) <= planned_training, f"killed jobs {running} not planned again: {plan}"
    finish_with_rerun_incomplete(tmp_path, reference)


def test_cores_1_and_cores_2_give_identical_files(reference, tmp_path):
    snakemake(tmp_path, CONFIG, cores=1)
    compared = assert_same_results(reference / "results", tmp_path / "results")
    assert compared >= 2 * 2 + 3 + 2  # test/vali scores of 2 models, 3 parsed splits, 2 metric files, ...
    for learner, fold in TRAIN_JOBS:
        one = (tmp_path / f"results/tiny/logs/train_model/{learner}/{fold}/seed1.log").read_text()
        two = (reference / f"results/tiny/logs/train_model/{learner}/{fold}/seed1.log").read_text()
        assert "1 threads" in one and "2 threads" in two, (one, two)


@pytest.fixture(scope="module")
def failed_evaluate(reference, tmp_path_factory):
    """A finished run whose gbm/Fold1 score file then got a bad line (as a hand-edited or externally
    produced score file might): the changed input makes its evaluate job run again, and fail."""
    workdir = tmp_path_factory.mktemp("failed") / "wd"
    shutil.copytree(reference, workdir, symlinks=True)
    scores = workdir / "results/tiny/predictions/gbm/Fold1/seed1/test.scores"
    lines = scores.read_text().splitlines(keepends=True)
    lines[2] = "oops\n"
    scores.write_text("".join(lines))
    return workdir, snakemake(workdir, CONFIG, cores=2, check=False)


def test_a_failing_job_names_the_cause_in_its_log_and_the_exit_status(failed_evaluate):
    workdir, result = failed_evaluate
    out = result.stdout + result.stderr
    assert result.returncode != 0, out[-3000:]
    assert "Error in rule evaluate" in out, out[-3000:]
    log = workdir / "results/tiny/logs/evaluate/gbm.log"
    assert str(log.relative_to(workdir)) in out, "Snakemake's error report points at the job's log"
    text = log.read_text()
    assert "test.scores, line 3" in text and "oops" in text, text[-2000:]
    assert not (workdir / "results/tiny/metrics/gbm.csv").exists(), "a failed job leaves no output"


def intermediate_targets(config: dict) -> list[str]:
    """Every file the performance table is computed from, besides the table and figure themselves."""
    base, spec = "results/tiny", config["datasets"]["tiny"]
    files = [f"{base}/parsed/{fold}/{split}.npz" for fold in spec["folds"] for split in ("train", "vali", "test")]
    for learner in config["run"]["learners"]:
        files.append(f"{base}/metrics/{learner}.csv")
        for fold in spec["folds"]:
            for seed in config["run"]["seeds"]:
                files.append(f"{base}/predictions/{learner}/{fold}/seed{seed}/test.scores")
    return files


FINAL_TARGETS = ["results/tiny/tables/performance.csv", "results/tiny/tables/performance.md",
                 "results/tiny/figures/performance.png", "results/tiny/figures/performance.svg"]


def test_the_next_run_redoes_a_failed_job_instead_of_keeping_stale_results(failed_evaluate):
    workdir, _ = failed_evaluate
    plan = {str(job) for job in planned_jobs(workdir, CONFIG)}
    assert "evaluate(dataset=tiny,learner=gbm)" in plan, plan


def test_requesting_the_intermediate_files_makes_the_next_run_redo_a_failed_job(failed_evaluate):
    workdir, _ = failed_evaluate
    plan = {str(job) for job in planned_jobs(workdir, CONFIG, *FINAL_TARGETS, *intermediate_targets(CONFIG))}
    assert {"evaluate(dataset=tiny,learner=gbm)", "performance_table(dataset=tiny)",
            "plot_performance(dataset=tiny)"} <= plan, plan
    assert not any("train_model" in job or "parse_split" in job for job in plan), plan


#: a training job that runs for minutes (200,000 rounds, no early stopping) unless something ends it
SLOW = tiny_config(learners={"slow": {"kind": "xgboost", "threads": 1, "params": {
    "n_estimators": 200_000, "early_stopping_rounds": None, "eval_train": False}}})


def _gone(process: psutil.Process) -> bool:
    try:
        return process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_a_job_dies_with_its_killed_snakemake_and_a_rerun_owns_the_outputs(tmp_path):
    """kill -9 of Snakemake while a 200,000-tree model trains: the job ends within seconds and publishes nothing;
    the config then changes to 5 trees and, after --unlock, the rerun's outputs are the 5-tree model's (issue 28:
    an orphaned job used to finish later and overwrite them with the old config's model)."""
    with open(tmp_path / "snakemake.out", "w") as out:  # a file, not a pipe, which an orphan would hold open
        process = subprocess.Popen(snakemake_command(tmp_path, SLOW, cores=1), stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    log = tmp_path / "results/tiny/logs/train_model/slow/Fold1/seed1.log"
    jobs, deadline = [], time.monotonic() + 300
    try:
        while not (jobs and log.exists() and "training slow" in log.read_text()):
            assert process.poll() is None and time.monotonic() < deadline, "the training job did not start"
            jobs = [child for child in psutil.Process(process.pid).children(recursive=True)
                    if any("train_model" in part for part in _cmdline(child))]
            time.sleep(0.1)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        ended = time.monotonic() + 10
        while not _gone(jobs[0]) and time.monotonic() < ended:
            time.sleep(0.1)
        assert _gone(jobs[0]), "the training job outlived its Snakemake by 10 s"
    finally:
        for job in jobs:
            if not _gone(job):
                job.kill()
    run = tmp_path / "results/tiny/predictions/slow/Fold1/seed1"
    assert not (run.exists() and list(run.iterdir())), sorted(run.iterdir())
    assert "is gone: job ended, nothing published" in log.read_text()

    fast = copy.deepcopy(SLOW)
    fast["learners"]["slow"]["params"]["n_estimators"] = 5
    snakemake(tmp_path, fast, "--unlock", cores=1)
    snakemake(tmp_path, fast, "--rerun-incomplete", cores=1)
    meta = json.loads((run / "meta.json").read_text())
    assert meta["params"]["n_estimators"] == 5 and meta["fit_info"]["rounds_trained"] == 5, meta["fit_info"]
    assert planned_jobs(tmp_path, fast) == []


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return []


def _kill_session(sid: int) -> None:
    """SIGKILL every process of the session the workflow was started in (start_new_session=True)."""
    for proc in psutil.process_iter():
        try:
            if os.getsid(proc.pid) == sid:
                proc.send_signal(signal.SIGKILL)
        except (psutil.NoSuchProcess, ProcessLookupError, PermissionError):
            pass
