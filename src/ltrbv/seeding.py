"""Deterministic seeds: every random choice derives from the config seed and the job's wildcards."""

from __future__ import annotations

import hashlib

import numpy as np


def _key_entropy(key: object) -> int:
    """A stable 32-bit integer for a wildcard value (str(key) hashed with SHA-256)."""
    return int.from_bytes(hashlib.sha256(str(key).encode("utf-8")).digest()[:4], "little")


def derive_seed(base_seed: int, *keys: object) -> int:
    """A 31-bit seed from the config seed and an ordered list of keys (e.g. dataset, fold, learner, replicate).

    The same inputs give the same seed on every machine and Python version
    (no use of ``hash()``), and different key tuples give independent streams
    through ``numpy.random.SeedSequence``.
    """
    sequence = np.random.SeedSequence([int(base_seed)] + [_key_entropy(k) for k in keys])
    return int(sequence.generate_state(1, dtype=np.uint32)[0] & 0x7FFFFFFF)
