"""The job grid of the bagging experiments of Ganjisaffar et al. (2011), config section ``bagging``.

* ``bag_size`` (Fig. 4): validation metric of bags of m sub-models drawn from each fold's pool;
* ``variance_trials`` (Table 5): learners trained on random samples of one fold's training queries;
* ``bagging_table`` (Table 4): NDCG@1, @3, @5, mean NDCG and MAP per fold and over folds.

The schema (``config/schema/bagging.schema.yaml``) fills in every default; a setting left out that
depends on the run (learners, fold, pool size, sizes, convention) is resolved here.  The bags themselves
(sub-models, combination) are learners of the core run (:mod:`ltrbv.sections.core.grid`); this section trains
the variance trials (rule ``train_trial``; a bag's trials through the core run's bag rules).
"""

from __future__ import annotations

from ...learners.bag import BAG_KIND
from ...workflow import paths
from ...workflow.section import Page
from ...workflow.validation import unknown_name
from ..core.grid import bag_learners, bag_problems, bag_spec, parsed_files, submodel_files, trainable

KEY = "bagging"
#: its top-level config key (None: always on) and its place in the registry's order (ltrbv.workflow.sections)
CONFIG_KEY = "bagging"
ORDER = 10

JOBS = {
    "trial_queries": "trial_queries/{fold}/trial{trial}",
    "train_trial": "train_trial/{learner}/{fold}/trial{trial}",
    "variance_table": "variance_table",
    "bag_size_table": "bag_size_table",
    "plot_bag_size": "plot_bag_size",
    "bagging_table": "bagging_table",
}
CATEGORY = "4. Bagged LambdaMART"
PAGES = {
    "bagging_performance": Page(paths.table("bagging_performance", "md"), CATEGORY, "Ganjisaffar et al. Table 4",
                                "NDCG@1, @3, @5, mean NDCG and MAP per fold and over folds."),
    "variance_trials": Page(paths.table("variance_trials", "md"), CATEGORY, "Ganjisaffar et al. Table 5",
                            "Mean and variance of the test metrics across training samples."),
    "bag_size": Page(paths.table("bag_size", "csv"), CATEGORY, "Ganjisaffar et al. Fig. 4 data",
                     "Validation metric of bags of m sub-models, mean over draws."),
}

EXPERIMENTS = ("bag_size", "variance_trials", "bagging_table")


def experiment(config: dict, name: str) -> dict | None:
    """Settings of an optional experiment, or None when it is off (absent, ``false`` or ``enabled: false``)."""
    value = (config.get(KEY) or {}).get(name, False)
    if not value:
        return None
    settings = {"enabled": True} if value is True else dict(value)
    return settings if settings.get("enabled", True) else None


def bag_size_settings(config: dict, dataset: str) -> dict | None:
    """The bag-size experiment for a dataset with the run-dependent settings resolved."""
    settings = experiment(config, "bag_size")
    if settings is None:
        return None
    bags = set(bag_learners(config))
    learners = settings.get("learners") or [name for name in config["run"]["learners"] if name in bags]
    pool = {name: int(settings.get("pool_size") or bag_spec(config, name)["n_models"]) if name in bags else 0
            for name in learners}
    smallest = min(pool.values()) if pool else 0
    sizes = settings.get("sizes") or list(range(1, smallest + 1))
    convention = settings.get("convention") or config["datasets"][dataset]["conventions"][0]
    combine = {name: bag_spec(config, name)["combine"] for name in learners if name in bags}
    return {**settings, "learners": learners, "pool": pool, "sizes": [int(m) for m in sizes if m <= smallest],
            "convention": convention, "seed": config["run"]["seeds"][0], "combine": combine}


def variance_settings(config: dict, dataset: str) -> dict | None:
    settings = experiment(config, "variance_trials")
    if settings is None:
        return None
    learners = settings.get("learners") or list(config["run"]["learners"])
    fold = settings.get("fold") or config["datasets"][dataset]["folds"][0]
    return {**settings, "learners": learners, "fold": fold, "trials": list(range(1, int(settings["n_trials"]) + 1))}


def bagging_table_settings(config: dict) -> dict | None:
    settings = experiment(config, "bagging_table")
    if settings is None:
        return None
    return {**settings, "learners": settings.get("learners") or list(config["run"]["learners"])}


def trial_predictions(config: dict, dataset: str) -> dict[str, dict[int, str]]:
    """``{learner: {trial: test prediction file}}`` of the variance experiment."""
    settings = variance_settings(config, dataset)
    if settings is None:
        return {}
    return {learner: {t: paths.prediction(dataset, learner, settings["fold"], paths.trial_run(t))
                      for t in settings["trials"]}
            for learner in settings["learners"]}


def bag_pools(config: dict, dataset: str) -> dict[str, dict[str, list[str]]]:
    """``{fold: {learner: [sub-model score files]}}``: the pools the bag-size experiment draws from."""
    settings = bag_size_settings(config, dataset)
    if settings is None:
        return {}
    run = paths.seed_run(settings["seed"])
    return {fold: {learner: submodel_files(config, dataset, learner, fold, run, f"{settings['split']}.scores",
                                           settings["pool"][learner])
                   for learner in settings["learners"]}
            for fold in config["datasets"][dataset]["folds"]}


def bag_size_data(config: dict, dataset: str) -> dict[str, str]:
    """``{fold: parsed split}`` the bag-size experiment scores."""
    return parsed_files(config, dataset, bag_size_settings(config, dataset)["split"])


def bagging_table_predictions(config: dict, dataset: str) -> dict[str, dict[str, dict[int, str]]]:
    """``{learner: {fold: {seed: test prediction file}}}`` of Table 4."""
    settings = bagging_table_settings(config)
    if settings is None:
        return {}
    return {learner: {fold: {seed: paths.prediction(dataset, learner, fold, paths.seed_run(seed))
                             for seed in config["run"]["seeds"]}
                      for fold in config["datasets"][dataset]["folds"]}
            for learner in settings["learners"]}


def settings(config: dict) -> dict | None:
    """The experiments switched on, or None when none is."""
    on = {name: experiment(config, name) for name in EXPERIMENTS}
    on = {name: value for name, value in on.items() if value is not None}
    return on or None


def targets(config: dict) -> list[str]:
    """Tables and figures of the experiments switched on in ``bagging:``."""
    files = []
    for dataset in config["run"]["datasets"]:
        if bag_size_settings(config, dataset) is not None:
            files += [paths.table("bag_size", "csv", dataset), *paths.figures("bag_size", dataset)]
        if variance_settings(config, dataset) is not None:
            files += [paths.table("variance_trials", ext, dataset) for ext in ("csv", "md")]
        if bagging_table_settings(config) is not None:
            files += [paths.table("bagging_performance", ext, dataset) for ext in ("csv", "md")]
    return files


def problems(config: dict, sections=None) -> list[str]:
    """Problems the schema cannot see in ``bagging`` (and in the bag learners they use)."""
    problems = []
    known = config["learners"]
    bags_ok = not bag_problems(config)
    for dataset in config["run"]["datasets"]:
        if dataset not in config["datasets"]:
            continue
        spec = config["datasets"][dataset]
        bag_size = bag_size_settings(config, dataset) if bags_ok else None
        if bag_size is not None:
            for name in bag_size["learners"]:
                if name not in known or known[name]["kind"] != BAG_KIND:
                    problems.append(f"bagging.bag_size.learners: {name!r} is not a learner of kind {BAG_KIND!r}")
            if not bag_size["learners"]:
                problems.append("bagging.bag_size: no bag learner to draw from (set bagging.bag_size.learners)")
            elif not bag_size["sizes"]:
                problems.append("bagging.bag_size.sizes: no size fits in the pools "
                                f"{bag_size['pool']}")
            if bag_size["convention"] not in spec["conventions"]:
                problems.append(f"bagging.bag_size.convention {bag_size['convention']!r} is not among "
                                f"datasets.{dataset}.conventions {spec['conventions']}")
        trials = variance_settings(config, dataset)
        if trials is not None:
            if trials["fold"] not in spec["folds"]:
                problems.append(f"bagging.variance_trials.fold {trials['fold']!r} is not among "
                                f"datasets.{dataset}.folds {spec['folds']}")
            for name in trials["learners"]:
                if name not in known:
                    problems.append(unknown_name("bagging.variance_trials.learners", name, known, "learners"))
                elif not trainable(known[name]["kind"]):
                    problems.append(f"bagging.variance_trials.learners: {name!r} is of kind "
                                    f"{known[name]['kind']!r}, which the workflow cannot train on a trial sample")
            baseline = trials.get("baseline")
            if baseline is not None and baseline not in trials["learners"]:
                problems.append(f"bagging.variance_trials.baseline {baseline!r} is not among its learners")
    table = bagging_table_settings(config)
    if table is not None:
        for name in table["learners"]:
            if name not in known:
                problems.append(unknown_name("bagging.bagging_table.learners", name, known, "learners"))
    return problems
