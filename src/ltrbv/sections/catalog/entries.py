"""The catalog's entries as configured: the section's settings, an entry's seeds and folds, its training runs'
files, and the catalog's own files (each path template once)."""

from __future__ import annotations

from ...workflow import paths
from ...workflow.datasets import covered_datasets, enabled_section
from ...workflow.paths import DATASET

#: one page per dataset: every catalog entry's claims, numbers, verdict and CPU time (rule catalog_page)
CATALOG = DATASET + "/catalog.md"
#: an entry's table (csv, md), its claims' tests (claims.csv) and figure (png, svg)
CATALOG_FILE = DATASET + "/catalog/{entry}.{ext}"
#: an entry's claims' tests: catalog/<entry>.claims.csv
CLAIMS_EXT = "claims.csv"
#: an entry's ``folds: first``: each dataset's first fold
FIRST_FOLD = "first"


def entry_job(kind: str) -> str:
    """The job name (of its log and benchmark) of a kind's rule ``catalog_<kind>``."""
    return f"catalog_{kind}/{{entry}}"


def catalog_file(entry: str, ext: str, dataset: str = "{dataset}") -> str:
    return CATALOG_FILE.format(dataset=dataset, entry=entry, ext=ext)


def settings(config: dict) -> dict | None:
    return enabled_section(config, "catalog")


def datasets(config: dict) -> list[str]:
    """Datasets of the run the catalog covers (``catalog.datasets``; empty or null: all of them)."""
    return covered_datasets(config, settings(config))


def entries(config: dict) -> dict:
    return settings(config)["entries"]


def entry_seeds(config: dict, entry: dict) -> list[int]:
    return list(entry.get("seeds") or settings(config)["seeds"])


def entry_folds(config: dict, dataset: str, entry: dict) -> list[str]:
    """The entry's folds of a dataset: all of them by default, ``first``: the first only (Fold1, Yahoo's set1)."""
    folds = config["datasets"][dataset]["folds"]
    chosen = entry.get("folds")
    return folds[:1] if chosen == FIRST_FOLD else list(chosen or folds)


def run_files(config: dict, dataset: str, entry: dict, learners, file: str = "test.scores") -> dict:
    """``{learner: {fold: {seed: file}}}`` of the training runs of ``learners`` on the entry's folds and seeds."""
    return {learner: {fold: {str(seed): paths.prediction(dataset, learner, fold, paths.seed_run(seed), file)
                             for seed in entry_seeds(config, entry)}
                      for fold in entry_folds(config, dataset, entry)}
            for learner in dict.fromkeys(learners)}


def split_files(config: dict, dataset: str, entry: dict, split: str = "test") -> dict:
    """``{fold: parsed split}`` of the entry's folds."""
    return {fold: paths.parsed(dataset, fold, split) for fold in entry_folds(config, dataset, entry)}
