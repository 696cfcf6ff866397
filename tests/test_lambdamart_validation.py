"""LambdaMART's validation metric (issue 16): XGBoost's own, or this package's metric under the dataset's
convention, through XGBoost training callbacks.

Oracles: the package's metric recomputed from the booster's predictions with the first i + 1 trees (the
history the stopping rule saw), XGBoost's own evaluation log from a plain ``xgb.train`` run, and the
closed form of a query without a relevant document (XGBoost's ndcg@10 scores it 1, letor4 scores it 0).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from ltrbv.data.ranking_data import RankingData
from ltrbv.learners import LambdaMART
from ltrbv.metrics import evaluate
from ltrbv.learners.stopping import first_maximum_with_patience

xgb = pytest.importorskip("xgboost")


def ranking_data(n_queries=60, seed=0, empty_queries=0):
    """Graded labels from two informative features; the first ``empty_queries`` queries have no relevant
    document."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(5, 20, n_queries)
    n = int(sizes.sum())
    X = rng.normal(size=(n, 8)).astype(np.float32)
    labels = np.clip(np.round(X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 0.7, n)), 0, 2).astype(np.int8)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    labels[: offsets[empty_queries]] = 0
    return RankingData(X=X, labels=labels, query_offsets=offsets, qids=np.array([str(q) for q in range(n_queries)]),
                       line_numbers=np.arange(1, n + 1, dtype=np.int64))


def test_the_convention_history_is_the_package_metric_of_each_rounds_model():
    train, valid = ranking_data(seed=1), ranking_data(n_queries=30, seed=2, empty_queries=6)
    model = LambdaMART(n_estimators=40, learning_rate=0.2, max_leaves=8, eval_metric="ndcg@10",
                       eval_convention="letor4", early_stopping_rounds=10, random_state=3).fit(train, valid)
    history = model.fit_info_["eval_history"]["valid"]["ndcg@10"]
    assert len(history) == model.fit_info_["rounds_trained"]
    for i in (0, 3, len(history) - 1):
        scores = model.predict(valid, n_trees=i + 1)
        want = evaluate(scores, valid.labels, valid.query_offsets, ("ndcg@10",), convention="letor4")["ndcg@10"]
        assert history[i] == pytest.approx(float(np.mean(want)), abs=1e-6)  # float32 margins either way
    # the kept model is the first maximum of that history, found with the patience of early stopping
    best, _ = first_maximum_with_patience(history, 10)
    assert model.fit_info_["kept_iteration"] == best
    assert model.fit_info_["eval_convention"] == "letor4"
    # the training curve is computed too, in the same convention
    assert len(model.fit_info_["eval_history"]["train"]["ndcg@10"]) == len(history)


def test_xgboosts_metric_scores_a_query_without_relevant_documents_as_one_and_the_convention_as_zero():
    train, valid = ranking_data(seed=1), ranking_data(n_queries=30, seed=2, empty_queries=6)
    common = dict(n_estimators=5, learning_rate=0.2, max_leaves=8, early_stopping_rounds=None, random_state=3)
    xgb_metric = LambdaMART(eval_metric="ndcg@10", **common).fit(train, valid)
    ours = LambdaMART(eval_metric="ndcg@10", eval_convention="standard", **common).fit(train, valid)
    # the same trees (the metric only watches); the histories differ by the empty queries' 1 vs 0
    np.testing.assert_array_equal(xgb_metric.predict(valid), ours.predict(valid))
    a = np.array(xgb_metric.fit_info_["eval_history"]["valid"]["ndcg@10"])
    b = np.array(ours.fit_info_["eval_history"]["valid"]["ndcg@10"])
    empty = sum(int(valid.labels[lo:hi].max() == 0) for lo, hi in zip(valid.query_offsets[:-1], valid.query_offsets[1:]))
    assert empty >= 6
    np.testing.assert_allclose(a - b, empty / valid.n_queries, atol=2e-5)  # XGBoost prints 5-6 digits


def test_callbacks_reproduce_xgboosts_own_training_loop():
    """Without sampling or stopping, the callback path is plain xgb.train: same margins, same log."""
    train, valid = ranking_data(seed=4), ranking_data(n_queries=25, seed=5)
    model = LambdaMART(n_estimators=12, learning_rate=0.2, max_leaves=8, early_stopping_rounds=None,
                       eval_metric="ndcg@5", random_state=9).fit(train, valid)
    log: dict = {}
    dtrain, dvalid = LambdaMART._matrix(train), LambdaMART._matrix(valid)
    booster = xgb.train(model._params(), dtrain, 12, evals=[(dtrain, "train"), (dvalid, "valid")],
                        evals_result=log, verbose_eval=False)
    grid = xgb.DMatrix(valid.X)
    np.testing.assert_array_equal(model.booster_.predict(grid), booster.predict(grid))
    assert model.fit_info_["eval_history"]["valid"]["ndcg@5"] == log["valid"]["ndcg@5"]
    assert model.fit_info_["eval_history"]["train"]["ndcg@5"] == log["train"]["ndcg@5"]


@pytest.mark.parametrize("params,message", [
    ({"eval_convention": "trec"}, "eval_convention must be one of 'standard', 'letor4'"),
    ({"eval_convention": "letor4", "eval_metric": "ndcg@x"}, "eval_metric:"),
    ({"eval_metric": "nDCG@10"}, "eval_metric must be an XGBoost ranking metric"),
])
def test_bad_validation_settings_are_refused_when_built(params, message):
    with pytest.raises(ValueError, match=message):
        LambdaMART(**params)._validate_params()


@pytest.mark.parametrize("convention", [None, "letor4"])
def test_sampled_rounds_have_a_training_curve_over_all_training_queries(convention):
    """With query sub-sampling the rounds' weights leave most training queries out; the training curve is
    still over all of them (XGBoost's metric on the weighted matrix would count one round's sample)."""
    train, valid = ranking_data(seed=1), ranking_data(n_queries=20, seed=2)
    model = LambdaMART(n_estimators=6, eval_metric="ndcg@10", eval_convention=convention, query_subsample=0.5,
                       early_stopping_rounds=None, random_state=1).fit(train, valid)
    curve = model.fit_info_["eval_history"]["train"]["ndcg@10"]
    assert len(curve) == 6
    scores = model.predict(train, n_trees=6)
    per_query = evaluate(scores, train.labels, train.query_offsets, ("ndcg@10",), convention=convention or "standard")
    # standard NDCG@10 on all queries is XGBoost's ndcg@10 but for queries without a relevant document (1 there)
    empty = np.array([train.labels[lo:hi].max() == 0 for lo, hi in zip(train.query_offsets[:-1], train.query_offsets[1:])])
    want = float(np.mean(np.where(empty, 1.0, per_query["ndcg@10"]))) if convention is None else float(np.mean(per_query["ndcg@10"]))
    assert curve[-1] == pytest.approx(want, abs=2e-5)


def test_xgboost_is_imported_without_scikit_learn_which_stays_importable():
    code = ("import sys; from ltrbv.learners._imports import import_without_sklearn; "
            "x = import_without_sklearn('xgboost'); print('sklearn' in sys.modules); "
            "import sklearn.svm; print(sklearn.svm.LinearSVC.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "LinearSVC"]


# -- LightGBM's LambdaMART: the same option -----------------------------------------------------------------

def test_lightgbm_validates_with_the_package_metric_of_each_rounds_model():
    pytest.importorskip("lightgbm")
    from ltrbv.learners import LightGBMRanker

    train, valid = ranking_data(seed=1), ranking_data(n_queries=30, seed=2, empty_queries=6)
    model = LightGBMRanker(n_estimators=30, learning_rate=0.2, max_leaves=8, min_child_samples=5,
                           eval_metric="ndcg@10", eval_convention="letor4", early_stopping_rounds=5,
                           random_state=3).fit(train, valid)
    history = model.fit_info_["eval_history"]["valid"]["ndcg@10"]
    best = model.fit_info_["trees_kept"]
    assert model.fit_info_["eval_convention"] == "letor4" and len(history) >= best
    for i in sorted({0, best // 2, best - 1}):  # the booster keeps only the rounds up to the best one
        scores = model.booster_.predict(valid.X, num_iteration=i + 1)
        want = evaluate(scores, valid.labels, valid.query_offsets, ("ndcg@10",), convention="letor4")["ndcg@10"]
        assert history[i] == pytest.approx(float(np.mean(want)), abs=1e-9)
    assert best - 1 == int(np.argmax(history))  # LightGBM keeps the first best round
    with pytest.raises(ValueError, match="eval_convention must be one of 'standard', 'letor4'"):
        LightGBMRanker(eval_convention="trec")._validate_params()
    with pytest.raises(ValueError, match="eval_metric must be ndcg@k"):
        LightGBMRanker(eval_metric="map")._validate_params()
