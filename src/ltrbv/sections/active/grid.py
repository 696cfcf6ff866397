"""The job grid of active evaluation (Sawade et al. 2013; rules/active.smk): which jobs exist for a config."""

from __future__ import annotations

from ...active.models import model_problems
from ...workflow import paths
from ...workflow.paths import DATASET, format_value
from ...workflow.section import Page

# -- the section's files ----------------------------------------------------------------------------------
ACTIVE_MODEL = DATASET + "/active/models/{partition}/{model}.npz"
ACTIVE_SIMULATION = DATASET + "/active/simulations/{experiment}/{partition}.{ext}"
ACTIVE_TABLE = DATASET + "/active/tables/{name}.{ext}"
ACTIVE_FIGURE = DATASET + "/active/figures/{name}.{ext}"

#: its top-level config key (None: always on) and its place in the registry's order (ltrbv.workflow.sections)
CONFIG_KEY = "active"
ORDER = 30

JOBS = {
    "active_train": "active_train/{partition}/{model}",
    "active_simulate": "active_simulate/{experiment}/{partition}",
    "active_aggregate": "active_aggregate/{experiment}",
    "active_savings": "active_savings",
    "active_sampling": "active_sampling",
    "active_training_size": "active_training_size",
}
CATEGORY = "5. Active evaluation"
PAGES = {
    "active_savings": Page(paths.fill(ACTIVE_TABLE, name="savings", ext="md"), CATEGORY, "Label savings",
                           "Label savings of active over passive estimation at the largest budget: the share of that "
                           "budget active sampling does not need to match passive sampling's mean absolute error "
                           "(negative: passive needs less). Published on MSLR-WEB30K at Λ = 300: 10-20% "
                           "(absolute estimation), 30-55% (comparisons)."),
}


#: the name of the training-size sweep's table and figure (Fig. 5, bottom row)
TRAINING_SIZE = "training_size"


def settings(config: dict) -> dict | None:
    """The validated ``active`` section if present and enabled, else None; with a ``training_size`` sweep,
    its generated models and experiments (:func:`sweep_entries`) are among ``models`` and ``experiments``."""
    section = config.get("active")
    if not section or not section.get("enabled", True):
        return None
    if not section.get("training_size"):
        return section
    models, experiments = sweep_entries(section)
    return {**section, "models": {**section["models"], **models},
            "experiments": {**section["experiments"], **experiments}}


def sweep_experiment(share: float) -> str:
    """The compare experiment of one share of the training-size sweep: ``training_size_q0.6``."""
    return f"{TRAINING_SIZE}_q{format_value(share)}"


def sweep_entries(section: dict) -> tuple[dict, dict]:
    """(models, experiments) of the training-size sweep (Sawade et al. 2013, Fig. 5 bottom row): for each share,
    the second model trained on that share of the training half, and its comparison with the first model."""
    sweep = section["training_size"]
    first, second = sweep["first"], sweep["second"]
    base = section["models"].get(second)
    models, experiments = {}, {}
    for share in sweep["query_fractions"]:
        if base is not None and abs(float(base.get("query_fraction", 1.0)) - float(share)) < 1e-12:
            name = second  # the second model as configured already trains on this share
        else:
            name = f"{second}_q{format_value(share)}"
            if base is not None:
                models[name] = {**base, "query_fraction": float(share)}
        experiments[sweep_experiment(share)] = {
            "kind": "compare", "rankers": [first, name], "label_models": [first, name], "drop_fraction": 0.0,
            "title": f"Fig. 5 (bottom row): {first} vs {second} on {format_value(share)} of the training half"}
    return models, experiments


def training_size_tables(config: dict, dataset: str) -> dict[str, str]:
    """``{share as text: the table of its experiment}`` of the training-size sweep (rule active_training_size)."""
    sweep = settings(config)["training_size"]
    return {format_value(share): ACTIVE_TABLE.format(dataset=dataset, name=sweep_experiment(share), ext="csv")
            for share in sweep["query_fractions"]}


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
    return {name: ACTIVE_MODEL.format(dataset=dataset, partition=partition, model=name)
            for name in experiment_models(config, experiment)}


def simulation_tables(config: dict, dataset: str, experiment: str) -> list[str]:
    return [ACTIVE_SIMULATION.format(dataset=dataset, experiment=experiment, partition=partition, ext="csv")
            for partition in partitions(config, dataset)]


def experiment_tables(config: dict, dataset: str) -> dict[str, str]:
    """``{experiment: its table}`` of a dataset."""
    return {experiment: ACTIVE_TABLE.format(dataset=dataset, name=experiment, ext="csv")
            for experiment in settings(config)["experiments"]}


def heatmap_inputs(config: dict, dataset: str) -> dict:
    """The first partition's sampling distributions and the table of the heat map's experiment (rule active_sampling)."""
    experiment = settings(config)["heatmap"]["experiment"]
    return {"distributions": ACTIVE_SIMULATION.format(dataset=dataset, experiment=experiment,
                                                            partition=partitions(config, dataset)[0], ext="npz"),
            "table": ACTIVE_TABLE.format(dataset=dataset, name=experiment, ext="csv")}


def problems(config: dict, sections=None) -> list[str]:
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
    sweep = section.get("training_size")
    if sweep:
        own = config["active"]
        for kind, generated in zip(("models", "experiments"), sweep_entries(own)):
            for name in sorted(set(generated) & set(own[kind])):
                out.append(f"active.{kind}.{name}: the name of an entry active.training_size makes; rename it")
        shares = [float(share) for share in sweep["query_fractions"]]
        if len({format_value(share) for share in shares}) < len(shares):
            out.append(f"active.training_size.query_fractions: two shares print alike: {shares}")
        for role in ("first", "second"):
            if sweep[role] not in section["models"]:
                out.append(f"active.training_size.{role}: unknown model {sweep[role]!r}")
        if not any(abs(float(sweep["budget"]) - float(b)) < 1e-9 for b in section["budgets"]):
            out.append(f"active.training_size.budget: {sweep['budget']!r} is not one of active.budgets")
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
            out += [ACTIVE_TABLE.format(dataset=dataset, name=name, ext="csv"),
                    *(ACTIVE_FIGURE.format(dataset=dataset, name=name, ext=ext) for ext in ("png", "svg"))]
        out += [ACTIVE_TABLE.format(dataset=dataset, name="savings", ext=ext) for ext in ("csv", "md")]
        out += [ACTIVE_FIGURE.format(dataset=dataset, name="sampling_distribution", ext=ext)
                for ext in ("png", "svg")]
        if section.get("training_size"):
            out += [ACTIVE_TABLE.format(dataset=dataset, name=TRAINING_SIZE, ext=ext) for ext in ("csv", "md")]
            out += [ACTIVE_FIGURE.format(dataset=dataset, name=TRAINING_SIZE, ext=ext) for ext in ("png", "svg")]
    return out
