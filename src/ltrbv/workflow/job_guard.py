"""A job dies with the Snakemake run that started it, and never publishes an output after that run is gone.

``kill -9`` of Snakemake (an OOM killer, a closed terminal, a killed session) leaves its jobs running:
they are re-parented to init and nothing stops them.  A user who then changes the config, runs
``--unlock`` and starts again gets a new job for the same output, and the orphan, finishing later,
overwrites that output with a model of the old config.  So every rule script (through
:func:`ltrbv.workflow.logs.rule_log`) calls :func:`watch_snakemake`, which finds the outermost
``snakemake`` process among the job's ancestors (on Linux, from ``/proc``; the local executor runs each
job under a ``snakemake --mode subprocess`` of its own, itself a child of the main one) and starts a
daemon thread that ends the job (``os._exit``, no cleanup, no output) within about a second of that
process disappearing.  :func:`check_owner` is called right before a job publishes its outputs (they
are written to temporary names first, then renamed), so an orphan that is between two checks of the
watchdog does not publish either.

A process is identified by its pid and its start time (``/proc/<pid>/stat``, field 22), so a new process
that reuses the pid is not taken for the old one.

When no ``snakemake`` ancestor is found, nothing is watched: a script run by hand, or a job started by a
cluster executor (Slurm), whose main Snakemake runs on another host: the job script there runs under
``slurmstepd`` and the per-job Snakemake the executor starts on the node, which ``scancel`` ends; killing the
main Snakemake on the login node does not reach it, and this module cannot see that host (cancel the jobs
with ``scancel``).  Not Linux (no ``/proc``): nothing is watched either.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

#: seconds between two looks at the Snakemake process
POLL_SECONDS = 0.5
#: exit status of a job ended because its Snakemake run is gone
ORPHAN_EXIT = 75


@dataclass(frozen=True)
class Process:
    pid: int
    start_time: int  # clock ticks since boot (/proc/<pid>/stat field 22)

    def alive(self) -> bool:
        """Running: the same process (pid and start time), and not a zombie (a killed process whose parent has
        not collected it yet still has its ``/proc`` entry)."""
        fields = _stat_fields(self.pid)
        return bool(fields) and len(fields) > 19 and int(fields[19]) == self.start_time and fields[0] not in "ZX"


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may hold spaces: split after its closing parenthesis
    return text[text.rfind(")") + 2:].split()


def _start_time(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return int(fields[19]) if fields and len(fields) > 19 else None  # field 22 of the whole line


def _parent(pid: int) -> int | None:
    fields = _stat_fields(pid)
    return int(fields[1]) if fields else None  # field 4 of the whole line


def _is_snakemake(pid: int) -> bool:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return False
    names = [Path(arg).name for arg in argv[:3]]
    return "snakemake" in names or any(a == "-m" and b == "snakemake" for a, b in zip(argv, argv[1:])) or any(
        arg.endswith("/snakemake/__main__.py") for arg in argv[:3])


def snakemake_ancestor(pid: int | None = None) -> Process | None:
    """The outermost ``snakemake`` process among the ancestors of ``pid`` (default: this process), or None."""
    found, current = None, _parent(pid or os.getpid())
    while current and current > 1:
        if _is_snakemake(current):
            start = _start_time(current)
            if start is not None:
                found = Process(current, start)
        current = _parent(current)
    return found


def _orphaned_at_start() -> bool:
    """A Snakemake job script (Snakemake writes it to ``.snakemake/scripts/``) whose parent is already gone (it was
    re-parented to init): its Snakemake was killed while the script was still starting."""
    import sys

    return os.getppid() == 1 and "/.snakemake/scripts/" in Path(sys.argv[0] if sys.argv else "").as_posix()


class OrphanedJobError(RuntimeError):
    """The Snakemake run that started this job is gone; its outputs are not published."""


_OWNER: Process | None = None
_LOCK = threading.Lock()


def watch_snakemake(on_orphaned=None) -> Process | None:
    """Start (once per process) the watchdog of this job's Snakemake run; the process watched, or None."""
    global _OWNER
    with _LOCK:
        if _OWNER is not None:
            return _OWNER
        if not Path("/proc/self/stat").exists():
            return None
        owner = snakemake_ancestor()
        if owner is None:
            if _orphaned_at_start():
                if on_orphaned is not None:
                    on_orphaned(Process(0, 0))
                os._exit(ORPHAN_EXIT)
            return None
        _OWNER = owner

    def watch() -> None:
        stop = threading.Event()
        while not stop.wait(POLL_SECONDS):
            if not owner.alive():
                if on_orphaned is not None:
                    on_orphaned(owner)
                os._exit(ORPHAN_EXIT)

    threading.Thread(target=watch, name="ltrbv-snakemake-watchdog", daemon=True).start()
    return owner


def check_owner() -> None:
    """Refuse to publish (OrphanedJobError) when the Snakemake run that started this job is gone."""
    owner = _OWNER
    if owner is not None and not owner.alive():
        raise OrphanedJobError(f"the Snakemake run that started this job (pid {owner.pid}) is gone; a newer run "
                               "owns its outputs, so none is published")
