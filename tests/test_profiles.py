"""The workflow profiles as Snakemake reads them.

Snakemake's default job-rate limit (100 jobs per second) wakes its scheduler every second while jobs run, and each
wake-up stats the inputs of every ready job: a third of a core on a run of long jobs
(tests/benchmarks/bench_scheduler.py).  ``profiles/default`` (used by any run that names no workflow profile, as
the README's ``snakemake --cores N`` does) and ``profiles/local`` set a one-minute timespan instead; this checks,
in a tiny workflow beside a copy of the repository's profiles, that Snakemake itself applies them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from conftest import REPO

SNAKEFILE = 'rule all:\n    output: "x.txt"\n    shell: "echo 1 > {output}"\n'


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
