"""RF-list with the expected-ERR objective: every split against a brute-force search over all candidates.

The oracle is ltrbv.metrics' ERR with ties="expected" (exact expected ERR over all orders of tied
documents, itself tested against permutations), with R = (2^l - 1) / 2^g for g the largest training
label, the convention the forest's ERR criterion uses.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltrbv.data.ranking_data import RankingData
from ltrbv.data.synthetic import SyntheticSpec, generate_queries
from ltrbv.forest import RankingForest
from ltrbv.metrics import evaluate
from ltrbv.metrics.conventions import get_convention


def small_problem(seed: int, n_queries: int, n_features: int, n_values: int, max_label: int) -> RankingData:
    """Up to ~60 documents, features with few distinct values (many ties), labels 0..max_label."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, max(3, 60 // n_queries) + 1, size=n_queries)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    n = int(offsets[-1])
    return RankingData(X=rng.integers(0, n_values, size=(n, n_features)).astype(np.float32),
                       labels=rng.integers(0, max_label + 1, size=n).astype(np.int8), query_offsets=offsets,
                       qids=np.array([f"q{i}" for i in range(n_queries)]), line_numbers=np.arange(1, n + 1))


def synthetic(n_queries: int, seed: int) -> RankingData:
    spec = dataclasses.replace(SyntheticSpec(), n_queries=n_queries, docs_per_query=12.0, max_docs=40, n_features=10,
                               n_informative=6, n_query_level=1, seed=seed)
    q = generate_queries(spec)
    offsets = np.concatenate(([0], np.cumsum(q.query_sizes))).astype(np.int64)
    return RankingData(X=q.X, labels=q.labels, query_offsets=offsets, qids=np.arange(n_queries).astype(str),
                       line_numbers=np.arange(1, offsets[-1] + 1))


def mean_expected_err(scores: np.ndarray, data: RankingData) -> float:
    convention = dataclasses.replace(get_convention("standard"), max_grade=max(1, int(data.labels.max())))
    values = evaluate(scores, data.labels, data.query_offsets, ["err"], convention=convention, ties="expected")
    return float(np.mean(values["err"]))


def leaf_of(tree, X: np.ndarray, n_split: int) -> np.ndarray:
    """The node each row reaches when only the first n_split nodes (breadth-first order) may be split."""
    node = np.zeros(X.shape[0], dtype=np.int64)
    for split in range(min(n_split, tree.feature.size)):
        if tree.feature[split] < 0:
            continue
        here = node == split
        goes_left = X[:, tree.feature[split]] <= tree.threshold[split]
        node[here & goes_left] = tree.left[split]
        node[here & ~goes_left] = tree.right[split]
    return node


def candidate_values(data: RankingData, tree, node: int):
    """(mean expected ERR before splitting ``node``, the best over every feature and midpoint after it)."""
    scores = tree.value[leaf_of(tree, data.X, node)]
    in_node = leaf_of(tree, data.X, node) == node
    current = mean_expected_err(scores, data)
    best = current
    for feature in range(data.n_features):
        column = data.X[:, feature]
        distinct = np.unique(column[in_node]).astype(np.float64)
        for threshold in distinct[:-1] / 2.0 + distinct[1:] / 2.0:
            left = in_node & (column <= threshold)
            right = in_node & ~left
            after = scores.copy()
            after[left] = data.labels[left].mean()
            after[right] = data.labels[right].mean()
            best = max(best, mean_expected_err(after, data))
    return current, best


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10_000), n_queries=st.integers(1, 10), n_features=st.integers(1, 3),
       n_values=st.sampled_from([2, 4, 30]), max_label=st.sampled_from([1, 2, 4]))
def test_every_err_split_is_the_brute_force_argmax(seed, n_queries, n_features, n_values, max_label):
    data = small_problem(seed, n_queries, n_features, n_values, max_label)
    tree = RankingForest(splitting="list", listwise_objective="err", n_estimators=1, subsample=1.0,
                         max_features=n_features, random_state=seed).fit(data).trees_[0]
    for node in range(tree.feature.size):
        if tree.n_samples[node] < 2:
            continue
        current, best = candidate_values(data, tree, node)
        if tree.feature[node] < 0:  # a leaf: no split raises the expected ERR
            assert best <= current + 1e-9, (node, current, best)
            continue
        chosen = mean_expected_err(tree.value[leaf_of(tree, data.X, node + 1)], data)
        assert chosen == pytest.approx(best, abs=1e-9), (node, chosen, best)
        assert chosen > current
        assert tree.gain[node] == pytest.approx(chosen - current, abs=1e-9)


def test_training_expected_err_rises_by_the_recorded_gains():
    data = synthetic(12, seed=5)
    tree = RankingForest(splitting="list", listwise_objective="err", n_estimators=1, subsample=1.0,
                         random_state=1).fit(data).trees_[0]
    root = mean_expected_err(np.full(data.n_docs, data.labels.mean()), data)
    final = mean_expected_err(tree.value[leaf_of(tree, data.X, tree.feature.size)], data)
    assert np.count_nonzero(tree.feature >= 0) > 10
    assert final == pytest.approx(root + tree.gain[tree.feature >= 0].sum(), abs=1e-9)


@pytest.mark.parametrize("value", ["ERR", "map", "", None, 1])
def test_an_unknown_objective_is_refused_by_name(value):
    with pytest.raises(ValueError, match="listwise_objective.*'ndcg', 'err'"):
        RankingForest(splitting="list", listwise_objective=value)._validate_params()


def test_an_unregistered_listwise_code_raises_instead_of_falling_back():
    from ltrbv.forest import _builder, _criteria, _err, _listwise
    from ltrbv.forest._rng import seed_state

    data = small_problem(1, 3, 2, 4, 2)
    labels = data.labels.astype(np.int64)
    codes = [criterion.code for criterion in _criteria.LISTWISE.values()]
    for code in codes:  # every registered code passes the builder's check
        _listwise.check_code(code)
    unknown = max(codes) + 1
    with pytest.raises(ValueError, match="unknown listwise objective 'ap'"):
        _criteria.listwise_criterion("ap")
    config = _builder.TreeConfig(
        n_classes=3, criterion=_criteria.ENTROPY, listwise_depth=2**31 - 1, random_splits=False, max_features=2,
        min_samples_leaf=1, min_samples_split=2, max_depth=2**31 - 1, n_queries=data.n_queries,
        listwise_criterion=unknown, exploration=0)
    samples = np.arange(data.n_docs, dtype=np.int64)
    with pytest.raises(ValueError, match="unknown listwise criterion code"):
        _builder.build_tree(np.ascontiguousarray(data.X.T), labels, samples, config, _criteria.xlogx_table(data.n_docs),
                            seed_state(0), _err.prepare(data, labels, data.n_queries))


@pytest.mark.parametrize("option", [{"truncation": 10}, {"discount": "rank-power"}, {"discount_power": 2.0}])
def test_err_refuses_the_ndcg_options(option):
    with pytest.raises(ValueError, match=f"{next(iter(option))}.*listwise_objective='err'"):
        RankingForest(splitting="list", listwise_objective="err", **option)._validate_params()


def test_err_forests_use_their_objective_and_do_not_depend_on_threads():
    data = synthetic(40, seed=9)
    trees = {}
    for objective, n_threads in (("ndcg", 1), ("err", 1), ("err", 2)):
        forest = RankingForest(splitting="hybrid", listwise_levels=4, listwise_objective=objective, n_estimators=4,
                               subsample=0.63, random_state=3, n_threads=n_threads).fit(data)
        trees[objective, n_threads] = forest
    ndcg, err_1, err_2 = trees["ndcg", 1], trees["err", 1], trees["err", 2]
    assert any(not np.array_equal(a.feature, b.feature) or not np.array_equal(a.threshold, b.threshold)
               for a, b in zip(ndcg.trees_, err_1.trees_))
    for a, b in zip(err_1.trees_, err_2.trees_):
        for field in ("feature", "threshold", "left", "right", "value", "gain"):
            assert np.array_equal(getattr(a, field), getattr(b, field))
    assert np.array_equal(err_1.predict(data), err_2.predict(data))
