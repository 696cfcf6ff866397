"""Per-tree CPU time of one forest setting in two (or more) checkouts, paired tree by tree: is a change slower?

    python tests/benchmarks/ab_forest.py /path/to/before /path/to/after [--data mq2008|mslr] [--objective err]
        [--splitting list] [--rounds 3] [--trees 8] [--subsample 0.63]

Each checkout is a folder with ``src/ltrbv`` (a ``git worktree`` of the revision to compare).  Each round runs
one child process per checkout in turn (the order alternates the checkouts, so drifting load hits all alike),
and each child fits single trees with the same random states (``round * 100 + i``), timing the compiled
``build_tree`` call by its process CPU time.  A tree of one checkout is compared with the same tree of the
first checkout: the paired ratio's median and quartiles, its geometric mean with a 95% t-interval over the
trees (of the log ratios), and the ratio of the summed times are printed (these machines are noisy: read the
interval, and the load printed beside it).  ``--json FILE`` keeps every tree's seconds; several files
(``--pool A.json B.json ...``, no checkouts) are pooled tree by tree and summarised the same way.
The first fit of every child loads (or compiles) the kernels and is not timed.

Data: MQ2008 Fold1's training set (``--mq2008``, default ``../shared/data/MQ2008/Fold1``) or the MSLR-shaped
synthetic set that ``bench_forest.py`` caches (``--cache-dir``; run ``bench_forest.py --only 6 --parts e``
once to make it).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CHILD = r"""
import gc, json, sys, time
from pathlib import Path
import numpy as np
import ltrbv.forest.forest as forest_module
from ltrbv.forest import RankingForest
task = json.loads(sys.argv[1])
if task["data"] == "mq2008":
    from ltrbv.data.letor import read_letor
    data = read_letor(Path(task["mq2008"]) / "train.txt")
else:
    from ltrbv.data.ranking_data import RankingData
    stem = str(Path(task["cache_dir"]) / "mslr-q6000-s10000-")
    X, labels, sizes = (np.load(stem + name + ".npy") for name in ("X", "labels", "sizes"))
    offsets = np.zeros(sizes.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    data = RankingData(X=np.ascontiguousarray(X, dtype=np.float32), labels=np.asarray(labels, dtype=np.int8),
                       query_offsets=offsets, qids=np.arange(sizes.size).astype(str),
                       line_numbers=np.arange(1, offsets[-1] + 1, dtype=np.int64), source="MSLR_SHAPED")
options = dict(splitting=task["splitting"], n_estimators=1, listwise_objective=task["objective"])
RankingForest(subsample=0.05, random_state=0, **options).fit(data)  # load or compile the kernels: untimed
original, seconds = forest_module.build_tree, []
def timed(*args):
    start = time.process_time()
    out = original(*args)
    seconds.append(time.process_time() - start)
    return out
forest_module.build_tree = timed
for seed in task["seeds"]:
    gc.collect()
    RankingForest(subsample=task["subsample"], random_state=seed, **options).fit(data)
print(json.dumps(seconds))
"""


def summarise(times: dict[str, list[float]]) -> None:
    """Print each checkout's per-tree times against the first's (paired by position)."""
    from scipy import stats

    base = times[next(iter(times))]
    for folder, seconds in times.items():
        ratios = sorted(t / b for t, b in zip(seconds, base))
        quartile = len(ratios) // 4
        logs = [math.log(r) for r in ratios]
        mean = statistics.fmean(logs)
        half = (stats.t.ppf(0.975, len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
                if len(logs) > 1 else float("nan"))
        print(f"{folder:40s} median {statistics.median(seconds):.3f} s/tree; paired ratio median "
              f"{statistics.median(ratios):.3f} (quartiles {ratios[quartile]:.3f}, {ratios[-quartile - 1]:.3f}); "
              f"geometric mean {math.exp(mean):.3f} [{math.exp(mean - half):.3f}, {math.exp(mean + half):.3f}]; "
              f"sum ratio {sum(seconds) / sum(base):.3f}")


def pool(paths: list[Path]) -> dict[str, list[float]]:
    """The per-tree times of several ``--json`` files, concatenated per checkout (the same checkouts in each)."""
    runs = []
    for path in paths:
        try:
            runs.append(json.loads(path.read_text()))
            if not isinstance(runs[-1].get("times"), dict) or not runs[-1]["times"]:
                raise ValueError("no per-checkout times")
        except (OSError, ValueError, AttributeError) as error:
            raise SystemExit(f"{path}: not a file written by ab_forest.py --json ({error})")
    names = list(runs[0]["times"])
    for path, run in zip(paths, runs):
        if list(run["times"]) != names:
            raise SystemExit(f"{path}: checkouts {list(run['times'])} differ from {paths[0]}'s {names}")
    return {name: [t for run in runs for t in run["times"][name]] for name in names}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkouts", nargs="*", type=Path, help="folders holding src/ltrbv; the first is the base")
    parser.add_argument("--data", choices=("mq2008", "mslr"), default="mq2008")
    parser.add_argument("--objective", default="err", help="listwise_objective (default err)")
    parser.add_argument("--splitting", default="list")
    parser.add_argument("--subsample", type=float, default=None, help="default 0.63 (mq2008), 0.01 (mslr)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--trees", type=int, default=8, help="trees per child")
    parser.add_argument("--mq2008", type=Path, default=REPO.parent / "shared" / "data" / "MQ2008" / "Fold1")
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp") / "ltrbv-bench-forest")
    parser.add_argument("--json", type=Path, help="write every tree's seconds (and the loads) here")
    parser.add_argument("--pool", type=Path, nargs="+", help="summarise these --json files together; run nothing")
    args = parser.parse_args(argv)
    if args.pool:
        if args.checkouts:
            parser.error("--pool summarises earlier runs: give no checkouts")
        times = pool(args.pool)
        print(f"{len(args.pool)} runs pooled: {len(times[next(iter(times))])} trees per checkout")
        summarise(times)
        return 0
    if not args.checkouts:
        parser.error("give the checkouts to compare (or --pool)")
    if args.rounds < 1 or args.trees < 1:
        parser.error("--rounds and --trees must be at least 1")
    if args.subsample is not None and not 0.0 < args.subsample <= 1.0:
        parser.error("--subsample must be in (0, 1]")
    for folder in args.checkouts:
        if not (folder / "src" / "ltrbv").is_dir():
            parser.error(f"{folder}: no src/ltrbv here (give a checkout of the repository)")
    subsample = args.subsample or (0.63 if args.data == "mq2008" else 0.01)
    times = {str(folder): [] for folder in args.checkouts}
    loads = []
    for round_ in range(args.rounds):
        order = args.checkouts if round_ % 2 == 0 else list(reversed(args.checkouts))
        for folder in order:
            task = {"data": args.data, "mq2008": str(args.mq2008), "cache_dir": str(args.cache_dir),
                    "splitting": args.splitting, "objective": args.objective, "subsample": subsample,
                    "seeds": [round_ * 100 + i for i in range(args.trees)]}
            env = {**os.environ, "PYTHONPATH": str(folder / "src")}
            out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(task)], env=env, capture_output=True,
                                 text=True, check=True)
            times[str(folder)].extend(json.loads(out.stdout.strip().splitlines()[-1]))
            loads.append(os.getloadavg()[0])
            print(f"round {round_ + 1} {folder}: load {loads[-1]:.1f}", flush=True)
    base = times[str(args.checkouts[0])]
    print(f"\n{args.splitting} ({args.objective}) on {args.data} at {subsample}: {len(base)} trees per checkout")
    summarise(times)
    if args.json:
        args.json.write_text(json.dumps({"task": {**task, "seeds": None, "rounds": args.rounds}, "loads": loads,
                                         "times": times}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
