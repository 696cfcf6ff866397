"""Training sets of the bias-variance study (Ibrahim 2021 §5.2): query-level bootstrap and two-fold halves."""

from __future__ import annotations

import numpy as np
import pytest

from ltrbv.learners.training_sets import bootstrap_queries, per_tree_subsample, training_set, twofold_halves


@pytest.mark.parametrize("n", [2, 3, 10, 471])
def test_twofold_halves_are_disjoint_and_cover_all_queries(n):
    for j in range(1, 6):
        a, b = twofold_halves(n, 7, "d", "Fold1", j)
        assert np.intersect1d(a, b).size == 0
        assert np.array_equal(np.union1d(a, b), np.arange(n))
        assert abs(a.size - b.size) <= 1
    assert not np.array_equal(twofold_halves(471, 7, "d", "Fold1", 1)[0], twofold_halves(471, 7, "d", "Fold1", 2)[0])


def test_bootstrap_sets_draw_63_percent_without_replacement_and_differ():
    sets = [bootstrap_queries(471, 0.63, 7, "d", "Fold1", i) for i in range(1, 11)]
    for s in sets:
        assert s.size == round(0.63 * 471) and np.unique(s).size == s.size and s.max() < 471
    assert len({tuple(s) for s in sets}) == 10
    # each query is in about 63% of the sets
    share = np.bincount(np.concatenate(sets), minlength=471) / 10
    assert 0.55 < share.mean() < 0.70


def test_sets_are_reproducible_and_depend_on_seed_dataset_and_fold():
    same = training_set("twofold", "3b", 100, 0.63, 1, "d", "Fold1")
    assert np.array_equal(same, training_set("twofold", "3b", 100, 0.63, 1, "d", "Fold1"))
    for other in (training_set("twofold", "3b", 100, 0.63, 2, "d", "Fold1"),
                  training_set("twofold", "3b", 100, 0.63, 1, "e", "Fold1"),
                  training_set("twofold", "3b", 100, 0.63, 1, "d", "Fold2")):
        assert not np.array_equal(same, other)


def test_bad_replicate_names_are_refused():
    with pytest.raises(ValueError, match="two-fold replicate"):
        training_set("twofold", "3", 10, 0.63, 1, "d", "F")
    with pytest.raises(ValueError, match="bootstrap replicate"):
        training_set("bootstrap", "3a", 10, 0.63, 1, "d", "F")
    with pytest.raises(ValueError, match="unknown scheme"):
        training_set("jackknife", "1", 10, 0.63, 1, "d", "F")


def test_per_tree_subsample_gives_p_of_the_original_queries():
    # p = 0.05 of 6000 original queries = 300 queries per tree, from a training set of 3780 (63%)
    share = per_tree_subsample(0.05, 6000, 3780)
    assert round(share * 3780) == 300
    assert per_tree_subsample(0.5, 100, 50) == 1.0
    assert per_tree_subsample(0.63, 100, 50) == 1.0  # capped (such points are skipped upstream)
