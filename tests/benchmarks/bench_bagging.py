"""Benchmark (run by hand, not a rule): the cost of query-level sub-sampling in LambdaMART-rand, and of a bag.

    python tests/benchmarks/bench_bagging.py ../shared/data/MQ2008 [--rounds 200] [--repeats 3]

1. Seconds per boosting round on Fold1 (fixed number of rounds, no early stopping, 1 thread) of
   * plain LambdaMART (XGBoost rank:ndcg);
   * LambdaMART-rand as implemented (per-round query weights on one QuantileDMatrix);
   * the alternative that trains each round on a new DMatrix holding only the sampled queries,
     continuing the model with xgb.train(..., xgb_model=...) (the oracle of tests/test_lambdamart_rand.py);
     XGBoost's ranking objective caches per training matrix, so a Booster cannot switch matrices
     between rounds and every round pays for re-predicting all previous trees.
2. n sub-models on 67% of the queries vs n models on all queries, trained one after another in one
   process (the bag's compute without the workflow's per-job start-up).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the oracle of test_lambdamart_rand


from ltrbv.learners.bagging import sample_queries  # noqa: E402
from ltrbv.data.letor import read_letor  # noqa: E402
from ltrbv.learners import LambdaMART  # noqa: E402
from test_lambdamart_rand import per_round_subset_oracle  # noqa: E402


def best_of(repeats, fn):
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("root", type=Path)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--bag", type=int, default=10)
    args = parser.parse_args()
    train = read_letor(args.root / "Fold1" / "train.txt", n_features=46)
    valid = read_letor(args.root / "Fold1" / "vali.txt", n_features=46)
    common = dict(n_estimators=args.rounds, early_stopping_rounds=None, max_leaves=7, eval_train=False, random_state=1)
    plain = LambdaMART(**common)
    rand = LambdaMART(**common, query_subsample=0.3, colsample_bynode=0.3)
    t_plain = best_of(args.repeats, lambda: plain.fit(train))
    t_rand = best_of(args.repeats, lambda: rand.fit(train))
    t_subsets = best_of(1, lambda: per_round_subset_oracle(rand, train, args.rounds))
    print(f"Fold1 train: {train.n_queries} queries, {train.n_docs} documents; {args.rounds} rounds, 7 leaves, 1 thread")
    for name, seconds in (("plain LambdaMART", t_plain), ("LambdaMART-rand (query weights)", t_rand),
                          ("per-round subset DMatrix + xgb_model", t_subsets)):
        print(f"  {name:40s} {seconds:7.2f} s  {1000 * seconds / args.rounds:6.2f} ms/round")
    # a bag's compute: n sub-models on 67% of the queries, early stopping on the validation fold
    model = dict(max_leaves=7, query_subsample=0.3, colsample_bynode=0.3, eval_train=False)
    started = time.perf_counter()
    for k in range(args.bag):
        LambdaMART(**model, random_state=k).fit(train.subset_queries(sample_queries(train.n_queries, 0.67, k)), valid)
    t_bag = time.perf_counter() - started
    started = time.perf_counter()
    for k in range(args.bag):
        LambdaMART(**model, random_state=k).fit(train, valid)
    t_full = time.perf_counter() - started
    print(f"  {args.bag} sub-models on 67% of the queries, one after another: {t_bag:6.2f} s")
    print(f"  {args.bag} models on all queries, one after another:           {t_full:6.2f} s")


if __name__ == "__main__":
    main()
