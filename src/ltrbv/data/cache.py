"""Binary cache of a parsed LETOR file: an uncompressed ``.npz`` holding a RankingData.

Members: ``X`` (float32), ``labels`` (int8), ``query_offsets`` (int64), ``qids``
(numpy unicode), ``line_numbers`` (int64), ``source`` (0-d unicode) and
``format_version`` (0-d int64) and ``sha256`` (0-d unicode: the digest of every
other member's dtype, shape and bytes, :func:`content_digest`), which
:func:`load_cache` recomputes, so a cache changed after it was written (cut
short, a flipped bit) is refused instead of read.  :func:`check_cache_file`
is the cheap structural check the workflow runs on every existing cache
before any job.  Nothing is pickled; :func:`load_cache` opens
the file with ``allow_pickle=False``.

:func:`save_cache` is atomic: it writes a temporary file in the target's
directory and renames it over the target with :func:`os.replace`.  If anything
fails, the temporary file is removed and the target is left as it was (absent,
or the previous complete cache).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from ltrbv.data.ranking_data import RankingData
from ltrbv.input_files import ZIP_MAGIC, InputFileError, check_regular_file
from ltrbv.io import FILE_MODE

__all__ = ["CACHE_FORMAT_VERSION", "CacheFormatError", "cache_digest", "check_cache_file", "content_digest",
           "is_cache_file", "load_cache", "save_cache"]

CACHE_FORMAT_VERSION = 2  # 2: with the sha256 member

#: members covered by the content digest, in digest order
_DIGESTED = ("X", "labels", "query_offsets", "qids", "line_numbers", "source")

_DTYPES = {
    "X": np.float32,
    "labels": np.int8,
    "query_offsets": np.int64,
    "line_numbers": np.int64,
}


class CacheFormatError(ValueError):
    """A cache file that is not a RankingData cache of the supported format version."""


def save_cache(data: RankingData, path: str | os.PathLike) -> Path:
    """Write ``data`` to ``path`` (uncompressed npz) atomically; return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    qids = np.asarray(data.qids)
    if qids.dtype.kind != "U":
        qids = qids.astype(str)
    members = {
        "X": np.ascontiguousarray(data.X, dtype=np.float32),
        "labels": np.asarray(data.labels, dtype=np.int8),
        "query_offsets": np.asarray(data.query_offsets, dtype=np.int64),
        "qids": qids,
        "line_numbers": np.asarray(data.line_numbers, dtype=np.int64),
        "source": np.array(str(data.source)),
    }
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            np.savez(
                out,
                **members,
                format_version=np.array(CACHE_FORMAT_VERSION, dtype=np.int64),
                sha256=np.array(content_digest(members)),
            )
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp_name, FILE_MODE)
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    return path


def is_cache_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a regular file that starts like a zip archive (as a cache does), whatever its name."""
    if not os.path.isfile(path):
        return False
    with open(path, "rb") as handle:
        return handle.read(len(ZIP_MAGIC)) == ZIP_MAGIC


def load_cache(path: str | os.PathLike) -> RankingData:
    """Read a cache written by :func:`save_cache` (a path that is not a regular file is refused)."""
    path = Path(path)
    try:
        check_regular_file(path, "a parsed .npz cache")
    except InputFileError as error:
        raise CacheFormatError(str(error)) from None
    with open(path, "rb") as handle:
        head = handle.read(16)  # the zip magic, and enough to show the reader what the file is
    if not head:
        raise CacheFormatError(f"{path}: not a RankingData cache (an empty file); parse the LETOR text file again")
    if head[:len(ZIP_MAGIC)] != ZIP_MAGIC:  # a text file named .npz: say what it is not (never "load it unsafely")
        raise CacheFormatError(f"{path}: not a RankingData cache (an .npz cache is a zip archive; this file starts "
                               f"with {head!r}: if it is a LETOR text file, give it a name that does not end in .npz)")
    try:
        archive = np.load(path, allow_pickle=False)
    except (ValueError, EOFError, OSError, zipfile.BadZipFile) as exc:  # cut short / holds pickled objects
        raise CacheFormatError(f"{path}: not a RankingData cache, or one cut short ({exc})") from exc
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise CacheFormatError(f"{path}: not a RankingData cache (a single array, not an npz archive)")
    try:
        with archive:
            arrays, qids, source = _read_members(path, archive)
    except CacheFormatError:
        raise
    except (ValueError, EOFError, OSError, zipfile.BadZipFile) as exc:  # e.g. a pickled or cut-short member
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



def content_digest(members: dict) -> str:
    """SHA-256 over the members' names, dtypes, shapes and bytes, in a fixed order."""
    digest = hashlib.sha256()
    for name in _DIGESTED:
        value = np.ascontiguousarray(members[name])
        digest.update(f"{name}|{value.dtype.str}|{value.shape}|".encode())
        digest.update(value.reshape(-1).view(np.uint8))
    return digest.hexdigest()


def check_cache_file(path: str | os.PathLike) -> None:
    """Cheap structural check of an existing cache (no data read): the zip directory is whole and
    every member lies inside the file.  A cache cut short fails here; :func:`load_cache` verifies
    the content digest as well."""
    path = Path(path)
    size = path.stat().st_size
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise CacheFormatError(f"{path}: damaged cache ({exc}); delete it and run again to rebuild it") from exc
    names = {info.filename for info in infos}
    missing = sorted(f"{name}.npy" for name in (*_DIGESTED, "format_version", "sha256") if f"{name}.npy" not in names)
    if missing:
        raise CacheFormatError(f"{path}: not a RankingData cache of format {CACHE_FORMAT_VERSION} "
                               f"(missing {missing}); delete it and run again to rebuild it")
    for info in infos:
        if info.header_offset + len(info.filename) + 30 + info.compress_size > size:
            raise CacheFormatError(f"{path}: damaged cache (member {info.filename} runs past the end of the "
                                   "file); delete it and run again to rebuild it")


def _read_members(path: Path, archive) -> tuple[dict, np.ndarray, str]:
    members = set(archive.files)
    if "format_version" in members:  # an older or newer cache says so first
        version = int(archive["format_version"])
        if version != CACHE_FORMAT_VERSION:
            raise CacheFormatError(
                f"{path}: cache format version {version}, expected {CACHE_FORMAT_VERSION}; delete it and run "
                "again to rebuild it"
            )
    expected = set(_DTYPES) | {"qids", "source", "format_version", "sha256"}
    if not expected <= members:
        raise CacheFormatError(f"{path}: not a RankingData cache (missing {sorted(expected - members)})")
    arrays = {}
    for name, dtype in _DTYPES.items():
        value = archive[name]
        if value.dtype != dtype:
            raise CacheFormatError(f"{path}: member {name} has dtype {value.dtype}, expected {np.dtype(dtype)}")
        arrays[name] = value
    qids = archive["qids"]
    if qids.dtype.kind != "U":
        raise CacheFormatError(f"{path}: member qids has dtype {qids.dtype}, expected unicode")
    source_array = archive["source"]
    stored = str(archive["sha256"][()])
    actual = content_digest({**arrays, "qids": qids, "source": source_array})
    if actual != stored:
        raise CacheFormatError(f"{path}: content does not match its checksum (the file changed after it "
                               "was written); delete it and run again to rebuild it")
    return arrays, qids, str(source_array[()])


def cache_digest(path: str | os.PathLike) -> str:
    """The content digest a cache holds (its ``sha256`` member, :func:`content_digest` of its data), read without
    the data: the identity of the parsed data, as a training run records it.  :func:`load_cache` verifies it."""
    try:
        with np.load(Path(path), allow_pickle=False) as archive:
            return str(archive["sha256"][()])
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise CacheFormatError(f"{path}: not a RankingData cache ({exc})") from exc
