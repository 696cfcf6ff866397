"""The split search's key sort (``_splitter.radix_sort``, ``sort_keys``) against numpy's.

It replaces numba's generic ``ndarray.sort`` for speed; the trees may not change, so the result must equal
numpy's sorted array exactly (the keys are integers).  The sizes straddle the insertion, quicksort and radix
ranges; the key sets include constant bytes (passes skipped), all-equal keys, sorted and reversed input and
every bit width the forests use.
"""

from __future__ import annotations

import numpy as np
import pytest

from ltrbv.forest._entropy import LABEL_BITS
from ltrbv.forest._listwise import POSITION_BITS
from ltrbv.forest._splitter import (INSERTION_MAX, KEY_BYTES, QUICKSORT_MAX, RADIX, make_scratch, radix_sort,
                                    sort_keys, sortable_keys)

SIZES = [0, 1, 2, 3, INSERTION_MAX - 1, INSERTION_MAX, INSERTION_MAX + 1, 100, QUICKSORT_MAX, QUICKSORT_MAX + 1,
         1000, 6000, 70000]


def key_sets(rng, n, high_byte):
    top = 2 ** (8 * high_byte) if high_byte < 8 else 2 ** 63
    keys = rng.integers(0, top, size=n, dtype=np.int64)
    yield "random", keys
    yield "constant bytes", keys & 0xFF00FF00FF
    yield "few values", keys % 3
    yield "all equal", np.full(n, 7, dtype=np.int64)
    yield "sorted", np.sort(keys)
    yield "reversed", np.sort(keys)[::-1].copy()


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("high_byte", [5, 7, 8])
def test_radix_sort_is_numpys_sort(n, high_byte):
    rng = np.random.default_rng(n * 10 + high_byte)
    buffer = np.empty(max(n, 1), dtype=np.int64)
    counts = np.zeros((KEY_BYTES, RADIX), dtype=np.int64)
    for name, keys in key_sets(rng, n, high_byte):
        got = keys.copy()
        radix_sort(got, buffer, counts, 0, high_byte)
        assert np.array_equal(got, np.sort(keys)), name


@pytest.mark.parametrize("n", SIZES)
def test_sort_keys_is_numpys_sort_of_the_keys(n):
    """The listwise search's payload (positions, ascending: the payload's bytes are not sorted) and the pointwise
    one's (labels, in any order), on values with ties as LETOR's normalised features have them."""
    rng = np.random.default_rng(n)
    values = np.round(rng.random(n), 2).astype(np.float32)
    values[: n // 10] = -values[: n // 10]  # negative values: the sign bit flips the order of the bits
    rng.shuffle(values)
    scratch = make_scratch(max(n, 1), 1, 5, np.zeros(1, dtype=np.int64))
    for payload, shift in ((np.arange(n, dtype=np.int64), POSITION_BITS),
                           (rng.integers(0, 5, size=n).astype(np.int64), LABEL_BITS)):
        expected = np.empty(n, dtype=np.int64)
        sortable_keys(values, payload, shift, expected)
        expected = np.sort(expected)
        got = np.empty(n, dtype=np.int64)
        sort_keys(values, payload, shift, got, scratch)
        assert np.array_equal(got, expected), shift


def test_sort_keys_skips_only_bytes_of_an_ascending_payload():
    """A payload that ascends but for one pair must be sorted in full: skipping its bytes would keep the pair."""
    n = 2000
    values = np.zeros(n, dtype=np.float32)  # one value: the payload decides the order
    payload = np.arange(n, dtype=np.int64)
    payload[[700, 701]] = payload[[701, 700]]
    got = np.empty(n, dtype=np.int64)
    sort_keys(values, payload, POSITION_BITS, got, make_scratch(n, 1, 2, payload[:1]))
    assert np.array_equal(got & ((1 << POSITION_BITS) - 1), np.arange(n))
