"""Compiled (numba) kernels of the LETOR / SVMlight text parser.

Every kernel works on one chunk of raw bytes (a ``uint8`` array holding whole
lines) and never touches Python objects; the orchestration (file reading,
qid decoding, grouping, error messages) lives in :mod:`ltrbv.data.letor`.

All kernels are compiled lazily on first call and cached on disk
(``cache=True``); importing this module compiles nothing.

Number parsing reproduces ``np.float32(float(token))`` bit for bit:

* fast path (Clinger): the digits, read as one integer, are <= 2**53 and the
  decimal exponent is within [-22, 22 + 15]: one correctly rounded float64
  multiplication or division by an exact power of ten (covers every value of
  the LETOR, MSLR and Yahoo files: 6-7 significant digits);
* slow path: an exact arbitrary-precision decimal-to-binary conversion (the
  "simple decimal conversion" algorithm of Go's ``strconv``), on up to 800
  significant digits with a sticky "truncated" flag, which is enough to
  round every decimal string correctly to float64.

Either way the float64 is then rounded to float32, exactly as
``np.float32(float(token))`` does (the same double rounding).
"""

from __future__ import annotations

import math

import numpy as np

from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)

# -- error codes (messages are built in Python) --------------------------------
OK = 0
ERR_LABEL = 1  # label is not a number
ERR_LABEL_NONINT = 2  # label is a number but not an integer
ERR_LABEL_RANGE = 3  # label outside [label_lo, label_hi]
ERR_QID = 4  # second token missing or not "qid:<something>"
ERR_TOKEN = 5  # feature token not "<digits>:<value>"
ERR_INDEX_ZERO = 6  # feature index 0
ERR_INDEX_RANGE = 7  # feature index above the allowed maximum
ERR_DUPLICATE = 8  # feature index repeated on one line
ERR_VALUE = 9  # value not a finite number representable as float32
ERR_ROWS = 10  # more data lines than pass 1 counted (the file changed)

# number parser status
_NUM_OK = 0
_NUM_BAD = 1
_NUM_SLOW = 2  # valid, but needs the exact slow path (slow_number)

_NL = 10
_HASH = 35
_COLON = 58

# exact powers of ten representable in float64
_POW10 = np.array([10.0**k for k in range(23)], dtype=np.float64)
_TWO53 = 1 << 53

# slow-path decimal buffer
DEC_DIGITS = 800  # significant digits kept (plus a sticky "truncated" flag)
DEC_TMP = DEC_DIGITS + 32
_MAX_SHIFT = 28  # bits per decimal shift step (keeps int64 arithmetic exact)
_POWTAB = np.array([1, 3, 6, 9, 13, 16, 19, 23, 26], dtype=np.int64)

_MAX_INDEX_DIGITS = 12  # longer feature indices saturate (always above any limit)
INDEX_SATURATED = 10**12


@njit(cache=True, inline="always")
def _is_ws(c):
    return c == 32 or (c >= 9 and c <= 13)


@njit(cache=True, inline="always")
def _is_space(c):
    """Whitespace inside a line (not the newline)."""
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@njit(cache=True, inline="always")
def _is_digit(c):
    return c >= 48 and c <= 57


@njit(cache=True)
def token_end(buf, p, eol):
    """First position >= p holding whitespace (newline included) or '#' (or eol)."""
    while p < eol:
        c = buf[p]
        if _is_ws(c) or c == _HASH:
            break
        p += 1
    return p


# -- exact slow path: decimal digit array, Go's strconv "decimal" ---------------


@njit(cache=True)
def _dec_trim(d, nd, dp):
    while nd > 0 and d[nd - 1] == 0:
        nd -= 1
    if nd == 0:
        dp = 0
    return nd, dp


@njit(cache=True)
def _dec_set(buf, p, end, d):
    """Read the unsigned decimal number at buf[p:end] (already validated) into d."""
    nd = 0  # digits kept in d
    total = 0  # significant digits read (kept or not)
    dp = 0
    trunc = False
    sawdot = False
    while p < end:
        c = buf[p]
        if c == 46:
            sawdot = True
            dp += total
            p += 1
            continue
        if not _is_digit(c):
            break
        if c == 48 and total == 0:
            if sawdot:
                dp -= 1
            p += 1
            continue
        total += 1
        if nd < DEC_DIGITS:
            d[nd] = c - 48
            nd += 1
        elif c != 48:
            trunc = True
        p += 1
    if not sawdot:
        dp = total
    if p < end and (buf[p] == 101 or buf[p] == 69):
        p += 1
        esign = 1
        if p < end and buf[p] == 43:
            p += 1
        elif p < end and buf[p] == 45:
            p += 1
            esign = -1
        e = 0
        while p < end and _is_digit(buf[p]):
            if e < 100000:
                e = e * 10 + (buf[p] - 48)
            p += 1
        dp += esign * e
    nd, dp = _dec_trim(d, nd, dp)
    return nd, dp, trunc


@njit(cache=True)
def _dec_right_shift(d, nd, dp, trunc, k):
    """Divide the decimal by 2**k (k <= _MAX_SHIFT)."""
    r = 0
    w = 0
    n = 0
    while (n >> k) == 0:
        if r >= nd:
            if n == 0:
                return 0, 0, trunc
            while (n >> k) == 0:
                n = n * 10
                r += 1
            break
        n = n * 10 + d[r]
        r += 1
    dp -= r - 1
    mask = (1 << k) - 1
    while r < nd:
        c = d[r]
        dig = n >> k
        n &= mask
        d[w] = dig
        w += 1
        n = n * 10 + c
        r += 1
    while n > 0:
        dig = n >> k
        n &= mask
        if w < DEC_DIGITS:
            d[w] = dig
            w += 1
        elif dig > 0:
            trunc = True
        n = n * 10
    nd, dp = _dec_trim(d, w, dp)
    return nd, dp, trunc


@njit(cache=True)
def _dec_left_shift(d, tmp, nd, dp, trunc, k):
    """Multiply the decimal by 2**k (k <= _MAX_SHIFT)."""
    w = DEC_TMP
    n = 0
    r = nd - 1
    while r >= 0:
        n += d[r] << k
        quo = n // 10
        w -= 1
        tmp[w] = n - 10 * quo
        n = quo
        r -= 1
    while n > 0:
        quo = n // 10
        w -= 1
        tmp[w] = n - 10 * quo
        n = quo
    produced = DEC_TMP - w
    delta = produced - nd
    keep = produced if produced < DEC_DIGITS else DEC_DIGITS
    for i in range(keep):
        d[i] = tmp[w + i]
    for i in range(keep, produced):
        if tmp[w + i] != 0:
            trunc = True
    nd, dp = _dec_trim(d, keep, dp + delta)
    return nd, dp, trunc


@njit(cache=True)
def _dec_shift(d, tmp, nd, dp, trunc, k):
    if nd == 0:
        return nd, dp, trunc
    if k > 0:
        while k > _MAX_SHIFT:
            nd, dp, trunc = _dec_left_shift(d, tmp, nd, dp, trunc, _MAX_SHIFT)
            k -= _MAX_SHIFT
        nd, dp, trunc = _dec_left_shift(d, tmp, nd, dp, trunc, k)
    elif k < 0:
        k = -k
        while k > _MAX_SHIFT:
            nd, dp, trunc = _dec_right_shift(d, nd, dp, trunc, _MAX_SHIFT)
            k -= _MAX_SHIFT
        nd, dp, trunc = _dec_right_shift(d, nd, dp, trunc, k)
    return nd, dp, trunc


@njit(cache=True)
def _dec_rounded_integer(d, nd, dp, trunc):
    """Integer part of the decimal, rounded half to even (dp <= 18)."""
    n = 0
    i = 0
    while i < dp and i < nd:
        n = n * 10 + d[i]
        i += 1
    while i < dp:
        n *= 10
        i += 1
    if dp >= 0 and dp < nd:
        if d[dp] == 5 and dp + 1 == nd:  # exactly halfway (unless truncated)
            if trunc or (dp > 0 and d[dp - 1] % 2 == 1):
                n += 1
        elif d[dp] >= 5:
            n += 1
    return n


@njit(cache=True)
def _dec_to_float64(d, tmp, nd, dp, trunc):
    """Correctly rounded float64 of the (positive) decimal 0.d[0:nd] * 10**dp."""
    if nd == 0:
        return 0.0
    if dp > 310:
        return np.inf
    if dp < -330:
        return 0.0
    exp = 0
    while dp > 0:
        n = 27 if dp >= 9 else _POWTAB[dp]
        nd, dp, trunc = _dec_shift(d, tmp, nd, dp, trunc, -n)
        exp += n
    while dp < 0 or (dp == 0 and d[0] < 5):
        n = 27 if -dp >= 9 else _POWTAB[-dp]
        nd, dp, trunc = _dec_shift(d, tmp, nd, dp, trunc, n)
        exp -= n
    exp -= 1  # value is now 2 * (0.d) * 2**exp with 2 * (0.d) in [1, 2)
    if exp < -1022:  # subnormal
        nd, dp, trunc = _dec_shift(d, tmp, nd, dp, trunc, exp + 1022)
        exp = -1022
    if exp > 1023:
        return np.inf
    nd, dp, trunc = _dec_shift(d, tmp, nd, dp, trunc, 53)
    mant = _dec_rounded_integer(d, nd, dp, trunc)
    if mant == _TWO53:
        mant >>= 1
        exp += 1
        if exp > 1023:
            return np.inf
    return math.ldexp(float(mant), exp - 52)


# -- numbers ------------------------------------------------------------------


_MANT_LIMIT = 10**17  # mantissas are accumulated exactly while below this


@njit(cache=True)
def slow_number(buf, p, end, d, tmp):
    """Exact float64 of the number at buf[p:end] (already validated by parse_number)."""
    neg = buf[p] == 45
    if buf[p] == 45 or buf[p] == 43:
        p += 1
    nd, dp, trunc = _dec_set(buf, p, end, d)
    f = _dec_to_float64(d, tmp, nd, dp, trunc)
    return -f if neg else f


@njit(cache=True)
def parse_number(buf, p, end):
    """Parse ``[+-](digits[.[digits]] | .digits)[(e|E)[+-]digits]`` at buf[p], stopping at the
    first byte that cannot continue it (or at ``end``).

    Returns ``(status, value, q)`` with ``q`` the position just after the number (the
    caller checks what follows).  ``status == _NUM_OK``: ``value`` is the correctly
    rounded float64 of the text; ``_NUM_SLOW``: the text is valid but the caller must
    get the value from ``slow_number(buf, p, q, ...)``; ``_NUM_BAD``: not a number.

    (The slow path is not called from here: passing its scratch arrays through this
    hot function costs reference-count traffic on every call.)
    """
    start = p
    neg = False
    if p < end:
        c = buf[p]
        if c == 45:
            neg = True
            p += 1
        elif c == 43:
            p += 1
    digits_start = p
    mant = 0
    big = False  # more digits than the exact mantissa holds
    while p < end:
        c = buf[p]
        if not _is_digit(c):
            break
        if mant < _MANT_LIMIT:
            mant = mant * 10 + (c - 48)
        else:
            big = True
        p += 1
    n_digits = p - digits_start
    frac = 0
    if p < end and buf[p] == 46:
        p += 1
        frac_start = p
        while p < end:
            c = buf[p]
            if not _is_digit(c):
                break
            if mant < _MANT_LIMIT:
                mant = mant * 10 + (c - 48)
                frac += 1
            else:
                big = True
            p += 1
        n_digits += p - frac_start
    if n_digits == 0:
        return _NUM_BAD, 0.0, start
    k = -frac
    if p < end and (buf[p] == 101 or buf[p] == 69):
        p += 1
        esign = 1
        if p < end and buf[p] == 43:
            p += 1
        elif p < end and buf[p] == 45:
            esign = -1
            p += 1
        if p >= end or not _is_digit(buf[p]):
            return _NUM_BAD, 0.0, start
        e = 0
        while p < end and _is_digit(buf[p]):
            if e < 100000:
                e = e * 10 + (buf[p] - 48)
            p += 1
        k += esign * e
    if not big:
        if mant == 0:
            return _NUM_OK, (-0.0 if neg else 0.0), p
        if mant <= _TWO53:  # Clinger's fast path: one correctly rounded operation
            f = -1.0
            if k == 0:
                f = float(mant)
            elif k > 0 and k <= 22:
                f = float(mant) * _POW10[k]
            elif k < 0 and k >= -22:
                f = float(mant) / _POW10[-k]
            elif k > 22 and k <= 37:
                m2 = float(mant) * _POW10[k - 22]  # exact: an integer below 1e15 < 2**53
                if m2 <= 1e15:
                    f = m2 * _POW10[22]
            if f >= 0.0:
                return _NUM_OK, (-f if neg else f), p
    return _NUM_SLOW, 0.0, p


# -- chunk-level kernels ----------------------------------------------------------


@njit(cache=True)
def last_newline(buf, n):
    """Index of the last b'\\n' in buf[:n], or -1."""
    i = n - 1
    while i >= 0:
        if buf[i] == _NL:
            return i
        i -= 1
    return -1


@njit(cache=True)
def count_lines(buf, n):
    """(data lines, newline characters) in buf[:n].

    A data line has a non-whitespace byte before any '#'; blank and comment-only
    lines are not data lines.
    """
    n_data = 0
    n_nl = 0
    pos = 0
    while pos < n:
        p = pos
        while p < n and buf[p] != _NL and _is_ws(buf[p]):
            p += 1
        if p < n and buf[p] != _NL and buf[p] != _HASH:
            n_data += 1
        while p < n and buf[p] != _NL:
            p += 1
        if p < n:
            n_nl += 1
        pos = p + 1
    return n_data, n_nl


@njit(cache=True)
def scan_lines_and_indices(buf, n):
    """:func:`count_lines` plus the largest feature index written in buf[:n] (0 if none)
    and the 0-based line (within the chunk) where it first occurs.

    Returns ``(data lines, newlines, max index, its line)``.  A feature index is a run of
    digits between whitespace and ':' outside a comment; malformed tokens are ignored
    here (the parse pass reports them).  Indices longer than 12 digits saturate.
    """
    n_data = 0
    best = 0
    best_line = 0
    line = 0
    p = 0
    while p < n:
        # start of a line: is it a data line?
        while p < n and _is_space(buf[p]):
            p += 1
        if p < n and buf[p] != _NL and buf[p] != _HASH:
            n_data += 1
        while p < n:
            c = buf[p]
            if c == _COLON:
                q = p - 1
                while q >= 0 and _is_digit(buf[q]):
                    q -= 1
                nd = p - 1 - q
                if nd > 0 and (q < 0 or _is_ws(buf[q])):
                    idx = 0
                    if nd > _MAX_INDEX_DIGITS:
                        idx = INDEX_SATURATED
                    else:
                        for i in range(q + 1, p):
                            idx = idx * 10 + (buf[i] - 48)
                    if idx > best:
                        best = idx
                        best_line = line
            elif c == _NL:
                break
            elif c == _HASH:
                while p < n and buf[p] != _NL:
                    p += 1
                break
            p += 1
        if p < n:  # at a newline
            line += 1
            p += 1
    return n_data, line, best, best_line


@njit(cache=True)
def parse_chunk(
    buf,
    n,
    X,
    n_cols,
    max_index,
    label_lo,
    label_hi,
    labels,
    line_numbers,
    row_cap,
    row0,
    line0,
    seen,
    dec_digits,
    dec_tmp,
    run_rows,
    run_lo,
    run_hi,
    run0,
):
    """Parse the whole lines in buf[:n] into rows row0, row0+1, ... of X (flat, row-major,
    n_cols columns, pre-zeroed), labels and line_numbers.

    A new *run* starts at every data line whose qid token differs (bytewise) from the
    previous data line's, and at the chunk's first data line; run ``r`` gets
    ``run_rows[r]`` (its first row) and ``run_lo[r]:run_hi[r]`` (its qid bytes in buf).

    Returns ``(err, err_line, tok_lo, tok_hi, rows_end, line_end, runs_end)``;
    ``err != OK`` names the failing 1-based line and the offending token's byte span.
    """
    row = row0
    line = line0
    nr = run0
    prev_lo = 0
    prev_hi = -1
    p = 0
    while p < n:
        # p is at the start of a line
        while p < n and _is_space(buf[p]):
            p += 1
        if p >= n or buf[p] == _NL:  # blank line
            line += 1
            p += 1
            continue
        if buf[p] == _HASH:  # comment line
            while p < n and buf[p] != _NL:
                p += 1
            line += 1
            p += 1
            continue
        if row >= row_cap:
            return ERR_ROWS, line, p, p, row, line, nr

        # label
        te = token_end(buf, p, n)
        st, v, q = parse_number(buf, p, te)
        if st == _NUM_BAD or q != te:
            return ERR_LABEL, line, p, te, row, line, nr
        if st == _NUM_SLOW:
            v = slow_number(buf, p, q, dec_digits, dec_tmp)
        if v != math.floor(v):
            return ERR_LABEL_NONINT, line, p, te, row, line, nr
        if v < label_lo or v > label_hi:
            return ERR_LABEL_RANGE, line, p, te, row, line, nr
        label = int(v)

        # qid
        p = te
        while p < n and _is_space(buf[p]):
            p += 1
        te = token_end(buf, p, n)
        if te - p < 5 or buf[p] != 113 or buf[p + 1] != 105 or buf[p + 2] != 100 or buf[p + 3] != _COLON:
            return ERR_QID, line, p, te, row, line, nr
        qlo = p + 4
        same = (te - qlo) == (prev_hi - prev_lo)
        if same:
            for k in range(te - qlo):
                if buf[qlo + k] != buf[prev_lo + k]:
                    same = False
                    break
        if not same:
            run_rows[nr] = row
            run_lo[nr] = qlo
            run_hi[nr] = te
            nr += 1
        prev_lo = qlo
        prev_hi = te

        # features
        p = te
        base = row * n_cols - 1
        stamp = row + 1
        while True:
            while p < n and _is_space(buf[p]):
                p += 1
            if p >= n or buf[p] == _NL:
                break
            if buf[p] == _HASH:
                while p < n and buf[p] != _NL:
                    p += 1
                break
            tok = p
            idx = 0
            while p < n and _is_digit(buf[p]):
                idx = idx * 10 + (buf[p] - 48)
                p += 1
            nd = p - tok
            if nd > _MAX_INDEX_DIGITS:
                idx = INDEX_SATURATED
            if nd == 0 or p >= n or buf[p] != _COLON:
                return ERR_TOKEN, line, tok, token_end(buf, tok, n), row, line, nr
            if idx == 0:
                return ERR_INDEX_ZERO, line, tok, token_end(buf, tok, n), row, line, nr
            if idx > max_index:
                return ERR_INDEX_RANGE, line, tok, token_end(buf, tok, n), row, line, nr
            if seen[idx] == stamp:
                return ERR_DUPLICATE, line, tok, token_end(buf, tok, n), row, line, nr
            seen[idx] = stamp
            st, v, q = parse_number(buf, p + 1, n)
            if st == _NUM_BAD or (q < n and not _is_ws(buf[q]) and buf[q] != _HASH):
                return ERR_VALUE, line, tok, token_end(buf, tok, n), row, line, nr
            if st == _NUM_SLOW:
                v = slow_number(buf, p + 1, q, dec_digits, dec_tmp)
            f = np.float32(v)
            if math.isinf(f):
                return ERR_VALUE, line, tok, q, row, line, nr
            X[base + idx] = f
            p = q

        # p is at the newline (or the end of the buffer)
        labels[row] = label
        line_numbers[row] = line
        row += 1
        line += 1
        p += 1
    return OK, 0, 0, 0, row, line, nr


@njit(cache=True)
def permute_rows_inplace(X, perm):
    """X[i] <- X[perm[i]] for every row, in place (cycle following, one row of scratch)."""
    n, m = X.shape
    done = np.zeros(n, dtype=np.bool_)
    hold = np.empty(m, dtype=X.dtype)
    for start in range(n):
        if done[start] or perm[start] == start:
            done[start] = True
            continue
        for c in range(m):
            hold[c] = X[start, c]
        j = start
        while True:
            done[j] = True
            k = perm[j]
            if k == start:
                for c in range(m):
                    X[j, c] = hold[c]
                break
            for c in range(m):
                X[j, c] = X[k, c]
            j = k
