"""Logging for rule scripts: everything a script says goes to the rule's ``log:`` file."""

from __future__ import annotations

import logging
import os
import re
import resource
import sys
from contextlib import contextmanager

#: the last line of every job's log: the job process's CPU seconds, before the rule's work (the interpreter, the
#: Snakemake preamble, the script's imports) and in it; read by tests/benchmarks/bench_overhead.py and ltrbv plan
CPU_LINE = "job CPU: {startup:.3f} s start-up + {work:.3f} s work = {total:.3f} s ({children:.3f} s in child processes)"
#: :data:`CPU_LINE` read back
CPU_LINE_PATTERN = re.compile(r"^job CPU: (?P<startup>[0-9.]+) s start-up \+ (?P<work>-?[0-9.]+) s work = "
                              r"(?P<total>[0-9.]+) s \((?P<children>[0-9.]+) s in child processes\)$")


def process_cpu() -> tuple[float, float]:
    """CPU seconds (user + system) of this process since it started, and of its finished child processes."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def cpu_line(startup: float) -> str:
    """:data:`CPU_LINE` for a job whose process had used ``startup`` CPU seconds when its work began."""
    own, children = process_cpu()
    return CPU_LINE.format(startup=startup, work=own + children - startup, total=own + children, children=children)


@contextmanager
def rule_log(snakemake):
    """Send Python logging, stdout and stderr of a rule script to its log file; end the job if the Snakemake run
    that started it is killed (:mod:`ltrbv.workflow.job_guard`).

    On an exception, the traceback is written to the log before the script
    fails, so a failed job's log names the cause.  The log's last line is the job's CPU time
    (:data:`CPU_LINE`): what the process used before this context (its start-up) and in it.
    """
    from .job_guard import watch_snakemake

    startup = sum(process_cpu())
    path = snakemake.log[0] if len(snakemake.log) else None
    if path is None:
        watch_snakemake()
        yield logging.getLogger("ltrbv")
        leave_job(snakemake)
        return
    with open(path, "w", encoding="utf-8") as handle:
        watch_snakemake(lambda owner: print(f"the Snakemake run that started this job (pid {owner.pid}) is gone: job "
                                            "ended, nothing published", file=handle, flush=True))
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = handle
        logging.basicConfig(
            stream=handle, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", force=True
        )
        logger = logging.getLogger("ltrbv")
        try:
            yield logger
        except BaseException:
            logger.exception("rule %s failed", getattr(snakemake, "rule", "?"))
            raise
        finally:
            print(cpu_line(startup), file=handle)
            handle.flush()
            sys.stdout, sys.stderr = saved
    leave_job(snakemake)


def leave_job(snakemake) -> None:
    """End a rule script's process now, its work done and its outputs written: without the interpreter's teardown.

    Python's exit clears every module and frees every object one at a time: 0.03 CPU-s for a process that imported
    numpy, 0.07 with numba's kernels loaded, 0.1 with XGBoost, in each of a run's thousand-odd jobs (about a sixth
    of the MQ2008 catalog run's overhead; ``tests/benchmarks/bench_overhead.py``).  Only in the process Snakemake
    started for the script (whose ``__main__`` holds this ``snakemake`` object: never in a test or a notebook
    that runs a rule's code), only after the rule's body ended without an exception (a failure exits as Python
    does, with its traceback), and only after what Python's exit would still write is written: logging's
    handlers are flushed and closed and the standard streams flushed.  Every output file was closed before (the
    writers use ``with`` or ``ltrbv.io.atomic_path``; CPython closes an unreferenced file at once).
    """
    if getattr(sys.modules.get("__main__"), "snakemake", None) is not snakemake:
        return
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except (AttributeError, ValueError, OSError):  # None, closed or broken: nothing Python's exit could write
            pass
    os._exit(0)


def progress_bar(total=None, desc="", unit="it"):
    """A tqdm progress bar on stderr (the rule's log inside a job); refreshed at most every 5 s in a log file."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, mininterval=0.5 if sys.stderr.isatty() else 5.0,
                ascii=not sys.stderr.isatty())
