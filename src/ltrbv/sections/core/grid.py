"""The core run's job grid: parsed folds, one prediction file per (learner, fold, seed), metrics, tables.

Config: ``seed``, ``run`` (datasets, learners, seeds), ``metrics``, ``datasets``, ``learners`` and ``figures``
(schema: ``config/schema/core.schema.yaml``); rules: ``rules/core.smk``.  A learner of kind ``bag`` (BL-MART)
is a learner of the core run like any other: its sub-models and their combination are rules of this section
(``train_bag_<n>``, or ``bag_submodel`` where the learner's ``jobs`` is ``submodel``; ``combine_bag``), for the
seed runs of every section and the bagging section's trials.
"""

from __future__ import annotations

from pathlib import Path

from ...learners import LEARNER_KINDS
from ...learners.bag import BAG_KIND
from ...metrics.conventions import CONVENTIONS
from ...workflow import paths
from ...workflow.datasets import SPLITS, MissingDataError, check_raw_files, fetch_problems, raw_source
from ...workflow.section import Page
from ...workflow.validation import learner_problems, non_finite_values, param_problems, unknown_name

#: its top-level config key (None: always on) and its place in the registry's order (ltrbv.workflow.sections)
CONFIG_KEY = "run"
ORDER = 0  # its learners are every section's: first

JOBS = {
    "synthetic_folds": "synthetic_folds",
    "validation_split": "validation_split/{fold}",
    "parse_split": "parse_split/{fold}/{split}",
    "fetch_dataset": "fetch_dataset",
    "train_model": "train_model/{learner}/{fold}/seed{seed}",
    "train_bag": "train_bag/{learner}/{fold}/{run}",
    "bag_submodel": "bag_submodel/{learner}/{fold}/{run}/sub{k}",
    "combine_bag": "combine_bag/{learner}/{fold}/{run}",
    "evaluate": "evaluate/{learner}",
    "performance_table": "performance_table",
    "plot_performance": "plot_performance",
}

#: the report's menu entry of the core run's tables and figures
CATEGORY = "2. Performance"
PAGES = {
    "performance": Page(paths.table("performance", "md"), CATEGORY, "Performance",
                        "Mean of each metric over each learner's seeds, per test fold and over folds "
                        "(tables/performance.csv has every value)."),
}


def sorted_dict(value):
    """A dict with its keys sorted, recursively: a rule's params in a form Snakemake compares by value (it compares
    params by repr(), so reordering a config entry is not a change)."""
    return {key: sorted_dict(value[key]) for key in sorted(value)} if isinstance(value, dict) else value


def bag_spec(config: dict, learner: str) -> dict:
    """A bag entry (defaults filled in by the schema) with its sub-models' learner: base entry + ``base_params``."""
    params = config["learners"][learner]["params"]
    base = config["learners"][params["base"]]
    return {
        "name": learner,
        "base": params["base"],
        "kind": base["kind"],
        "params": sorted_dict({**base.get("params", {}), **params.get("base_params", {})}),
        "n_models": int(params["n_models"]),
        "sample_fraction": float(params["sample_fraction"]),
        "combine": params["combine"],
    }


def built_in_learners(config: dict) -> list[str]:
    """Learners trained by the generic ``train_model`` rule (their kind is in LEARNER_KINDS)."""
    return [name for name, entry in config["learners"].items() if entry["kind"] in LEARNER_KINDS]


def trainable(kind: str) -> bool:
    """A learner kind the workflow trains itself: built-in (rule train_model) or a bag (the bag rules)."""
    return kind in LEARNER_KINDS or kind == BAG_KIND


def bag_learners(config: dict) -> list[str]:
    """Bagged learners (kind ``bag``): trained by the ``train_bag_<n>`` (or ``bag_submodel``) and ``combine_bag``
    rules."""
    return [name for name, entry in config["learners"].items() if entry["kind"] == BAG_KIND]


#: the rules that train a bag's run in one job, one rule per bag size: ``train_bag_<n_models>`` (job name: JOBS's)
BAG_RUN_RULE = "train_bag"


def bag_jobs(config: dict, learner: str) -> str:
    """A bag learner's training jobs (``learners.<name>.jobs``, its default filled in by the schema): ``run``, one job
    per training run fitting the sub-models one after another (a sub-model of MQ2008 trains in less than a job's
    start-up), or ``submodel``, one job per sub-model (a cluster spreads a large bag's sub-models over its nodes)."""
    return config["learners"][learner]["jobs"]


def bag_run_sizes(config: dict) -> dict[int, list[str]]:
    """``{n_models: [bag learners]}`` of the bags trained one job per run (rules ``train_bag_<n_models>``)."""
    sizes = {}
    for name in bag_learners(config):
        if bag_jobs(config, name) == "run":
            sizes.setdefault(int(config["learners"][name]["params"]["n_models"]), []).append(name)
    return dict(sorted(sizes.items()))


def submodel_job_learners(config: dict) -> list[str]:
    """The bag learners trained one job per sub-model (rule ``bag_submodel``)."""
    return [name for name in bag_learners(config) if bag_jobs(config, name) == "submodel"]


def rule_job(rule: str) -> str:
    """The job name (a key of JOBS) of a rule: a bag-run rule ``train_bag_<n>`` is ``train_bag``; others their own."""
    stem, _, size = rule.rpartition("_")
    return stem if stem == BAG_RUN_RULE and size.isdigit() else rule


def named_submodel_files(n_models: int, file: str, name: str) -> dict[str, str]:
    """``{f"{name}_{k}": sub-model k's file template}`` for k < n_models: a bag-run rule's outputs (wildcards dataset,
    learner, fold, run)."""
    return {f"{name}_{k}": paths.fill(paths.SUBMODEL, k=k, file=file) for k in range(n_models)}


def learner_rule_params(config: dict, learner: str) -> dict:
    entry = config["learners"][learner]
    return {"name": learner, "kind": entry["kind"], "params": sorted_dict(dict(entry.get("params", {})))}


def raw_input(config: dict, dataset: str, fold: str, split: str) -> str:
    return raw_source(config["datasets"][dataset], fold, split)


def validation_split_input(config: dict, dataset: str, fold: str, split: str) -> list[str]:
    """The carved split's record a training or validation parse reads (``validation_from_train``), or none."""
    if not config["datasets"][dataset].get("validation_from_train") or split == "test":
        return []
    return [paths.VALIDATION_SPLIT.format(dataset=dataset, fold=fold)]


def damaged_cache(dataset: str, fold: str, split: str) -> str | None:
    """Why an existing parsed cache is unusable, or None (absent caches are fine: they will be built).

    Every cache gets the cheap structural check; one changed after its parse job ended (newer than
    the job's benchmark file) is read in full and its checksum verified, because Snakemake would
    rerun, and so first delete, everything downstream of it.
    """
    from ...data.cache import CacheFormatError, check_cache_file, load_cache

    cache = Path(paths.parsed(dataset, fold, split))
    if not cache.exists():
        return None
    benchmark = Path(paths.benchmark(JOBS["parse_split"]).format(dataset=dataset, fold=fold, split=split))
    try:
        check_cache_file(cache)
        if not benchmark.exists() or cache.stat().st_mtime > benchmark.stat().st_mtime:
            load_cache(cache)
    except CacheFormatError as error:
        return str(error)
    return None


def prediction_files(config: dict, dataset: str, file: str = "test.scores") -> list[str]:
    return [paths.prediction(dataset, learner, fold, paths.seed_run(seed), file)
            for learner in config["run"]["learners"]
            for fold in config["datasets"][dataset]["folds"]
            for seed in config["run"]["seeds"]]


def metrics_files(config: dict, dataset: str) -> list[str]:
    return [paths.METRICS.format(dataset=dataset, learner=learner) for learner in config["run"]["learners"]]


def evaluation_inputs(config: dict, dataset: str, learner: str) -> dict:
    """Rule evaluate's inputs by name: ``{"data": {fold: parsed test split}, "scores": {fold: {seed: test
    scores}}}``; one job evaluates every fold and seed of a learner (one job per prediction file cost more in
    start-up than in work)."""
    folds = config["datasets"][dataset]["folds"]
    return {"data": parsed_files(config, dataset, "test"),
            "scores": {fold: {str(seed): paths.prediction(dataset, learner, fold, paths.seed_run(seed))
                              for seed in config["run"]["seeds"]} for fold in folds}}


def submodel_files(config: dict, dataset: str, learner: str, fold: str, run: str, file: str,
                   n_models: int | None = None) -> list[str]:
    """The files ``file`` of a bag's sub-models in one training run (all of them, or the first ``n_models``)."""
    n = bag_spec(config, learner)["n_models"] if n_models is None else n_models
    return [paths.SUBMODEL.format(dataset=dataset, learner=learner, fold=fold, run=run, k=k, file=file)
            for k in range(n)]


def trial_input(dataset: str, fold: str, run: str) -> list[str]:
    """A training run's query sample file: the trial's for ``trial<t>``, none for ``seed<n>`` (all queries)."""
    trial = paths.run_trial(run)
    return [] if trial is None else [paths.TRIAL_QUERIES.format(dataset=dataset, fold=fold, trial=trial)]


def training_benchmarks(config: dict, dataset: str, learner: str, fold: str, seed) -> list[str]:
    """The benchmark files of the jobs that train one (learner, fold, seed): train_model's, or a bag's training
    job's (train_bag) or sub-models' (bag_submodel) and combine_bag's."""
    entry = config["learners"][learner]
    if entry["kind"] != BAG_KIND:
        return [paths.benchmark(JOBS["train_model"]).format(dataset=dataset, learner=learner, fold=fold, seed=seed)]
    run = paths.seed_run(seed)
    return [*bag_training_benchmarks(config, dataset, learner, fold, run),
            paths.benchmark(JOBS["combine_bag"]).format(dataset=dataset, learner=learner, fold=fold, run=run)]


def bag_training_benchmarks(config: dict, dataset: str, learner: str, fold: str, run: str,
                            submodels=None) -> list[str]:
    """The benchmark files of the jobs that train a bag's run (or, with ``submodels``, those sub-models): the run's
    one train_bag job, or one bag_submodel job per sub-model."""
    if bag_jobs(config, learner) == "run":
        return [paths.benchmark(JOBS[BAG_RUN_RULE]).format(dataset=dataset, learner=learner, fold=fold, run=run)]
    ks = range(int(config["learners"][learner]["params"]["n_models"])) if submodels is None else submodels
    return [paths.benchmark(JOBS["bag_submodel"]).format(dataset=dataset, learner=learner, fold=fold, run=run, k=k)
            for k in ks]


def parsed_files(config: dict, dataset: str, split: str) -> dict[str, str]:
    """``{fold: parsed split}`` of every fold of a dataset."""
    return {fold: paths.parsed(dataset, fold, split) for fold in config["datasets"][dataset]["folds"]}


def performance_targets(config: dict) -> list[str]:
    return [path for dataset in config["run"]["datasets"]
            for path in (paths.table("performance", "csv", dataset), paths.table("performance", "md", dataset),
                         *paths.figures("performance", dataset))]


def intermediate_targets(config: dict) -> list[str]:
    """Parsed folds, prediction files and per-query metrics: requested by rule all so that a job that
    failed (and lost its old output) is redone on the next run instead of leaving stale tables."""
    files = []
    for dataset in config["run"]["datasets"]:
        folds = config["datasets"][dataset]["folds"]
        files += [paths.parsed(dataset, fold, split) for fold in folds for split in SPLITS]
        files += prediction_files(config, dataset) + metrics_files(config, dataset)
    return files


def settings(config: dict) -> dict:
    """The core run (always on): ``run``."""
    return config["run"]


def targets(config: dict) -> list[str]:
    return performance_targets(config) + intermediate_targets(config)


def bag_problems(config: dict) -> list[str]:
    """A bag's base must be a built-in learner of the config, and its ``base_params`` parameters of that learner;
    ``jobs`` (how a bag's sub-models are split into jobs) is a bag's key only."""
    problems = [f"learners.{name}.jobs: only a bag's (kind bag) training jobs are chosen; {name!r} is of kind "
                f"{entry['kind']!r}" for name, entry in config["learners"].items()
                if "jobs" in entry and entry["kind"] != BAG_KIND]
    for name in bag_learners(config):
        params = config["learners"][name].get("params", {})
        base = params.get("base")
        if base not in config["learners"]:
            problems.append(unknown_name(f"learners.{name}.params.base", base, config["learners"], "learners"))
        elif config["learners"][base]["kind"] not in LEARNER_KINDS:
            problems.append(f"learners.{name}.params.base: {base!r} is of kind "
                            f"{config['learners'][base]['kind']!r}; a bag's sub-models must be a built-in "
                            f"learner ({', '.join(sorted(LEARNER_KINDS))})")
        else:  # each override's value too, over the base's params (by the base class's constraint table)
            problems += param_problems(LEARNER_KINDS[config["learners"][base]["kind"]], params.get("base_params", {}),
                                       f"learners.{name}.params.base_params",
                                       base=config["learners"][base].get("params", {}))
    return problems


def problems(config: dict, sections=None) -> list[str]:
    """Problems of the core run the schema cannot see: names that refer to entries which do not exist,
    datasets that contradict themselves, bags whose base is not a built-in learner, learner parameters."""
    problems = non_finite_values(config)
    problems += [unknown_name("run.datasets", name, config["datasets"], "datasets")
                 for name in config["run"]["datasets"] if name not in config["datasets"]]
    problems += [unknown_name("run.learners", name, config["learners"], "learners")
                 for name in config["run"]["learners"] if name not in config["learners"]]
    for name, dataset in config["datasets"].items():
        for convention in dataset["conventions"]:
            if convention not in CONVENTIONS:
                problems.append(f"datasets.{name}.conventions: unknown convention {convention!r}")
        lo, hi = dataset["label_range"]
        if lo > hi:
            problems.append(f"datasets.{name}.label_range: {lo} > {hi}")
        if dataset.get("synthetic"):
            expected_root = paths.SYNTHETIC_RAW.partition("/{fold}")[0].format(dataset=name)
            if dataset["root"].rstrip("/") != expected_root:
                problems.append(f"datasets.{name}: a synthetic dataset's root must be {expected_root!r}")
            if dataset.get("layout", "letor") != "letor" or "file_pattern" in dataset:
                problems.append(f"datasets.{name}: a synthetic dataset uses the letor layout")
            if not set(dataset["folds"]) <= {f"Fold{i}" for i in range(1, 6)}:
                problems.append(f"datasets.{name}: a synthetic dataset's folds are among Fold1..Fold5")
            if dataset["synthetic"].get("n_features", 46) != dataset["n_features"]:
                problems.append(f"datasets.{name}: synthetic.n_features differs from n_features")
        problems += fetch_problems(name, dataset)
    problems += bag_problems(config)
    figures = config.get("figures", {})
    if figures.get("metric") and figures["metric"] not in config["metrics"]:
        problems.append(f"figures.metric {figures['metric']!r} is not in metrics {config['metrics']}")
    for name in config["run"]["datasets"]:
        conventions = config["datasets"].get(name, {}).get("conventions", [])
        if figures.get("convention") and conventions and figures["convention"] not in conventions:
            problems.append(f"figures.convention {figures['convention']!r} is not among datasets.{name}.conventions "
                            f"{conventions} (the performance table and figures are read from the metrics files, "
                            "which hold the dataset's conventions)")
    return problems + learner_problems(config)


def data_problems(config: dict) -> list[str]:
    """Raw files missing (with where to get them) and damaged parsed caches, refused before any job:
    once a job started, Snakemake would already have deleted the outputs downstream of a damaged cache."""
    for name in config["run"]["datasets"]:
        try:
            check_raw_files(name, config["datasets"][name])
        except MissingDataError as error:
            return [str(error)]
        for fold in config["datasets"][name]["folds"]:
            for split in SPLITS:
                damage = damaged_cache(name, fold, split)
                if damage:
                    return [damage]
    return []
