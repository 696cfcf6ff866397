"""``ltrbv plan``: the job grid of a config (a Snakemake dry run) and its cost in core-hours.

1. The config files are merged as Snakemake merges them (no file: the demo, ``config/demo.yaml``).
   With ``placeholders``, every real dataset of the run whose files are absent gets tiny placeholder
   folds (valid LETOR lines) in a scratch folder, so that the full grid of a paper-scale config can
   be listed on a machine without the data.
2. ``snakemake --dry-run`` lists the jobs; the "Job stats" table gives the counts per rule.
3. A calibration run's benchmark files (``results/*/benchmarks/<rule>/<learner>/.../*.tsv``, one per
   job) give each job's cost in core-seconds (``cpu_time``; wall ``s`` where it is missing); a planned job
   costs the median of the calibration jobs of the same rule, learner and setting (falling back to
   the rule and learner, then the rule).  ``scale`` multiplies the training rules' costs, e.g. the
   ratio of the real training set's documents to the calibration data's.
"""

from __future__ import annotations

import copy
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd
import yaml
from snakemake.utils import update_config

from . import paths
from .datasets import SPLITS, raw_file
from ..sections.biasvar.grid import STUDY_PREDICTION
from .dryrun import Job, job_counts, parse_jobs
from .sections import SECTIONS

REPO = Path(__file__).resolve().parents[3]
#: the study's training rules, one per scheme: a job fits a run's B (bootstrap) or 2J (two-fold) models
STUDY_TRAINING_RULES = ("train_biasvar_bootstrap", "train_biasvar_twofold")
TRAINING_RULES = ("train_model", *STUDY_TRAINING_RULES, "train_trial", "bag_submodel")


def merge(base: dict, update: dict) -> dict:
    """Snakemake's merge of config files (``snakemake.utils.update_config``), on a copy of ``base``."""
    out = copy.deepcopy(base)
    update_config(out, copy.deepcopy(update))
    return out


DEMO_CONFIG = REPO / "config" / "demo.yaml"


def merged_config(configfiles: list[str]) -> dict:
    """The config the workflow sees: the files merged in order, or the demo when there is none."""
    config = {}
    for path in configfiles or [DEMO_CONFIG]:
        config = merge(config, yaml.safe_load(Path(path).read_text()) or {})
    return config


def _placeholder_lines(n_features: int, first_qid: int) -> str:
    lines = []
    for q in range(first_qid, first_qid + 4):
        for d in range(3):
            features = " ".join(f"{j}:{(q * 7 + d * 3 + j) % 5 / 4:.2f}" for j in range(1, n_features + 1))
            lines.append(f"{d % 2} qid:{q} {features}")
    return "\n".join(lines) + "\n"


def placeholder_overrides(config: dict, scratch: Path) -> dict:
    """Config overrides pointing each absent real dataset of the run at tiny placeholder folds in ``scratch``."""
    overrides = {}
    for name in config["run"]["datasets"]:
        dataset = config["datasets"][name]
        if dataset.get("synthetic") or dataset.get("fetch"):  # generated or fetched by a rule of the plan
            continue
        root = scratch / "placeholders" / name
        placed = {**dataset, "root": str(root)}
        for i, fold in enumerate(dataset["folds"]):
            for j, split in enumerate(SPLITS):
                path = Path(raw_file(placed, fold, split))
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(_placeholder_lines(int(dataset["n_features"]), 100 * (3 * i + j) + 1))
        overrides[name] = {"root": str(root)}
    return {"datasets": overrides} if overrides else {}


def dry_run(configfiles: list[str], placeholders: bool = False, targets: tuple[str, ...] = ()) -> tuple[list[Job], dict, str]:
    """(jobs, counts per rule, output) of ``snakemake --dry-run`` for the config files, in a scratch folder."""
    with tempfile.TemporaryDirectory(prefix="ltrbv-plan-") as scratch:
        scratch = Path(scratch)
        files = [str(Path(p).resolve()) for p in configfiles] or [str(DEMO_CONFIG)]
        if placeholders:
            overrides = placeholder_overrides(merged_config(files), scratch)
            if overrides:
                path = scratch / "placeholders.yaml"
                path.write_text(yaml.safe_dump(overrides))
                files.append(str(path))
        command = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory",
                   str(scratch), "--dry-run", "--nocolor", "--cores", "1", *targets]
        if files:
            command += ["--configfile", *files]
        result = subprocess.run(command, capture_output=True, text=True)
        text = result.stdout + result.stderr
        if result.returncode != 0:
            raise ValueError(f"the dry run failed:\n{text.rstrip()}")
    jobs = [job for job in parse_jobs(text) if job.rule != "all"]
    return jobs, job_counts(text), text


def benchmark_cost(path) -> float | None:
    """Core-seconds of the last run in a Snakemake benchmark file: its ``cpu_time``, or its wall time ``s``
    where CPU time is 0 or missing; None for a header without runs.  Anything else (not a regular text file,
    no ``s`` column, a field count off, a value outside the number grammar or negative) is refused naming
    the file and line."""
    from ..input_files import InputFileError, parse_float, read_text_lines

    lines = [(number, line) for number, line in read_text_lines(path, "a Snakemake benchmark file") if line.strip()]
    if not lines:
        raise InputFileError(path, None, "empty, not a Snakemake benchmark file (a header line 's\th:m:s\t...')")
    header = lines[0][1].split("\t")
    if "s" not in header:
        raise InputFileError(path, lines[0][0], "no column 's': not a Snakemake benchmark file")
    if len(lines) == 1:
        return None
    number, last = lines[-1]
    fields = last.split("\t")
    if len(fields) != len(header):
        raise InputFileError(path, number, f"{len(fields)} tab-separated fields, the header has {len(header)}")
    values = {}
    for column in ("s", "cpu_time"):
        if column in header:
            try:
                values[column] = parse_float(fields[header.index(column)].strip(), column)
            except ValueError as error:
                raise InputFileError(path, number, str(error)) from None
            if values[column] < 0:
                raise InputFileError(path, number, f"{column} {values[column]} is negative")
    cpu = values.get("cpu_time", 0.0)
    return cpu if cpu > 0 else values["s"]  # core-seconds; wall time only where CPU time is missing


def calibration_costs(benchmark_roots: list[str]) -> pd.DataFrame:
    """One row per calibration job: rule, learner, setting, core_seconds (from Snakemake benchmark files)."""
    rows = []
    for root in benchmark_roots:
        for path in Path(root).rglob("*.tsv"):
            parsed = paths.parse_job(path.relative_to(root).with_suffix("").as_posix(), SECTIONS.jobs())
            if parsed is None:  # not a benchmark file of a rule's job
                continue
            rule, wildcards = parsed
            cost = benchmark_cost(path)
            if cost is None:
                continue
            learner = wildcards.get("learner") if rule in TRAINING_RULES + ("evaluate", "combine_bag", "reduce_biasvar") else None
            setting = wildcards.get("setting") if rule in (*STUDY_TRAINING_RULES, "reduce_biasvar") else None
            rows.append({"rule": rule, "learner": learner or "", "setting": setting or "", "core_seconds": cost})
    return pd.DataFrame(rows, columns=["rule", "learner", "setting", "core_seconds"])


def estimate(jobs: list[Job], costs: pd.DataFrame, scale: float | dict = 1.0) -> pd.DataFrame:
    """Core-seconds per planned (dataset, rule, learner, setting), from the calibration's medians.

    ``scale`` multiplies the training rules' costs: one number, or ``{dataset: factor}`` (1 for a
    dataset not named).
    """
    factors = scale if isinstance(scale, dict) else {}
    default = 1.0 if isinstance(scale, dict) else float(scale)
    costs = costs.fillna("")
    by_setting = costs.groupby(["rule", "learner", "setting"])["core_seconds"].median().to_dict()
    by_learner = costs.groupby(["rule", "learner"])["core_seconds"].median().to_dict()
    by_rule = costs.groupby("rule")["core_seconds"].median().to_dict()
    planned = pd.DataFrame([{"dataset": j.get("dataset") or "", "rule": j.rule, "learner": j.get("learner") or "",
                             "setting": j.get("setting") or ""} for j in jobs],
                           columns=["dataset", "rule", "learner", "setting"])
    grouped = planned.groupby(["dataset", "rule", "learner", "setting"]).size().reset_index(name="jobs")
    each, source = [], []
    for row in grouped.itertuples():
        candidates = ((by_setting, "rule+learner+setting", (row.rule, row.learner, row.setting)),
                      (by_learner, "rule+learner", (row.rule, row.learner)), (by_rule, "rule", row.rule))
        found = next(((table[key], label) for table, label, key in candidates if key in table), None)
        if found is None:
            each.append(float("nan"))
            source.append("uncalibrated")
        else:
            factor = float(factors.get(row.dataset, default)) if row.rule in TRAINING_RULES else 1.0
            each.append(found[0] * factor)
            source.append(found[1])
    grouped["core_seconds_each"] = each
    grouped["core_hours"] = grouped["jobs"] * grouped["core_seconds_each"] / 3600
    grouped["source"] = source
    return grouped


def calibration_targets(jobs: list[Job]) -> list[str]:
    """One training job per (rule, learner, setting) of the plan: what a small calibration run needs."""
    seen, targets = set(), []
    for job in jobs:
        if job.rule not in TRAINING_RULES:
            continue
        key = (job.rule, job.get("learner"), job.get("setting"))
        if key in seen:
            continue
        seen.add(key)
        if job.rule in CALIBRATION_TARGETS:
            targets.append(paths.fill(CALIBRATION_TARGETS[job.rule], **dict(job.wildcards)))
    return targets


#: the test prediction file of a training rule's job, filled with the job's wildcards
CALIBRATION_TARGETS = {
    "train_model": paths.fill(paths.PREDICTION, run=paths.SEED_RUN, file="test.scores"),
    # a study job's first model (its job makes them all)
    "train_biasvar_bootstrap": paths.fill(STUDY_PREDICTION, scheme="bootstrap", replicate="1", file="test.scores"),
    "train_biasvar_twofold": paths.fill(STUDY_PREDICTION, scheme="twofold", replicate="1a", file="test.scores"),
    "bag_submodel": paths.fill(paths.SUBMODEL, file="test.scores"),
}
