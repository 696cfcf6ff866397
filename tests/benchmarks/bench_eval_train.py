"""Benchmark (run by hand, not a rule): what LambdaMART's training curve costs (``eval_train``, the learner's default).

    python tests/benchmarks/bench_eval_train.py [--rounds 100] [--repeats 3] [--cache-dir /tmp/ltrbv-bench-forest]

One XGBoost LambdaMART model (Ganjisaffar et al.'s best MSLR-WEB10K row, the papers' ``lambdamart-rand``: 40 leaves,
learning rate 0.1, feature sampling 0.5, validation NDCG@3 in the ``standard`` convention, no early stopping, one
thread) on the MSLR-shaped synthetic set of ``bench_forest.py`` (its first 60% of queries to train, the next 20% to
validate), fitted with ``eval_train`` on (the training set scored in this package's metric every round: the curve
that catalog entries of kind ``curve`` plot) and off, alternated; process CPU seconds, medians over the repeats, and
their ratio. The papers' configs switch it off where no curve is drawn.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_forest import MSLR_SHAPED, ensure_mslr, load_mslr  # noqa: E402
from bench_scheduler import positive  # noqa: E402
from timing import load_average, median  # noqa: E402


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=positive(int), default=100, help="boosting rounds of each model (100)")
    parser.add_argument("--repeats", type=positive(int), default=3, help="models per setting (3)")
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/ltrbv-bench-forest"),
                        help="where bench_forest.py caches the MSLR-shaped set")
    parser.add_argument("--out", type=Path, default=None, help="also write the result as JSON")
    return parser.parse_args(argv)


def main(argv=None) -> dict:
    args = parse_args(argv)
    from ltrbv.learners import LambdaMART

    ensure_mslr(args.cache_dir, MSLR_SHAPED)
    data = load_mslr(args.cache_dir, MSLR_SHAPED, "all")
    n = data.n_queries
    train = data.subset_queries(np.arange(int(0.6 * n)))
    valid = data.subset_queries(np.arange(int(0.6 * n), int(0.8 * n)))
    params = dict(n_estimators=args.rounds, learning_rate=0.1, max_leaves=40, min_child_weight=1.0,
                  early_stopping_rounds=None, eval_metric="ndcg@3", eval_convention="standard", colsample_bynode=0.5)
    load_before = load_average()
    seconds = {"eval_train": [], "no_eval_train": []}
    for repeat in range(args.repeats):
        for name, eval_train in (("eval_train", True), ("no_eval_train", False)):
            model = LambdaMART(**params, eval_train=eval_train, random_state=1, n_threads=1)
            started = time.process_time()
            model.fit(train, valid=valid)
            seconds[name].append(time.process_time() - started)
            print(f"repeat {repeat}: {name} {seconds[name][-1]:.2f} CPU-s", flush=True)
    result = {"train_docs": int(train.labels.size), "train_queries": int(train.n_queries),
              "valid_docs": int(valid.labels.size), "rounds": args.rounds, "seconds": seconds,
              "median_s": {name: median(values) for name, values in seconds.items()},
              "ratio": median(seconds["eval_train"]) / median(seconds["no_eval_train"]),
              "load_before": load_before, "load_after": load_average()}
    print(f"{result['train_docs']:,} training documents, {args.rounds} rounds: eval_train "
          f"{result['median_s']['eval_train']:.2f} CPU-s, without {result['median_s']['no_eval_train']:.2f}, ratio "
          f"{result['ratio']:.3f} (load {load_before} -> {result['load_after']})")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
