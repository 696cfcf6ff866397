"""RankingForest refuses parameter values that would silently grow something else ("no silent garbage")."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ltrbv.forest import RankingForest


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("n_estimators", 0), ("n_estimators", -5), ("n_estimators", 10.5), ("n_estimators", "10"),
        ("n_estimators", True), ("n_estimators", math.nan),
        ("subsample", math.nan), ("subsample", 0.0), ("subsample", 1.5), ("subsample", -0.1), ("subsample", "0.5"),
        ("max_depth", 0), ("max_depth", -1), ("max_depth", 2.5),
        ("truncation", 0), ("truncation", -3), ("truncation", 1.5),
        ("discount_power", 0.0), ("discount_power", -1.0), ("discount_power", math.nan), ("discount_power", math.inf),
        ("max_features", 0), ("max_features", -2), ("max_features", 0.0), ("max_features", 1.5),
        ("max_features", math.nan), ("max_features", "sqrt"),
        ("min_samples_leaf", 0), ("min_samples_leaf", -1), ("min_samples_leaf", 1.5),
        ("min_samples_split", 1), ("min_samples_split", 0), ("min_samples_split", 2.5),
        ("listwise_levels", -1), ("listwise_levels", 1.5),
        ("discount", "log10"), ("criterion", "gini"), ("splitting", "lambda"),
        ("listwise_objective", "ap"), ("listwise_objective", 1), ("listwise_objective", None),
        ("thresholds", "histogram"), ("thresholds", 255), ("thresholds", None),
        ("exploration", "bfs"), ("exploration", "breadth_first"), ("exploration", 0), ("exploration", None),
    ],
)
def test_invalid_parameter_is_refused_by_name(name, value):
    with pytest.raises(ValueError, match=name):
        RankingForest(**{name: value})._validate_params()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("n_estimators", 1), ("n_estimators", np.int64(7)),
        ("max_depth", None), ("max_depth", 1), ("truncation", None), ("truncation", 10),
        ("max_features", None), ("max_features", 3), ("max_features", 0.5), ("max_features", 1.0),
        ("max_features", np.float32(0.5)), ("min_samples_leaf", 1), ("min_samples_split", 2), ("subsample", 1.0),
        ("subsample", 1), ("discount_power", 0.5), ("keep_trees", np.bool_(False)),
    ],
)
def test_valid_parameter_is_kept(name, value):
    forest = RankingForest(**{name: value})
    assert getattr(forest, name) is value  # __init__ stores it unchanged (scikit-learn's convention)
    forest._validate_params()  # fit's check changes nothing either
    assert getattr(forest, name) is value


@pytest.mark.parametrize("value", [10.0, 500.0, np.float64(3.0)])
def test_an_integral_float_is_not_an_integer(value):
    """One integer rule for every learner (ltrbv.checks): YAML gives 500.0 only if the user wrote it so, and
    LambdaMART refuses it; the forest used to round it to 500 silently."""
    with pytest.raises(ValueError, match=r"^n_estimators must be an integer >= 1, got"):
        RankingForest(n_estimators=value)._validate_params()


def test_fractional_max_features_is_a_share_of_the_features():
    assert RankingForest(max_features=0.5)._k(46) == 23
    assert RankingForest(max_features=1.0)._k(46) == 46
    assert RankingForest(max_features=0.01)._k(46) == 1
    assert RankingForest(max_features=100)._k(46) == 46
    assert RankingForest(max_features=np.float32(0.5))._k(46) == 23  # a numpy float is a share too, not 0 features
    assert RankingForest(max_features=np.int64(3))._k(46) == 3


@pytest.mark.parametrize(("name", "value"), [("n_estimators", 0), ("listwise_objective", "ap"),
                                             ("thresholds", "histogram"), ("thresholds", -1),
                                             ("exploration", "most-relevant-first")])
def test_workflow_validation_reports_the_parameter(name, value):
    """The workflow builds each learner once to validate a config, before any job; the message names the key."""
    from ltrbv.workflow.validation import learner_problems

    problems = learner_problems({"learners": {"rf": {"kind": "random_forest", "params": {name: value}}}})
    assert len(problems) == 1 and "learners.rf" in problems[0] and name in problems[0], problems


def test_an_unregistered_criterion_code_raises_instead_of_falling_back():
    """The compiled dispatch has no silent default: a code outside the registry is an error."""
    from ltrbv.forest import _criteria

    keys = np.sort(np.array([0 << 6 | 1, 1 << 6 | 0, 2 << 6 | 1], dtype=np.int64))
    counts = np.array([1, 2], dtype=np.int64)
    xlogx = _criteria.xlogx_table(3)
    scratch = np.zeros(2, dtype=np.int64)
    for name, code in _criteria.POINTWISE.items():
        n_left, _ = _criteria.scan_boundaries(code, keys, counts, 1, xlogx, scratch)
        assert n_left in (1, 2), name
    unknown = max(_criteria.POINTWISE.values()) + 1
    with pytest.raises(ValueError, match="unknown pointwise criterion"):
        _criteria.scan_boundaries(unknown, keys, counts, 1, xlogx, scratch)
    with pytest.raises(ValueError, match="unknown pointwise criterion"):
        _criteria.node_impurity_sum(unknown, counts, 3, xlogx, 2.0, 2.0)
    with pytest.raises(ValueError, match="gini"):
        _criteria.pointwise_code("gini")


def test_keep_trees_false_keeps_no_tree_and_predicts_the_same():
    """keep_trees=False keeps only the accumulated predictions (no tree, not even a leaf summary)."""
    from ltrbv.data.from_arrays import ranking_data

    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(30), 8)
    X = rng.normal(size=(qid.size, 5)).astype(np.float32)
    labels = np.clip(np.round(X[:, 0] + rng.normal(scale=0.5, size=qid.size)), 0, 2).astype(np.int64)
    data = ranking_data(qid, labels, X)
    kept = RankingForest(n_estimators=4, random_state=3).fit(data, predict_on=(data,))
    lean = RankingForest(n_estimators=4, random_state=3, keep_trees=False).fit(data, predict_on=(data,))
    assert len(kept.trees_) == 4 and lean.trees_ == []
    assert np.array_equal(kept.predictions_[0], lean.predictions_[0])
    assert np.array_equal(kept.predict(data), lean.predictions_[0])
    with pytest.raises(ValueError, match="keep_trees=False"):
        lean.predict(data)


@pytest.mark.parametrize("splitting", ["point", "list", "hybrid"])
def test_hist_thresholds_grow_the_exact_partitions_when_features_have_few_values(splitting):
    """thresholds="hist" with at most 255 distinct values per feature: the same splits of the training
    documents as the exact search (same features, sizes, leaf scores); thresholds at the bin cuts.  Pointwise
    splits by mse, whose histogram sums are exact (entropy's are equal up to rounding, so a tie can go the other
    way: tests/test_forest_hist.py)."""
    from ltrbv.data.from_arrays import ranking_data

    rng = np.random.default_rng(5)
    qid = np.repeat(np.arange(50), 12)
    X = np.round(rng.normal(size=(qid.size, 6)) * 8) / 8  # about 50 distinct values per feature
    labels = np.clip(np.round(X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.6, size=qid.size)), 0, 2).astype(np.int64)
    data = ranking_data(qid, labels, X.astype(np.float32))
    exact = RankingForest(splitting=splitting, criterion="mse", listwise_levels=2, n_estimators=3,
                          random_state=2).fit(data)
    hist = RankingForest(splitting=splitting, criterion="mse", listwise_levels=2, n_estimators=3, random_state=2,
                         thresholds="hist").fit(data)
    for a, b in zip(exact.trees_, hist.trees_):
        assert np.array_equal(a.feature, b.feature) and np.array_equal(a.n_samples, b.n_samples)
        assert np.array_equal(a.value, b.value)
        split = a.feature >= 0
        assert np.all(b.threshold[split] <= a.threshold[split])  # the cut above the left child's largest value


def test_hist_thresholds_use_at_most_255_bins_per_feature():
    from ltrbv.forest.forest import MAX_BINS, histogram_bins

    rng = np.random.default_rng(0)
    Xt = np.vstack([rng.normal(size=5000), np.round(rng.normal(size=5000)), rng.exponential(size=5000) ** 3])
    Xt = Xt.astype(np.float32)
    binned, cuts = histogram_bins(Xt, MAX_BINS)
    for f in range(Xt.shape[0]):
        assert len(cuts[f]) + 1 <= MAX_BINS and np.all(np.diff(cuts[f]) > 0)
        assert np.array_equal(binned[f], np.searchsorted(cuts[f], Xt[f].astype(np.float64), side="left"))
        assert binned.dtype == np.uint8
        for b in range(len(cuts[f])):  # x <= cuts[b] exactly when bin(x) <= b
            assert np.array_equal(Xt[f] <= cuts[f][b], binned[f] <= b)
    counts = np.bincount(binned[0].astype(int))
    assert counts.max() < 3 * 5000 / MAX_BINS  # roughly equal-count bins for a continuous feature
    with pytest.raises(ValueError, match="thresholds"):
        RankingForest(thresholds="histogram")._validate_params()
