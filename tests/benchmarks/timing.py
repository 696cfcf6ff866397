"""Small timing helpers shared by the benchmark scripts (run as ``python tests/benchmarks/bench_*.py``)."""

from __future__ import annotations

import os
import statistics
import time


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def median(values) -> float:
    return float(statistics.median(values))


def timed(fn, *args, **kwargs):
    """(seconds, result) of one call."""
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return time.perf_counter() - start, result
