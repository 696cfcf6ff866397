"""Node exploration strategies (Ibrahim & Carman 2016, "Node Expansion Strategies", Table XVI).

Every tree records the order in which its builder took nodes from the frontier
(``Tree.visit``).  Replaying that order against the open leaves at each step
checks each strategy's rule independently of the heap that implements it; the
splits themselves, given that order, are checked against brute force in
``test_forest_listwise.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ltrbv.forest import RankingForest
from ltrbv.forest._frontier import EXPLORATIONS

from test_forest_listwise import random_problem

STRATEGIES = list(EXPLORATIONS)


def grow(exploration: str, seed: int = 0, splitting: str = "list", data=None, n_estimators: int = 1):
    data = data if data is not None else random_problem(seed, 6, max_docs=25, n_features=3, n_values=30)
    forest = RankingForest(splitting=splitting, n_estimators=n_estimators, subsample=1.0, max_features=3,
                           exploration=exploration, random_state=seed).fit(data)
    return forest, data


def depth_first_preorder(tree) -> list[int]:
    """The recursive order, left child first: an independent oracle for ``depth-first``."""
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        order.append(node)
        if tree.feature[node] >= 0:
            stack += [tree.right[node], tree.left[node]]
    return order


def replay(tree, rule) -> int:
    """Walk the tree's order of visit; at each step the node taken must be open and satisfy ``rule``."""
    order = np.argsort(tree.visit)
    assert np.array_equal(np.sort(tree.visit), np.arange(tree.visit.size))  # every node taken exactly once
    open_nodes = {0}
    for node in order:
        assert node in open_nodes, (node, open_nodes)
        rule(tree, int(node), sorted(open_nodes))
        open_nodes.remove(node)
        if tree.feature[node] >= 0:
            open_nodes |= {int(tree.left[node]), int(tree.right[node])}
    assert not open_nodes
    return order.size


def first_among(key):
    """The rule 'the largest key among the open leaves, the node created first among equals'."""
    def rule(tree, node, open_nodes):
        best = max(open_nodes, key=lambda n: (key(tree, n), -n))
        assert node == best, (node, best, [key(tree, n) for n in open_nodes])
    return rule


RULES = {
    "breadth-first": first_among(lambda tree, n: -n),  # FIFO: the oldest open node
    "biggest-first": first_among(lambda tree, n: tree.n_samples[n]),
    "relevant-first": first_among(lambda tree, n: tree.value[n]),
    "random": lambda tree, node, open_nodes: None,  # any open node (its law: the next test)
}


@pytest.mark.parametrize("exploration", sorted(RULES))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_node_taken_is_the_strategys_choice_among_the_open_leaves(exploration, seed):
    forest, _ = grow(exploration, seed)
    tree = forest.trees_[0]
    assert replay(tree, RULES[exploration]) > 9


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_depth_first_is_the_recursive_preorder(seed):
    tree = grow("depth-first", seed)[0].trees_[0]
    assert list(np.argsort(tree.visit)) == depth_first_preorder(tree)


def test_breadth_first_takes_nodes_in_creation_order():
    tree = grow("breadth-first", 4)[0].trees_[0]
    assert np.array_equal(tree.visit, np.arange(tree.visit.size))


def test_random_takes_each_open_leaf_with_equal_probability():
    """After the root's split, two leaves are open: each is taken next with probability 1/2; with three
    open (after one of them split), each 1/3.  Exact binomial and chi-square tests over 400 trees."""
    data = random_problem(9, 6, max_docs=25, n_features=3, n_values=30)
    forest = RankingForest(splitting="list", n_estimators=400, subsample=1.0, max_features=3,
                           exploration="random", random_state=3).fit(data)
    second = [int(np.flatnonzero(t.visit == 1)[0]) for t in forest.trees_]
    assert set(second) == {1, 2}
    assert stats.binomtest(second.count(1), len(second), 0.5).pvalue > 1e-3
    third = []
    for t in forest.trees_:  # the node taken third, among the three open leaves when the second was split
        n2 = int(np.flatnonzero(t.visit == 1)[0])
        if t.feature[n2] >= 0:
            open_nodes = sorted({1, 2, int(t.left[n2]), int(t.right[n2])} - {n2})
            third.append(open_nodes.index(int(np.flatnonzero(t.visit == 2)[0])))
    assert len(third) > 300
    assert stats.chisquare(np.bincount(third, minlength=3)).pvalue > 1e-3


def test_pointwise_trees_do_not_depend_on_the_order():
    """A pointwise split sees only its node: with every feature tried at every node and no tied values,
    each strategy grows the same splits (numbered differently) and the same predictions, bit for bit."""
    rng = np.random.default_rng(0)
    data = random_problem(5, 8, max_docs=30, n_features=3, n_values=30)
    data.X[:] = rng.random(data.X.shape).astype(np.float32)
    predictions = {s: grow(s, 2, splitting="point", data=data, n_estimators=3)[0].predict(data) for s in STRATEGIES}
    for strategy in STRATEGIES:
        assert np.array_equal(predictions[strategy], predictions["breadth-first"]), strategy


def test_listwise_trees_depend_on_the_order():
    """A listwise split is chosen given every other leaf's score, so the order changes the trees."""
    trees = {s: grow(s, 6)[0].trees_[0] for s in STRATEGIES}
    shapes = {s: (t.feature.size, tuple(np.sort(t.threshold[t.feature >= 0]))) for s, t in trees.items()}
    assert len(set(shapes.values())) > 1, shapes


def test_an_unknown_strategy_is_refused():
    with pytest.raises(ValueError, match="exploration must be one of"):
        RankingForest(exploration="most-relevant-first")._validate_params()
