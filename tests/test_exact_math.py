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

