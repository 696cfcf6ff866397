"""The inputs of the commands that score models: a data file with score files, or TREC qrels with runs.

Both forms give the same thing: a :class:`~ltrbv.data.ranking_data.RankingData` (labels and queries) and the
models' scores, one row per model, in the data's row order.
"""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True, eq=False)
class ScoredInputs:
    """The inputs of ``ltrbv evaluate`` and ``ltrbv compare``: the data, the scores (n_models, n_docs, row
    order; nan where a run does not retrieve a document), the score or run files, every document's id
    (``#docid = ...`` of a LETOR file, ``L<line>`` where a line has none, the run's for TREC input: trec_eval
    orders tied scores by them) and ``retrieved`` (None: every model scores every document)."""

    data: RankingData
    scores: np.ndarray
    files: list
    docids: np.ndarray
    retrieved: np.ndarray | None = None

    def unretrieved_note(self) -> str | None:
        """A sentence on the documents the runs do not retrieve, None if every run retrieves every one."""
        if self.retrieved is None or self.retrieved.all():
            return None
        counts = ", ".join(f"{Path(f).name} {int(n)}" for f, n in zip(self.files, (~self.retrieved).sum(axis=1)))
        return (f"judged documents a run does not retrieve ({counts} of {self.data.n_docs}) are handled as trec_eval "
                "handles them: not ranked, counted among the relevant documents of AP and R@k and in nDCG's ideal "
                "DCG")


def document_ids(path, data: RankingData) -> np.ndarray:
    """Row-order document ids of a data file: its ``#docid = ...`` comments (``L<line>`` where a line has
    none); ``L<line>`` for a parsed ``.npz`` cache (it keeps no comments), as ``ltrbv export-trec`` writes."""
    from .trec import read_docids

    if Path(path).suffix == ".npz":
        return np.char.add("L", data.line_numbers.astype(str))
    return data.from_file_order(read_docids(path))


def read_scored_inputs(data=None, scores=(), qrels=None, runs=(), data_option="--data", scores_option="--scores",
                       same_documents: str | None = None) -> ScoredInputs:
    """As :func:`read_scored`, but TREC runs may be top-k runs (:func:`ltrbv.data.trec.read_trec_runs`), and
    with the documents' ids.  ``same_documents``: the reason why every run must score every document (top-k
    runs are then refused with it)."""
    if qrels is not None and runs and data is None and not scores:
        from .trec import read_trec_runs, require_same_documents

        read = read_trec_runs(qrels, runs)
        if same_documents:
            require_same_documents(read, runs, same_documents)
        return ScoredInputs(read.data, read.scores, list(runs), read.docids, read.retrieved)
    if qrels is not None or runs:
        read_scored(data, scores, qrels, runs, data_option, scores_option)  # refuses the mixed or half forms
    ranking, matrix, files = read_scored(data, scores, qrels, runs, data_option, scores_option)
    return ScoredInputs(ranking, matrix, files, document_ids(data, ranking))
