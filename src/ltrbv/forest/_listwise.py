"""RF-list's split criterion: the change in the mean expected NDCG of the tree's training queries.

Ibrahim & Carman 2016, §4.3 and Algorithm 4.  Every document of a training
query sits in some leaf of the growing tree and gets that leaf's score (its
mean label, eq. 9); documents with equal scores are tied, and the expected
DCG over all orders of tied documents is (eq. 11-13)

    E[DCG_q] = sum over tie groups g of  val(G_g, a_g, t_g),   val(G, a, t) = G * (CD[a + t] - CD[a]) / t

where G_g is the group's summed gain 2^l - 1, a_g the number of the query's
documents with a strictly higher score, t_g the group size and CD the
cumulative discount table (eq. 14/15 give the alternative discounts).  Tie
groups merge documents of *all* leaves with equal scores, not only of one leaf.

Splitting node D into L and R moves only D's documents: from score s_D to s_L
or s_R.  For a query q the groups of other leaves whose score lies outside
[min(s_L, s_R), max(s_L, s_R)] keep their a and t (s_D is a weighted mean of
s_L and s_R, so it lies in that interval too); only the range in between
changes.  The search is exact and incremental (issue 12; design in
``../shared/design/listwise-split-search``):

* **Level lists kept across the tree.**  Each training query keeps its
  documents' distinct score levels (score, count, gain sum) sorted by score,
  updated in O(levels) when a node splits, so a node's set-up reads no
  document outside the node and sorts nothing per query: a query's groups
  from the other leaves are its level list with the node's own documents
  taken off level s_D.
* **O(1) change per query.**  Per node and query, prefix sums of the groups'
  values *before* the split (the node's block merged in at s_D) and, for up
  to ``SHIFT_CAP`` documents moved above, of the groups' values shifted down
  by that many ranks make a query's change two class look-ups plus a handful
  of table reads (the evaluation site in ``best_listwise_split``).
* **Few queries per candidate.**  A query's change depends on s_L, s_R only
  through how they compare with its levels and with each other, so at a
  candidate only the queries of moved documents and the queries with a level
  that s_L or s_R crossed (found from the node's level index) are
  re-evaluated, each once (a dirty list), at one inlined site.  When s_L and
  s_R swap order nothing is re-evaluated: each query keeps its change for both
  orders (equal for a one-sided query; for a two-sided query whose s_L and s_R
  lie in one gap of its levels the two blocks trade places; any other
  two-sided query has a level between s_L and s_R, which a swap crosses, so it
  is re-evaluated anyway) and the scan keeps both sums.  When s_L == s_R no
  document changes score and every change is exactly 0.

Per node, with n documents, q touched queries, P = sum of their other-leaf
levels, V distinct levels and K features: set-up O(n + P log P + P * min(n_q, 8))
(before: every touched query re-read all of its documents and argsorted them);
per feature O(n log n) for the sort plus, per candidate, O(log V) for the two
level classes, O(levels crossed) to find the dirty queries and O(log G_q) per
re-evaluated query (before: ~8 binary searches and a walk over every group
between s_L and s_R per re-evaluation, and every two-sided query re-evaluated
at each order swap).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)
from ._splitter import key_value, midpoint_threshold, next_feature, sort_keys, start_node

POSITION_BITS = 24  # nodes of up to 16.7M documents
MIN_CHANGE = 1e-10  # a split must raise the summed expected NDCG by more than rounding noise
SHIFT_CAP = 8  # prefix tables of shifted group values for up to this many documents moved above

# what every tree of a fit shares (read-only)
# ``tie_mean``: True for eq. 13 (a tie group's gain is averaged over its t ranks), False for Algorithm 4 as printed
ListwiseData = namedtuple("ListwiseData",
                          "gains doc_query query_offsets inverse_ideal_dcg cum_discount n_tree_queries tie_mean")

# per-tree scratch space of the listwise criterion
ListwiseWorkspace = namedtuple("ListwiseWorkspace", [
    # node documents grouped by query ("slots")
    "slot_query", "slot_start", "slot_n", "slot_gain", "slot_of_position",
    # each node position's label and gain, gathered once per node (the scan reads them in sorted order)
    "position_label", "position_gain",
    # per-slot state of a feature scan
    "slot_left_n", "slot_left_gain", "slot_change", "slot_change_swapped", "slot_stamp",
    # per-slot node constants: other documents, class of s_D, D-block value, shift-table offset and cap
    "slot_other", "slot_idx_d", "slot_tie_d", "slot_d_value", "ps_off", "ps_cap",
    "moved", "dirty", "positions",
    # other-leaf groups of the node's queries (score descending per slot) and their before-value prefix sums
    "g_offsets", "g_score", "g_count", "g_gain", "g_above", "group_slot", "pb",
    # the node's level index: distinct group scores descending, level -> groups
    "levels", "level_offsets", "level_slots",
    # tree-wide: each query's score levels (score descending), kept up to date as nodes split
    "q_start", "q_levels", "lv_score", "lv_count", "lv_gain",
])


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


def ideal_dcg(gains: np.ndarray, query_offsets: np.ndarray, cum_discount: np.ndarray) -> np.ndarray:
    """Ideal DCG of each query under the listwise discount (labels sorted descending)."""
    n_queries = query_offsets.size - 1
    query = np.repeat(np.arange(n_queries), np.diff(query_offsets))
    order = np.lexsort((-gains, query))
    rank = np.arange(gains.size) - query_offsets[query]
    weights = np.diff(cum_discount)[rank]
    return np.bincount(query, weights=gains[order] * weights, minlength=n_queries)


def prepare(train, labels: np.ndarray, n_tree_queries: int, discount: str, power: float,
            truncation: int | None, as_printed: bool = False) -> ListwiseData:
    """The NDCG set-up shared by all trees of a fit: gains 2^l - 1, 1/IDCG per query, the discount table.

    ``as_printed``: value tie groups as Algorithm 4 prints it (``_value``'s ``tie_mean=False``), not as eq. 13.
    """
    gains = np.exp2(labels.astype(np.float64)) - 1.0
    cum_discount = cumulative_discounts(int(train.query_sizes.max()), discount, power, truncation)
    ideal = ideal_dcg(gains, train.query_offsets, cum_discount)
    inverse_ideal = np.divide(1.0, ideal, out=np.zeros_like(ideal), where=ideal > 0)
    return ListwiseData(gains, train.query_index, train.query_offsets, inverse_ideal, cum_discount, n_tree_queries,
                        not as_printed)


def unused_data() -> ListwiseData:
    """A placeholder of the right types for trees without listwise splits."""
    empty_f = np.zeros(1)
    empty_i = np.zeros(1, dtype=np.int64)
    return ListwiseData(empty_f, empty_i, np.zeros(2, dtype=np.int64), empty_f, np.zeros(2), 1, True)


@njit(cache=True)
def make_workspace(n, n_queries, m):
    """Scratch arrays for a tree of n documents of m queries numbered below n_queries (1, 1, 1: no listwise splits)."""
    return ListwiseWorkspace(
        np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.float64),
        np.empty(n, np.int64),
        np.empty(n, np.float64), np.empty(n, np.float64),
        np.empty(m, np.int64), np.empty(m, np.float64), np.empty(m, np.float64), np.empty(m, np.float64),
        np.empty(m, np.int64),
        np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.bool_), np.empty(m, np.float64),
        np.empty(m, np.int64), np.empty(m, np.int64),
        np.empty(n, np.int64), np.empty(m, np.int64), np.arange(n, dtype=np.int64),
        np.empty(m + 1, np.int64), np.empty(n, np.float64), np.empty(n, np.int64), np.empty(n, np.float64),
        np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n + m + 1, np.float64),
        np.empty(n, np.float64), np.empty(n + 1, np.int64), np.empty(n, np.int64),
        np.full(n_queries, -1, np.int64), np.zeros(n_queries, np.int64),
        np.empty(n, np.float64), np.empty(n, np.int64), np.empty(n, np.float64),
    )


# -- tree-wide level lists ----------------------------------------------------------------------------


@njit(cache=True)
def init_levels(ws, data, samples, root_score):
    """Every query of the tree starts with one level: all its documents at the root's score."""
    n = samples.size
    i = 0
    while i < n:
        q = data.doc_query[samples[i]]
        j = i
        gain_sum = 0.0
        while j < n and data.doc_query[samples[j]] == q:
            gain_sum += data.gains[samples[j]]
            j += 1
        ws.q_start[q] = i
        ws.q_levels[q] = 1
        ws.lv_score[i] = root_score
        ws.lv_count[i] = j - i
        ws.lv_gain[i] = gain_sum
        i = j


@njit(cache=True, inline="always")
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
def _move_level(ws, q, s_from, s_to, count, gain):
    """Move count documents (summed gain) of query q from level s_from to level s_to."""
    k0 = ws.q_start[q]
    k1 = k0 + ws.q_levels[q]
    i = _first_not_above(ws.lv_score, k0, k1, s_from)
    ws.lv_count[i] -= count
    ws.lv_gain[i] -= gain  # sums of integer gains: exact
    if ws.lv_count[i] == 0:
        for k in range(i, k1 - 1):
            ws.lv_score[k] = ws.lv_score[k + 1]
            ws.lv_count[k] = ws.lv_count[k + 1]
            ws.lv_gain[k] = ws.lv_gain[k + 1]
        k1 -= 1
    j = _first_not_above(ws.lv_score, k0, k1, s_to)
    if j < k1 and ws.lv_score[j] == s_to:
        ws.lv_count[j] += count
        ws.lv_gain[j] += gain
    else:
        for k in range(k1, j, -1):
            ws.lv_score[k] = ws.lv_score[k - 1]
            ws.lv_count[k] = ws.lv_count[k - 1]
            ws.lv_gain[k] = ws.lv_gain[k - 1]
        ws.lv_score[j] = s_to
        ws.lv_count[j] = count
        ws.lv_gain[j] = gain
        k1 += 1
    ws.q_levels[q] = k1 - k0


@njit(cache=True)
def update_levels(ws, data, samples, lo, hi, s_from, s_to):
    """After a split: the documents samples[lo:hi] (grouped by query) moved from score s_from to s_to."""
    i = lo
    while i < hi:
        q = data.doc_query[samples[i]]
        j = i
        gain_sum = 0.0
        while j < hi and data.doc_query[samples[j]] == q:
            gain_sum += data.gains[samples[j]]
            j += 1
        _move_level(ws, q, s_from, s_to, j - i, gain_sum)
        i = j


# -- one query's change ---------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _value(gain, above, size, cd, tie_mean):
    """A tie group's contribution to E[DCG_q]: G * (CD[a + t] - CD[a]) / t (eq. 12-13, ``tie_mean``), or
    G * (CD[a + t] - CD[a]) as Algorithm 4 prints it: count[i] * avgGain[i] = G times the group's summed
    discounts, without eq. 13's division by the group size t (so a tie group of t documents weighs t times
    its expected DCG).  The printed sum runs from k = rank[i-1]; taken literally its first group's k = 0
    term is 1/log(1), infinite, so the discounts summed are the group's own ranks a+1 .. a+t, the
    precomputed cumulative factor the note under Algorithm 4 describes."""
    if size == 0 or gain == 0.0:
        return 0.0
    if tie_mean:
        return gain * (cd[above + size] - cd[above]) / size
    return gain * (cd[above + size] - cd[above])


@njit(cache=True, inline="always")
def _class(scores, lo, hi, s):
    """(first index in scores[lo:hi] (descending) with score <= s, whether that score equals s)."""
    i = _first_not_above(scores, lo, hi, s)
    return i, i < hi and scores[i] == s


# -- per-node set-up ------------------------------------------------------------------------------------


@njit(cache=True)
def node_groups(ws, data, labels, samples, start, end, s_node):
    """Slots and their other-leaf groups: the part of a node's set-up every listwise criterion shares.

    Fills the slot arrays (the node's documents grouped by query, each position's label and
    ``data.gains`` value, each slot's summed ``data.gains``), each slot's groups from the other
    leaves (its level list less the node's own documents: score descending, count, summed
    ``data.gains``, documents above), ``slot_other`` and the class of s_D among the slot's groups
    (``slot_idx_d``, ``slot_tie_d``).  Returns n_slots.
    """
    gains = data.gains
    doc_query = data.doc_query
    n_slots = 0
    i = start
    while i < end:
        q = doc_query[samples[i]]
        j = i
        gain_sum = 0.0
        while j < end and doc_query[samples[j]] == q:
            doc = samples[j]
            gain_sum += gains[doc]
            ws.slot_of_position[j - start] = n_slots
            ws.position_label[j - start] = labels[doc]
            ws.position_gain[j - start] = gains[doc]
            j += 1
        ws.slot_query[n_slots] = q
        ws.slot_start[n_slots] = i - start
        ws.slot_n[n_slots] = j - i
        ws.slot_gain[n_slots] = gain_sum
        n_slots += 1
        i = j
    ws.g_offsets[0] = 0
    for slot in range(n_slots):
        q = ws.slot_query[slot]
        n_q = ws.slot_n[slot]
        gain_q = ws.slot_gain[slot]
        base = ws.g_offsets[slot]
        m = 0
        above = 0
        for k in range(ws.q_start[q], ws.q_start[q] + ws.q_levels[q]):
            s = ws.lv_score[k]
            count = ws.lv_count[k]
            gain = ws.lv_gain[k]
            if s == s_node:
                count -= n_q
                gain -= gain_q
                if count == 0:
                    continue
            g = base + m
            ws.g_score[g] = s
            ws.g_count[g] = count
            ws.g_gain[g] = gain
            ws.g_above[g] = above
            ws.group_slot[g] = slot
            above += count
            m += 1
        ws.g_offsets[slot + 1] = base + m
        ws.slot_other[slot] = above
        idx, tie = _class(ws.g_score, base, base + m, s_node)
        ws.slot_idx_d[slot] = idx
        ws.slot_tie_d[slot] = tie
    return n_slots


@njit(cache=True)
def level_index(ws, n_groups):
    """The node's level index: distinct group scores descending; the slots with a group at level v are
    level_slots[level_offsets[v]:level_offsets[v + 1]].  Returns the number of levels."""
    n_levels = 0
    ws.level_offsets[0] = 0
    if n_groups > 0:
        order = np.argsort(-ws.g_score[:n_groups], kind="mergesort")
        for k in range(n_groups):
            g = order[k]
            if n_levels == 0 or ws.g_score[g] != ws.levels[n_levels - 1]:
                ws.levels[n_levels] = ws.g_score[g]
                n_levels += 1
            ws.level_slots[k] = ws.group_slot[g]
            ws.level_offsets[n_levels] = k + 1
    return n_levels


@njit(cache=True)
def _node_setup(ws, data, labels, samples, start, end, s_node):
    """Slots, other-leaf groups, per-slot NDCG constants, prefix tables and the level index of one node.

    Returns (n_slots, n_groups, n_levels, shift_tables).
    """
    cd = data.cum_discount
    tie_mean = data.tie_mean
    n_slots = node_groups(ws, data, labels, samples, start, end, s_node)
    total_ps = 0
    for slot in range(n_slots):
        n_q = ws.slot_n[slot]
        gain_q = ws.slot_gain[slot]
        base = ws.g_offsets[slot]
        m = ws.g_offsets[slot + 1] - base
        idx = ws.slot_idx_d[slot]
        a_d = ws.g_above[idx] if idx < base + m else ws.slot_other[slot]
        ws.slot_d_value[slot] = _value(gain_q, a_d, n_q, cd, tie_mean)
        # prefix sums of the before values: the node's block merged into a group tied at s_D
        pb0 = base + slot
        ws.pb[pb0] = 0.0
        for g in range(base, base + m):
            if ws.g_score[g] > s_node:
                v = _value(ws.g_gain[g], ws.g_above[g], ws.g_count[g], cd, tie_mean)
            elif ws.g_score[g] == s_node:
                v = _value(ws.g_gain[g] + gain_q, ws.g_above[g], ws.g_count[g] + n_q, cd, tie_mean)
            else:
                v = _value(ws.g_gain[g], ws.g_above[g] + n_q, ws.g_count[g], cd, tie_mean)
            ws.pb[pb0 + g - base + 1] = ws.pb[pb0 + g - base] + v
        cap = min(n_q, SHIFT_CAP) if m > 0 else -1
        ws.ps_cap[slot] = cap
        ws.ps_off[slot] = total_ps
        total_ps += (cap + 1) * (m + 1)
    n_groups = ws.g_offsets[n_slots]
    # prefix sums of group values shifted down by x = 0..cap ranks
    shift_tables = np.empty(max(total_ps, 1), dtype=np.float64)
    for slot in range(n_slots):
        g0 = ws.g_offsets[slot]
        g1 = ws.g_offsets[slot + 1]
        for x in range(ws.ps_cap[slot] + 1):
            row = ws.ps_off[slot] + x * (g1 - g0 + 1)
            shift_tables[row] = 0.0
            for g in range(g0, g1):
                shift_tables[row + g - g0 + 1] = shift_tables[row + g - g0] + _value(
                    ws.g_gain[g], ws.g_above[g] + x, ws.g_count[g], cd, tie_mean)
    n_levels = level_index(ws, n_groups)
    return n_slots, n_groups, n_levels, shift_tables


# -- the split search -----------------------------------------------------------------------------------


@njit(cache=True)
def best_listwise_split(Xt, labels, samples, start, end, s_node, max_features, min_leaf, rng, scratch, data, ws):
    """Best split of node D by the change in summed expected NDCG of its queries (Algorithm 4).

    Returns (feature, threshold, summed_ndcg_change); feature = -1 if no valid split.
    The caller divides by the number of training queries for the mean.
    """
    n = end - start
    weights = data.inverse_ideal_dcg
    cd = data.cum_discount
    tie_mean = data.tie_mean
    n_slots, n_groups, n_levels, shift_tables = _node_setup(ws, data, labels, samples, start, end, s_node)
    label_total = 0.0
    for i in range(start, end):
        label_total += labels[samples[i]]
    levels = ws.levels[:n_levels]
    # the workspace's arrays as locals: the scan below must not read them out of the tuple per access
    slot_query = ws.slot_query
    slot_n = ws.slot_n
    slot_gain = ws.slot_gain
    slot_of_position = ws.slot_of_position
    position_label = ws.position_label
    position_gain = ws.position_gain
    slot_left_n = ws.slot_left_n
    slot_left_gain = ws.slot_left_gain
    change_above = ws.slot_change  # each slot's weighted change if s_L > s_R
    change_below = ws.slot_change_swapped  # ... and if s_L < s_R
    slot_stamp = ws.slot_stamp
    slot_other = ws.slot_other
    slot_idx_d = ws.slot_idx_d
    slot_tie_d = ws.slot_tie_d
    slot_d_value = ws.slot_d_value
    ps_off = ws.ps_off
    ps_cap = ws.ps_cap
    moved = ws.moved
    dirty = ws.dirty
    g_offsets = ws.g_offsets
    g_score = ws.g_score
    g_count = ws.g_count
    g_gain = ws.g_gain
    g_above = ws.g_above
    pb = ws.pb
    level_offsets = ws.level_offsets
    level_slots = ws.level_slots
    node_positions = ws.positions[:n]
    node_values = scratch.values[:n]
    bits = scratch.bits
    best_feature = -1
    best_threshold = 0.0
    best_change = MIN_CHANGE
    node_keys = scratch.keys[:n]
    position_mask = (1 << POSITION_BITS) - 1
    start_node(scratch)
    while True:
        feature = next_feature(Xt, samples, start, end, rng, scratch, max_features)
        if feature < 0:
            break
        sort_keys(node_values, node_positions, POSITION_BITS, node_keys)
        for slot in range(n_slots):
            slot_left_n[slot] = 0
            slot_left_gain[slot] = 0.0
            change_above[slot] = 0.0
            change_below[slot] = 0.0
            slot_stamp[slot] = -1
        total_above = 0.0  # the sums of change_above and change_below over the slots
        total_below = 0.0
        label_left = 0.0
        n_moved = 0
        evaluated = False
        left_index, left_tie = 0, False
        right_index, right_tie = _class(levels, 0, n_levels, s_node)  # before the scan all sit at s_D
        order = 0
        for i in range(n - 1):
            p = node_keys[i] & position_mask
            slot = slot_of_position[p]
            slot_left_n[slot] += 1
            slot_left_gain[slot] += position_gain[p]
            label_left += position_label[p]
            moved[n_moved] = slot
            n_moved += 1
            n_left = i + 1
            if (node_keys[i] >> POSITION_BITS) == (node_keys[i + 1] >> POSITION_BITS):
                continue
            if n_left < min_leaf or n - n_left < min_leaf:
                continue
            s_left = label_left / n_left
            s_right = (label_total - label_left) / (n - n_left)
            new_left_index, new_left_tie = _class(levels, 0, n_levels, s_left)
            new_right_index, new_right_tie = _class(levels, 0, n_levels, s_right)
            new_order = 1 if s_left > s_right else (0 if s_left == s_right else -1)
            if new_order == 0:
                # no document changes score: every change is 0; all are re-evaluated at the next candidate
                n_moved = 0
                total_above = 0.0
                total_below = 0.0
                for slot in range(n_slots):
                    change_above[slot] = 0.0
                    change_below[slot] = 0.0
                evaluated = True
                left_index, left_tie = new_left_index, new_left_tie
                right_index, right_tie = new_right_index, new_right_tie
                order = 0
                continue
            # the dirty list: every query whose change can differ from its stored one, once
            n_dirty = 0
            for k in range(n_moved):
                slot = moved[k]
                if slot_stamp[slot] != i:
                    slot_stamp[slot] = i
                    dirty[n_dirty] = slot
                    n_dirty += 1
            n_moved = 0
            if evaluated and order == 0:
                for slot in range(n_slots):
                    if slot_stamp[slot] != i:
                        slot_stamp[slot] = i
                        dirty[n_dirty] = slot
                        n_dirty += 1
            else:
                if evaluated and (new_left_index != left_index or new_left_tie != left_tie):
                    a = min(left_index, new_left_index)
                    b = max(left_index + left_tie, new_left_index + new_left_tie)
                    for k in range(level_offsets[a], level_offsets[b]):
                        slot = level_slots[k]
                        if slot_left_n[slot] > 0 and slot_stamp[slot] != i:
                            slot_stamp[slot] = i
                            dirty[n_dirty] = slot
                            n_dirty += 1
                if new_right_index != right_index or new_right_tie != right_tie:
                    a = min(right_index, new_right_index)
                    b = max(right_index + right_tie, new_right_index + new_right_tie)
                    for k in range(level_offsets[a], level_offsets[b]):
                        slot = level_slots[k]
                        if slot_left_n[slot] < slot_n[slot] and slot_stamp[slot] != i:
                            slot_stamp[slot] = i
                            dirty[n_dirty] = slot
                            n_dirty += 1
                # an order swap needs no work here: every two-sided query either sits in a gap of its levels
                # (both of its values are stored) or has a level between s_L and s_R, which the swap crosses
            for k in range(n_dirty):
                slot = dirty[k]
                weight = weights[slot_query[slot]]
                if weight == 0.0:
                    continue
                q_left_n = slot_left_n[slot]
                q_left_gain = slot_left_gain[slot]
                # --- the evaluation site: the slot query's unweighted change of E[DCG_q] (s_left != s_right) and
                # its change if s_L and s_R had the opposite order.  T is the side with the higher score, B the
                # other.  Only the groups in [s_B, s_T] change: after = T block (merged with a group tied at s_T)
                # + groups strictly between, shifted down by n_T + B block (merged with a group tied at s_B,
                # below the n_T documents of T); before = the prefix-summed before values over the same index
                # range plus the D block if it sat alone.  Written out here on purpose: as a function, even
                # inlined by numba, its ~20 array arguments are reference-counted on every call (measured:
                # 1.7x slower on MSLR-shaped data). ---
                g0 = g_offsets[slot]
                g1 = g_offsets[slot + 1]
                n_q = slot_n[slot]
                q_right_n = n_q - q_left_n
                q_right_gain = slot_gain[slot] - q_left_gain
                if s_left > s_right:
                    n_top, gain_top, s_top = q_left_n, q_left_gain, s_left
                    n_bottom, gain_bottom, s_bottom = q_right_n, q_right_gain, s_right
                else:
                    n_top, gain_top, s_top = q_right_n, q_right_gain, s_right
                    n_bottom, gain_bottom, s_bottom = q_left_n, q_left_gain, s_left
                idx_d = slot_idx_d[slot]
                tie_d = slot_tie_d[slot]
                after = 0.0
                gap = n_top > 0 and n_bottom > 0  # two-sided with no level in [s_B, s_T]: decided below
                i_top = idx_d
                if n_top > 0:
                    i_top = _first_not_above(g_score, g0, g1, s_top)
                    a_top = g_above[i_top] if i_top < g1 else slot_other[slot]
                    if i_top < g1 and g_score[i_top] == s_top:
                        after += _value(g_gain[i_top] + gain_top, a_top, g_count[i_top] + n_top, cd, tie_mean)
                        between_start = i_top + 1
                        gap = False
                    else:
                        after += _value(gain_top, a_top, n_top, cd, tie_mean)
                        between_start = i_top
                    lo = i_top
                else:
                    lo = idx_d
                    between_start = idx_d
                if n_bottom > 0:
                    i_bottom = _first_not_above(g_score, between_start, g1, s_bottom)
                    a_bottom = (g_above[i_bottom] if i_bottom < g1 else slot_other[slot]) + n_top
                    if i_bottom < g1 and g_score[i_bottom] == s_bottom:
                        after += _value(g_gain[i_bottom] + gain_bottom, a_bottom, g_count[i_bottom] + n_bottom, cd,
                                        tie_mean)
                        hi = i_bottom + 1
                        gap = False
                    else:
                        after += _value(gain_bottom, a_bottom, n_bottom, cd, tie_mean)
                        hi = i_bottom
                    between_end = i_bottom
                else:
                    hi = idx_d + (1 if tie_d else 0)
                    between_end = hi
                if between_end > between_start:
                    if n_top <= ps_cap[slot]:
                        row = ps_off[slot] + n_top * (g1 - g0 + 1) - g0
                        after += shift_tables[row + between_end] - shift_tables[row + between_start]
                    else:
                        for j in range(between_start, between_end):
                            after += _value(g_gain[j], g_above[j] + n_top, g_count[j], cd, tie_mean)
                pb0 = g0 + slot
                before = pb[pb0 + hi - g0] - pb[pb0 + lo - g0]
                if not tie_d:
                    before += slot_d_value[slot]
                change = after - before
                # the change under the opposite order of s_L and s_R: the same for a one-sided query; for a two-sided
                # query in a gap the two blocks trade places; otherwise unknown (a level lies between s_B and s_T, so
                # any swap crosses it and the query is re-evaluated through the crossing rule anyway)
                opposite = change
                if gap and between_end == between_start:
                    a = g_above[i_top] if i_top < g1 else slot_other[slot]
                    opposite = (_value(gain_bottom, a, n_bottom, cd, tie_mean)
                                + _value(gain_top, a + n_bottom, n_top, cd, tie_mean) - before)
                if new_order > 0:
                    above, below = weight * change, weight * opposite
                else:
                    above, below = weight * opposite, weight * change
                total_above += above - change_above[slot]
                change_above[slot] = above
                total_below += below - change_below[slot]
                change_below[slot] = below
            total_change = total_above if new_order > 0 else total_below
            evaluated = True
            left_index, left_tie = new_left_index, new_left_tie
            right_index, right_tie = new_right_index, new_right_tie
            order = new_order
            if total_change > best_change:
                best_change = total_change
                best_feature = feature
                best_threshold = midpoint_threshold(
                    key_value(node_keys[i], POSITION_BITS, bits), key_value(node_keys[i + 1], POSITION_BITS, bits),
                )
    return best_feature, best_threshold, best_change
