"""ltrbv.exact_math against independent oracles: the C library's log/exp (error below 0.52 ulp) and scipy's
normal quantile (cephes ndtri).  Their bits may differ by CPU (that is why exact_math exists: see
tests/test_determinism.py); their values must agree with exact_math's to within 1 ulp (log, exp) or 1e-14."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtri

from ltrbv import exact_math


def ulps(value: np.ndarray, reference: np.ndarray) -> np.ndarray:
    return np.abs(value - reference) / np.spacing(np.abs(reference))


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(2028)


def test_log_within_one_ulp(rng):
    x = np.concatenate([rng.uniform(1e-300, 1, 10**5), rng.uniform(0.5, 2, 10**5), np.exp(rng.uniform(-700, 700, 10**5)),
                        np.arange(1, 10**5, dtype=np.float64), [5e-324, 1.7976931348623157e308, 1.0, 2.0]])
    assert ulps(exact_math.log(x), np.log(x)).max() <= 1.0
    assert exact_math.log(1.0) == 0.0 and exact_math.log(2.0) == np.log(2.0)


def test_exp_within_one_ulp_and_its_limits(rng):
    x = np.concatenate([rng.uniform(-745, 709.7, 10**5), rng.uniform(-3, 3, 10**5), [0.0, 1.0, -1.0]])
    assert ulps(exact_math.exp(x), np.exp(x)).max() <= 1.0
    assert exact_math.exp(0.0) == 1.0
    np.testing.assert_array_equal(exact_math.exp(np.array([710.0, 1e6, -746.0, -1e6])), [np.inf, np.inf, 0.0, 0.0])


def test_normal_quantile_against_scipy(rng):
    p = np.concatenate([rng.uniform(0, 1, 10**5), 10.0 ** -rng.uniform(1, 300, 10**4), [0.5, 0.025, 0.975, 1e-300]])
    p = p[(p > 0) & (p < 1)]
    np.testing.assert_allclose(exact_math.normal_quantile(p), ndtri(p), rtol=2e-15, atol=1e-300)
    assert exact_math.normal_quantile(0.5) == 0.0
    np.testing.assert_array_equal(exact_math.normal_quantile(1 - p[p > 0.5]), -exact_math.normal_quantile(p[p > 0.5]))


@pytest.mark.parametrize("call, bad", [(exact_math.log, [1.0, 0.0]), (exact_math.log, [-1.0]), (exact_math.log, [np.inf]),
                                       (exact_math.exp, [np.nan]), (exact_math.normal_quantile, [0.0]),
                                       (exact_math.normal_quantile, [1.0])])
def test_outside_the_domain_refused(call, bad):
    with pytest.raises(ValueError, match="exact_math"):
        call(np.array(bad))


# -- the ranking tables: correctly rounded, the same on every CPU ---------------------------------------------------

def _nearest(value) -> float:
    """float64 nearest to a decimal value computed at 80 digits (an independent, more precise computation)."""
    return float(value)


def test_log_tables_are_the_correctly_rounded_values():
    import math
    from decimal import Decimal, localcontext

    k = np.arange(1, 3001)
    log2, log = exact_math.log2_of_integers(k), exact_math.log_of_integers(k)
    with localcontext() as ctx:
        ctx.prec = 80
        ln2 = Decimal(2).ln()
        assert [_nearest(Decimal(int(v)).ln() / ln2) for v in k] == log2.tolist()
        assert [_nearest(Decimal(int(v)).ln()) for v in k] == log.tolist()
    # the C library's own functions agree below 1,621 (glibc 2.36; they are within 0.52 ulp, not always rounded)
    assert log2[:1620].tolist() == [math.log2(v) for v in range(1, 1621)]
    assert exact_math.log2_of_integers(np.array([[4, 8], [1, 1024]])).tolist() == [[2.0, 3.0], [0.0, 10.0]]


def test_powers_are_the_correctly_rounded_values():
    from decimal import Decimal, localcontext

    x = 1.0 - 7.0 / 16.0
    powers = exact_math.integer_powers(x, 400)
    with localcontext() as ctx:
        ctx.prec = 80
        assert powers.tolist() == [_nearest(Decimal(x) ** j) for j in range(400)]
        k = np.arange(1, 200)
        assert exact_math.powers_of_integers(k, 1.5).tolist() == [_nearest(Decimal(int(v)) ** Decimal(1.5)) for v in k]
        assert exact_math.powers_of_logs(k + 1, 1.5).tolist() == [
            _nearest(Decimal(int(v) + 1).ln() ** Decimal(1.5)) for v in k]
    assert exact_math.exp2_of_integers(np.arange(60)).tolist() == [float(2 ** j) for j in range(60)]


@pytest.mark.parametrize("call", [lambda: exact_math.log2_of_integers(np.array([0, 1])),
                                  lambda: exact_math.log_of_integers(np.array([1.5])),
                                  lambda: exact_math.powers_of_integers(np.array([0]), 2.0),
                                  lambda: exact_math.powers_of_logs(np.array([1]), 2.0)])
def test_tables_outside_their_domain_refused(call):
    with pytest.raises(ValueError):
        call()
