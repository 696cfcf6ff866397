"""``ltrbv plan``: the job grid of a config (a Snakemake dry run) and its cost in core-hours.

1. The config files are merged as Snakemake merges them (no file: the demo, ``config/demo.yaml``).
   With ``placeholders``, every real dataset of the run whose files are absent gets tiny placeholder
   folds (valid LETOR lines) in a scratch folder, so that the full grid of a paper-scale config can
   be listed on a machine without the data.
2. ``snakemake --dry-run`` lists the jobs (rule, wildcards, input files); the "Job stats" table gives the
   counts per rule.
3. Each job gets its size features (:func:`job_features`: documents, list length, trees, models, input files)
   from the config and the data sets' sizes (:mod:`ltrbv.workflow.sizes`: the files, or the published sizes of
   an absent data set).
4. Calibration runs (folders made by ``tests/benchmarks/calibrate_costs.py``: the run's complete config, its
   dry-run listing and its results) give every job's CPU seconds (its log's last line, the start-up and the
   work apart; its Snakemake benchmark file where the log has none) beside the same features;
   :mod:`ltrbv.workflow.costs` fits each rule's cost as a power law of the features and prices every planned
   job, with an uncertainty.
"""

from __future__ import annotations

import copy
import math
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd
import yaml
from snakemake.utils import update_config

from . import paths
from .datasets import SPLITS, raw_file
from .costs import SAMPLE_FRACTION_VARIANT, TRIAL_RUN_VARIANT, CostModels, measurement_name, model_variant
from .dryrun import Job, job_counts, parse_jobs
from .logs import CPU_LINE_PATTERN as CPU_LINE
from .sections import SECTIONS
from .sizes import SplitSize, split_size

REPO = Path(__file__).resolve().parents[3]
#: the study's training rules, one per scheme: a job fits a run's B (bootstrap) or 2J (two-fold) models
STUDY_TRAINING_RULES = ("train_biasvar_bootstrap", "train_biasvar_twofold")
#: a bag's training rules: a run's sub-models in one job (train_bag_<n>, read as train_bag: :func:`planned_jobs`) or
#: one sub-model a job
BAG_RULES = ("train_bag", "bag_submodel")
TRAINING_RULES = ("train_model", *STUDY_TRAINING_RULES, "train_trial", *BAG_RULES)


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
    return planned_jobs(text), job_counts(text), text


def planned_jobs(listing: str) -> list[Job]:
    """The jobs of a dry-run listing but ``all``, each under its job name's rule (:data:`~ltrbv.sections.core.grid.JOBS`:
    the bag-run rules ``train_bag_<n>``, one per bag size, are one rule ``train_bag`` to the cost models)."""
    from ..sections.core.grid import rule_job

    return [replace(job, rule=rule_job(job.rule)) for job in parse_jobs(listing) if job.rule != "all"]


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


def _benchmark_files(root: Path):
    """(path, rule, wildcards) of every Snakemake benchmark file under ``root`` (a job's, by its name)."""
    for path in sorted(root.rglob("*.tsv")):
        relative = path.relative_to(root).with_suffix("").parts
        if "benchmarks" in relative:
            relative = relative[len(relative) - relative[::-1].index("benchmarks"):]
        parsed = paths.parse_job("/".join(relative), SECTIONS.jobs())
        if parsed is not None:
            yield path, *parsed


def job_cost(root: Path, job: Job) -> dict | None:
    """A calibration job's CPU seconds ``{"startup", "work", "source"}``: its log's CPU line (exact), else its
    benchmark file's CPU time (all of it counted as work); None for a job that did not run."""
    log = root / job.log if job.log else None
    if log is not None and log.is_file():
        for line in reversed(log.read_text(encoding="utf-8", errors="replace").splitlines()):
            match = CPU_LINE.match(line)
            if match:
                return {"startup": float(match["startup"]), "work": max(float(match["work"]), 0.0), "source": "log"}
    bench = root / job.benchmark if job.benchmark else None
    if bench is not None and bench.is_file():
        cost = benchmark_cost(bench)
        if cost is not None:
            return {"startup": 0.0, "work": cost, "source": "benchmark"}
    return None


#: a calibration run folder's files (tests/benchmarks/calibrate_costs.py writes them)
CALIBRATION_CONFIG = "config.yaml"
CALIBRATION_DRYRUN = "dryrun.txt"


def calibration_table(run_dir: str | Path) -> pd.DataFrame:
    """One row per job of a calibration run: rule, learner, setting, family, dataset, startup, work and
    :data:`ltrbv.workflow.costs.FEATURES`.  Every benchmark file under the folder is checked first (a bad one is
    refused naming its file and line)."""
    from ..input_files import check_regular_file

    root = Path(run_dir)
    if not root.is_dir():
        raise ValueError(f"--calibration {run_dir}: not a folder")
    for path, _, _ in _benchmark_files(root):
        benchmark_cost(path)
    config_path = root / CALIBRATION_CONFIG
    if not config_path.exists():
        raise ValueError(f"--calibration {run_dir}: no {CALIBRATION_CONFIG}; a calibration run folder holds the run's "
                         f"complete config, its dry-run listing ({CALIBRATION_DRYRUN}) and its results "
                         "(tests/benchmarks/calibrate_costs.py makes one)")
    check_regular_file(config_path, "a config file")
    raw = yaml.safe_load(config_path.read_text()) or {}
    listing = root / CALIBRATION_DRYRUN
    if listing.exists():
        check_regular_file(listing, "a dry-run listing")
        jobs = planned_jobs(listing.read_text(encoding="utf-8"))
    else:
        jobs, _, _ = dry_run([str(config_path)])
    config = expanded_config(raw)
    sizes = SizeTable(config, results=root / paths.RESULTS)
    rows = []
    for job in jobs:
        cost = job_cost(root, job)
        if cost is None:
            continue
        rows.append({**job_key(job, config), "dataset": job.get("dataset") or "", **cost,
                     **job_features(job, config, sizes)})
    return pd.DataFrame(rows)


def calibration_costs(run_dirs: list[str]) -> pd.DataFrame:
    """The calibration tables of several runs, one after another (each row tagged with its run)."""
    tables = []
    for run_dir in run_dirs:
        table = calibration_table(run_dir)
        if table.empty:
            raise ValueError(f"--calibration {run_dir}: no job of the run has a log or benchmark file with its CPU "
                             "time (did the run finish?)")
        tables.append(table.assign(run=str(run_dir)))
    return pd.concat(tables, ignore_index=True)


# -- the size features of a job -------------------------------------------------------------------------------

#: rules that fit a learner's models (their cost grows with the training set and the learner's trees)
MODEL_RULES = (*TRAINING_RULES, "tree_strength")
#: the catalog's timing jobs: each fits its entry's timed learners (their sizes: :func:`job_features`)
TIMING_RULE = "catalog_timing"


def expanded_config(config: dict) -> dict:
    """A merged config with the schemas' defaults and every section's generated learners (the catalog's sweeps and
    grids), as the workflow sees it (without the data checks: the dry run made them)."""
    from .config_checks import fill_defaults

    config = fill_defaults(copy.deepcopy(config))
    for section in SECTIONS[1:]:
        section.expand(config)
    return config


class SizeTable:
    """The sizes of a config's data sets' splits (:func:`ltrbv.workflow.sizes.split_size`), each looked up once."""

    def __init__(self, config: dict, results: Path | None = None, mapping: dict | None = None):
        self.config, self.results, self.mapping = config, results, mapping or {}
        self._cache = {}

    def __call__(self, dataset: str, fold: str, split: str) -> SplitSize:
        key = (dataset, fold, split)
        if key not in self._cache:
            self._cache[key] = split_size(self.config, dataset, fold, split, results=self.results,
                                          mapping=self.mapping)
        return self._cache[key]


def learner_family(kind: str, params: dict) -> str:
    """A learner's cost family: its kind, a forest's splitting (``forest-list``), a bag's base (``bag-xgboost``)."""
    if kind == "random_forest":
        return f"forest-{params.get('splitting', _default(kind, 'splitting'))}"
    return kind


def _default(kind: str, name: str):
    import inspect

    from ..learners import LEARNER_KINDS

    parameter = inspect.signature(LEARNER_KINDS[kind]).parameters.get(name)
    return None if parameter is None else parameter.default


def _trees(kind: str, params: dict) -> float:
    """A learner's trees (boosting rounds: the cap, an upper bound where it stops early); 1 for other kinds."""
    if kind not in ("random_forest", "xgboost", "lightgbm"):
        return 1.0
    value = params.get("n_estimators", _default(kind, "n_estimators"))
    return float(value) if value else 1.0


def _model_spec(job: Job, config: dict) -> tuple[str, dict, float]:
    """(kind, params, models in the job) of the learner a model rule's job fits."""
    from ..sections.biasvar.grid import learner_spec, replicates
    from ..sections.core.grid import bag_spec

    learner = job.get("learner")
    if job.rule in STUDY_TRAINING_RULES:
        spec = learner_spec(config, learner, job.get("setting"))
        models = len(replicates(config, job.rule.removeprefix("train_biasvar_")))
        if "bag" in spec:
            return spec["bag"]["kind"], spec["bag"]["params"], models * spec["bag"]["n_models"]
        return spec["kind"], spec["params"], models
    if job.rule in BAG_RULES:
        spec = bag_spec(config, learner)
        return spec["kind"], spec["params"], float(spec["n_models"]) if job.rule == "train_bag" else 1.0
    if job.rule == "tree_strength":
        from ..sections.diagnostics.grid import tree_strength_settings

        entry = config["learners"][learner]
        return entry["kind"], {**entry.get("params", {}), "n_estimators": tree_strength_settings(config)["n_trees"]}, 1.0
    entry = config["learners"][learner]
    return entry["kind"], entry.get("params", {}), 1.0


def job_key(job: Job, config: dict) -> dict:
    """rule, learner, setting and cost family of a job (the family of a model rule's learner; '' otherwise)."""
    learner = job.get("learner") or job.get("model") or job.get("experiment") or job.get("page") or job.get("entry") or ""
    family = ""
    if job.rule in MODEL_RULES and job.get("learner") in config["learners"]:
        kind, params, _ = _model_spec(job, config)
        family = learner_family(kind, params)
        if job.rule in BAG_RULES or config["learners"][job.get("learner")]["kind"] == "bag":
            family = f"bag-{family}"
    return {"rule": job.rule, "learner": learner, "setting": job.get("setting") or "", "family": family}


def _first_fold(config: dict, dataset: str) -> str:
    return config["datasets"][dataset]["folds"][0]


def job_features(job: Job, config: dict, sizes: SizeTable) -> dict:
    """The size features of a job (:data:`ltrbv.workflow.costs.FEATURES`), each > 0:

    * ``docs``: a model rule's training documents (the fold's training split), a parser's split, any other rule's
      test documents (the data set's first fold where the job covers several);
    * ``list_length``: the training split's documents per query (model rules; 1 otherwise);
    * ``trees``: the learner's trees (model rules; 1 otherwise);
    * ``models``: the models a job fits one after another (a study run's B or 2J, a bag run's sub-models; 1 otherwise);
    * ``inputs``: the job's input files (rules that are not model rules; 1 otherwise).

    A catalog timing job fits each timed learner ``repeats`` times on the first fold's training split: its
    documents, the timing's trees, and models = learners x repeats (a lean calibration run times fewer learners).
    """
    features = {"docs": 1.0, "list_length": 1.0, "trees": 1.0, "models": 1.0, "inputs": 1.0}
    dataset = job.get("dataset")
    if dataset is None or dataset not in config["datasets"]:
        features["inputs"] = float(max(len(job.inputs), 1))
        return features
    fold = job.get("fold") or job.get("partition") or _first_fold(config, dataset)
    if fold not in config["datasets"][dataset]["folds"]:
        fold = _first_fold(config, dataset)
    if job.rule in MODEL_RULES and job.get("learner") in config["learners"]:
        kind, params, models = _model_spec(job, config)
        train = sizes(dataset, fold, "train")
        features.update(docs=float(train.docs), list_length=train.list_length, trees=_trees(kind, params),
                        models=float(models))
        return features
    if job.rule == TIMING_RULE and job.get("entry"):
        from ..sections.catalog.grid import settings, timed_learners

        timing, train = settings(config)["timing"], sizes(dataset, _first_fold(config, dataset), "train")
        features.update(docs=float(train.docs), list_length=train.list_length, trees=float(timing["trees"]),
                        models=float(len(timed_learners(config, job.get("entry"))) * timing["repeats"]))
        return features
    split = job.get("split") if job.rule in ("parse_split", "validation_split") and job.get("split") else "test"
    if job.rule == "validation_split":
        split = "train"
    features.update(docs=float(sizes(dataset, fold, split).docs), inputs=float(max(len(job.inputs), 1)))
    return features


def estimate(jobs: list[Job], config: dict, sizes: SizeTable, models: CostModels) -> pd.DataFrame:
    """Core-seconds per planned (dataset, rule, learner, setting): each job priced by its group's cost model, with
    a low and a high estimate (one log-sd of the model's uncertainty apart)."""
    rows = []
    for job in jobs:
        key = job_key(job, config)
        price = models.predict(key["rule"], key["family"], key["learner"], key["setting"], job.get("dataset") or "",
                               job_features(job, config, sizes), variant=anchor_variant(job, config))
        rows.append({"dataset": job.get("dataset") or "", **key, **price})
    planned = pd.DataFrame(rows, columns=["dataset", "rule", "learner", "setting", "family", "seconds", "low", "high",
                                          "source"])
    grouped = planned.groupby(["dataset", "rule", "learner", "setting", "family", "source"], sort=False).agg(
        jobs=("seconds", "size"), core_seconds_each=("seconds", "mean"), core_hours=("seconds", "sum"),
        low=("low", "sum"), high=("high", "sum")).reset_index()
    for column in ("core_hours", "low", "high"):
        grouped[column] = grouped[column] / 3600
    return grouped


# -- full-size anchors ----------------------------------------------------------------------------------------


def anchor_variant(job: Job, config: dict) -> str:
    """What besides its family and data set a model job's anchor must share with the measured model: a forest's
    ``subsample`` as a share of the fold's training queries (a tree's rows: RF-list's cost per row grows with them,
    so a factor measured at 63% does not carry to the 5% variants; a study run's, :func:`_tree_share`); '' for
    other jobs and learners (a boosting model's cost per round is linear in its documents, so its factor carries to
    its grid and, where they were not measured themselves, to its bag's sub-models, trials and study runs); for a
    forest bag's jobs, also its ``sample_fraction`` (its trees see that share of the queries); and, for a bag's
    jobs, whether the run is a variance trial's (:data:`TRIAL_RUN_VARIANT`: its sub-models sample the trial's share
    of the queries, not the fold's)."""
    if job.rule not in MODEL_RULES or job.get("learner") not in config["learners"]:
        return ""
    kind, params, _ = _model_spec(job, config)
    parts = [f"subsample={_tree_share(job, config, kind, params)!r}"] if kind == "random_forest" else []
    if parts and job.rule in BAG_RULES:  # a forest bag's trees see its sample of the queries: rows as subsample's
        from ..sections.core.grid import bag_spec

        parts.append(f"{SAMPLE_FRACTION_VARIANT}{float(bag_spec(config, job.get('learner'))['sample_fraction'])!r}")
    if job.rule in BAG_RULES and job.get("run") and paths.run_trial(job.get("run")) is not None:
        parts.append(TRIAL_RUN_VARIANT)  # a bag's trial run: its sub-models sample the trial's share of the queries
    return ", ".join(parts)


def _tree_share(job: Job, config: dict, kind: str, params: dict) -> float:
    """A forest's ``subsample`` as a share of the fold's training queries, which a tree of the job draws: the
    learner's own, or, for a study run, its sweep value where that is a share of the original queries (``relative_to:
    original``), else its share of the run's training sets (the scheme's fraction of the queries)."""
    share = float(params.get("subsample", _default(kind, "subsample")))
    if job.rule not in STUDY_TRAINING_RULES:
        return share
    from ..sections.biasvar.grid import learner_spec, scheme_fraction

    sweep = learner_spec(config, job.get("learner"), job.get("setting"))["sweep"]
    if sweep and sweep["relative_to_original"]:
        return share
    return share * scheme_fraction(config, job.rule.removeprefix("train_biasvar_"))


#: the training rules a full-size measurement can stand for: one model of the learner (``train_model``), one
#: sub-model of a bag (``bag_submodel``: the bag's base on its ``sample_fraction`` of the queries), one run of a bag
#: trained a run a job (``train_bag``: its sub-models one after another), one variance trial (``train_trial``: the
#: learner on the trial's share of the queries), one run of the bias-variance study (``train_biasvar_<scheme>``: the
#: learner at one setting on each of the scheme's training sets)
MEASURED_RULES = ("train_model", *BAG_RULES, "train_trial", *STUDY_TRAINING_RULES)


def measured_rule(config: dict, learner: str) -> str:
    """The rule a measurement of ``learner`` stands for when it names none: a bag's training rule (``bag_submodel``
    or ``train_bag``, as its ``jobs``), else ``train_model``."""
    from ..sections.core.grid import bag_jobs

    if config["learners"][learner]["kind"] != "bag":
        return "train_model"
    return "bag_submodel" if bag_jobs(config, learner) == "submodel" else "train_bag"


def measurement_problem(config: dict, dataset: str, learner: str, rule, trial_run: bool = False,
                        setting: str | None = None) -> str | None:
    """Why a measurement of ``learner``'s ``rule`` job (of a trial run; of a study run at ``setting``) on ``dataset``
    stands for no job the config plans, or None: ``rule`` not one of :data:`MEASURED_RULES`, a bag measured by other
    than its training rule or a model learner by a bag's, a trial run of other than a bag's job, a sub-model of a
    bag trained a run a job or a run of one trained a sub-model a job, a trial (or a trial run's bag job) of a
    learner that runs no variance trials on ``dataset``, a setting given to other than a study rule, a study run
    (learner, setting, scheme) the study does not make on ``dataset``'s first study fold."""
    from ..sections.bagging.grid import variance_settings
    from ..sections.core.grid import bag_jobs

    kind = config["learners"][learner]["kind"]
    if rule not in MEASURED_RULES:
        return f"rule {rule!r} is not one of {', '.join(MEASURED_RULES)}"
    if setting is not None and rule not in STUDY_TRAINING_RULES:
        return f"a setting names a run of the bias-variance study ({', '.join(STUDY_TRAINING_RULES)}), not of {rule}"
    if (kind == "bag") != (rule in BAG_RULES):
        return (f"rule {rule} with learner {learner!r} (a {kind}): a bag's measurement is one of its sub-models "
                "(bag_submodel) or runs (train_bag), any other learner's a model (train_model, train_trial, a study's)")
    if trial_run and rule not in BAG_RULES:
        return f"a trial run's measurement is a bag's sub-model or run, not {rule}"
    if rule in BAG_RULES and rule != measured_rule(config, learner):
        return (f"bag {learner!r} trains {'a run' if bag_jobs(config, learner) == 'run' else 'a sub-model'} a job "
                f"(jobs: {bag_jobs(config, learner)}): no {rule} job of it is planned")
    if (rule == "train_trial" or trial_run) \
            and learner not in (variance_settings(config, dataset) or {}).get("learners", ()):
        return f"{learner!r} runs no variance trials on {dataset} (bagging.variance_trials): no job would use it"
    if rule in STUDY_TRAINING_RULES:
        return _study_run_problem(config, dataset, learner, rule, setting)
    return None


def _study_run_problem(config: dict, dataset: str, learner: str, rule: str, setting: str | None) -> str | None:
    """Why (learner, setting, the rule's scheme) is no run of the study on ``dataset``'s first study fold, or None."""
    from ..sections.biasvar.grid import BASE_SETTING, settings, study_datasets, study_folds, study_runs, trained_here

    setting = BASE_SETTING if setting is None else setting
    if settings(config) is None or dataset not in study_datasets(config):
        return f"the bias-variance study (biasvar) makes no run on {dataset}"
    if learner not in trained_here(config):
        return f"{learner!r} brings its own rule: no {rule} job of it is planned"
    run = (learner, study_folds(config, dataset)[0], setting, rule.removeprefix("train_biasvar_"))
    if run not in study_runs(config, dataset):
        return (f"the study makes no run of {learner!r} at setting {setting!r} with scheme {run[3]} on {dataset} "
                f"(fold {run[1]}; biasvar.sweep and biasvar.compare)")
    return None


def model_job(config: dict, dataset: str, learner: str, rule: str = "train_model", trial_run: bool = False,
              setting: str | None = None) -> Job:
    """The job of ``rule`` that fits one model of ``learner`` on ``dataset``: a seed run's on the first fold, a
    sub-model's (k = 0) of a bag's seed run (``trial_run``: of its trial 1 run, on the trials' fold), a variance
    trial's on the trials' fold; a bag's run (``train_bag``: its sub-models one after another) and a study rule's,
    the run at ``setting`` (default ``base``) on the first study fold, which fits the scheme's B (or 2J) models, fit
    several."""
    if rule in STUDY_TRAINING_RULES:
        from ..sections.biasvar.grid import BASE_SETTING, study_folds

        return Job(rule, (("dataset", dataset), ("fold", study_folds(config, dataset)[0]), ("learner", learner),
                          ("setting", BASE_SETTING if setting is None else setting)))
    fold = _first_fold(config, dataset)
    if rule == "train_trial" or trial_run:
        from ..sections.bagging.grid import variance_settings

        fold = (variance_settings(config, dataset) or {}).get("fold", fold)
    run = paths.trial_run(1) if trial_run else paths.SEED_RUN.format(seed=0)
    extra = {"train_model": (("seed", "0"),), "bag_submodel": (("run", run), ("k", "0")), "train_bag": (("run", run),),
             "train_trial": (("trial", "1"),)}[rule]
    return Job(rule, (("dataset", dataset), ("fold", fold), ("learner", learner), *extra))


def model_job_price(config: dict, sizes: SizeTable, models: CostModels, dataset: str, learner: str,
                    rule: str = "train_model", trial_run: bool = False, setting: str | None = None) -> tuple:
    """(job, key, price, work) of :func:`model_job` priced as :func:`estimate` prices it; ``work`` is the price
    without the rule's start-up."""
    job = model_job(config, dataset, learner, rule, trial_run, setting)
    key = job_key(job, config)
    price = models.predict(key["rule"], key["family"], key["learner"], key["setting"], dataset,
                           job_features(job, config, sizes), variant=anchor_variant(job, config))
    return job, key, price, price["seconds"] - models.startup.get(rule, models.startup_all)


def anchor_factors(paths: list[str], config: dict, sizes: SizeTable, models: CostModels) -> dict:
    """{(dataset, rule, learner family, variant): factor} from full-size measurements
    (``tests/benchmarks/check_plan_target.py --json``: rows of ``dataset``, ``learner``, ``projected_s`` (one model's
    CPU seconds projected from its first trees fitted at the data set's full size) and ``rule``, one of
    :data:`MEASURED_RULES` (default :func:`measured_rule`)).  A row's factor is its projection over the work
    ``models`` price the rule's job of one model at (:func:`model_job`, its start-up apart); a group's, the geometric
    mean of its rows'.  The calibration measures at 0.25-4% of a data set and extrapolates; a factor moves the
    price to what a model costs where the plan prices it, for the rule's jobs of the family and
    :func:`anchor_variant` (and, a ``train_model`` factor, the family's other training rules measured by none:
    :meth:`CostModels.anchor`).  A bad file or row is refused, naming it."""
    return read_anchors(paths, config, sizes, models)[0]


def read_anchors(paths: list[str], config: dict, sizes: SizeTable,
                 models: CostModels) -> tuple[dict, AnchorSpread, dict]:
    """(:func:`anchor_factors`, :func:`anchor_spread`, :func:`own_factors`) from one reading of the anchor files."""
    ratios = _anchor_ratios(paths, config, sizes, models)
    means = _group_means(ratios)
    own = {(*group, name): math.exp(_mean(logs)) for group, names in ratios.items() for name, logs in names.items()}
    return {group: math.exp(mean) for group, mean in means.items()}, _spread(ratios, means), own


def own_factors(paths: list[str], config: dict, sizes: SizeTable, models: CostModels) -> dict:
    """{(dataset, rule, family, variant, measurement name): factor}: each measured learner's (a study run's: at its
    setting, :func:`~ltrbv.workflow.costs.measurement_name`) own factor, the geometric mean of its rows' ratios; it
    prices that learner's jobs of the rule and variant on the data set (:attr:`CostModels.own_anchors`), its
    group's factor (:func:`anchor_factors`) the group's other learners.  A job measured itself no longer carries a
    factor from another learner: its price is its measurement."""
    return read_anchors(paths, config, sizes, models)[2]


def _group_means(ratios: dict) -> dict:
    """Each (dataset, rule, family, variant) group's mean log ratio: the mean of its measured learners' means (a
    learner measured twice weighs as one)."""
    return {group: _mean([_mean(values) for values in learners.values()]) for group, learners in ratios.items()}


@dataclass(frozen=True)
class AnchorSpread:
    """How far a full-size factor carries (:func:`anchor_spread`): log-sd and the number of checks behind it."""

    transfer_sd: float | None   # to another learner of the measured rule and family
    transfer_checks: int
    rule_sd: float | None       # from train_model's factor to another rule's (bag sub-models, trials) of the family
    rule_checks: int
    repeat_sd: float | None = None  # between repeated measurements of one learner
    repeat_checks: int = 0


def _rms(errors: list[float]) -> float | None:
    return math.sqrt(sum(e * e for e in errors) / len(errors)) if errors else None


def anchor_spread(paths: list[str], config: dict, sizes: SizeTable, models: CostModels) -> AnchorSpread:
    """How far the anchors' factors carry, from the anchor files' own rows:

    * ``transfer_sd``: the root mean square, over every measured learner of a (data set, rule, family, variant)
      with another measured learner, of its log ratio (measured / calibrated) minus the mean of the others'
      (``check_plan_target.py``'s leave-one-out check): an anchored job's log-sd in place of the extrapolation's
      (:attr:`CostModels.anchor_sd`), since it no longer extrapolates but carries a factor to its learner;
    * ``rule_sd``: the root mean square, over every measured rule other than ``train_model`` whose family (a bag's:
      its base's) and forest variant also has a measured ``train_model`` factor, of the log of their ratio: added
      for a job that borrows ``train_model``'s factor (:attr:`CostModels.anchor_rule_sd`);
    * ``repeat_sd``: the pooled standard deviation of the log ratios of a learner measured more than once (rows of
      several runs), over ``repeat_checks`` = the rows beyond each learner's first: the log-sd of a job priced by
      its own measurement (:attr:`CostModels.anchor_own_sd`).

    Each is None where no such pair was measured (the calibration's extrapolation term is then kept; for a job
    measured itself, ``transfer_sd``)."""
    return read_anchors(paths, config, sizes, models)[1]


def _spread(ratios: dict, means: dict) -> AnchorSpread:
    transfer = []
    for learners in ratios.values():
        for learner, logs in learners.items():
            others = [v for other, values in learners.items() if other != learner for v in values]
            if others:
                transfer.append(_mean(logs) - _mean(others))
    rules = []
    for (dataset, rule, family, variant), mean in means.items():
        model = means.get((dataset, "train_model", family.removeprefix("bag-"), model_variant(variant)))
        if rule != "train_model" and model is not None:
            rules.append(mean - model)
    squares, degrees = 0.0, 0
    for names in ratios.values():
        for logs in names.values():
            squares += sum((v - _mean(logs)) ** 2 for v in logs)
            degrees += len(logs) - 1
    repeat = math.sqrt(squares / degrees) if degrees else None
    return AnchorSpread(_rms(transfer), len(transfer), _rms(rules), len(rules), repeat, degrees)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _anchor_ratios(paths: list[str], config: dict, sizes: SizeTable, models: CostModels) -> dict:
    """{(dataset, rule, family, variant): {learner: [log(projected / calibrated work)]}} of the anchor files' rows,
    each checked: a bad file or row is refused, naming it, and so is a row that no job of the config would use (a
    bag's sub-model where the bag trains a run a job, a trial where the config runs none), a row measured for other
    trees or models than the job now has, a file given twice and a row repeating an earlier one (a measurement
    counted twice would narrow the repeats' spread and weigh its learner twice)."""
    import json

    models = replace(models, anchors={}, anchor_sd=None, anchor_rule_sd=None, own_anchors={},
                     anchor_own_sd=None)  # priced as calibrated: never compounded
    ratios: dict = {}
    seen_paths: dict = {}
    seen_rows: dict = {}
    for path in paths:
        resolved = Path(path).resolve()
        if resolved in seen_paths:
            raise ValueError(f"--anchors {path}: the same file as {seen_paths[resolved]}, given twice")
        seen_paths[resolved] = path
        try:
            rows = json.loads(Path(path).read_text())["rows"]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ValueError(f"--anchors {path}: not a check_plan_target.py --json file ({error})") from None
        if not isinstance(rows, list):
            raise ValueError(f"--anchors {path}: 'rows' is not a list")
        for i, row in enumerate(rows):
            where = f"--anchors {path}, row {i + 1}"
            if not isinstance(row, dict):
                raise ValueError(f"{where}: not an object")
            text = json.dumps(row, sort_keys=True)
            if text in seen_rows:
                raise ValueError(f"{where}: repeats {seen_rows[text]} (the same measurement twice)")
            seen_rows[text] = f"--anchors {path}, row {i + 1}"
            dataset, learner, projected = row.get("dataset"), row.get("learner"), row.get("projected_s")
            if not isinstance(dataset, str) or dataset not in config["datasets"]:
                raise ValueError(f"{where}: data set {dataset!r} is not in the config")
            if not isinstance(learner, str) or learner not in config["learners"]:
                raise ValueError(f"{where}: learner {learner!r} is not a learner of the config")
            rule, run = row.get("rule", measured_rule(config, learner)), row.get("run", "seed")
            if run not in ("seed", "trial"):
                raise ValueError(f"{where}: run {run!r}: 'seed' (default), or 'trial' for a bag's job of a "
                                 "variance trial's run")
            setting = row.get("setting")
            if setting is not None and (not isinstance(setting, str) or not setting):
                raise ValueError(f"{where}: setting {setting!r}: a study run's setting, e.g. 'base' or 'subsample=0.5'")
            problem = measurement_problem(config, dataset, learner, rule, run == "trial", setting)
            if problem:
                raise ValueError(f"{where}: {problem}")
            try:
                positive = not isinstance(projected, bool) and isinstance(projected, (int, float)) \
                    and math.isfinite(projected) and projected > 0
            except OverflowError:
                positive = False
            if not positive:
                raise ValueError(f"{where}: projected_s must be a positive number, got {projected!r}")
            job, key, _, work = model_job_price(config, sizes, models, dataset, learner, rule, run == "trial",
                                                setting)
            if work <= 0:
                raise ValueError(f"{where}: the calibration prices no work for {learner}'s {rule} on {dataset}")
            kind, params, n_models = _model_spec(job, config)
            for name, planned in (("trees", _trees(kind, params)), ("models", n_models)):
                if name in row and not (not isinstance(row[name], bool) and isinstance(row[name], (int, float))
                                        and row[name] == planned):
                    raise ValueError(f"{where}: measured for {name} {row[name]!r}, but the config's {rule} job of "
                                     f"{learner} has {planned:g}: measure it again")
            group = ratios.setdefault((dataset, rule, key["family"], anchor_variant(job, config)), {})
            # a study run at another setting is another model: a transfer check, as another learner would be
            group.setdefault(measurement_name(learner, job.get("setting")), []).append(math.log(projected / work))
    return ratios
