"""The tree-strength curve (Ibrahim & Carman 2016, Fig. 7): the compiled pass per tree against the peer it
replaced, re-scoring each expansion's queries with ``ltrbv.metrics.evaluate`` (measured in the same run).

    python tests/benchmarks/bench_tree_strength.py [--queries 240] [--docs 40] [--trees 5] [--repeats 3]

Prints, per tree, the median seconds of each and their ratio, and the largest difference between the curves.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import load_average, median, timed  # noqa: E402

from ltrbv.data.ranking_data import RankingData  # noqa: E402
from ltrbv.data.synthetic import SyntheticSpec, generate_queries  # noqa: E402
from ltrbv.forest import RankingForest  # noqa: E402
from ltrbv.forest.diagnostics import ndcg_setup, strength_curve  # noqa: E402
from ltrbv.metrics import evaluate  # noqa: E402


def evaluate_curve(tree, data: RankingData) -> np.ndarray:
    """The peer (the code the kernel replaced): after each expansion, the queries with a document in the split
    node re-scored by one call of evaluate."""
    value = tree.value
    node = np.zeros(data.n_docs, dtype=np.int64)
    scores = np.full(data.n_docs, value[0])
    per_query = evaluate(scores, data.labels, data.query_offsets, ["ndcg"], convention="standard",
                         ties="expected")["ndcg"]
    curve = [per_query.mean()]
    query_of_row = data.query_index
    for split in np.flatnonzero(tree.feature >= 0):
        rows = np.flatnonzero(node == split)
        go_left = data.X[rows, tree.feature[split]] <= tree.threshold[split]
        node[rows] = np.where(go_left, tree.left[split], tree.right[split])
        scores[rows] = value[node[rows]]
        queries = np.unique(query_of_row[rows])  # one evaluate call per expansion, as the replaced code did
        starts = data.query_offsets[queries]
        sizes = data.query_offsets[queries + 1] - starts
        subset_offsets = np.concatenate(([0], np.cumsum(sizes)))
        subset_rows = np.repeat(starts - subset_offsets[:-1], sizes) + np.arange(subset_offsets[-1])
        per_query[queries] = evaluate(scores[subset_rows], data.labels[subset_rows], subset_offsets, ["ndcg"],
                                      convention="standard", ties="expected")["ndcg"]
        curve.append(per_query.mean())
    return np.asarray(curve)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=240)
    parser.add_argument("--docs", type=int, default=40)
    parser.add_argument("--trees", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    spec = SyntheticSpec(n_queries=args.queries, docs_per_query=args.docs, n_features=46, n_informative=10,
                         n_query_level=2, seed=1)
    q = generate_queries(spec)
    offsets = np.concatenate(([0], np.cumsum(q.query_sizes))).astype(np.int64)
    data = RankingData(X=q.X, labels=q.labels, query_offsets=offsets, qids=np.arange(args.queries).astype(str),
                       line_numbers=np.arange(1, offsets[-1] + 1))
    trees = RankingForest(splitting="point", n_estimators=args.trees, random_state=3, keep_trees=True).fit(data).trees_
    setup = ndcg_setup(data)
    strength_curve(trees[0], data, setup)  # compile or load the kernel outside the timings
    load_before = load_average()
    ratios, largest = [], 0.0
    for i, tree in enumerate(trees):
        compiled = [timed(strength_curve, tree, data, setup) for _ in range(args.repeats)]
        peer = [timed(evaluate_curve, tree, data) for _ in range(args.repeats)]
        difference = float(np.abs(compiled[0][1] - peer[0][1]).max())
        largest = max(largest, difference)
        ratio = median(t for t, _ in peer) / median(t for t, _ in compiled)
        ratios.append(ratio)
        print(f"tree {i}: {compiled[0][1].size - 1} expansions; compiled {median(t for t, _ in compiled):.4f} s, "
              f"evaluate {median(t for t, _ in peer):.4f} s, ratio {ratio:.0f}x; largest difference {difference:.1e}")
    print(f"\n{args.queries} queries x {args.docs} documents: median ratio {median(ratios):.0f}x (evaluate / compiled), "
          f"curves within {largest:.1e}; load {load_before} before, {load_average()} after")
    return 0


if __name__ == "__main__":
    sys.exit(main())
