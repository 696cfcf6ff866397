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
    """Read and check a label-probabilities file; errors name the file and line."""
    path = Path(path)
    rows, width = [], None
    with open(path, encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            tokens = line.replace(",", " ").split()
            if not tokens:
                raise LabelProbsFileError(f"{path}, line {line_number}: empty line, expected label probabilities")
            try:
                values = [float(t) for t in tokens]
            except ValueError:
                bad = next(t for t in tokens if not _is_float(t))
                raise LabelProbsFileError(f"{path}, line {line_number}: {bad!r} is not a number") from None
            if width is None:
                width = len(values)
                if width < 2:
                    raise LabelProbsFileError(f"{path}, line {line_number}: {width} column, need |Y| >= 2")
            elif len(values) != width:
                raise LabelProbsFileError(f"{path}, line {line_number}: {len(values)} columns, line 1 has {width}")
            row = np.asarray(values)
            if not np.all(np.isfinite(row)) or row.min() < 0 or row.max() > 1:
                raise LabelProbsFileError(f"{path}, line {line_number}: probabilities must lie in [0, 1]")
            if abs(row.sum() - 1.0) > SUM_TOLERANCE:
                raise LabelProbsFileError(f"{path}, line {line_number}: probabilities sum to {row.sum():.10g}, not 1")
            rows.append(row)
    if not rows:
        raise LabelProbsFileError(f"{path}: no lines")
    probs = np.vstack(rows)
    if n_expected is not None and probs.shape[0] != n_expected:
        raise LabelProbsFileError(
            f"{path}: {probs.shape[0]} lines for {n_expected} documents (line {probs.shape[0] + 1}"
            f"{' is missing' if probs.shape[0] < n_expected else ' is one too many'})")
    return probs / probs.sum(axis=1, keepdims=True)


def _is_float(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True
