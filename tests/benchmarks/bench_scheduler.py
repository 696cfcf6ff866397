"""Snakemake's own CPU while jobs run: what a scheduling pass costs, and how often one runs.

    python tests/benchmarks/bench_scheduler.py [--jobs 300] [--seconds 1.5] [--cores 2] [--json FILE] \\
        [--setting default= --setting profile=--max-jobs-per-timespan=10000/60s ...]

Snakemake (9.x) re-runs its whole scheduling pass once per second for as long as jobs run, because of its
default job-rate limit (``--max-jobs-per-timespan 100/1s``: after a timespan the limit may allow more jobs, so
the scheduler wakes itself every timespan).  A pass lists the DAG's remaining jobs and stats every input file
of every ready job (``JobScheduler.update_input_sizes``), so on a large DAG with jobs that run for minutes
Snakemake's process burns a steady share of a core doing nothing new (py-spy on the MQ2008 catalog run:
``update_input_sizes`` -> ``_IOFile.exists``/``size``, under ``_schedule_reevalutation``'s timer).  A job
finishing wakes the scheduler anyway, so a long timespan (``10000/60s``: the limit is never reached on a
workstation) only drops the idle passes.  Each pass's timer is a non-daemon thread that the process waits for at
exit, so the workflow here, as the project's Snakefile, cancels them in its ``onsuccess`` handler
(``ltrbv.workflow.rate_timers``); the table's wall time is Snakemake's run, and "exited after" the process's.

Here a synthetic workflow of ``--jobs`` training-like jobs (each reads three files and sleeps ``--seconds``:
no CPU of its own), each followed by an evaluation job, then one summary, is run under each ``--setting``
(name=extra snakemake arguments, split on commas) in a fresh folder; a launcher records Snakemake's own CPU
(``getrusage(RUSAGE_SELF)``, all its threads) and the wall time.  Jobs sleep, so every CPU second measured is
Snakemake's; the settings alternate (``--rounds``) and the table gives each one's median CPU per wall second
and per job, with its ratio to the first setting.  The launcher also records its child processes' CPU: the jobs'
shells (the same work under every setting) and the ILP solver (Snakemake's default scheduler starts pulp's CBC
as a process for a pass with more ready jobs than free cores; ``--scheduler greedy`` does not), so comparing the
schedulers needs the second ratio, e.g. ``--setting ilp=--max-jobs-per-timespan=10000/60s
--setting greedy=--max-jobs-per-timespan=10000/60s,--scheduler=greedy``.
"""

from __future__ import annotations

import argparse
import json
import math
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

SNAKEFILE = """
import sys
sys.path.insert(0, {src!r})
from ltrbv.workflow.rate_timers import cancel_rate_timers
N = {jobs}
onsuccess:
    cancel_rate_timers()
rule all:
    input: "summary.txt"
rule make:
    output: "data/{{i}}.a", "data/{{i}}.b", "data/{{i}}.c"
    shell: "for f in {{output}}; do echo {{wildcards.i}} > $f; done"
rule train:
    input: "data/{{i}}.a", "data/{{i}}.b", "data/{{i}}.c"
    output: "models/{{i}}.txt"
    benchmark: "benchmarks/train/{{i}}.tsv"
    shell: "sleep {seconds}; cat {{input}} > {{output}}"
rule evaluate:
    input: "models/{{i}}.txt"
    output: "scores/{{i}}.txt"
    shell: "cp {{input}} {{output}}"
rule summary:
    input: expand("scores/{{i}}.txt", i=range(N))
    output: "summary.txt"
    shell: "cat {{input}} | wc -l > {{output}}"
"""

LAUNCHER = """
import json, resource, sys, time
from snakemake.cli import main
start = time.time()
try:
    main(sys.argv[2:])
except SystemExit as done:
    code = done.code
else:
    code = 0
usage = resource.getrusage(resource.RUSAGE_SELF)
children = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
    json.dump({"cpu": usage.ru_utime + usage.ru_stime, "children": children.ru_utime + children.ru_stime,
               "wall": time.time() - start, "code": code}, f)
"""


def positive(kind):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not (value > 0 and math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"must be a finite number above 0, got {text}")
        return value
    return parse


def setting(text: str) -> tuple[str, list[str]]:
    name, sep, args = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"a setting is NAME=ARGS (ARGS may be empty), got {text!r}")
    return name, [arg for arg in args.split(",") if arg]


def run_once(folder: Path, args: list[str], cores: int) -> dict:
    """One run of the synthetic workflow in ``folder`` (emptied first): Snakemake's CPU and the wall time."""
    for sub in ("data", "models", "scores", "benchmarks", ".snakemake"):
        subprocess.run(["rm", "-rf", str(folder / sub)], check=True)
    (folder / "summary.txt").unlink(missing_ok=True)
    record = folder / "launcher.json"
    load = load_average()[0]
    started = time.time()
    done = subprocess.run([sys.executable, "-c", LAUNCHER, str(record), "--cores", str(cores), "--quiet", "all",
                           *args], cwd=folder, capture_output=True, text=True)
    if done.returncode != 0 or not (folder / "summary.txt").is_file():
        raise SystemExit(f"snakemake failed with {args}:\n{done.stderr[-3000:]}")
    result = json.loads(record.read_text())
    result["process_wall"] = time.time() - started  # to the process's exit: with the timers it waits for
    result["load"] = [load, load_average()[0]]
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=positive(int), default=300, help="training-like jobs (default 300)")
    parser.add_argument("--seconds", type=positive(float), default=1.5, help="each one's sleep (default 1.5)")
    parser.add_argument("--cores", type=positive(int), default=2)
    parser.add_argument("--rounds", type=positive(int), default=2)
    parser.add_argument("--setting", type=setting, action="append",
                        help="NAME=ARGS, snakemake arguments split on commas (default: default= and "
                             "long-timespan=--max-jobs-per-timespan=10000/60s)")
    parser.add_argument("--json", help="write every run here")
    options = parser.parse_args(argv)
    given = options.setting or [("default", []), ("long-timespan", ["--max-jobs-per-timespan=10000/60s"])]
    settings = dict(given)
    if len(settings) != len(given):
        parser.error("--setting: each NAME once")
    if options.json and not Path(options.json).resolve().parent.is_dir():
        parser.error(f"--json: no folder {Path(options.json).resolve().parent}")
    runs: dict[str, list[dict]] = {name: [] for name in settings}
    with tempfile.TemporaryDirectory(prefix="ltrbv-bench-scheduler-") as tmp:
        folder = Path(tmp)
        (folder / "Snakefile").write_text(textwrap.dedent(SNAKEFILE.format(
            jobs=options.jobs, seconds=options.seconds, src=str(REPO / "src"))))
        for round_ in range(options.rounds):
            order = list(settings) if round_ % 2 == 0 else list(reversed(settings))
            for name in order:
                result = run_once(folder, settings[name], options.cores)
                runs[name].append(result)
                print(f"round {round_ + 1} {name}: snakemake {result['cpu']:.1f} CPU-s + its child processes "
                      f"{result['children']:.1f} in {result['wall']:.0f} s "
                      f"(exited after {result['process_wall']:.0f} s) "
                      f"(load {result['load'][0]:.1f} -> {result['load'][1]:.1f})", flush=True)
    n_jobs = 3 * options.jobs + 1
    base = None
    print(f"\n{n_jobs} jobs, {options.jobs} of them sleeping {options.seconds} s, --cores {options.cores}, "
          f"{options.rounds} rounds; Snakemake's own CPU (median):")
    for name, results in runs.items():
        cpu = statistics.median(r["cpu"] for r in results)
        tree = statistics.median(r["cpu"] + r["children"] for r in results)
        wall = statistics.median(r["wall"] for r in results)
        base = base or (cpu, tree)
        print(f"  {name:16s} {cpu:7.1f} CPU-s  {1000 * cpu / n_jobs:6.1f} ms/job  {100 * cpu / wall:5.1f}% of a core "
              f"over {wall:.0f} s  ratio {cpu / base[0]:.2f}; with child processes {tree:7.1f} CPU-s, ratio "
              f"{tree / base[1]:.2f}  ({' '.join(settings[name]) or 'no extra arguments'})")
    if options.json:
        Path(options.json).write_text(json.dumps({"jobs": options.jobs, "seconds": options.seconds,
                                                  "cores": options.cores, "settings": settings, "runs": runs},
                                                 indent=1))


if __name__ == "__main__":
    main()
