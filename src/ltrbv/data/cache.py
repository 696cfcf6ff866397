"""Binary cache of a parsed LETOR file: an uncompressed ``.npz`` holding a RankingData.

Members: ``X`` (float32), ``labels`` (int8), ``query_offsets`` (int64), ``qids``
(numpy unicode), ``line_numbers`` (int64), ``source`` (0-d unicode) and
``format_version`` (0-d int64).  Nothing is pickled; :func:`load_cache` opens
the file with ``allow_pickle=False``.

:func:`save_cache` is atomic: it writes a temporary file in the target's
directory and renames it over the target with :func:`os.replace`.  If anything
fails, the temporary file is removed and the target is left as it was (absent,
or the previous complete cache).
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from ltrbv.data.ranking_data import RankingData

__all__ = ["CACHE_FORMAT_VERSION", "CacheFormatError", "load_cache", "save_cache"]

CACHE_FORMAT_VERSION = 1

_DTYPES = {
    "X": np.float32,
    "labels": np.int8,
    "query_offsets": np.int64,
    "line_numbers": np.int64,
}


def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_FILE_MODE = _default_mode()  # mkstemp creates 0600 files; give the cache the usual mode


class CacheFormatError(ValueError):
    """A cache file that is not a RankingData cache of the supported format version."""


def save_cache(data: RankingData, path: str | os.PathLike) -> Path:
    """Write ``data`` to ``path`` (uncompressed npz) atomically; return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    qids = np.asarray(data.qids)
    if qids.dtype.kind != "U":
        qids = qids.astype(str)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            np.savez(
                out,
                X=np.ascontiguousarray(data.X, dtype=np.float32),
                labels=np.asarray(data.labels, dtype=np.int8),
                query_offsets=np.asarray(data.query_offsets, dtype=np.int64),
                qids=qids,
                line_numbers=np.asarray(data.line_numbers, dtype=np.int64),
                source=np.array(str(data.source)),
                format_version=np.array(CACHE_FORMAT_VERSION, dtype=np.int64),
            )
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp_name, _FILE_MODE)
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    return path


def load_cache(path: str | os.PathLike) -> RankingData:
    """Read a cache written by :func:`save_cache`."""
    path = Path(path)
    try:
        archive = np.load(path, allow_pickle=False)
    except (ValueError, zipfile.BadZipFile) as exc:  # not an npz / holds pickled objects
        raise CacheFormatError(f"{path}: not a RankingData cache ({exc})") from exc
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise CacheFormatError(f"{path}: not a RankingData cache (a single array, not an npz archive)")
    try:
        with archive:
            arrays, qids, source = _read_members(path, archive)
    except CacheFormatError:
        raise
    except (ValueError, zipfile.BadZipFile) as exc:  # e.g. a pickled member
        raise CacheFormatError(f"{path}: unreadable cache member ({exc})") from exc
    X = arrays["X"]
    if X.ndim != 2:
        raise CacheFormatError(f"{path}: X has {X.ndim} dimensions, expected 2")
    try:
        return RankingData(
            X=np.ascontiguousarray(X),
            labels=arrays["labels"],
            query_offsets=arrays["query_offsets"],
            qids=qids,
            line_numbers=arrays["line_numbers"],
            source=source,
        )
    except ValueError as exc:
        raise CacheFormatError(f"{path}: inconsistent cache ({exc})") from exc



def _read_members(path: Path, archive) -> tuple[dict, np.ndarray, str]:
    members = set(archive.files)
    expected = set(_DTYPES) | {"qids", "source", "format_version"}
    if not expected <= members:
        raise CacheFormatError(f"{path}: not a RankingData cache (missing {sorted(expected - members)})")
    version = int(archive["format_version"])
    if version != CACHE_FORMAT_VERSION:
        raise CacheFormatError(
            f"{path}: cache format version {version}, expected {CACHE_FORMAT_VERSION}; rebuild the cache"
        )
    arrays = {}
    for name, dtype in _DTYPES.items():
        value = archive[name]
        if value.dtype != dtype:
            raise CacheFormatError(f"{path}: member {name} has dtype {value.dtype}, expected {np.dtype(dtype)}")
        arrays[name] = value
    qids = archive["qids"]
    if qids.dtype.kind != "U":
        raise CacheFormatError(f"{path}: member qids has dtype {qids.dtype}, expected unicode")
    source = str(archive["source"][()])
    return arrays, qids, source
