"""RF-list's split search: the change in a listwise objective summed over the tree's training queries.

One search for every listwise criterion (``_criteria.LISTWISE``): the expected NDCG of Ibrahim &
Carman 2016 (§4.3, Algorithm 4, eq. 11-13; ``_ndcg``, also as Algorithm 4 prints it) and the
expected ERR (``_err``).  Both value a query's ranking by its tie groups, documents of equal leaf
score across *all* leaves (``_levels``); a criterion gives the search three small hooks, dispatched
on its code (``TreeConfig.listwise_criterion``, decoded once by the estimator) and inlined:

* ``_value``: a block's value at ranks a+1 .. a+t, from its size, its summed document value and the
  *reach*, the probability that a reader gets past every document above it (ERR; 1 for NDCG);
* ``_reach``: the factor a block multiplies the reach of the blocks below it by (ERR's prod (1 - R));
* ``_swapped``: two blocks' value with their order swapped (see "few queries per candidate").

The per-document move of the scan is the criterion's document value (``ListwiseData.gains``), summed
into the slot's left block.  Splitting node D into L and R moves only D's documents: from score s_D
to s_L or s_R.  For a query q the groups of other leaves whose score lies outside
[min(s_L, s_R), max(s_L, s_R)] keep their rank and reach (s_D is a weighted mean of s_L and s_R, so
it lies in that interval too); only the range in between changes.  The search is exact and
incremental (issue 12; design in ``../shared/design/listwise-split-search``):

* **Level lists kept across the tree** (``_levels``): a node's set-up reads no document outside the
  node and sorts nothing per query.
* **A query's change from its range only.**  Per node and query, prefix sums of the groups' values
  *before* the split (the node's block merged in at s_D) and of their reach; with ``shift_cap`` >= 0
  (NDCG, whose group value is O(1)) also prefix tables of the groups' values shifted down by up to
  that many ranks, so a query's change is two class look-ups plus a handful of table reads.  A
  criterion whose value needs more than its block's sums (ERR: the label histogram) evaluates the
  groups between s_L and s_R one by one (usually one or two).
* **Few queries per candidate.**  A query's change depends on s_L, s_R only through how they compare
  with its levels and with each other, so at a candidate only the queries of moved documents and the
  queries with a level that s_L or s_R crossed (found from the node's level index) are re-evaluated,
  each once (a dirty list), at one site.  When s_L and s_R swap order nothing is re-evaluated: each
  query keeps its change for both orders (equal for a one-sided query; for a two-sided query whose
  s_L and s_R lie in one gap of its levels the two blocks trade places, ``_swapped``; any other
  two-sided query has a level between s_L and s_R, which a swap crosses, so it is re-evaluated
  anyway) and the scan keeps both sums.  When s_L == s_R no document changes score and every change
  is exactly 0.

Per node, with n documents, q touched queries, P = sum of their other-leaf levels (queries of weight 0, with
no relevant document, get none: they never change the sum), V distinct levels, T distinct level scores in the
tree and K features: set-up O(n + P + T) while T <= 2P and the tree has at most ``_levels.SCORE_TABLE_SIZE``
scores (the level index by a counting sort of score ranks), else O(n + P log P), plus the before values (NDCG
also P * min(n_q, 8) for its shift tables); per feature O(n) for the sort (``_splitter.radix_sort`` of the
keys' value bytes; a quicksort up to 256 documents) or, with ``thresholds: hist``, O(n + 256), a counting sort
by bin (``_splitter.counting_sort_keys``), and at most 255 candidates; plus, per candidate, O(log V) at most
for the two level classes (found by a short walk from the last candidate's, ``_levels.level_class_near``),
O(levels crossed) to find the dirty queries and O(log G_q) plus the hooks per re-evaluated query. The
evaluation site is written out in the scan on purpose: as a function, even inlined by numba, its ~20 array
arguments are reference-counted on every call (measured: 1.7x slower on MSLR-shaped data); the hooks take the
criterion's data and one or two scratch arrays.
"""

from __future__ import annotations

import numpy as np
from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)

from . import _err, _ndcg
from ._criteria import ERR, NDCG, NDCG_PRINTED
from ._levels import first_not_above, level_class, level_class_near, level_index, node_groups
from ._splitter import counting_sort_keys, key_value, midpoint_threshold, next_feature, sort_keys, start_node

POSITION_BITS = 24  # nodes of up to 16.7M documents
MIN_CHANGE = 1e-10  # a split must raise the summed objective by more than rounding noise


def listwise_search(value_of, reach_of, swapped_of):
    """The split search compiled with one criterion's hooks, ``@njit`` functions of the criterion module.

    Every hook takes first the criterion's code and its tables (``ListwiseData.tables`` unpacked:
    ``table, base, n_grades``), written ``T`` here:

    * ``value_of(code, T, hist, chances, gain, count, above, reach)``: a block of ``count`` documents
      (summed document value ``gain``) at ranks above+1 .. above+count, reached with probability ``reach``;
    * ``reach_of(code, T, hist, gain, count)``: the factor that block multiplies the reach below it by;
    * ``swapped_of(code, T, hist_top, hist_bottom, chances_top, chances_bottom, gain_top, n_top, gain_bottom,
      n_bottom, above)``: two blocks at ranks above+1 .. with the bottom one first, at reach 1; the search
      calls it only right after ``value_of`` of the top block with ``(hist_top, chances_top)`` and of the
      bottom block with ``(hist_bottom, chances_bottom)``, so it may reuse what those calls left there;

    ``hist`` and ``chances`` are the workspace's scratch for a block (one per role: the top block, the
    bottom block, other groups).  One source, compiled once per criterion module: a hook is a constant of
    its search, so nothing of another criterion's is in the compiled loop (a run-time dispatch on the code
    inside the loop measured 25-40% slower).  Returns ``best_split``, with the signature of
    ``best_listwise_split``.
    """

    @njit(cache=True)
    def node_tables(code, data, ws, n_slots, s_node):
        """Per slot of a weighted query: the reach above each of its other-leaf groups, prefix sums of the groups'
        values before the split (the node's block merged in at s_D), the node block's own value (0 when it is
        tied with a group) and, ``data.shift_cap`` >= 0, prefix tables of the groups' values shifted down by
        x = 0..cap ranks.  Returns the shift tables."""
        table, base, n_grades = data.tables
        hist_d = ws.hist[0]
        hist = ws.hist[2]
        chances = ws.chances_top
        reach = ws.reach
        before = ws.before_sums
        total_ps = 0
        for slot in range(n_slots):
            ws.ps_cap[slot] = -1
            if data.weight[ws.slot_query[slot]] == 0.0:  # never evaluated
                continue
            g0 = ws.g_offsets[slot]
            g1 = ws.g_offsets[slot + 1]
            n_q = ws.slot_n[slot]
            gain_q = ws.slot_gain[slot]
            reach_d = reach_of(code, table, base, n_grades, hist_d, gain_q, n_q)
            reach[g0 + slot] = 1.0
            before[g0 + slot] = 0.0
            for g in range(g0, g1):
                p = reach[g + slot]
                if ws.g_score[g] > s_node:
                    v = value_of(code, table, base, n_grades, hist, chances, ws.g_gain[g],
                                 ws.g_count[g], ws.g_above[g], p)
                elif ws.g_score[g] == s_node:
                    v = value_of(code, table, base, n_grades, hist, chances,
                                 ws.g_gain[g] + gain_q, ws.g_count[g] + n_q, ws.g_above[g], p)
                else:
                    v = value_of(code, table, base, n_grades, hist, chances, ws.g_gain[g],
                                 ws.g_count[g], ws.g_above[g] + n_q, p * reach_d)
                reach[g + slot + 1] = p * reach_of(code, table, base, n_grades, hist,
                                                   ws.g_gain[g], ws.g_count[g])
                before[g + slot + 1] = before[g + slot] + v
            idx = ws.slot_idx_d[slot]
            if ws.slot_tie_d[slot]:
                ws.slot_d_value[slot] = 0.0
            else:
                a_d = ws.g_above[idx] if idx < g1 else ws.slot_other[slot]
                ws.slot_d_value[slot] = value_of(code, table, base, n_grades, hist_d,
                                                 chances, gain_q, n_q, a_d, reach[idx + slot])
            if data.shift_cap >= 0 and g1 > g0:
                ws.ps_cap[slot] = min(n_q, data.shift_cap)
                ws.ps_off[slot] = total_ps
                total_ps += (ws.ps_cap[slot] + 1) * (g1 - g0 + 1)
        shift_tables = np.empty(max(total_ps, 1), dtype=np.float64)
        for slot in range(n_slots):
            g0 = ws.g_offsets[slot]
            g1 = ws.g_offsets[slot + 1]
            for x in range(ws.ps_cap[slot] + 1):
                row = ws.ps_off[slot] + x * (g1 - g0 + 1)
                shift_tables[row] = 0.0
                for g in range(g0, g1):
                    shift_tables[row + g - g0 + 1] = shift_tables[row + g - g0] + value_of(
                        code, table, base, n_grades, hist, chances, ws.g_gain[g], ws.g_count[g],
                        ws.g_above[g] + x, reach[g + slot])
        return shift_tables


    @njit(cache=True)
    def best_split(Xt, labels, samples, start, end, s_node, max_features, min_leaf, rng, scratch, code, data, ws):
        """Best split of node D by the change in its queries' summed objective (``best_listwise_split``)."""
        n = end - start
        n_slots = node_groups(ws, data, labels, samples, start, end, s_node)
        n_levels = level_index(ws, ws.g_offsets[n_slots])
        shift_tables = node_tables(code, data, ws, n_slots, s_node)
        label_total = 0.0
        for i in range(start, end):
            label_total += labels[samples[i]]
        levels = ws.levels[:n_levels]
        # the workspace's arrays as locals: the scan below must not read them out of the tuple per access
        slot_query = ws.slot_query
        slot_n = ws.slot_n
        slot_gain = ws.slot_gain
        slot_weight = ws.slot_weight
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
        reach = ws.reach
        before_sums = ws.before_sums
        level_offsets = ws.level_offsets
        level_slots = ws.level_slots
        table, base, n_grades = data.tables
        hist_top = ws.hist[0]
        hist_bottom = ws.hist[1]
        hist_other = ws.hist[2]
        chances_top = ws.chances_top
        chances_bottom = ws.chances_bottom
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
            if scratch.binned:  # thresholds: hist, values are bin numbers: a counting sort, the same keys
                counting_sort_keys(node_values, node_positions, POSITION_BITS, scratch, node_keys)
            else:
                sort_keys(node_values, node_positions, POSITION_BITS, node_keys, scratch)
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
            right_index, right_tie = level_class(levels, 0, n_levels, s_node)  # before the scan all sit at s_D
            order = 0
            for i in range(n - 1):
                # the per-document move: the document's value joins its query's left block
                p = node_keys[i] & position_mask
                slot = slot_of_position[p]
                slot_left_n[slot] += 1
                slot_left_gain[slot] += position_gain[p]
                label_left += position_label[p]
                if slot_weight[slot] != 0.0:  # a query of weight 0 is never evaluated
                    moved[n_moved] = slot
                    n_moved += 1
                n_left = i + 1
                if (node_keys[i] >> POSITION_BITS) == (node_keys[i + 1] >> POSITION_BITS):
                    continue
                if n_left < min_leaf or n - n_left < min_leaf:
                    continue
                s_left = label_left / n_left
                s_right = (label_total - label_left) / (n - n_left)
                new_left_index, new_left_tie = level_class_near(levels, n_levels, s_left, left_index)
                new_right_index, new_right_tie = level_class_near(levels, n_levels, s_right, right_index)
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
                if evaluated and order == 0 and code == ERR:
                    # every slot is dirty after s_L == s_R; ERR sums them in slot order, NDCG the moved ones first (the
                    # orders of the two searches this one replaced: the sums, hence the trees, stay bit-identical)
                    n_moved = 0
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
                    weight = slot_weight[slot]
                    if weight == 0.0:  # (ERR after s_L == s_R: every slot)
                        continue
                    # --- the evaluation site: the slot query's unweighted change (s_left != s_right) and its change
                    # if s_L and s_R had the opposite order.  T is the side with the higher score, B the other.  Only
                    # the groups in [s_B, s_T] change: after = T block (merged with a group tied at s_T) + groups
                    # strictly between, shifted down by n_T and past T's reach + B block (merged with a group tied at
                    # s_B, below the n_T documents of T); before = the prefix-summed before values over the same
                    # index range [first, last) plus the D block if it sat alone. ---
                    g0 = g_offsets[slot]
                    g1 = g_offsets[slot + 1]
                    n_q = slot_n[slot]
                    q_left_n = slot_left_n[slot]
                    q_left_gain = slot_left_gain[slot]
                    if s_left > s_right:
                        n_top, gain_top, s_top = q_left_n, q_left_gain, s_left
                        n_bottom, gain_bottom, s_bottom = n_q - q_left_n, slot_gain[slot] - q_left_gain, s_right
                    else:
                        n_top, gain_top, s_top = n_q - q_left_n, slot_gain[slot] - q_left_gain, s_right
                        n_bottom, gain_bottom, s_bottom = q_left_n, q_left_gain, s_left
                    idx_d = slot_idx_d[slot]
                    after = 0.0
                    reach_top = 1.0
                    gap = n_top > 0 and n_bottom > 0  # two-sided with no level in [s_B, s_T]: decided below
                    first = idx_d  # the groups whose values change: [first, last); strictly between: [inner, inner_end)
                    inner = idx_d
                    if n_top > 0:
                        first = first_not_above(g_score, g0, g1, s_top)
                        a_top = g_above[first] if first < g1 else slot_other[slot]
                        if first < g1 and g_score[first] == s_top:
                            after += value_of(code, table, base, n_grades, hist_other,
                                              chances_top, g_gain[first] + gain_top, g_count[first] + n_top, a_top,
                                              reach[first + slot])
                            inner = first + 1
                            gap = False
                        else:
                            after += value_of(code, table, base, n_grades, hist_top,
                                              chances_top, gain_top, n_top, a_top, reach[first + slot])
                            inner = first
                    if n_top > 0 and (n_bottom > 0 or idx_d + (1 if slot_tie_d[slot] else 0) > inner):
                        # the top block's reach scales what lies below it (skipped when nothing does)
                        reach_top = reach_of(code, table, base, n_grades, hist_top, gain_top,
                                             n_top)
                    if n_bottom > 0:
                        inner_end = first_not_above(g_score, inner, g1, s_bottom)
                        a_bottom = (g_above[inner_end] if inner_end < g1 else slot_other[slot]) + n_top
                        reach_bottom = reach[inner_end + slot] * reach_top
                        if inner_end < g1 and g_score[inner_end] == s_bottom:
                            after += value_of(code, table, base, n_grades, hist_other,
                                              chances_bottom, g_gain[inner_end] + gain_bottom,
                                              g_count[inner_end] + n_bottom, a_bottom, reach_bottom)
                            last = inner_end + 1
                            gap = False
                        else:
                            after += value_of(code, table, base, n_grades, hist_bottom,
                                              chances_bottom, gain_bottom, n_bottom, a_bottom, reach_bottom)
                            last = inner_end
                    else:
                        inner_end = idx_d + (1 if slot_tie_d[slot] else 0)
                        last = inner_end
                    if inner_end > inner:
                        if n_top <= ps_cap[slot]:
                            row = ps_off[slot] + n_top * (g1 - g0 + 1) - g0
                            after += reach_top * (shift_tables[row + inner_end] - shift_tables[row + inner])
                        else:
                            for g in range(inner, inner_end):
                                after += value_of(code, table, base, n_grades, hist_other,
                                                  chances_top, g_gain[g], g_count[g], g_above[g] + n_top,
                                                  reach[g + slot] * reach_top)
                    before = before_sums[last + slot] - before_sums[first + slot] + slot_d_value[slot]
                    change = after - before
                    # the change under the opposite order of s_L and s_R: the same for a one-sided query; for a
                    # two-sided query in a gap the two blocks trade places; otherwise unknown (a level lies between
                    # s_B and s_T, so any swap crosses it and the query is re-evaluated through the crossing rule)
                    opposite = change
                    if gap and inner_end == inner:
                        a = g_above[first] if first < g1 else slot_other[slot]
                        opposite = reach[first + slot] * swapped_of(
                            code, table, base, n_grades, hist_top, hist_bottom, chances_top,
                            chances_bottom, gain_top, n_top, gain_bottom, n_bottom, a) - before
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

    return best_split


_best_ndcg_split = listwise_search(_ndcg.block_value, _ndcg.reach, _ndcg.swapped_value)
_best_err_split = listwise_search(_err.block_value, _err.reach, _err.swapped_value)


@njit(cache=True)
def check_code(code):
    """Refuse a criterion code that is not registered (``_criteria.LISTWISE``): no silent fallback."""
    if code != NDCG and code != ERR and code != NDCG_PRINTED:
        raise ValueError("unknown listwise criterion code")


@njit(cache=True)
def best_listwise_split(Xt, labels, samples, start, end, s_node, max_features, min_leaf, rng, scratch, code, data,
                        ws):
    """Best split of node D by the change in its queries' summed objective (Algorithm 4 for expected NDCG).

    ``code`` is the criterion (``_criteria.LISTWISE``; ``check_code`` refuses others, the builder calls it
    once per tree), ``data`` its ``ListwiseData``, ``ws`` the tree's ``_levels.ListwiseWorkspace``.
    Returns (feature, threshold, summed_change); feature = -1 if no valid split.  The caller divides by
    the number of training queries for the mean.
    """
    if code == ERR:
        return _best_err_split(Xt, labels, samples, start, end, s_node, max_features, min_leaf, rng, scratch, code,
                               data, ws)
    return _best_ndcg_split(Xt, labels, samples, start, end, s_node, max_features, min_leaf, rng, scratch, code, data,
                            ws)
