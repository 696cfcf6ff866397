"""What every listwise criterion shares: its data, the tree-wide score levels, a node's slots and groups.

A listwise criterion (``_ndcg``, ``_err``) values a query's ranking by its *tie groups*: the
documents of the query with equal leaf scores (Ibrahim & Carman 2016, eq. 11-13).  A group is
known by its score, its size and the sum of one number per document, the criterion's document
value (``ListwiseData.gains``: NDCG's gain 2^l - 1, ERR's packed label code); what the group is
worth at a rank is the criterion's (its ``value`` hook).  This module keeps those sums up to date
as the tree grows and lays out what one node's split search reads:

* **Level lists, kept across the tree.**  Each training query keeps its documents' distinct score
  levels (score, count, summed document value) sorted by score, updated in O(levels) when a node
  splits (``update_levels``), so a node's set-up reads no document outside the node and sorts
  nothing per query.
* **Slots and other-leaf groups, per node.**  The node's documents grouped by query ("slots",
  samples are grouped by query), and for each slot its groups from the *other* leaves: its level
  list with the node's own documents taken off level s_D (``node_groups``); none for a query of weight
  0 (no relevant document), which never changes the sum.
* **The level index, per node.**  The distinct scores of those groups, each with the slots that
  have a group there (``level_index``): a candidate split whose child score crosses a level
  re-evaluates only those slots (``_listwise``).  A tree-wide table gives each distinct level score an
  id (``score_id``), and each level and group carries its score's id, so that while the table is small (a
  tree's top levels) the index is a counting sort by score rank rather than a comparison sort.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)

# what every tree of a fit shares (read-only), one type for every listwise criterion (``_criteria.LISTWISE``)
ListwiseData = namedtuple("ListwiseData", [
    "gains",  # per document: the value a tie group sums (NDCG: gain 2^l - 1; ERR: packed label code)
    "doc_query", "query_offsets",
    "weight",  # per query: its weight in the summed change (NDCG: 1 / ideal DCG; ERR: 1); 0: never changes
    "n_tree_queries",  # training queries per tree (the mean's denominator)
    "shift_cap",  # prefix tables of shifted group values for up to this many documents moved above (-1: none)
    "tables",  # the criterion's own tables (``Tables``), which its hooks read
])
# a criterion's tables, which its hooks read: one float64 array (one array argument, not four: ERR's hooks are calls)
Tables = namedtuple("Tables", [
    "table",  # NDCG: the cumulative discount table (eq. 12, 14, 15); ERR: its stop, 1 / i and (1 - R)^k tables
    "base", "n_grades",  # ERR: the label packing (1 and 0 for NDCG)
])

# per-tree scratch space of the listwise split search
ListwiseWorkspace = namedtuple("ListwiseWorkspace", [
    # node documents grouped by query ("slots")
    "slot_query", "slot_start", "slot_n", "slot_gain", "slot_weight", "slot_of_position",
    # each node position's label and document value, gathered once per node (the scan reads them in sorted order)
    "position_label", "position_gain",
    # per-slot state of a feature scan
    "slot_left_n", "slot_left_gain", "slot_change", "slot_change_swapped", "slot_stamp",
    # per-slot node constants: other documents, class of s_D, D-block value, shift-table offset and cap
    "slot_other", "slot_idx_d", "slot_tie_d", "slot_d_value", "ps_off", "ps_cap",
    "moved", "dirty", "positions",
    # other-leaf groups of the node's queries (score descending per slot); per slot and group (index group + slot):
    # the reach above the group and prefix sums of the groups' values before the split
    "g_offsets", "g_score", "g_count", "g_gain", "g_above", "group_slot", "reach", "before_sums",
    # the node's level index: distinct group scores descending, level -> groups
    "levels", "level_offsets", "level_slots",
    # tree-wide: each query's score levels (score descending), kept up to date as nodes split, each with the id of
    # its score; each group's score id (a copy)
    "q_start", "q_levels", "lv_score", "lv_count", "lv_gain", "lv_id", "g_id",
    # tree-wide: the distinct level scores in order of first use (id = index), each id's rank among them (descending),
    # the scores by rank, a count per rank (the level index's counting sort) and the table's state (``score_id``)
    "id_score", "id_rank", "rank_score", "rank_counts", "table_state",
    # a criterion's scratch for a block's value (ERR: label histograms of the top block, the bottom block and other
    # groups, each with the block it holds; e_k tables of the top and the bottom block)
    "hist", "chances_top", "chances_bottom",
])


# the tree-wide table of level scores holds up to this many distinct scores (RF-hybrid-L6: at most 127); past it
# the level index falls back to a comparison sort for the rest of the tree
SCORE_TABLE_SIZE = 1024
OVERFLOW = -1  # table_state[0] once more distinct scores arrived than the table holds


def listwise_data(gains, doc_query, query_offsets, weight, n_tree_queries: int, shift_cap: int = -1,
                  table=None, base: int = 1, n_grades: int = 0) -> ListwiseData:
    """A criterion's ``ListwiseData`` (its ``prepare``); ``table`` its hooks' tables (a placeholder if none)."""
    tables = Tables(np.zeros(1) if table is None else np.ascontiguousarray(table, dtype=np.float64), int(base),
                    int(n_grades))
    return ListwiseData(
        np.ascontiguousarray(gains, dtype=np.float64), np.ascontiguousarray(doc_query, dtype=np.int64),
        np.ascontiguousarray(query_offsets, dtype=np.int64), np.ascontiguousarray(weight, dtype=np.float64),
        int(n_tree_queries), int(shift_cap), tables)


def unused_data() -> ListwiseData:
    """A placeholder of the right types for trees without listwise splits."""
    return listwise_data(np.zeros(1), np.zeros(1, np.int64), np.zeros(2, np.int64), np.zeros(1), 1)


@njit(cache=True)
def make_workspace(n, n_queries, m, data):
    """Scratch arrays for a tree of n documents of m queries numbered below n_queries (1, 1, 1: no listwise splits)."""
    return ListwiseWorkspace(
        np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.float64),
        np.empty(m, np.float64), np.empty(n, np.int64),
        np.empty(n, np.float64), np.empty(n, np.float64),
        np.empty(m, np.int64), np.empty(m, np.float64), np.empty(m, np.float64), np.empty(m, np.float64),
        np.empty(m, np.int64),
        np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, np.bool_), np.empty(m, np.float64),
        np.empty(m, np.int64), np.empty(m, np.int64),
        np.empty(n, np.int64), np.empty(m, np.int64), np.arange(n, dtype=np.int64),
        np.empty(m + 1, np.int64), np.empty(n, np.float64), np.empty(n, np.int64), np.empty(n, np.float64),
        np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n + m + 1, np.float64), np.empty(n + m + 1, np.float64),
        np.empty(n, np.float64), np.empty(n + 1, np.int64), np.empty(n, np.int64),
        np.full(n_queries, -1, np.int64), np.zeros(n_queries, np.int64),
        np.empty(n, np.float64), np.empty(n, np.int64), np.empty(n, np.float64), np.empty(n, np.int64),
        np.empty(n, np.int64),
        np.empty(SCORE_TABLE_SIZE, np.float64), np.empty(SCORE_TABLE_SIZE, np.int64),
        np.empty(SCORE_TABLE_SIZE, np.float64), np.empty(SCORE_TABLE_SIZE + 1, np.int64), np.zeros(2, np.int64),
        np.full((3, data.tables.n_grades + 3), -1, np.int64), np.empty(data.tables.base + 1, np.float64),
        np.empty(data.tables.base + 1, np.float64),
    )


# -- tree-wide level lists ----------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _query_run(data, samples, i, end):
    """The run of samples[i:end] (grouped by query) that shares samples[i]'s query: (query, end of the run,
    summed document value)."""
    q = data.doc_query[samples[i]]
    j = i
    gain_sum = 0.0
    while j < end and data.doc_query[samples[j]] == q:
        gain_sum += data.gains[samples[j]]
        j += 1
    return q, j, gain_sum


@njit(cache=True)
def init_levels(ws, data, samples, root_score):
    """Every query of the tree starts with one level: all its documents at the root's score."""
    n = samples.size
    ws.table_state[0] = 0  # no score yet ...
    ws.table_state[1] = 0  # ... and none ranked
    root_id = score_id(ws, root_score)
    i = 0
    while i < n:
        q, j, gain_sum = _query_run(data, samples, i, n)
        ws.q_start[q] = i
        ws.q_levels[q] = 1
        ws.lv_score[i] = root_score
        ws.lv_count[i] = j - i
        ws.lv_gain[i] = gain_sum
        ws.lv_id[i] = root_id
        i = j


@njit(cache=True)
def score_id(ws, s):
    """The id of level score s in the tree's score table (added if new); -1 once the table has overflowed.

    ``table_state`` holds the number of ids (``OVERFLOW`` once past ``SCORE_TABLE_SIZE``) and the number of them
    ranked (``rank_scores``).  Called once per child of a listwise split: a linear search of at most
    ``SCORE_TABLE_SIZE`` scores."""
    n_ids = ws.table_state[0]
    if n_ids == OVERFLOW:
        return -1
    for k in range(n_ids):
        if ws.id_score[k] == s:
            return k
    if n_ids == ws.id_score.size:
        ws.table_state[0] = OVERFLOW
        return -1
    ws.id_score[n_ids] = s
    ws.table_state[0] = n_ids + 1
    return n_ids


@njit(cache=True)
def rank_scores(ws):
    """Each id's rank among the table's distinct scores, descending, and the scores by rank (when ids were added
    since the last call).  Returns the number of ranks."""
    n_ids = ws.table_state[0]
    if ws.table_state[1] != n_ids:
        order = np.argsort(-ws.id_score[:n_ids])
        for r in range(n_ids):
            ws.id_rank[order[r]] = r
            ws.rank_score[r] = ws.id_score[order[r]]
        ws.table_state[1] = n_ids
    return n_ids


@njit(cache=True, inline="always")
def first_not_above(scores, lo, hi, s):
    """First index in scores[lo:hi] (sorted descending) whose score is <= s."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if scores[mid] > s:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, inline="always")
def level_class(scores, lo, hi, s):
    """(first index in scores[lo:hi] (descending) with score <= s, whether that score equals s)."""
    i = first_not_above(scores, lo, hi, s)
    return i, i < hi and scores[i] == s


LEVEL_WALK = 8  # level_class_near walks this many levels from its hint before it searches


@njit(cache=True, inline="always")
def level_class_near(scores, n, s, hint):
    """``level_class(scores, 0, n, s)`` found from ``hint``, the class of a nearby score: a walk of at most
    ``LEVEL_WALK`` levels (a split search's child scores mostly move by less than a level), then a binary search
    of the part left."""
    i = hint
    steps = 0
    if i > 0 and scores[i - 1] <= s:
        while i > 0 and scores[i - 1] <= s:
            i -= 1
            steps += 1
            if steps == LEVEL_WALK and i > 0 and scores[i - 1] <= s:
                i = first_not_above(scores, 0, i - 1, s)
                break
    else:
        while i < n and scores[i] > s:
            i += 1
            steps += 1
            if steps == LEVEL_WALK:
                i = first_not_above(scores, i, n, s)
                break
    return i, i < n and scores[i] == s


@njit(cache=True)
def _move_level(ws, q, s_from, s_to, id_to, count, gain):
    """Move count documents (summed document value) of query q from level s_from to level s_to (score id id_to)."""
    k0 = ws.q_start[q]
    k1 = k0 + ws.q_levels[q]
    i = first_not_above(ws.lv_score, k0, k1, s_from)
    ws.lv_count[i] -= count
    ws.lv_gain[i] -= gain  # sums of integer document values: exact
    if ws.lv_count[i] == 0:
        for k in range(i, k1 - 1):
            ws.lv_score[k] = ws.lv_score[k + 1]
            ws.lv_count[k] = ws.lv_count[k + 1]
            ws.lv_gain[k] = ws.lv_gain[k + 1]
            ws.lv_id[k] = ws.lv_id[k + 1]
        k1 -= 1
    j = first_not_above(ws.lv_score, k0, k1, s_to)
    if j < k1 and ws.lv_score[j] == s_to:
        ws.lv_count[j] += count
        ws.lv_gain[j] += gain
    else:
        for k in range(k1, j, -1):
            ws.lv_score[k] = ws.lv_score[k - 1]
            ws.lv_count[k] = ws.lv_count[k - 1]
            ws.lv_gain[k] = ws.lv_gain[k - 1]
            ws.lv_id[k] = ws.lv_id[k - 1]
        ws.lv_score[j] = s_to
        ws.lv_count[j] = count
        ws.lv_gain[j] = gain
        ws.lv_id[j] = id_to
        k1 += 1
    ws.q_levels[q] = k1 - k0


@njit(cache=True)
def update_levels(ws, data, samples, lo, hi, s_from, s_to):
    """After a split: the documents samples[lo:hi] (grouped by query) moved from score s_from to s_to."""
    id_to = score_id(ws, s_to)
    i = lo
    while i < hi:
        q, j, gain_sum = _query_run(data, samples, i, hi)
        _move_level(ws, q, s_from, s_to, id_to, j - i, gain_sum)
        i = j


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
        ws.slot_weight[n_slots] = data.weight[q]
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
        # a query of weight 0 never changes the sum: no groups, so no level of it is crossed or indexed
        k_end = ws.q_start[q] + ws.q_levels[q] if data.weight[q] != 0.0 else ws.q_start[q]
        for k in range(ws.q_start[q], k_end):
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
            ws.g_id[g] = ws.lv_id[k]
            ws.group_slot[g] = slot
            above += count
            m += 1
        ws.g_offsets[slot + 1] = base + m
        ws.slot_other[slot] = above
        idx, tie = level_class(ws.g_score, base, base + m, s_node)
        ws.slot_idx_d[slot] = idx
        ws.slot_tie_d[slot] = tie
    return n_slots


@njit(cache=True)
def level_index(ws, n_groups):
    """The node's level index: distinct group scores descending; the slots with a group at level v are
    level_slots[level_offsets[v]:level_offsets[v + 1]], in group order (a stable sort of the groups by descending
    score).  Returns the number of levels.

    While the tree's score table holds every level score and is no larger than twice the groups (the top levels of
    a tree), a counting sort by each group's score rank, O(groups + table); else a merge sort, O(groups log groups).
    """
    n_levels = 0
    ws.level_offsets[0] = 0
    n_ids = ws.table_state[0]
    if n_groups > 0 and 0 < n_ids <= 2 * n_groups:
        n_ranks = rank_scores(ws)
        counts = ws.rank_counts
        for r in range(n_ranks + 1):
            counts[r] = 0
        for g in range(n_groups):
            counts[ws.id_rank[ws.g_id[g]] + 1] += 1
        for r in range(n_ranks):
            if counts[r + 1] > 0:
                ws.levels[n_levels] = ws.rank_score[r]
                n_levels += 1
            counts[r + 1] += counts[r]
            ws.level_offsets[n_levels] = counts[r + 1]
        for g in range(n_groups):
            r = ws.id_rank[ws.g_id[g]]
            ws.level_slots[counts[r]] = ws.group_slot[g]
            counts[r] += 1
    elif n_groups > 0:
        order = np.argsort(-ws.g_score[:n_groups], kind="mergesort")
        for k in range(n_groups):
            g = order[k]
            if n_levels == 0 or ws.g_score[g] != ws.levels[n_levels - 1]:
                ws.levels[n_levels] = ws.g_score[g]
                n_levels += 1
            ws.level_slots[k] = ws.group_slot[g]
            ws.level_offsets[n_levels] = k + 1
    return n_levels
