"""The demo's cost: `snakemake --cores 2` on the embedded config from an empty folder, wall time and the
CPU seconds of every job (from the per-job benchmark files), by rule.

    python tests/benchmarks/bench_demo.py [--cores 2] [--keep DIR] [--out results/benchmarks/demo.json]

The wall time includes Snakemake's own start-up and DAG building; the CPU total is what the jobs used (their
benchmark files' cpu_time, which counts each job's Python start-up and imports). The load average before and
after is printed: on a busy machine the wall time grows, the CPU total much less.
"""

from __future__ import annotations

import argparse
import glob
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import load_average  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def job_costs(results: Path) -> pd.DataFrame:
    rows = []
    for path in glob.glob(str(results / "*" / "benchmarks" / "**" / "*.tsv"), recursive=True):
        table = pd.read_csv(path, sep="\t")
        rule = Path(path).relative_to(results).parts[2].removesuffix(".tsv")
        rows.append({"rule": rule, "cpu_s": float(table["cpu_time"].iloc[0]), "wall_s": float(table["s"].iloc[0])})
    return pd.DataFrame(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--keep", help="run in this folder (kept) instead of a temporary one")
    parser.add_argument("--out", default=str(REPO / "results" / "benchmarks" / "demo.json"))
    args = parser.parse_args()
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ltrbv-demo-"))
    folder.mkdir(parents=True, exist_ok=True)
    load_before = load_average()
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory",
                             str(folder), "--cores", str(args.cores), "--nocolor", "--quiet"], capture_output=True,
                            text=True)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        print(result.stdout[-3000:], result.stderr[-3000:], file=sys.stderr)
        return 1
    costs = job_costs(folder / "results")
    by_rule = costs.groupby("rule").agg(jobs=("cpu_s", "size"), cpu_s=("cpu_s", "sum")).sort_values(
        "cpu_s", ascending=False)
    report = {"wall_s": round(wall, 1), "cpu_s": round(float(costs["cpu_s"].sum()), 1), "jobs": int(len(costs)),
              "cores": args.cores, "load_before": load_before, "load_after": load_average(),
              "by_rule": {rule: {"jobs": int(r.jobs), "cpu_s": round(float(r.cpu_s), 1)} for rule, r in by_rule.iterrows()}}
    print(by_rule.to_string(float_format=lambda v: f"{v:.1f}"))
    print(f"\n{report['jobs']} jobs, {report['cpu_s']} CPU-s in the jobs, {report['wall_s']} s wall on {args.cores} cores "
          f"(load {load_before} before, {report['load_after']} after)")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
