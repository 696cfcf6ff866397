"""thresholds: hist vs exact (issue 12): per-tree time on MQ2008 Fold1 and 5-fold MQ2008 NDCG@10 / MAP (letor4).

    python tests/benchmarks/bench_hist.py [--mq2008 /work/shared/data/MQ2008] [--trees 100]

Per-tree time = the compiled build_tree call (medians, exact and hist alternated); accuracy = the mean over the
five folds' test queries of forests grown with the same seed in both modes.  Prints a table and the load.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from ltrbv.data.letor import read_letor
from ltrbv.forest import RankingForest
from ltrbv.forest import forest as forest_module
from ltrbv.metrics.measures import evaluate

BUILD = forest_module.build_tree


def timed_fit(params, data, n_trees):
    times = []

    def wrapper(*args):
        start = time.perf_counter()
        out = BUILD(*args)
        times.append(time.perf_counter() - start)
        return out

    forest_module.build_tree = wrapper
    try:
        RankingForest(**params, n_estimators=n_trees, random_state=7).fit(data)
    finally:
        forest_module.build_tree = BUILD
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mq2008", default="/work/shared/data/MQ2008")
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--timing-trees", type=int, default=15)
    args = parser.parse_args()
    print("load before", os.getloadavg()[0])
    train1 = read_letor(f"{args.mq2008}/Fold1/train.txt", n_features=46)
    RankingForest(splitting="list", n_estimators=2, thresholds="hist").fit(train1)  # warm-up compiles
    RankingForest(splitting="list", n_estimators=2).fit(train1)
    for splitting in ("point", "list"):
        exact, hist = [], []
        for _ in range(3):  # alternated
            exact += timed_fit({"splitting": splitting}, train1, args.timing_trees // 3)
            hist += timed_fit({"splitting": splitting, "thresholds": "hist"}, train1, args.timing_trees // 3)
        print(f"per tree {splitting}: exact {np.median(exact):.4f} s, hist {np.median(hist):.4f} s, "
              f"speed-up {np.median(exact) / np.median(hist):.2f}x")
    for splitting in ("point", "list"):
        rows = {"exact": [], "hist": []}
        for fold in range(1, 6):
            train = read_letor(f"{args.mq2008}/Fold{fold}/train.txt", n_features=46)
            test = read_letor(f"{args.mq2008}/Fold{fold}/test.txt", n_features=46)
            for mode in rows:
                forest = RankingForest(splitting=splitting, thresholds=mode, n_estimators=args.trees, random_state=fold,
                                       n_threads=2, keep_trees=False).fit(train, predict_on=(test,))
                values = evaluate(forest.predictions_[0], test.labels, test.query_offsets, ("ndcg@10", "map"), "letor4")
                rows[mode].append(values)
        for mode, values in rows.items():
            ndcg = np.mean(np.concatenate([v["ndcg@10"] for v in values]))
            ap = np.mean(np.concatenate([v["map"] for v in values]))
            print(f"5-fold MQ2008 {splitting} {mode}: NDCG@10 {ndcg:.4f} MAP {ap:.4f}")
        diff = np.concatenate([h["ndcg@10"] - e["ndcg@10"] for h, e in zip(rows["hist"], rows["exact"])])
        print(f"  hist - exact NDCG@10 per query: mean {diff.mean():+.4f}, sd/sqrt(n) {diff.std() / np.sqrt(diff.size):.4f}")
    print("load after", os.getloadavg()[0])


if __name__ == "__main__":
    main()
