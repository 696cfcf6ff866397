"""Where a local run's CPU goes: the jobs' own work against Snakemake's process and the jobs' start-up.

    python tests/benchmarks/bench_overhead.py run --configfile config/demo.yaml config/active-demo.yaml \\
        config/catalog.yaml config/catalog-small.yaml [--rev HEAD] [--cores 2] [--label before] \\
        [--snakemake-args="--scheduler greedy"] [--keep DIR]
    python tests/benchmarks/bench_overhead.py startup      # the start-up of an empty job and of each job script
    python tests/benchmarks/bench_overhead.py show results/benchmarks/overhead.json

``run`` clones the repository at ``--rev`` into a fresh temporary folder (no results, no numba cache: a user's
first run) and runs ``snakemake --cores N`` there with the config files, its ``PYTHONPATH`` the clone's ``src``.
Snakemake runs inside a small launcher process that records its own CPU time when it exits
(``getrusage(RUSAGE_SELF)``: Snakemake's scheduler, DAG updates, job preparation, benchmark polling, all its
threads); this script's ``getrusage(RUSAGE_CHILDREN)`` after the launcher ends is the CPU of the whole process
tree (every job, every solver call).  Each job's log ends with its process's CPU time
(``ltrbv.workflow.logs.CPU_LINE``): what it used before the rule's work began (interpreter, the Snakemake
preamble, the script's imports: its *start-up*) and in the work.  So

    tree = snakemake's own + jobs' start-up + jobs' work + other (the shells that start the jobs, ILP solver runs)
    overhead = tree - jobs' work,    share = overhead / tree.

The jobs' "work" still holds their first call into numba (the target's initialisation, which imports
``scipy.linalg``, and loading the cached kernels) and, in a fresh clone, the kernels' one compilation;
``startup`` measures those apart.  CPU time, not wall time, is measured, so the numbers hold on a machine
other work keeps busy (the 1-minute load average before and after is recorded).  Snakemake's benchmark files
sample a job's CPU time every 0.5 s (every 30 s after the first 15 s) and miss what it used after the last
sample; their sum is printed beside the logs' exact one.

With ``--manifest`` the results' checksums (``tests/checksums/compare_outputs.py manifest``) are written beside
the JSON, to compare the outputs of two revisions byte by byte.

``startup`` runs a tiny Snakefile of empty script jobs (the per-job CPU of Snakemake's process and of the job's
interpreter with the Snakemake preamble), then, for every script under ``src/scripts``, its imports alone in a
fresh interpreter (median CPU of 3), and the first call of a cached numba kernel.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import load_average  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "results" / "benchmarks" / "overhead.json"

#: a job log's CPU line (ltrbv.workflow.logs.CPU_LINE)
CPU_LINE = re.compile(r"^job CPU: (?P<startup>[\d.]+) s start-up \+ (?P<work>-?[\d.]+) s work = (?P<total>[\d.]+) s")

LAUNCHER = textwrap.dedent("""
    import atexit, json, resource, sys, time
    out, argv = sys.argv[1], sys.argv[2:]
    started = time.time()

    def record():
        own = resource.getrusage(resource.RUSAGE_SELF)
        with open(out, "w") as handle:
            json.dump({"own_cpu_s": own.ru_utime + own.ru_stime, "wall_s": time.time() - started}, handle)

    atexit.register(record)
    sys.argv = ["snakemake", *argv]
    from snakemake.cli import main
    main()
""")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_snakemake(args: list[str], cwd: Path, env: dict) -> dict:
    """Run snakemake with ``args`` in ``cwd`` inside the launcher: its own CPU, the tree's CPU, wall time."""
    with tempfile.TemporaryDirectory(prefix="ltrbv-overhead-") as scratch:
        launcher, record = Path(scratch) / "launch.py", Path(scratch) / "own.json"
        launcher.write_text(LAUNCHER)
        before, started = children_cpu(), time.time()
        result = subprocess.run([sys.executable, str(launcher), str(record), *args], cwd=cwd, env=env,
                                capture_output=True, text=True)
        tree, wall = children_cpu() - before, time.time() - started
        if result.returncode != 0:
            raise RuntimeError(f"snakemake failed ({result.returncode}):\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
        own = json.loads(record.read_text())
    return {"tree_cpu_s": tree, "snakemake_own_cpu_s": own["own_cpu_s"], "wall_s": wall, "log": result.stderr}


def job_cpu(results: Path) -> dict:
    """Sum of the jobs' CPU lines (start-up, work, total) over every log under ``results``, by rule; and the
    benchmark files' cpu_time sum."""
    by_rule, missing = {}, []
    for path in sorted(results.rglob("logs/**/*.log")):
        lines = path.read_text(errors="replace").splitlines()
        match = next((CPU_LINE.match(line) for line in reversed(lines) if CPU_LINE.match(line)), None)
        rule = path.relative_to(next(p for p in path.parents if p.name == "logs")).parts[0].removesuffix(".log")
        if match is None:
            missing.append(str(path.relative_to(results)))
            continue
        entry = by_rule.setdefault(rule, {"jobs": 0, "startup_s": 0.0, "work_s": 0.0, "total_s": 0.0})
        entry["jobs"] += 1
        for key in ("startup", "work", "total"):
            entry[f"{key}_s"] += float(match[key])
    bench = 0.0
    for path in results.rglob("benchmarks/**/*.tsv"):
        rows = path.read_text().splitlines()
        if len(rows) > 1:
            header, last = rows[0].split("\t"), rows[-1].split("\t")
            if "cpu_time" in header:
                try:
                    bench += float(last[header.index("cpu_time")])
                except ValueError:
                    pass
    return {"by_rule": by_rule, "logs_without_cpu_line": missing, "benchmark_cpu_time_sum_s": bench}


def summarise(run: dict, jobs: dict) -> dict:
    rules = jobs["by_rule"].values()
    n = sum(r["jobs"] for r in rules)
    startup, work, total = (sum(r[k] for r in rules) for k in ("startup_s", "work_s", "total_s"))
    other = run["tree_cpu_s"] - run["snakemake_own_cpu_s"] - total
    overhead = run["tree_cpu_s"] - work
    return {"jobs": n, "tree_cpu_s": round(run["tree_cpu_s"], 1),
            "snakemake_own_cpu_s": round(run["snakemake_own_cpu_s"], 1), "jobs_startup_cpu_s": round(startup, 1),
            "jobs_work_cpu_s": round(work, 1), "other_cpu_s": round(other, 1), "overhead_cpu_s": round(overhead, 1),
            "overhead_share": round(overhead / run["tree_cpu_s"], 4),
            "per_job": {"snakemake_own_s": round(run["snakemake_own_cpu_s"] / max(n, 1), 3),
                        "startup_s": round(startup / max(n, 1), 3), "other_s": round(other / max(n, 1), 3)},
            "benchmark_cpu_time_sum_s": round(jobs["benchmark_cpu_time_sum_s"], 1), "wall_s": round(run["wall_s"], 1)}


def clone(rev: str, folder: Path) -> str:
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", rev], capture_output=True, text=True,
                         check=True).stdout.strip()
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(REPO), str(folder)], check=True)
    subprocess.run(["git", "-C", str(folder), "checkout", "--quiet", "--detach", sha], check=True)
    return sha


def command_run(args) -> int:
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ltrbv-overhead-clone-"))
    if folder.exists() and any(folder.iterdir()):
        raise SystemExit(f"{folder} is not empty: give an empty or new folder")
    sha = clone(args.rev, folder)
    env = {**os.environ, "PYTHONPATH": str(folder / "src")}
    sm_args = ["--cores", str(args.cores), "--nocolor", *shlex.split(args.snakemake_args)]
    if args.configfile:
        sm_args += ["--configfile", *args.configfile]
    load_before, started = load_average(), time.strftime("%Y-%m-%d %H:%M:%S")
    run = run_snakemake(sm_args, folder, env)
    jobs = job_cpu(folder / "results")
    summary = summarise(run, jobs)
    report = {"label": args.label or sha[:7], "commit": sha, "configfile": args.configfile,
              "snakemake_args": args.snakemake_args, "cores": args.cores, "started": started,
              "load_before": load_before, "load_after": load_average(), **summary,
              "by_rule": {rule: {k: round(v, 2) if isinstance(v, float) else v for k, v in entry.items()}
                          for rule, entry in sorted(jobs["by_rule"].items(), key=lambda kv: -kv[1]["total_s"])},
              "logs_without_cpu_line": jobs["logs_without_cpu_line"][:20], "folder": str(folder)}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    stored = json.loads(out.read_text()) if out.exists() else {}
    stored[report["label"]] = report
    out.write_text(json.dumps(stored, indent=2) + "\n")
    if args.manifest:
        sys.path.insert(0, str(REPO / "tests" / "checksums"))
        from compare_outputs import manifest

        lines = [f"{digest}  {name}" for name, digest in manifest(folder / "results").items()]
        out.with_name(f"overhead-{report['label']}.sha256").write_text("\n".join(lines) + "\n")
    show(report)
    return 0


def show(report: dict) -> None:
    print(f"{report['label']} ({report['commit'][:7]}, {report['snakemake_args'] or 'default scheduler'}): "
          f"{report['jobs']} jobs, load {report['load_before']} -> {report['load_after']}, wall {report['wall_s']} s")
    tree = report["tree_cpu_s"]
    for key, label in (("snakemake_own_cpu_s", "Snakemake's own process"), ("jobs_startup_cpu_s", "jobs' start-up"),
                       ("other_cpu_s", "other (job shells, solver)"), ("jobs_work_cpu_s", "jobs' work")):
        print(f"  {label:<28} {report[key]:>9.1f} CPU-s  {report[key] / tree:6.1%}")
    print(f"  {'tree':<28} {tree:>9.1f} CPU-s;  overhead {report['overhead_cpu_s']:.1f} CPU-s = "
          f"{report['overhead_share']:.1%};  per job: {report['per_job']}")
    print(f"  benchmark files' cpu_time sum {report['benchmark_cpu_time_sum_s']} CPU-s (the logs: "
          f"{report['jobs_startup_cpu_s'] + report['jobs_work_cpu_s']:.1f})")


# -- start-up ---------------------------------------------------------------------------------------------

EMPTY_SNAKEFILE = textwrap.dedent("""
    N = int(config.get("count", 0))
    rule all:
        input: expand("out/{i}.txt", i=range(N))
    rule empty:
        output: "out/{i}.txt"
        log: "logs/{i}.log"
        benchmark: "benchmarks/{i}.tsv"
        script: "empty.py"
""")


def empty_jobs(n: int, env: dict) -> dict:
    """Snakemake's own CPU and the tree's for ``n`` empty script jobs, against the same Snakefile with none."""
    with tempfile.TemporaryDirectory(prefix="ltrbv-empty-") as scratch:
        folder = Path(scratch)
        (folder / "Snakefile").write_text(EMPTY_SNAKEFILE)
        (folder / "empty.py").write_text("open(snakemake.output[0], 'w').close()\n")
        none = run_snakemake(["--cores", "2", "--config", "count=0"], folder, env)
        some = run_snakemake(["--cores", "2", "--config", f"count={n}"], folder, env)
    own = (some["snakemake_own_cpu_s"] - none["snakemake_own_cpu_s"]) / n
    job = (some["tree_cpu_s"] - some["snakemake_own_cpu_s"] - none["tree_cpu_s"] + none["snakemake_own_cpu_s"]) / n
    return {"jobs": n, "snakemake_per_job_s": round(own, 3), "job_process_per_job_s": round(job, 3),
            "snakemake_fixed_s": round(none["snakemake_own_cpu_s"], 3)}


def script_imports(path: Path) -> str:
    """The top-level import statements of a job script (the ``sys.path`` line and the rule's body left out)."""
    tree = ast.parse(path.read_text())
    return "\n".join(ast.unparse(node) for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom)))


def cpu_of(code: str, env: dict, repeats: int = 3) -> float:
    """Median CPU seconds of ``python -c code`` in a fresh interpreter."""
    times = []
    for _ in range(repeats):
        before = children_cpu()
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
        times.append(children_cpu() - before)
    return statistics.median(times)


PREAMBLE = "import pickle\nfrom snakemake.logging import logger\nfrom snakemake.iocontainers import Snakemake\n"
FIRST_KERNEL_CALL = ("import numpy as np\nfrom ltrbv.metrics import evaluate\n"
                     "evaluate(np.arange(3.0), np.array([0, 1, 0]), np.array([0, 3]), ['ndcg@10'])\n")


def command_startup(args) -> int:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    report = {"load_before": load_average(), "commit": subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()}
    report["empty_job"] = empty_jobs(args.jobs, env)
    report["python_bare_s"] = round(cpu_of("pass", env), 3)
    report["snakemake_preamble_s"] = round(cpu_of(PREAMBLE, env), 3)
    metrics_import = cpu_of("import numpy as np\nfrom ltrbv.metrics import evaluate\n", env)
    report["numba_first_cached_call_s"] = round(cpu_of(FIRST_KERNEL_CALL, env) - metrics_import, 3)
    scripts = {}
    for path in sorted((REPO / "src" / "scripts").glob("*/*.py")):
        scripts[f"{path.parent.name}/{path.stem}"] = round(cpu_of(PREAMBLE + script_imports(path), env), 3)
    report["script_imports_s"] = scripts  # each with the preamble: the job's start-up before its work
    report["load_after"] = load_average()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    stored = json.loads(out.read_text()) if out.exists() else {}
    stored[f"startup-{args.label or report['commit'][:7]}"] = report
    out.write_text(json.dumps(stored, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="a workflow run in a fresh clone: where its CPU goes")
    run.add_argument("--configfile", nargs="*", default=[], help="config files (relative to the repository)")
    run.add_argument("--rev", default="HEAD", help="the commit to run (default HEAD; uncommitted changes are not in it)")
    run.add_argument("--cores", type=int, default=2)
    run.add_argument("--snakemake-args", default="", help='more snakemake arguments, e.g. "--scheduler greedy"')
    run.add_argument("--label", help="the run's key in the JSON (default the commit)")
    run.add_argument("--keep", help="clone into this (new or empty) folder and keep it")
    run.add_argument("--manifest", action="store_true", help="also write the results' checksums beside --out")
    run.add_argument("--out", default=str(OUT))
    start = sub.add_parser("startup", help="the start-up of an empty job and of each job script's imports")
    start.add_argument("--jobs", type=int, default=30, help="empty jobs to run (default 30)")
    start.add_argument("--label")
    start.add_argument("--out", default=str(OUT))
    view = sub.add_parser("show", help="print the stored runs")
    view.add_argument("file", nargs="?", default=str(OUT))
    args = parser.parse_args()
    if args.command == "run":
        return command_run(args)
    if args.command == "startup":
        return command_startup(args)
    for key, report in json.loads(Path(args.file).read_text()).items():
        if not key.startswith("startup-"):
            show(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
