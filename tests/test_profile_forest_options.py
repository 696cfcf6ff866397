"""tests/benchmarks/profile_forest.py refuses bad option values before it runs anything (argparse's exit 2, the
option named), also on a machine without perf."""

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent / "benchmarks" / "profile_forest.py"


@pytest.mark.parametrize("argv, named", [
    (["--trees", "0"], "--trees"),
    (["--trees", "-3"], "--trees"),
    (["--trees", "many"], "--trees"),
    (["--subsample", "0"], "--subsample"),
    (["--subsample", "1.5"], "--subsample"),
    (["--subsample", "nan"], "--subsample"),
    (["--top", "0"], "--top"),
    (["--splitting", "rand"], "--splitting"),
    (["--data", "/nonexistent/Fold1"], "--data"),
])
def test_bad_values_are_refused_with_the_option_named(argv, named, tmp_path):
    result = subprocess.run([sys.executable, str(SCRIPT), *argv], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert named in result.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written
