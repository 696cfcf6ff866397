"""``feature_subset`` (Ibrahim & Carman 2016, Fig. 10: the Yahoo data cut from 519 features down to 10)."""

from __future__ import annotations

import numpy as np
import pytest

from ltrbv.forest import RankingForest

from test_forest_listwise import random_problem


def data_with_features(n_features: int, seed: int = 0):
    data = random_problem(seed, 8, max_docs=20, n_features=n_features, n_values=30)
    data.X[:] = np.random.default_rng(seed).random(data.X.shape).astype(np.float32)
    return data


def test_a_subset_forest_is_the_forest_of_the_reduced_data():
    """Oracle: cut the columns by hand and grow the plain forest on them (K = floor(log2 M) + 1 follows M)."""
    data = data_with_features(12)
    forest = RankingForest(splitting="hybrid", listwise_levels=2, n_estimators=5, feature_subset=5,
                           feature_subset_seed=3, random_state=7).fit(data)
    kept = np.sort(np.random.default_rng(3).permutation(12)[:5])
    assert np.array_equal(forest.features_, kept) and forest.fit_info_["features"] == kept.tolist()
    plain = RankingForest(splitting="hybrid", listwise_levels=2, n_estimators=5, random_state=7)
    reduced = data.subset_features(kept)
    plain.fit(reduced)
    assert np.array_equal(forest.predict(data), plain.predict(reduced))
    assert np.array_equal(forest.fit_predict(data, None, [data])[0], plain.predict(reduced))
    used = {int(f) for tree in forest.trees_ for f in tree.feature[tree.feature >= 0]}
    assert used <= set(range(5))  # tree features index the kept columns


def test_the_subset_is_the_same_for_every_model_seed_and_nested_in_m():
    data = data_with_features(30)
    subsets = {m: RankingForest(n_estimators=1, feature_subset=m, random_state=seed).fit(data).features_
               for seed in (1, 2) for m in (4, 8, 16)}
    for small, large in ((4, 8), (8, 16)):
        assert set(subsets[small]) < set(subsets[large])
    other = RankingForest(n_estimators=1, feature_subset=8, feature_subset_seed=1).fit(data).features_
    assert not np.array_equal(other, subsets[8])


def test_all_features_keeps_every_column_and_more_is_refused():
    data = data_with_features(6)
    assert np.array_equal(RankingForest(n_estimators=1, feature_subset=6).fit(data).features_, np.arange(6))
    with pytest.raises(ValueError, match="feature_subset 7 exceeds the data's 6 features"):
        RankingForest(n_estimators=1, feature_subset=7).fit(data)


@pytest.mark.parametrize(("name", "value"), [("feature_subset", 0), ("feature_subset", 2.5),
                                             ("feature_subset", "10"), ("feature_subset_seed", -1)])
def test_a_bad_value_is_refused_by_name(name, value):
    with pytest.raises(ValueError, match=name):
        RankingForest(**{name: value})._validate_params()
