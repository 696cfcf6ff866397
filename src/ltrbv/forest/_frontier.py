"""The frontier: which open node a tree expands next (Ibrahim & Carman 2016, "Node Expansion Strategies").

The paper's four strategies, and the recursive one they replace:

* ``breadth-first``  a FIFO queue of leaves (the paper's choice for every table but XVI);
* ``random``         a leaf drawn uniformly from the open ones at each step;
* ``biggest-first``  the open leaf with the most training documents;
* ``relevant-first`` the open leaf with the highest score (mean label, eq. 9);
* ``depth-first``    the recursive order, left child first (the paper's side note under Fig. 7).

Ties (equal size or score) go to the node created first, so every order is a
function of the tree's seed.  Pointwise splits do not depend on the order (a
node's split sees only its own documents); listwise splits do, since each one
is chosen given the scores of every other leaf (eq. 11).

The frontier is a binary heap of (key, node) with the larger key first and,
for equal keys, the smaller node; ``random`` pops a uniform position instead
(swap with the last).  A strategy is a key: breadth-first 0 for all (so the
node order, FIFO), depth-first the creation index with a left child above its
right sibling, biggest-first the size, relevant-first the score.
"""

from __future__ import annotations

from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)
from ._rng import randint

BREADTH_FIRST = 0
DEPTH_FIRST = 1
RANDOM = 2
BIGGEST_FIRST = 3
RELEVANT_FIRST = 4
EXPLORATIONS = {"breadth-first": BREADTH_FIRST, "depth-first": DEPTH_FIRST, "random": RANDOM,
                "biggest-first": BIGGEST_FIRST, "relevant-first": RELEVANT_FIRST}  # RankingForest(exploration=...)


def exploration_code(name: str) -> int:
    try:
        return EXPLORATIONS[name]
    except KeyError:
        raise ValueError(f"unknown exploration {name!r}: one of {list(EXPLORATIONS)}") from None


@njit(cache=True, nogil=True)
def node_key(strategy, node, is_left, size, score):
    """The heap key of a new node (``node`` its index, its sibling's index is node + 1 for a left child)."""
    if strategy == BREADTH_FIRST or strategy == RANDOM:
        return 0.0
    if strategy == DEPTH_FIRST:  # newer first; a left child (node n) above its right sibling (n + 1)
        return float(node + 1) if is_left else float(node - 1)
    if strategy == BIGGEST_FIRST:
        return float(size)
    if strategy == RELEVANT_FIRST:
        return score
    raise ValueError("unknown exploration code")


@njit(inline="always", cache=True)
def _first(keys, nodes, i, j):
    """Whether heap entry i comes before entry j."""
    return keys[i] > keys[j] or (keys[i] == keys[j] and nodes[i] < nodes[j])


@njit(cache=True, nogil=True)
def push(keys, nodes, count, node, key):
    """Add ``node`` with ``key`` to the heap of ``count`` entries; returns the new count."""
    i = count
    keys[i] = key
    nodes[i] = node
    while i > 0:
        parent = (i - 1) // 2
        if not _first(keys, nodes, i, parent):
            break
        keys[i], keys[parent] = keys[parent], keys[i]
        nodes[i], nodes[parent] = nodes[parent], nodes[i]
        i = parent
    return count + 1


@njit(cache=True, nogil=True)
def pop(keys, nodes, count, strategy, rng):
    """(the next node to expand, the new count) from a non-empty frontier."""
    if strategy == RANDOM:  # a uniform draw among the open leaves
        i = randint(rng, count)
        node = nodes[i]
        nodes[i] = nodes[count - 1]
        keys[i] = keys[count - 1]
        return node, count - 1
    node = nodes[0]
    count -= 1
    keys[0] = keys[count]
    nodes[0] = nodes[count]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= count:
            break
        if child + 1 < count and _first(keys, nodes, child + 1, child):
            child += 1
        if not _first(keys, nodes, child, i):
            break
        keys[i], keys[child] = keys[child], keys[i]
        nodes[i], nodes[child] = nodes[child], nodes[i]
        i = child
    return node, count
