"""``log``, ``exp`` and the normal quantile from IEEE-754 basic operations only: the same bits on every CPU.

numpy's ``np.exp``/``np.log``/``np.power``/``np.tanh`` take a different code path on each CPU: its own
AVX-512 (or AVX2) kernels where the CPU has them, else the C library's function, and glibc itself picks an
FMA or a plain variant of ``exp``, ``log``, ``log1p``, ``pow`` ... by CPU.  The paths agree to about one
unit in the last place, not to the bit.  The functions here use only operations whose result IEEE 754
defines exactly (``+ - * /``, ``sqrt``, ``frexp``, ``ldexp``, ``rint``, comparisons), each as its own
numpy ufunc call in a fixed order (no fused multiply-add can form across calls), so their result is the
same on every machine, whatever numpy, libm or vector width it has.

``log`` and ``exp`` are fdlibm's algorithms (Sun Microsystems, ``e_log.c`` and ``e_exp.c``, error below
1 ulp); ``normal_quantile`` is Wichura's AS 241 (``PPND16``, Applied Statistics 37(3), 1988, relative
error about 1e-16).  They are for the values that must be reproducible bit for bit (synthetic data); they
are a few times slower than numpy's.
"""

from __future__ import annotations

import numpy as np

_LN2_HI = 6.93147180369123816490e-01  # 0x3fe62e42fee00000: 32 trailing zero bits, k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10  # 0x3dea39ef35793c76
_INV_LN2 = 1.44269504088896338700e00
_SQRT_HALF = 0.70710678118654757  # the reduced argument 1 + f lies in [sqrt(1/2), sqrt(2))

# log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)), s = f / (2 + f)  (fdlibm e_log.c)
_LG = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01, 2.222219843214978396e-01,
       1.818357216161805012e-01, 1.531383769920937332e-01, 1.479819860511658591e-01)
# exp(r) = 1 + 2r / (2 - c(r)), c(r) = r - r^2 P(r^2)  (fdlibm e_exp.c)
_P = (1.66666666666666019037e-01, -2.77777777770155933842e-03, 6.61375632143793436117e-05,
      -1.65339022054652515390e-06, 4.13813679705723846039e-08)
_EXP_MAX = 7.09782712893383973096e02  # exp overflows above, underflows to 0 below _EXP_MIN
_EXP_MIN = -7.45133219101941108420e02

# AS 241: numerator and denominator coefficients, highest power first, of the three rational pieces
_CENTRAL = ((2.5090809287301226727e3, 3.3430575583588128105e4, 6.7265770927008700853e4, 4.5921953931549871457e4,
             1.3731693765509461125e4, 1.9715909503065514427e3, 1.3314166789178437745e2, 3.3871328727963666080e0),
            (5.2264952788528545610e3, 2.8729085735721942674e4, 3.9307895800092710610e4, 2.1213794301586595867e4,
             5.3941960214247511077e3, 6.8718700749205790830e2, 4.2313330701600911252e1, 1.0))
_INTERMEDIATE = ((7.74545014278341407640e-4, 2.27238449892691845833e-2, 2.41780725177450611770e-1,
                  1.27045825245236838258e0, 3.64784832476320460504e0, 5.76949722146069140550e0,
                  4.63033784615654529590e0, 1.42343711074968357734e0),
                 (1.05075007164441684324e-9, 5.47593808499534494600e-4, 1.51986665636164571966e-2,
                  1.48103976427480074590e-1, 6.89767334985100004550e-1, 1.67638483018380384940e0,
                  2.05319162663775882187e0, 1.0))
_FAR = ((2.01033439929228813265e-7, 2.71155556874348757815e-5, 1.24266094738807843860e-3, 2.65321895265761230930e-2,
         2.96560571828504891230e-1, 1.78482653991729133580e0, 5.46378491116411436990e0, 6.65790464350110377720e0),
        (2.04426310338993978564e-15, 1.42151175831644588870e-7, 1.84631831751005468180e-5, 7.86869131145613259100e-4,
         1.48753612908506148525e-2, 1.36929880922735805310e-1, 5.99832206555887937690e-1, 1.0))


def _horner(coefficients, x: np.ndarray) -> np.ndarray:
    """sum_i c_i x^(n-i), highest power first, one multiply and one add per step."""
    out = np.full_like(x, coefficients[0])
    for c in coefficients[1:]:
        out = out * x + c
    return out


def log(x) -> np.ndarray:
    """Natural logarithm of positive finite ``x`` (float64; fdlibm's algorithm, error below 1 ulp)."""
    x = np.asarray(x, dtype=np.float64)
    if not np.all((x > 0) & np.isfinite(x)):
        raise ValueError("exact_math.log needs positive finite values")
    m, k = np.frexp(x)  # x = m 2^k, m in [1/2, 1): exact
    low = m < _SQRT_HALF
    m = np.where(low, m * 2.0, m)
    k = (k - low).astype(np.float64)
    f = m - 1.0  # exact (Sterbenz)
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    r = z * (_LG[0] + w * (_LG[2] + w * (_LG[4] + w * _LG[6]))) + w * (_LG[1] + w * (_LG[3] + w * _LG[5]))
    half_f2 = 0.5 * f * f
    return k * _LN2_HI - ((half_f2 - (s * (half_f2 + r) + k * _LN2_LO)) - f)


def exp(x) -> np.ndarray:
    """e^x for finite float64 ``x`` (fdlibm's algorithm, error below 1 ulp; inf above 709.78, 0 below -745.13)."""
    shape = np.shape(x)
    x = np.atleast_1d(np.asarray(x, dtype=np.float64))
    if not np.all(np.isfinite(x)):
        raise ValueError("exact_math.exp needs finite values")
    inside = np.clip(x, -746.0, 710.0)  # beyond, the result is 0 or inf anyway; keeps k an int32
    k = np.rint(inside * _INV_LN2)
    hi = inside - k * _LN2_HI
    lo = k * _LN2_LO
    r = hi - lo
    t = r * r
    c = r - t * (_P[0] + t * (_P[1] + t * (_P[2] + t * (_P[3] + t * _P[4]))))
    y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
    with np.errstate(over="ignore", under="ignore"):
        out = np.ldexp(y, k.astype(np.int32))
    out[x > _EXP_MAX] = np.inf
    out[x < _EXP_MIN] = 0.0
    return out.reshape(shape)


def normal_quantile(p) -> np.ndarray:
    """Phi^-1(p) for p in (0, 1): the standard normal quantile (AS 241 PPND16)."""
    shape = np.shape(p)
    p = np.atleast_1d(np.asarray(p, dtype=np.float64))
    if not np.all((p > 0) & (p < 1)):
        raise ValueError("exact_math.normal_quantile needs probabilities strictly between 0 and 1")
    q = p - 0.5
    out = np.empty_like(p)
    central = np.abs(q) <= 0.425
    qc = q[central]
    r = 0.180625 - qc * qc
    out[central] = qc * _horner(_CENTRAL[0], r) / _horner(_CENTRAL[1], r)
    tail = ~central
    qt = q[tail]
    r = np.sqrt(-log(np.where(qt < 0, p[tail], 1.0 - p[tail])))  # the smaller tail area
    value = np.empty_like(r)
    near = r <= 5.0
    value[near] = _horner(_INTERMEDIATE[0], r[near] - 1.6) / _horner(_INTERMEDIATE[1], r[near] - 1.6)
    value[~near] = _horner(_FAR[0], r[~near] - 5.0) / _horner(_FAR[1], r[~near] - 5.0)
    out[tail] = np.where(qt < 0, -value, value)
    return out.reshape(shape)

