"""TREC runs and qrels: write a prediction file as a run, read finished runs back for the reducers.

A **run** line is ``qid Q0 docid rank score tag``; a **qrels** line is ``qid 0 docid label``.  Document ids
come from the LETOR comment ``#docid = ...`` (LETOR 4.0, MSLR with ids) or, where a line has none, are
``L<line number>`` of the data file, so a run written here can be read back against the same file.

Reading runs (:func:`read_trec_runs`) takes top-k runs as trec_eval does: per query, the documents are those
of the qrels and those any run retrieved; a document a run does not retrieve is marked so (``retrieved``) and
the metrics (the ``trec_eval`` convention) do not rank it but count it in the denominators.  Documents a run
retrieved that the qrels do not judge count as not relevant (label 0), as in trec_eval.  A run that scores a
query the qrels do not have, or none of a qrels query's documents, a document listed twice, a non-finite score
are refused naming the file and line (or the query and document).

:func:`read_trec` is the strict form for the reducers that need the *same* documents scored by every model
(bias and variance compare each document's scores across models): each query of the qrels must be scored by
every run on exactly the same documents.

What a run can give: every metric and listwise quantity (SRE, VRE, ranking error, Zhang et al.'s
decomposition) needs only the ranking of the documents of each query, so runs suffice when every run
ranks the same documents.  Pointwise bias² and variance (Ibrahim 2021 eq. 5-8) compare *scores* of the
same document across models: they are only meaningful when the runs' scores are on one scale (the
models' raw outputs, as `ltrbv export-trec` writes them), not for runs whose scores are ranks or
renormalised per system.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .ranking_data import RankingData

_DOCID = re.compile(r"docid\s*=\s*(\S+)")


class TrecFormatError(ValueError):
    pass


def _data_lines(path):
    """(line number, text) of the data lines of a LETOR text file, plain or gzip (blank and comment-only lines
    skipped).  Lines end at LF only, as the parser counts them: a lone CR is whitespace, also in a comment."""
    from ..input_files import open_data_stream

    stream, raw = open_data_stream(path)
    try:
        for number, line in enumerate(stream, start=1):  # a binary stream splits at b"\n" only
            stripped = line.strip()
            if stripped and not stripped.startswith(b"#"):
                yield number, line.decode("utf-8", "backslashreplace")
    finally:
        stream.close()
        if raw is not None:
            raw.close()


def read_docids(path: str | os.PathLike) -> np.ndarray:
    """The document id of each data line of a LETOR file, in file order (``#docid = X`` or ``L<line>``)."""
    ids = []
    for number, line in _data_lines(path):
        _, _, comment = line.partition("#")
        match = _DOCID.search(comment)
        ids.append(match.group(1) if match else f"L{number}")
    return np.asarray(ids, dtype=str)


def _check_unique_docids(path, data: RankingData, docids_in_rows: np.ndarray) -> None:
    for q in range(data.n_queries):
        ids = docids_in_rows[data.query_offsets[q]:data.query_offsets[q + 1]]
        if np.unique(ids).size != ids.size:
            values, counts = np.unique(ids, return_counts=True)
            raise TrecFormatError(f"{path}: query {data.qids[q]} has document id {values[counts > 1][0]!r} twice; "
                                  "a run needs one id per document (remove the #docid comments to use line numbers)")


def write_run(path, data: RankingData, scores_in_rows: np.ndarray, docids_in_rows: np.ndarray, tag: str = "ltrbv",
              source="") -> Path:
    """Write a TREC run: per query, documents by decreasing score (ties in file order), ranks from 1."""
    from ..io import atomic_path

    _check_unique_docids(source or data.source, data, docids_in_rows)
    lines = []
    for q in range(data.n_queries):
        lo, hi = data.query_offsets[q], data.query_offsets[q + 1]
        order = np.argsort(-scores_in_rows[lo:hi], kind="stable")
        for rank, i in enumerate(order, start=1):
            lines.append(f"{data.qids[q]} Q0 {docids_in_rows[lo + i]} {rank} {float(scores_in_rows[lo + i])!r} {tag}\n")
    with atomic_path(path) as tmp:
        tmp.write_text("".join(lines), encoding="utf-8")
    return Path(path)


def write_qrels(path, data: RankingData, docids_in_rows: np.ndarray, gain: str = "label", source="") -> Path:
    """Write TREC qrels: the labels (``gain="label"``) or 2^label - 1 (``"exp2"``: trec_eval's linear-gain
    nDCG then equals the ``standard`` convention's)."""
    from ..io import atomic_path

    if gain not in ("label", "exp2"):
        raise ValueError(f"gain must be 'label' or 'exp2', got {gain!r}")
    _check_unique_docids(source or data.source, data, docids_in_rows)
    values = data.labels.astype(np.int64)
    if gain == "exp2":
        values = 2**values - 1
    lines = []
    for q in range(data.n_queries):
        for i in range(data.query_offsets[q], data.query_offsets[q + 1]):
            lines.append(f"{data.qids[q]} 0 {docids_in_rows[i]} {values[i]}\n")
    with atomic_path(path) as tmp:
        tmp.write_text("".join(lines), encoding="utf-8")
    return Path(path)


def _read_table(path, layout: str, checks: dict, kind: str) -> dict[str, dict[str, tuple[object, int]]]:
    """``{qid: {docid: (value, line)}}`` of a whitespace-separated TREC file whose lines are ``layout``;
    ``checks`` maps a field's position to its parser (the last one's value is kept)."""
    from ..input_files import InputFileError, read_text_lines

    n_fields = len(layout.split())
    table: dict[str, dict[str, tuple[object, int]]] = {}
    try:
        lines = read_text_lines(path, f"a TREC {kind} file")
    except InputFileError as error:
        raise TrecFormatError(str(error)) from None
    for number, line in lines:
        fields = line.split()
        if not fields:
            continue
        if len(fields) != n_fields:
            raise TrecFormatError(f"{path}, line {number}: {len(fields)} fields, a {kind} line is '{layout}'")
        qid, docid = fields[0], fields[2]
        try:
            value = [parse(fields[position]) for position, parse in checks.items()][-1]
        except ValueError as error:
            raise TrecFormatError(f"{path}, line {number}: {error}") from None
        docs = table.setdefault(qid, {})
        if docid in docs:
            raise TrecFormatError(f"{path}, line {number}: document {docid!r} of query {qid} appears twice")
        docs[docid] = (value, number)
    if not table:
        raise TrecFormatError(f"{path}: no {kind} lines")
    return table


def _label(text: str) -> int:
    from ..input_files import parse_int

    value = parse_int(text, "label")
    if value < 0:  # trec_eval reads one as not relevant; refused rather than changed without a word
        raise ValueError(f"label {value} is negative; qrels hold relevance grades 0, 1, 2, ... (trec_eval reads a "
                         "negative judgement as not relevant: to do so, write it as 0)")
    return value


def _rank(text: str) -> int:
    from ..input_files import parse_int

    return parse_int(text, "rank")


def _score(text: str) -> float:
    from ..input_files import parse_float

    return parse_float(text, "score")


def read_qrels(path) -> dict[str, dict[str, int]]:
    """``{qid: {docid: label}}`` in file order; labels are non-negative integers (a negative one is refused)."""
    return {qid: {doc: value for doc, (value, _) in docs.items()} for qid, docs in _qrels_lines(path).items()}


def _qrels_lines(path) -> dict[str, dict[str, tuple[int, int]]]:
    return _read_table(path, "qid 0 docid label", {3: _label}, "qrels")


def read_run(path) -> dict[str, dict[str, float]]:
    """``{qid: {docid: score}}`` of a TREC run (``qid Q0 docid rank score tag``)."""
    table = _read_table(path, "qid Q0 docid rank score tag", {3: _rank, 4: _score}, "run")
    return {qid: {doc: value for doc, (value, _) in docs.items()} for qid, docs in table.items()}


@dataclass(frozen=True, eq=False)
class TrecRuns:
    """Runs read against qrels: the queries (``data``, no features), the documents' ids (row order), the
    scores (n_runs, n_docs; nan where a run does not retrieve the document) and ``retrieved`` (bool, same
    shape)."""

    data: RankingData
    docids: np.ndarray
    scores: np.ndarray
    retrieved: np.ndarray

    @property
    def top_k(self) -> bool:
        """Whether some run does not retrieve some document of its queries."""
        return not bool(self.retrieved.all())

    def unretrieved_counts(self) -> np.ndarray:
        """Documents each run does not retrieve, shape (n_runs,)."""
        return (~self.retrieved).sum(axis=1)


def read_trec_runs(qrels_path, run_paths, max_label: int = 127, scale: str = "") -> TrecRuns:
    """The qrels' queries and the runs' scores.  Documents per query: those of the qrels, then those the runs
    retrieved unjudged (label 0), in order of first appearance; a run need not retrieve every one of them
    (a top-k run), but must retrieve some document of every qrels query.  A label above ``max_label`` is
    refused naming its line (``scale`` says whose label scale that is)."""
    judged_lines = _qrels_lines(qrels_path)
    qrels = {qid: {doc: value for doc, (value, _) in docs.items()} for qid, docs in judged_lines.items()}
    runs = [(Path(p), read_run(p)) for p in run_paths]
    if not runs:
        raise ValueError("--run needs at least one run file")
    for path, run in runs:
        extra = sorted(set(run) - set(qrels))
        if extra:
            raise TrecFormatError(f"{path}: query {extra[0]} is not in the qrels {qrels_path} "
                                  f"({len(extra)} such queries); score the qrels' queries only")
        absent = [qid for qid in qrels if qid not in run]
        if absent:
            raise TrecFormatError(f"{path}: query {absent[0]} of the qrels is not in the run ({len(absent)} such "
                                  "queries); trec_eval would average over the run's queries only (or count them "
                                  "as 0 with -c): give runs of the same queries")
    labels, offsets, rows_of, lines = [], [0], [], []
    for qid, judged in qrels.items():
        docs = dict(judged)
        for _, run in runs:
            for docid in run[qid]:
                docs.setdefault(docid, 0)
        rows_of.append(list(docs))
        labels.extend(docs.values())
        lines.extend(judged_lines[qid][d][1] if d in judged else 0 for d in docs)
        offsets.append(offsets[-1] + len(docs))
    n_docs = offsets[-1]
    scores = np.full((len(runs), n_docs), np.nan)
    for r, (_, run) in enumerate(runs):
        scores[r] = [run[qid].get(d, np.nan) for qid, docs in zip(qrels, rows_of) for d in docs]
    labels = np.asarray(labels, dtype=np.int64)
    if labels.max() > min(max_label, 127):
        at = int(np.argmax(labels > min(max_label, 127)))
        what = (f"outside {scale}" if scale and labels[at] <= 127
                else "above 127; qrels hold relevance grades (0, 1, 2, ...)")
        raise TrecFormatError(f"{qrels_path}, line {lines[at]}: label {labels[at]} {what}")
    data = RankingData(X=np.zeros((n_docs, 0), dtype=np.float32), labels=labels.astype(np.int8),
                       query_offsets=np.asarray(offsets, dtype=np.int64), qids=np.asarray(list(qrels), dtype=str),
                       line_numbers=np.arange(1, n_docs + 1, dtype=np.int64), source=str(qrels_path))
    docids = np.asarray([d for docs in rows_of for d in docs], dtype=str)
    return TrecRuns(data=data, docids=docids, scores=scores, retrieved=~np.isnan(scores))


def require_same_documents(runs: TrecRuns, run_paths, reason: str) -> None:
    """Refuse top-k runs where every run must score every document (``reason`` says why), naming the run,
    the query and a document."""
    for path, retrieved in zip(run_paths, runs.retrieved):
        if retrieved.all():
            continue
        data = runs.data
        q = int(np.searchsorted(data.query_offsets, np.flatnonzero(~retrieved)[0], side="right") - 1)
        rows = slice(data.query_offsets[q], data.query_offsets[q + 1])
        missing = np.flatnonzero(~retrieved[rows])
        raise TrecFormatError(
            f"{path}: query {data.qids[q]} lacks {missing.size} of its {rows.stop - rows.start} documents (e.g. "
            f"{str(runs.docids[rows][missing[0]])!r}); {reason}")


def read_trec(qrels_path, run_paths, max_label: int = 127, scale: str = "") -> tuple[RankingData, np.ndarray]:
    """The qrels' queries as a RankingData (no features) and the runs' scores, shape (n_runs, n_docs), where
    every run scores every document of its queries (the strict form, see the module docstring)."""
    runs = read_trec_runs(qrels_path, run_paths, max_label, scale)
    require_same_documents(runs, run_paths, "the reducers need every run to score the same documents of every "
                           "query")
    return runs.data, runs.scores
