"""The learners are scikit-learn estimators (issue 29, item 3): get_params / set_params / clone, ``fit(X, y,
qid=...)`` and ``predict(X)`` beside the RankingData API (the same predictions, bit for bit), scikit-learn's own
estimator checks, and GridSearchCV with GroupKFold over queries (examples/grid_search_groupkfold.py)."""

from __future__ import annotations

import pickle
import runpy
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GroupKFold
from sklearn.utils.estimator_checks import check_estimator

from conftest import REPO
from ltrbv.data.from_arrays import ranking_data
from ltrbv.forest import RankingForest
from ltrbv.learners import LambdaMART, LightGBMRanker, RankingSVM

#: each learner with non-default parameters, small enough to fit in well under a second
LEARNERS = {
    "forest": lambda: RankingForest(n_estimators=6, splitting="hybrid", listwise_levels=2, min_samples_leaf=3,
                                    random_state=4),
    "lambdamart": lambda: LambdaMART(n_estimators=30, max_leaves=7, early_stopping_rounds=5, query_subsample=0.7,
                                     eval_convention="letor4", random_state=2),
    "lightgbm": lambda: LightGBMRanker(n_estimators=30, max_leaves=7, min_child_samples=5, early_stopping_rounds=5,
                                       random_state=2),
    "svm": lambda: RankingSVM(C=[0.01, 1.0], random_state=3),
}


def arrays(n_queries=40, seed=0):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(4, 12, size=n_queries)
    qid = np.repeat(np.arange(100, 100 + n_queries), sizes)
    X = rng.random((qid.size, 6)).astype(np.float32)
    y = np.clip(np.floor(X[:, 0] * 2 + X[:, 1] + rng.normal(0, 0.4, qid.size)), 0, 2).astype(int)
    return X, y, qid


@pytest.mark.parametrize("name", LEARNERS)
def test_clone_get_params_and_set_params(name):
    learner = LEARNERS[name]()
    params = learner.get_params()
    copy = clone(learner)
    assert type(copy) is type(learner) and copy is not learner and copy.get_params() == params
    copy.set_params(random_state=99)
    assert copy.random_state == 99 and learner.random_state != 99
    with pytest.raises(ValueError, match="Invalid parameter 'no_such'"):
        copy.set_params(no_such=1)


@pytest.mark.parametrize("name", LEARNERS)
def test_init_stores_parameters_unchanged_and_fit_refuses_bad_ones(name):
    bad = {"forest": {"n_estimators": 0}, "lambdamart": {"learning_rate": -1.0}, "lightgbm": {"max_leaves": 1},
           "svm": {"loss": "log"}}[name]
    learner = LEARNERS[name]().set_params(**bad)  # as clone and GridSearchCV set them: no error yet
    assert {key: getattr(learner, key) for key in bad} == bad
    X, y, qid = arrays()
    with pytest.raises(ValueError, match=f"^{next(iter(bad))}"):
        learner.fit(X, y, qid=qid)


@pytest.mark.parametrize("name", LEARNERS)
def test_arrays_give_the_same_predictions_as_ranking_data(name):
    X, y, qid = arrays()
    Xv, yv, qv = arrays(15, seed=1)
    Xt = arrays(10, seed=2)[0]
    train, valid = ranking_data(qid, y, X), ranking_data(qv, yv, Xv)
    old = LEARNERS[name]()
    if name == "forest":
        old.fit(train)
        new = clone(old).fit(X, y, qid=qid)
    else:
        old.fit(train, valid)
        new = clone(old).fit(X, y, qid=qid, valid=(Xv, yv, qv))
    assert np.array_equal(new.predict(Xt), old.predict(ranking_data(np.zeros(len(Xt)), np.zeros(len(Xt), int), Xt)))
    assert np.array_equal(new.predict(X), old.predict(train))
    assert new.n_features_in_ == 6
    assert np.array_equal(pickle.loads(pickle.dumps(new)).predict(Xt), new.predict(Xt))


@pytest.mark.parametrize("name", LEARNERS)
def test_fit_without_queries_and_predict_before_fit_are_refused(name):
    X, y, qid = arrays()
    learner = LEARNERS[name]()
    with pytest.raises(NotFittedError):
        learner.predict(X)
    with pytest.raises(ValueError, match="qid is required"):
        learner.fit(X, y)
    order = np.random.default_rng(0).permutation(qid.size)  # a query's rows scattered
    with pytest.raises(ValueError, match="must be contiguous"):
        learner.fit(X[order], y[order], qid=qid[order])
    learner.fit(X, y, qid=qid, **({} if name == "forest" else {"valid": (X, y, qid)}))
    with pytest.raises(ValueError, match="X has 5 features, but .* is expecting 6 features"):
        learner.predict(X[:, :5])


# -- scikit-learn's estimator checks ----------------------------------------------------------------------------
# scikit-learn's checks call fit(X, y) without query ids, which a ranker refuses (as XGBRanker and LGBMRanker
# do; test_fit_without_queries_and_predict_before_fit_are_refused).  So the checks run on each learner with one
# change: a fit without qid gets queries of 5 consecutive rows.  Everything else is the learner's own code.

def _with_queries(cls):
    def fit(self, X, y=None, qid=None, **kwargs):
        if qid is None and y is not None:
            qid = np.arange(len(y)) // 5
        return cls.fit(self, X, y, qid=qid, **kwargs)
    return type(cls.__name__, (cls,), {"fit": fit, "__module__": __name__, "__qualname__": f"Queried{cls.__name__}"})


QueriedRankingForest = _with_queries(RankingForest)
QueriedLambdaMART = _with_queries(LambdaMART)
QueriedLightGBMRanker = _with_queries(LightGBMRanker)
QueriedRankingSVM = _with_queries(RankingSVM)

#: the checks that do not apply, each with its reason
NOT_APPLICABLE = {
    "check_fit_score_takes_y": "fit_predict is the workflow's learner protocol, fit_predict(train, valid, targets), "
                               "not a clusterer's fit_predict(X, y)",
}
#: the check data's labels are equal within each 5-row query: no pair for a pairwise learner to learn from
NO_PAIRS = "the check's labels do not differ within a query: the Ranking SVM refuses data with no pair to learn from"
SVM_NOT_APPLICABLE = {**NOT_APPLICABLE, "check_positive_only_tag_during_fit": NO_PAIRS,
                      "check_estimators_nan_inf": NO_PAIRS, "check_fit2d_1sample": NO_PAIRS}

CHECKED = {
    "forest": (QueriedRankingForest(n_estimators=5), NOT_APPLICABLE),
    "lambdamart": (QueriedLambdaMART(n_estimators=5), NOT_APPLICABLE),
    "lightgbm": (QueriedLightGBMRanker(n_estimators=5), NOT_APPLICABLE),
    "svm": (QueriedRankingSVM(C=0.1), SVM_NOT_APPLICABLE),
}


@pytest.mark.parametrize("name", CHECKED)
def test_scikit_learn_estimator_checks(name):
    estimator, expected = CHECKED[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(estimator, expected_failed_checks=expected, on_fail=None)
    failed = {r["check_name"]: str(r["exception"])[:300] for r in results if r["status"] == "failed"}
    assert failed == {}
    ran = {r["check_name"] for r in results if r["status"] == "passed"}
    assert len(ran) >= 35 and {"check_estimators_pickle", "check_fit_idempotent", "check_n_features_in",
                                "check_methods_sample_order_invariance", "check_no_attributes_set_in_init",
                                "check_do_not_raise_errors_in_init_or_set_params", "check_estimators_unfitted"} <= ran
    xfailed = {r["check_name"] for r in results if r["status"] == "xfail"}
    assert xfailed == set(expected), "an expected failure passes now: take it off the list"


# -- the example ------------------------------------------------------------------------------------------------

def test_grid_search_example_routes_each_folds_queries():
    """The example's cross-validated NDCG@10 equals a hand-made GroupKFold loop over the same folds."""
    example = runpy.run_path(str(REPO / "examples" / "grid_search_groupkfold.py"))
    search = example["main"]()
    X, y, qid = example["synthetic"]()
    assert len(search.cv_results_["params"]) == 4 and search.best_params_ in search.cv_results_["params"]
    for params, mean in zip(search.cv_results_["params"], search.cv_results_["mean_test_score"]):
        scores = []
        for train, test in GroupKFold(n_splits=3).split(X, y, groups=qid):
            model = RankingForest(n_estimators=20, random_state=0, **params).fit(X[train], y[train], qid=qid[train])
            scores.append(example["mean_ndcg_at_10"](y[test], model.predict(X[test]), qid[test]))
        assert mean == pytest.approx(np.mean(scores), abs=1e-12)
    assert 0 < search.best_score_ < 1
