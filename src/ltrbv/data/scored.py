"""The inputs of the commands that score models: a data file with score files, or TREC qrels with runs.

Both forms give the same thing: a :class:`~ltrbv.data.ranking_data.RankingData` (labels and queries) and the
models' scores, one row per model, in the data's row order.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .ranking_data import RankingData


def read_data_file(path) -> RankingData:
    """A LETOR text file (plain or gzip) or a parsed ``.npz`` cache."""
    from .cache import load_cache
    from .letor import read_letor

    path = Path(path)
    return load_cache(path) if path.suffix == ".npz" else read_letor(path)


def read_scored(data=None, scores=(), qrels=None, runs=(), data_option="--data", scores_option="--scores",
                ) -> tuple[RankingData, np.ndarray, list[str]]:
    """``(data, scores of shape (n_models, n_docs) in row order, the score or run files)``.

    Exactly one form: ``data`` with ``scores`` (one score per line, in the data file's line order), or
    ``qrels`` with ``runs`` (:func:`ltrbv.data.trec.read_trec`, which refuses runs that lack documents).
    """
    from ..io import read_scores

    scores, runs = list(scores or []), list(runs or [])
    if qrels is not None or runs:
        if data is not None or scores:
            raise ValueError(f"give either {data_option} with {scores_option}, or --qrels with --run, not both")
        if qrels is None:
            raise ValueError("--run needs --qrels (the judgements of the run's queries)")
        if not runs:
            raise ValueError("--qrels needs --run (one TREC run per model)")
        from .trec import read_trec

        ranking, matrix = read_trec(qrels, runs)
        return ranking, matrix, runs
    if data is None:
        raise ValueError(f"give {data_option} with {scores_option}, or --qrels with --run")
    if not scores:
        raise ValueError(f"{data_option} needs {scores_option}")
    ranking = read_data_file(data)
    matrix = np.stack([ranking.from_file_order(read_scores(path, n_expected=ranking.n_docs)) for path in scores])
    return ranking, matrix, scores
