"""Grid entries of the reproduction catalog (Ganjisaffar et al. 2011, Table 3 and Fig. 1): the combinations, the
best-of-k expectation against brute-force enumeration and random draws, and the verdicts."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pandas as pd
import pytest

from ltrbv.compare.claims import DESCRIPTIVE
from ltrbv.sections.catalog.kinds.grid import (BEST_OF_K, COMBINATION, best_of_k, best_of_k_table, grid_learners,
                                               grid_table)
from ltrbv.workflow.sections import SECTIONS

HOLDS, FAILS = f"{DESCRIPTIVE}: holds", f"{DESCRIPTIVE}: does not hold"  # a grid's claims are not tests


def claim_verdicts(table, claims):
    return list(claim_tests("grid", table, claims)["untested"])


from ltrbv.sections.catalog import grid as cg  # noqa: E402
from test_catalog import catalog_config, claim_tests  # noqa: E402

GBM = {"kind": "xgboost", "threads": 1, "params": {"n_estimators": 30, "max_leaves": 7, "learning_rate": 0.1}}
LEARNERS = {"gbm": GBM, "gbm-small": {**GBM, "params": {**GBM["params"], "max_leaves": 3}}}
GRID = {"paper": "Ganjisaffar et al. 2011", "artefact": "Fig. 1", "kind": "grid", "learners": ["gbm"],
        "grid": {"max_leaves": [3, 7, 15], "learning_rate": [0.1, 0.3]}, "sizes": [1, 2, 6]}


def test_every_combination_is_the_base_an_identical_learner_or_a_generated_one():
    config = catalog_config({"g": GRID}, learners=LEARNERS)
    learners = grid_learners(config, config["catalog"]["entries"]["g"])
    assert [c for c, _ in learners] == [{"max_leaves": m, "learning_rate": r} for m in (3, 7, 15) for r in (0.1, 0.3)]
    assert dict((tuple(c.values()), name) for c, name in learners) == {
        (3, 0.1): "gbm-small", (3, 0.3): "gbm+learning_rate-0.3+max_leaves-3", (7, 0.1): "gbm",
        (7, 0.3): "gbm+learning_rate-0.3+max_leaves-7", (15, 0.1): "gbm+learning_rate-0.1+max_leaves-15",
        (15, 0.3): "gbm+learning_rate-0.3+max_leaves-15"}
    assert cg.expand(config) == []
    assert config["learners"]["gbm+learning_rate-0.3+max_leaves-15"]["params"] == {
        "n_estimators": 30, "max_leaves": 15, "learning_rate": 0.3}
    assert grid_learners(config, config["catalog"]["entries"]["g"]) == learners  # stable after expansion


@pytest.mark.parametrize(("change", "message"), [
    ({"grid": {"max_leaves": [3, -1]}}, r"g\.grid\.max_leaves: -1 for learner 'gbm'"),
    ({"grid": {"leaves": [3, 7]}}, r"g\.grid: 'leaves' is not a parameter of learner 'gbm'"),
    ({"grid": {"learning_rate": [0.1, 0.1000000000001]}}, r"name the same learner twice"),
    ({"sizes": [1, 7]}, r"g\.sizes: 7 is more than the grid's 6 combinations"),
    ({"metric": "ndcg@x"}, r"g\.metric"),
    ({"learners": ["gbm", "gbm-small"]}, r"a grid searches one learner's parameters"),
    ({"claims": [{"kind": "best_below", "param": "n_estimators", "value": 1.0, "text": "t"}]},
     r"claims\[0\]\.param 'n_estimators' is not among the grid's parameters"),
    ({"claims": [{"kind": "trend", "learner": "gbm", "direction": "increasing", "text": "t"}]},
     r"a grid entry's claims are"),
])
def test_bad_grid_values_are_refused_naming_the_key(change, message):
    config = catalog_config({"g": {**GRID, **change}}, learners=LEARNERS)
    found = cg.expand(config) + cg.problems(config, SECTIONS)
    assert any(re.search(message, p) for p in found), found
    if "claims" not in change:  # a bad value generates nothing (a bad claim is refused with the whole config)
        assert not any("+" in name for name in config["learners"])


def brute_force_best_of_k(validation, test, k):
    """Every k-subset, equally likely; a tie for the best validation split evenly among the tied."""
    vs, ts = [], []
    for subset in itertools.combinations(range(len(validation)), k):
        best = max(validation[i] for i in subset)
        tied = [i for i in subset if validation[i] == best]
        vs.append(best)
        ts.append(np.mean([test[i] for i in tied]))
    return np.mean(vs), np.mean(ts)


@pytest.mark.parametrize("seed", range(6))
def test_best_of_k_equals_the_mean_over_every_subset(seed):
    rng = np.random.default_rng(seed)
    n = 9
    validation = rng.integers(0, 5, n).astype(float) / 10  # few values: ties for the best
    test = rng.random(n)
    for k in range(1, n + 1):
        expected = brute_force_best_of_k(validation, test, k)
        assert best_of_k(validation, test, k) == pytest.approx(expected, abs=1e-12), k


def test_best_of_k_agrees_with_the_papers_random_draws():
    """The paper's estimate: 10,000 random draws of k combinations (here 20,000 of 40 combinations)."""
    rng = np.random.default_rng(1)
    validation, test = rng.random(40), rng.random(40)
    for k in (1, 3, 10, 40):
        draws = np.array([rng.choice(40, size=k, replace=False) for _ in range(20_000)])
        best = draws[np.arange(len(draws)), validation[draws].argmax(axis=1)]
        v, t = best_of_k(validation, test, k)
        assert v == pytest.approx(validation[best].mean(), abs=4 * validation[best].std() / np.sqrt(20_000) + 1e-12)
        assert t == pytest.approx(test[best].mean(), abs=4 * test[best].std() / np.sqrt(20_000) + 1e-12)
    with pytest.raises(ValueError):
        best_of_k(validation, test, 41)


def long_values(values: dict, split_shift=0.0) -> pd.DataFrame:
    """per_query_values-shaped rows: ``values[learner]`` is a (runs, queries) array."""
    rows = []
    for learner, array in values.items():
        for run, per_query in enumerate(array):
            for q, v in enumerate(per_query):
                rows.append({"learner": learner, "fold": f"Fold{run % 2 + 1}", "seed": run // 2 + 1, "qid": str(q),
                             "metric": "ndcg@3", "value": v + split_shift})
    return pd.DataFrame(rows)


def test_grid_table_ranks_by_the_mean_over_runs_and_the_verdicts_read_it():
    rng = np.random.default_rng(0)
    names = ["a", "b", "c", "d"]
    valid = {n: rng.random((4, 5)) for n in names}
    test = {n: rng.random((4, 5)) for n in names}
    grid = [{"learner": n, "params": {"max_leaves": leaves, "colsample_bynode": share}}
            for n, (leaves, share) in zip(names, itertools.product((4, 7), (0.3, 1.0)))]
    table = grid_table(long_values(valid), long_values(test), grid, "ndcg@3")
    for n in names:
        row = table[table["learner"] == n].iloc[0]
        assert row["validation"] == pytest.approx(valid[n].mean(axis=1).mean(), abs=1e-12)
        assert row["test"] == pytest.approx(test[n].mean(axis=1).mean(), abs=1e-12)
    order = sorted(names, key=lambda n: -valid[n].mean())
    assert list(table.sort_values("rank")["learner"]) == order
    full = pd.concat([table, best_of_k_table(table, [1, 2, 4])], ignore_index=True)
    curve = full[full["part"] == BEST_OF_K]
    assert list(curve["k"]) == [1, 2, 4]
    assert curve["validation"].iloc[-1] == pytest.approx(max(valid[n].mean() for n in names))
    best = table.sort_values("rank").iloc[0]
    claims = [{"kind": "best_below", "param": "colsample_bynode", "value": 1.0, "text": "feature sampling"},
              {"kind": "overfits", "text": "overfits"}]
    verdicts = claim_verdicts(full, claims)
    assert verdicts[0] == (HOLDS if best["param:colsample_bynode"] < 1.0 else FAILS)
    t = curve["test"].to_numpy()
    assert verdicts[1] == (HOLDS if t.argmax() < len(t) - 1 and t[-1] < t.max() else FAILS)
    assert set(full["part"]) == {COMBINATION, BEST_OF_K}


def test_overfitting_verdict_on_a_made_up_curve():
    def table(test):
        return pd.DataFrame({"part": BEST_OF_K, "k": [1, 10, 100], "validation": [0.5, 0.6, 0.7], "test": test})
    claim = [{"kind": "overfits", "text": "t"}]
    assert claim_verdicts(table([0.40, 0.45, 0.44]), claim) == [HOLDS]
    assert claim_verdicts(table([0.40, 0.44, 0.45]), claim) == [FAILS]
