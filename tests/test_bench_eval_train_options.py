"""tests/benchmarks/bench_eval_train.py refuses bad option values before it measures anything (argparse's exit 2,
the option named)."""

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent / "benchmarks" / "bench_eval_train.py"


@pytest.mark.parametrize("argv, named", [
    (["--rounds", "0"], "--rounds"),
    (["--rounds", "ten"], "--rounds"),
    (["--repeats", "-1"], "--repeats"),
])
def test_bad_options_are_refused_before_any_work(argv, named, capsys, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("bench_eval_train_under_test", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    with pytest.raises(SystemExit) as stop:
        bench.main([*argv, "--out", str(tmp_path / "out.json"), "--cache-dir", str(tmp_path / "cache")])
    assert stop.value.code == 2
    assert named in capsys.readouterr().err
    assert not (tmp_path / "out.json").exists() and not (tmp_path / "cache").exists()
