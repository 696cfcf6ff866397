"""The core run's job grid: parsed folds, one prediction file per (learner, fold, seed), metrics, tables."""

from __future__ import annotations

from pathlib import Path

from ..learners import LEARNER_KINDS
from ..learners.bag import BAG_KIND, sorted_dict
from . import paths
from .datasets import SPLITS, raw_source


def built_in_learners(config: dict) -> list[str]:
    """Learners trained by the generic ``train_model`` rule (their kind is in LEARNER_KINDS)."""
    return [name for name, entry in config["learners"].items() if entry["kind"] in LEARNER_KINDS]


def trainable(kind: str) -> bool:
    """A learner kind the workflow trains itself: built-in (rule train_model) or a bag (the bag rules)."""
    return kind in LEARNER_KINDS or kind == BAG_KIND


def bag_learners(config: dict) -> list[str]:
    """Bagged learners (kind ``bag``): trained by the ``bag_submodel`` and ``combine_bag`` rules."""
    return [name for name, entry in config["learners"].items() if entry["kind"] == BAG_KIND]


def learner_rule_params(config: dict, learner: str) -> dict:
    entry = config["learners"][learner]
    # sorted keys: Snakemake compares params by repr, so reordering a config entry is not a change
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
    from ..data.cache import CacheFormatError, check_cache_file, load_cache

    cache = Path(paths.parsed(dataset, fold, split))
    if not cache.exists():
        return None
    benchmark = Path(paths.benchmark("parse_split").format(dataset=dataset, fold=fold, split=split))
    try:
        check_cache_file(cache)
        if not benchmark.exists() or cache.stat().st_mtime > benchmark.stat().st_mtime:
            load_cache(cache)
    except CacheFormatError as error:
        return str(error)
    return None


#: rule parse_split's job name in logs and benchmarks


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


def problems(config: dict) -> list[str]:
    """Problems of the core run the schema cannot see: names that refer to entries which do not exist,
    datasets that contradict themselves, bags whose base is not a built-in learner, learner parameters."""
    from ..metrics.conventions import CONVENTIONS
    from .bagging_grid import bag_problems
    from .datasets import fetch_problems
    from .validation import learner_problems, non_finite_values

    problems = non_finite_values(config)
    for name in config["run"]["datasets"]:
        if name not in config["datasets"]:
            problems.append(f"run.datasets names {name!r}, which is not under datasets: {sorted(config['datasets'])}")
    for name in config["run"]["learners"]:
        if name not in config["learners"]:
            problems.append(f"run.learners names {name!r}, which is not under learners: {sorted(config['learners'])}")
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
    from .datasets import MissingDataError, check_raw_files

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
