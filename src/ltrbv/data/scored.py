"""The inputs of the commands that score models: a data file with score files, or TREC qrels with runs.

Both forms give the same thing: a :class:`~ltrbv.data.ranking_data.RankingData` (labels and queries) and the
models' scores, one row per model, in the data's row order.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .ranking_data import RankingData


def read_data_file(path) -> RankingData:
    """A LETOR text file (plain or gzip) or a parsed ``.npz`` cache (by its name or its zip magic number)."""
    from .cache import is_cache_file, load_cache
    from .letor import read_letor

    path = Path(path)
    return load_cache(path) if path.suffix == ".npz" or is_cache_file(path) else read_letor(path)


def label_scale(convention) -> tuple[int, str]:
    """The largest label of a metric convention's scale, and the scale as words for a message."""
    from ..metrics import get_convention

    convention = get_convention(convention)
    return convention.max_grade, (f"the {convention.name!r} convention's labels 0..{convention.max_grade} (choose "
                                  "--convention by the data's label scale)")


def check_labels(data: RankingData, path, convention) -> None:
    """Refuse a label outside ``convention``'s scale 0..max_grade, naming the file and line of the first one."""
    top, scale = label_scale(convention)
    check_label_range(data, path, 0, top, scale)


def check_label_range(data: RankingData, path, lo: int, hi: int, scale: str) -> None:
    """Refuse a label outside ``lo..hi`` (``scale`` says whose range), naming the file and line of the first."""
    bad = (data.labels < lo) | (data.labels > hi)
    if bad.any():
        rows = np.flatnonzero(bad)
        row = rows[np.argmin(data.line_numbers[rows])]
        where = f"{path}, line {data.line_numbers[row]}"
        if Path(path).suffix == ".npz" or str(data.source) != str(path):
            where = f"{path} (a cache of {data.source}), line {data.line_numbers[row]} of {data.source}"
        raise ValueError(f"{where}: label {int(data.labels[row])} outside {scale}")


def check_relevant(data: RankingData, metrics, convention, path, needs: str) -> None:
    """Refuse data in which no document of any query is relevant for one of ``metrics`` under ``convention``
    (AP and P@k: label >= its map_threshold; the gain-based metrics: label >= 1): every number such a metric
    gives would be the convention's value for an empty query, the same for every ranking.  ``needs`` says
    what the command computes from it."""
    from ..metrics import get_convention
    from ..metrics.names import parse_metric

    convention = get_convention(convention)
    for metric in metrics:
        threshold = convention.map_threshold if parse_metric(metric)[0] in ("ap", "p") else 1
        if not (data.labels >= threshold).any():
            raise ValueError(f"{path}: no document of any query has a label >= {threshold}, relevant for {metric} "
                             f"under the {convention.name!r} convention; {needs}")


def read_scored(data=None, scores=(), qrels=None, runs=(), data_option="--data", scores_option="--scores",
                convention=None) -> tuple[RankingData, np.ndarray, list[str]]:
    """``(data, scores of shape (n_models, n_docs) in row order, the score or run files)``.

    Exactly one form: ``data`` with ``scores`` (one score per line, in the data file's line order), or
    ``qrels`` with ``runs`` (:func:`ltrbv.data.trec.read_trec`, which refuses runs that lack documents).
    Given a ``convention``, a label outside its scale is refused (:func:`check_labels`).  The same file
    given twice as scores or runs is refused.
    """
    from ..io import read_scores

    scores, runs = list(scores or []), list(runs or [])
    _refuse_repeated(scores, scores_option)
    _refuse_repeated(runs, "--run")
    if qrels is not None or runs:
        if data is not None or scores:
            raise ValueError(f"give either {data_option} with {scores_option}, or --qrels with --run, not both")
        if qrels is None:
            raise ValueError("--run needs --qrels (the judgements of the run's queries)")
        if not runs:
            raise ValueError("--qrels needs --run (one TREC run per model)")
        from .trec import read_trec

        ranking, matrix = read_trec(qrels, runs, *(label_scale(convention) if convention is not None else ()))
        return ranking, matrix, runs
    if data is None:
        raise ValueError(f"give {data_option} with {scores_option}, or --qrels with --run")
    if not scores:
        raise ValueError(f"{data_option} needs {scores_option}")
    ranking = read_data_file(data)
    if convention is not None:
        check_labels(ranking, data, convention)
    matrix = np.stack([ranking.from_file_order(read_scores(path, n_expected=ranking.n_docs)) for path in scores])
    return ranking, matrix, scores


def _refuse_repeated(paths: list, option: str) -> None:
    seen = {}
    for path in paths:
        key = Path(path).resolve()
        if key in seen:
            raise ValueError(f"{option}: {path} is given twice (also as {seen[key]}); give each system's file once")
        seen[key] = path
