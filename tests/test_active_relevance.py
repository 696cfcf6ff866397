"""Relevance models (RF_class, ordered logit), model training, the experiment grid and the savings table."""

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import check_grad

from ltrbv.sections.active import grid as avw
from ltrbv.active.experiments import aggregate, budget_to_reach, label_savings
from ltrbv.active.models import train_model
from ltrbv.active.relevance import OrderedLogit, probabilities_from_cumulative
from ltrbv.data.ranking_data import RankingData


def _data(seed, n_queries=40, docs=12, n_features=6):
    rng = np.random.default_rng(seed)
    n = n_queries * docs
    X = rng.normal(size=(n, n_features)).astype(np.float32)
    latent = 1.5 * X[:, 0] - X[:, 1] + rng.logistic(size=n)
    labels = np.digitize(latent, [0.5, 2.0]).astype(np.int64)
    return RankingData(X=X, labels=labels, query_offsets=np.arange(0, n + 1, docs, dtype=np.int64),
                       qids=np.array([f"q{seed}-{i}" for i in range(n_queries)]), line_numbers=np.arange(n) + 1)


def test_probabilities_from_cumulative_are_monotone_and_normalised():
    cumulative = np.array([[0.3, 0.2], [-0.1, 1.2], [0.5, 0.9]])  # not monotone, out of range
    probs = probabilities_from_cumulative(cumulative)
    assert np.allclose(probs, [[0.3, 0.0, 0.7], [0.0, 1.0, 0.0], [0.5, 0.4, 0.1]])
    floored = probabilities_from_cumulative(cumulative, min_prob=0.01)
    assert floored.min() > 0.005 and floored.sum(1) == pytest.approx(np.ones(3))


def test_ordered_logit_gradient_and_fit():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    y = np.digitize(2 * X[:, 0] + rng.logistic(size=300), [-1.0, 1.0])
    model = OrderedLogit(3, prior_variance=5.0)
    start = rng.normal(size=4 + 2) * 0.3
    f = lambda p: model._objective(p, X, y)[0]  # noqa: E731
    g = lambda p: model._objective(p, X, y)[1]  # noqa: E731
    assert check_grad(f, g, start) < 1e-4 * max(1.0, np.linalg.norm(g(start)))
    model.fit(X, y)
    probs = model.predict_proba(X)
    assert probs.sum(1) == pytest.approx(np.ones(300))
    weights, _ = model._unpack(model.params_, 4)
    assert weights[0] > 1.0 and np.all(np.abs(weights[1:]) < 0.5 * weights[0])
    assert model.log_likelihood(X, y) > 300 * np.log(1 / 3) + 50


@pytest.mark.parametrize("kind", ["rf_class", "ordered_logit", "rf_reg", "lambdamart"])
def test_models_score_the_pool_and_beat_uniform(kind):
    train, valid, pool = _data(1), _data(2), _data(3)
    params = {"n_estimators": 30} if kind in ("rf_class", "rf_reg") else {}
    if kind == "lambdamart":
        params = {"n_estimators": 30, "learning_rate": 0.1, "max_leaves": 7, "early_stopping_rounds": 10}
    out = train_model({"kind": kind, "params": params}, train, valid, pool, 3, random_state=4)
    assert out["scores"].shape == (pool.n_docs,)
    assert np.corrcoef(out["scores"], pool.labels)[0, 1] > 0.3
    if kind in ("rf_class", "ordered_logit"):
        probs = out["label_probs"]
        assert probs.shape == (pool.n_docs, 3) and probs.sum(1) == pytest.approx(np.ones(pool.n_docs))
        assert probs.min() >= 1e-3 * 0.99
        log_lik = np.log(probs[np.arange(pool.n_docs), pool.labels]).mean()
        assert log_lik > np.log(1 / 3) + 0.1


def test_query_fraction_trains_on_fewer_queries():
    out = train_model({"kind": "rf_class", "params": {"n_estimators": 5}, "query_fraction": 0.5},
                      _data(1), _data(2), _data(3), 3, random_state=4)
    assert out["info"]["train_queries"] == 20


def test_budget_to_reach_and_savings():
    budgets = np.array([10.0, 20.0, 40.0, 80.0])
    assert budget_to_reach(budgets, np.array([4.0, 2.0, 1.0, 0.5]), 1.0) == pytest.approx(40.0)
    assert np.isnan(budget_to_reach(budgets, np.array([4.0, 2.0, 1.0, 0.5]), 0.1))
    assert budget_to_reach(budgets, np.array([4.0, 2.0, 1.0, 0.5]), 5.0) == 10.0
    # error ~ 1/sqrt(budget): active at 0.5 x passive's variance needs half the budget
    rows = []
    for method, scale in (("passive", 1.0), ("active", np.sqrt(0.5))):
        for b in budgets:
            rows.append({"measure": "dcg", "method": method, "budget": b, "abs_error": scale / np.sqrt(b)})
    savings = label_savings(pd.DataFrame(rows))
    assert savings["savings"].iloc[0] == pytest.approx(0.5, abs=1e-9)
    flipped = label_savings(pd.DataFrame(rows), baseline="active", method="passive")
    assert flipped["savings"].iloc[0] == pytest.approx(-0.5, abs=1e-9)


def test_aggregate_standard_error_of_the_mean_over_partitions():
    part = lambda err, se: pd.DataFrame({  # noqa: E731
        "measure": ["dcg"], "method": ["active"], "budget": [10.0], "truth": [1.0], "abs_error": [err],
        "abs_error_se": [se], "selection_error": [0.0], "selection_error_se": [0.0], "n_draws": [5.0],
        "n_draws_se": [0.1], "n_labelled": [5.0], "spent": [9.0], "n_empty": [0]})
    out = aggregate([part(1.0, 0.3), part(3.0, 0.4)])
    assert out["abs_error"].iloc[0] == pytest.approx(2.0)
    assert out["abs_error_se"].iloc[0] == pytest.approx(0.25)


def test_workflow_targets_and_problems():
    from snakemake.utils import validate

    section = {"enabled": True}
    validate(section, "config/schema/active.schema.yaml")
    config = {"run": {"datasets": ["d"]}, "datasets": {"d": {"folds": ["F1", "F2", "F3"], "label_range": [0, 2]}},
              "active": section}
    assert avw.problems(config) == []
    targets = avw.targets(config)
    assert "results/d/active/tables/savings.md" in targets
    assert "results/d/active/figures/index_update.svg" in targets
    assert avw.targets({**config, "active": {**section, "enabled": False}}) == []
    assert avw.targets({k: v for k, v in config.items() if k != "active"}) == []
    section["experiments"]["broken"] = {"kind": "compare", "rankers": ["rf_reg"], "label_models": ["lambdamart"]}
    found = "\n".join(avw.problems(config))
    assert "needs two ranker(s)" in found and "has no label probabilities" in found


def test_savings_when_both_curves_reach_zero_error_are_taken_where_each_first_does():
    """A model-selection error can reach 0 before the largest budget: passive at 55, active at 35 -> 36%."""
    budgets = [5, 15, 25, 35, 45, 55, 65, 75]
    curves = {"passive": [0.17, 0.03, 0.005, 0.0008, 0.0001, 0, 0, 0], "active": [0.12, 0.007, 0.0004, 0, 0, 0, 0, 0]}
    rows = [{"measure": "dcg", "method": m, "budget": b, "selection_error": e}
            for m, errors in curves.items() for b, e in zip(budgets, errors)]
    [row] = label_savings(pd.DataFrame(rows), "selection_error").to_dict("records")
    assert row["savings"] == pytest.approx(1 - 35 / 55)
    [flipped] = label_savings(pd.DataFrame(rows), "selection_error", baseline="active", method="passive").to_dict("records")
    assert flipped["savings"] == pytest.approx(-(1 - 35 / 55))
