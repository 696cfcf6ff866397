"""TREC runs and qrels: write a prediction file as a run, read finished runs back for the reducers.

A **run** line is ``qid Q0 docid rank score tag``; a **qrels** line is ``qid 0 docid label``.  Document ids
come from the LETOR comment ``#docid = ...`` (LETOR 4.0, MSLR with ids) or, where a line has none, are
``L<line number>`` of the data file, so a run written here can be read back against the same file.

Reading runs for the reducers (:func:`read_trec`) is strict, because the reducers need the *same*
documents scored by every model: each query of the qrels must be scored by every run on exactly the same
documents.  Documents a run retrieved that the qrels do not judge count as not relevant (label 0), as in
trec_eval; a judged document missing from a run, a run that scores a query the qrels do not have, a
document listed twice, a non-finite score are refused naming the file and line (or the query and document).

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

    return max(parse_int(text, "label"), 0)  # trec_eval: negative judgements are not relevant


def _rank(text: str) -> int:
    from ..input_files import parse_int

    return parse_int(text, "rank")


def _score(text: str) -> float:
    from ..input_files import parse_float

    return parse_float(text, "score")


def read_qrels(path) -> dict[str, dict[str, int]]:
    """``{qid: {docid: label}}`` in file order; labels are integers, negative ones read as 0."""
    return {qid: {doc: value for doc, (value, _) in docs.items()} for qid, docs in _qrels_lines(path).items()}


def _qrels_lines(path) -> dict[str, dict[str, tuple[int, int]]]:
    return _read_table(path, "qid 0 docid label", {3: _label}, "qrels")


def read_run(path) -> dict[str, dict[str, float]]:
    """``{qid: {docid: score}}`` of a TREC run (``qid Q0 docid rank score tag``)."""
    table = _read_table(path, "qid Q0 docid rank score tag", {3: _rank, 4: _score}, "run")
    return {qid: {doc: value for doc, (value, _) in docs.items()} for qid, docs in table.items()}


def read_trec(qrels_path, run_paths, max_label: int = 127, scale: str = "") -> tuple[RankingData, np.ndarray]:
    """The qrels' queries as a RankingData (no features) and the runs' scores, shape (n_runs, n_docs).

    Documents per query: those of the qrels, then those the runs retrieved unjudged (label 0), in order
    of first appearance.  Every run must score every one of them (see the module docstring).  A label above
    ``max_label`` is refused naming its line (``scale`` says whose label scale that is)."""
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
    labels, offsets, rows_of, lines = [], [0], [], []
    for qid, judged in qrels.items():
        docs = dict(judged)
        for _, run in runs:
            for docid in run.get(qid, {}):
                docs.setdefault(docid, 0)
        for path, run in runs:
            scored = run.get(qid, {})
            missing = [d for d in docs if d not in scored]
            if missing:
                raise TrecFormatError(
                    f"{path}: query {qid} lacks {len(missing)} of its {len(docs)} documents (e.g. {missing[0]!r}); "
                    "the reducers need every run to score the same documents of every query")
        rows_of.append(list(docs))
        labels.extend(docs.values())
        lines.extend(judged_lines[qid][d][1] if d in judged else 0 for d in docs)
        offsets.append(offsets[-1] + len(docs))
    n_docs = offsets[-1]
    scores = np.empty((len(runs), n_docs))
    for r, (_, run) in enumerate(runs):
        scores[r] = [run[qid][d] for qid, docs in zip(qrels, rows_of) for d in docs]
    labels = np.asarray(labels, dtype=np.int64)
    if labels.max() > min(max_label, 127):
        at = int(np.argmax(labels > min(max_label, 127)))
        what = (f"outside {scale}" if scale and labels[at] <= 127
                else "above 127; qrels hold relevance grades (0, 1, 2, ...)")
        raise TrecFormatError(f"{qrels_path}, line {lines[at]}: label {labels[at]} {what}")
    data = RankingData(X=np.zeros((n_docs, 0), dtype=np.float32), labels=labels.astype(np.int8),
                       query_offsets=np.asarray(offsets, dtype=np.int64), qids=np.asarray(list(qrels), dtype=str),
                       line_numbers=np.arange(1, n_docs + 1, dtype=np.int64), source=str(qrels_path))
    return data, scores
