"""The job grid: which files the workflow makes for a config (used by the Snakefile at parse time)."""

from __future__ import annotations

from ..learners import LEARNER_KINDS
from ..metrics.conventions import CONVENTIONS
from .datasets import raw_file

RESULTS = "results"


def built_in_learners(config: dict) -> list[str]:
    """Learners trained by the generic ``train_model`` rule (their kind is in LEARNER_KINDS)."""
    return [name for name, entry in config["learners"].items() if entry["kind"] in LEARNER_KINDS]


def learner_rule_params(config: dict, learner: str) -> dict:
    entry = config["learners"][learner]
    return {"name": learner, "kind": entry["kind"], "params": dict(entry.get("params", {}))}


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
    figures = config.get("figures", {})
    if figures.get("metric") and figures["metric"] not in config["metrics"]:
        problems.append(f"figures.metric {figures['metric']!r} is not in metrics {config['metrics']}")
    return problems


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
