"""RF-point, RF-rand and the forest machinery against independent oracles."""

from __future__ import annotations


import numpy as np
import pytest

from conftest import MQ2008, require
from ltrbv.data.letor import read_letor
from ltrbv.data.ranking_data import RankingData
from ltrbv.forest import RankingForest
from lockstep import lockstep


@pytest.fixture(scope="module")
def mq2008_fold1():
    require(MQ2008 / "Fold1" / "train.txt")
    return read_letor(MQ2008 / "Fold1" / "train.txt"), read_letor(MQ2008 / "Fold1" / "test.txt")


@pytest.mark.realdata
def test_one_tree_matches_sklearn_entropy_tree_up_to_split_ties(mq2008_fold1):
    from sklearn.tree import DecisionTreeClassifier

    train, test = mq2008_fold1
    ours = RankingForest(n_estimators=1, subsample=1.0, max_features=train.n_features, random_state=0).fit(train)
    sk = DecisionTreeClassifier(criterion="entropy", random_state=0).fit(train.X, train.labels)
    tree = ours.trees_[0]
    same, ties, other = lockstep(tree, sk.tree_, train.X, train.labels.astype(int))
    # every split either coincides with scikit-learn's or has exactly the same entropy gain (a tie broken differently)
    assert other == 0 and same > 100
    # the same training partition purity: the share of training documents in pure leaves
    leaf = ours.apply(train)[:, 0]
    ours_pure = np.mean([np.unique(train.labels[leaf == l]).size == 1 for l in leaf])
    sk_leaf = sk.apply(train.X)
    sk_pure = np.mean([np.unique(train.labels[sk_leaf == l]).size == 1 for l in sk_leaf])
    assert ours_pure == pytest.approx(sk_pure, abs=1e-9)
    assert abs(tree.n_leaves - sk.get_n_leaves()) <= 0.01 * sk.get_n_leaves()
    # test documents whose path meets no tied node get identical predictions; overall agreement is reported
    expected = sk.predict_proba(test.X) @ sk.classes_
    agree = np.abs(ours.predict(test) - expected) < 1e-9
    assert agree.mean() > 0.85  # the rest is split ties (measured: ~91%, every divergence a tie above)


def small_problem(seed=0, n_queries=60, docs=15, n_features=8):
    rng = np.random.default_rng(seed)
    n = n_queries * docs
    X = rng.normal(size=(n, n_features)).astype(np.float32)
    X[:, 0] = np.round(X[:, 0], 1)  # a feature with ties
    z = X[:, :3].sum(axis=1) + rng.normal(size=n)
    labels = np.digitize(z, [0.5, 1.5]).astype(np.int8)
    offsets = np.arange(0, n + 1, docs, dtype=np.int64)
    return RankingData(X=X, labels=labels, query_offsets=offsets, qids=np.arange(n_queries).astype(str),
                       line_numbers=np.arange(1, n + 1))


@pytest.mark.parametrize("splitting", ["point", "list", "hybrid", "rand"])
def test_same_seed_same_predictions_at_any_thread_count(splitting):
    data = small_problem()
    kwargs = dict(splitting=splitting, n_estimators=12, random_state=11, listwise_levels=2)
    one = RankingForest(n_threads=1, **kwargs).fit(data).predict(data)
    two = RankingForest(n_threads=2, **kwargs).fit(data).predict(data)
    assert one.tobytes() == two.tobytes()
    other_seed = RankingForest(n_threads=1, **{**kwargs, "random_state": 12}).fit(data).predict(data)
    assert other_seed.tobytes() != one.tobytes()


def test_streamed_predictions_equal_kept_forest():
    data = small_problem(1)
    kept = RankingForest(n_estimators=8, random_state=3).fit(data)
    streamed = RankingForest(n_estimators=8, random_state=3, keep_trees=False).fit(data, predict_on=(data,))
    np.testing.assert_array_equal(kept.predict(data), streamed.predictions_[0])


def test_leaf_scores_are_expected_relevance_and_ensemble_is_the_mean():
    data = small_problem(2)
    forest = RankingForest(n_estimators=5, random_state=1, min_samples_leaf=5).fit(data)
    for tree in forest.trees_:
        leaves = np.flatnonzero(tree.feature < 0)
        assert tree.n_samples[leaves].min() >= 5
    # eq. 9: a leaf's score is the mean label of its training documents (documents of its sampled queries)
    tree = forest.trees_[0]
    leaf_of = forest.apply(data)[:, 0]
    rng = np.random.default_rng(int(forest.tree_seeds()[0]))
    queries = np.sort(rng.choice(data.n_queries, size=round(0.63 * data.n_queries), replace=False))
    rows = np.concatenate([np.arange(data.query_offsets[q], data.query_offsets[q + 1]) for q in queries])
    for leaf in np.unique(leaf_of[rows]):
        in_leaf = rows[leaf_of[rows] == leaf]
        assert tree.value[leaf] == pytest.approx(data.labels[in_leaf].mean())
        assert tree.n_samples[leaf] == in_leaf.size
    # eq. 10: the ensemble score is the mean of the trees' leaf scores
    per_tree = np.stack([t.value[forest.apply(data)[:, i]] for i, t in enumerate(forest.trees_)], axis=1)
    np.testing.assert_allclose(forest.predict(data), per_tree.mean(axis=1), rtol=0, atol=1e-12)


def test_query_subsampling_is_without_replacement_and_query_level():
    data = small_problem(3, n_queries=100)
    forest = RankingForest(n_estimators=3, subsample=0.05, random_state=2).fit(data)
    for tree in forest.trees_:
        assert tree.n_samples[0] == 5 * 15  # 5 whole queries of 15 documents


def test_rand_splits_ignore_labels_and_mse_regresses():
    data = small_problem(4)
    shuffled = RankingData(X=data.X, labels=data.labels[::-1].copy(), query_offsets=data.query_offsets,
                           qids=data.qids, line_numbers=data.line_numbers)
    a = RankingForest(splitting="rand", n_estimators=1, subsample=1.0, random_state=5, min_samples_split=40).fit(data)
    b = RankingForest(splitting="rand", n_estimators=1, subsample=1.0, random_state=5, min_samples_split=40).fit(shuffled)
    # the same random splits wherever both trees split (labels only decide purity-based stopping and leaf scores)
    ta, tb = a.trees_[0], b.trees_[0]
    both = (ta.feature[: min(ta.feature.size, tb.feature.size)] >= 0)
    assert both[0]
    assert ta.feature[0] == tb.feature[0] and ta.threshold[0] == tb.threshold[0]
    mse = RankingForest(criterion="mse", n_estimators=20, random_state=0).fit(data)
    corr = np.corrcoef(mse.predict(data), data.labels)[0, 1]
    assert corr > 0.5


def test_hybrid_uses_listwise_gains_only_above_level_L():
    data = small_problem(5)
    tree = RankingForest(splitting="hybrid", listwise_levels=2, n_estimators=1, subsample=1.0,
                         random_state=0).fit(data).trees_[0]
    split = tree.feature >= 0
    listwise = split & (tree.depth < 2)
    pointwise = split & (tree.depth >= 2)
    assert listwise.sum() == 3 and pointwise.sum() > 0
    # listwise gains are changes of mean expected NDCG (<= 1); pointwise gains are entropy decreases per document
    assert np.all(tree.gain[listwise] > 0) and np.all(tree.gain[listwise] < 1)
