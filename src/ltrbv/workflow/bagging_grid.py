"""The job grid of the bagging experiments of Ganjisaffar et al. (2011), config section ``experiments``.

* ``bag_size`` (Fig. 4): validation metric of bags of m sub-models drawn from each fold's pool;
* ``variance_trials`` (Table 5): learners trained on random samples of one fold's training queries;
* ``bagging_table`` (Table 4): NDCG@1, @3, @5, mean NDCG and MAP per fold and over folds.

The schema (``config/schema/config.schema.yaml``) fills in every default; a setting left out that
depends on the run (learners, fold, pool size, sizes, convention) is resolved here.
"""

from __future__ import annotations

from ..learners import LEARNER_KINDS
from ..learners.bag import BAG_KIND, bag_spec
from . import paths
from .core_grid import bag_learners, parsed_files, trainable
from .validation import param_problems

EXPERIMENTS = ("bag_size", "variance_trials", "bagging_table")


def experiment(config: dict, name: str) -> dict | None:
    """Settings of an optional experiment, or None when it is off (absent, ``false`` or ``enabled: false``)."""
    value = (config.get("experiments") or {}).get(name, False)
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


def submodel_files(config: dict, dataset: str, learner: str, fold: str, run: str, file: str,
                   n_models: int | None = None) -> list[str]:
    n = bag_spec(config, learner)["n_models"] if n_models is None else n_models
    return [paths.SUBMODEL.format(dataset=dataset, learner=learner, fold=fold, run=run, k=k, file=file)
            for k in range(n)]


def trial_input(dataset: str, fold: str, run: str) -> list[str]:
    """A training run's query sample file: the trial's for ``trial<t>``, none for ``seed<n>`` (all queries)."""
    trial = paths.TRIAL_RUN.partition("{")[0]
    return [paths.TRIAL_QUERIES.format(dataset=dataset, fold=fold, trial=run[len(trial):])] if run.startswith(trial) else []


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
    """Tables and figures of the experiments switched on in ``experiments:``."""
    files = []
    for dataset in config["run"]["datasets"]:
        if bag_size_settings(config, dataset) is not None:
            files += [paths.table("bag_size", "csv", dataset), *paths.figures("bag_size", dataset)]
        if variance_settings(config, dataset) is not None:
            files += [paths.table("variance_trials", ext, dataset) for ext in ("csv", "md")]
        if bagging_table_settings(config) is not None:
            files += [paths.table("bagging_performance", ext, dataset) for ext in ("csv", "md")]
    return files


def bag_problems(config: dict) -> list[str]:
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
        else:  # each override's value too, over the base's params (by the base class's constraint table)
            problems += param_problems(LEARNER_KINDS[config["learners"][base]["kind"]], params.get("base_params", {}),
                                       f"learners.{name}.params.base_params",
                                       base=config["learners"][base].get("params", {}))
    return problems


def problems(config: dict) -> list[str]:
    """Problems the schema cannot see in ``experiments`` (and in the bag learners they use)."""
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
                elif not trainable(known[name]["kind"]):
                    problems.append(f"experiments.variance_trials.learners: {name!r} is of kind "
                                    f"{known[name]['kind']!r}, which the workflow cannot train on a trial sample")
            baseline = trials.get("baseline")
            if baseline is not None and baseline not in trials["learners"]:
                problems.append(f"experiments.variance_trials.baseline {baseline!r} is not among its learners")
    table = bagging_table_settings(config)
    if table is not None:
        for name in table["learners"]:
            if name not in known:
                problems.append(f"experiments.bagging_table.learners names {name!r}, which is not under learners")
    return problems
