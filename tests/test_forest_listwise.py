"""RF-list splits against a brute-force recomputation of the mean expected NDCG over all candidates.

The oracle for expected NDCG is ltrbv.metrics with ties="expected" (itself
tested against the average over all permutations of tied documents).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltrbv.data.ranking_data import RankingData
from ltrbv.forest import RankingForest
from ltrbv.metrics import evaluate


def random_problem(seed: int, n_queries: int, max_docs: int, n_features: int, n_values: int = 4) -> RankingData:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, max_docs + 1, size=n_queries)
    n = int(sizes.sum())
    X = rng.integers(0, n_values, size=(n, n_features)).astype(np.float32)  # few values: many ties
    labels = rng.integers(0, 3, size=n).astype(np.int8)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    return RankingData(X=X, labels=labels, query_offsets=offsets, qids=np.arange(n_queries).astype(str),
                       line_numbers=np.arange(1, n + 1))


def mean_expected_ndcg(scores: np.ndarray, data: RankingData) -> float:
    values = evaluate(scores, data.labels, data.query_offsets, ["ndcg"], convention="standard", ties="expected")
    return float(np.mean(values["ndcg"]))


def mean_printed_ndcg(scores: np.ndarray, data: RankingData) -> float:
    """Algorithm 4 as printed, written out independently: per query, each group of equal scores (descending)
    adds count * avgGain * sum of 1/log2(k + 1) over its ranks k = a+1 .. a+t; divided by the ideal DCG."""
    total = 0.0
    for q in range(data.n_queries):
        lo, hi = data.query_offsets[q], data.query_offsets[q + 1]
        gains = 2.0 ** data.labels[lo:hi].astype(float) - 1.0
        ideal = sum(g / np.log2(r + 2) for r, g in enumerate(sorted(gains, reverse=True)))
        if ideal == 0:
            continue
        s = scores[lo:hi]
        value, above = 0.0, 0
        for level in sorted(set(s.tolist()), reverse=True):
            group = s == level
            count = int(group.sum())
            avg_gain = gains[group].mean()
            value += count * avg_gain * sum(1.0 / np.log2(k + 1) for k in range(above + 1, above + count + 1))
            above += count
        total += value / ideal
    return total / data.n_queries


OBJECTIVES = {"ndcg": mean_expected_ndcg, "ndcg-printed": mean_printed_ndcg}


def leaves_before(tree, node: int) -> np.ndarray:
    """The split nodes the tree had when it took `node` from its frontier (in its order of visit)."""
    return (tree.visit < tree.visit[node]) & (tree.feature >= 0)


def route(tree, X, split_before) -> np.ndarray:
    out = np.empty(X.shape[0], dtype=np.int64)
    for i, x in enumerate(X):
        n = 0
        while split_before[n]:
            n = tree.left[n] if x[tree.feature[n]] <= tree.threshold[n] else tree.right[n]
        out[i] = n
    return out


def brute_force_best(data, tree, node, objective=mean_expected_ndcg):
    """Max over all features and midpoints of the objective (mean expected NDCG) after splitting `node`."""
    leaf = route(tree, data.X, leaves_before(tree, node))
    in_node = leaf == node
    base_scores = tree.value[leaf]
    best = objective(base_scores, data)
    current = best
    for f in range(data.n_features):
        values = np.unique(data.X[in_node, f])
        for lo, hi in zip(values[:-1], values[1:]):
            threshold = lo / 2.0 + hi / 2.0
            go_left = in_node & (data.X[:, f] <= threshold)
            go_right = in_node & ~go_left
            scores = base_scores.copy()
            scores[go_left] = data.labels[go_left].mean()
            scores[go_right] = data.labels[go_right].mean()
            best = max(best, objective(scores, data))
    return current, best


def chosen_value(data, tree, node, objective=mean_expected_ndcg):
    leaf = route(tree, data.X, (tree.visit <= tree.visit[node]) & (tree.feature >= 0))
    return objective(tree.value[leaf], data)


@pytest.mark.parametrize(("objective", "exploration"), [("ndcg", "breadth-first"), ("ndcg-printed", "breadth-first"),
                                                      ("ndcg", "random"), ("ndcg", "biggest-first"),
                                                      ("ndcg", "relevant-first"), ("ndcg", "depth-first")])
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n_queries=st.integers(1, 10), n_features=st.integers(1, 3),
       n_values=st.sampled_from([2, 4, 30]))
def test_every_listwise_split_is_the_brute_force_argmax(objective, exploration, seed, n_queries, n_features,
                                                       n_values):
    """Each split, given the leaves the tree had when it took the node (in its own order of visit)."""
    data = random_problem(seed, n_queries, max_docs=max(2, 60 // n_queries), n_features=n_features, n_values=n_values)
    forest = RankingForest(splitting="list", n_estimators=1, subsample=1.0, max_features=n_features,
                           listwise_objective=objective, exploration=exploration, random_state=seed).fit(data)
    tree = forest.trees_[0]
    oracle = OBJECTIVES[objective]
    for node in range(tree.feature.size):
        if tree.n_samples[node] < 2 or np.all(data.labels == data.labels[0]):
            continue
        current, best = brute_force_best(data, tree, node, oracle)
        if tree.feature[node] >= 0:
            got = chosen_value(data, tree, node, oracle)
            assert got == pytest.approx(best, abs=1e-9), (node, got, best)
            assert got > current
            assert tree.gain[node] == pytest.approx(got - current, abs=1e-9)
        else:
            # a leaf that could have been split: only when no split raises expected NDCG
            assert best <= current + 1e-9, (node, current, best)


def test_printed_objective_weighs_a_tie_group_by_its_size():
    """One query, all documents tied: the printed value is t times eq. 13's expected NDCG (here t = 5)."""
    data = RankingData(X=np.zeros((5, 1), np.float32), labels=np.array([2, 0, 1, 0, 1], np.int8),
                       query_offsets=np.array([0, 5]), qids=np.array(["q"]), line_numbers=np.arange(1, 6))
    scores = np.zeros(5)
    assert mean_printed_ndcg(scores, data) == pytest.approx(5 * mean_expected_ndcg(scores, data), rel=1e-12)


def printed_change_by_hand(gains_top, gains_bottom, above: int = 0) -> float:
    """-(G_T * D_B + G_B * D_T): the change of Algorithm 4's printed DCG when a tie group at ranks above+1 ..
    splits into a top group (gains_top) and a bottom one (gains_bottom)."""
    t, b = len(gains_top), len(gains_bottom)
    d_top = sum(1.0 / np.log2(k + 1) for k in range(above + 1, above + t + 1))
    d_bottom = sum(1.0 / np.log2(k + 1) for k in range(above + t + 1, above + t + b + 1))
    return -(sum(gains_top) * d_bottom + sum(gains_bottom) * d_top)


@pytest.mark.parametrize(("labels", "top"), [([2, 0, 1, 0, 1], [0, 2]), ([1, 1], [0]), ([0, 0, 2], [2]),
                                             ([3, 0, 0, 0], [1, 2, 3])])
def test_every_split_of_a_tie_group_lowers_the_printed_objective_by_the_formula(labels, top):
    """One query, all documents tied, then the documents ``top`` scored above the rest: the independent
    printed value (mean_printed_ndcg) changes by -(G_T * D_B + G_B * D_T) / ideal DCG, never upward."""
    labels = np.array(labels, np.int8)
    n = labels.size
    data = RankingData(X=np.zeros((n, 1), np.float32), labels=labels, query_offsets=np.array([0, n]),
                       qids=np.array(["q"]), line_numbers=np.arange(1, n + 1))
    split = np.zeros(n)
    split[top] = 1.0
    gains = 2.0 ** labels.astype(float) - 1.0
    ideal = sum(g / np.log2(r + 2) for r, g in enumerate(sorted(gains, reverse=True)))
    bottom = [i for i in range(n) if i not in top]
    expected = printed_change_by_hand(gains[top], gains[bottom]) / ideal
    change = mean_printed_ndcg(split, data) - mean_printed_ndcg(np.zeros(n), data)
    assert change == pytest.approx(expected, abs=1e-12)
    assert change < 0  # each case has a relevant document


def test_no_printed_tree_ever_splits_and_the_forest_is_a_constant():
    """Over 300 random problems (many ties, up to 10 queries), RF-list with the printed objective grows a single
    leaf per tree, and predicts one value for every document; the defined objective splits on most of them."""
    split_defined = 0
    for seed in range(300):
        data = random_problem(seed, 1 + seed % 10, max_docs=12, n_features=3, n_values=(2, 4, 30)[seed % 3])
        with pytest.warns(UserWarning, match="builds a constant model"):
            printed = RankingForest(splitting="list", n_estimators=2, subsample=1.0, max_features=3,
                                    listwise_objective="ndcg-printed", random_state=seed).fit(data)
        assert all(tree.feature.size == 1 and tree.feature[0] < 0 for tree in printed.trees_), seed
        assert np.ptp(printed.predict(data)) == 0
        defined = RankingForest(splitting="list", n_estimators=1, subsample=1.0, max_features=3,
                                random_state=seed).fit(data)
        split_defined += defined.trees_[0].feature.size > 1
    assert split_defined > 150  # the same problems are not unsplittable: eq. 13 splits them


def test_tree_training_expected_ndcg_rises_by_the_recorded_gains():
    data = random_problem(7, 4, max_docs=12, n_features=3, n_values=6)
    tree = RankingForest(splitting="list", n_estimators=1, subsample=1.0, max_features=3).fit(data).trees_[0]
    root = mean_expected_ndcg(np.full(data.n_docs, data.labels.mean()), data)
    final = mean_expected_ndcg(tree.value[route(tree, data.X, tree.feature >= 0)], data)
    assert final == pytest.approx(root + tree.gain[tree.feature >= 0].sum(), abs=1e-9)


@pytest.mark.parametrize("exploration", ["breadth-first", "random", "biggest-first", "relevant-first", "depth-first"])
def test_strength_curve_steps_by_the_listwise_gains(exploration):
    from ltrbv.forest.diagnostics import leaf_statistics, strength_curve

    data = random_problem(11, 6, max_docs=10, n_features=3, n_values=8)
    tree = RankingForest(splitting="list", n_estimators=1, subsample=1.0, max_features=3,
                         exploration=exploration).fit(data).trees_[0]
    curve = strength_curve(tree, data)
    assert curve.size == 1 + np.count_nonzero(tree.feature >= 0)
    # with every training query in the tree, each step of the curve is that split's recorded gain, in the
    # order the tree made its splits
    split = np.flatnonzero(tree.feature >= 0)
    np.testing.assert_allclose(np.diff(curve), tree.gain[split[np.argsort(tree.visit[split])]], atol=1e-9)
    stats = leaf_statistics(tree, data)
    assert stats["n_leaves"] == tree.n_leaves and stats["rows_per_leaf"].sum() == data.n_docs
    assert stats["leaf_sizes"].sum() == data.n_docs


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n_queries=st.integers(2, 10), n_values=st.sampled_from([2, 4, 30]))
def test_queries_without_a_relevant_document_leave_every_split_the_brute_force_argmax(seed, n_queries, n_values):
    """A query whose documents are all irrelevant has weight 0 (ideal DCG 0): the search gives it no groups and
    never evaluates it (``_levels.node_groups``), though its documents still move the children's scores.  Every
    other query has its labels zeroed here, and each split must still be the brute-force argmax."""
    data = random_problem(seed, n_queries, max_docs=max(2, 60 // n_queries), n_features=2, n_values=n_values)
    labels = data.labels.copy()
    for q in range(0, n_queries, 2):
        labels[data.query_offsets[q]:data.query_offsets[q + 1]] = 0
    data = RankingData(X=data.X, labels=labels, query_offsets=data.query_offsets, qids=data.qids,
                       line_numbers=data.line_numbers)
    tree = RankingForest(splitting="list", n_estimators=1, subsample=1.0, max_features=2,
                         random_state=seed).fit(data).trees_[0]
    for node in range(tree.feature.size):
        if tree.n_samples[node] < 2 or np.all(labels == labels[0]):
            continue
        current, best = brute_force_best(data, tree, node)
        if tree.feature[node] >= 0:
            assert chosen_value(data, tree, node) == pytest.approx(best, abs=1e-9), node
        else:
            assert best <= current + 1e-9, (node, current, best)


def _random_groups(seed: int):
    """A node's other-leaf groups (slots' scores descending, many ties across slots) and its tree's score table."""
    from ltrbv.forest._levels import make_workspace, unused_data

    rng = np.random.default_rng(seed)
    n_slots = int(rng.integers(1, 40))
    counts = rng.integers(0, 12, size=n_slots)  # some slots without other-leaf groups
    grid = np.round(rng.uniform(0, 4, size=25), 2)  # few distinct scores: ties across slots
    table = rng.permutation(np.unique(grid))  # ids in order of first use, not of score
    n = int(counts.sum()) + n_slots + 1
    ws = make_workspace(n, n_slots, n_slots, unused_data())
    ws.g_offsets[0] = 0
    for slot, c in enumerate(counts):
        scores = np.sort(rng.choice(grid, size=min(int(c), grid.size), replace=False))[::-1]
        lo = ws.g_offsets[slot]
        ws.g_score[lo:lo + scores.size] = scores
        ws.g_id[lo:lo + scores.size] = [int(np.flatnonzero(table == s)[0]) for s in scores]
        ws.group_slot[lo:lo + scores.size] = slot
        ws.g_offsets[slot + 1] = lo + scores.size
    ws.id_score[:table.size] = table
    return ws, n_slots, table.size


@pytest.mark.parametrize("seed", range(8))
def test_the_level_index_by_score_rank_equals_its_comparison_sort(seed):
    """``_levels.level_index``: the scan's dirty-list order (hence the summation order, hence the trees' bits) needs
    exactly the order of a stable sort of the node's groups by descending score, ties across slots in slot order,
    grouped into levels.  Its counting sort by each group's rank in the tree's score table and its merge sort (the
    table overflowed) are compared with numpy's stable argsort on random nodes with many tied scores; ids added
    after a ranking are ranked again."""
    from ltrbv.forest._levels import OVERFLOW, level_index

    ws, n_slots, n_ids = _random_groups(seed)
    n_groups = int(ws.g_offsets[n_slots])
    results = []
    for state in ([n_ids, 0], [OVERFLOW, 0], [n_ids, n_ids - 1]):  # counting sort, merge sort, a stale ranking
        ws.table_state[:] = state
        if state[0] > 0 and state[1] == n_ids - 1:
            ws.id_rank[:n_ids] = 0  # stale ranks must not be used
        n_levels = level_index(ws, n_groups)
        results.append((ws.levels[:n_levels].copy(), ws.level_offsets[:n_levels + 1].copy(),
                        ws.level_slots[:n_groups].copy()))
        if state[0] > 0 and n_groups > 0 and n_ids <= 2 * n_groups:
            assert ws.table_state[1] == n_ids  # the counting sort ranked the table
    order = np.argsort(-ws.g_score[:n_groups], kind="stable")
    for levels, offsets, slots in results:
        np.testing.assert_array_equal(slots, ws.group_slot[order])
        np.testing.assert_array_equal(levels, np.unique(ws.g_score[:n_groups])[::-1])
        np.testing.assert_array_equal(offsets, np.concatenate(([0], np.cumsum(
            [np.sum(ws.g_score[:n_groups] == v) for v in levels]))))


def test_the_score_table_gives_one_id_per_score_and_overflows_once_full():
    from ltrbv.forest._levels import OVERFLOW, SCORE_TABLE_SIZE, make_workspace, score_id, unused_data

    ws = make_workspace(4, 1, 1, unused_data())
    ws.table_state[:] = 0
    assert [score_id(ws, s) for s in (0.5, 1.0, 0.5, 0.0, 1.0)] == [0, 1, 0, 2, 1]
    for k in range(3, SCORE_TABLE_SIZE):
        assert score_id(ws, 10.0 + k) == k
    assert score_id(ws, 0.5) == 0 and ws.table_state[0] == SCORE_TABLE_SIZE
    assert score_id(ws, -1.0) == -1 and ws.table_state[0] == OVERFLOW
    assert score_id(ws, 0.5) == -1  # stays overflowed for the rest of the tree


@pytest.mark.parametrize("seed", range(4))
def test_level_class_from_a_hint_equals_the_binary_search(seed):
    """``level_class_near`` walks at most LEVEL_WALK levels from any hint, then searches: the same class as
    ``level_class`` for scores at, between, above and below the levels, near and far from the hint."""
    from ltrbv.forest._levels import level_class, level_class_near

    rng = np.random.default_rng(seed)
    for n in (0, 1, 2, 7, 8, 9, 40):
        levels = np.sort(rng.choice(np.linspace(0, 4, 200), size=n, replace=False))[::-1].copy()
        probes = np.concatenate((levels, rng.uniform(-0.5, 4.5, size=60), [-1.0, 5.0]))
        for s in probes:
            expected = level_class(levels, 0, n, s)
            for hint in range(n + 1):
                assert level_class_near(levels, n, s, hint) == expected, (n, s, hint)
