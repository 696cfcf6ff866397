"""The job grid of active evaluation (Sawade et al. 2013; rules/active.smk): which jobs exist for a config."""

from __future__ import annotations

from ..active.models import model_problems
from . import paths


def settings(config: dict) -> dict | None:
    """The validated ``active`` section if present and enabled, else None."""
    section = config.get("active")
    if not section or not section.get("enabled", True):
        return None
    return section


def partitions(config: dict, dataset: str) -> list[str]:
    folds = list(config["datasets"][dataset]["folds"])
    chosen = list((settings(config) or {}).get("partitions") or folds)
    unknown = sorted(set(chosen) - set(folds))
    if unknown:
        raise ValueError(f"active.partitions: {unknown} are not folds of {dataset}")
    return chosen


def partition_files(config: dict, dataset: str) -> dict:
    """``{fold: parsed test split}``: each fold's test split is one partition (all folds, for the pool)."""
    return {fold: paths.parsed(dataset, fold, "test") for fold in config["datasets"][dataset]["folds"]}


def n_labels(config: dict, dataset: str) -> int:
    low, high = config["datasets"][dataset]["label_range"]
    if low != 0:
        raise ValueError(f"active evaluation needs labels 0..y_max; {dataset} has label_range {low}..{high}")
    return int(high) + 1


def experiment_models(config: dict, experiment: str) -> list[str]:
    spec = settings(config)["experiments"][experiment]
    return list(dict.fromkeys(list(spec["rankers"]) + list(spec["label_models"])))


def model_files(config: dict, dataset: str, experiment: str, partition: str) -> dict:
    return {name: paths.ACTIVE_MODEL.format(dataset=dataset, partition=partition, model=name)
            for name in experiment_models(config, experiment)}


def simulation_tables(config: dict, dataset: str, experiment: str) -> list[str]:
    return [paths.ACTIVE_SIMULATION.format(dataset=dataset, experiment=experiment, partition=partition, ext="csv")
            for partition in partitions(config, dataset)]


def experiment_tables(config: dict, dataset: str) -> dict[str, str]:
    """``{experiment: its table}`` of a dataset."""
    return {experiment: paths.ACTIVE_TABLE.format(dataset=dataset, name=experiment, ext="csv")
            for experiment in settings(config)["experiments"]}


def heatmap_inputs(config: dict, dataset: str) -> dict:
    """The first partition's sampling distributions and the table of the heat map's experiment (rule active_sampling)."""
    experiment = settings(config)["heatmap"]["experiment"]
    return {"distributions": paths.ACTIVE_SIMULATION.format(dataset=dataset, experiment=experiment,
                                                            partition=partitions(config, dataset)[0], ext="npz"),
            "table": paths.ACTIVE_TABLE.format(dataset=dataset, name=experiment, ext="csv")}


def problems(config: dict) -> list[str]:
    """Config mistakes that would only show up inside a job."""
    section = settings(config)
    if section is None:
        return []
    out = []
    models = section["models"]
    for name, spec in models.items():
        out += model_problems(name, spec)
    for name, spec in section["experiments"].items():
        for role in ("rankers", "label_models"):
            for model in spec[role]:
                if model not in models:
                    out.append(f"active.experiments.{name}.{role}: unknown model {model!r}")
        for model in spec["label_models"]:
            if model in models and models[model]["kind"] not in ("rf_class", "ordered_logit"):
                out.append(f"active.experiments.{name}.label_models: {model!r} ({models[model]['kind']}) "
                           "has no label probabilities")
        if (spec["kind"] == "compare") != (len(spec["rankers"]) == 2):
            needed = "two" if spec["kind"] == "compare" else "one"
            out.append(f"active.experiments.{name}: kind {spec['kind']} needs {needed} ranker(s)")
    heat = section["heatmap"]["experiment"]
    if heat not in section["experiments"]:
        out.append(f"active.heatmap.experiment: unknown experiment {heat!r}")
    budgets = section["budgets"]
    if any(b >= a for a, b in zip(budgets[1:], budgets[:-1])):
        out.append("active.budgets must be strictly increasing")
    for dataset in config["run"]["datasets"]:
        try:
            partitions(config, dataset)
            n_labels(config, dataset)
        except ValueError as error:
            out.append(str(error))
    return out


def targets(config: dict) -> list[str]:
    """The experiment's final outputs for every dataset in run.datasets ([] when off)."""
    section = settings(config)
    if section is None:
        return []
    out = []
    for dataset in config["run"]["datasets"]:
        for name in section["experiments"]:
            out += [paths.ACTIVE_TABLE.format(dataset=dataset, name=name, ext="csv"),
                    *(paths.ACTIVE_FIGURE.format(dataset=dataset, name=name, ext=ext) for ext in ("png", "svg"))]
        out += [paths.ACTIVE_TABLE.format(dataset=dataset, name="savings", ext=ext) for ext in ("csv", "md")]
        out += [paths.ACTIVE_FIGURE.format(dataset=dataset, name="sampling_distribution", ext=ext)
                for ext in ("png", "svg")]
    return out
