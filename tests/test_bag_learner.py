"""BL-MART as a learner (ltrbv.learners.bag): one seed scheme for the per-sub-model jobs and the study."""

from __future__ import annotations

import numpy as np

from ltrbv.learners.bagging import combine_minmax, sample_queries
from ltrbv.data.ranking_data import RankingData
from ltrbv.learners import make_learner
from ltrbv.learners.bag import Bag, submodel_seeds
from ltrbv.sections.core.grid import bag_spec
from ltrbv.seeding import derive_seed

PARAMS = {"n_estimators": 8, "learning_rate": 0.3, "max_leaves": 7, "early_stopping_rounds": None}


def problem(seed, n_queries=30, docs=8, n_features=5):
    rng = np.random.default_rng(seed)
    n = n_queries * docs
    X = rng.normal(size=(n, n_features)).astype(np.float32)
    labels = np.digitize(X[:, :2].sum(axis=1) + rng.normal(size=n), [0.5, 1.5]).astype(np.int8)
    return RankingData(X=X, labels=labels, query_offsets=np.arange(0, n + 1, docs, dtype=np.int64),
                       qids=np.arange(n_queries).astype(str), line_numbers=np.arange(1, n + 1))


def test_submodel_seeds_are_the_run_keys_then_sub_k():
    keys = [7, "demo", "Fold1", "bl-mart", "1"]
    assert submodel_seeds(keys, 3) == (derive_seed(*keys, "sub", 3), derive_seed(*keys, "sub", 3, "queries"))


def test_fit_predict_is_the_per_submodel_fits_combined():
    """The study's inline loop and the core run's one job per sub-model give the same bag for the same keys."""
    train, vali, test = problem(1), problem(2), problem(3)
    bag = Bag(kind="xgboost", params=PARAMS, n_models=3, sample_fraction=0.6)
    keys = [5, "tiny", "Fold1", "bl-mart", "base", "twofold", "1a"]
    (combined,) = bag.fit_predict(train, vali, (test,), keys)
    rows = []
    for k in range(3):  # as rule bag_submodel does it, one job each
        random_state, sample_seed = submodel_seeds(keys, k)
        chosen = sample_queries(train.n_queries, 0.6, sample_seed)
        learner = make_learner("xgboost", PARAMS, random_state=random_state)
        rows.append(learner.fit_predict(train.subset_queries(chosen), vali, (test,))[0])
    np.testing.assert_array_equal(combined, combine_minmax(np.array(rows), test.query_offsets))


def test_a_trial_run_samples_from_the_trial_queries():
    train, vali, test = problem(1), problem(2), problem(3)
    bag = Bag(kind="xgboost", params=PARAMS, n_models=2, sample_fraction=0.5)
    trial = np.arange(0, 30, 2)
    _, _, chosen = bag.fit_submodel(1, train, vali, (test,), [1, "x"], queries=trial)
    assert set(chosen) <= set(trial) and chosen.size == round(0.5 * trial.size)


def test_bag_spec_takes_the_base_learner_with_its_overrides():
    config = {"learners": {"lm": {"kind": "xgboost", "params": {"n_estimators": 9, "max_leaves": 7}},
                           "bag": {"kind": "bag", "params": {"base": "lm", "base_params": {"n_estimators": 3},
                                                            "n_models": 4, "sample_fraction": 0.5,
                                                            "combine": "borda"}}}}
    spec = bag_spec(config, "bag")
    assert spec == {"name": "bag", "base": "lm", "kind": "xgboost", "params": {"max_leaves": 7, "n_estimators": 3},
                    "n_models": 4, "sample_fraction": 0.5, "combine": "borda"}
    assert Bag.from_spec(spec).combine == "borda"
