"""Splitters: choose a node's split (feature, threshold) with a criterion or at random.

Every criterion shares one feature loop (``next_feature``): features are
drawn without replacement until K non-constant ones have been scanned (a
feature constant at the node cannot split it and, as in scikit-learn, does not
count towards K); each drawn feature's values at the node are gathered into
the scratch bundle, and the criterion sorts them with its payload
(``sort_keys``: a label for the pointwise criteria, a position for the
listwise ones; integer keys, sorted by ``radix_sort``, numba's generic sort
was most of a tree's time) and scans the boundaries.  Thresholds are midpoints between
consecutive distinct values, computed as scikit-learn does.

``best_pointwise_split`` asks a pointwise criterion (``_criteria.scan_boundaries``) for
the best boundary of each feature.

``thresholds: hist`` (the features' values replaced by uint8 bin numbers): ``best_pointwise_hist_split``
builds the drawn features' per-node histograms of (bin, label) counts in one pass over the node's rows and
scans the bins, no sort; ``counting_sort_keys`` gives the listwise search its keys by a counting sort;
``partition_rows`` keeps the tree's rows of bins in node order.

``random_split`` is RF-rand's (Ibrahim & Carman 2016, §6.1.1): a random
non-constant feature and a threshold uniform between its minimum and maximum
at the node; labels play no part.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import int64, uint32, uint64
from numba.cpython.unsafe.numbers import trailing_zeros

from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)
from ._criteria import LABEL_BITS, counts_boundary_value, scan_boundaries
from ._rng import randint, uniform

# per-tree scratch space shared by all splitters; the bin_* arrays serve ``thresholds: hist`` (``binned``: Xt holds
# bin numbers): per feature of a pass, per-(bin, label) counts (flat, bin-major) of a node's histogram and the mask
# of its non-empty bins (both all zero between passes) and the feature, the listwise counting sort's bin offsets and each bin's sortable value bits
SplitScratch = namedtuple("SplitScratch", "feature_pool counters values keys node_labels left_counts bits buffer "
                                          "binned bin_counts bin_mask bin_features bin_offsets bin_keys "
                                          "sort_buffer sort_counts")
N_BINS = 256  # bin numbers are uint8
RADIX = 256  # radix_sort's digits are bytes
KEY_BYTES = 8  # of an int64 key
INSERTION_MAX = 16  # _quicksort sorts at most this many keys by insertion
QUICKSORT_MAX = 256  # radix_sort sorts at most this many keys by _quicksort
HIST_BATCH = 16  # features whose histograms one pass over a node's rows fills


@njit(cache=True)
def make_scratch(n, n_features, n_classes, samples_dtype_example, binned=False):
    """Scratch arrays for a tree of n documents (counters: features visited and scanned at this node)."""
    bin_bits = np.arange(N_BINS).astype(np.float32).view(np.uint32)
    bin_keys = np.empty(N_BINS, dtype=np.int64)
    for b in range(N_BINS):  # sortable_keys of the float32 bin number (non-negative: sign bit set)
        bin_keys[b] = int64(bin_bits[b] | uint32(0x80000000))
    return SplitScratch(
        np.empty(n_features, dtype=np.int64), np.zeros(2, dtype=np.int64), np.empty(n, dtype=np.float32),
        np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.zeros(n_classes, dtype=np.int64),
        np.zeros(1, dtype=np.uint32), np.empty(n, dtype=samples_dtype_example.dtype),
        binned, np.zeros((HIST_BATCH, N_BINS * n_classes), dtype=np.int32),
        np.zeros((HIST_BATCH, N_BINS // 64), dtype=np.uint64), np.zeros(HIST_BATCH, dtype=np.int64),
        np.zeros(N_BINS + 1, dtype=np.int64), bin_keys,
        np.empty(n, dtype=np.int64), np.zeros((KEY_BYTES, RADIX), dtype=np.int64),
    )


@njit(cache=True)
def sortable_keys(values, payload, shift, keys):
    """keys[i] = order-preserving unsigned bits of float32 values[i] << shift | payload[i].

    Sorting the int64 keys sorts by value and carries the payload (a label or
    a position) along, in one cheap integer sort.
    """
    bits = values.view(np.uint32)
    for i in range(values.size):
        b = bits[i]
        if b & uint32(0x80000000):
            b = ~b
        else:
            b = b | uint32(0x80000000)
        keys[i] = (int64(b) << shift) | payload[i]


@njit(cache=True)
def key_value(key, shift, scratch_bits):
    """Invert sortable_keys for one key: the float32 value."""
    b = uint32(key >> shift)
    if b & uint32(0x80000000):
        b = b & uint32(0x7FFFFFFF)
    else:
        b = ~b
    scratch_bits[0] = b
    return scratch_bits.view(np.float32)[0]


@njit(cache=True)
def reset_feature_pool(feature_pool):
    for j in range(feature_pool.size):
        feature_pool[j] = j


@njit(cache=True)
def draw_feature(rng, feature_pool, visited):
    """One Fisher-Yates step: a feature not yet drawn at this node (features 0..visited-1 are drawn)."""
    r = visited + randint(rng, feature_pool.size - visited)
    feature = feature_pool[r]
    feature_pool[r] = feature_pool[visited]
    feature_pool[visited] = feature
    return feature


@njit(cache=True)
def midpoint_threshold(low, high):
    """scikit-learn's threshold between two consecutive distinct float32 values."""
    threshold = np.float64(low) / 2.0 + np.float64(high) / 2.0
    if threshold == high or threshold == np.inf or threshold == -np.inf:
        threshold = np.float64(low)
    return threshold


@njit(cache=True)
def gather_feature(Xt, feature, samples, start, end, values):
    """values[i] = X[samples[start + i], feature] (+0.0 folds -0.0 into 0.0); returns (min, max)."""
    lo = np.inf
    hi = -np.inf
    zero = np.float32(0.0)
    for i in range(end - start):
        v = Xt[feature, samples[start + i]] + zero
        values[i] = v
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    return lo, hi


@njit(cache=True)
def sort_keys(values, payload, shift, keys, scratch):
    """keys = sortable_keys(values, payload, shift), sorted: the values in order with their payloads.

    A radix sort (``radix_sort``) of the integer keys; when the payload ascends with the input (the listwise
    search's positions 0..n-1) the bytes that hold only payload bits are not sorted: a stable sort of the
    higher bytes leaves them in input order, which is their order.
    """
    sortable_keys(values, payload, shift, keys)
    ascending = True
    for i in range(1, payload.size):
        if payload[i] < payload[i - 1]:
            ascending = False
            break
    radix_sort(keys, scratch.sort_buffer, scratch.sort_counts, shift // 8 if ascending else 0, (32 + shift + 7) // 8)


@njit(cache=True, inline="always")
def _insertion_sort(keys, lo, hi):
    """Sort keys[lo:hi] ascending in place by insertion."""
    for i in range(lo + 1, hi):
        key = keys[i]
        j = i - 1
        while j >= lo and keys[j] > key:
            keys[j + 1] = keys[j]
            j -= 1
        keys[j + 1] = key


@njit(cache=True)
def _quicksort(keys, stack):
    """Sort int64 keys ascending in place: quicksort (median of three, Hoare's partition, the smaller part first
    so that ``stack`` needs 2 * 64 entries), insertion sort below ``INSERTION_MAX`` keys; the compares are
    inlined (numba's ``ndarray.sort`` calls a compare function per comparison)."""
    stack[0] = 0
    stack[1] = keys.size
    top = 2
    while top > 0:
        hi = stack[top - 1]
        lo = stack[top - 2]
        top -= 2
        while hi - lo > INSERTION_MAX:
            mid = (lo + hi) >> 1
            a = keys[lo]
            b = keys[mid]
            c = keys[hi - 1]
            if a > b:
                a, b = b, a
            if b > c:
                b = c
                if a > b:
                    b = a
            pivot = b
            i = lo - 1
            j = hi
            while True:
                i += 1
                while keys[i] < pivot:
                    i += 1
                j -= 1
                while keys[j] > pivot:
                    j -= 1
                if i >= j:
                    break
                keys[i], keys[j] = keys[j], keys[i]
            # keys[lo:j + 1] <= pivot <= keys[j + 1:hi]
            if j + 1 - lo < hi - (j + 1):
                stack[top] = j + 1
                stack[top + 1] = hi
                top += 2
                hi = j + 1
            else:
                stack[top] = lo
                stack[top + 1] = j + 1
                top += 2
                lo = j + 1
        _insertion_sort(keys, lo, hi)


@njit(cache=True)
def radix_sort(keys, buffer, counts, low_byte, high_byte):
    """Sort non-negative int64 keys below 2 ** (8 * high_byte) ascending, in place.

    Above ``QUICKSORT_MAX`` keys: least significant digit first over the bytes low_byte .. high_byte - 1, one
    stable counting pass per byte that is not the same in every key (the order of the keys in the bytes below
    low_byte is taken as their input order, which must be their order); at most that many, ``_quicksort`` (all
    bytes).  ``buffer`` holds at least keys.size int64, ``counts`` is (KEY_BYTES, RADIX) int64.  The keys are
    integers, so any correct sort gives this array: equal keys are indistinguishable (the trees do not depend
    on the algorithm; numba's ``ndarray.sort`` gave the same).
    """
    n = keys.size
    if n <= QUICKSORT_MAX:
        _quicksort(keys, counts[0, :130])
        return
    for d in range(low_byte, high_byte):
        for b in range(RADIX):
            counts[d, b] = 0
    for i in range(n):  # every byte's histogram in one pass
        key = keys[i]
        for d in range(low_byte, high_byte):
            counts[d, (key >> (8 * d)) & 255] += 1
    source = keys
    target = buffer[:n]
    passes = 0
    for d in range(low_byte, high_byte):
        if counts[d, (source[0] >> (8 * d)) & 255] == n:  # one digit: the pass would not move a key
            continue
        total = 0
        for b in range(RADIX):  # counts -> each digit's first slot
            c = counts[d, b]
            counts[d, b] = total
            total += c
        for i in range(n):
            key = source[i]
            b = (key >> (8 * d)) & 255
            target[counts[d, b]] = key
            counts[d, b] += 1
        source, target = target, source
        passes += 1
    if passes % 2 == 1:  # the sorted keys are in buffer
        for i in range(n):
            keys[i] = source[i]


@njit(cache=True)
def next_feature(Xt, samples, start, end, rng, scratch, max_features):
    """The next candidate feature of this node, its values gathered into scratch.values; -1 when done.

    Call ``start_node(scratch)`` before the node's first call.  Draws features without
    replacement until max_features non-constant ones were returned or all were visited.
    """
    n_features = Xt.shape[0]
    counters = scratch.counters
    values = scratch.values[: end - start]
    while counters[0] < n_features and counters[1] < max_features:
        feature = draw_feature(rng, scratch.feature_pool, counters[0])
        counters[0] += 1
        lo, hi = gather_feature(Xt, feature, samples, start, end, values)
        if lo == hi:
            continue
        counters[1] += 1
        return feature
    return -1


@njit(cache=True)
def start_node(scratch):
    reset_feature_pool(scratch.feature_pool)
    scratch.counters[0] = 0
    scratch.counters[1] = 0


@njit(cache=True)
def best_pointwise_split(Xt, labels, samples, start, end, node_counts, criterion, max_features, min_leaf, xlogx, rng,
                         scratch):
    """Best split of samples[start:end] over K random non-constant features by a pointwise criterion.

    Returns (feature, threshold, children_impurity_sum); feature = -1 if no valid split.
    """
    n = end - start
    node_labels = scratch.node_labels[:n]
    for i in range(n):
        node_labels[i] = labels[samples[start + i]]
    best_feature = -1
    best_threshold = 0.0
    best_value = np.inf
    node_keys = scratch.keys[:n]
    start_node(scratch)
    while True:
        feature = next_feature(Xt, samples, start, end, rng, scratch, max_features)
        if feature < 0:
            break
        sort_keys(scratch.values[:n], node_labels, LABEL_BITS, node_keys, scratch)
        n_left, value = scan_boundaries(criterion, node_keys, node_counts, min_leaf, xlogx, scratch.left_counts)
        if n_left > 0 and value < best_value:
            best_value = value
            best_feature = feature
            best_threshold = midpoint_threshold(
                key_value(node_keys[n_left - 1], LABEL_BITS, scratch.bits),
                key_value(node_keys[n_left], LABEL_BITS, scratch.bits),
            )
    return best_feature, best_threshold, best_value


@njit(cache=True)
def counting_sort_keys(values, payload, shift, scratch, keys):
    """``sort_keys`` for values that are bin numbers (``thresholds: hist``): a counting sort, O(n + bins).

    One pass counts each bin, one places every key at its bin's next slot in input order, so the keys are
    those ``sort_keys`` gives (value bits << shift | payload, ascending) when the payload ascends with the
    input (the listwise search's positions 0..n-1), without a comparison sort.
    """
    offsets = scratch.bin_offsets
    bin_keys = scratch.bin_keys
    for b in range(N_BINS + 1):
        offsets[b] = 0
    for i in range(values.size):
        offsets[np.int64(values[i]) + 1] += 1
    for b in range(N_BINS):
        offsets[b + 1] += offsets[b]
    for i in range(values.size):
        b = np.int64(values[i])
        keys[offsets[b]] = (bin_keys[b] << shift) | payload[i]
        offsets[b] += 1


@njit(cache=True, inline="always")
def _lowest_bin(mask, word):
    """(the lowest set bit's bin at or after 64-bit word ``word`` of ``mask``, its word); N_BINS if none."""
    while word < mask.size:
        if mask[word] != 0:
            return (word << 6) + trailing_zeros(mask[word]), word
        word += 1
    return N_BINS, word


@njit(cache=True)
def _hist_boundary(criterion, counts, mask, node_counts, n, min_leaf, xlogx, left_counts):
    """Best boundary between the non-empty bins of one feature's histogram at a node (a boundary after bin b
    puts the bins <= b left).  Returns (last bin on the left or -1 if no boundary is valid, children's summed
    impurity, number of non-empty bins).

    The non-empty bins are the set bits of ``mask`` (4 words), visited in order, so a node costs
    O(non-empty bins * classes) here whatever the range of its bins.  The children's impurity is the criterion's
    from class counts (``_criteria.counts_boundary_value``), as the exact scans define it: mse's
    sums of integer labels are exact, so its value is bit-identical to the exact scan's for the same partition;
    entropy's, |L| log|L| - sum_c xlogx(L_c) + |R| log|R| - sum_c xlogx(R_c), is summed afresh per boundary
    (the exact scan updates both sums document by document: equal up to rounding, so a tie between two
    boundaries can go the other way).  The first best boundary in bin order wins (strictly smaller), as in
    the exact scans.
    """
    n_classes = node_counts.size
    for c in range(n_classes):
        left_counts[c] = 0
    n_left = 0
    n_bins = 0
    best_bin = -1
    best_value = np.inf
    for word in range(mask.size):
        w = mask[word]
        while w != 0:
            b = (word << 6) + trailing_zeros(w)
            w &= w - uint64(1)
            n_bins += 1
            row = b * n_classes
            for c in range(n_classes):
                k = counts[row + c]
                left_counts[c] += k
                n_left += k
            n_right = n - n_left
            if n_left < min_leaf or n_right < min_leaf:
                continue
            value = counts_boundary_value(criterion, left_counts, node_counts, n_left, n_right, xlogx)
            if value < best_value:
                best_value = value
                best_bin = b
    return best_bin, best_value, n_bins


@njit(cache=True)
def best_pointwise_hist_split(Xt, Xn, yn, samples, start, end, node_counts, criterion, max_features, min_leaf,
                              xlogx, rng, scratch):
    """``best_pointwise_split`` on binned features (``thresholds: hist``), without a sort.

    ``Xt`` holds the bin numbers feature-major (n_features x n_docs); ``Xn`` and ``yn`` the tree's rows of bin
    numbers and their labels in the order of ``samples`` (kept so by ``partition_rows``: a node's rows are
    contiguous).  The drawn features' histograms of (bin, label) counts are filled in one pass over the
    node's rows (LightGBM's construction), up to ``HIST_BATCH`` features per pass, each marking its non-empty bins
    in a 256-bit mask; a scan over the marked bins in order values each boundary between them
    (``_hist_boundary``): O(n + non-empty bins * classes) per feature against the exact search's O(n log n), and
    nothing proportional to the 256 bins at a small node (histograms are cleared through the masks).  The pass
    reads whichever layout touches fewer cache lines: feature-major when the node's rows are dense in the data
    (n * n_features > n_docs * features in the pass; a feature's bins of the node are nearly contiguous),
    the node's contiguous rows of ``Xn`` otherwise (where feature-major reads one scattered cache line per feature
    and document: at the deep nodes those reads' latency is what a split search spends its time on).  Both give
    the same histograms.

    The features are drawn as ``next_feature`` draws them: the same generator calls, a round draws as many as
    are still missing towards K and a feature whose node rows all fall in one bin is constant and does not count
    (the exact search's rule), so the draws, the features scanned and, in draw order with the first strictly
    best winning, the split are those of the exact search on the binned data, up to rounding in entropy ties.
    The threshold is the midpoint between the left child's largest bin and the right child's smallest (what the
    exact search on bin numbers gives; the estimator maps it to the bin's cut).

    No sibling subtraction: it pays when a node's histograms are derived from its parent's and its
    sibling's, which needs the same features at all three.  RF draws K of M features per node afresh, so a
    child shares a given feature with its parent with probability about K/M (8 of 136 on MSLR) and with its
    sibling as rarely; keeping every node's histograms for that would cost memory and bookkeeping for a few
    percent of the passes.  Returns (feature, threshold, children_impurity_sum); feature = -1 if no valid split.
    """
    n = end - start
    n_classes = node_counts.size
    node_labels = yn[start:end]
    counts = scratch.bin_counts
    masks = scratch.bin_mask
    batch = scratch.bin_features
    counters = scratch.counters
    n_features = Xt.shape[0]
    n_docs = Xt.shape[1]
    best_feature = -1
    best_threshold = 0.0
    best_value = np.inf
    one = uint64(1)
    start_node(scratch)
    while counters[0] < n_features and counters[1] < max_features:
        m = 0
        while m < batch.size and m < max_features - counters[1] and counters[0] < n_features:
            batch[m] = draw_feature(rng, scratch.feature_pool, counters[0])
            counters[0] += 1
            m += 1
        if n * n_features > n_docs * m:  # dense rows: feature by feature
            for j in range(m):
                row = Xt[batch[j]]
                hist = counts[j]
                mask = masks[j]
                for i in range(n):
                    b = np.int64(row[samples[start + i]])
                    hist[b * n_classes + node_labels[i]] += 1
                    mask[b >> 6] |= one << uint64(b & 63)
        else:  # scattered rows: document by document, all features of the pass
            for i in range(n):
                doc = Xn[start + i]
                y = node_labels[i]
                for j in range(m):
                    b = np.int64(doc[batch[j]])
                    counts[j, b * n_classes + y] += 1
                    masks[j, b >> 6] |= one << uint64(b & 63)
        for j in range(m):
            hist = counts[j]
            mask = masks[j]
            b_left, value, n_bins = _hist_boundary(criterion, hist, mask, node_counts, n, min_leaf, xlogx,
                                                   scratch.left_counts)
            if n_bins > 1 and counters[1] < max_features:
                counters[1] += 1
                if b_left >= 0 and value < best_value:
                    after = b_left + 1  # the right child's smallest bin: the next set bit
                    word = after >> 6
                    w = mask[word] & ~((one << uint64(after & 63)) - one)
                    if w != 0:
                        b_right = (word << 6) + trailing_zeros(w)
                    else:
                        b_right, word = _lowest_bin(mask, word + 1)
                    best_value = value
                    best_feature = batch[j]
                    best_threshold = midpoint_threshold(np.float32(b_left), np.float32(b_right))
            for word in range(mask.size):  # leave the histogram all zero
                w = mask[word]
                while w != 0:
                    b = (word << 6) + trailing_zeros(w)
                    w &= w - one
                    for c in range(n_classes):
                        hist[b * n_classes + c] = 0
                mask[word] = 0
    return best_feature, best_threshold, best_value


@njit(cache=True)
def random_split(Xt, samples, start, end, rng, scratch):
    """RF-rand: a random non-constant feature, threshold ~ U(min, max) at the node. Returns (feature, threshold)."""
    n_features = Xt.shape[0]
    reset_feature_pool(scratch.feature_pool)
    values = scratch.values[: end - start]
    visited = 0
    while visited < n_features:
        feature = draw_feature(rng, scratch.feature_pool, visited)
        visited += 1
        lo, hi = gather_feature(Xt, feature, samples, start, end, values)
        if lo == hi:
            continue
        threshold = np.float64(lo) + uniform(rng) * (np.float64(hi) - np.float64(lo))
        if threshold >= hi:
            threshold = np.float64(lo)
        return feature, threshold
    return -1, 0.0


@njit(cache=True)
def partition_samples(Xt, feature, threshold, samples, start, end, buffer):
    """Stable partition of samples[start:end]: x <= threshold first. Returns the first right index."""
    n_left = 0
    n_right = 0
    for i in range(start, end):
        s = samples[i]
        if Xt[feature, s] <= threshold:
            samples[start + n_left] = s
            n_left += 1
        else:
            buffer[n_right] = s
            n_right += 1
    for i in range(n_right):
        samples[start + n_left + i] = buffer[i]
    return start + n_left


@njit(cache=True)
def partition_rows(Xn, yn, feature, threshold, samples, start, end, buffer, row_buffer, label_buffer):
    """``partition_samples`` for a tree whose rows of bin numbers and labels (``Xn``, ``yn``) follow ``samples``
    (``thresholds: hist``): the same stable partition of samples[start:end], the rows and labels moved with it,
    decided from the node's contiguous rows.  Returns the first right index."""
    n_left = 0
    n_right = 0
    width = Xn.shape[1]
    for i in range(start, end):
        if Xn[i, feature] <= threshold:
            dst = start + n_left
            if dst != i:
                samples[dst] = samples[i]
                yn[dst] = yn[i]
                for k in range(width):
                    Xn[dst, k] = Xn[i, k]
            n_left += 1
        else:
            buffer[n_right] = samples[i]
            label_buffer[n_right] = yn[i]
            for k in range(width):
                row_buffer[n_right, k] = Xn[i, k]
            n_right += 1
    for i in range(n_right):
        dst = start + n_left + i
        samples[dst] = buffer[i]
        yn[dst] = label_buffer[i]
        for k in range(width):
            Xn[dst, k] = row_buffer[i, k]
    return start + n_left
