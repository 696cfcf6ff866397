"""Parameter checks shared by the learners: a bad value is refused with the parameter's name.

Numbers from a config file arrive as YAML scalars: ``10.5`` for an integer, ``.nan`` or ``.inf``
for a real, ``true`` for either (bool is an int in Python) must all be refused, never clamped.
"""

from __future__ import annotations

import math
import numbers


def check_integer(name: str, value, minimum: int | None = None, maximum: int | None = None,
                  allow_none: bool = False) -> None:
    """``value`` is an integer (not a bool, not 10.5) within ``[minimum, maximum]``."""
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value!r}")


def check_real(name: str, value, low: float | None = None, high: float | None = None,
               low_open: bool = False, high_open: bool = False, allow_none: bool = False) -> None:
    """``value`` is a finite real number in the interval given by ``low``/``high`` (open ends if asked)."""
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if too_low or too_high:
        interval = (("(" if low_open else "[") + ("-inf" if low is None else f"{low:g}") + ", "
                    + ("inf" if high is None else f"{high:g}") + (")" if high_open else "]"))
        raise ValueError(f"{name} must be in {interval}, got {value!r}")
