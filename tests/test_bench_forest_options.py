"""tests/benchmarks/bench_forest.py refuses bad option values before it measures anything (argparse's exit 2,
the option named)."""

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent / "benchmarks" / "bench_forest.py"


def load(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPT.parent))  # the script imports its sibling timing.py
    spec = importlib.util.spec_from_file_location("bench_forest_under_test", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("argv, named", [
    (["--list-budget", "nan"], "--list-budget"),
    (["--list-budget", "-1"], "--list-budget"),
    (["--list-budget", "0"], "--list-budget"),
    (["--list-budget", "inf"], "--list-budget"),
    (["--repeats", "0"], "--repeats"),
    (["--threads", "0"], "--threads"),
    (["--threads", "two"], "--threads"),
    (["--only", "8", "--parts", "z"], "--parts"),
    (["--only", "1", "--parts", "a"], "--parts"),
    (["--only", "9"], "unknown benchmark"),
])
def test_bad_options_are_refused_before_any_work(argv, named, capsys, tmp_path, monkeypatch):
    bench = load(monkeypatch)
    with pytest.raises(SystemExit) as stop:
        bench.main([*argv, "--out", str(tmp_path / "out.json"), "--cache-dir", str(tmp_path / "cache")])
    assert stop.value.code == 2
    assert named in capsys.readouterr().err
    assert not (tmp_path / "out.json").exists() and not (tmp_path / "cache").exists()
