"""Small, atomic file writers and the score-file format.

A score file holds one score per line in the order of the lines of the data
file it scores, exactly what the LETOR evaluation scripts read; scores are
written with 17 significant digits so that reading them back is bit-exact.
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np


def _default_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


#: mkstemp creates 0600 files; results get the mode an ordinary file would have under the umask
FILE_MODE = _default_file_mode()


@contextmanager
def atomic_path(path: str | os.PathLike):
    """Yield a temporary path beside ``path``; move it into place only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json(path: str | os.PathLike, obj) -> None:
    write_text(path, json.dumps(obj, indent=2, sort_keys=True, default=_json_default) + "\n")


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def write_scores(path: str | os.PathLike, scores_in_file_order: np.ndarray) -> None:
    """Write one score per line (17 significant digits: reading back is bit-exact)."""
    scores = np.asarray(scores_in_file_order, dtype=np.float64)
    if not np.all(np.isfinite(scores)):
        bad = int(np.flatnonzero(~np.isfinite(scores))[0]) + 1
        raise ValueError(f"{path}: score for line {bad} is not finite")
    with atomic_path(path) as tmp:
        np.savetxt(tmp, scores, fmt="%.17g")


class ScoreFileError(ValueError):
    pass


def read_scores(path: str | os.PathLike, n_expected: int | None = None) -> np.ndarray:
    """Read a score file: exactly one number per line, nothing else.

    Raises :class:`ScoreFileError` naming the file and line for an empty line, a
    line with more than one field (e.g. RankLib's ``qid<TAB>doc<TAB>score``
    output, whose first field is not a score), a non-numeric or non-finite
    score, and for a line count different from ``n_expected``.
    """
    path = Path(path)
    values = []
    with open(path, encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            fields = line.split()
            if not fields:
                raise ScoreFileError(f"{path}, line {line_number}: empty line, expected a score")
            if len(fields) > 1:
                hint = (" (this looks like RankLib's 'qid doc score' output: keep its last column, "
                        "e.g. cut -f3)" if len(fields) == 3 else "")
                raise ScoreFileError(
                    f"{path}, line {line_number}: {len(fields)} fields, a score file holds exactly one "
                    f"number per line{hint}"
                )
            token = fields[0]
            try:
                value = float(token)
            except ValueError:
                raise ScoreFileError(f"{path}, line {line_number}: {token!r} is not a number") from None
            if not np.isfinite(value):
                raise ScoreFileError(f"{path}, line {line_number}: score {token!r} is not finite")
            values.append(value)
    scores = np.asarray(values, dtype=np.float64)
    if n_expected is not None and scores.size != n_expected:
        raise ScoreFileError(
            f"{path}: {scores.size} scores for {n_expected} documents (line {scores.size + 1}"
            f"{' is missing' if scores.size < n_expected else ' is one too many'})"
        )
    return scores


def check_output_path(output: str | os.PathLike, *inputs: str | os.PathLike, option: str = "output") -> Path:
    """Refuse an output path that is one of the inputs or an existing directory (nothing is overwritten)."""
    output = Path(output)
    if output.is_dir():
        raise ValueError(f"{option} {output}: is a directory, expected a file name")
    for source in inputs:
        source = Path(source)
        if output.resolve() == source.resolve() or (output.exists() and source.exists()
                                                      and os.path.samefile(output, source)):
            raise ValueError(f"{option} {output}: is an input of this command ({source}); "
                             "refusing to overwrite it")
    return output
