"""Reader for LETOR / SVMlight ranking files: ``label qid:Q i:v i:v ... #comment``.

Covers LETOR 3.0/4.0 (dense, ``#docid = ... inc = ... prob = ...`` comments),
MSLR-WEB10K/30K (136 raw, unnormalised features) and Yahoo C14 (sparse, feature
ids up to 700, absent features are 0.0); plain or gzip-compressed files (detected
by their magic bytes), LF or CRLF line endings, blank and comment-only lines.
A device, a pipe, an archive, a binary file or a byte-order mark is refused
(:mod:`ltrbv.input_files`, the rule of every reader).

:func:`read_letor` returns a :class:`~ltrbv.data.ranking_data.RankingData`:
queries in order of first appearance, rows of a query in input-line order, and
each row's 1-based input line in ``line_numbers``.  A query whose lines are split
into several runs is grouped stably and reported with a
:class:`NonContiguousQueryWarning`.  Any malformed line raises a
:class:`LetorFormatError` naming the file and the line.

How it works: the file is read twice in fixed-size byte chunks cut at the last
newline (the whole text is never in memory).  Pass 1 counts data lines exactly
(and, when neither ``n_features`` nor ``max_feature`` is given, finds the largest
feature index); pass 2 parses every chunk with a compiled kernel that writes
float32 values straight into the preallocated ``X``.  The kernel reports runs
of identical qid tokens; only those (one per query, typically) are decoded in
Python.
"""

from __future__ import annotations

import gzip
import os
import warnings
import zlib

import numpy as np

from ltrbv.compile_lock import first_call
from ltrbv.data import _letor_kernels as K
from ltrbv.data.ranking_data import RankingData
from ltrbv.input_files import CR_ONLY, InputFileError, open_data_stream

__all__ = ["LetorFormatError", "NonContiguousQueryWarning", "read_letor"]

#: bytes read per chunk (a chunk grows only to hold a longer line)
CHUNK_BYTES = 16 * 1024 * 1024

#: largest single read; GzipFile.readinto goes through a temporary bytes object this big
READ_BYTES = 4 * 1024 * 1024

#: the longest line read (a gzip stream is not bounded by its file's size; a LETOR line is a few KB)
MAX_LINE_BYTES = 256 * 1024 * 1024

#: at most this many non-contiguous queries are warned about one by one
MAX_QUERY_WARNINGS = 20

_INT8_RANGE = (-128, 127)
#: the largest feature index taken from a file when n_features is not given (X is dense: a larger
#: index is far more likely a corrupt line than a real feature, and would ask for gigabytes)
MAX_INFERRED_FEATURES = 100_000


class LetorFormatError(ValueError):
    """A LETOR file that cannot be parsed; ``path`` and 1-based ``line`` locate the problem.

    ``line`` is None for problems of the file as a whole (an empty file).
    """

    def __init__(self, path, line: int | None, what: str) -> None:
        self.path = os.fspath(path)
        self.line = line
        self.what = what
        where = self.path if line is None else f"{self.path}, line {line}"
        super().__init__(f"{where}: {what}")

    def __reduce__(self):
        return (type(self), (self.path, self.line, self.what))


class NonContiguousQueryWarning(UserWarning):
    """A query's lines are not contiguous in the file (they were grouped anyway)."""


# -- reading ------------------------------------------------------------------


def _open_binary(path):
    """``(stream, raw)`` of a regular LETOR text file, plain or gzip (:func:`ltrbv.input_files.open_data_stream`:
    a device, a pipe, an archive, a binary file or a byte-order mark is refused as a LetorFormatError)."""
    try:
        return open_data_stream(path, "a LETOR data file")
    except InputFileError as error:
        raise LetorFormatError(error.path, error.line, error.problem) from None


def _iter_chunks(path, chunk_bytes: int):
    """Yield ``(buf, n)``: ``buf[:n]`` holds whole lines (the last chunk may lack a final newline).

    ``buf`` is reused: use it before asking for the next chunk.
    """
    stream, raw = _open_binary(path)
    try:
        size = int(chunk_bytes)
        if raw is None:  # plain file: no bigger than the file itself
            size = min(size, os.fstat(stream.fileno()).st_size + 1)
        buf = np.empty(max(size, 16), dtype=np.uint8)
        filled = consumed = 0
        eof = False
        while True:
            while filled < buf.size and not eof:
                got = _read_into(path, stream, buf[filled : filled + READ_BYTES])
                if not got:
                    eof = True
                else:
                    filled += got
            if eof:
                if filled:
                    yield buf, filled
                return
            cut = K.last_newline(buf, filled) + 1
            if cut == 0:  # one line longer than the buffer: grow it
                if buf.size >= MAX_LINE_BYTES:
                    raise LetorFormatError(path, None, f"a line of more than {MAX_LINE_BYTES:,} bytes from byte "
                                           f"{consumed:,} on: not a LETOR text file (a LETOR line is a few KB)")
                bigger = np.empty(2 * buf.size, dtype=np.uint8)
                bigger[:filled] = buf[:filled]
                buf = bigger
                continue
            yield buf, cut
            consumed += cut
            rest = filled - cut
            if rest:
                buf[:rest] = buf[cut:filled]
            filled = rest
    finally:
        stream.close()
        if raw is not None:
            raw.close()


def _read_into(path, stream, view) -> int:
    """``stream.readinto(view)``, with a damaged gzip stream reported as a LetorFormatError."""
    try:
        return stream.readinto(view)
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise LetorFormatError(path, None, f"damaged gzip file ({exc}); download or unpack it again") from None


def _scan(path, need_max_index: bool, chunk_bytes: int):
    """Pass 1: number of data lines, and (if asked) the largest feature index and its line.

    A last data line without its newline is refused: it is what a file cut short looks like, and
    a line cut inside a number still parses (as a different number or fewer features)."""
    n_data = 0
    line0 = 1
    best = 0
    best_line = 0
    last = b""
    for buf, n in _iter_chunks(path, chunk_bytes):
        if need_max_index:
            data, newlines, idx, at = K.scan_lines_and_indices(buf, n)
            if idx > best:
                best, best_line = int(idx), line0 + int(at)
        else:
            data, newlines = K.count_lines(buf, n)
        n_data += int(data)
        line0 += int(newlines)
        last = buf[max(0, n - 4096) : n].tobytes()
    if last and not last.endswith(b"\n"):
        tail = last.rsplit(b"\n", 1)[-1].strip()
        if tail and not tail.startswith(b"#"):
            if b"\r" in tail:
                raise LetorFormatError(path, line0, CR_ONLY)
            raise LetorFormatError(path, line0, "the last line has no final newline: the file looks cut short "
                                   "(truncated download or copy); restore the whole file")
    return n_data, best, best_line


# -- errors ---------------------------------------------------------------------


def _token_text(buf, lo: int, hi: int, limit: int = 60) -> str:
    text = buf[lo:hi].tobytes().decode("utf-8", "backslashreplace")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _value_problem(token: str) -> str:
    value = token.partition(":")[2]
    if not value:
        return f"malformed feature token {token!r} (expected index:value)"
    try:
        x = float(value)
    except ValueError:
        return f"non-numeric feature value in {token!r}"
    if np.isnan(x):
        return f"NaN feature value in {token!r}"
    if np.isinf(x):
        return f"infinite feature value in {token!r}"
    if abs(x) > float(np.finfo(np.float32).max):
        return f"feature value in {token!r} overflows float32"
    return f"malformed feature value in {token!r}"


def _kernel_error(path, code, line, token, n_cols, max_feature, label_range) -> LetorFormatError:
    if code == K.ERR_LABEL:
        what = f"non-numeric label {token!r}"
    elif code == K.ERR_LABEL_NONINT:
        what = f"label {token!r} is not an integer"
    elif code == K.ERR_LABEL_RANGE:
        if label_range is not None:
            what = f"label {token} outside label_range [{label_range[0]}, {label_range[1]}]"
        else:
            what = f"label {token} outside the int8 range [-128, 127]"
    elif code == K.ERR_QID:
        what = f"missing or malformed 'qid:' token (found {token!r})" if token else "missing 'qid:' token"
    elif code == K.ERR_TOKEN:
        what = f"malformed feature token {token!r} (expected index:value)"
    elif code == K.ERR_INDEX_ZERO:
        what = f"feature index 0 in {token!r} (indices are 1-based)"
    elif code == K.ERR_INDEX_RANGE:
        index = token.partition(":")[0]
        if max_feature is not None and max_feature <= n_cols:
            what = f"feature index {index} above max_feature={max_feature}"
        else:
            what = f"feature index {index} above n_features={n_cols}"
    elif code == K.ERR_DUPLICATE:
        what = f"duplicate feature index {token.partition(':')[0]} ({token!r})"
    elif code == K.ERR_VALUE:
        what = _value_problem(token)
    elif code == K.ERR_ROWS:
        what = "file changed while being read (more data lines than counted)"
    else:  # pragma: no cover - kernel and Python out of sync
        what = f"parse error {code}"
    return LetorFormatError(path, int(line), what)


# -- grouping -------------------------------------------------------------------


def _group_runs(path, run_rows, run_qids, labels, line_numbers, X):
    """Turn runs of equal qids into queries; regroup rows stably when a qid has several runs."""
    n_rows = labels.size
    index: dict[str, int] = {}
    run_query = np.fromiter(
        (index.setdefault(q, len(index)) for q in run_qids), dtype=np.int64, count=len(run_qids)
    )
    qids = np.array(list(index), dtype=str)
    run_sizes = np.diff(np.append(run_rows, n_rows))
    if len(index) == len(run_qids):  # every query is one contiguous run: rows already grouped
        offsets = np.append(run_rows, n_rows).astype(np.int64)
        return X, labels, line_numbers, offsets, qids

    reported = 0
    started: set[int] = set()
    repeats: set[int] = set()
    for r, q in enumerate(run_query.tolist()):
        if q not in started:
            started.add(q)
        elif q not in repeats:
            repeats.add(q)
            if reported < MAX_QUERY_WARNINGS:
                warnings.warn(
                    NonContiguousQueryWarning(
                        f"{os.fspath(path)}, line {int(line_numbers[run_rows[r]])}: query "
                        f"{run_qids[r]!r} reappears after other queries; its lines are grouped "
                        f"together in input order"
                    ),
                    stacklevel=3,
                )
                reported += 1
    if len(repeats) > reported:
        warnings.warn(
            NonContiguousQueryWarning(
                f"{os.fspath(path)}: {len(repeats) - reported} more queries have non-contiguous lines"
            ),
            stacklevel=3,
        )
    query_of_row = np.repeat(run_query, run_sizes)
    perm = np.argsort(query_of_row, kind="stable")
    K.permute_rows_inplace(X, perm)
    sizes = np.bincount(query_of_row, minlength=len(index))
    offsets = np.zeros(len(index) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return X, labels[perm], line_numbers[perm], offsets, qids


# -- public entry -----------------------------------------------------------------


def _check_args(n_features, max_feature, label_range):
    for name, value in (("n_features", n_features), ("max_feature", max_feature)):
        if value is not None and (int(value) != value or value < 0):
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if n_features is not None and max_feature is not None and max_feature > n_features:
        raise ValueError(f"max_feature={max_feature} exceeds n_features={n_features}")
    if label_range is not None:
        lo, hi = label_range
        if int(lo) != lo or int(hi) != hi or lo > hi:
            raise ValueError(f"label_range must be two integers lo <= hi, got {label_range!r}")
        if lo < _INT8_RANGE[0] or hi > _INT8_RANGE[1]:
            raise ValueError(f"label_range {label_range!r} does not fit int8")


def read_letor(
    path: str | os.PathLike,
    n_features: int | None = None,
    max_feature: int | None = None,
    label_range: tuple[int, int] | None = None,
) -> RankingData:
    """Parse a LETOR / SVMlight ranking file (plain or gzip) into a :class:`RankingData`.

    Parameters
    ----------
    path
        The text file (``.gz`` or any gzip file is decompressed on the fly).
    n_features
        Number of columns of ``X``.  If None: ``max_feature`` if given, else the
        largest feature index in the file (found by an extra scan).
    max_feature
        The dataset's declared largest feature index; a larger index is an error.
    label_range
        ``(lo, hi)``: labels outside ``lo..hi`` are an error.  Labels must be
        integers (``2`` or ``2.0``) fitting int8 in any case.

    Raises
    ------
    LetorFormatError
        For any malformed line (naming file and 1-based line) or an empty file.
    """
    _check_args(n_features, max_feature, label_range)
    with first_call(K, K.parse_chunk):  # a fresh checkout's concurrent jobs compile the parser once
        return _parse(path, n_features, max_feature, label_range)


def _parse(path, n_features, max_feature, label_range) -> RankingData:
    source = os.fspath(path)
    chunk_bytes = CHUNK_BYTES
    infer = n_features is None and max_feature is None

    n_rows, max_seen, max_seen_line = _scan(path, infer, chunk_bytes)
    if n_rows == 0:
        raise LetorFormatError(source, None, "no data lines (empty file)")
    if infer:
        if max_seen > MAX_INFERRED_FEATURES:
            raise LetorFormatError(source, max_seen_line, f"a feature index above "
                                   f"{MAX_INFERRED_FEATURES:,}, the largest taken from a file without n_features "
                                   "(a corrupt line?); give n_features if the data really has that many")
        n_cols = int(max_seen)
    else:
        n_cols = int(n_features if n_features is not None else max_feature)
    limit = n_cols if max_feature is None else min(n_cols, int(max_feature))
    lo, hi = label_range if label_range is not None else _INT8_RANGE

    X = np.zeros((n_rows, n_cols), dtype=np.float32)
    labels = np.empty(n_rows, dtype=np.int8)
    line_numbers = np.empty(n_rows, dtype=np.int64)
    run_rows = np.empty(n_rows, dtype=np.int64)
    run_lo = np.empty(n_rows, dtype=np.int64)
    run_hi = np.empty(n_rows, dtype=np.int64)
    seen = np.zeros(limit + 1, dtype=np.int64)
    dec_digits = np.zeros(K.DEC_DIGITS, dtype=np.uint8)
    dec_tmp = np.zeros(K.DEC_TMP, dtype=np.uint8)
    X_flat = X.reshape(-1)

    run_qids: list[str] = []
    row, line, n_runs = 0, 1, 0
    for buf, n in _iter_chunks(path, chunk_bytes):
        err, err_line, tok_lo, tok_hi, row_end, line_end, runs_end = K.parse_chunk(
            buf, n, X_flat, n_cols, limit, int(lo), int(hi), labels, line_numbers,
            n_rows, row, line, seen, dec_digits, dec_tmp, run_rows, run_lo, run_hi, n_runs,
        )  # fmt: skip
        if err != K.OK:
            token = _token_text(buf, int(tok_lo), int(tok_hi))
            error = _kernel_error(source, err, err_line, token, n_cols, max_feature, label_range)
            start = int(K.last_newline(buf, int(tok_lo))) + 1
            if b"\r" in buf[start:int(tok_lo)].tobytes().split(b"#")[0]:  # a CR before the token, outside a comment
                raise LetorFormatError(source, error.line, f"{error.what}; {CR_ONLY}")
            raise error
        first_new = n_runs
        for r in range(first_new, int(runs_end)):
            qid = buf[run_lo[r] : run_hi[r]].tobytes().decode("utf-8", "backslashreplace")
            if r == first_new and run_qids and run_qids[-1] == qid:
                continue  # the previous chunk's last query continues
            run_rows[n_runs] = run_rows[r]
            run_qids.append(qid)
            n_runs += 1
        row, line = int(row_end), int(line_end)
    if row != n_rows:
        raise LetorFormatError(source, line, "file changed while being read")

    X, labels, line_numbers, offsets, qids = _group_runs(
        source, run_rows[:n_runs].copy(), run_qids, labels, line_numbers, X
    )
    return RankingData(
        X=X, labels=labels, query_offsets=offsets, qids=qids, line_numbers=line_numbers, source=source
    )
