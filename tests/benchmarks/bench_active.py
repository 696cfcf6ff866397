"""Benchmark: Algorithm 1 repetitions, 5,000 x 15 budgets x 4 methods x 2 measures, pool of 600 queries.

    python tests/benchmarks/bench_active.py [--repetitions 5000] [--queries 600]

Runs on one core (NUMBA_NUM_THREADS=1); the first call compiles the kernels and is timed
separately.  The issue's target is under 2 minutes.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from ltrbv.active.estimation import run_repetitions  # noqa: E402
from ltrbv.active.moments import true_measure  # noqa: E402
from ltrbv.active.rankings import ranks_from_scores  # noqa: E402
from ltrbv.active.sampling import METHODS, method_distribution, query_costs  # noqa: E402


def synthetic_pool(n_queries: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 60, size=n_queries)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    n = int(offsets[-1])
    probs = rng.dirichlet([4.0, 1.0, 0.5], size=n)
    labels = (rng.random(n)[:, None] > np.cumsum(probs, 1)).sum(1)
    ranks = ranks_from_scores(probs @ np.arange(3) + rng.normal(scale=0.3, size=n), offsets)
    return probs, labels, offsets, ranks


def run(n_repetitions: int, n_queries: int, budgets) -> dict:
    probs, labels, offsets, ranks = synthetic_pool(n_queries)
    costs = query_costs(offsets)
    timings = {}
    for measure in ("dcg", "err"):
        truth = true_measure(labels, ranks, offsets, measure, 3)
        for method in METHODS:
            start = time.perf_counter()
            q = method_distribution(method, probs, [ranks], offsets, measure, costs)
            result = run_repetitions(q, costs, truth, budgets, n_repetitions,
                                     np.random.default_rng(hash((measure, method)) & 0xFFFF))
            timings[(measure, method)] = time.perf_counter() - start
            err = np.nanmean(np.abs(result.estimates[:, -1, 0] - truth.mean()))
            print(f"  {measure} {method:12s} {timings[(measure, method)]:6.2f} s  |error| at budget "
                  f"{budgets[-1]:g}: {err:.4f}  mean draws {result.n_draws[:, -1].mean():.0f}", flush=True)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=5000)
    parser.add_argument("--queries", type=int, default=600)
    args = parser.parse_args()
    budgets = np.linspace(20, 300, 15)
    start = time.perf_counter()
    run(10, 50, np.linspace(2, 20, 15))
    print(f"compile + warm-up: {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    run(args.repetitions, args.queries, budgets)
    total = time.perf_counter() - start
    print(f"{args.repetitions} repetitions x {budgets.size} budgets x {len(METHODS)} methods x 2 measures, "
          f"pool of {args.queries} queries: {total:.1f} s on one core")


if __name__ == "__main__":
    main()
