"""Timing claims measured on their own: a dedicated job per entry (rule ``catalog_timing``) that holds every core of
the run, so that no other job runs beside it, fits each timed learner ``repeats`` times on the first fold (a forest
with ``trees`` trees: seconds per tree do not depend on the forest's size) and records each fit's CPU and wall
seconds and the load average before and after it.  A timing claim reads the median (:func:`seconds_per_tree`).

The training runs' own fit times (``meta.json``'s ``fit_seconds``, the tables' s/model and s/tree columns) were
measured on cores shared with other jobs: they describe the run, the claims do not read them.
"""

from __future__ import annotations

import os
import platform
import time

import numpy as np
import pandas as pd

from ...seeding import derive_seed
from ..core.grid import sorted_dict

#: an entry's timing table: catalog/<entry>.timing.csv
TIMING_EXT = "timing.csv"
FOREST_KIND = "random_forest"


def timing_specs(config: dict, learners, trees: int) -> dict:
    """``{learner: {"kind", "params"}}`` of the learners to time: each as configured, a forest with ``trees`` trees."""
    specs = {}
    for learner in dict.fromkeys(learners):
        entry = config["learners"][learner]
        params = dict(entry.get("params", {}))
        if entry["kind"] == FOREST_KIND:
            params["n_estimators"] = int(trees)
        specs[learner] = {"kind": entry["kind"], "params": sorted_dict(params)}
    return specs


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def measure(specs: dict, train, vali, repeats: int, seed: int, entry: str, cores_held: int) -> pd.DataFrame:
    """One row per fit: learner, repeat, trees, CPU and wall seconds, the 1-minute load average before and after,
    the cores the job held and the CPU's name.  Each fit is single-threaded with its own derived seed; a learner
    that validates (boosting, the Ranking SVM) gets the fold's validation set, as in its training run."""
    from ...learners import make_learner

    rows, cpu = [], _cpu_name()
    for learner, spec in specs.items():
        for repeat in range(1, int(repeats) + 1):
            model = make_learner(spec["kind"], spec["params"], random_state=derive_seed(seed, entry, learner, repeat),
                                 n_threads=1)
            load_before = os.getloadavg()[0]
            cpu_started, wall_started = time.process_time(), time.perf_counter()
            model.fit(train) if spec["kind"] == FOREST_KIND else model.fit(train, vali)  # a forest takes none
            cpu_seconds, wall_seconds = time.process_time() - cpu_started, time.perf_counter() - wall_started
            trees = spec["params"].get("n_estimators") if spec["kind"] == FOREST_KIND else \
                (getattr(model, "fit_info_", {}) or {}).get("trees_kept")
            rows.append({"learner": learner, "repeat": repeat, "trees": trees, "cpu_seconds": cpu_seconds,
                         "wall_seconds": wall_seconds, "load_before": load_before, "load_after": os.getloadavg()[0],
                         "cores_held": cores_held, "cpu": cpu})
    return pd.DataFrame(rows)


def seconds_per_tree(table: pd.DataFrame) -> dict:
    """``{learner: (median CPU seconds per tree, or per model where the trees are not counted; fits)}``."""
    out = {}
    for learner, rows in table.groupby("learner", sort=False):
        trees = pd.to_numeric(rows["trees"], errors="coerce")
        per = rows["cpu_seconds"] / trees if trees.notna().all() and (trees > 0).all() else rows["cpu_seconds"]
        out[learner] = (float(np.median(per)), len(rows))
    return out


def describe(table: pd.DataFrame) -> str:
    """How a timing was measured, for the claim's row."""
    fits = table.groupby("learner").size()
    return (f"median of {int(fits.min())} fits on a job holding {int(table['cores_held'].iloc[0])} core(s), load "
            f"{table['load_before'].min():.1f}-{table['load_before'].max():.1f} before the fits")
