"""The workflow profiles as Snakemake reads them.

Snakemake's default job-rate limit (100 jobs per second) wakes its scheduler every second while jobs run, and each
wake-up stats the inputs of every ready job: a third of a core on a run of long jobs
(tests/benchmarks/bench_scheduler.py).  ``profiles/default`` (used by any run that names no workflow profile, as
the README's ``snakemake --cores N`` does) and ``profiles/local`` set a one-minute timespan instead; this checks,
in a tiny workflow beside a copy of the repository's profiles, that Snakemake itself applies them (and the greedy
scheduler both profiles choose instead of Snakemake's ILP, which starts a solver process per pass), and that the
project's workflow still exits when its last job is done (Snakemake's re-evaluation timers of one timespan each are
not daemon threads; the Snakefile cancels them, ltrbv.workflow.rate_timers).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time

import pytest
import yaml

from conftest import REPO, tiny_config
from ltrbv.workflow.rate_timers import SCHEDULER_MODULE, cancel_rate_timers

SNAKEFILE = ('from ltrbv.workflow.rate_timers import cancel_rate_timers\n'
             'rule all:\n    output: "x.txt"\n    shell: "echo 1 > {output}"\n'
             'onsuccess:\n    cancel_rate_timers()\n')


def limit(tmp_path, *args) -> str:
    shutil.copytree(REPO / "profiles", tmp_path / "profiles")
    (tmp_path / "Snakefile").write_text(SNAKEFILE)
    done = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", "--verbose", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "x.txt").is_file()
    lines = [line for line in done.stderr.splitlines() if line.startswith("Submitting maximum")]
    assert len(lines) == 1, done.stderr[-2000:]
    return lines[0]


@pytest.mark.parametrize("args", [(), ("--workflow-profile", "profiles/local")], ids=["default", "local"])
def test_the_profiles_drop_the_idle_scheduler_wake_ups(tmp_path, args):
    assert limit(tmp_path, *args) == "Submitting maximum 10000 job(s) over 60.0 second(s)."


def test_without_a_profile_snakemake_wakes_every_second(tmp_path):
    """What the profiles change: Snakemake's own default (the test above fails when the profile is not read)."""
    assert limit(tmp_path, "--workflow-profile", "none") == "Submitting maximum 100 job(s) over 1.0 second(s)."


SCHEDULER_SNAKEFILE = ('from ltrbv.workflow.rate_timers import cancel_rate_timers\n'
                       'rule all:\n    output: "x.txt"\n    run:\n'
                       '        open(output[0], "w").write(workflow.scheduling_settings.scheduler)\n'
                       'onsuccess:\n    cancel_rate_timers()\n')


def scheduler(tmp_path, *args) -> str:
    shutil.copytree(REPO / "profiles", tmp_path / "profiles")
    (tmp_path / "Snakefile").write_text(SCHEDULER_SNAKEFILE)
    done = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return (tmp_path / "x.txt").read_text()


@pytest.mark.parametrize("args", [(), ("--workflow-profile", "profiles/local")], ids=["default", "local"])
def test_the_profiles_choose_the_greedy_scheduler(tmp_path, args):
    """Snakemake's ILP scheduler starts a CBC process at every pass with more ready jobs than free cores
    (tests/benchmarks/bench_scheduler.py); the workflow has no priorities or temp files for it to weigh."""
    assert scheduler(tmp_path, *args) == "greedy"


def test_without_a_profile_snakemake_schedules_by_ilp(tmp_path):
    assert scheduler(tmp_path, "--workflow-profile", "none") == "ilp"


def test_the_projects_workflow_exits_when_its_last_job_is_done(tmp_path):
    """With the default profile's 60 s timespan and no cancelling, Snakemake sat idle ~60 s after "100% done"."""
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(tiny_config()))
    command = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(tmp_path),
               "--configfile", str(tmp_path / "config.yaml"), "--cores", "1", "--verbose", "--nocolor",
               "results/tiny/parsed/Fold1/train.npz"]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    done_at, lines = None, []
    for line in process.stderr:
        lines.append(line)
        if "steps (100%) done" in line:
            done_at = time.monotonic()
    process.wait(timeout=300)
    idle = time.monotonic() - done_at if done_at else None
    text = "".join(lines)
    assert process.returncode == 0, text[-3000:]
    assert "Submitting maximum 10000 job(s) over 60.0 second(s)." in text  # the default profile was read
    assert (tmp_path / "results/tiny/parsed/Fold1/train.npz").is_file()
    assert idle is not None and idle < 20, f"exited {idle} s after its last job"


def _scheduler_like():
    pass


def test_only_the_schedulers_pending_timers_are_cancelled():
    _scheduler_like.__module__ = SCHEDULER_MODULE
    ours, other = threading.Timer(600, _scheduler_like), threading.Timer(600, print)
    ours.start(), other.start()
    try:
        assert cancel_rate_timers() == 1
        ours.join(timeout=10)
        assert not ours.is_alive() and other.is_alive()
    finally:
        other.cancel()
