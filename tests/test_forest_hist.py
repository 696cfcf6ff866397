"""thresholds: hist (issue 30): the binning, the histogram split search against a brute-force reference, the
listwise counting sort against the comparison sort, whole trees against the exact search run on the bin numbers,
determinism, RF-rand.

Exact trees are covered by tests/test_forest_identity.py (bit-identical to the recorded references)."""

from __future__ import annotations

import numpy as np
import pytest

from ltrbv.data.from_arrays import ranking_data
from ltrbv.forest import RankingForest
from ltrbv.forest._bins import histogram_bins_fast
from ltrbv.forest._criteria import ENTROPY, MSE
from ltrbv.forest._entropy import LABEL_BITS, xlogx_table
from ltrbv.forest._listwise import POSITION_BITS
from ltrbv.forest._rng import seed_state
from ltrbv.forest._splitter import (best_pointwise_hist_split, best_pointwise_split, counting_sort_keys, make_scratch,
                                    midpoint_threshold, sort_keys, sortable_keys)
from ltrbv.forest.forest import MAX_BINS, histogram_bins

N_CLASSES = 5


# -- binning -------------------------------------------------------------------------------------------------------


def numpy_bins(Xt, max_bins):
    """The slow reference: np.unique per feature, quantile cuts, np.searchsorted (the implementation before issue 30)."""
    binned = np.empty(Xt.shape, dtype=np.int64)
    cuts = []
    for f in range(Xt.shape[0]):
        values = Xt[f]
        distinct, counts = np.unique(values, return_counts=True)
        if distinct.size > max_bins:
            ends = np.cumsum(counts)
            targets = np.arange(1, max_bins) * (values.size / max_bins)
            keep = np.unique(np.searchsorted(ends, targets, side="left"))
            keep = keep[keep < distinct.size - 1]
        else:
            keep = np.arange(distinct.size - 1)
        feature_cuts = np.array([midpoint_threshold(distinct[k], distinct[k + 1]) for k in keep], dtype=np.float64)
        cuts.append(feature_cuts)
        binned[f] = np.searchsorted(feature_cuts, values.astype(np.float64), side="left")
    return binned, cuts


def test_binning_is_the_numpy_reference_in_uint8():
    rng = np.random.default_rng(3)
    n = 3000
    Xt = np.vstack([
        rng.normal(size=n), np.round(rng.normal(size=n) * 4), rng.exponential(size=n) ** 4, np.zeros(n),
        np.where(rng.random(n) < 0.9, 0.0, rng.normal(size=n)),  # sparse: one big bin
        np.r_[np.full(n // 2, -0.0), np.zeros(n - n // 2)],  # -0.0 and 0.0 are one value
        rng.integers(0, 300, size=n), rng.integers(0, 255, size=n), rng.integers(0, 256, size=n),
    ]).astype(np.float32)
    binned, cuts = histogram_bins(Xt, MAX_BINS)
    assert binned.dtype == np.uint8 and binned.flags.c_contiguous and binned.shape == Xt.shape
    ref_binned, ref_cuts = numpy_bins(Xt, MAX_BINS)
    assert np.array_equal(binned, ref_binned)
    for f in range(Xt.shape[0]):
        assert np.array_equal(cuts[f], ref_cuts[f])
        for b in range(len(cuts[f])):  # x <= cuts[b] exactly when bin(x) <= b
            assert np.array_equal(Xt[f] <= cuts[f][b], binned[f] <= b)
    assert len(cuts[3]) == 0 and len(cuts[5]) == 0  # constant features: one bin
    for max_bins in (2, 7, 256):
        binned, cuts = histogram_bins_fast(Xt, max_bins)
        ref_binned, ref_cuts = numpy_bins(Xt, max_bins)
        assert np.array_equal(binned, ref_binned) and all(np.array_equal(a, b) for a, b in zip(cuts, ref_cuts))


# -- the pointwise histogram split against brute force ------------------------------------------------------------


def brute_force_split(bins, y, criterion, min_leaf):
    """Every feature, every boundary between the node's non-empty bins: (children's impurity, feature, threshold in
    bin units) of each valid boundary, impurity as the exact scans define it (entropy: |S| H(S) summed; mse: SSE)."""
    n = y.size
    xlogx = lambda k: k * np.log(k) if k > 0 else 0.0  # noqa: E731
    node = np.bincount(y, minlength=N_CLASSES)
    out = []
    for f in range(bins.shape[0]):
        present = np.unique(bins[f])
        for lo, hi in zip(present[:-1], present[1:]):
            left = bins[f] <= lo
            n_left = int(left.sum())
            if n_left < min_leaf or n - n_left < min_leaf:
                continue
            if criterion == ENTROPY:
                left_c = np.bincount(y[left], minlength=N_CLASSES)
                left_terms = sum(xlogx(int(k)) for k in left_c)
                right_terms = sum(xlogx(int(k)) for k in node - left_c)
                value = xlogx(n_left) - left_terms + xlogx(n - n_left) - right_terms
            else:
                yl, yr = y[left].astype(float), y[~left].astype(float)
                value = ((yl ** 2).sum() - yl.sum() ** 2 / yl.size) + ((yr ** 2).sum() - yr.sum() ** 2 / yr.size)
            out.append((value, f, midpoint_threshold(np.float32(lo), np.float32(hi))))
    return out


def node_problem(seed, n_features=9, n_docs=400, node=120, n_bins=256):
    """Random bins (a constant and a two-valued feature among them) and labels; the node: ``node`` rows at random."""
    rng = np.random.default_rng(seed)
    bins = rng.integers(0, n_bins, size=(n_features, n_docs))
    bins[1] = rng.integers(0, 6, size=n_docs) * 40  # few, wide-apart bins
    bins[2] = 17  # constant everywhere
    bins[3] = np.where(rng.random(n_docs) < 0.5, 3, 200)
    Xt = np.ascontiguousarray(bins.astype(np.uint8))
    labels = np.clip(np.round(bins[0] / 64 + rng.normal(scale=1.0, size=n_docs)), 0, N_CLASSES - 1).astype(np.int64)
    samples = np.sort(rng.choice(n_docs, size=node, replace=False)).astype(np.int64)
    return Xt, labels, samples


def hist_split(Xt, labels, samples, start, end, criterion, max_features, min_leaf, seed):
    n_docs = Xt.shape[1]
    scratch = make_scratch(n_docs, Xt.shape[0], N_CLASSES, samples[:1], True)
    Xn = np.ascontiguousarray(Xt.T[samples])  # the tree's rows in the order of samples
    yn = labels[samples].copy()
    counts = np.bincount(labels[samples[start:end]], minlength=N_CLASSES).astype(np.int64)
    rng = seed_state(seed)
    out = best_pointwise_hist_split(Xt, Xn, yn, samples, start, end, counts, criterion, max_features, min_leaf,
                                    xlogx_table(n_docs), rng, scratch)
    return out, rng, scratch.counters.copy()


@pytest.mark.parametrize("criterion", [ENTROPY, MSE])
@pytest.mark.parametrize("min_leaf", [1, 7])
@pytest.mark.parametrize("node", [40, 400])  # rows scattered among 400 (document-major pass) or all (feature-major)
@pytest.mark.parametrize("seed", range(6))
def test_hist_split_is_the_brute_force_best(criterion, min_leaf, node, seed):
    Xt, labels, samples = node_problem(seed, node=node)
    start, end = 0, samples.size
    if node == 40:  # a node in the middle of the tree's samples
        extra = np.setdiff1d(np.arange(Xt.shape[1]), samples)[:30]
        samples = np.concatenate([extra[:10], samples, extra[10:]]).astype(np.int64)
        start, end = 10, 10 + node
    (feature, threshold, value), _, _ = hist_split(Xt, labels, samples, start, end, criterion, Xt.shape[0], min_leaf,
                                                   seed)
    candidates = brute_force_split(Xt[:, samples[start:end]], labels[samples[start:end]], criterion, min_leaf)
    if not candidates:
        assert feature == -1
        return
    best = min(c[0] for c in candidates)
    assert value == pytest.approx(best, rel=1e-12, abs=1e-9)
    ties = {(f, t) for v, f, t in candidates if abs(v - best) <= 1e-9 * max(1.0, abs(best))}
    assert (feature, threshold) in ties
    assert feature != 2  # the constant feature never splits


@pytest.mark.parametrize("criterion", [ENTROPY, MSE])
@pytest.mark.parametrize("min_leaf", [1, 3, 5])
def test_hist_split_respects_min_samples_leaf(criterion, min_leaf):
    """The best boundary of an unrestricted search isolates two documents; with min_leaf > 2 it is refused."""
    n = 60
    Xt = np.vstack([np.arange(n), np.arange(n)[::-1] // 2]).astype(np.uint8)
    labels = np.zeros(n, dtype=np.int64)
    labels[-2:] = 4
    labels[5:25:3] = 1
    samples = np.arange(n, dtype=np.int64)
    (feature, threshold, value), _, _ = hist_split(Xt, labels, samples, 0, n, criterion, 2, min_leaf, 0)
    candidates = brute_force_split(Xt, labels, criterion, min_leaf)
    best = min(c[0] for c in candidates)
    assert value == pytest.approx(best, rel=1e-12, abs=1e-9)
    n_left = int((Xt[feature] <= threshold).sum())
    assert min(n_left, n - n_left) >= min_leaf
    assert (min(n_left, n - n_left) == 2) == (min_leaf <= 2)


@pytest.mark.parametrize("criterion", [ENTROPY, MSE])
@pytest.mark.parametrize("seed", range(8))
def test_hist_split_draws_and_chooses_as_the_exact_search_on_bin_numbers(criterion, seed):
    """K < M: the same generator calls and features scanned as the exact search on the binned values (a constant
    feature does not count towards K), the same split (mse: bit-identical value; entropy: equal up to rounding)."""
    Xt, labels, samples = node_problem(seed + 100, node=150)
    n = samples.size
    (feature, threshold, value), rng, counters = hist_split(Xt, labels, samples, 0, n, criterion, 3, 1, seed)
    Xf = np.ascontiguousarray(Xt.astype(np.float32))
    scratch = make_scratch(Xt.shape[1], Xt.shape[0], N_CLASSES, samples[:1], False)
    counts = np.bincount(labels[samples], minlength=N_CLASSES).astype(np.int64)
    exact_rng = seed_state(seed)
    e_feature, e_threshold, e_value = best_pointwise_split(Xf, labels, samples.copy(), 0, n, counts, criterion, 3, 1,
                                                           xlogx_table(Xt.shape[1]), exact_rng, scratch)
    assert np.array_equal(rng, exact_rng) and np.array_equal(counters, scratch.counters)
    assert (feature, threshold) == (e_feature, e_threshold)
    if criterion == MSE:
        assert value == e_value
    else:
        assert value == pytest.approx(e_value, rel=1e-12)


def test_counting_sort_gives_the_comparison_sorts_keys():
    rng = np.random.default_rng(0)
    for n, n_bins in ((1, 1), (50, 3), (1000, 256), (5000, 40)):
        values = rng.integers(0, n_bins, size=n).astype(np.float32)
        positions = np.arange(n, dtype=np.int64)
        expected = np.empty(n, dtype=np.int64)
        sortable_keys(values, positions, POSITION_BITS, expected)
        expected = np.sort(expected)  # numpy's sort as the oracle
        got = np.empty(n, dtype=np.int64)
        counting_sort_keys(values, positions, POSITION_BITS, make_scratch(n, 1, 2, positions[:1], True), got)
        assert np.array_equal(got, expected)
        labels = rng.integers(0, N_CLASSES, size=n).astype(np.int64)  # a payload that does not ascend: not the same
        if n > 1000:
            sort_keys(values, labels, LABEL_BITS, expected, make_scratch(n, 1, 2, positions[:1], True))
            counting_sort_keys(values, labels, LABEL_BITS, make_scratch(n, 1, 2, positions[:1], True), got)
            assert not np.array_equal(got, expected)


# -- whole trees ---------------------------------------------------------------------------------------------------


def letor_like(seed, n_queries=40, per_query=15, n_features=7):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), per_query)
    X = rng.normal(size=(qid.size, n_features))
    X[:, 2] = np.round(X[:, 2] * 3)
    X[:, 3] = np.where(rng.random(qid.size) < 0.8, 0.0, rng.exponential(size=qid.size))
    score = X[:, 0] + 0.5 * X[:, 1] - 0.3 * X[:, 3]
    labels = np.clip(np.round(score + rng.normal(scale=0.7, size=qid.size) + 1), 0, 4).astype(np.int64)
    return qid, labels, X.astype(np.float32)


@pytest.mark.parametrize("params", [
    dict(splitting="point", criterion="mse"),
    dict(splitting="list"),
    dict(splitting="list", listwise_objective="err"),
    dict(splitting="hybrid", criterion="mse", listwise_levels=3),
])
def test_hist_trees_are_the_exact_trees_grown_on_the_bin_numbers(params):
    """With the bins as the feature values, the exact search sees the hist search's candidates: the same trees
    (features, partitions, leaf scores); the hist thresholds are the cuts above the left children's bins."""
    qid, labels, X = letor_like(1)  # 600 documents: more than 255 distinct values in most features
    binned, cuts = histogram_bins(np.ascontiguousarray(X.T), MAX_BINS)
    assert max(len(c) for c in cuts) >= 200
    Xbins = np.ascontiguousarray(binned.T.astype(np.float32))
    common = dict(n_estimators=3, random_state=4, subsample=0.7, **params)
    hist = RankingForest(thresholds="hist", **common).fit(ranking_data(qid, labels, X))
    exact = RankingForest(**common).fit(ranking_data(qid, labels, Xbins))
    for a, b in zip(hist.trees_, exact.trees_):
        assert np.array_equal(a.feature, b.feature) and np.array_equal(a.n_samples, b.n_samples)
        assert np.array_equal(a.value, b.value) and np.array_equal(a.gain, b.gain)
        for node in np.flatnonzero(a.feature >= 0):
            assert a.threshold[node] in cuts[a.feature[node]]


def test_hist_entropy_trees_part_from_the_exact_ones_only_at_ties():
    """Entropy sums its histogram's terms afresh per boundary where the exact scan updates them document by
    document: the trees are the exact search's on the bin numbers until two boundaries tie (gains equal to
    rounding), where either may win."""
    qid, labels, X = letor_like(2)
    binned, _ = histogram_bins(np.ascontiguousarray(X.T), MAX_BINS)
    Xbins = np.ascontiguousarray(binned.T.astype(np.float32))
    common = dict(splitting="point", criterion="entropy", n_estimators=4, random_state=1)
    hist = RankingForest(thresholds="hist", **common).fit(ranking_data(qid, labels, X))
    exact = RankingForest(**common).fit(ranking_data(qid, labels, Xbins))
    for a, b in zip(hist.trees_, exact.trees_):
        m = min(a.feature.size, b.feature.size)
        differ = np.flatnonzero((a.feature[:m] != b.feature[:m]) | (a.n_samples[:m] != b.n_samples[:m]))
        first = differ[0] if differ.size else m
        assert first > 0
        assert np.allclose(a.gain[:first], b.gain[:first], rtol=1e-12, atol=1e-15)
        if differ.size:  # the parent of the first differing node split at a tie
            parent = int(np.flatnonzero((a.left == first) | (a.right == first))[0])
            assert a.gain[parent] == pytest.approx(b.gain[parent], rel=1e-12)


@pytest.mark.parametrize("splitting", ["point", "list", "hybrid", "rand"])
def test_hist_forests_are_deterministic_at_any_thread_count(splitting):
    qid, labels, X = letor_like(3)
    data = ranking_data(qid, labels, X)
    common = dict(splitting=splitting, thresholds="hist", n_estimators=6, random_state=9, listwise_levels=2)
    one = RankingForest(n_threads=1, **common).fit(data).predict(data)
    again = RankingForest(n_threads=1, **common).fit(data).predict(data)
    two = RankingForest(n_threads=2, **common).fit(data).predict(data)
    other = RankingForest(n_threads=1, **{**common, "random_state": 10}).fit(data).predict(data)
    assert np.array_equal(one, again) and np.array_equal(one, two)
    assert not np.array_equal(one, other)


def test_hist_rand_splits_at_cuts():
    """RF-rand with hist: a threshold uniform between the node's smallest and largest bin number, which the
    estimator maps to the cut above the left child's largest bin; every split separates the node's rows."""
    qid, labels, X = letor_like(4)
    data = ranking_data(qid, labels, X)
    forest = RankingForest(splitting="rand", thresholds="hist", n_estimators=3, random_state=2).fit(data)
    _, cuts = histogram_bins(np.ascontiguousarray(X.T), MAX_BINS)
    for tree in forest.trees_:
        split = np.flatnonzero(tree.feature >= 0)
        assert split.size > 10
        for node in split:
            assert tree.threshold[node] in cuts[tree.feature[node]]
            assert 0 < tree.n_samples[tree.left[node]] < tree.n_samples[node]
    assert np.all(np.isfinite(forest.predict(data)))
