"""File grid of the active-evaluation rules (rules/active.smk): which jobs exist for a config."""

from __future__ import annotations

from .models import model_problems


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
    return {fold: f"results/{dataset}/parsed/{fold}/test.npz" for fold in config["datasets"][dataset]["folds"]}


def n_labels(config: dict, dataset: str) -> int:
    low, high = config["datasets"][dataset]["label_range"]
    if low != 0:
        raise ValueError(f"active evaluation needs labels 0..y_max; {dataset} has label_range {low}..{high}")
    return int(high) + 1


def experiment_models(config: dict, experiment: str) -> list[str]:
    spec = settings(config)["experiments"][experiment]
    return list(dict.fromkeys(list(spec["rankers"]) + list(spec["label_models"])))


def model_files(config: dict, dataset: str, experiment: str, partition: str) -> dict:
    return {name: f"results/{dataset}/active/models/{partition}/{name}.npz"
            for name in experiment_models(config, experiment)}


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
        base = f"results/{dataset}/active"
        for experiment in section["experiments"]:
            out += [f"{base}/tables/{experiment}.csv", f"{base}/figures/{experiment}.png",
                    f"{base}/figures/{experiment}.svg"]
        out += [f"{base}/tables/savings.csv", f"{base}/tables/savings.md",
                f"{base}/figures/sampling_distribution.png", f"{base}/figures/sampling_distribution.svg"]
    return out
