"""A small counter-free PRNG (xoshiro256**) for compiled kernels, with explicit state.

Each tree owns its state array, so a tree's random choices do not depend on
which thread builds it: the same seed gives bit-identical trees at any thread
count.
"""

from __future__ import annotations

import numpy as np
from numba import uint64

from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)

_MASK = (1 << 64) - 1


def seed_state(seed: int) -> np.ndarray:
    """Four 64-bit words from splitmix64(seed) (the initialisation xoshiro's authors recommend)."""
    state = np.empty(4, dtype=np.uint64)
    x = seed & _MASK
    for i in range(4):
        x = (x + 0x9E3779B97F4A7C15) & _MASK
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        state[i] = z ^ (z >> 31)
    return state


@njit(inline="always", cache=True)
def _rotl(x, k):
    return (x << uint64(k)) | (x >> uint64(64 - k))


@njit(cache=True)
def next_u64(state):
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    result = _rotl(s1 * uint64(5), 7) * uint64(9)
    t = s1 << uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return result


@njit(cache=True)
def uniform(state):
    """A float64 uniform on [0, 1) from the top 53 bits."""
    return float(next_u64(state) >> uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def randint(state, n):
    """An integer uniform on [0, n) (n > 0), by rejection to avoid modulo bias."""
    bound = uint64(n)
    limit = uint64(0xFFFFFFFFFFFFFFFF) - (uint64(0xFFFFFFFFFFFFFFFF) % bound)
    while True:
        r = next_u64(state)
        if r < limit:
            return np.int64(r % bound)
