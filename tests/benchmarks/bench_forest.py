"""Benchmarks of ltrbv.forest.RankingForest against its peers, each pair measured in the same run.

Sub-benchmarks (select with ``--only 1,3``; default: all):

1. One RF-point tree (exact splits, entropy, K = 8, single thread) on ~450k MSLR-shaped rows,
   63% of the queries per tree, vs scikit-learn ``DecisionTreeClassifier(criterion="entropy",
   max_features=8)`` fitted on exactly the same rows.
2. A 500-tree RF-point forest on MQ2008 Fold1 train (63% query sub-sampling, default K) with
   ``n_threads=2`` vs the same forest of scikit-learn trees on the same query samples, fitted with
   joblib ``n_jobs=2`` (threading backend; loky and single-thread figures are reported too).
3. RF-list vs RF-point per tree: (a) MQ2008 Fold1 at subsample 0.63, (b) MSLR-shaped (6,000
   queries) at 0.05, (c) how far one full-depth RF-list tree on MSLR-450k reaches at subsample
   0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.63 (``--ladder``) under a time budget (each tree in a child
   process with a hard timeout), (d) a depth profile of RF-list at 0.05 (trees truncated with
   ``max_depth``).  ``--parts`` selects among a-d.
4. RF-hybrid-L6 vs RF-point per tree at 63% on the ~450k MSLR-shaped rows, with a per-level profile
   of the six listwise levels.
5. Peak memory of each learner's fit (child processes: VmHWM/RSS delta and tracemalloc peak) and
   prediction throughput of a 100-tree RF-point forest vs 100 scikit-learn trees (predict_proba
   summed) on held-out MSLR-shaped rows.
6. The listwise cost ratios alone (issue 12's targets, ~5-8 min): 3a, 3b and 4 without the reach
   ladder and the depth/level profiles; and the expected-ERR objective's RF-list vs RF-point per tree
   (d: MQ2008 Fold1 at 0.63, e: MSLR-shaped at 0.01).
7. RF-point against the forests a user would pick instead, on MQ2008 Fold1 (train.txt -> test.txt),
   500 trees, 2 threads each, alternated: ltrbv ``RankingForest(splitting="point")`` (entropy and
   mse), scikit-learn ``RandomForestClassifier`` (entropy, expected relevance) and
   ``RandomForestRegressor``, XGBoost ``XGBRFRegressor`` and LightGBM ``boosting="rf"``, all with K
   features per node and unpruned trees: fit time and test NDCG@10 / MAP (LETOR-4 convention, as
   the workflow's evaluate rule computes them), one seed per repeat.

8. ``thresholds: hist`` against exact and scikit-learn per tree (issue 30): (a) RF-point (entropy, K = 8) on
   MSLR-450k at 63%, exact vs hist vs ``DecisionTreeClassifier`` on the same rows, per-tree CPU seconds, hist's
   binning per forest apart; (b) RF-list per tree on all 6,000 MSLR-shaped queries (MSLR-WEB10K-sized): hist at
   0.63, hist vs exact at 0.05 (child processes, hard timeout); (c) mean test NDCG@10 on MQ2008 Fold1 of hist and
   exact forests, 3 seeds.  Prints the CPU's SIMD flags (/proc/cpuinfo) and the load beside the medians.

Data: ``generate_queries(MSLR_SHAPED)`` (6,000 queries, ~717k rows, 136 raw features, labels
0-4) is generated once and cached as .npy files outside the repository (``--cache-dir``, default
``$TMPDIR/ltrbv-bench-forest``).  "MSLR-450k" is its first 3,750 queries (~448k rows); the held-out
test rows of benchmark 5 are its last 1,200 queries (partition S5).  MQ2008 is read from
``--mq2008`` (default /work/shared/data/MQ2008/Fold1).

Timing: numba kernels are warmed up (one small fit per splitting, untimed) before anything is
timed.  "Per-tree" times are the duration of the compiled ``build_tree`` call of each tree,
measured by wrapping ``ltrbv.forest.forest.build_tree`` (no source is modified); they exclude the
fit's one-off setup (transposing X, ideal DCGs), which is reported separately where it matters.
Peers are measured alternately in the same run; medians are reported; the 1-minute load average is
recorded before and after each benchmark.

    python tests/benchmarks/bench_forest.py                 # everything (~35-45 min on 2 busy cores:
                                                            #   1: ~1, 2: ~2-3, 3: ~14-16, 4: ~2-4, 5: ~15 min)
    python tests/benchmarks/bench_forest.py --only 1,2      # a selection
    python tests/benchmarks/bench_forest.py --only 7        # RF-point vs sklearn / XGBoost / LightGBM forests
    python tests/benchmarks/bench_forest.py --only 8        # thresholds hist vs exact vs sklearn (~20-30 min)
    python tests/benchmarks/bench_forest.py --only 3 --parts c --list-budget 900   # the reach ladder alone
    python tests/benchmarks/bench_forest.py --quick         # smaller data / fewer trees (~5 min)

Results are merged into ``results/benchmarks/forest.json`` (one entry per benchmark).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "src"))  # run from a checkout without installing

import ltrbv.forest.forest as forest_module  # noqa: E402
from ltrbv.data.ranking_data import RankingData  # noqa: E402
from ltrbv.data.synthetic import MSLR_SHAPED, generate_queries  # noqa: E402
from ltrbv.forest import RankingForest  # noqa: E402
from timing import load_average, median, timed  # noqa: E402

DEFAULT_OUT = REPO / "results" / "benchmarks" / "forest.json"
DEFAULT_MQ2008 = REPO.parent / "shared" / "data" / "MQ2008" / "Fold1"
TRAIN_FRACTION = 0.625  # first 3,750 of 6,000 queries: ~448k rows
TEST_FRACTION = 0.2  # last 1,200 queries (S5)


# -- small utilities ---------------------------------------------------------------------------------


def proc_status_kb(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return -1


def reset_peak_rss() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0); False where unsupported."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


@contextlib.contextmanager
def kernel_timer():
    """Record the duration of every compiled build_tree call (one per tree) made by RankingForest.fit."""
    original = forest_module.build_tree
    durations: list[float] = []
    lock = threading.Lock()

    def wrapper(*args):
        start = time.perf_counter()
        out = original(*args)
        elapsed = time.perf_counter() - start
        with lock:
            durations.append(elapsed)
        return out

    forest_module.build_tree = wrapper
    try:
        yield durations
    finally:
        forest_module.build_tree = original


def ranking_data(X, labels, sizes, source="") -> RankingData:
    offsets = np.zeros(sizes.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return RankingData(
        X=np.ascontiguousarray(X, dtype=np.float32), labels=np.asarray(labels, dtype=np.int8),
        query_offsets=offsets, qids=np.arange(sizes.size).astype(str),
        line_numbers=np.arange(1, offsets[-1] + 1, dtype=np.int64), source=source,
    )


def tree_rows(forest: RankingForest, data: RankingData, t: int) -> np.ndarray:
    """The training rows of tree t of ``forest`` (reproduces RankingForest.fit's query sample)."""
    seeds = forest.tree_seeds()
    n_sampled = max(1, int(round(forest.subsample * data.n_queries)))
    rng = np.random.default_rng(int(seeds[t]))
    queries = np.sort(rng.choice(data.n_queries, size=n_sampled, replace=False))
    starts = data.query_offsets[queries]
    sizes = data.query_offsets[queries + 1] - starts
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    return np.repeat(starts - offsets[:-1], sizes) + np.arange(offsets[-1], dtype=np.int64)


def sklearn_seed(seed) -> int:
    return int(seed) % (2**32)


def model_bytes_ours(forest: RankingForest) -> int:
    return int(sum(getattr(t, f.name).nbytes for t in forest.trees_ for f in dataclasses.fields(t)))


def model_bytes_sklearn(trees) -> int:
    total = 0
    for tree in trees:
        state = tree.tree_.__getstate__()
        total += state["nodes"].nbytes + state["values"].nbytes
    return int(total)


def sklearn_expected_relevance(trees, X) -> np.ndarray:
    """Mean over trees of sum_c p(c | leaf) c: the sklearn analogue of RankingForest.predict."""
    out = np.zeros(X.shape[0])
    for tree in trees:
        out += tree.predict_proba(X) @ tree.classes_.astype(np.float64)
    return out / len(trees)


def mean_ndcg10(scores, data: RankingData) -> float:
    from ltrbv.metrics import evaluate

    return float(np.nanmean(evaluate(scores, data.labels, data.query_offsets, ("ndcg@10",))["ndcg@10"]))


# -- data --------------------------------------------------------------------------------------------


def mslr_spec(quick: bool):
    return dataclasses.replace(MSLR_SHAPED, n_queries=1200) if quick else MSLR_SHAPED


def mslr_files(cache_dir: Path, spec) -> dict[str, Path]:
    stem = f"mslr-q{spec.n_queries}-s{spec.seed}"
    return {k: cache_dir / f"{stem}-{k}.npy" for k in ("X", "labels", "sizes")}


def ensure_mslr(cache_dir: Path, spec) -> dict:
    """Generate (once) and cache the MSLR-shaped queries; returns how long generation took (0 if cached)."""
    files = mslr_files(cache_dir, spec)
    if all(p.exists() for p in files.values()):
        return {"generated_s": 0.0, "cache": str(cache_dir)}
    cache_dir.mkdir(parents=True, exist_ok=True)
    elapsed, q = timed(generate_queries, spec)
    for key, array in (("X", q.X), ("labels", q.labels), ("sizes", q.query_sizes)):
        tmp = files[key].with_suffix(".tmp.npy")
        np.save(tmp, array)
        os.replace(tmp, files[key])
    return {"generated_s": round(elapsed, 1), "cache": str(cache_dir)}


def load_mslr(cache_dir: Path, spec, part: str = "all") -> RankingData:
    """part: "all" (every query), "train" (first 62.5% of queries) or "test" (last 20%)."""
    files = mslr_files(cache_dir, spec)
    X = np.load(files["X"])
    labels = np.load(files["labels"])
    sizes = np.load(files["sizes"])
    data = ranking_data(X, labels, sizes, source=f"MSLR_SHAPED(n_queries={spec.n_queries})")
    n = data.n_queries
    if part == "train":
        return data.subset_queries(np.arange(int(round(TRAIN_FRACTION * n))))
    if part == "test":
        return data.subset_queries(np.arange(n - int(round(TEST_FRACTION * n)), n))
    return data


def load_mq2008(folder: Path, split: str = "train") -> RankingData:
    from ltrbv.data.letor import read_letor

    return read_letor(folder / f"{split}.txt")


def describe(data: RankingData) -> dict:
    return {"rows": data.n_docs, "queries": data.n_queries, "features": data.n_features,
            "X_MB": round(data.X.nbytes / 2**20, 1)}


def warm_up() -> float:
    """Load (or compile) every numba kernel a benchmark uses, on a tiny problem; returns seconds."""
    from ltrbv.data.synthetic import SyntheticSpec

    q = generate_queries(SyntheticSpec(n_queries=30, docs_per_query=20, seed=1))
    data = ranking_data(q.X, q.labels, q.query_sizes)
    start = time.perf_counter()
    for splitting in ("point", "list", "hybrid", "rand"):
        forest = RankingForest(splitting=splitting, n_estimators=2, subsample=0.5, n_threads=2, listwise_levels=2)
        forest.fit(data, predict_on=(data,))
        forest.predict(data)
    RankingForest(splitting="point", criterion="mse", n_estimators=1).fit(data)
    RankingForest(splitting="list", listwise_objective="err", n_estimators=1, subsample=0.5).fit(data)
    for splitting in ("point", "list", "hybrid", "rand"):  # thresholds: hist compiles its own kernels
        RankingForest(splitting=splitting, thresholds="hist", n_estimators=1, subsample=0.5, listwise_levels=2).fit(data)
    return time.perf_counter() - start


# -- benchmark 1: one RF-point tree vs one sklearn tree ----------------------------------------------


def bench1(args) -> dict:
    from sklearn.tree import DecisionTreeClassifier

    spec = mslr_spec(args.quick)
    data = load_mslr(args.cache_dir, spec, "train")
    repeats = args.repeats or (3 if args.quick else 5)
    make = dict(splitting="point", criterion="entropy", n_estimators=1, subsample=0.63, max_features=8,
                random_state=0, n_threads=1)
    rows = tree_rows(RankingForest(**make), data, 0)
    Xs = np.ascontiguousarray(data.X[rows])
    ys = data.labels[rows]
    presampled = data.subset_queries(np.unique(np.searchsorted(data.query_offsets, rows, side="right") - 1))
    assert presampled.n_docs == rows.size
    ours_fit, ours_kernel, pre_fit, pre_kernel, sk_fit = [], [], [], [], []
    leaves = {}
    for rep in range(repeats):
        # ours: the forest's own path (fit on all ~450k rows, sub-sampling 63% of the queries inside)
        forest = RankingForest(**make)
        with kernel_timer() as kt:
            elapsed, _ = timed(forest.fit, data)
        ours_fit.append(elapsed)
        ours_kernel.append(kt[0])
        tree = forest.trees_[0]
        assert int(tree.n_samples[0]) == rows.size, "query sample not reproduced"
        leaves["ours"] = tree.n_leaves
        leaves["ours_depth"] = int(tree.depth.max())
        del forest, tree
        # sklearn on exactly those rows
        clf = DecisionTreeClassifier(criterion="entropy", max_features=8, random_state=0)
        elapsed, _ = timed(clf.fit, Xs, ys)
        sk_fit.append(elapsed)
        leaves["sklearn"] = int(clf.get_n_leaves())
        leaves["sklearn_depth"] = int(clf.get_depth())
        del clf
        # ours on the pre-sampled rows (subsample=1.0): identical input to sklearn's
        forest = RankingForest(**{**make, "subsample": 1.0})
        with kernel_timer() as kt:
            elapsed, _ = timed(forest.fit, presampled)
        pre_fit.append(elapsed)
        pre_kernel.append(kt[0])
        leaves["ours_presampled"] = forest.trees_[0].n_leaves
        del forest
        gc.collect()
        print(f"  rep {rep + 1}/{repeats}: ours fit {ours_fit[-1]:.2f}s (kernel {ours_kernel[-1]:.2f}s), "
              f"sklearn {sk_fit[-1]:.2f}s, ours presampled {pre_fit[-1]:.2f}s", flush=True)
    return {
        "data": describe(data), "rows_per_tree": int(rows.size), "K": 8, "repeats": repeats,
        "ours_fit_s": ours_fit, "ours_kernel_s": ours_kernel, "ours_presampled_fit_s": pre_fit,
        "ours_presampled_kernel_s": pre_kernel, "sklearn_fit_s": sk_fit,
        "median": {"ours_fit_s": median(ours_fit), "ours_kernel_s": median(ours_kernel),
                   "ours_presampled_fit_s": median(pre_fit), "sklearn_fit_s": median(sk_fit)},
        "ratio_ours_fit_over_sklearn": median(ours_fit) / median(sk_fit),
        "ratio_ours_presampled_fit_over_sklearn": median(pre_fit) / median(sk_fit),
        "ratio_ours_kernel_over_sklearn": median(ours_kernel) / median(sk_fit),
        "leaves": leaves, "goal": "ours/sklearn <= 1.0",
    }


# -- benchmark 2: 500-tree forests on MQ2008, 2 threads ----------------------------------------------


def sklearn_forest(X, y, row_sets, seeds, K, n_jobs, backend):
    from joblib import Parallel, delayed
    from sklearn.tree import DecisionTreeClassifier

    def fit_one(rows, seed):
        return DecisionTreeClassifier(criterion="entropy", max_features=K, random_state=sklearn_seed(seed)).fit(
            X[rows], y[rows])

    return Parallel(n_jobs=n_jobs, backend=backend)(delayed(fit_one)(r, s) for r, s in zip(row_sets, seeds))


def bench2(args) -> dict:
    from joblib import Parallel, delayed

    train = load_mq2008(args.mq2008, "train")
    test = load_mq2008(args.mq2008, "test")
    n_trees = 100 if args.quick else 500
    repeats = args.repeats or (2 if args.quick else 3)
    make = dict(splitting="point", criterion="entropy", n_estimators=n_trees, subsample=0.63, random_state=0)
    template = RankingForest(**make)
    K = template._k(train.n_features)
    row_sets = [tree_rows(template, train, t) for t in range(n_trees)]  # untimed: a few ms
    seeds = template.tree_seeds()
    Parallel(n_jobs=2, backend="loky")(delayed(abs)(i) for i in range(4))  # start the loky workers (untimed)
    configs = [("ours_2threads", "ours", 2, None), ("sklearn_threading_2jobs", "sk", 2, "threading"),
               ("sklearn_loky_2jobs", "sk", 2, "loky"), ("ours_1thread", "ours", 1, None),
               ("sklearn_1job", "sk", 1, "sequential")]
    times = {name: [] for name, *_ in configs}
    ndcg = {}
    for rep in range(repeats):
        for name, who, jobs, backend in configs:
            gc.collect()
            if who == "ours":
                forest = RankingForest(**make, n_threads=jobs)
                elapsed, _ = timed(forest.fit, train)
                if rep == 0 and jobs == 2:
                    ndcg["ours"] = mean_ndcg10(forest.predict(test), test)
                    leaves_ours = float(np.mean([t.n_leaves for t in forest.trees_]))
            else:
                elapsed, trees = timed(sklearn_forest, train.X, train.labels, row_sets, seeds, K, jobs, backend)
                if rep == 0 and backend == "threading":
                    ndcg["sklearn"] = mean_ndcg10(sklearn_expected_relevance(trees, test.X), test)
                    leaves_sk = float(np.mean([t.get_n_leaves() for t in trees]))
            times[name].append(elapsed)
            print(f"  rep {rep + 1}/{repeats} {name}: {elapsed:.2f}s", flush=True)
    med = {name: median(v) for name, v in times.items()}
    return {
        "data": describe(train), "n_trees": n_trees, "K": K, "repeats": repeats, "times_s": times, "median_s": med,
        "ratio_ours2_over_sklearn_threading2": med["ours_2threads"] / med["sklearn_threading_2jobs"],
        "ratio_ours2_over_sklearn_loky2": med["ours_2threads"] / med["sklearn_loky_2jobs"],
        "ratio_ours1_over_sklearn1": med["ours_1thread"] / med["sklearn_1job"],
        "speedup_2_threads": {"ours": med["ours_1thread"] / med["ours_2threads"],
                              "sklearn_threading": med["sklearn_1job"] / med["sklearn_threading_2jobs"]},
        "mean_leaves_per_tree": {"ours": leaves_ours, "sklearn": leaves_sk},
        "test_mean_ndcg10": ndcg,
        "note": "sklearn forest = DecisionTreeClassifier(entropy, max_features=K) per tree on the same query "
                "samples as ours (X[rows] extracted inside each job); score = mean over trees of "
                "predict_proba @ classes (expected relevance, as ours)",
    }


# -- benchmark 3: RF-list vs RF-point per tree -------------------------------------------------------


def per_tree_pair(data, subsample, n_list, n_point, label, max_features=None, objective="ndcg"):
    """Interleave single-tree fits (random_state t) of RF-list (``listwise_objective=objective``) and RF-point;
    per-tree kernel times."""
    out = {"list_s": [], "point_s": [], "list_fit_s": [], "point_fit_s": [], "list_leaves": [], "point_leaves": []}
    for t in range(max(n_list, n_point)):
        for splitting, n in (("list", n_list), ("point", n_point)):
            if t >= n:
                continue
            gc.collect()
            forest = RankingForest(splitting=splitting, n_estimators=1, subsample=subsample,
                                   max_features=max_features, random_state=t,
                                   listwise_objective=objective if splitting == "list" else "ndcg")
            with kernel_timer() as kt:
                elapsed, _ = timed(forest.fit, data)
            out[f"{splitting}_s"].append(kt[0])
            out[f"{splitting}_fit_s"].append(elapsed)
            out[f"{splitting}_leaves"].append(forest.trees_[0].n_leaves)
            if splitting == "list":
                out.setdefault("rows_per_tree", []).append(int(forest.trees_[0].n_samples[0]))
            print(f"  {label} tree {t} {splitting}: {kt[0]:.3f}s ({forest.trees_[0].n_leaves} leaves)", flush=True)
    out["median_list_s"] = median(out["list_s"])
    out["median_point_s"] = median(out["point_s"])
    out["ratio_list_over_point"] = out["median_list_s"] / out["median_point_s"]
    return out


def run_child(args, task: dict, timeout: float) -> dict:
    """Run one task of this script in a fresh interpreter; returns its JSON result (or a timeout record)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--cache-dir", str(args.cache_dir),
           "--_child", json.dumps(task)]
    if args.quick:
        cmd.append("--quick")
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"timed_out": True, "timeout_s": timeout, "wall_s": time.perf_counter() - start}
    if proc.returncode != 0:
        raise RuntimeError(f"child {task} failed:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["wall_s"] = time.perf_counter() - start
    return result


def bench3(args) -> dict:
    out = {}
    quick = args.quick
    parts = set(args.parts.split(",")) if args.parts else {"a", "b", "c", "d"}
    # (a) MQ2008 Fold1 at 0.63
    if "a" in parts and (args.mq2008 / "train.txt").exists():
        mq = load_mq2008(args.mq2008, "train")
        n = 5 if quick else 9
        out["a_mq2008_0.63"] = {"data": describe(mq), **per_tree_pair(mq, 0.63, n, n, "3a")}
    spec = mslr_spec(quick)
    if parts & {"b", "d"}:
        # (b) MSLR-shaped, all 6,000 queries, at 0.05
        data = load_mslr(args.cache_dir, spec, "all")
        n_list = args.repeats or (2 if quick else 3)
        out["b_mslr_0.05"] = {"data": describe(data), "rows_per_tree_approx": int(round(0.05 * data.n_docs)),
                              **per_tree_pair(data, 0.05, n_list, max(n_list, 5), "3b")}
    if "d" in parts:
        # (d) depth profile of RF-list at 0.05 (tree 0 truncated at max_depth d; BFS growth makes
        #     a truncated tree identical to the top of the full one, so differences are per-level costs)
        depths = [2, 4, 6, 8, 10, 12, 14, 16, 20] if not quick else [2, 4, 8, 12]
        profile = []
        for splitting in ("list", "point"):
            previous = 0.0
            for d in depths:
                forest = RankingForest(splitting=splitting, n_estimators=1, subsample=0.05, max_depth=d,
                                       random_state=0)
                with kernel_timer() as kt:
                    forest.fit(data)
                tree = forest.trees_[0]
                profile.append({"splitting": splitting, "max_depth": d, "kernel_s": kt[0],
                                "increment_s": kt[0] - previous, "leaves": tree.n_leaves,
                                "split_nodes": int(np.count_nonzero(tree.feature >= 0))})
                previous = kt[0]
                print(f"  3d {splitting} max_depth {d}: {kt[0]:.2f}s, {tree.n_leaves} leaves", flush=True)
        full = {"list": out["b_mslr_0.05"]["list_s"][0], "point": out["b_mslr_0.05"]["point_s"][0]}
        for splitting in ("list", "point"):
            previous = [p for p in profile if p["splitting"] == splitting][-1]["kernel_s"]
            profile.append({"splitting": splitting, "max_depth": None, "kernel_s": full[splitting],
                            "increment_s": full[splitting] - previous,
                            "leaves": out["b_mslr_0.05"][f"{splitting}_leaves"][0], "split_nodes": None})
        out["d_depth_profile_mslr_0.05"] = profile
    if parts & {"b", "d"}:
        del data
        gc.collect()
    if "c" in parts:
        # (c) one full-depth RF-list tree (tree 0) on MSLR-450k at growing subsamples, each in a fresh
        #     child process with a hard timeout of twice the budget; stop once a tree exceeds the budget
        ladder = []
        budget = args.list_budget
        for subsample in [float(x) for x in args.ladder.split(",")]:
            result = run_child(args, {"task": "list_tree", "subsample": subsample}, timeout=budget * 2)
            result["subsample"] = subsample
            ladder.append(result)
            r = ladder[-1]
            if r.get("timed_out"):
                print(f"  3c list subsample {subsample}: killed after {r['timeout_s']:.0f}s", flush=True)
                break
            print(f"  3c list subsample {subsample}: {r['kernel_s']:.1f}s (CPU {r['kernel_cpu_s']:.1f}s; "
                  f"{r['rows']} rows, {r['leaves']} leaves, depth {r['depth']}; load {r['load_before']} -> "
                  f"{r['load_after']})", flush=True)
            if r["kernel_s"] > budget:
                break
        finished = [r for r in ladder if not r.get("timed_out")]
        out["c_list_reach_mslr450k"] = {
            "data": "MSLR-450k (first 3,750 MSLR-shaped queries)", "budget_s": budget,
            "hard_timeout_s": budget * 2, "ladder": ladder,
            "largest_finished": finished[-1]["subsample"] if finished else None,
            "largest_finished_s": finished[-1]["kernel_s"] if finished else None}
    out["goal"] = "list/point <= 10"
    return out


def child_list_tree(args, task) -> dict:
    """One full-depth RF-list tree (tree 0, single thread) on MSLR-450k (task "part": "all" for every MSLR-shaped
    query; "thresholds": "hist" for the histogram engine): wall and CPU time of build_tree."""
    data = load_mslr(args.cache_dir, mslr_spec(args.quick), task.get("part", "train"))
    warm_up()
    forest = RankingForest(splitting="list", n_estimators=1, subsample=task["subsample"], random_state=0,
                           thresholds=task.get("thresholds", "exact"))
    original = forest_module.build_tree
    cpu = []

    def cpu_timed(*a):
        start = time.process_time()
        result = original(*a)
        cpu.append(time.process_time() - start)
        return result

    before = load_average()
    forest_module.build_tree = cpu_timed
    try:
        with kernel_timer() as kt:
            elapsed, _ = timed(forest.fit, data)
    finally:
        forest_module.build_tree = original
    tree = forest.trees_[0]
    return {"kernel_s": kt[0], "kernel_cpu_s": cpu[0], "fit_s": elapsed, "leaves": tree.n_leaves,
            "depth": int(tree.depth.max()), "rows": int(tree.n_samples[0]),
            "peak_rss_MB": proc_status_kb("VmHWM") / 1024, "load_before": before, "load_after": load_average()}


def hybrid_vs_point_trees(data, n: int, label: str) -> tuple[dict, dict]:
    """Per-tree kernel seconds and leaf counts of RF-hybrid-L6 and RF-point at 0.63, alternating, n trees each."""
    times = {"hybrid": [], "point": []}
    leaves = {"hybrid": [], "point": []}
    for t in range(n):
        for splitting in ("hybrid", "point"):
            gc.collect()
            forest = RankingForest(splitting=splitting, listwise_levels=6, n_estimators=1, subsample=0.63,
                                   random_state=t)
            with kernel_timer() as kt:
                forest.fit(data)
            times[splitting].append(kt[0])
            leaves[splitting].append(forest.trees_[0].n_leaves)
            print(f"  {label} tree {t} {splitting}: {kt[0]:.2f}s ({leaves[splitting][-1]} leaves)", flush=True)
    return times, leaves


# -- benchmark 4: RF-hybrid-L6 vs RF-point -----------------------------------------------------------


def bench4(args) -> dict:
    data = load_mslr(args.cache_dir, mslr_spec(args.quick), "train")
    n = args.repeats or (2 if args.quick else 3)
    times, leaves = hybrid_vs_point_trees(data, n, "4")
    # profile: the top 1..6 levels of tree 0 (listwise for hybrid, pointwise for point)
    profile = []
    for splitting in ("hybrid", "point"):
        previous = 0.0
        for d in range(1, 7):
            forest = RankingForest(splitting=splitting, listwise_levels=6, n_estimators=1, subsample=0.63,
                                   max_depth=d, random_state=0)
            with kernel_timer() as kt:
                forest.fit(data)
            profile.append({"splitting": splitting, "max_depth": d, "kernel_s": kt[0], "level_s": kt[0] - previous})
            previous = kt[0]
        print(f"  4 profile {splitting}: top 6 levels {previous:.2f}s", flush=True)
    top6 = {p["splitting"]: p["kernel_s"] for p in profile if p["max_depth"] == 6}
    med = {k: median(v) for k, v in times.items()}
    return {
        "data": describe(data), "K": RankingForest()._k(data.n_features), "trees": n, "per_tree_s": times,
        "median_s": med, "ratio_hybrid_over_point": med["hybrid"] / med["point"], "leaves": leaves,
        "level_profile": profile,
        "top6_levels_s": top6,
        "below_level6_s_tree0": {k: times[k][0] - top6[k] for k in times},
        "goal": "hybrid/point <= 3",
    }


# -- benchmark 6: the listwise cost ratios only (the issue-12 targets) -------------------------------


def bench6(args) -> dict:
    """RF-list / RF-point per tree on MQ2008 Fold1 at 0.63 and on MSLR-shaped data at 0.05, and
    RF-hybrid-L6 / RF-point per tree on MSLR-450k at 0.63: 3a, 3b and 4 without 3c/3d and profiles;
    and RF-list with ``listwise_objective="err"`` / RF-point per tree on MQ2008 Fold1 at 0.63 (d) and on
    MSLR-shaped data at 0.01 (e; an ERR tree at 0.05 takes minutes); RF-hybrid-L6 / RF-point on MQ2008 Fold1 at
    0.63 (f, 15 trees each).

    Each pair is alternated tree by tree in one run; medians of the build_tree times.
    """
    out = {}
    quick = args.quick
    parts = set(args.parts.split(",")) if args.parts else {"a", "b", "c", "d", "e", "f"}
    for part, objective in (("a", "ndcg"), ("d", "err")):
        if part in parts and (args.mq2008 / "train.txt").exists():
            mq = load_mq2008(args.mq2008, "train")
            n = args.repeats or (5 if quick else 9)
            out[f"{part}_mq2008_0.63" + ("_err" if objective == "err" else "")] = {
                "data": describe(mq), **per_tree_pair(mq, 0.63, n, n, f"6{part}", objective=objective)}
        elif part in parts:
            print(f"  6{part}: MQ2008 not found at {args.mq2008}; skipped", flush=True)
    spec = mslr_spec(quick)
    for part, objective, subsample in (("b", "ndcg", 0.05), ("e", "err", 0.01)):
        if part in parts:
            data = load_mslr(args.cache_dir, spec, "all")
            n_list = args.repeats or (2 if quick else 3)
            out[f"{part}_mslr_{subsample}" + ("_err" if objective == "err" else "")] = {
                "data": describe(data),
                **per_tree_pair(data, subsample, n_list, max(n_list, 5), f"6{part}", objective=objective)}
            del data
            gc.collect()
    if "f" in parts and (args.mq2008 / "train.txt").exists():  # the hybrid ratio on MQ2008 (issue 30's setting)
        mq = load_mq2008(args.mq2008, "train")
        times, leaves = hybrid_vs_point_trees(mq, args.repeats or 15, "6f")
        med = {k: median(v) for k, v in times.items()}
        out["f_hybrid_mq2008_0.63"] = {"data": describe(mq), "per_tree_s": times, "median_s": med,
                                       "ratio_hybrid_over_point": med["hybrid"] / med["point"], "leaves": leaves}
    out["goal"] = "list/point <= 15 (MQ2008 0.63), <= 40 (MSLR 0.05); hybrid-L6/point <= 2.0"
    if "c" not in parts:
        return out
    data = load_mslr(args.cache_dir, spec, "train")
    n = args.repeats or (2 if quick else 3)
    times, leaves = hybrid_vs_point_trees(data, n, "6c")
    med = {k: median(v) for k, v in times.items()}
    out["c_hybrid_mslr450k_0.63"] = {"data": describe(data), "per_tree_s": times, "median_s": med,
                                      "ratio_hybrid_over_point": med["hybrid"] / med["point"], "leaves": leaves}
    return out


# -- benchmark 5: peak memory and prediction throughput ----------------------------------------------

MEMORY_LEARNERS = [
    ("RF-point", {"splitting": "point", "subsample": 0.63}),
    ("RF-hybrid-L6", {"splitting": "hybrid", "subsample": 0.63}),
    ("RF-rand", {"splitting": "rand", "subsample": 0.63}),
    ("RF-list (subsample 0.05)", {"splitting": "list", "subsample": 0.05}),
    ("sklearn DecisionTreeClassifier", {"splitting": "sklearn", "subsample": 0.63}),
]


def child_memory(args, task) -> dict:
    """One fit of one learner on MSLR-450k; RSS high-water delta or tracemalloc peak around the fit."""
    from sklearn.tree import DecisionTreeClassifier

    data = load_mslr(args.cache_dir, mslr_spec(args.quick), "train")
    warm_up()
    splitting = task["splitting"]
    forest = RankingForest(splitting="point" if splitting == "sklearn" else splitting, n_estimators=1,
                           subsample=task["subsample"], max_features=8, random_state=0)
    if splitting == "sklearn":
        rows = tree_rows(forest, data, 0)
        Xs = np.ascontiguousarray(data.X[rows])
        ys = data.labels[rows]
        DecisionTreeClassifier(criterion="entropy", max_features=8).fit(Xs[:1000], ys[:1000])  # warm
        input_bytes = Xs.nbytes + ys.nbytes
        del data

        def fit():
            return DecisionTreeClassifier(criterion="entropy", max_features=8, random_state=0).fit(Xs, ys)
    else:
        input_bytes = data.X.nbytes + data.labels.nbytes

        def fit():
            return forest.fit(data)
    gc.collect()
    out = {"input_MB": input_bytes / 2**20}
    if task["mode"] == "tracemalloc":
        tracemalloc.start()
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        elapsed, _ = timed(fit)
        out["tracemalloc_peak_MB"] = (tracemalloc.get_traced_memory()[1] - base) / 2**20
        tracemalloc.stop()
    else:
        rss_before = proc_status_kb("VmRSS")
        reset = reset_peak_rss()
        elapsed, model = timed(fit)
        out["rss_before_MB"] = rss_before / 1024
        out["peak_rss_delta_MB"] = (proc_status_kb("VmHWM") - rss_before) / 1024 if reset else None
        out["peak_rss_MB"] = proc_status_kb("VmHWM") / 1024  # of this child (VmHWM; ru_maxrss would include
        # the parent's peak at fork time)
        out["hwm_reset"] = reset
        if splitting == "sklearn":
            out["model_MB"] = model_bytes_sklearn([model]) / 2**20
        else:
            out["model_MB"] = model_bytes_ours(model) / 2**20
            out["rows"] = int(model.trees_[0].n_samples[0])
    out["fit_s"] = elapsed
    return out


def bench5(args) -> dict:
    out = {"memory": {}}
    for name, learner in MEMORY_LEARNERS:
        record = {}
        for mode in ("rss", "tracemalloc"):
            record.update(run_child(args, {"task": "memory", "mode": mode, **learner}, timeout=1800))
        record.pop("wall_s", None)
        out["memory"][name] = record
        print(f"  5 memory {name}: peak RSS delta {record.get('peak_rss_delta_MB', float('nan')):.0f} MB, "
              f"tracemalloc peak {record['tracemalloc_peak_MB']:.0f} MB, input {record['input_MB']:.0f} MB, "
              f"fit {record['fit_s']:.1f}s", flush=True)
    # throughput of 100-tree forests on held-out rows
    spec = mslr_spec(args.quick)
    train = load_mslr(args.cache_dir, spec, "train")
    test = load_mslr(args.cache_dir, spec, "test")
    n_trees = 10 if args.quick else 100
    make = dict(splitting="point", n_estimators=n_trees, subsample=0.63, max_features=8, random_state=0)
    forest = RankingForest(**make, n_threads=2)
    fit_ours, _ = timed(forest.fit, train)
    print(f"  5 fit {n_trees}-tree RF-point (2 threads): {fit_ours:.1f}s", flush=True)
    row_sets = [tree_rows(forest, train, t) for t in range(n_trees)]
    fit_sk, trees = timed(sklearn_forest, train.X, train.labels, row_sets, forest.tree_seeds(), 8, 2, "threading")
    del row_sets
    print(f"  5 fit {n_trees} sklearn trees (joblib threading, 2 jobs): {fit_sk:.1f}s", flush=True)
    repeats = args.repeats or (3 if args.quick else 5)
    t_ours, t_sk = [], []
    for rep in range(repeats):
        elapsed, scores_ours = timed(forest.predict, test)
        t_ours.append(elapsed)
        elapsed, scores_sk = timed(sklearn_expected_relevance, trees, test.X)
        t_sk.append(elapsed)
        print(f"  5 predict rep {rep + 1}: ours {t_ours[-1]:.2f}s, sklearn {t_sk[-1]:.2f}s", flush=True)
    out["throughput"] = {
        "train": describe(train), "test": describe(test), "n_trees": n_trees, "K": 8, "repeats": repeats,
        "fit_s": {"ours_2threads": fit_ours, "sklearn_threading_2jobs": fit_sk},
        "predict_s": {"ours": t_ours, "sklearn": t_sk},
        "median_predict_s": {"ours": median(t_ours), "sklearn": median(t_sk)},
        "rows_per_s": {"ours": test.n_docs / median(t_ours), "sklearn": test.n_docs / median(t_sk)},
        "ratio_throughput_ours_over_sklearn": median(t_sk) / median(t_ours),
        "mean_leaves_per_tree": {"ours": float(np.mean([t.n_leaves for t in forest.trees_])),
                                 "sklearn": float(np.mean([t.get_n_leaves() for t in trees]))},
        "model_MB": {"ours": model_bytes_ours(forest) / 2**20, "sklearn": model_bytes_sklearn(trees) / 2**20},
        "test_mean_ndcg10": {"ours": mean_ndcg10(scores_ours, test), "sklearn": mean_ndcg10(scores_sk, test)},
        "note": "sklearn side: a list of DecisionTreeClassifier (entropy, max_features=8) fitted on the same "
                "query samples; prediction = mean over trees of predict_proba @ classes, single thread, "
                "as ours (RankingForest.predict is single-threaded)",
    }
    return out


# -- benchmark 7: RF-point vs the forests a user would pick instead -----------------------------------


def letor4_means(data: RankingData, scores) -> dict[str, float]:
    """Test NDCG@10 and MAP as the workflow's evaluate rule computes them (per_query_table, LETOR-4
    convention, ties in input order), averaged over queries as tables.py / `ltrbv evaluate` do."""
    from ltrbv.evaluation import per_query_table

    table = per_query_table(data, np.asarray(scores, dtype=np.float64), ["ndcg@10", "map"], ["letor4"])
    return {k: float(v) for k, v in table.groupby("metric")["value"].mean().items()}


def set_omp_wait_policy(policy: str) -> dict:
    """Set OMP_WAIT_POLICY before XGBoost / LightGBM load libgomp (it is read once, at load time)."""
    with open("/proc/self/maps") as f:
        gomp_loaded = "libgomp" in f.read()
    if policy.lower() != "keep" and "OMP_WAIT_POLICY" not in os.environ:
        os.environ["OMP_WAIT_POLICY"] = policy
    return {"OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "(unset: runtime default, active spinning)"),
            "libgomp_loaded_before": gomp_loaded}


def peer_forests(n_trees: int, K: int, M: int, threads: int) -> dict:
    """name -> (settings, make(seed) -> (fit(train) -> model, score(model, X) -> scores, leaves(model)))."""

    def ours(criterion):
        def make(seed):
            forest = RankingForest(splitting="point", criterion=criterion, n_estimators=n_trees,
                                   random_state=seed, n_threads=threads)
            return (lambda tr: forest.fit(tr), lambda m, X: m.predict(X),
                    lambda m: [t.n_leaves for t in m.trees_])
        return make

    def sk_classifier(seed):
        from sklearn.ensemble import RandomForestClassifier

        model = RandomForestClassifier(n_estimators=n_trees, criterion="entropy", max_features=K, n_jobs=threads,
                                       random_state=seed)
        return (lambda tr: model.fit(tr.X, tr.labels), lambda m, X: m.predict_proba(X) @ m.classes_.astype(float),
                lambda m: [e.get_n_leaves() for e in m.estimators_])

    def sk_regressor(seed):
        from sklearn.ensemble import RandomForestRegressor

        model = RandomForestRegressor(n_estimators=n_trees, max_features=K, n_jobs=threads, random_state=seed)
        return (lambda tr: model.fit(tr.X, tr.labels.astype(np.float64)), lambda m, X: m.predict(X),
                lambda m: [e.get_n_leaves() for e in m.estimators_])

    def xgb_rf(seed):
        import xgboost

        model = xgboost.XGBRFRegressor(n_estimators=n_trees, subsample=0.63, colsample_bynode=K / M,
                                       tree_method="hist", grow_policy="lossguide", max_depth=0, max_leaves=0,
                                       min_child_weight=1.0, n_jobs=threads, random_state=seed)

        def leaves(m):
            df = m.get_booster().trees_to_dataframe()
            return df[df.Feature == "Leaf"].groupby("Tree").size().tolist()
        return (lambda tr: model.fit(tr.X, tr.labels.astype(np.float32)), lambda m, X: m.predict(X), leaves)

    def lgb_rf(seed):
        import lightgbm

        model = lightgbm.LGBMRegressor(boosting_type="rf", n_estimators=n_trees, subsample=0.63, subsample_freq=1,
                                       feature_fraction_bynode=K / M, num_leaves=LGB_NUM_LEAVES, max_depth=-1,
                                       min_child_samples=1, min_child_weight=0.0, reg_lambda=0.0, n_jobs=threads,
                                       random_state=seed, verbose=-1)
        return (lambda tr: model.fit(tr.X, tr.labels.astype(np.float64)), lambda m, X: m.predict(X),
                lambda m: [t["num_leaves"] for t in m.booster_.dump_model()["tree_info"]])

    q = "63% of the queries per tree without replacement"
    return {
        "ltrbv RF-point (entropy)": (
            (f"RankingForest(splitting='point') defaults: criterion entropy, {q}, K = floor(log2 M)+1 = {K}, "
             "unpruned; score = expected relevance"), ours("entropy")),
        "ltrbv RF-point (mse)": ("as above with criterion='mse' (leaf = mean label)", ours("mse")),
        "sklearn RandomForestClassifier": (
            (f"criterion='entropy', max_features={K}, bootstrap (n documents with replacement, ~63.2% distinct), "
             "unpruned; score = predict_proba @ classes (expected relevance)"), sk_classifier),
        "sklearn RandomForestRegressor": (
            f"criterion='squared_error', max_features={K}, bootstrap (n documents with replacement), unpruned",
            sk_regressor),
        "XGBoost XGBRFRegressor": (
            (f"subsample=0.63 (documents, without replacement), colsample_bynode={K}/{M}, tree_method='hist' "
             "(256 bins), grow_policy='lossguide', max_depth=0, max_leaves=0 (unlimited), min_child_weight=1, "
             "reg_lambda=1e-5 (XGBRF default), learning_rate=1"), xgb_rf),
        "LightGBM boosting=rf": (
            ("bagging_fraction=0.63, bagging_freq=1 (documents, without replacement), "
             f"feature_fraction_bynode={K}/{M}, num_leaves={LGB_NUM_LEAVES}, max_depth=-1, min_data_in_leaf=1, "
             "min_sum_hessian_in_leaf=0, lambda_l2=0, max_bin=255 (default)"), lgb_rf),
    }


LGB_NUM_LEAVES = 4096  # above any tree's leaf count on MQ2008 Fold1 (checked: the run reports the maximum);
# LightGBM's per-tree cost grows with num_leaves (buffers sized by it), so "131072" would only add time


def bench7(args) -> dict:
    omp = set_omp_wait_policy(args.omp_wait_policy)
    import lightgbm
    import sklearn
    import xgboost

    train = load_mq2008(args.mq2008, "train")
    test = load_mq2008(args.mq2008, "test")
    n_trees = 50 if args.quick else 500
    repeats = args.repeats or (2 if args.quick else 3)
    threads = args.threads
    M = train.n_features
    K = RankingForest()._k(M)
    peers = peer_forests(n_trees, K, M, threads)
    # warm every library once (untimed): OpenMP pools, joblib threads, numba kernels are already loaded
    small = train.subset_queries(np.arange(20))
    for _, make in peers.values():
        fit, score, _ = make(0)
        score(fit(small), small.X[:10])
    names = list(peers)
    fit_s = {n: [] for n in names}
    fit_cpu_s = {n: [] for n in names}
    predict_s = {n: [] for n in names}
    metrics = {n: [] for n in names}
    leaves = {n: [] for n in names}
    for rep in range(repeats):
        order = names[rep % len(names):] + names[:rep % len(names)]  # rotate who goes first
        for name in order:
            gc.collect()
            fit, score, n_leaves = peers[name][1](rep)
            cpu_start = time.process_time()
            elapsed, model = timed(fit, train)
            fit_cpu_s[name].append(time.process_time() - cpu_start)
            p_elapsed, scores = timed(score, model, test.X)
            fit_s[name].append(elapsed)
            predict_s[name].append(p_elapsed)
            metrics[name].append(letor4_means(test, scores))
            lv = n_leaves(model)
            leaves[name].append({"mean": float(np.mean(lv)), "max": int(np.max(lv))})
            print(f"  rep {rep + 1}/{repeats} {name}: fit {elapsed:.2f}s (CPU {fit_cpu_s[name][-1]:.2f}s), "
                  f"predict {p_elapsed:.2f}s, "
                  f"NDCG@10 {metrics[name][-1]['ndcg@10']:.4f}, MAP {metrics[name][-1]['map']:.4f}, "
                  f"leaves/tree {np.mean(lv):.0f} (max {np.max(lv)}), load {load_average()[0]}", flush=True)
            del model
    med = {n: median(v) for n, v in fit_s.items()}
    ours = med[names[0]]
    lgb_max = max(r["max"] for r in leaves["LightGBM boosting=rf"])
    return {
        "train": describe(train), "test": describe(test), "n_trees": n_trees, "threads": threads, "K": K,
        "repeats": repeats, "seeds": list(range(repeats)), "omp": omp,
        "versions": {"sklearn": sklearn.__version__, "xgboost": xgboost.__version__,
                     "lightgbm": lightgbm.__version__},
        "settings": {n: peers[n][0] for n in names},
        "fit_s": fit_s, "fit_cpu_s": fit_cpu_s, "predict_s": predict_s, "median_fit_s": med,
        "median_fit_cpu_s": {n: median(v) for n, v in fit_cpu_s.items()},
        "ratio_ltrbv_over_peer_cpu": {n: median(fit_cpu_s[names[0]]) / median(fit_cpu_s[n]) for n in names},
        "median_predict_s": {n: median(v) for n, v in predict_s.items()},
        "ratio_ltrbv_over_peer": {n: ours / med[n] for n in names},
        "metrics": metrics,
        "metrics_mean": {n: {k: float(np.mean([m[k] for m in metrics[n]])) for k in ("ndcg@10", "map")}
                         for n in names},
        "metrics_sd": {n: {k: float(np.std([m[k] for m in metrics[n]], ddof=1)) if repeats > 1 else None
                           for k in ("ndcg@10", "map")} for n in names},
        "leaves_per_tree": leaves,
        "lightgbm_num_leaves_cap_reached": lgb_max >= LGB_NUM_LEAVES,
        "note": "fit CPU = process CPU seconds over the fit call (all threads; OMP_WAIT_POLICY=PASSIVE keeps "
                "idle OpenMP threads from spinning), less sensitive to the machine's other load than wall time; "
                "repeat r uses seed r for every forest; each forest draws its own samples (ours: queries; sklearn: "
                "bootstrap documents; XGBoost/LightGBM: 63% of the documents); fit time = the library's fit call on "
                "the parsed train.txt (including its own binning / data structures); metrics: "
                "ltrbv.evaluation.per_query_table(..., ['letor4']) averaged over the 156 test queries",
    }


# -- summary -----------------------------------------------------------------------------------------


def summary_rows(results: dict) -> list[tuple[str, str, str, str, str]]:
    rows = []
    b = results.get("1")
    if b:
        m = b["median"]
        rows.append(("1 RF-point tree, MSLR-450k, 63%, K=8 (fit s)", f"{m['ours_fit_s']:.2f}",
                     f"{m['sklearn_fit_s']:.2f}", f"{b['ratio_ours_fit_over_sklearn']:.2f}", "<= 1.0"))
        rows.append(("  same, ours on pre-sampled rows", f"{m['ours_presampled_fit_s']:.2f}",
                     f"{m['sklearn_fit_s']:.2f}", f"{b['ratio_ours_presampled_fit_over_sklearn']:.2f}", ""))
        lv = b["leaves"]
        rows.append(("  leaves (depth)", f"{lv['ours']} ({lv['ours_depth']})",
                     f"{lv['sklearn']} ({lv['sklearn_depth']})", "", ""))
    b = results.get("2")
    if b:
        m = b["median_s"]
        rows.append((f"2 {b['n_trees']}-tree RF-point, MQ2008, 2 threads (s)", f"{m['ours_2threads']:.2f}",
                     f"{m['sklearn_threading_2jobs']:.2f} thr", f"{b['ratio_ours2_over_sklearn_threading2']:.2f}", ""))
        rows.append(("  vs joblib loky, 2 jobs", f"{m['ours_2threads']:.2f}", f"{m['sklearn_loky_2jobs']:.2f}",
                     f"{b['ratio_ours2_over_sklearn_loky2']:.2f}", ""))
        rows.append(("  single thread", f"{m['ours_1thread']:.2f}", f"{m['sklearn_1job']:.2f}",
                     f"{b['ratio_ours1_over_sklearn1']:.2f}", ""))
    b = results.get("3")
    if b:
        for key, label in (("a_mq2008_0.63", "3a list vs point/tree, MQ2008, 0.63 (s)"),
                           ("b_mslr_0.05", "3b list vs point/tree, MSLR 6k q, 0.05 (s)")):
            if key in b:
                r = b[key]
                rows.append((label, f"{r['median_list_s']:.3f}", f"{r['median_point_s']:.3f}",
                             f"{r['ratio_list_over_point']:.1f}", "<= 10"))
        for key, label in (("c_list_reach_mslr", "MSLR 6k q"), ("c_list_reach_mslr450k", "MSLR-450k")):
            for r in b.get(key, {}).get("ladder", []):
                if r.get("timed_out"):
                    t = f">{r['timeout_s']:.0f} (killed)"
                else:
                    t = f"{r['kernel_s']:.1f}" + (f" ({r['leaves']} leaves, depth {r['depth']})" if "depth" in r else "")
                rows.append((f"3c one RF-list tree, {label}, subsample {r['subsample']}", t, "", "", ""))
    b = results.get("4")
    if b:
        m = b["median_s"]
        rows.append(("4 hybrid-L6 vs point/tree, MSLR-450k, 0.63 (s)", f"{m['hybrid']:.2f}", f"{m['point']:.2f}",
                     f"{b['ratio_hybrid_over_point']:.2f}", "<= 3"))
    b = results.get("6")
    if b:
        for key, label, goal in (("a_mq2008_0.63", "6a list vs point/tree, MQ2008, 0.63 (s)", "<= 15"),
                                 ("b_mslr_0.05", "6b list vs point/tree, MSLR 6k q, 0.05 (s)", "<= 40"),
                                 ("d_mq2008_0.63_err", "6d list-ERR vs point/tree, MQ2008, 0.63 (s)", ""),
                                 ("e_mslr_0.01_err", "6e list-ERR vs point/tree, MSLR 6k q, 0.01 (s)", "")):
            if key in b:
                r = b[key]
                rows.append((label, f"{r['median_list_s']:.3f}", f"{r['median_point_s']:.3f}",
                             f"{r['ratio_list_over_point']:.1f}", goal))
        r = b.get("c_hybrid_mslr450k_0.63")
        if r:
            rows.append(("6c hybrid-L6 vs point/tree, MSLR-450k, 0.63 (s)", f"{r['median_s']['hybrid']:.2f}",
                         f"{r['median_s']['point']:.2f}", f"{r['ratio_hybrid_over_point']:.2f}", "<= 2.0"))
        r = b.get("f_hybrid_mq2008_0.63")
        if r:
            rows.append(("6f hybrid-L6 vs point/tree, MQ2008 Fold1, 0.63 (s)", f"{r['median_s']['hybrid']:.3f}",
                         f"{r['median_s']['point']:.3f}", f"{r['ratio_hybrid_over_point']:.2f}", "<= 2.0"))
    b = results.get("7")
    if b:
        for name in b["settings"]:
            m = b["metrics_mean"][name]
            cpu = b.get("median_fit_cpu_s")
            ours_name = next(iter(b["settings"]))
            rows.append((f"7 {b['n_trees']} trees, MQ2008, {b['threads']} thr: {name} "
                         "(fit s [CPU s] / NDCG@10 / MAP)",
                         f"{b['median_fit_s'][ours_name]:.2f}" + (f" [{cpu[ours_name]:.2f}]" if cpu else ""),
                         f"{b['median_fit_s'][name]:.2f}" + (f" [{cpu[name]:.2f}]" if cpu else "")
                         + f" / {m['ndcg@10']:.4f} / {m['map']:.4f}",
                         f"{b['ratio_ltrbv_over_peer'][name]:.2f}"
                         + (f" [{b['ratio_ltrbv_over_peer_cpu'][name]:.2f}]" if cpu else ""), ""))
    b = results.get("5")
    if b:
        for name, r in b["memory"].items():
            delta = r.get("peak_rss_delta_MB")
            rows.append((f"5 fit peak RSS delta / tracemalloc MB: {name}",
                         f"{delta:.0f}" if delta is not None else "n/a", f"{r['tracemalloc_peak_MB']:.0f}", "",
                         ""))
        t = b.get("throughput")
        if t:
            rows.append((f"5 predict {t['n_trees']} trees, rows/s", f"{t['rows_per_s']['ours']:.3g}",
                         f"{t['rows_per_s']['sklearn']:.3g}", f"{t['ratio_throughput_ours_over_sklearn']:.2f}",
                         "(ours/sk speed)"))
    b = results.get("8")
    if b:
        a = b.get("a_point_mslr450k")
        if a:
            m = a["median_cpu_s"]
            rows.append(("8a RF-point tree, MSLR-450k, 63%: hist vs exact (CPU-s)", f"{m['hist']:.2f}",
                         f"{m['exact']:.2f}", f"{a['ratio_hist_over_exact']:.2f}", "<= 0.4"))
            rows.append(("  hist vs scikit-learn", f"{m['hist']:.2f}", f"{m['sklearn']:.2f}",
                         f"{a['ratio_hist_over_sklearn']:.2f}", "<= 0.3"))
            rows.append(("  hist binning per forest (CPU-s)", f"{a['hist_binning_cpu_s_per_forest']:.2f}", "", "", ""))
        lst = b.get("b_list_mslr_all")
        if lst:
            for r in lst["runs"]:
                t = f">{r['timeout_s']:.0f} (killed)" if r.get("timed_out") else f"{r['kernel_cpu_s']:.1f}"
                rows.append((f"8b RF-list tree, MSLR 6k q, {r['thresholds']} at {r['subsample']} (CPU-s)", t, "", "",
                             "<= 15" if r["subsample"] > 0.5 else ""))
        acc = b.get("c_accuracy_mq2008")
        if acc:
            for splitting in ("point", "list"):
                mh, me = acc["mean"][f"{splitting}_hist"], acc["mean"][f"{splitting}_exact"]
                rows.append((f"8c MQ2008 NDCG@10 RF-{splitting}, hist vs exact (3 seeds)", f"{mh:.4f}", f"{me:.4f}",
                             f"{mh - me:+.4f}", f"sd {acc['seed_sd'][f'{splitting}_exact']:.4f}"))
        print(f"[8] CPU SIMD flags: {' '.join(b['simd_flags'])}; load {b['load_start']} -> {b['load_end']}")
    return rows


def print_summary(results: dict) -> None:
    rows = summary_rows(results)
    header = ("benchmark", "ours", "peer", "ratio", "goal")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(5)]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths))
    print("\n" + line + "\n" + "-" * len(line))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    cpu = cpu_description()
    wide = [f for f in cpu["simd"] if f.startswith(("AVX", "FMA"))]
    print(f"CPU: {cpu['model']}; SIMD (numpy): {' '.join(wide) or 'no AVX'}"
          f"{'; disabled: ' + cpu['npy_disabled'] if cpu['npy_disabled'] else ''}; numba compiles for {cpu['numba_cpu']}")
    for key, value in results.items():
        print(f"[{key}] load average before {value['load_before']} after {value['load_after']}, "
              f"took {value['duration_s']:.0f}s{' (quick)' if value['quick'] else ''}")


# -- benchmark 8: thresholds hist vs exact vs scikit-learn ---------------------------------------------


def simd_flags() -> list[str]:
    """The CPU's SIMD flags as /proc/cpuinfo lists them (sse4_2, avx, avx2, fma, avx512*)."""
    try:
        with open("/proc/cpuinfo") as handle:
            flags = next((line.split(":", 1)[1].split() for line in handle if line.startswith("flags")), [])
    except OSError:
        return []
    return sorted(f for f in flags if f.startswith(("avx", "sse4", "fma")))


@contextlib.contextmanager
def kernel_cpu_timer():
    """Wall and CPU seconds (of the calling thread) of every build_tree call made by RankingForest.fit."""
    original = forest_module.build_tree
    record: list[tuple[float, float]] = []

    def wrapper(*a):
        wall, cpu = time.perf_counter(), time.thread_time()
        out = original(*a)
        record.append((time.perf_counter() - wall, time.thread_time() - cpu))
        return out

    forest_module.build_tree = wrapper
    try:
        yield record
    finally:
        forest_module.build_tree = original


def bench8(args) -> dict:
    """thresholds hist vs exact (vs scikit-learn) per tree, and hist's accuracy on MQ2008 (issue 30).

    a. RF-point (entropy, K = 8, one thread) on bench 1's MSLR-450k at 63%: exact, hist and scikit-learn's
       DecisionTreeClassifier on exactly the tree's rows, alternated; per-tree CPU seconds of the compiled
       build_tree call (thread CPU time) and sklearn's fit; hist's one-off binning per forest reported apart.
    b. RF-list per tree on every MSLR-shaped query (6,000, ~717k rows: MSLR-WEB10K-sized) in child processes
       with a hard timeout: hist at 0.63 (goal <= 15 CPU-s), and hist vs exact at 0.05 (an exact tree at 0.63
       takes far too long to time here).
    c. Accuracy: mean test NDCG@10 on MQ2008 Fold1 of hist and exact forests (RF-point 100 trees, RF-list 30),
       seeds 1-3, one thread.
    """
    from sklearn.tree import DecisionTreeClassifier

    parts = set((args.parts or "a,b,c").split(","))
    out = {"simd_flags": simd_flags(), "load_start": load_average()}
    print(f"  SIMD flags: {' '.join(out['simd_flags'])}; load {out['load_start']}", flush=True)
    if "a" in parts:
        spec = mslr_spec(args.quick)
        data = load_mslr(args.cache_dir, spec, "train")
        repeats = args.repeats or 3
        make = dict(splitting="point", criterion="entropy", n_estimators=1, subsample=0.63, max_features=8,
                    random_state=0, n_threads=1)
        rows = tree_rows(RankingForest(**make), data, 0)
        Xs = np.ascontiguousarray(data.X[rows])
        ys = data.labels[rows]
        Xt = np.ascontiguousarray(data.X.T)
        cpu = time.thread_time()
        forest_module.histogram_bins(Xt, forest_module.MAX_BINS)
        binning_cpu = time.thread_time() - cpu
        del Xt
        times = {"exact": [], "hist": [], "sklearn": []}
        walls = {"exact": [], "hist": [], "sklearn": []}
        leaves = {}
        load = []
        for rep in range(repeats):
            load.append(load_average())
            for mode in ("exact", "hist"):
                gc.collect()
                forest = RankingForest(**make, thresholds=mode)
                with kernel_cpu_timer() as kt:
                    forest.fit(data)
                walls[mode].append(kt[0][0])
                times[mode].append(kt[0][1])
                leaves[mode] = forest.trees_[0].n_leaves
                del forest
            gc.collect()
            clf = DecisionTreeClassifier(criterion="entropy", max_features=8, random_state=rep)
            wall, cpu = time.perf_counter(), time.thread_time()
            clf.fit(Xs, ys)
            walls["sklearn"].append(time.perf_counter() - wall)
            times["sklearn"].append(time.thread_time() - cpu)
            leaves["sklearn"] = int(clf.get_n_leaves())
            del clf
            print(f"  a rep {rep + 1}/{repeats}: CPU-s exact {times['exact'][-1]:.2f}, hist {times['hist'][-1]:.2f}, "
                  f"sklearn {times['sklearn'][-1]:.2f} (load {load[-1]})", flush=True)
        med = {k: median(v) for k, v in times.items()}
        out["a_point_mslr450k"] = {
            "data": describe(data), "rows_per_tree": int(rows.size), "K": 8, "criterion": "entropy",
            "repeats": repeats, "cpu_s": times, "wall_s": walls, "median_cpu_s": med,
            "median_wall_s": {k: median(v) for k, v in walls.items()}, "leaves": leaves, "load": load,
            "hist_binning_cpu_s_per_forest": binning_cpu,
            "ratio_hist_over_exact": med["hist"] / med["exact"],
            "ratio_hist_over_sklearn": med["hist"] / med["sklearn"],
            "ratio_exact_over_sklearn": med["exact"] / med["sklearn"],
            "goal": "hist/exact <= 0.4, hist/sklearn <= 0.3",
        }
    if "b" in parts:
        budget = args.list_budget  # a child is killed after twice the budget
        runs = []
        for subsample, mode in ((0.05, "exact"), (0.05, "hist"), (0.63, "hist")):
            timeout = 2 * budget
            before = load_average()
            result = run_child(args, {"task": "list_tree", "subsample": subsample, "thresholds": mode,
                                      "part": "all"}, timeout=timeout)
            result.update(subsample=subsample, thresholds=mode)
            runs.append(result)
            shown = ">{:.0f} s (killed)".format(timeout) if result.get("timed_out") else \
                f"{result['kernel_cpu_s']:.1f} CPU-s ({result['leaves']} leaves, {result['rows']} rows)"
            print(f"  b RF-list {mode} at {subsample}: {shown} (load {before})", flush=True)
        out["b_list_mslr_all"] = {"runs": runs, "goal": "hist at 0.63 <= 15 CPU-s per tree"}
        done = {(r["subsample"], r["thresholds"]): r for r in runs if not r.get("timed_out")}
        if (0.05, "exact") in done and (0.05, "hist") in done:
            out["b_list_mslr_all"]["ratio_hist_over_exact_0.05"] = (
                done[(0.05, "hist")]["kernel_cpu_s"] / done[(0.05, "exact")]["kernel_cpu_s"])
    if "c" in parts and (args.mq2008 / "train.txt").exists():
        train = load_mq2008(args.mq2008, "train")
        test = load_mq2008(args.mq2008, "test")
        scores = {}
        for splitting, n_trees in (("point", 100), ("list", 30)):
            for mode in ("exact", "hist"):
                values = []
                for seed in (1, 2, 3):
                    forest = RankingForest(splitting=splitting, thresholds=mode, n_estimators=n_trees,
                                           random_state=seed, n_threads=1)
                    forest.fit(train, predict_on=(test,))
                    values.append(mean_ndcg10(forest.predictions_[0], test))
                scores[f"{splitting}_{mode}"] = values
                print(f"  c MQ2008 RF-{splitting} {mode}: NDCG@10 {np.round(values, 4).tolist()}", flush=True)
        out["c_accuracy_mq2008"] = {
            "ndcg@10": scores, "seeds": [1, 2, 3], "trees": {"point": 100, "list": 30},
            "mean": {k: float(np.mean(v)) for k, v in scores.items()},
            "seed_sd": {k: float(np.std(v, ddof=1)) for k, v in scores.items()},
        }
    out["load_end"] = load_average()
    return out


# -- main --------------------------------------------------------------------------------------------

BENCHMARKS = {"1": bench1, "2": bench2, "3": bench3, "4": bench4, "5": bench5, "6": bench6, "7": bench7,
              "8": bench8}


def cpu_description() -> dict:
    """The CPU the ratios were measured on: its model, the SIMD features numpy finds on it (which of its dispatched
    paths run, e.g. AVX2 against AVX-512), and the CPU numba compiles the kernels for."""
    import numba

    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # numpy < 2
        from numpy.core._multiarray_umath import __cpu_features__
    model = ""
    try:
        with open("/proc/cpuinfo") as handle:
            model = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), "")
    except OSError:
        pass
    return {"model": model or platform.processor(), "simd": [name for name, on in __cpu_features__.items() if on],
            "numba_cpu": os.environ.get("NUMBA_CPU_NAME") or numba.config.CPU_NAME or "host",
            "npy_disabled": os.environ.get("NPY_DISABLE_CPU_FEATURES", "")}


def meta() -> dict:
    import numba
    import sklearn

    def git(*cmd):
        try:
            return subprocess.run(["git", *cmd], cwd=REPO, capture_output=True, text=True).stdout.strip()
        except OSError:
            return None

    return {
        "python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
        "sklearn": sklearn.__version__, "cpus": os.cpu_count(), "machine": platform.machine(), "cpu": cpu_description(),
        "git_commit": git("rev-parse", "HEAD"),
        "forest_sources_modified": git("status", "--porcelain", "src/ltrbv/forest") or "",
    }


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="1,2,3,4,5",
                        help="comma-separated benchmark numbers (default: 1-5; 6 = the listwise ratios alone, "
                             "7 = RF-point vs the sklearn / XGBoost / LightGBM forests, 8 = thresholds hist vs "
                             "exact vs sklearn)")
    parser.add_argument("--quick", action="store_true", help="smaller data and fewer trees")
    parser.add_argument("--repeats", type=int, default=None, help="override repeats / trees per measurement")
    parser.add_argument("--parts", default=None,
                        help="3: which parts (a, b, c = reach ladder, d = depth profile; default all); 6: which "
                             "ratios (a: MQ2008 list/point, b: MSLR 0.05 list/point, c: hybrid-L6/point, d: MQ2008 ERR-list/point, "
                             "e: MSLR 0.01 ERR-list/point, f: MQ2008 hybrid-L6/point; default all); 8: a: RF-point hist/exact/sklearn, b: RF-list hist, "
                             "c: MQ2008 accuracy (default all)")
    parser.add_argument("--ladder", default="0.05,0.1,0.2,0.3,0.4,0.5,0.63",
                        help="3c: the subsamples of the reach ladder, in increasing order")
    parser.add_argument("--threads", type=int, default=2, help="7: threads of every forest (default 2)")
    parser.add_argument("--omp-wait-policy", default="PASSIVE",
                        help="7: OMP_WAIT_POLICY set before XGBoost/LightGBM load their OpenMP runtime unless it is "
                             "already in the environment (default PASSIVE; 'keep' leaves the runtime's default, "
                             "ACTIVE spinning, which on a shared, oversubscribed machine slows them several-fold)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "ltrbv-bench-forest")
    parser.add_argument("--mq2008", type=Path, default=DEFAULT_MQ2008, help="folder with train.txt and test.txt")
    parser.add_argument("--list-budget", type=float, default=None,
                        help="3c: stop increasing the subsample once one RF-list tree takes longer than this "
                             "(s; default 300, 60 with --quick); a tree is killed after twice the budget")
    parser.add_argument("--_child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.list_budget is None:
        args.list_budget = 60.0 if args.quick else 300.0
    if not (math.isfinite(args.list_budget) and args.list_budget > 0):
        parser.error(f"--list-budget must be a positive number of seconds, not {args.list_budget}")
    for name in ("repeats", "threads"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, not {getattr(args, name)}")
    known_parts = {"3": "abcd", "6": "abcdef", "8": "abc"}
    if args.parts:
        parts = {p.strip() for p in args.parts.split(",")}
        allowed = set("".join(known_parts.get(key.strip(), "") for key in args.only.split(",")))
        if not parts <= allowed:
            parser.error(f"--parts {sorted(parts - allowed)} not parts of the benchmarks chosen by --only "
                         f"({', '.join(f'{k}: {v}' for k, v in known_parts.items())})")

    if args._child:
        task = json.loads(args._child)
        result = {"list_tree": child_list_tree, "memory": child_memory}[task["task"]](args, task)
        print(json.dumps(result))
        return result

    selected = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(selected) - set(BENCHMARKS)
    if unknown:
        parser.error(f"unknown benchmark(s) {sorted(unknown)}; choose from 1-8")
    print(f"load average {load_average()}; cpus {os.cpu_count()}", flush=True)
    data_info = {}
    if set(selected) & {"1", "3", "4", "5", "6", "8"}:
        data_info = ensure_mslr(args.cache_dir, mslr_spec(args.quick))
        print(f"MSLR-shaped data: {data_info}", flush=True)
    warm = warm_up()
    print(f"warm-up (numba cache load / compile, untimed): {warm:.1f}s", flush=True)
    if args.out.exists():
        stored = json.loads(args.out.read_text())
    else:
        stored = {"benchmarks": {}}
    results = {}
    for key in selected:
        if key in ("2", "7") and not (args.mq2008 / "train.txt").exists():
            print(f"benchmark {key}: MQ2008 not found at {args.mq2008}; skipped", flush=True)
            continue
        print(f"\n== benchmark {key} ==", flush=True)
        before = load_average()
        start = time.perf_counter()
        record = BENCHMARKS[key](args)
        record.update(load_before=before, load_after=load_average(), duration_s=time.perf_counter() - start,
                      quick=args.quick, finished=time.strftime("%Y-%m-%dT%H:%M:%S"), warm_up_s=warm,
                      data_generation=data_info)
        results[key] = record
        stored["benchmarks"][key + ("-quick" if args.quick else "")] = record
        stored["meta"] = meta()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(stored, indent=1, default=float))
    print_summary(results)
    print(f"\nwritten: {args.out}")
    return results


if __name__ == "__main__":
    main()
