"""Logging for rule scripts: everything a script says goes to the rule's ``log:`` file."""

from __future__ import annotations

import logging
import sys
from contextlib import contextmanager


@contextmanager
def rule_log(snakemake):
    """Send Python logging, stdout and stderr of a rule script to its log file; end the job if the Snakemake run
    that started it is killed (:mod:`ltrbv.workflow.job_guard`).

    On an exception, the traceback is written to the log before the script
    fails, so a failed job's log names the cause.
    """
    from .job_guard import watch_snakemake

    path = snakemake.log[0] if len(snakemake.log) else None
    if path is None:
        watch_snakemake()
        yield logging.getLogger("ltrbv")
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
            handle.flush()
            sys.stdout, sys.stderr = saved


def progress_bar(total=None, desc="", unit="it"):
    """A tqdm progress bar on stderr (the rule's log inside a job); refreshed at most every 5 s in a log file."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, mininterval=0.5 if sys.stderr.isatty() else 5.0,
                ascii=not sys.stderr.isatty())
