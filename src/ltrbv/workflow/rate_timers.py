"""Snakemake's job-rate re-evaluation timers, cancelled when the workflow ends, so that a run exits when it is done.

While ready jobs wait, Snakemake's scheduler re-evaluates them when a job finishes and, for its job-rate limit
(``--max-jobs-per-timespan``, default ``100/1s``), once more after the limit's timespan: each scheduling pass
starts a ``threading.Timer`` of that many seconds (``JobScheduler._schedule_reevalutation`` in Snakemake 9).
The project's profiles set ``10000/60s`` (``profiles/default``, ``profiles/local``): a pass every second had cost a
third of a core on runs of long jobs (tests/benchmarks/bench_scheduler.py).  But those timers are not daemon
threads, and Python waits for every non-daemon thread before a process exits: with a one-minute timespan each
``snakemake`` invocation sat idle for up to 60 s after its last job (a one-job workflow: 63 s against 5 s), which
doubled the test suite's time.

:func:`cancel_rate_timers`, called by the Snakefile's ``onsuccess`` and ``onerror`` handlers (they run once, after
the scheduler has stopped, in the process that ran it), cancels the pending ones: a cancelled timer's thread ends at
once.  Only timers whose function belongs to Snakemake's scheduler module are touched; if a Snakemake release
moves that code, nothing is cancelled and a run exits at most one timespan late (``tests/test_profiles.py`` checks
that it does not).  Runs with ``--no-hooks`` skip the handlers, so they keep that delay.
"""

from __future__ import annotations

import threading

#: the module whose re-evaluation timers are cancelled (Snakemake 9's job scheduler)
SCHEDULER_MODULE = "snakemake.scheduling.job_scheduler"


def cancel_rate_timers() -> int:
    """Cancel the pending re-evaluation timers of Snakemake's scheduler; return how many were cancelled."""
    cancelled = 0
    for thread in threading.enumerate():
        if isinstance(thread, threading.Timer) and thread.is_alive() \
                and getattr(thread.function, "__module__", None) == SCHEDULER_MODULE:
            thread.cancel()
            cancelled += 1
    return cancelled
