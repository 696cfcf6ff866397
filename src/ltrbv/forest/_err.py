"""RF-list's expected-ERR criterion: the change in the summed expected ERR of the tree's training queries.

Expected reciprocal rank (Chapelle et al. 2009): a reader scans the ranking top down and stops at
a document of label l with probability R = (2^l - 1) / 2^g, so ERR = sum_r R_r / r prod_{i<r} (1 - R_i).
Here g (``max_grade``) is the largest label of the training data (at least 1): the convention of
``ltrbv.metrics`` with ``max_grade = g``, e.g. LETOR 4.0's g = 2 on MQ2008 and MSLR's g = 4.  There is
no per-query normaliser (ERR is not normalised); a query without a relevant document has ERR 0
whatever the scores, so it is skipped.

As for NDCG (``_listwise``, Ibrahim & Carman 2016 eq. 11-13), documents with equal leaf scores are
tied and ERR is averaged over all orders of every tie group.  A group at ranks a+1 .. a+t that the
reader reaches with probability P (the product of 1 - R over every document above it) contributes
P * V(h, a) with

    V(h, a) = sum_{k=1..r} (e_{k-1} - e_k) * E[1 / (a + p_k)]

where r is the number of relevant documents (label >= 1) of the group, e_k the mean over the
k-subsets of them of prod (1 - R) (in a random order the reader passes the first k - 1 relevant
documents and stops at the k-th with probability e_{k-1} - e_k; irrelevant documents never stop
him), and p_k the position of the k-th relevant document among the t positions (the k-th smallest
of a uniformly random r-subset of 1..t).  V depends on the group only through its label histogram
h; it costs O(r^2) for the e_k (the convex recurrence of ``ltrbv.metrics.ranking``) plus
O(r (t - r + 1)) for the order statistics (a ratio recurrence of their probabilities).  The reader
passes the whole group with probability prod_l (1 - R_l)^h_l, which does not depend on the order.

Splitting node D into L and R moves D's documents from s_D to s_L or s_R.  For a query, its other
leaves' groups above max(s_L, s_R) keep their a and P, those below min(s_L, s_R) keep their a and P
too (the same documents are still above them), so only the range between changes, as for NDCG, and
a query's change depends on s_L and s_R only through how they compare with its levels and with each
other.  The search therefore shares ``_listwise``'s machinery:

* the tree-wide level lists (``_listwise.init_levels`` / ``update_levels``), with each document's
  value the *packed label code* base^(l-1) for l >= 1 (0 for label 0), base = largest query size + 1:
  a level's summed code is its label histogram in base-``base`` digits, exact in float64 while
  base^g <= 2^53 (``prepare`` refuses larger; MSLR: 1252^4 = 2.5e12);
* the node's slots, other-leaf groups and level index (``_listwise.node_groups`` / ``level_index``);
* the dirty-list rule of ``_listwise.best_listwise_split``: per candidate only the queries of moved
  documents and the queries with a level that s_L or s_R crossed are re-evaluated, each once; a
  two-sided query with no level between s_L and s_R stores its change for both orders, so an order
  swap of s_L and s_R re-evaluates nothing.  (NDCG's scan writes that rule inline, since there a call
  per candidate costs 5% of an MQ2008 tree; here ``_dirty_slots`` is one call, negligible next to
  an ERR evaluation.)

A dirty query's change is evaluated over its range only: after = the top block (merged with a group
tied at its score) + the groups strictly between, shifted down by the top block's size and scaled by
its pass probability + the bottom block (merged likewise); before = prefix sums, per node and query,
of its groups' values with the node block merged in at s_D (plus the node block's own value).  The
pass probability above each group comes from per-node prefix products.

Complexity per node, with n documents, q touched queries, G groups of their other leaves, K features
and c(t, r) = r^2 + r (t - r + 1) the cost of one group of t documents with r relevant: set-up
O(n + G log G) plus sum over groups of c (their before values); per feature O(n log n) for the sort;
per candidate O(log V + levels crossed) for the dirty list and, per re-evaluated query, O(log G_q) to
place s_L and s_R plus c of its two blocks (merged with a tied group where there is one) and of each
group strictly between s_L and s_R (twice the blocks' cost for a two-sided query in a gap of its
levels, which evaluates both orders).  Unlike NDCG's O(1) prefix-sum look-up, a block's value needs
its label multiset, so a re-evaluation costs O(r_q t_q) (r_q of the query's t_q documents in the node
relevant): near the root, where a query's documents form one or two blocks, that is its whole size.
Tried and measured slower (MQ2008 Fold1, MSLR-shaped data): E_m over all t documents by the convex
recurrence (O(t^2), V = sum_j (E_{j-1} - E_j) / (a + j)) instead of the order statistics, and
per-(query, shift) prefix tables of the shifted groups between s_B and s_T as NDCG keeps (they are
1.5 per evaluation on average, mostly single documents, for which V is one multiplication).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)
from . import _listwise
from ._listwise import MIN_CHANGE, POSITION_BITS, ListwiseData, _class, _first_not_above, level_index, node_groups
from ._splitter import key_value, midpoint_threshold, next_feature, sort_keys, start_node

MAX_PACKED = 2.0**53  # packed label codes must stay exact float64 integers
RESCALE = 1e200  # the order-statistic recurrence rescales its running sums beyond this

# what every tree of a fit shares (read-only); ``levels`` drives the tree-wide level lists
ErrData = namedtuple("ErrData", "levels stop pass_power inverse base n_grades relevant n_tree_queries")

# per-tree scratch space of the ERR criterion (the slots, groups and level lists live in the
# ``_listwise.ListwiseWorkspace`` it shares)
ErrWorkspace = namedtuple("ErrWorkspace", [
    # per slot and group (index group + slot; slot's entries g0 + slot .. g1 + slot): the probability of
    # passing the slot's other-leaf groups above the group, and prefix sums of the groups' before values
    "pass_above", "before_sums",
    # per slot: the node block's own before value when it is not tied with an other-leaf group
    "d_value",
    # label histograms (rows: top block, bottom block, a group or merged block) and each block's e_k
    "hist", "chances_top", "chances_bottom",
])


def prepare(train, labels: np.ndarray, n_tree_queries: int) -> ErrData:
    """The ERR set-up shared by all trees of a fit: stop probabilities, packed label codes, relevant queries."""
    labels = np.asarray(labels, dtype=np.int64)
    n_grades = max(1, int(labels.max()))
    base = int(train.query_sizes.max()) + 1
    if float(base) ** n_grades > MAX_PACKED:
        raise ValueError(f"listwise_objective 'err' packs each score level's label counts into one float64: "
                         f"(largest query size + 1) ** max_grade = {base} ** {n_grades} exceeds 2 ** 53")
    grades = np.arange(n_grades + 1, dtype=np.float64)
    stop = (np.exp2(grades) - 1.0) / 2.0**n_grades
    pass_power = np.ascontiguousarray((1.0 - stop)[:, None] ** np.arange(base, dtype=np.float64)[None, :])
    inverse = 1.0 / np.maximum(np.arange(base + 1, dtype=np.float64), 1.0)  # 1 / i (ranks, counts <= base)
    codes = np.where(labels > 0, float(base) ** (np.maximum(labels, 1) - 1), 0.0).astype(np.float64)
    doc_query = np.ascontiguousarray(train.query_index, dtype=np.int64)
    relevant = np.bincount(doc_query, weights=(labels > 0).astype(np.float64), minlength=train.n_queries) > 0
    placeholder = _listwise.unused_data()
    levels = ListwiseData(codes, doc_query, np.ascontiguousarray(train.query_offsets, dtype=np.int64),
                          placeholder.inverse_ideal_dcg, placeholder.cum_discount, int(n_tree_queries), True)
    return ErrData(levels, stop, pass_power, inverse, base, n_grades, relevant, int(n_tree_queries))


@njit(cache=True)
def make_workspace(n, m, err):
    """Scratch arrays for a tree of n documents of m queries (1, 1: no listwise splits)."""
    size = int(err.base)
    return ErrWorkspace(
        np.empty(n + m + 1, np.float64), np.empty(n + m + 1, np.float64), np.empty(m, np.float64),
        np.zeros((3, err.n_grades + 1), np.int64), np.empty(size + 1, np.float64), np.empty(size + 1, np.float64),
    )


# -- one tie group's value ------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _unpack(code, count, base, n_grades, hist):
    """hist[l] = the number of documents of label l in a block of ``count`` documents with summed code ``code``."""
    rest = np.int64(code)
    relevant = 0
    for grade in range(1, n_grades + 1):
        digit = rest % base
        rest //= base
        hist[grade] = digit
        relevant += digit
    hist[0] = count - relevant


@njit(cache=True, inline="always")
def _pass_probability(hist, n_grades, pass_power):
    """prod over the block's documents of 1 - R."""
    p = 1.0
    for grade in range(1, n_grades + 1):
        p *= pass_power[grade, hist[grade]]
    return p


@njit(cache=True, inline="always")
def _stop_chances(hist, n_grades, stop, chances, inverse):
    """chances[k] (k = 0..r) = mean over the k-subsets of the block's r relevant documents of prod (1 - R).

    The convex recurrence M_i[k] = ((i - k) M_{i-1}[k] + k x_i M_{i-1}[k-1]) / i (stable, as in
    ``ltrbv.metrics.ranking``).  Returns r.
    """
    chances[0] = 1.0
    i = 0
    for grade in range(1, n_grades + 1):
        x = 1.0 - stop[grade]
        for _ in range(hist[grade]):
            i += 1
            chances[i] = 0.0
            inv_i = inverse[i]
            for k in range(i, 0, -1):
                chances[k] = ((i - k) * chances[k] + k * x * chances[k - 1]) * inv_i
    return i


@njit(cache=True, inline="always")
def _reciprocal_value(chances, r, t, above, inverse):
    """V(h, a) = sum_k (e_{k-1} - e_k) E[1 / (a + p_k)] for a block of t documents, r of them relevant.

    P(p_k = j) is proportional to C(j-1, k-1) C(t-j, r-k); the ratio recurrence starts at 1 for
    j = k and is normalised by its own sum (rescaled when large), so nothing under- or overflows.
    ``inverse[i]`` = 1 / i: multiplications instead of divisions in the inner loops.
    """
    zeros = t - r
    total = 0.0
    for k in range(1, r + 1):
        chance = chances[k - 1] - chances[k]
        if zeros == 0:
            total += chance * inverse[above + k]
            continue
        weight = 1.0
        mass = 0.0
        acc = 0.0
        for step in range(zeros + 1):
            j = k + step
            mass += weight
            acc += weight * inverse[above + j]
            if step < zeros:
                weight *= j * (zeros - step) * inverse[step + 1] * inverse[t - j]
                if weight > RESCALE:
                    weight /= RESCALE
                    mass /= RESCALE
                    acc /= RESCALE
        total += chance * acc / mass
    return total


@njit(cache=True)
def _group_value(hist, n_grades, stop, inverse, chances, t, above):
    """V(h, a) of one tie group of t documents (label histogram ``hist``) at ranks above+1 .. above+t."""
    if hist[0] == t:
        return 0.0
    if t == 1:
        for grade in range(1, n_grades + 1):
            if hist[grade] == 1:
                return stop[grade] * inverse[above + 1]
    r = _stop_chances(hist, n_grades, stop, chances, inverse)
    return _reciprocal_value(chances, r, t, above, inverse)


# -- per-node set-up ------------------------------------------------------------------------------------


@njit(cache=True)
def _node_tables(ws, ew, err, n_slots, s_node):
    """Per slot: pass probabilities above its other-leaf groups, prefix sums of their before values
    (the node's block merged in at s_D) and the node block's own before value."""
    base = err.base
    n_grades = err.n_grades
    stop = err.stop
    inverse = err.inverse
    hist_d = ew.hist[0]
    hist = ew.hist[2]
    chances = ew.chances_top
    for slot in range(n_slots):
        if not err.relevant[ws.slot_query[slot]]:
            continue
        g0 = ws.g_offsets[slot]
        g1 = ws.g_offsets[slot + 1]
        n_d = ws.slot_n[slot]
        code_d = ws.slot_gain[slot]
        _unpack(code_d, n_d, base, n_grades, hist_d)
        pass_d = _pass_probability(hist_d, n_grades, err.pass_power)
        ew.pass_above[g0 + slot] = 1.0
        ew.before_sums[g0 + slot] = 0.0
        for g in range(g0, g1):
            p = ew.pass_above[g + slot]
            count = ws.g_count[g]
            if ws.g_score[g] == s_node:
                _unpack(ws.g_gain[g] + code_d, count + n_d, base, n_grades, hist)
                v = p * _group_value(hist, n_grades, stop, inverse, chances, count + n_d, ws.g_above[g])
                _unpack(ws.g_gain[g], count, base, n_grades, hist)
            else:
                _unpack(ws.g_gain[g], count, base, n_grades, hist)
                if ws.g_score[g] > s_node:
                    v = p * _group_value(hist, n_grades, stop, inverse, chances, count, ws.g_above[g])
                else:
                    v = p * pass_d * _group_value(hist, n_grades, stop, inverse, chances, count,
                                                  ws.g_above[g] + n_d)
            ew.pass_above[g + slot + 1] = p * _pass_probability(hist, n_grades, err.pass_power)
            ew.before_sums[g + slot + 1] = ew.before_sums[g + slot] + v
        idx = ws.slot_idx_d[slot]
        if ws.slot_tie_d[slot]:
            ew.d_value[slot] = 0.0
        else:
            a_d = ws.g_above[idx] if idx < g1 else ws.slot_other[slot]
            ew.d_value[slot] = ew.pass_above[idx + slot] * _group_value(hist_d, n_grades, stop, inverse, chances, n_d,
                                                                        a_d)


# -- the dirty list --------------------------------------------------------------------------------------


@njit(cache=True)
def _crossed(old_class, new_class):
    """The node levels [a, b) a score crossed, joined or left when its class (``_listwise._class``) changed."""
    if old_class[0] == new_class[0] and old_class[1] == new_class[1]:
        return 0, 0
    return min(old_class[0], new_class[0]), max(old_class[0] + old_class[1], new_class[0] + new_class[1])


@njit(cache=True)
def _dirty_slots(candidate, moved, n_moved, state, left_class, right_class, s_node_class, n_slots, level_offsets,
                 level_slots, slot_left_n, slot_n, stamp, dirty):
    """List in ``dirty`` each slot whose stored change can differ at this candidate, once; returns the count.

    ``state`` holds the classes of s_L and s_R at the previous evaluated candidate and the order
    of s_L and s_R there (0: equal, so every slot is dirty); before the first one every slot sat at
    s_D.  ``stamp`` marks the slots listed at ``candidate``.
    """
    count = 0
    every = state[2] >= 0 and state[4] == 0
    for k in range(n_slots if every else n_moved):
        slot = k if every else moved[k]
        if stamp[slot] != candidate:
            stamp[slot] = candidate
            dirty[count] = slot
            count += 1
    if every:
        return count
    if state[2] < 0:  # nothing evaluated yet: the moved slots hold every left document; the rest sat at s_D
        sides = ((0, 0), _crossed(s_node_class, right_class))
    else:
        sides = (_crossed((state[0], state[1]), left_class), _crossed((state[2], state[3]), right_class))
    for side in range(2):
        lo, hi = sides[side]
        for k in range(level_offsets[lo], level_offsets[hi]):
            slot = level_slots[k]
            n_left = slot_left_n[slot]
            on_side = n_left > 0 if side == 0 else n_left < slot_n[slot]
            if on_side and stamp[slot] != candidate:
                stamp[slot] = candidate
                dirty[count] = slot
                count += 1
    return count


# -- the split search -----------------------------------------------------------------------------------


@njit(cache=True)
def best_err_split(Xt, labels, samples, start, end, s_node, max_features, min_leaf, rng, scratch, err, ws, ew):
    """Best split of node D by the change in summed expected ERR of its queries.

    ``ws`` is the tree's ``_listwise.ListwiseWorkspace`` (its level lists kept on ``err.levels``),
    ``ew`` the ERR workspace.  Returns (feature, threshold, summed_err_change); feature = -1 if no
    valid split.  The caller divides by the number of training queries for the mean.
    """
    n = end - start
    n_slots = node_groups(ws, err.levels, labels, samples, start, end, s_node)
    n_levels = level_index(ws, ws.g_offsets[n_slots])
    _node_tables(ws, ew, err, n_slots, s_node)
    levels = ws.levels[:n_levels]
    node_class = _class(levels, 0, n_levels, s_node)
    label_total = 0.0
    for i in range(start, end):
        label_total += labels[samples[i]]
    base = err.base
    n_grades = err.n_grades
    stop = err.stop
    inverse = err.inverse
    pass_power = err.pass_power
    relevant = err.relevant
    # the workspaces' arrays as locals
    slot_query = ws.slot_query
    slot_n = ws.slot_n
    slot_code = ws.slot_gain  # summed packed label codes
    slot_of_position = ws.slot_of_position
    position_label = ws.position_label
    position_code = ws.position_gain
    left_n = ws.slot_left_n
    left_code = ws.slot_left_gain
    if_left_above = ws.slot_change  # each slot's change if s_L > s_R
    if_left_below = ws.slot_change_swapped  # ... and if s_L < s_R
    slot_stamp = ws.slot_stamp
    slot_other = ws.slot_other
    slot_idx_d = ws.slot_idx_d
    slot_tie_d = ws.slot_tie_d
    moved = ws.moved
    dirty = ws.dirty
    g_offsets = ws.g_offsets
    g_score = ws.g_score
    g_count = ws.g_count
    g_code = ws.g_gain
    g_above = ws.g_above
    pass_above = ew.pass_above
    before_sums = ew.before_sums
    d_value = ew.d_value
    hist_top = ew.hist[0]
    hist_bottom = ew.hist[1]
    hist = ew.hist[2]
    chances_top = ew.chances_top
    chances_bottom = ew.chances_bottom
    keys = scratch.keys[:n]
    position_mask = (1 << POSITION_BITS) - 1
    best = (-1, 0.0, MIN_CHANGE)
    start_node(scratch)
    feature = next_feature(Xt, samples, start, end, rng, scratch, max_features)
    while feature >= 0:
        sort_keys(scratch.values[:n], ws.positions[:n], POSITION_BITS, keys)
        left_n[:n_slots] = 0
        left_code[:n_slots] = 0.0
        if_left_above[:n_slots] = 0.0
        if_left_below[:n_slots] = 0.0
        slot_stamp[:n_slots] = -1
        sum_above = 0.0
        sum_below = 0.0
        label_left = 0.0
        n_moved = 0
        state = (0, False, -1, False, 0)  # s_L's class, s_R's class (index, tie), order; index -1: none yet
        for i in range(n - 1):
            position = keys[i] & position_mask
            slot = slot_of_position[position]
            left_n[slot] += 1
            left_code[slot] += position_code[position]
            label_left += position_label[position]
            moved[n_moved] = slot
            n_moved += 1
            n_left = i + 1
            if (keys[i] >> POSITION_BITS) == (keys[i + 1] >> POSITION_BITS) or min(n_left, n - n_left) < min_leaf:
                continue
            s_left = label_left / n_left
            s_right = (label_total - label_left) / (n - n_left)
            left_class = _class(levels, 0, n_levels, s_left)
            right_class = _class(levels, 0, n_levels, s_right)
            if s_left == s_right:  # no document changes score: every change is 0
                n_moved = 0
                sum_above = 0.0
                sum_below = 0.0
                if_left_above[:n_slots] = 0.0
                if_left_below[:n_slots] = 0.0
                state = (left_class[0], left_class[1], right_class[0], right_class[1], 0)
                continue
            n_dirty = _dirty_slots(i, moved, n_moved, state, left_class, right_class, node_class, n_slots,
                                   ws.level_offsets, ws.level_slots, left_n, slot_n, slot_stamp, dirty)
            n_moved = 0
            left_on_top = s_left > s_right
            for k in range(n_dirty):
                slot = dirty[k]
                if not relevant[slot_query[slot]]:
                    continue
                # T: the side with the higher score, B the other; only the groups in [s_B, s_T] change
                g0 = g_offsets[slot]
                g1 = g_offsets[slot + 1]
                n_q = slot_n[slot]
                if left_on_top:
                    n_top, code_top, s_top = left_n[slot], left_code[slot], s_left
                    n_bottom, code_bottom, s_bottom = n_q - left_n[slot], slot_code[slot] - left_code[slot], s_right
                else:
                    n_top, code_top, s_top = n_q - left_n[slot], slot_code[slot] - left_code[slot], s_right
                    n_bottom, code_bottom, s_bottom = left_n[slot], left_code[slot], s_left
                idx_d = slot_idx_d[slot]
                after = 0.0
                pass_top = 1.0
                in_gap = n_top > 0 and n_bottom > 0
                first = idx_d  # the range [first, last) of groups whose values change
                inner = idx_d  # ... and of those strictly between the blocks [inner, inner_end)
                a_top = 0
                if n_top > 0:
                    first = _first_not_above(g_score, g0, g1, s_top)
                    a_top = g_above[first] if first < g1 else slot_other[slot]
                    _unpack(code_top, n_top, base, n_grades, hist_top)
                    pass_top = _pass_probability(hist_top, n_grades, pass_power)
                    inner = first
                    if first < g1 and g_score[first] == s_top:
                        _unpack(g_code[first] + code_top, g_count[first] + n_top, base, n_grades, hist)
                        after += pass_above[first + slot] * _group_value(
                            hist, n_grades, stop, inverse, chances_top, g_count[first] + n_top, a_top)
                        inner += 1
                        in_gap = False
                    else:
                        after += pass_above[first + slot] * _group_value(
                            hist_top, n_grades, stop, inverse, chances_top, n_top, a_top)
                if n_bottom > 0:
                    inner_end = _first_not_above(g_score, inner, g1, s_bottom)
                    a_bottom = (g_above[inner_end] if inner_end < g1 else slot_other[slot]) + n_top
                    _unpack(code_bottom, n_bottom, base, n_grades, hist_bottom)
                    p_bottom = pass_above[inner_end + slot] * pass_top
                    last = inner_end
                    if inner_end < g1 and g_score[inner_end] == s_bottom:
                        _unpack(g_code[inner_end] + code_bottom, g_count[inner_end] + n_bottom, base, n_grades, hist)
                        after += p_bottom * _group_value(
                            hist, n_grades, stop, inverse, chances_bottom, g_count[inner_end] + n_bottom, a_bottom)
                        last += 1
                        in_gap = False
                    else:
                        after += p_bottom * _group_value(hist_bottom, n_grades, stop, inverse, chances_bottom, n_bottom,
                                                         a_bottom)
                else:
                    inner_end = idx_d + (1 if slot_tie_d[slot] else 0)
                    last = inner_end
                for g in range(inner, inner_end):
                    _unpack(g_code[g], g_count[g], base, n_grades, hist)
                    after += pass_above[g + slot] * pass_top * _group_value(
                        hist, n_grades, stop, inverse, chances_top, g_count[g], g_above[g] + n_top)
                before = before_sums[last + slot] - before_sums[first + slot] + d_value[slot]
                change = after - before
                # a two-sided query in a gap of its levels: the blocks trade places under the other order
                other_order = change
                if in_gap and inner_end == inner:
                    r_top = _stop_chances(hist_top, n_grades, stop, chances_top, inverse)
                    r_bottom = _stop_chances(hist_bottom, n_grades, stop, chances_bottom, inverse)
                    other_order = pass_above[first + slot] * (
                        _reciprocal_value(chances_bottom, r_bottom, n_bottom, a_top, inverse)
                        + _pass_probability(hist_bottom, n_grades, pass_power)
                        * _reciprocal_value(chances_top, r_top, n_top, a_top + n_bottom, inverse)
                    ) - before
                if not left_on_top:
                    change, other_order = other_order, change
                sum_above += change - if_left_above[slot]
                if_left_above[slot] = change
                sum_below += other_order - if_left_below[slot]
                if_left_below[slot] = other_order
            state = (left_class[0], left_class[1], right_class[0], right_class[1], 1 if left_on_top else -1)
            total = sum_above if left_on_top else sum_below
            if total > best[2]:
                best = (feature, midpoint_threshold(key_value(keys[i], POSITION_BITS, scratch.bits),
                                                    key_value(keys[i + 1], POSITION_BITS, scratch.bits)), total)
        feature = next_feature(Xt, samples, start, end, rng, scratch, max_features)
    return best
