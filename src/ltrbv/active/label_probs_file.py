"""The label-probabilities file of ``ltrbv sampling-distribution``: one line per document, |Y| numbers.

Line i holds p(y = 0 | x, z_i), ..., p(y = |Y|-1 | x, z_i) for the document on line i of the
data file, separated by whitespace or commas; every line must have the same count and sum to 1.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

#: a line's probabilities must sum to 1 within this (probabilities printed to 4 or more decimals
#: pass; each line is then renormalised to sum to exactly 1)
SUM_TOLERANCE = 1e-3


class LabelProbsFileError(ValueError):
    pass


def read_label_probs(path: str | os.PathLike, n_expected: int | None = None) -> np.ndarray:
    """Read and check a label-probabilities file; errors name the file and line.

    Numbers follow :func:`ltrbv.input_files.parse_float` (no ``nan``, ``1_000``, ...); a line separated by
    commas has no empty field; the file is a regular text file (:mod:`ltrbv.input_files`)."""
    from ..input_files import InputFileError, read_text_lines

    path = Path(path)
    try:
        lines = read_text_lines(path, "a label-probabilities file")
    except InputFileError as error:
        raise LabelProbsFileError(str(error)) from None
    rows, width = [], None
    for line_number, line in lines:
        values = _numbers(path, line_number, line)
        if width is None:
            width = len(values)
            if width < 2:
                raise LabelProbsFileError(f"{path}, line {line_number}: {width} column, need |Y| >= 2")
        elif len(values) != width:
            raise LabelProbsFileError(f"{path}, line {line_number}: {len(values)} columns, line 1 has {width}")
        row = np.asarray(values)
        if row.min() < 0 or row.max() > 1:
            raise LabelProbsFileError(f"{path}, line {line_number}: probabilities must lie in [0, 1]")
        if abs(row.sum() - 1.0) > SUM_TOLERANCE:
            raise LabelProbsFileError(f"{path}, line {line_number}: probabilities sum to {row.sum():.10g}, not 1")
        rows.append(row)
    if not rows:
        raise LabelProbsFileError(f"{path}: no lines")
    probs = np.vstack(rows)
    if n_expected is not None and probs.shape[0] != n_expected:
        if probs.shape[0] < n_expected:
            raise LabelProbsFileError(f"{path}: {probs.shape[0]} lines for {n_expected} documents "
                                      f"(line {probs.shape[0] + 1} is missing)")
        raise LabelProbsFileError(f"{path}: {probs.shape[0]} lines for {n_expected} documents (line "
                                  f"{n_expected + 1} is the first extra line)")
    return probs / probs.sum(axis=1, keepdims=True)


def _numbers(path, line_number: int, line: str) -> list[float]:
    """The numbers of one line: separated by whitespace, or by commas (then no field may be empty)."""
    from ..input_files import parse_float

    tokens = [t.strip() for t in line.split(",")] if "," in line else line.split()
    if not any(tokens):
        raise LabelProbsFileError(f"{path}, line {line_number}: empty line, expected label probabilities")
    if "" in tokens:
        raise LabelProbsFileError(f"{path}, line {line_number}: an empty field between commas")
    try:
        return [parse_float(t, "probability") for t in tokens]
    except ValueError as error:
        raise LabelProbsFileError(f"{path}, line {line_number}: {error}") from None
