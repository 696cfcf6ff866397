"""BL-MART pieces against independent oracles (Ganjisaffar et al. 2011, §3.5, §4.2).

* min-max combination vs a per-query pure-Python transcription of §3.5.1;
* Borda count vs a hand-computed case;
* the overfitting-tolerance rule (§3.5.2) on synthetic validation curves vs a
  direct transcription of the paper's text, and inside LambdaMART on data;
* trial samples: 67% of the queries, without replacement, different across
  trials, reproducible.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ltrbv.learners.bagging import bag_size_curve, borda_points, combine, combine_borda, combine_minmax, minmax_normalise, sample_queries
from ltrbv.learners.stopping import StoppingRule, first_maximum_with_patience, overfit_extension
from ltrbv.sections.bagging.tables import mean_ndcg, variance_summary
from ltrbv.learners.training_sets import trial_queries


# -- min-max combination (§3.5.1) ------------------------------------------------------------------


def minmax_oracle(score_lists, query_sizes):
    """Direct transcription: for each query and sub-model, scale so that max -> 1, min -> 0; then average."""
    n_models = len(score_lists)
    out = []
    start = 0
    for size in query_sizes:
        per_model = []
        for scores in score_lists:
            block = [float(s) for s in scores[start:start + size]]
            lo, hi = min(block), max(block)
            per_model.append([(s - lo) / (hi - lo) if hi > lo else 0.0 for s in block])
        for i in range(size):
            out.append(sum(model[i] for model in per_model) / n_models)
        start += size
    return out


def test_minmax_combination_matches_per_query_transcription():
    rng = np.random.default_rng(0)
    sizes = [1, 2, 5, 3, 8, 4, 1, 6]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    n = offsets[-1]
    models = [rng.normal(scale=rng.uniform(0.1, 10), size=n) + rng.normal(0, 5) for _ in range(7)]
    models[2][offsets[3]:offsets[4]] = 1.5  # a sub-model scoring one query's documents all alike
    models[4] = np.round(models[4])  # ties
    got = combine_minmax(np.array(models), offsets)
    want = minmax_oracle(models, sizes)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert np.array_equal(combine(np.array(models), offsets, "minmax"), got)
    normalised = minmax_normalise(np.array(models), offsets)
    assert normalised.min() == 0.0 and normalised.max() == 1.0


def test_minmax_is_invariant_to_each_submodels_scale_per_query():
    rng = np.random.default_rng(1)
    offsets = np.array([0, 4, 9, 12])
    a, b = rng.normal(size=12), rng.normal(size=12)
    # rescale sub-model b differently in each query: the combination must not change
    b2 = b.copy()
    for q, (scale, shift) in enumerate([(3.0, 7.0), (0.01, -2.0), (50.0, 0.5)]):
        b2[offsets[q]:offsets[q + 1]] = b[offsets[q]:offsets[q + 1]] * scale + shift
    np.testing.assert_allclose(combine_minmax(np.array([a, b]), offsets), combine_minmax(np.array([a, b2]), offsets),
                               atol=1e-12)


# -- Borda count (§3.5.1) --------------------------------------------------------------------------


def test_borda_count_hand_computed():
    offsets = np.array([0, 4, 6])
    models = np.array([
        # query 0 (4 documents)            query 1 (2 documents)
        [0.9, 0.1, 0.5, 0.3, 1.0, 2.0],
        [1.0, 2.0, 3.0, 4.0, 2.0, 1.0],
        [5.0, 5.0, 1.0, 0.0, 0.0, 0.0],
    ])
    # By hand: lowest-ranked document 0 points, next 1, ...
    #   model A, query 0: order d0 > d2 > d3 > d1          -> points 3, 0, 2, 1
    #   model B, query 0: order d3 > d2 > d1 > d0          -> points 0, 1, 2, 3
    #   model C, query 0: d0 = d1 share places 3 and 2 (2.5), d2 -> 1, d3 -> 0
    #   query 1: A -> 0, 1;  B -> 1, 0;  C (tie) -> 0.5, 0.5
    assert borda_points(models[0], offsets).tolist() == [3, 0, 2, 1, 0, 1]
    assert borda_points(models[2], offsets).tolist() == [2.5, 2.5, 1, 0, 0.5, 0.5]
    want = [(3 + 0 + 2.5) / 3, (0 + 1 + 2.5) / 3, (2 + 2 + 1) / 3, (1 + 3 + 0) / 3, 0.5, 0.5]
    np.testing.assert_allclose(combine_borda(models, offsets), want, atol=1e-15)
    np.testing.assert_allclose(combine(models, offsets, "borda"), want, atol=1e-15)
    with pytest.raises(ValueError, match="unknown combination"):
        combine(models, offsets, "median")


# -- overfitting tolerance (§3.5.2) ----------------------------------------------------------------


def paper_rule(curve, patience, tolerance, max_extra):
    """Trees kept, transcribed from §3.4 and §3.5.2.

    §3.4: "Boosting continues until there has been no improvement in accuracy for [patience]
    iterations. The algorithm then returns the number of iterations that yielded maximum accuracy."
    §3.5.2: "we add more trees after this maximum point until accuracy drop is more than a threshold
    value [...] we allow a maximum of 250 trees to be added after the maximum point".
    """
    best = 0
    for i in range(len(curve)):
        if curve[i] > curve[best]:
            best = i
        if i - best >= patience:
            break
    if tolerance is None:
        return best + 1
    added = 0
    for j in range(best + 1, len(curve)):
        drop = curve[best] - curve[j]
        if drop > tolerance * curve[best] or added == max_extra:
            break
        added += 1
    return best + 1 + added


def run_online(curve, patience, tolerance, max_extra):
    rule = StoppingRule(patience, tolerance, max_extra)
    for value in curve:
        if rule.update(value):
            break
    return rule


def synthetic_curves():
    rng = np.random.default_rng(42)
    x = np.arange(1500)
    yield "rise-then-slow-decay", 0.5 + 0.1 * (1 - np.exp(-x / 80)) - 0.00004 * np.maximum(x - 300, 0)
    yield "rise-then-sharp-drop", np.where(x < 200, 0.4 + x / 2000, 0.5 - (x - 200) / 500)
    yield "plateau", np.minimum(0.3 + x / 1000, 0.45)
    for i in range(40):
        walk = 0.45 + np.cumsum(rng.normal(0.0002, 0.004, x.size))
        yield f"random-walk-{i}", np.clip(walk, 0.05, None)


@pytest.mark.parametrize("tolerance,max_extra,patience", [(None, 250, 100), (0.02, 250, 100), (0.02, 250, 300),
                                                          (0.005, 40, 100), (0.0, 250, 50), (0.1, 10, 20)])
def test_stopping_rule_matches_transcription_of_the_paper(tolerance, max_extra, patience):
    for name, curve in synthetic_curves():
        rule = run_online(curve, patience, tolerance, max_extra)
        assert rule.kept_iteration() + 1 == paper_rule(curve, patience, tolerance, max_extra), name
        # the online rule stops as soon as the answer is known, never before
        assert len(rule.history) <= len(curve)
        best, _ = first_maximum_with_patience(curve, patience)
        assert rule.best == best, name
        if tolerance is not None:
            assert rule.kept_iteration() == overfit_extension(curve, best, tolerance, max_extra)


def test_stopping_rule_hand_case():
    # first maximum 0.70 at iteration 2; 2% of it is 0.014: 0.69 (drop 1.4%) is kept, 0.68 (2.9%) is not
    curve = [0.50, 0.60, 0.70, 0.69, 0.68, 0.71, 0.72]
    rule = run_online(curve, patience=2, tolerance=0.02, max_extra=250)
    assert rule.best == 2 and rule.kept_iteration() == 3 and len(rule.history) == 5
    # without tolerance: the maximum found by early stopping (2 rounds without improvement)
    rule = run_online(curve, patience=2, tolerance=None, max_extra=250)
    assert rule.kept_iteration() == 2 and len(rule.history) == 5
    # at most max_extra trees after the maximum, and not past the trained rounds
    assert overfit_extension([0.5, 0.6, 0.6, 0.6, 0.6], 1, 0.02, 2) == 3
    assert overfit_extension([0.5, 0.6, 0.6], 1, 0.02, 250) == 2
    # a curve ending before early stopping fires (n_estimators reached)
    rule = run_online([0.1, 0.2, 0.3], patience=5, tolerance=0.02, max_extra=250)
    assert rule.kept_iteration() == 2 and rule.stopped_early_at is None


def synthetic_fold(n_queries, seed):
    """Train, validation and test sets: 10 features, labels 0-2 from a noisy linear signal."""
    from ltrbv.data.ranking_data import RankingData

    rng = np.random.default_rng(seed)
    out = []
    for part in range(3):
        sizes = rng.integers(5, 20, n_queries)
        n = int(sizes.sum())
        X = rng.normal(size=(n, 10)).astype(np.float32)
        signal = X[:, 0] + 0.5 * X[:, 1] - 0.3 * X[:, 2] + rng.normal(0, 1.0, n)
        labels = np.digitize(signal, [0.8, 1.8]).astype(np.int8)
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        out.append(RankingData(X=X, labels=labels, query_offsets=offsets,
                               qids=np.array([f"{part}-{q}" for q in range(n_queries)]),
                               line_numbers=np.arange(1, n + 1, dtype=np.int64)))
    return out


def test_lambdamart_overfit_tolerance_extends_the_non_overfitted_model():
    from ltrbv.learners import LambdaMART

    train, valid, test = synthetic_fold(120, 3)
    common = dict(n_estimators=400, learning_rate=0.3, max_leaves=15, early_stopping_rounds=20,
                  query_subsample=0.5, colsample_bynode=0.5, random_state=11)
    plain = LambdaMART(**common).fit(train, valid)
    tolerant = LambdaMART(**common, overfit_tolerance=0.02, overfit_max_extra_trees=60).fit(train, valid)
    info = tolerant.fit_info_
    curve = info["eval_history"]["valid"]["ndcg@10"]
    assert info["best_iteration"] == plain.fit_info_["best_iteration"]
    assert info["kept_iteration"] == overfit_extension(curve, info["best_iteration"], 0.02, 60)
    assert info["kept_iteration"] + 1 == paper_rule(curve, 20, 0.02, 60)
    assert info["kept_iteration"] > info["best_iteration"]
    # same seed and data: the overfitted model is the non-overfitted one plus extra trees
    np.testing.assert_array_equal(tolerant.predict(test, n_trees=info["best_iteration"] + 1), plain.predict(test))
    assert not np.array_equal(tolerant.predict(test), plain.predict(test))


# -- query samples of sub-models and trials ---------------------------------------------------------


def test_trial_samples_are_67_percent_without_replacement_reproducible_and_distinct():
    n = 471  # MQ2008 Fold1 training queries
    samples = [trial_queries(n, 0.67, 20261122, "mq2008", "Fold1", t) for t in range(1, 11)]
    for sample in samples:
        assert sample.size == round(0.67 * n) == 316
        assert np.unique(sample).size == sample.size  # without replacement
        assert sample.min() >= 0 and sample.max() < n and np.all(np.diff(sample) > 0)
    assert len({tuple(s) for s in samples}) == 10  # every trial differs
    again = trial_queries(n, 0.67, 20261122, "mq2008", "Fold1", 4)
    assert np.array_equal(again, samples[3])  # reproducible
    assert not np.array_equal(trial_queries(n, 0.67, 20261123, "mq2008", "Fold1", 4), samples[3])
    # pairwise overlap is about 0.67 * 316, as for independent samples
    overlaps = [np.intersect1d(a, b).size for i, a in enumerate(samples) for b in samples[i + 1:]]
    assert 0.55 * 316 < np.mean(overlaps) < 0.8 * 316
    assert sample_queries(3, 0.1, 0).size == 1
    with pytest.raises(ValueError):
        sample_queries(10, 0.0, 0)


# -- experiments' arithmetic -------------------------------------------------------------------------


def test_mean_ndcg_is_the_mean_of_ndcg_at_1_to_10():
    from ltrbv.metrics import evaluate

    rng = np.random.default_rng(5)
    offsets = np.array([0, 3, 15, 27])
    labels = rng.integers(0, 3, 27)
    scores = rng.normal(size=27)
    per_k = evaluate(scores, labels, offsets, [f"ndcg@{k}" for k in range(1, 11)], convention="letor4")
    want = [sum(per_k[f"ndcg@{k}"][q] for k in range(1, 11)) / 10 for q in range(3)]
    np.testing.assert_allclose(mean_ndcg(scores, labels, offsets, "letor4"), want, atol=1e-15)


def test_variance_summary_and_reduction():
    import pandas as pd

    runs = pd.DataFrame({
        "learner": ["rand"] * 3 + ["bag"] * 3,
        "convention": "letor4", "metric": "map",
        "value": [0.40, 0.44, 0.42, 0.42, 0.43, 0.425],
    })
    summary = variance_summary(runs, baseline="rand").set_index("learner")
    var_rand = np.var([0.40, 0.44, 0.42], ddof=1)
    var_bag = np.var([0.42, 0.43, 0.425], ddof=1)
    assert math.isclose(summary.loc["rand", "variance"], var_rand)
    assert math.isclose(summary.loc["bag", "variance_change_pct"], 100 * (var_bag - var_rand) / var_rand)
    assert summary.loc["bag", "variance_change_pct"] < 0 and summary.loc["rand", "variance_change_pct"] == 0


def test_bag_size_curve_uses_the_pool_and_is_reproducible():
    from ltrbv.metrics import evaluate

    rng = np.random.default_rng(9)
    offsets = np.array([0, 6, 14, 20])
    labels = rng.integers(0, 3, 20)
    pool = rng.normal(size=(6, 20))
    curve = bag_size_curve(pool, labels, offsets, [1, 3, 6], n_draws=25, seed=4)
    assert set(curve) == {1, 3, 6} and all(v.size == 25 for v in curve.values())
    # a bag of the whole pool is always the same bag
    full = evaluate(combine_minmax(pool, offsets), labels, offsets, ("map",), convention="letor4")["map"].mean()
    np.testing.assert_allclose(curve[6], full)
    # single sub-models: every value is one of the pool members' MAPs
    singles = {round(evaluate(row, labels, offsets, ("map",), convention="letor4")["map"].mean(), 12) for row in pool}
    assert {round(v, 12) for v in curve[1]} <= singles
    again = bag_size_curve(pool, labels, offsets, [1, 3, 6], n_draws=25, seed=4)
    assert all(np.array_equal(curve[m], again[m]) for m in curve)
