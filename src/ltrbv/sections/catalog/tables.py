"""What the catalog's entry kinds share: per-query values from prediction files, each run's seconds and tree
structure, an entry job's outputs (:class:`Made`), and the page's reading of the tables and benchmarks.

Each kind's own table is in its module (:mod:`ltrbv.sections.catalog.kinds`); the claims are tested by
:mod:`ltrbv.sections.catalog.claims` and judged by the claim engine (:mod:`ltrbv.compare.claims`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from ...metrics import evaluate

SECONDS_PER_TREE = "seconds_per_tree"
#: what a 'greater' claim compares: training seconds per model, and the forests' tree structure (Table XII)
QUANTITIES = ("fit_seconds", "leaves_per_tree", "rows_per_leaf", "leaf_score", "depth")


@dataclass(frozen=True)
class Made:
    """What an entry's job makes: its table (``csv``), its claims' tests (``claims.csv``), its page (``md``) and,
    for a kind with a figure, a function drawing it to the given paths (``png``, ``svg``)."""

    table: pd.DataFrame
    tests: pd.DataFrame
    markdown: str
    plot: Callable | None = None


def per_query_values(scores: dict, data: dict, metrics, convention: str) -> pd.DataFrame:
    """Long table (learner, fold, seed, qid, metric, convention, value) of ``scores[learner][fold][seed]``
    (score arrays in row order) against ``data[fold]`` (RankingData)."""
    frames = []
    for learner, by_fold in scores.items():
        for fold, by_seed in by_fold.items():
            d = data[fold]
            for seed, values in by_seed.items():
                metric_values = evaluate(values, d.labels, d.query_offsets, list(metrics), convention=convention)
                for metric in metrics:
                    frames.append(pd.DataFrame({"learner": learner, "fold": fold, "seed": int(seed), "qid": d.qids,
                                                "metric": metric, "convention": convention,
                                                "value": metric_values[metric]}))
    return pd.concat(frames, ignore_index=True)


def fit_seconds(meta: dict) -> pd.DataFrame:
    """(learner, fold, seed, fit_seconds, trees and the forests' structure: leaves_per_tree, rows_per_leaf,
    leaf_score, depth; nan for other learners) of ``meta[learner][fold][seed]`` (parsed meta.json)."""
    rows = []
    for learner, by_fold in meta.items():
        for fold, by_seed in by_fold.items():
            for seed, m in by_seed.items():
                info = m.get("fit_info") or {}
                trees = m["params"].get("n_estimators") if m.get("kind") == "random_forest" else info.get("trees_kept")
                seconds = m["fit_seconds"] if "fit_seconds" in m else m["fit_seconds_total"]  # a bag: its sub-models'
                rows.append({"learner": learner, "fold": fold, "seed": int(seed), "fit_seconds": seconds,
                             "trees": trees, **{q: info.get(q, np.nan) for q in QUANTITIES if q != "fit_seconds"}})
    return pd.DataFrame(rows)


def read_entry_table(kind: str, path) -> pd.DataFrame:
    """An entry's table as its job wrote it (a compare table's folds are names, e.g. ``1`` or ``all``)."""
    return pd.read_csv(path, dtype={"fold": str} if kind == "compare" else None)


def benchmark_cpu_seconds(files) -> tuple[float, int]:
    """(summed cpu_time, number of files missing) of Snakemake benchmark files."""
    total, missing = 0.0, 0
    for path in files:
        if not os.path.exists(path):
            missing += 1
            continue
        frame = pd.read_csv(path, sep="\t")
        total += float(frame["cpu_time"].iloc[-1]) if "cpu_time" in frame and len(frame) else 0.0
    return total, missing
