"""The job grid of the forest diagnostics (Ibrahim & Carman 2016): progressive strength of trees (Fig. 7).

Config section ``diagnostics`` (schema: ``config/schema/diagnostics.schema.yaml``; off when absent)::

    diagnostics:
      tree_strength:
        enabled: true
        learners: [rf-point, rf-list]   # names under learners:, of kind random_forest
        n_trees: 20                     # trees grown per learner (the paper's 20)
        fold: null                      # null: each dataset's first fold
        max_expansions: null            # null: whole trees; an integer caps every curve

One ``tree_strength`` job per (dataset, learner) writes
``results/{dataset}/diagnostics/tree_strength/{learner}.csv``; one
``plot_tree_strength`` job per dataset draws ``figures/tree_strength.{png,svg}``.
"""

from __future__ import annotations

from ...workflow import paths
from ...workflow.datasets import covered_datasets
from ...workflow.paths import DATASET
from ...workflow.validation import unknown_name
from ..core.grid import sorted_dict

#: one learner's tree-strength table (rule tree_strength)
TREE_STRENGTH = DATASET + "/diagnostics/tree_strength/{learner}.csv"
#: its top-level config key (None: always on) and its place in the registry's order (ltrbv.workflow.sections)
CONFIG_KEY = "diagnostics"
ORDER = 40

JOBS = {"tree_strength": "tree_strength/{learner}", "plot_tree_strength": "plot_tree_strength"}
#: the report's menu entry of the diagnostics' figure
CATEGORY = "6. Forest diagnostics"
FOREST_KIND = "random_forest"


def tree_strength_datasets(config: dict) -> list[str]:
    """Datasets of the run the diagnostic covers (``datasets``; empty or null: all of them)."""
    return covered_datasets(config, tree_strength_settings(config))


def tree_strength_settings(config: dict) -> dict | None:
    """The tree-strength diagnostic (defaults filled in by the schema), or None when absent or ``enabled: false``."""
    section = (config.get("diagnostics") or {}).get("tree_strength")
    if not section or not section["enabled"]:
        return None
    return section


def tree_strength_fold(config: dict, dataset: str) -> str:
    settings = tree_strength_settings(config)
    return settings["fold"] or config["datasets"][dataset]["folds"][0]


def tree_strength_input(config: dict, dataset: str, split: str) -> str:
    """The parsed split of the fold whose training set grows the trees."""
    return paths.parsed(dataset, tree_strength_fold(config, dataset), split)


def tree_strength_params(config: dict, learner: str) -> dict:
    """A learner's forest parameters, key-sorted (Snakemake compares params by repr)."""
    return sorted_dict(dict(config["learners"][learner].get("params", {})))


def tree_strength_files(config: dict, dataset: str) -> dict[str, str]:
    """``{learner: table}`` of a dataset's tree-strength jobs."""
    settings = tree_strength_settings(config)
    return {learner: TREE_STRENGTH.format(dataset=dataset, learner=learner)
            for learner in settings["learners"]} if settings else {}


def settings(config: dict) -> dict | None:
    return tree_strength_settings(config)


def targets(config: dict) -> list[str]:
    """The diagnostics' tables and figures for every dataset of the run (empty when off)."""
    if tree_strength_settings(config) is None:
        return []
    files = []
    for dataset in tree_strength_datasets(config):
        files += list(tree_strength_files(config, dataset).values())
        files += paths.figures("tree_strength", dataset)
    return files


def problems(config: dict, sections=None) -> list[str]:
    """Config errors the schema cannot see, each naming its key."""
    settings = tree_strength_settings(config)
    if settings is None:
        return []
    key = "diagnostics.tree_strength"
    found = []
    learners = settings["learners"]  # the schema refuses an empty list, a name given twice, n_trees < 1 ...
    known = config.get("learners", {})
    for name in learners:
        if name not in known:
            found.append(unknown_name(f"{key}.learners", name, known, "learners"))
        elif known[name].get("kind") != FOREST_KIND:
            found.append(f"{key}.learners: {name!r} is of kind {known[name].get('kind')!r}; the progressive "
                         f"strength of trees needs a learner of kind {FOREST_KIND!r}")
    fold = settings["fold"]
    for dataset in config.get("run", {}).get("datasets", []):
        folds = config.get("datasets", {}).get(dataset, {}).get("folds", [])
        if fold is not None and fold not in folds:
            found.append(f"{key}.fold {fold!r} is not among datasets.{dataset}.folds: {folds}")
    return found
