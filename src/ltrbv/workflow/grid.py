"""The job grid: which files the workflow makes for a config (used by the Snakefile at parse time)."""

from __future__ import annotations

import inspect
from pathlib import Path

from ..learners import LEARNER_KINDS
from ..metrics.conventions import CONVENTIONS
from .datasets import raw_file

RESULTS = "results"

#: config ``kind`` of a bagged learner (BL-MART, Ganjisaffar et al. 2011 §3.5): one job per sub-model, one combine job
BAG_KIND = "bag"

#: defaults of a bag entry's ``params`` (§3.5, §4: 67% of the queries per sub-model, min-max combination)
BAG_DEFAULTS = {"n_models": 5, "sample_fraction": 0.67, "combine": "minmax", "base_params": {}}

#: defaults of the optional experiments (``experiments:`` in the config)
EXPERIMENT_DEFAULTS = {
    # Fig. 4: validation MAP of bags of m sub-models drawn from each fold's pool
    "bag_size": {"enabled": True, "learners": None, "pool_size": None, "sizes": None, "draws": 100,
                 "metric": "map", "convention": None, "split": "vali"},
    # Table 5: 10 random 67% samples of one fold's training queries, test metrics across the samples
    "variance_trials": {"enabled": True, "fold": None, "n_trials": 10, "fraction": 0.67, "learners": None,
                        "baseline": None},
    # Table 4: NDCG@1, @3, @5, mean NDCG, MAP per fold and over folds
    "bagging_table": {"enabled": True, "learners": None},
}


def built_in_learners(config: dict) -> list[str]:
    """Learners trained by the generic ``train_model`` rule (their kind is in LEARNER_KINDS)."""
    return [name for name, entry in config["learners"].items() if entry["kind"] in LEARNER_KINDS]


def bag_learners(config: dict) -> list[str]:
    """Bagged learners (kind ``bag``): trained by the ``bag_submodel`` and ``combine_bag`` rules."""
    return [name for name, entry in config["learners"].items() if entry["kind"] == BAG_KIND]


def bag_spec(config: dict, learner: str) -> dict:
    """A bag entry with defaults filled in, and the sub-models' learner (base entry + ``base_params``)."""
    entry = config["learners"][learner]
    params = {**BAG_DEFAULTS, **entry.get("params", {})}
    base = config["learners"][params["base"]]
    return {
        "name": learner,
        "base": params["base"],
        "kind": base["kind"],
        # sorted: Snakemake compares params by repr(), so key order alone must not re-run the sub-models
        "params": _sorted({**base.get("params", {}), **params["base_params"]}),
        "n_models": int(params["n_models"]),
        "sample_fraction": float(params["sample_fraction"]),
        "combine": params["combine"],
    }


def _sorted(value):
    return {key: _sorted(value[key]) for key in sorted(value)} if isinstance(value, dict) else value


def experiment(config: dict, name: str) -> dict | None:
    """Settings of an optional experiment, or None when it is off (absent, ``false`` or ``enabled: false``).

    ``true`` means the defaults; an object overrides them (``enabled`` defaults to true).
    """
    value = config.get("experiments", {}).get(name, False)
    if value is False or value is None:
        return None
    settings = dict(EXPERIMENT_DEFAULTS[name])
    if isinstance(value, dict):
        settings.update(value)
    if not settings["enabled"]:
        return None
    return settings


def bag_size_settings(config: dict, dataset: str) -> dict | None:
    """The bag-size experiment for a dataset with defaults resolved (learners, pool size, sizes, convention)."""
    settings = experiment(config, "bag_size")
    if settings is None:
        return None
    learners = settings["learners"] or [name for name in config["run"]["learners"] if name in bag_learners(config)]
    bags = set(bag_learners(config))
    pool = {name: int(settings["pool_size"] or bag_spec(config, name)["n_models"]) if name in bags else 0
            for name in learners}
    smallest = min(pool.values()) if pool else 0
    sizes = settings["sizes"] or list(range(1, smallest + 1))
    convention = settings["convention"] or config["datasets"][dataset]["conventions"][0]
    combine = {name: bag_spec(config, name)["combine"] for name in learners if name in bags}
    return {**settings, "learners": learners, "pool": pool, "sizes": [int(m) for m in sizes if m <= smallest],
            "convention": convention, "seed": config["run"]["seeds"][0], "combine": combine}


def variance_settings(config: dict, dataset: str) -> dict | None:
    settings = experiment(config, "variance_trials")
    if settings is None:
        return None
    learners = settings["learners"] or list(config["run"]["learners"])
    fold = settings["fold"] or config["datasets"][dataset]["folds"][0]
    return {**settings, "learners": learners, "fold": fold, "trials": list(range(1, int(settings["n_trials"]) + 1))}


def bagging_table_settings(config: dict) -> dict | None:
    settings = experiment(config, "bagging_table")
    if settings is None:
        return None
    return {**settings, "learners": settings["learners"] or list(config["run"]["learners"])}


def run_seed_keys(run: str) -> tuple:
    """Seed keys of a training run directory: ``seed3`` -> ("3",) as train_model uses; ``trial2`` -> ("trial2",)."""
    return (run[len("seed"):],) if run.startswith("seed") else (run,)


def submodel_files(config: dict, dataset: str, learner: str, fold: str, run: str, name: str,
                   n_models: int | None = None) -> list[str]:
    n = bag_spec(config, learner)["n_models"] if n_models is None else n_models
    return [f"{RESULTS}/{dataset}/bags/{learner}/{fold}/{run}/sub{k}/{name}" for k in range(n)]


def trial_queries_file(dataset: str, fold: str, run: str) -> str:
    return f"{RESULTS}/{dataset}/trials/{fold}/{run}.json"


def trial_input(dataset: str, fold: str, run: str) -> list[str]:
    """A training run's query sample file: the trial's for ``trial<t>``, none for ``seed<n>`` (all queries)."""
    return [trial_queries_file(dataset, fold, run)] if run.startswith("trial") else []


def trial_prediction_files(config: dict, dataset: str, name: str = "test.scores") -> list[str]:
    settings = variance_settings(config, dataset)
    if settings is None:
        return []
    return [
        f"{RESULTS}/{dataset}/predictions/{learner}/{settings['fold']}/trial{t}/{name}"
        for learner in settings["learners"]
        for t in settings["trials"]
    ]


def bag_pool_files(config: dict, dataset: str) -> list[str]:
    settings = bag_size_settings(config, dataset)
    if settings is None:
        return []
    split = settings["split"]
    return [
        path
        for learner in settings["learners"]
        for fold in config["datasets"][dataset]["folds"]
        for path in submodel_files(config, dataset, learner, fold, f"seed{settings['seed']}", f"{split}.scores",
                                   settings["pool"][learner])
    ]


def bagging_table_files(config: dict, dataset: str) -> list[str]:
    settings = bagging_table_settings(config)
    if settings is None:
        return []
    return [
        f"{RESULTS}/{dataset}/predictions/{learner}/{fold}/seed{seed}/test.scores"
        for learner in settings["learners"]
        for fold in config["datasets"][dataset]["folds"]
        for seed in config["run"]["seeds"]
    ]


def experiment_targets(config: dict) -> list[str]:
    """Tables and figures of the experiments switched on in ``experiments:``."""
    targets = []
    for dataset in config["run"]["datasets"]:
        base = f"{RESULTS}/{dataset}"
        if bag_size_settings(config, dataset) is not None:
            targets += [f"{base}/tables/bag_size.csv", f"{base}/figures/bag_size.png", f"{base}/figures/bag_size.svg"]
        if variance_settings(config, dataset) is not None:
            targets += [f"{base}/tables/variance_trials.csv", f"{base}/tables/variance_trials.md"]
        if bagging_table_settings(config) is not None:
            targets += [f"{base}/tables/bagging_performance.csv", f"{base}/tables/bagging_performance.md"]
    return targets


def learner_rule_params(config: dict, learner: str) -> dict:
    entry = config["learners"][learner]
    # sorted keys: Snakemake compares params by repr, so reordering a config entry is not a change
    return {"name": learner, "kind": entry["kind"], "params": _sorted(dict(entry.get("params", {})))}


def unknown_names(config: dict) -> list[str]:
    """Problems the schema cannot see: names that refer to entries which do not exist."""
    problems = []
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
            expected_root = f"{RESULTS}/{name}/raw"
            if dataset["root"].rstrip("/") != expected_root:
                problems.append(f"datasets.{name}: a synthetic dataset's root must be {expected_root!r}")
            if dataset.get("layout", "letor") != "letor" or "file_pattern" in dataset:
                problems.append(f"datasets.{name}: a synthetic dataset uses the letor layout")
            if not set(dataset["folds"]) <= {f"Fold{i}" for i in range(1, 6)}:
                problems.append(f"datasets.{name}: a synthetic dataset's folds are among Fold1..Fold5")
            if dataset["synthetic"].get("n_features", 46) != dataset["n_features"]:
                problems.append(f"datasets.{name}: synthetic.n_features differs from n_features")
    problems += _bag_problems(config)
    problems += _experiment_problems(config)
    figures = config.get("figures", {})
    if figures.get("metric") and figures["metric"] not in config["metrics"]:
        problems.append(f"figures.metric {figures['metric']!r} is not in metrics {config['metrics']}")
    return problems


def _bag_problems(config: dict) -> list[str]:
    problems = []
    for name in bag_learners(config):
        params = config["learners"][name].get("params", {})
        base = params.get("base")
        if base not in config["learners"]:
            problems.append(f"learners.{name}.params.base names {base!r}, which is not under learners: "
                            f"{sorted(config['learners'])}")
        elif config["learners"][base]["kind"] not in LEARNER_KINDS:
            problems.append(f"learners.{name}.params.base: {base!r} is of kind "
                            f"{config['learners'][base]['kind']!r}; a bag's sub-models must be a built-in "
                            f"learner ({', '.join(sorted(LEARNER_KINDS))})")
        else:
            accepted = inspect.signature(LEARNER_KINDS[config["learners"][base]["kind"]]).parameters
            for key in params.get("base_params", {}):
                if key not in accepted or key in ("random_state", "n_threads"):
                    problems.append(f"learners.{name}.params.base_params: {key!r} is not a parameter of "
                                    f"{base!r} ({config['learners'][base]['kind']})")
    return problems


def _experiment_problems(config: dict) -> list[str]:
    problems = []
    known = config["learners"]
    for dataset in config["run"]["datasets"]:
        if dataset not in config["datasets"]:
            continue
        spec = config["datasets"][dataset]
        bag_size = bag_size_settings(config, dataset) if not _bag_problems(config) else None
        if bag_size is not None:
            for name in bag_size["learners"]:
                if name not in known or known[name]["kind"] != BAG_KIND:
                    problems.append(f"experiments.bag_size.learners: {name!r} is not a learner of kind {BAG_KIND!r}")
            if not bag_size["learners"]:
                problems.append("experiments.bag_size: no bag learner to draw from (set experiments.bag_size.learners)")
            elif not bag_size["sizes"]:
                problems.append("experiments.bag_size.sizes: no size fits in the pools "
                                f"{bag_size['pool']}")
            if bag_size["convention"] not in spec["conventions"]:
                problems.append(f"experiments.bag_size.convention {bag_size['convention']!r} is not among "
                                f"datasets.{dataset}.conventions {spec['conventions']}")
        trials = variance_settings(config, dataset)
        if trials is not None:
            if trials["fold"] not in spec["folds"]:
                problems.append(f"experiments.variance_trials.fold {trials['fold']!r} is not among "
                                f"datasets.{dataset}.folds {spec['folds']}")
            for name in trials["learners"]:
                if name not in known:
                    problems.append(f"experiments.variance_trials.learners names {name!r}, which is not under learners")
                elif known[name]["kind"] not in LEARNER_KINDS and known[name]["kind"] != BAG_KIND:
                    problems.append(f"experiments.variance_trials.learners: {name!r} is of kind "
                                    f"{known[name]['kind']!r}, which the workflow cannot train on a trial sample")
            baseline = trials["baseline"]
            if baseline is not None and baseline not in trials["learners"]:
                problems.append(f"experiments.variance_trials.baseline {baseline!r} is not among its learners")
    table = bagging_table_settings(config)
    if table is not None:
        for name in table["learners"]:
            if name not in known:
                problems.append(f"experiments.bagging_table.learners names {name!r}, which is not under learners")
    return problems


#: rule parse_split: the binary cache of one split of one fold, and the job's benchmark file
PARSED = RESULTS + "/{dataset}/parsed/{fold}/{split}.npz"
PARSE_BENCHMARK = RESULTS + "/{dataset}/benchmarks/parse_split/{fold}/{split}.tsv"


def parsed_file(dataset: str, fold: str, split: str) -> str:
    return PARSED.format(dataset=dataset, fold=fold, split=split)


def damaged_cache(dataset: str, fold: str, split: str) -> str | None:
    """Why an existing parsed cache is unusable, or None (absent caches are fine: they will be built).

    Every cache gets the cheap structural check; one changed after its parse job ended (newer than
    the job's benchmark file) is read in full and its checksum verified, because Snakemake would
    rerun, and so first delete, everything downstream of it.
    """
    from ..data.cache import CacheFormatError, check_cache_file, load_cache

    cache = Path(parsed_file(dataset, fold, split))
    if not cache.exists():
        return None
    benchmark = Path(PARSE_BENCHMARK.format(dataset=dataset, fold=fold, split=split))
    try:
        check_cache_file(cache)
        if not benchmark.exists() or cache.stat().st_mtime > benchmark.stat().st_mtime:
            load_cache(cache)
    except CacheFormatError as error:
        return str(error)
    return None


def raw_input(config: dict, dataset: str, fold: str, split: str) -> str:
    return raw_file(config["datasets"][dataset], fold, split)


def prediction_files(config: dict, dataset: str, name: str = "test.scores") -> list[str]:
    return [
        f"{RESULTS}/{dataset}/predictions/{learner}/{fold}/seed{seed}/{name}"
        for learner in config["run"]["learners"]
        for fold in config["datasets"][dataset]["folds"]
        for seed in config["run"]["seeds"]
    ]


def metrics_files(config: dict, dataset: str) -> list[str]:
    return [
        f"{RESULTS}/{dataset}/metrics/{learner}/{fold}/seed{seed}.csv"
        for learner in config["run"]["learners"]
        for fold in config["datasets"][dataset]["folds"]
        for seed in config["run"]["seeds"]
    ]


def performance_targets(config: dict) -> list[str]:
    targets = []
    for dataset in config["run"]["datasets"]:
        base = f"{RESULTS}/{dataset}"
        targets += [
            f"{base}/tables/performance.csv",
            f"{base}/tables/performance.md",
            f"{base}/figures/performance.png",
            f"{base}/figures/performance.svg",
        ]
    return targets


def intermediate_targets(config: dict) -> list[str]:
    """Parsed folds, prediction files and per-query metrics: requested by rule all so that a job that
    failed (and lost its old output) is redone on the next run instead of leaving stale tables."""
    files = []
    for dataset in config["run"]["datasets"]:
        folds = config["datasets"][dataset]["folds"]
        files += [parsed_file(dataset, fold, split) for fold in folds for split in ("train", "vali", "test")]
        files += prediction_files(config, dataset) + metrics_files(config, dataset)
    return files
