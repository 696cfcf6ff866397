"""The cost of the frontier (issue 18's node exploration strategies) against the builder it replaced.

The tree builder used to expand nodes in creation order with a plain counter; it now takes them from a
heap of open leaves (``ltrbv.forest._frontier``), which for ``breadth-first`` gives the same trees.  This
script times one tree at a time on MQ2008 Fold1 (RF-point and RF-list at 63% of the queries, and RF-list-S5
at 5%), alternating the current source tree and the ``--baseline`` commit's (exported with ``git archive``
into a scratch folder, each side in its own child process so numba compiles and caches each once), and
checks that the two grow identical trees (same predictions, bit for bit).  It also times the other
strategies of the current builder against its own breadth-first.

    python tests/benchmarks/bench_frontier.py [--baseline 9370c00] [--repeats 7] [--mq2008 DIR]

Prints medians and ratios (current / baseline) and the load average; writes
``results/benchmarks/frontier.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import load_average, median  # noqa: E402

CHILD = r"""
import sys, time, json, numpy as np
sys.path.insert(0, sys.argv[1])
from ltrbv.data.letor import read_letor
from ltrbv.forest import RankingForest
data = read_letor(sys.argv[2])
settings = json.loads(sys.argv[3])
out = {}
for name, params in settings.items():
    forest = RankingForest(n_estimators=1, random_state=0, **params)
    forest.fit(data)  # compiles (or loads the cache) and warms up
    times, predictions = [], None
    for seed in range(int(sys.argv[4])):
        forest = RankingForest(n_estimators=1, random_state=seed, **params)
        start = time.perf_counter()
        forest.fit(data)
        times.append(time.perf_counter() - start)
        if seed == 0:
            predictions = forest.predict(data)
    out[name] = {"seconds": times, "checksum": float(np.sum(predictions * np.arange(1, data.n_docs + 1)))}
print(json.dumps(out))
"""

SETTINGS = {
    "rf-point": {"splitting": "point", "subsample": 0.63},
    "rf-list": {"splitting": "list", "subsample": 0.63},
    "rf-list-s5": {"splitting": "list", "subsample": 0.05},
}


def run_child(src: Path, train: str, settings: dict, repeats: int) -> dict:
    result = subprocess.run([sys.executable, "-c", CHILD, str(src), train, json.dumps(settings), str(repeats)],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default="9370c00", help="the commit whose builder is the peer")
    parser.add_argument("--repeats", type=int, default=7, help="trees per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternations of current and baseline")
    parser.add_argument("--mq2008", default=str(REPO.parent / "shared" / "data" / "MQ2008" / "Fold1"))
    parser.add_argument("--out", default=str(REPO / "results" / "benchmarks" / "frontier.json"))
    args = parser.parse_args()
    train = str(Path(args.mq2008) / "train.txt")
    started, load_before = time.time(), load_average()
    with tempfile.TemporaryDirectory(prefix="ltrbv-bench-frontier-") as scratch:
        baseline = Path(scratch) / "baseline"
        baseline.mkdir()
        archive = subprocess.run(["git", "-C", str(REPO), "archive", args.baseline, "src"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(baseline)], input=archive, check=True)
        sides = {"current": REPO / "src", "baseline": baseline / "src"}
        strategies = {f"rf-list-s5/{s}": {**SETTINGS["rf-list-s5"], "exploration": s}
                      for s in ("random", "biggest-first", "relevant-first", "depth-first")}
        times = {side: {name: [] for name in SETTINGS} for side in sides}
        times["current"].update({name: [] for name in strategies})
        checksums = {}
        for round_ in range(args.rounds):
            for side, src in (sides.items() if round_ % 2 == 0 else reversed(sides.items())):
                settings = {**SETTINGS, **(strategies if side == "current" else {})}
                result = run_child(src, train, settings, args.repeats)
                for name, measured in result.items():
                    times[side][name] += measured["seconds"]
                    checksums.setdefault(side, {})[name] = measured["checksum"]
                print(f"round {round_ + 1}/{args.rounds} {side}: done", file=sys.stderr)
    report = {"baseline": args.baseline, "repeats": args.repeats, "rounds": args.rounds,
              "load_before": load_before, "load_after": load_average(), "seconds": time.time() - started,
              "medians": {side: {name: median(v) for name, v in by.items()} for side, by in times.items()},
              "times": times}
    report["ratio_current_over_baseline"] = {name: report["medians"]["current"][name] / report["medians"]["baseline"][name]
                                             for name in SETTINGS}
    report["identical_trees"] = {name: checksums["current"][name] == checksums["baseline"][name] for name in SETTINGS}
    report["strategy_over_breadth_first"] = {name: report["medians"]["current"][name]
                                             / report["medians"]["current"]["rf-list-s5"] for name in strategies}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=1))
    print(f"load {load_before} -> {report['load_after']}; medians (s per tree) and ratios:")
    for name in SETTINGS:
        print(f"  {name:14s} current {report['medians']['current'][name]:.4f}  baseline "
              f"{report['medians']['baseline'][name]:.4f}  ratio {report['ratio_current_over_baseline'][name]:.3f}  "
              f"identical trees: {report['identical_trees'][name]}")
    for name, ratio in report["strategy_over_breadth_first"].items():
        print(f"  {name:28s} {report['medians']['current'][name]:.4f}  / breadth-first {ratio:.3f}")
    return 0 if all(report["identical_trees"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
