"""Small, atomic file writers and the score-file format.

A score file holds one score per line in the order of the lines of the data
file it scores, exactly what the LETOR evaluation scripts read; scores are
written with 17 significant digits so that reading them back is bit-exact.
"""

from __future__ import annotations

import json
import os
import stat
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
    """Yield a temporary path beside ``path``; move it into place only if the block succeeds.

    Every file this package writes goes through here: an existing target that is not a regular file (a
    directory, a symbolic link, a FIFO, a device) is refused, never replaced; errors name ``path``."""
    path = Path(path)
    kind = _not_regular(path)
    if kind is not None:
        raise ValueError(f"{path}: is {kind}; an output must be a regular file or a new path")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as error:
        raise OSError(error.errno, f"cannot write {path} ({error.strerror})") from None
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
    output, whose first field is not a score), a score outside the number grammar of
    :func:`ltrbv.input_files.parse_float` (``nan``, ``inf``, ``1_000``, ...), a line
    that is not UTF-8, a last line without its newline, and for a line count different
    from ``n_expected``; and for a path that is not a regular text file
    (:mod:`ltrbv.input_files`: a pipe, a device, an archive, a byte-order mark).
    """
    from .input_files import InputFileError, parse_float, read_text_lines

    path = Path(path)
    try:
        lines = read_text_lines(path, "a score file")
    except InputFileError as error:
        raise ScoreFileError(str(error)) from None
    values = []
    for line_number, line in lines:
        fields = line.split()
        if not fields:
            raise ScoreFileError(f"{path}, line {line_number}: empty line, expected a score")
        if len(fields) > 1:
            hint = (" (this looks like RankLib's 'qid doc score' output: keep its last column, "
                    "e.g. cut -f3)" if len(fields) == 3 and "#" not in line else "")
            raise ScoreFileError(
                f"{path}, line {line_number}: {len(fields)} fields, a score file holds exactly one "
                f"number per line{hint}"
            )
        try:
            values.append(parse_float(fields[0], "score"))
        except ValueError as error:
            raise ScoreFileError(f"{path}, line {line_number}: {error}") from None
    scores = np.asarray(values, dtype=np.float64)
    if n_expected is not None and scores.size != n_expected:
        if scores.size < n_expected:
            raise ScoreFileError(f"{path}: {scores.size} scores for {n_expected} documents "
                                 f"(line {scores.size + 1} is missing)")
        raise ScoreFileError(f"{path}: {scores.size} scores for {n_expected} documents (line {n_expected + 1} "
                             f"is the first extra line, the data has {n_expected} documents)")
    return scores


def _not_regular(path: Path) -> str | None:
    """What ``path`` is if it exists and is not a regular file (a symbolic link is not followed), else None."""
    from .input_files import file_type

    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # a new path (the folder is checked on its own)
        return None
    return None if stat.S_ISREG(mode) else file_type(mode)


def check_output_path(output: str | os.PathLike, *inputs: str | os.PathLike, option: str = "output") -> Path:
    """Refuse, before any work, an output that cannot be written as a new regular file: ``-``, an existing
    target that is not a regular file (a directory, a symbolic link, a FIFO, a device: it would be replaced
    or written through), one of the command's inputs, or a folder where no file can be created."""
    text = os.fspath(output)
    output = Path(output)
    if text == "-":
        raise ValueError(f"{option} -: writing to standard output is not supported; give a file name")
    if text.endswith(("/", os.sep)) or (os.altsep and text.endswith(os.altsep)):
        raise ValueError(f"{option} {text}: ends with '/', so it names a folder; an output is a file name "
                         f"(e.g. {text.rstrip('/')}/out.csv)")
    kind = _not_regular(output)
    if kind == "a directory":
        raise ValueError(f"{option} {output}: is a directory, expected a file name")
    if kind is not None:
        raise ValueError(f"{option} {output}: is {kind}; an output must be a regular file or a new path "
                         "(refusing to replace or write through it)")
    for source in inputs:
        source = Path(source)
        if output.resolve() == source.resolve() or (output.exists() and source.exists()
                                                      and os.path.samefile(output, source)):
            raise ValueError(f"{option} {output}: is an input of this command ({source}); "
                             "refusing to overwrite it")
    _check_folder(output, option)
    return output


def _check_folder(output: Path, option: str) -> None:
    """The folder of ``output`` (or its nearest existing ancestor) is one where a file can be created."""
    folder = output.parent
    while not os.path.lexists(folder) and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise ValueError(f"{option} {output}: {folder} is not a folder")
    if folder != output.parent:
        return  # the missing folders are created when the output is written
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{output.name}.", suffix=".tmp", dir=folder)
    except OSError as error:
        raise ValueError(f"{option} {output}: cannot create a file in {folder} ({error.strerror})") from None
    os.close(fd)
    os.unlink(probe)
