"""LambdaMART with query-level sub-sampling per boosting round (Ganjisaffar et al. 2011, §3.3).

The learner samples queries by per-round query weights on one DMatrix.  The
oracle trains each round on ``RankingData.subset_queries(sample)`` alone (a new
DMatrix holding only the sampled queries, continuing the previous model with
``xgb.train(..., xgb_model=...)``), which is query-level sub-sampling by
construction.  Features are small integers so that both see the same histogram
bins.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import MQ2008, require
from ltrbv.data.ranking_data import RankingData
from ltrbv.learners import LambdaMART

xgb = pytest.importorskip("xgboost")


def integer_data(n_queries=50, seed=0, n_features=6):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(4, 16, n_queries)
    n = int(sizes.sum())
    X = rng.integers(0, 8, (n, n_features)).astype(np.float32)
    labels = np.clip((X[:, 0] + X[:, 1] + rng.normal(0, 2, n)) // 4, 0, 2).astype(np.int8)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return RankingData(X=X, labels=labels, query_offsets=offsets, qids=np.array([str(q) for q in range(n_queries)]),
                       line_numbers=np.arange(1, n + 1, dtype=np.int64))


def per_round_subset_oracle(model: LambdaMART, data: RankingData, n_rounds: int):
    params = model._params(scale=1.0)  # the learner's params, unscaled: the sampled queries alone
    samples = model.round_query_samples(data.n_queries)
    booster = None
    for _ in range(n_rounds):
        subset = data.subset_queries(next(samples))
        matrix = xgb.DMatrix(subset.X, label=subset.labels.astype(np.float32))
        matrix.set_group(subset.query_sizes)
        booster = xgb.train(params, matrix, 1, xgb_model=booster)
    return booster


@pytest.mark.parametrize("reg_lambda,min_child_weight,fraction", [(1.0, 1.0, 0.6), (0.0, 0.0, 0.3), (5.0, 3.0, 0.5)])
def test_weighted_rounds_equal_training_on_the_sampled_queries_alone(reg_lambda, min_child_weight, fraction):
    data = integer_data()
    model = LambdaMART(n_estimators=8, learning_rate=0.3, max_leaves=8, reg_lambda=reg_lambda,
                       min_child_weight=min_child_weight, query_subsample=fraction, early_stopping_rounds=None,
                       random_state=5).fit(data)
    oracle = per_round_subset_oracle(model, data, 8)
    grid = xgb.DMatrix(data.X)
    got = model.booster_.predict(grid, output_margin=True)
    want = oracle.predict(grid, output_margin=True)
    # the base score (a constant) may differ; the trees may not
    np.testing.assert_allclose(got - got.mean(), want - want.mean(), atol=2e-5)
    assert model.fit_info_["queries_per_round"] == round(fraction * data.n_queries)
    # and it is not what training on all queries gives
    full = LambdaMART(n_estimators=8, learning_rate=0.3, max_leaves=8, reg_lambda=reg_lambda,
                      min_child_weight=min_child_weight, early_stopping_rounds=None, random_state=5).fit(data)
    assert np.abs(full.booster_.predict(grid) - model.booster_.predict(grid)).max() > 1e-3


def test_round_samples_are_whole_queries_fixed_size_reproducible():
    model = LambdaMART(query_subsample=0.5, random_state=3)
    first = model.round_query_samples(101)
    rounds = [next(first) for _ in range(20)]
    for sample in rounds:
        assert sample.size == 50 and np.unique(sample).size == 50 and sample.min() >= 0 and sample.max() < 101
    assert len({tuple(s) for s in rounds}) == 20
    again = LambdaMART(query_subsample=0.5, random_state=3).round_query_samples(101)
    assert all(np.array_equal(next(again), s) for s in rounds)


def first_tree(data, **params):
    model = LambdaMART(n_estimators=1, early_stopping_rounds=None, query_subsample=0.5, random_state=7,
                       eval_train=False, **params).fit(data)
    return model, model.booster_.get_dump(with_stats=True)[0]


@pytest.mark.parametrize("source", ["synthetic", "mq2008"])
def test_dropped_queries_take_no_part_in_a_round(source):
    """Check with data: the first tree does not change when the labels of every query outside the first
    round's sample change, and does change when one sampled query's labels change."""
    if source == "mq2008":
        from ltrbv.data.letor import read_letor

        data = read_letor(require(MQ2008 / "Fold1" / "train.txt"), n_features=46)
    else:
        data = integer_data(n_queries=80, seed=2)
    model, tree = first_tree(data)
    sample = next(model.round_query_samples(data.n_queries))
    dropped = np.setdiff1d(np.arange(data.n_queries), sample)
    assert sample.size == round(0.5 * data.n_queries) and dropped.size > 0
    rows_of = lambda qs: np.concatenate([np.arange(data.query_offsets[q], data.query_offsets[q + 1]) for q in qs])  # noqa: E731

    rng = np.random.default_rng(0)
    labels = data.labels.copy()
    rows = rows_of(dropped)
    labels[rows] = rng.integers(0, 3, rows.size)
    relabelled = RankingData(X=data.X, labels=labels, query_offsets=data.query_offsets, qids=data.qids,
                             line_numbers=data.line_numbers)
    assert first_tree(relabelled)[1] == tree

    labels = data.labels.copy()
    rows = rows_of(sample)
    labels[rows] = labels[rows][::-1]  # reverse the labels of the sampled queries' documents
    changed = RankingData(X=data.X, labels=labels, query_offsets=data.query_offsets, qids=data.qids,
                          line_numbers=data.line_numbers)
    assert first_tree(changed)[1] != tree


def test_plain_lambdamart_is_untouched_by_the_new_loop():
    """query_subsample=1 and no tolerance: the same trees as xgboost.train with early stopping."""
    data = integer_data(n_queries=60, seed=4)
    valid = integer_data(n_queries=30, seed=5)
    model = LambdaMART(n_estimators=60, learning_rate=0.3, max_leaves=8, early_stopping_rounds=5,
                       random_state=1).fit(data, valid)
    params = model._params()
    matrices = []
    for d in (data, valid):
        m = xgb.DMatrix(d.X, label=d.labels.astype(np.float32))
        m.set_group(d.query_sizes)
        matrices.append(m)
    history = {}
    booster = xgb.train(params, matrices[0], 60, evals=[(matrices[0], "train"), (matrices[1], "valid")],
                        early_stopping_rounds=5, evals_result=history, verbose_eval=False)
    assert booster.best_iteration == model.fit_info_["best_iteration"]
    assert booster.num_boosted_rounds() == model.fit_info_["rounds_trained"]
    assert history["valid"]["ndcg@10"] == model.fit_info_["eval_history"]["valid"]["ndcg@10"]
    grid = xgb.DMatrix(valid.X)
    np.testing.assert_array_equal(model.predict(valid), booster.predict(grid, iteration_range=(0, booster.best_iteration + 1)))
