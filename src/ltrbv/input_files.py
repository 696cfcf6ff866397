"""What every reader of a file we are given checks first: a regular file, holding text, and numbers in one grammar.

One rule for every reader (LETOR data, score files, TREC runs and qrels, label probabilities, a command
learner's output):

* **A regular file.**  ``-`` (standard input), a FIFO or a process substitution (``<(...)``, a pipe), a
  device (``/dev/zero`` never ends), a socket or a directory is refused naming the path: the LETOR reader
  reads its file twice and sizes its buffer by the file, so a stream cannot be read as one.  Save the
  stream to a file first.
* **Text, not an archive or a binary file.**  The first bytes are checked for a byte-order mark (BOM, refused
  by every reader: the files are plain ASCII/UTF-8 without one), the magic numbers of archives and
  compressed files (tar, zip, so also a parsed ``.npz`` cache, bzip2, xz, zstd, 7z) and for NUL bytes; a
  gzip file is a compressed LETOR data file where the reader allows it (:func:`open_data_stream`), and its
  uncompressed start is checked the same way.
* **Whole lines.**  The last line must end with a newline: a file cut short (a truncated download or copy)
  ends inside a line, and a line cut inside a number still parses, as another number.
* **One grammar for numbers** (:func:`parse_float`, :func:`parse_int`): ``[+-]digits[.digits][e[+-]digits]``
  in ASCII, as the LETOR parser's compiled kernel reads feature values.  Python's ``float`` also takes
  ``nan``, ``inf``, ``1_000``, surrounding spaces and non-ASCII digits; none of these is a number here.
"""

from __future__ import annotations

import gzip
import os
import re
import stat
import zlib
from pathlib import Path

__all__ = ["InputFileError", "check_regular_file", "open_data_stream", "parse_float", "parse_int",
           "read_text_lines", "refuse_binary"]

GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = b"PK\x03\x04"
#: bytes inspected at the start of a file (a tar header's magic is at 257)
HEAD_BYTES = 4096

_MAGICS = (
    (b"\xef\xbb\xbf", "starts with a UTF-8 byte-order mark (BOM); ltrbv reads text without one: remove it, "
                      "e.g. sed -i '1s/^\\xEF\\xBB\\xBF//' FILE"),
    (b"\xff\xfe", "starts with a UTF-16 byte-order mark (BOM): UTF-16 text; save it as UTF-8 without a BOM"),
    (b"\xfe\xff", "starts with a UTF-16 byte-order mark (BOM): UTF-16 text; save it as UTF-8 without a BOM"),
    (ZIP_MAGIC, "looks like a zip archive (a parsed .npz cache is one)"),
    (b"PK\x05\x06", "looks like a zip archive (an empty one)"),
    (b"\xfd7zXZ\x00", "looks like an xz-compressed file; unpack it first"),
    (b"\x28\xb5\x2f\xfd", "looks like a zstd-compressed file; unpack it first"),
    (b"7z\xbc\xaf\x27\x1c", "looks like a 7z archive; unpack it first"),
    (b"\x7fELF", "looks like an executable (ELF binary)"),
    (b"\x89PNG", "looks like a PNG image"),
    (b"%PDF-", "looks like a PDF document"),
)
#: the problem of a line holding a carriage return that ends no line
CR_ONLY = ("a carriage return (CR) inside the line: the file has old Mac line endings (CR only) or mixes them; "
           "convert them to LF (e.g. tr '\\r' '\\n')")
_BZIP2 = re.compile(rb"BZh[1-9]1AY&SY")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INT = re.compile(r"[+-]?[0-9]+")


class InputFileError(ValueError):
    """An input that is not a regular text file of the expected kind: ``path``, 1-based ``line`` (None for
    the file as a whole) and ``problem``; the message is ``path[, line N]: problem``."""

    def __init__(self, path, line: int | None, problem: str) -> None:
        self.path, self.line, self.problem = os.fspath(path), line, problem
        super().__init__(f"{self.path}{'' if line is None else f', line {line}'}: {problem}")

    def __reduce__(self):
        return (type(self), (self.path, self.line, self.problem))


def file_type(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe) or a pipe"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def check_regular_file(path: str | os.PathLike, what: str) -> Path:
    """``path`` as a Path if it names an existing regular file (a symbolic link to one is fine); else
    :class:`InputFileError` (or FileNotFoundError) naming it and saying that ``what`` must be a regular file."""
    text = os.fspath(path)
    if text == "-" and not os.path.lexists(text):
        raise InputFileError("-", None, f"reading {what} from standard input is not supported; save it to a "
                             "regular file and give its name")
    try:
        mode = os.stat(text).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"{text}: no such file ({what})") from None
    if not stat.S_ISREG(mode):
        hint = ("; ltrbv reads its inputs from regular files only (the LETOR reader reads a file twice): save "
                "the stream to a file first" if not stat.S_ISDIR(mode) else "")
        raise InputFileError(text, None, f"is {file_type(mode)}, expected {what} (a regular file){hint}")
    return Path(path)


def refuse_binary(path, head: bytes, what: str, compressed: str = "") -> None:
    """Refuse a file whose first bytes ``head`` are a BOM, an archive's or a binary format's magic number, or
    hold a NUL byte (``compressed``: "gzip" when ``head`` is the uncompressed start of a gzip file)."""
    how = f" (once {compressed}-decompressed)" if compressed else ""
    for magic, problem in _MAGICS:
        if head.startswith(magic):
            raise InputFileError(path, None, f"{problem}{how}; not {what}")
    if len(head) > 262 and head[257:262] == b"ustar":
        raise InputFileError(path, None, f"not {what}{how}: looks like a tar archive; unpack it (tar xf) and give the "
                             "file inside")
    if _BZIP2.match(head):
        raise InputFileError(path, None, f"not {what}{how}: looks like a bzip2-compressed file; unpack it first")
    if head.startswith(GZIP_MAGIC) and compressed:
        raise InputFileError(path, None, f"not {what}{how}: gzip-compressed twice")
    nul = head.find(b"\x00")
    if nul >= 0:
        raise InputFileError(path, None, f"not {what}{how}: looks like a binary file (a NUL byte at byte {nul})")


def open_data_stream(path, what: str = "a LETOR data file"):
    """Open a LETOR text file, plain or gzip (by its magic bytes), after the checks above.

    Returns ``(stream, raw)``: read ``stream`` (bytes); close both (``raw`` is None for a plain file)."""
    check_regular_file(path, what)
    raw = open(path, "rb")
    try:
        head = raw.read(HEAD_BYTES)
        raw.seek(0)
        if not head.startswith(GZIP_MAGIC):
            refuse_binary(path, head, what)
            return raw, None
        stream = gzip.GzipFile(fileobj=raw, mode="rb")
        try:
            inner = stream.read(HEAD_BYTES)
        except (EOFError, OSError, zlib.error) as exc:
            raise InputFileError(path, None, f"damaged gzip file ({exc}); download or unpack it again") from None
        refuse_binary(path, inner, what, compressed="gzip")
        stream.seek(0)
        return stream, raw
    except BaseException:
        raw.close()
        raise


def read_text_lines(path, what: str) -> list[tuple[int, str]]:
    """``(line number, line without its LF or CRLF)`` of every line of a small text file, after the checks
    above; a line that is not UTF-8 and a last line without its newline are refused naming the line."""
    check_regular_file(path, what)
    with open(path, "rb") as handle:
        data = handle.read()
    if data.startswith(GZIP_MAGIC):
        raise InputFileError(path, None, f"is gzip-compressed; not {what}: unpack it first (gunzip)")
    refuse_binary(path, data[:HEAD_BYTES], what)
    lines = data.split(b"\n")
    last = lines.pop()  # what follows the last newline: empty in a whole file
    if last:
        if b"\r" in last:
            raise InputFileError(path, len(lines) + 1, CR_ONLY)
        raise InputFileError(path, len(lines) + 1, "the last line has no final newline: the "
                             "file looks cut short (truncated download or copy); restore the whole file")
    out = []
    for number, line in enumerate(lines, start=1):
        if line.endswith(b"\r"):
            line = line[:-1]
        if b"\r" in line:
            raise InputFileError(path, number, CR_ONLY)
        try:
            out.append((number, line.decode("utf-8")))
        except UnicodeDecodeError as exc:
            raise InputFileError(path, number, f"not UTF-8 text (byte 0x{line[exc.start]:02x} "
                                 f"at column {exc.start + 1}); not {what}") from None
    return out


def parse_float(token: str, what: str = "number") -> float:
    """A finite float written ``[+-]digits[.digits][e[+-]digits]`` (ValueError saying what is wrong)."""
    if not _FLOAT.fullmatch(token):
        if token.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise ValueError(f"{what} {token!r} is not finite")
        raise ValueError(f"{what} {token!r} is not a number (expected digits, e.g. 0.25, -1.5e-3)")
    value = float(token)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{what} {token!r} is out of the range of a float64")
    return value


def parse_int(token: str, what: str = "integer") -> int:
    """An integer written ``[+-]digits`` in ASCII (ValueError saying what is wrong)."""
    if not _INT.fullmatch(token):
        raise ValueError(f"{what} {token!r} is not an integer")
    return int(token)
