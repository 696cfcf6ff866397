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
    """A LETOR text file (plain or gzip) or a parsed ``.npz`` cache (by its name or its zip magic number)."""
    from .cache import is_cache_file, load_cache
    from .letor import read_letor

    path = Path(path)
    return load_cache(path) if path.suffix == ".npz" or is_cache_file(path) else read_letor(path)


#: the largest grade a label holds (RankingData's labels are int8); the trec_eval convention's scale
MAX_GRADE = 127


def label_scale(convention) -> tuple[int, str]:
    """The largest label of a metric convention's scale, and the scale as words for a message.

    An LTR convention's scale is 0..max_grade (its gain and ERR assume it: letor4 0..2, standard 0..4).  The
    trec_eval convention takes any non-negative integer grade, as trec_eval does (its gain is the label), up
    to :data:`MAX_GRADE`; a negative label is refused under every convention."""
    from ..metrics import get_convention

    convention = get_convention(convention)
    if convention.names == "trec_eval":
        return MAX_GRADE, (f"the {convention.name!r} convention's grades 0, 1, 2, ... (non-negative integers, at "
                           f"most {MAX_GRADE})")
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
    (AP, P@k, RR and R@k: label >= their ``rel`` or the convention's map_threshold; the gain-based metrics:
    label >= 1): every number such a metric
    gives would be the convention's value for an empty query, the same for every ranking.  ``needs`` says
    what the command computes from it."""
    from ..metrics import get_convention
    from ..metrics.names import parse_measure

    convention = get_convention(convention)
    for metric in metrics:
        spec = parse_measure(metric, convention)
        threshold = (spec.rel or convention.map_threshold) if spec.kind in ("ap", "p", "rr", "r") else 1
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

    from .cache import is_cache_file

    if Path(path).suffix == ".npz" or is_cache_file(path):
        return np.char.add("L", data.line_numbers.astype(str))
    return data.from_file_order(read_docids(path))


def read_scored_inputs(data=None, scores=(), qrels=None, runs=(), data_option="--data", scores_option="--scores",
                       same_documents: str | None = None, convention=None) -> ScoredInputs:
    """As :func:`read_scored`, but TREC runs may be top-k runs (:func:`ltrbv.data.trec.read_trec_runs`), and
    with the documents' ids.  ``same_documents``: the reason why every run must score every document (top-k
    runs are then refused with it).  Given a ``convention``, a label outside its scale is refused naming the
    file and line (:func:`label_scale`); the same file given twice is refused."""
    if qrels is not None and runs and data is None and not scores:
        from .trec import read_trec_runs, require_same_documents

        _refuse_repeated(list(runs), "--run")
        read = read_trec_runs(qrels, runs, *(label_scale(convention) if convention is not None else ()))
        if same_documents:
            require_same_documents(read, runs, same_documents)
        return ScoredInputs(read.data, read.scores, list(runs), read.docids, read.retrieved)
    ranking, matrix, files = read_scored(data, scores, qrels, runs, data_option, scores_option, convention)
    return ScoredInputs(ranking, matrix, files, document_ids(data, ranking))


def _refuse_repeated(paths: list, option: str) -> None:
    seen = {}
    for path in paths:
        key = Path(path).resolve()
        if key in seen:
            raise ValueError(f"{option}: {path} is given twice (also as {seen[key]}); give each system's file once")
        seen[key] = path
