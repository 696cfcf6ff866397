"""RF-list's split criterion: the change in the mean expected NDCG of the tree's training queries.

Ibrahim & Carman 2016, §4.3 and Algorithm 4.  Every document of a training
query sits in some leaf of the growing tree and gets that leaf's score (its
mean label, eq. 9); documents with equal scores are tied, and the expected
DCG over all orders of tied documents is (eq. 11-13)

    E[DCG_q] = sum over tie groups g of  G_g * (CD[a_g + t_g] - CD[a_g]) / t_g

where G_g is the group's summed gain 2^l - 1, a_g the number of the query's
documents with a strictly higher score, t_g the group size and CD the
cumulative discount table (eq. 14/15 give the alternative discounts).  Tie
groups merge documents of *all* leaves with equal scores, not only of one leaf.

Splitting node D into L and R moves only D's documents: from score s_D to s_L
or s_R.  For a query q the groups of other leaves whose score lies outside
[min(s_L, s_R), max(s_L, s_R)] keep their a and t (s_D is a weighted mean of
s_L and s_R, so it lies in that interval too), so the change of E[DCG_q] needs
only the groups inside it, found by binary search in q's groups sorted by
score.  Per node we build, for each query with documents in D, its groups from
the other leaves once (per-leaf, per-query label sums), then scan each
candidate feature's sorted values keeping per-query left counts and gain sums.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._splitter import draw_feature, gather_feature, key_value, midpoint_threshold, reset_feature_pool, sortable_keys

POSITION_BITS = 24  # nodes of up to 16.7M documents
MIN_CHANGE = 1e-10  # a split must raise the summed expected NDCG by more than rounding noise


def cumulative_discounts(max_rank: int, discount: str = "log2", power: float = 1.0, truncation: int | None = None) -> np.ndarray:
    """CD[r] = sum_{k=1..r} 1/discount(k) for r = 0..max_rank.

    ``log2``: discount(k) = log2(k + 1) (standard NDCG, eq. 12);
    ``log-power``: [log(k + 1)]^alpha (eq. 14, alpha = power);
    ``rank-power``: k^beta (eq. 15, beta = power).
    With ``truncation`` k0, ranks beyond k0 get weight 0 (NDCG@k0).
    """
    k = np.arange(1, max_rank + 1, dtype=np.float64)
    if discount == "log2":
        weights = 1.0 / np.log2(k + 1.0)
    elif discount == "log-power":
        weights = 1.0 / np.log(k + 1.0) ** power
    elif discount == "rank-power":
        weights = 1.0 / k**power
    else:
        raise ValueError(f"unknown discount {discount!r}: log2, log-power or rank-power")
    if truncation is not None:
        weights[truncation:] = 0.0
    out = np.zeros(max_rank + 1)
    np.cumsum(weights, out=out[1:])
    return out


@njit(cache=True)
def tie_group_value(gain_sum, above, size, cum_discount):
    """G * (CD[a + t] - CD[a]) / t: a tie group's expected DCG (eq. 13)."""
    if size == 0 or gain_sum == 0.0:
        return 0.0
    return gain_sum * (cum_discount[above + size] - cum_discount[above]) / size


@njit(cache=True)
def _first_not_above(scores, lo, hi, s):
    """First index in scores[lo:hi] (sorted descending) whose score is <= s."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if scores[mid] > s:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _first_below(scores, lo, hi, s):
    """First index in scores[lo:hi] (sorted descending) whose score is < s."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if scores[mid] >= s:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _inserted_group_value(g_score, g_count, g_above, g0, g1, gain, n, s, n_other, s_other, cum_discount):
    """Expected DCG of n documents with summed gain placed at score s among the other leaves' groups
    and n_other further documents of the query at s_other (the sibling child)."""
    i = _first_not_above(g_score, g0, g1, s)
    j = _first_below(g_score, i, g1, s)
    above = g_above[i] if i < g1 else (g_above[g1 - 1] + g_count[g1 - 1] if g1 > g0 else 0)
    tied = n + _count(g_count, i, j)
    if s_other > s:
        above += n_other
    elif s_other == s:
        tied += n_other
    return tie_group_value(gain, above, tied, cum_discount)


@njit(cache=True)
def query_dcg_change(g_score, g_count, g_gain, g_above, g0, g1,
                     n_left, gain_left, s_left, n_right, gain_right, s_right, s_node, cum_discount):
    """Change of E[DCG_q] when node D's documents of query q move from s_node to s_left / s_right.

    Groups g0..g1 are q's tie groups from the *other* leaves, sorted by
    descending score, with g_above their count of higher-scored documents.
    """
    n_node = n_left + n_right
    gain_node = gain_left + gain_right
    lo_s = min(s_left, s_right)
    hi_s = max(s_left, s_right)
    change = 0.0
    # other groups with lo_s <= score <= hi_s change their a or t
    first = _first_not_above(g_score, g0, g1, hi_s)
    last = _first_below(g_score, first, g1, lo_s)
    for g in range(first, last):
        s = g_score[g]
        a_old = g_above[g] + (n_node if s_node > s else 0)
        t_old = g_count[g] + (n_node if s_node == s else 0)
        a_new = g_above[g] + (n_left if s_left > s else 0) + (n_right if s_right > s else 0)
        t_new = g_count[g] + (n_left if s_left == s else 0) + (n_right if s_right == s else 0)
        change += tie_group_value(g_gain[g], a_new, t_new, cum_discount)
        change -= tie_group_value(g_gain[g], a_old, t_old, cum_discount)
    # the node's own documents: before as one group at s_node, after at s_left and s_right
    change -= _inserted_group_value(g_score, g_count, g_above, g0, g1, gain_node, n_node, s_node, 0, 0.0, cum_discount)
    if n_left > 0:
        change += _inserted_group_value(g_score, g_count, g_above, g0, g1, gain_left, n_left, s_left,
                                        n_right, s_right, cum_discount)
    if n_right > 0:
        change += _inserted_group_value(g_score, g_count, g_above, g0, g1, gain_right, n_right, s_right,
                                        n_left, s_left, cum_discount)
    return change


@njit(cache=True)
def _count(g_count, i, j):
    total = 0
    for g in range(i, j):
        total += g_count[g]
    return total


@njit(cache=True)
def build_query_groups(samples, start, end, node_id, doc_query, query_offsets, doc_leaf, node_score, gains,
                       slot_query, slot_start, slot_n, slot_gain,
                       g_offsets, g_score, g_count, g_gain, g_above, scratch_scores, scratch_gains):
    """For each query with documents in node D, its tie groups over the other leaves.

    Node documents are grouped by query (the builder keeps them so), giving
    query slots 0..n_slots-1 with slot_start/slot_n into samples[start:end].
    Returns n_slots; groups of slot j are g_offsets[j]:g_offsets[j + 1].
    """
    n_slots = 0
    i = start
    while i < end:
        q = doc_query[samples[i]]
        j = i
        gain_sum = 0.0
        while j < end and doc_query[samples[j]] == q:
            gain_sum += gains[samples[j]]
            j += 1
        slot_query[n_slots] = q
        slot_start[n_slots] = i - start
        slot_n[n_slots] = j - i
        slot_gain[n_slots] = gain_sum
        n_slots += 1
        i = j
    g_offsets[0] = 0
    for slot in range(n_slots):
        q = slot_query[slot]
        m = 0
        for d in range(query_offsets[q], query_offsets[q + 1]):
            leaf = doc_leaf[d]
            if leaf < 0 or leaf == node_id:
                continue
            scratch_scores[m] = -node_score[leaf]  # ascending sort of -score = descending score
            scratch_gains[m] = gains[d]
            m += 1
        base = g_offsets[slot]
        if m == 0:
            g_offsets[slot + 1] = base
            continue
        order = np.argsort(scratch_scores[:m], kind="mergesort")
        n_groups = 0
        above = 0
        previous = np.nan
        for k in range(m):
            s = -scratch_scores[order[k]]
            if n_groups == 0 or s != previous:
                g = base + n_groups
                g_score[g] = s
                g_count[g] = 0
                g_gain[g] = 0.0
                g_above[g] = above
                n_groups += 1
                previous = s
            g = base + n_groups - 1
            g_count[g] += 1
            g_gain[g] += scratch_gains[order[k]]
            above += 1
        g_offsets[slot + 1] = base + n_groups
    return n_slots


@njit(cache=True)
def _score_levels(g_score, n_groups):
    """Distinct group scores in descending order, each group's level, and level -> groups (CSR)."""
    order = np.argsort(-g_score[:n_groups], kind="mergesort")
    level_of_group = np.empty(n_groups, dtype=np.int64)
    levels = np.empty(n_groups, dtype=np.float64)
    n_levels = 0
    for k in range(n_groups):
        g = order[k]
        if n_levels == 0 or g_score[g] != levels[n_levels - 1]:
            levels[n_levels] = g_score[g]
            n_levels += 1
        level_of_group[g] = n_levels - 1
    level_offsets = np.zeros(n_levels + 1, dtype=np.int64)
    for g in range(n_groups):
        level_offsets[level_of_group[g] + 1] += 1
    for v in range(n_levels):
        level_offsets[v + 1] += level_offsets[v]
    level_groups = np.empty(n_groups, dtype=np.int64)
    fill = level_offsets[:-1].copy()
    for k in range(n_groups):
        g = order[k]
        v = level_of_group[g]
        level_groups[fill[v]] = g
        fill[v] += 1
    return levels[:n_levels], level_offsets, level_groups


@njit(cache=True)
def _level_class(levels, s):
    """(number of levels above s, whether s equals the next level)."""
    i = _first_not_above(levels, 0, levels.size, s)
    return i, i < levels.size and levels[i] == s


@njit(cache=True)
def best_listwise_split(
    Xt, labels, gains, samples, start, end, node_id, max_features, min_leaf, rng, feature_pool, values, keys,
    scratch_bits, doc_query, query_offsets, doc_leaf, node_score, inverse_ideal_dcg, cum_discount,
    slot_query, slot_start, slot_n, slot_gain, slot_left_n, slot_left_gain, slot_of_position,
    g_offsets, g_score, g_count, g_gain, g_above, scratch_scores, scratch_gains,
):
    """Best split of node D by the change in summed expected NDCG of its queries (Algorithm 4).

    Returns (feature, threshold, summed_ndcg_change); feature = -1 if no valid split.
    The caller divides by the number of training queries for the mean.

    The scan keeps each query's current change and the running total.  A
    query's change depends on the scores s_L, s_R only through how they
    compare with its groups' scores and with each other, so when one document
    moves left only its own query, the queries with a group at a score level
    that s_L or s_R crossed, and (when s_L and s_R change order) the queries
    present on both sides are recomputed.
    """
    n = end - start
    n_features = Xt.shape[0]
    n_slots = build_query_groups(samples, start, end, node_id, doc_query, query_offsets, doc_leaf, node_score,
                                 gains, slot_query, slot_start, slot_n, slot_gain,
                                 g_offsets, g_score, g_count, g_gain, g_above, scratch_scores, scratch_gains)
    n_groups = g_offsets[n_slots]
    group_slot = np.empty(n_groups, dtype=np.int64)
    for slot in range(n_slots):
        for g in range(g_offsets[slot], g_offsets[slot + 1]):
            group_slot[g] = slot
    levels, level_offsets, level_groups = _score_levels(g_score, n_groups)
    slot_change = np.zeros(n_slots, dtype=np.float64)
    slot_stamp = np.full(n_slots, -1, dtype=np.int64)
    moved_slots = np.empty(n, dtype=np.int64)
    label_total = 0.0
    for slot in range(n_slots):
        for p in range(slot_start[slot], slot_start[slot] + slot_n[slot]):
            slot_of_position[p] = slot
            label_total += labels[samples[start + p]]
    s_node = label_total / n
    reset_feature_pool(feature_pool)
    best_feature = -1
    best_threshold = 0.0
    best_change = MIN_CHANGE
    visited = 0
    scanned = 0
    node_values = values[:n]
    node_keys = keys[:n]
    position_mask = (1 << POSITION_BITS) - 1
    positions = np.arange(n, dtype=np.int64)
    while visited < n_features and scanned < max_features:
        feature = draw_feature(rng, feature_pool, visited)
        visited += 1
        lo, hi = gather_feature(Xt, feature, samples, start, end, node_values)
        if lo == hi:
            continue
        scanned += 1
        sortable_keys(node_values, positions, POSITION_BITS, node_keys)
        node_keys.sort()
        for slot in range(n_slots):
            slot_left_n[slot] = 0
            slot_left_gain[slot] = 0.0
            slot_change[slot] = 0.0
            slot_stamp[slot] = -1
        total_change = 0.0
        label_left = 0.0
        n_moved = 0
        evaluated = False
        left_class = (0, False)
        right_class = _level_class(levels, s_node)  # before the scan every document sits at s_node
        order_class = 0
        for i in range(n - 1):
            p = node_keys[i] & position_mask
            doc = samples[start + p]
            slot = slot_of_position[p]
            slot_left_n[slot] += 1
            slot_left_gain[slot] += gains[doc]
            label_left += labels[doc]
            moved_slots[n_moved] = slot
            n_moved += 1
            n_left = i + 1
            if (node_keys[i] >> POSITION_BITS) == (node_keys[i + 1] >> POSITION_BITS):
                continue
            if n_left < min_leaf or n - n_left < min_leaf:
                continue
            # a candidate: bring the running total up to date, touching only queries whose change can differ
            s_left = label_left / n_left
            s_right = (label_total - label_left) / (n - n_left)
            new_left = _level_class(levels, s_left)
            new_right = _level_class(levels, s_right)
            new_order = 1 if s_left > s_right else (0 if s_left == s_right else -1)
            for k in range(n_moved):
                total_change += _refresh(i, moved_slots[k], slot_stamp, slot_change, slot_query, inverse_ideal_dcg,
                                         g_score, g_count, g_gain, g_above, g_offsets, slot_n, slot_gain,
                                         slot_left_n, slot_left_gain, s_left, s_right, s_node, cum_discount)
            n_moved = 0
            if evaluated and new_left != left_class:
                a = min(left_class[0], new_left[0])
                b = max(left_class[0] + left_class[1], new_left[0] + new_left[1])
                for v in range(a, b):
                    for k in range(level_offsets[v], level_offsets[v + 1]):
                        slot = group_slot[level_groups[k]]
                        if slot_left_n[slot] > 0:
                            total_change += _refresh(i, slot, slot_stamp, slot_change, slot_query,
                                                     inverse_ideal_dcg, g_score, g_count, g_gain, g_above,
                                                     g_offsets, slot_n, slot_gain, slot_left_n, slot_left_gain,
                                                     s_left, s_right, s_node, cum_discount)
            if new_right != right_class:
                a = min(right_class[0], new_right[0])
                b = max(right_class[0] + right_class[1], new_right[0] + new_right[1])
                for v in range(a, b):
                    for k in range(level_offsets[v], level_offsets[v + 1]):
                        slot = group_slot[level_groups[k]]
                        if slot_left_n[slot] < slot_n[slot]:
                            total_change += _refresh(i, slot, slot_stamp, slot_change, slot_query,
                                                     inverse_ideal_dcg, g_score, g_count, g_gain, g_above,
                                                     g_offsets, slot_n, slot_gain, slot_left_n, slot_left_gain,
                                                     s_left, s_right, s_node, cum_discount)
            if evaluated and new_order != order_class:
                for slot in range(n_slots):
                    if 0 < slot_left_n[slot] < slot_n[slot]:
                        total_change += _refresh(i, slot, slot_stamp, slot_change, slot_query,
                                                 inverse_ideal_dcg, g_score, g_count, g_gain, g_above,
                                                 g_offsets, slot_n, slot_gain, slot_left_n, slot_left_gain,
                                                 s_left, s_right, s_node, cum_discount)
            evaluated = True
            left_class = new_left
            right_class = new_right
            order_class = new_order
            if total_change > best_change:
                best_change = total_change
                best_feature = feature
                best_threshold = midpoint_threshold(
                    key_value(node_keys[i], POSITION_BITS, scratch_bits),
                    key_value(node_keys[i + 1], POSITION_BITS, scratch_bits),
                )
    return best_feature, best_threshold, best_change


@njit(cache=True)
def _refresh(step, slot, slot_stamp, slot_change, slot_query, inverse_ideal_dcg, g_score, g_count, g_gain,
             g_above, g_offsets, slot_n, slot_gain, slot_left_n, slot_left_gain, s_left, s_right, s_node,
             cum_discount):
    """Recompute one query's weighted change (once per step); returns the difference to add to the total."""
    if slot_stamp[slot] == step:
        return 0.0
    slot_stamp[slot] = step
    weight = inverse_ideal_dcg[slot_query[slot]]
    if weight == 0.0:
        return 0.0
    nl = slot_left_n[slot]
    gl = slot_left_gain[slot]
    new = weight * query_dcg_change(
        g_score, g_count, g_gain, g_above, g_offsets[slot], g_offsets[slot + 1],
        nl, gl, s_left, slot_n[slot] - nl, slot_gain[slot] - gl, s_right, s_node, cum_discount,
    )
    old = slot_change[slot]
    slot_change[slot] = new
    return new - old
