"""Algorithm 1 and eq. 6: unbiasedness in a simulation with known truth, and the stopping rule."""

import numpy as np
import pytest

from ltrbv.active.estimation import importance_weights, run_repetitions
from ltrbv.active.moments import true_measure
from ltrbv.active.rankings import ranks_from_scores
from ltrbv.active.sampling import estimate_distribution, method_distribution, query_costs


def _walk_one(sequence, costs, weights, values, budget):
    """Algorithm 1 for one draw sequence and one budget, written out plainly (the oracle)."""
    seen, spent, sw, swv = set(), 0.0, 0.0, 0.0
    for x in sequence:
        if x not in seen:
            if spent + costs[x] > budget:
                break
            seen.add(x)
            spent += costs[x]
        sw += weights[x]
        swv += weights[x] * values[x]
    return swv / sw, len(seen), spent


def _blocks_per_repetition(blocks, n_rows, cdf, costs, weights, values, budget):
    """Rebuild each repetition's draw sequence: block b holds rows only for repetitions still running."""
    m = cdf.size
    sequences = [[] for _ in range(n_rows)]
    running = list(range(n_rows))
    for u in blocks:
        assert u.shape[0] == len(running)
        draws = np.minimum(np.searchsorted(cdf, u * cdf[-1], side="right"), m - 1)
        for row, r in zip(draws, running):
            sequences[r].extend(row.tolist())
        running = [r for r in running if not _walk_one(sequences[r], costs, weights, values, budget)[3]]
    assert not running
    return sequences


def _walk_one(sequence, costs, weights, values, budget):
    """Algorithm 1 for one draw sequence and one budget, written out plainly (the oracle)."""
    seen, spent, sw, swv = set(), 0.0, 0.0, 0.0
    for x in sequence:
        if x not in seen:
            if spent + costs[x] > budget:
                return swv / sw, len(seen), spent, True
            seen.add(x)
            spent += costs[x]
        sw += weights[x]
        swv += weights[x] * values[x]
    return None, len(seen), spent, False


@pytest.mark.parametrize("block", [None, 3])
def test_walk_matches_plain_algorithm_1(block):
    rng = np.random.default_rng(0)
    m = 30
    q = rng.dirichlet(np.ones(m))
    costs = rng.uniform(0.2, 3.0, m)
    values = rng.normal(size=m)
    budgets = np.array([3.0, 5.0, 8.0, 13.0])

    class Recorder:
        """A generator that hands out uniforms and remembers them."""
        def __init__(self):
            self.inner = np.random.default_rng(5)
            self.blocks = []

        def random(self, shape):
            u = self.inner.random(shape)
            self.blocks.append(u)
            return u

    recorder = Recorder()
    result = run_repetitions(q, costs, values, budgets, 50, recorder, block=block)
    if block == 3:
        assert len(recorder.blocks) > 2
    weights = importance_weights(q)
    sequences = _blocks_per_repetition(recorder.blocks, 50, np.cumsum(q), costs, weights, values, budgets[-1])
    for r in range(50):
        for k, budget in enumerate(budgets):
            est, n_labelled, spent, stopped = _walk_one(sequences[r], costs, weights, values, budget)
            assert stopped
            assert result.estimates[r, k, 0] == pytest.approx(est, rel=1e-12)
            assert result.n_labelled[r, k] == n_labelled
            assert result.spent[r, k] == pytest.approx(spent)
            assert spent <= budget


def _synthetic_pool(seed=1, m=120, n_labels=3):
    """Queries whose labels are drawn from a known label model, with costs tied to the list length."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 15, size=m)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    n = offsets[-1]
    quality = np.repeat(rng.normal(size=m), sizes)
    logits = np.stack([np.zeros(n), quality, 2 * quality - 1], axis=1)[:, :n_labels]
    probs = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    labels = (rng.random(n)[:, None] > np.cumsum(probs, 1)).sum(1)
    scores = rng.normal(size=n) + probs @ np.arange(n_labels)
    return probs, labels, offsets, ranks_from_scores(scores, offsets)


@pytest.mark.parametrize("measure", ["dcg", "err"])
def test_active_estimator_is_unbiased_with_known_truth(measure):
    probs, labels, offsets, ranks = _synthetic_pool()
    costs = query_costs(offsets)
    truth_per_query = true_measure(labels, ranks, offsets, measure, 3)
    truth = truth_per_query.mean()
    q = estimate_distribution(probs, ranks, offsets, measure, costs)
    assert np.all(q > 0) and q.max() / q.min() > 3  # far from uniform: the weights matter
    # (a) the importance-weighted sum with a fixed number of draws is exactly unbiased
    rng = np.random.default_rng(2)
    draws = rng.choice(q.size, size=(20000, 10), p=q)
    w = importance_weights(q)
    fixed_n = (w[draws] * truth_per_query[draws]).mean(1)
    assert abs(fixed_n.mean() - truth) < 4 * fixed_n.std() / np.sqrt(fixed_n.size)
    unweighted = truth_per_query[draws].mean(1)
    assert abs(unweighted.mean() - truth) > 8 * unweighted.std() / np.sqrt(unweighted.size)  # the test can fail
    # (b) Algorithm 1 with eq. 6: mean error vanishes, within 4 standard errors + an O(1/n) allowance
    result = run_repetitions(q, costs, truth_per_query, [40.0], 20000, np.random.default_rng(3))
    est = result.estimates[:, 0, 0]
    se = est.std() / np.sqrt(est.size)
    n_mean = result.n_draws.mean()
    assert abs(est.mean() - truth) < 4 * se + 2 * est.std() ** 2 / abs(truth) / n_mean


def test_passive_is_uniform_and_active_variants_differ():
    probs, labels, offsets, ranks = _synthetic_pool(seed=4)
    costs = query_costs(offsets)
    q = {m: method_distribution(m, probs, [ranks], offsets, "dcg", costs)
         for m in ("passive", "active", "active_uniD", "active_uniC")}
    assert np.allclose(q["passive"], 1 / q["passive"].size)
    for m in q:
        assert q[m].sum() == pytest.approx(1.0)
    assert not np.allclose(q["active"], q["active_uniC"]) and not np.allclose(q["active"], q["active_uniD"])
    # cost-aware distributions prefer cheap queries
    cheap = costs < np.median(costs)
    assert q["active"][cheap].sum() > q["active_uniC"][cheap].sum()


def test_costs_mean_one_and_length_feature():
    offsets = np.array([0, 2, 6])
    assert query_costs(offsets).tolist() == pytest.approx([2 / 3, 4 / 3])
    features = np.array([[0.0], [np.e - 1], [0.0], [0.0], [0.0], [0.0]])
    costs = query_costs(offsets, features, length_feature=1)
    assert costs.mean() == pytest.approx(1.0)
    assert costs[0] / costs[1] == pytest.approx(3.0 / 4.0)


def test_budget_too_large_is_refused():
    with pytest.raises(ValueError, match="never stop"):
        run_repetitions(np.full(4, 0.25), np.ones(4), np.zeros(4), [5.0], 3, np.random.default_rng(0))
