"""A rule script's process ends without the interpreter's teardown (ltrbv.workflow.logs.leave_job), and loses
nothing by it.

Python's exit clears every module one at a time (0.03-0.1 CPU-s a job, ~1,800 jobs in the MQ2008 catalog run).
What it would still write must be written first: a test script leaves text in stdout's buffer and records in a
buffering logging handler, registers an exit handler, and ends its rule body; the text arrives, the exit handler never
runs (the teardown was skipped), the exit status is 0.  A failing rule body exits as Python does (status 1 and
its traceback in the log), and where the ``snakemake`` object is not ``__main__``'s (a test, a notebook) nothing
exits.  The outputs of whole workflows under it are checked byte for byte by tests/test_workflow.py and the
checksum tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from types import SimpleNamespace

from conftest import REPO
from ltrbv.workflow.logs import rule_log

SCRIPT = textwrap.dedent("""
    import atexit, logging, logging.handlers, sys
    from types import SimpleNamespace
    from ltrbv.workflow.logs import rule_log

    snakemake = SimpleNamespace(log=[sys.argv[1]] if sys.argv[1] != "-" else [], rule="probe")
    atexit.register(lambda: open(sys.argv[2], "w").write("teardown ran"))
    buffered = logging.getLogger("probe.buffered")
    # a handler that holds its records until it is flushed (logging.shutdown does, at a normal exit)
    buffered.addHandler(logging.handlers.MemoryHandler(1000, logging.CRITICAL, logging.FileHandler(sys.argv[3])))
    buffered.propagate = False
    sys.__stdout__.write("printed before the end, still in stdout's buffer")
    with rule_log(snakemake) as log:
        buffered.warning("in the handler's buffer")
        log.info("the rule's work")
        if sys.argv[4] == "fail":
            raise RuntimeError("the rule failed")
    print("after the rule's body: never reached")
""")


def run(tmp_path, log: str, mode: str = "ok"):
    script = tmp_path / "job.py"
    script.write_text(SCRIPT)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}  # stdout buffered
    env["PYTHONPATH"] = str(REPO / "src")
    return subprocess.run([sys.executable, str(script), log, str(tmp_path / "atexit.txt"),
                           str(tmp_path / "handler.txt"), mode], capture_output=True, text=True, env=env, timeout=120,
                          stdin=subprocess.DEVNULL)


def test_a_job_ends_without_teardown_and_loses_no_buffered_text(tmp_path):
    done = run(tmp_path, str(tmp_path / "rule.log"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "printed before the end, still in stdout's buffer"
    assert (tmp_path / "handler.txt").read_text() == "in the handler's buffer\n"
    log = (tmp_path / "rule.log").read_text()
    assert "the rule's work" in log and log.splitlines()[-1].startswith("job CPU: ")
    assert not (tmp_path / "atexit.txt").exists()  # the interpreter's exit was skipped


def test_a_job_without_a_log_file_ends_the_same_way(tmp_path):
    done = run(tmp_path, "-")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "printed before the end, still in stdout's buffer"
    assert not (tmp_path / "atexit.txt").exists()


def test_a_failing_job_exits_as_python_does(tmp_path):
    done = run(tmp_path, str(tmp_path / "rule.log"), "fail")
    assert done.returncode == 1
    assert "RuntimeError: the rule failed" in done.stderr  # Python's own report
    assert "RuntimeError: the rule failed" in (tmp_path / "rule.log").read_text()
    assert (tmp_path / "atexit.txt").read_text() == "teardown ran"


def test_nothing_exits_where_the_rule_runs_inside_another_program(tmp_path):
    snakemake = SimpleNamespace(log=[str(tmp_path / "rule.log")], rule="in-process")
    with rule_log(snakemake) as log:
        log.info("work")
    assert (tmp_path / "rule.log").read_text().splitlines()[-1].startswith("job CPU: ")  # and pytest is still here
