"""The workflow on a real Slurm cluster, through profiles/slurm.

A one-node cluster (munged, slurmctld, slurmd; tests/cluster/slurm_up.sh) runs a small synthetic
config through ``--workflow-profile profiles/slurm``. The test overrides only what is site-specific
or needed without an accounting database: the partition (and no account), ``slurm-status-command:
squeue``, shorter status-check intervals, and keeping the Slurm logs. It checks that every job went
through sbatch with the resources the profile asks for, that Slurm saw them complete, and that the
outputs are byte-identical to a local run of the same config.

Without Slurm installed the cluster tests are skipped, saying so; under CI (env CI set) they fail.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent / "cluster"))
from conftest import tiny_config  # noqa: E402
from wfhelpers import REPO, assert_same_results, snakemake_command  # noqa: E402

pytestmark = pytest.mark.slow

CLUSTER = REPO / "tests" / "cluster"
PROFILE_DIR = REPO / "profiles" / "slurm"
STATE = Path(os.environ.get("LTRBV_SLURM_DIR", "/tmp/ltrbv-slurm"))
PARTITION = os.environ.get("LTRBV_SLURM_PARTITION", "debug")
# Seconds before the first status check and after each check that saw a job finish (the plugin adds
# 10 s after each check that did not). Jobs here take 5-15 s, so most are seen at the first check.
STATUS_INTERVAL = os.environ.get("LTRBV_SLURM_STATUS_INTERVAL", "15")

CONFIG = tiny_config()
FINISHED = re.compile(r"Finished jobid: (\d+) \(Rule: (\w+)\)")
SUBMITTED = re.compile(r"Job (\d+) has been submitted with SLURM jobid (\d+) \(log: (.+?)\)\.?$", re.M)


def profile() -> dict:
    return yaml.safe_load((PROFILE_DIR / "config.yaml").read_text())


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def require(ok, reason: str) -> None:
    """Skip when something needed is not installed, except under CI, where it is a failure."""
    if not ok:
        if in_ci():
            pytest.fail(f"{reason} (CI is set: the Slurm tests must run; see .ci/run)")
        pytest.skip(reason)


def test_profile_sets_placeholders_and_resources_for_rules_that_exist():
    from ltrbv.sections.catalog.kinds import WITH_JOB

    settings = profile()
    assert settings["executor"] == "slurm"
    assert settings["rerun-incomplete"] is True and settings["latency-wait"] >= 30 and settings["jobs"] >= 10
    defaults = settings["default-resources"]
    assert defaults["slurm_partition"] == "YOUR_PARTITION" and defaults["slurm_account"] == "YOUR_ACCOUNT"
    assert {"mem_mb", "runtime"} <= set(defaults)
    rules = set()
    for path in (REPO / "rules").glob("*.smk"):
        rules |= set(re.findall(r"^(?:checkpoint|rule) (\w+):", path.read_text(), re.M))
        # rules written once in a loop over the study's schemes (``name: f"train_biasvar_{_scheme}"``)
        rules |= {f"{stem}_{scheme}" for stem in re.findall(r'name:\s*f"(\w+)_\{_scheme\}"', path.read_text())
                  for scheme in ("bootstrap", "twofold")}
        # and once per catalog kind with a job (``name: f"catalog_{_kind}"``)
        rules |= {f"{stem}_{kind}" for stem in re.findall(r'name:\s*f"(\w+)_\{_kind\}"', path.read_text())
                  for kind in WITH_JOB}
    assert set(settings["set-resources"]) <= rules, f"set-resources for rules that do not exist: " \
                                                    f"{sorted(set(settings['set-resources']) - rules)}"
    for rule, resources in settings["set-resources"].items():
        assert {"mem_mb", "runtime", "cpus_per_task"} <= set(resources), rule


def slurm_overrides() -> list[str]:
    """The command-line settings the test cluster needs on top of the profile."""
    defaults = {k: v for k, v in profile()["default-resources"].items() if k != "slurm_account"}
    defaults["slurm_partition"] = PARTITION
    return [
        "--workflow-profile", str(PROFILE_DIR),
        # --default-resources replaces the profile's whole list: restate it, with the test partition
        # and without an account (there is no accounting database to check one against).
        "--default-resources", *[f"{key}={value}" for key, value in defaults.items()],
        "--slurm-no-account",
        "--slurm-status-command", "squeue",
        "--slurm-init-seconds-before-status-checks", STATUS_INTERVAL,
        "--seconds-between-status-checks", STATUS_INTERVAL,
        "--slurm-keep-successful-logs",
        "--jobs", "4",
    ]




@pytest.fixture(scope="module")
def cluster():
    """A one-node Slurm cluster (slurmctld, slurmd, munged) started for these tests."""
    path = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
    tools = ("sbatch", "squeue", "scontrol", "srun", "slurmctld", "slurmd", "munged")
    missing = [tool for tool in tools if not shutil.which(tool, path=path)]
    require(not missing, f"Slurm is not installed (missing: {', '.join(missing)}); "
                         "on Debian/Ubuntu: apt-get install -y slurm-wlm munge")
    require(importlib.util.find_spec("snakemake_executor_plugin_slurm") is not None,
            "snakemake-executor-plugin-slurm is not installed (pip install -e '.[slurm]')")
    up = subprocess.run([str(CLUSTER / "slurm_up.sh"), str(STATE)], capture_output=True, text=True,
                        env={**os.environ, "LTRBV_SLURM_PARTITION": PARTITION}, timeout=180)
    if up.returncode != 0:
        pytest.fail(f"tests/cluster/slurm_up.sh could not start the test cluster:\n{up.stderr}{up.stdout}")
    settings = dict(line.split("=", 1) for line in up.stdout.splitlines() if "=" in line)
    env = {**os.environ, "SLURM_CONF": settings["SLURM_CONF"]}
    yield env
    if settings.get("LTRBV_SLURM_STARTED") == "yes":
        down = subprocess.run([str(CLUSTER / "slurm_down.sh"), str(STATE)], capture_output=True, text=True,
                              timeout=120)
        assert down.returncode == 0, down.stderr


@pytest.fixture(scope="module")
def runs(cluster, tmp_path_factory):
    """The same config run locally and on the cluster (at the same time: the cluster run mostly waits)."""
    local_dir, slurm_dir = tmp_path_factory.mktemp("local"), tmp_path_factory.mktemp("slurm")
    local = subprocess.Popen(snakemake_command(local_dir, CONFIG, cores=1), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    command = snakemake_command(slurm_dir, CONFIG, cores=None) + slurm_overrides()
    try:
        slurm = subprocess.run(command, capture_output=True, text=True, env=cluster, timeout=900)
    except subprocess.TimeoutExpired as exc:
        local.kill()
        pytest.fail(f"the Slurm run did not finish in {exc.timeout} s:\n{exc.stdout}\n{exc.stderr}")
    local_out, _ = local.communicate(timeout=900)
    assert local.returncode == 0, f"local run failed:\n{local_out[-4000:]}"
    log = slurm.stdout + slurm.stderr
    assert slurm.returncode == 0, f"Slurm run failed ({slurm.returncode}):\n{log[-8000:]}"
    return local_dir, slurm_dir, log


def test_every_job_went_through_sbatch_and_slurm_saw_it_complete(runs, cluster):
    _, slurm_dir, log = runs
    # the jobs Snakemake finished, by its "Finished jobid: N (Rule: R)" lines (the Slurm plugin 2.6 prints no
    # "rule R:" listing of the jobs it submits)
    finished = {int(job): rule for job, rule in FINISHED.findall(log) if rule != "all"}
    submitted = SUBMITTED.findall(log)
    assert finished and sorted(int(job) for job, _, _ in submitted) == sorted(finished), \
        f"{len(finished)} jobs finished, {len(submitted)} submitted:\n{log[-4000:]}"
    assert set(finished.values()) == {"synthetic_folds", "parse_split", "train_model", "evaluate",
                                      "performance_table", "plot_performance", "report_page", "report_landing"}
    run_id = re.search(r"SLURM run ID: (\S+)", log).group(1)
    queue = subprocess.run(["squeue", "--states=all", "--noheader", "--format=%i|%T", "--name", run_id],
                           capture_output=True, text=True, env=cluster, check=True).stdout
    states = dict(line.split("|") for line in queue.split())
    slurm_ids = {slurm_id for _, slurm_id, _ in submitted}
    assert {states.get(slurm_id) for slurm_id in slurm_ids} == {"COMPLETED"}, (slurm_ids, states)
    for _, slurm_id, slurm_log in submitted:  # the executor's log of each Slurm job (kept by the override)
        path = Path(slurm_log)
        assert path.is_file() and path.is_relative_to(slurm_dir / ".snakemake" / "slurm_logs"), path
        assert "Finished job" in path.read_text() or "steps (100%) done" in path.read_text(), path


def test_sbatch_asked_for_the_profiles_resources(runs, cluster):
    _, _, log = runs
    # The executor writes each job's Slurm log to .snakemake/slurm_logs/rule_<RULE>/<wildcards>/<id>.log.
    by_slurm_id = {slurm_id: next(part[len("rule_"):] for part in Path(path).parts if part.startswith("rule_"))
                   for _, slurm_id, path in SUBMITTED.findall(log)}
    assert len(by_slurm_id) >= 8, by_slurm_id
    wanted = profile()["set-resources"]
    for slurm_id, rule in by_slurm_id.items():
        shown = subprocess.run(["scontrol", "show", "job", "--oneliner", slurm_id], capture_output=True,
                               text=True, env=cluster, check=True).stdout
        fields = dict(item.split("=", 1) for item in shown.split() if "=" in item)
        assert fields["Partition"] == PARTITION, (rule, fields["Partition"])
        if rule in wanted:
            resources = wanted[rule]
        else:  # a training rule: its learner's own resources (the schema's defaults here), on the first attempt
            entry = CONFIG["learners"]["lambdamart"]
            resources = {"mem_mb": entry.get("mem_mb", 2000), "runtime": entry.get("runtime", 60),
                         "cpus_per_task": entry["threads"]}
        if isinstance(resources["mem_mb"], int):
            assert fields["MinMemoryNode"] == f"{resources['mem_mb']}M", (rule, fields["MinMemoryNode"])
        if isinstance(resources["runtime"], int):
            hours, minutes = divmod(resources["runtime"], 60)
            assert fields["TimeLimit"] == f"{hours:02d}:{minutes:02d}:00", (rule, fields["TimeLimit"])
        if isinstance(resources["cpus_per_task"], int):
            assert fields["NumCPUs"] == str(resources["cpus_per_task"]), (rule, fields["NumCPUs"])


def test_slurm_outputs_are_byte_identical_to_a_local_run(runs):
    local_dir, slurm_dir, _ = runs
    compared = assert_same_results(local_dir / "results", slurm_dir / "results")
    assert compared >= 8  # 2 score files, 3 parsed splits, metrics, table (csv, md), figure (png)
    table = (slurm_dir / "results/tiny/tables/performance.csv").read_text()
    assert "lambdamart" in table and "Fold1" in table
