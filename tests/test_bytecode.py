"""The workflow warns when its jobs would compile the libraries' sources again, job after job: byte-code is
never written (PYTHONDONTWRITEBYTECODE) and the libraries have none (a --no-compile install)."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import REPO

CHECK = "from ltrbv.workflow.bytecode import bytecode_warning; print(bytecode_warning())"


def environment(tmp_path, dont_write: bool) -> dict:
    """An environment where Python looks for byte-code in an empty folder (as after pip install --no-compile)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path / "no-bytecode-here")
    if dont_write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def test_the_warning_names_the_libraries_and_the_remedy_only_when_bytecode_is_never_written(tmp_path):
    warned = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True,
                            env=environment(tmp_path, dont_write=True)).stdout
    assert warned.startswith("PYTHONDONTWRITEBYTECODE is set and numpy, pandas, numba, scipy have no byte-code")
    assert "-m compileall -q" in warned
    quiet = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True,
                           env=environment(tmp_path, dont_write=False)).stdout
    assert quiet.strip() == "None"  # Python writes the byte-code of what a job imports, once


def test_snakemake_prints_it_when_it_starts(tmp_path):
    result = subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory",
                             str(tmp_path / "wd"), "--cores", "1", "--dry-run"], capture_output=True, text=True,
                            env=environment(tmp_path, dont_write=True))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Warning: PYTHONDONTWRITEBYTECODE is set" in result.stdout + result.stderr
