"""Fetch a data set's public archive, check its SHA-256 and unpack it (the workflow's rule ``fetch_<dataset>``).

:func:`fetch_archive` downloads beside the destination, refuses a download whose length differs from the
server's Content-Length (truncated) or whose digest differs from the configured one, unpacks into a scratch
folder beside the destination (refusing members that would land outside it, links and devices), checks that
the files the config reads are there, and only then moves the folder into place.  Whatever fails, nothing is
left behind: neither the download nor a partly unpacked folder.

Formats: ``zip``, ``tar``, ``tar.gz``, ``tar.bz2``, ``tar.xz``.  LETOR 4.0's ``.rar`` archives need an
unrar tool the standard library lacks: unpack those by hand and run ``ltrbv data verify``.
"""

from __future__ import annotations

import hashlib
import http.client
import shutil
import tarfile
import urllib.request
import zipfile
from pathlib import Path, PurePosixPath

FORMATS = {"zip": None, "tar": "r:", "tar.gz": "r:gz", "tar.bz2": "r:bz2", "tar.xz": "r:xz"}
CHUNK = 1 << 20


class FetchError(ValueError):
    pass


def check_request(url: str, sha256: str, fmt: str) -> None:
    """Refuse an unknown format, a malformed digest or a URL that is not http(s)/file, before any download."""
    if fmt not in FORMATS:
        raise FetchError(f"format {fmt!r}: not one of {', '.join(FORMATS)} (a .rar archive, as LETOR 4.0's, "
                         f"needs an unrar tool: unpack it by hand, then run `ltrbv data verify ROOT`)")
    if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
        raise FetchError(f"sha256 {sha256!r}: not 64 lowercase hexadecimal digits")
    if not url.startswith(("https://", "http://", "file:")):
        raise FetchError(f"url {url!r}: not an http(s):// or file: address")


def download(url: str, target: Path, timeout: float) -> tuple[str, int]:
    """Stream ``url`` into ``target``: (sha256, bytes); refused when fewer bytes came than announced."""
    digest, size = hashlib.sha256(), 0
    try:
        response = urllib.request.urlopen(url, timeout=timeout)
    except OSError as error:  # URLError, HTTPError, timeouts
        raise FetchError(f"{url}: {error}") from None
    with response, open(target, "wb") as out:
        announced = response.headers.get("Content-Length")
        while True:
            try:
                chunk = response.read(CHUNK)
            except (http.client.HTTPException, OSError) as error:  # IncompleteRead, reset: the connection ended early
                raise FetchError(f"{url}: truncated download: the connection ended after {size} bytes "
                                 f"({type(error).__name__})") from None
            if not chunk:
                break
            digest.update(chunk)
            out.write(chunk)
            size += len(chunk)
    if announced is not None and int(announced) != size:
        raise FetchError(f"{url}: truncated download: {size} of {announced} bytes")
    return digest.hexdigest(), size


def _safe_member(name: str, archive: Path) -> None:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
        raise FetchError(f"{archive}: member {name!r} would be written outside the destination; refused")


def unpack(archive: Path, fmt: str, into: Path) -> None:
    if fmt == "zip":
        with zipfile.ZipFile(archive) as zipped:
            for member in zipped.namelist():
                _safe_member(member, archive)
            zipped.extractall(into)
        return
    with tarfile.open(archive, FORMATS[fmt]) as tarred:
        for member in tarred.getmembers():
            _safe_member(member.name, archive)
            if not (member.isfile() or member.isdir()):
                raise FetchError(f"{archive}: member {member.name!r} is a link or device; refused")
        tarred.extractall(into, filter="data") if hasattr(tarfile, "data_filter") else tarred.extractall(into)


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()


def fetch_archive(url: str, sha256: str, fmt: str, dest: str | Path, expected: list[str] = (),
                  timeout: float = 60.0) -> dict:
    """Download, check and unpack ``url`` into the folder ``dest`` (absent or empty); ``expected``: files
    (relative to ``dest``) the archive must hold.  Returns what was fetched (url, sha256, format, bytes, files)."""
    check_request(url, sha256, fmt)
    dest = Path(dest)
    if dest.exists() and any(p.is_file() for p in dest.rglob("*")):
        raise FetchError(f"{dest}: already holds files; remove the folder to fetch again")
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.parent / f".{dest.name}.download"
    scratch = dest.parent / f".{dest.name}.unpack"
    try:
        seen, size = download(url, partial, timeout)
        if seen != sha256:
            raise FetchError(f"{url}: sha256 {seen} of the download ({size} bytes), expected {sha256}; "
                             f"refused (nothing kept)")
        _remove(scratch)
        scratch.mkdir()
        try:
            unpack(partial, fmt, scratch)
        except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as error:
            raise FetchError(f"{url}: not a readable {fmt} archive ({error})") from None
        files = sorted(p.relative_to(scratch).as_posix() for p in scratch.rglob("*") if p.is_file())
        absent = [f for f in expected if f not in files]
        if absent:
            raise FetchError(f"{url}: the archive lacks {', '.join(absent[:4])}{' ...' if len(absent) > 4 else ''} "
                             f"(it holds e.g. {', '.join(files[:4]) or 'nothing'}): check the dataset's root and layout")
        _remove(dest)
        scratch.replace(dest)
    finally:
        _remove(partial)
        _remove(scratch)
    return {"url": url, "sha256": sha256, "format": fmt, "bytes": size, "files": files}
