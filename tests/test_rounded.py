"""ltrbv.rounded: the ranking tables are the correctly rounded values (against decimal at 80 digits, an independent
and more precise computation), at the arguments where numpy's AVX-512 paths and glibc's functions disagree."""

from __future__ import annotations

import numpy as np
import pytest

from ltrbv import rounded


def _nearest(value) -> float:
    """float64 nearest to a decimal value computed at 80 digits (an independent, more precise computation)."""
    return float(value)


def test_log_tables_are_the_correctly_rounded_values():
    import math
    from decimal import Decimal, localcontext

    k = np.arange(1, 3001)
    log2, log = rounded.log2_of_integers(k), rounded.log_of_integers(k)
    with localcontext() as ctx:
        ctx.prec = 80
        ln2 = Decimal(2).ln()
        assert [_nearest(Decimal(int(v)).ln() / ln2) for v in k] == log2.tolist()
        assert [_nearest(Decimal(int(v)).ln()) for v in k] == log.tolist()
    # the C library's own functions agree below 1,621 (glibc 2.36; they are within 0.52 ulp, not always rounded)
    assert log2[:1620].tolist() == [math.log2(v) for v in range(1, 1621)]
    assert rounded.log2_of_integers(np.array([[4, 8], [1, 1024]])).tolist() == [[2.0, 3.0], [0.0, 10.0]]


def test_large_log_tables_are_correctly_rounded_where_the_fast_paths_disagree():
    """Up to 2^19: the extended-precision values decide most entries, decimal the ones near a midpoint.  Checked at
    the integers where numpy's AVX-512 log and glibc's differ (and where glibc's log/log2 are not correctly rounded)
    and at random ones, against decimal at 80 digits."""
    from decimal import Decimal, localcontext

    known = [9170, 19143, 94869, 136085, 136837, 141614, 147674, 275063, 285343, 287549, 1621, 3242, 57803]
    k = np.unique(np.concatenate([known, np.random.default_rng(3).integers(1, 1 << 19, 400)]))
    log = rounded.log_of_integers(k)
    log2 = rounded.log2_of_integers(k)
    with localcontext() as ctx:
        ctx.prec = 80
        ln2 = Decimal(2).ln()
        assert log.tolist() == [float(Decimal(int(v)).ln()) for v in k]
        assert log2.tolist() == [float(Decimal(int(v)).ln() / ln2) for v in k]


def test_powers_are_the_correctly_rounded_values():
    from decimal import Decimal, localcontext

    x = 1.0 - 7.0 / 16.0
    powers = rounded.integer_powers(x, 400)
    with localcontext() as ctx:
        ctx.prec = 80
        assert powers.tolist() == [_nearest(Decimal(x) ** j) for j in range(400)]
        k = np.arange(1, 200)
        assert rounded.powers_of_integers(k, 1.5).tolist() == [_nearest(Decimal(int(v)) ** Decimal(1.5)) for v in k]
        assert rounded.powers_of_logs(k + 1, 1.5).tolist() == [
            _nearest(Decimal(int(v) + 1).ln() ** Decimal(1.5)) for v in k]
    assert rounded.exp2_of_integers(np.arange(60)).tolist() == [float(2 ** j) for j in range(60)]


@pytest.mark.parametrize("call", [lambda: rounded.log2_of_integers(np.array([0, 1])),
                                  lambda: rounded.log_of_integers(np.array([1.5])),
                                  lambda: rounded.powers_of_integers(np.array([0]), 2.0),
                                  lambda: rounded.powers_of_logs(np.array([1]), 2.0),
                                  lambda: rounded.exp2_of_integers(np.array([1.5]))])
def test_tables_outside_their_domain_refused(call):
    with pytest.raises(ValueError):
        call()
