"""Correctly rounded tables of logs and powers: the same bits on every CPU, for the tables every metric and split
reads.

numpy's ``log2``/``log``/``power`` take a CPU-dependent path (its own AVX-512 kernels where the CPU has them,
else the C library's function, which glibc picks by CPU too); the paths agree to about one unit in the last
place, not to the bit.  :mod:`ltrbv.exact_math` avoids them with basic operations only (for the synthetic data);
the tables here are instead *correctly rounded*, the one value every correct implementation must give: the
discounts 1/log2(r+1), the ERR criterion's (1 - R)^j, rank powers r^beta, the entropy criterion's k log k.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

# The ranking tables (discounts 1/log2(r+1), the ERR criterion's (1 - R)^j, rank powers r^beta) and the entropy
# criterion's k log k are read by every metric and split, so a last-bit difference between two CPUs' numpy (its
# AVX-512 log2/log/power differ from the C library's: log on 22 of the integers up to 500,000) can flip a tie and
# change a tree.  Each entry here is the correctly rounded value, the same on every machine.  Logs of integers:
# computed in x87 extended precision (64-bit significand, the C library's logl/log2l, within a few of its own last
# places: about 3 * 2**-11 of a float64's) and rounded to float64, except where that value lies within 1/256 of a
# last place of a rounding midpoint (or at a power of two), where Python's decimal module decides at 40 digits; on a
# platform without extended precision every entry comes from decimal (45 microseconds each).  Powers: decimal.
# glibc's own log2/log/pow agree with these tables on every argument below 1,621.

_DIGITS = 40
_MARGIN = 2.0**-8  # in last places of the float64 result: how close to a rounding midpoint decimal decides (logl is
# within about 3 of its own last places, 3 * 2**-11 of float64s)


def _decimal_context():
    import decimal

    return decimal.Context(prec=_DIGITS, rounding=decimal.ROUND_HALF_EVEN)


def _decimal_log(k: int, base2: bool) -> float:
    from decimal import Decimal

    context = _decimal_context()
    value = context.ln(Decimal(k))
    return float(context.divide(value, context.ln(Decimal(2))) if base2 else value)


@lru_cache(maxsize=None)
def _log_table(n: int, base2: bool) -> np.ndarray:
    k = np.arange(1, n + 1)
    if np.finfo(np.longdouble).nmant >= 63:
        wide = k.astype(np.longdouble)
        wide = np.log2(wide) if base2 else np.log(wide)
        table = wide.astype(np.float64)
        place = np.spacing(np.abs(table)).astype(np.longdouble)
        offset = np.abs((wide - table.astype(np.longdouble)) / place).astype(np.float64)  # in [0, 0.5]
        mantissa, _ = np.frexp(table)
        undecided = (np.abs(offset - 0.5) < _MARGIN) | (np.abs(mantissa) == 0.5)
    else:
        table = np.empty(n, dtype=np.float64)
        undecided = np.ones(n, dtype=bool)
    for i in np.flatnonzero(undecided):
        table[i] = _decimal_log(int(k[i]), base2)
    table.flags.writeable = False
    return table


def _check_whole(k: np.ndarray, least, what: str) -> None:
    """Refuse values that are not whole numbers (or below ``least``): a table is indexed by them."""
    if k.size and (not np.all(k == np.rint(k)) or (least is not None and k.min() < least)):
        raise ValueError(f"{what}: needs whole numbers" + (f" >= {least}" if least is not None else "")
                         + " (a label or rank that is not a whole number?)")


def log2_of_integers(k) -> np.ndarray:
    """log2(k), correctly rounded, for integers k >= 1 (any array shape)."""
    return _of_integers(k, True)


def log_of_integers(k) -> np.ndarray:
    """Natural log of integers k >= 1, correctly rounded."""
    return _of_integers(k, False)


def _of_integers(k, base2: bool) -> np.ndarray:
    k = np.asarray(k)
    if k.size == 0:
        return np.zeros(k.shape, dtype=np.float64)
    _check_whole(k, 1, "log of integers")
    n = int(k.max())
    size = 1 << max(6, (n - 1).bit_length())  # tables of 2^m entries: a few sizes per process, each computed once
    return _log_table(size, base2)[k.astype(np.int64) - 1]


def integer_powers(x: float, n: int) -> np.ndarray:
    """x^j for j = 0 .. n-1, correctly rounded (x a float64, taken exactly)."""
    from decimal import Decimal

    context = _decimal_context()
    base, value, out = Decimal(float(x)), Decimal(1), np.empty(n, dtype=np.float64)
    for j in range(n):
        out[j] = float(value)
        value = context.multiply(value, base)
    return out


def powers_of_integers(k, power: float) -> np.ndarray:
    """k^power, correctly rounded (almost always: decimal's non-integer power), for integers k >= 1."""
    from decimal import Decimal

    k = np.asarray(k)
    _check_whole(k, 1, "powers of integers")
    context, exponent = _decimal_context(), Decimal(float(power))
    return np.array([float(context.power(Decimal(int(v)), exponent)) for v in k.ravel()],
                    dtype=np.float64).reshape(k.shape)


def powers_of_logs(k, power: float) -> np.ndarray:
    """ln(k)^power for integers k >= 2, correctly rounded (almost always)."""
    from decimal import Decimal

    k = np.asarray(k)
    _check_whole(k, 2, "powers of logs")
    context, exponent = _decimal_context(), Decimal(float(power))
    return np.array([float(context.power(context.ln(Decimal(int(v))), exponent)) for v in k.ravel()],
                    dtype=np.float64).reshape(k.shape)


def exp2_of_integers(k) -> np.ndarray:
    """2^k for integers k (exact: ``ldexp``; numpy's exp2 takes a CPU-dependent path)."""
    k = np.asarray(k)
    _check_whole(k, None, "2^k of integers")
    return np.ldexp(1.0, k.astype(np.int64).astype(np.int32))
