"""What the kinds whose learners the core run trains share (compare, sweep, curve, grid): their learners' checks,
their runs' files, the scores they read and the benchmark files of the jobs behind them."""

from __future__ import annotations

import json
from pathlib import Path

from ....workflow import paths
from ....workflow.validation import unknown_name
from ...core import grid as core_grid
from ...core.grid import trainable
from ..entries import FIRST_FOLD, datasets, entry_folds, entry_job, entry_seeds, run_files, split_files

#: the fields every trained kind takes besides its own
RUN_FIELDS = {
    "seeds": {"description": "the entry's seeds (replicates; default: catalog.seeds)", "type": "array",
              "items": {"type": "integer", "minimum": 1}, "minItems": 1, "uniqueItems": True},
    "folds": {"description": "folds of the entry (default: all of the dataset's); first: each dataset's first fold",
              "oneOf": [{"type": "array", "items": {"type": "string"}, "minItems": 1, "uniqueItems": True},
                        {"const": FIRST_FOLD}]},
}


def learners_field(description: str) -> dict:
    return {"description": description, "type": "array", "items": {"type": "string"}, "minItems": 1,
            "uniqueItems": True}


def learner_problems(config: dict, key: str, entry: dict) -> list[str]:
    """The entry's learners are learners of the config the workflow trains, and its folds folds of every dataset."""
    found = []
    known = config["learners"]
    for learner in entry["learners"]:
        if learner not in known:
            found.append(unknown_name(f"{key}.learners", learner, known, "learners"))
        elif not trainable(known[learner]["kind"]):
            found.append(f"{key}.learners: {learner!r} is of kind {known[learner]['kind']!r}; the catalog "
                         f"trains built-in learners (rule train_model) and bags")
    chosen = entry.get("folds")
    for dataset in datasets(config):
        folds = config["datasets"][dataset]["folds"]
        for fold in [] if chosen == FIRST_FOLD else chosen or []:
            if fold not in folds:
                found.append(f"{key}.folds: {fold!r} is not among datasets.{dataset}.folds {folds}")
    return found


def test_run_files(config: dict, dataset: str, entry: dict, learners) -> dict:
    """The job's inputs of a trained kind: each run's test scores and record, each fold's test split."""
    return {"scores": run_files(config, dataset, entry, learners),
            "meta": run_files(config, dataset, entry, learners, "meta.json"),
            "data": split_files(config, dataset, entry)}


def timed_run_files(config: dict, dataset: str, name: str, entry: dict, learners, timed) -> dict:
    """:func:`test_run_files`, and the entry's timing table when it has timing claims (``timed``: their learners)."""
    from ..entries import catalog_file
    from ..timing import TIMING_EXT

    found = test_run_files(config, dataset, entry, learners)
    if timed:
        found["timing"] = catalog_file(name, TIMING_EXT, dataset)
    return found


def training_benchmarks(config: dict, dataset: str, name: str, entry: dict, learners) -> list[str]:
    """The benchmark files of the training jobs behind an entry and of its own job."""
    files = [path for learner in dict.fromkeys(learners) for fold in entry_folds(config, dataset, entry)
             for seed in entry_seeds(config, entry)
             for path in core_grid.training_benchmarks(config, dataset, learner, fold, seed)]
    return files + [paths.benchmark(entry_job(entry["kind"])).format(dataset=dataset, entry=name)]


def read_meta(files: dict) -> dict:
    """``{learner: {fold: {seed: meta.json}}}`` parsed."""
    return {learner: {fold: {seed: json.loads(Path(path).read_text()) for seed, path in by_seed.items()}
                      for fold, by_seed in by_fold.items()} for learner, by_fold in files.items()}


def read_scores(score_files: dict, data_files: dict) -> tuple[dict, dict]:
    """``({learner: {fold: {seed: scores}}}, {fold: RankingData})``: every run's scores, each checked against the
    digest of the data it scored."""
    from ....data.cache import load_cache
    from ....workflow.digests import read_run_scores

    data = {fold: load_cache(path) for fold, path in data_files.items()}
    return {learner: {fold: {seed: read_run_scores(path, data[fold], data_files[fold])
                             for seed, path in by_seed.items()} for fold, by_seed in by_fold.items()}
            for learner, by_fold in score_files.items()}, data
