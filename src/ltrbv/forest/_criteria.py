"""The criteria registry: one table from a criterion's name to its code, and the compiled dispatch.

Each criterion lives in its own module, as scikit-learn keeps Criterion,
Splitter and TreeBuilder apart:

* pointwise (a scan over one feature's sorted (value, label) keys returning the
  best boundary and the children's summed impurity, smaller is better):
  ``entropy`` (``_entropy``, Algorithm 3) and ``mse`` (``_mse``);
* listwise (a split search over the node's queries, larger is better):
  ``ndcg``, the change in mean expected NDCG (``_listwise``, eq. 11-13),
  ``ndcg-printed``, the same search with Algorithm 4's tie-group value as printed
  (``count[i] * avgGain[i]`` times the group's summed discounts: eq. 13 without its
  division by the group size; ``_listwise._value``), and
  ``err``, the change in mean expected ERR (``_err``).

Adding a pointwise criterion is one module, one line in ``POINTWISE`` and one
branch in each dispatch function below.  A listwise one is one module (its
``prepare``, workspace and split search, sharing ``_listwise``'s level lists,
slots, groups and level index), one line in ``LISTWISE`` and a branch in
``_builder.listwise_setup`` and in the dispatch of ``_builder.build_tree``
(numba types every criterion's data in the one compiled builder; ERR's data
is an argument of its own, None unless used, so only ERR forests compile the
ERR search).  A code that is not registered raises (no silent fallback to
another criterion).
"""

from __future__ import annotations

from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)
from . import _entropy, _mse
from ._entropy import LABEL_BITS, LABEL_MASK, xlogx_table  # noqa: F401  (re-exported)

ENTROPY = 0
MSE = 1
POINTWISE = {"entropy": ENTROPY, "mse": MSE}
CRITERIA = POINTWISE  # the names RankingForest(criterion=...) accepts

NDCG = 0
ERR = 1
NDCG_PRINTED = 2
LISTWISE = {"ndcg": NDCG, "err": ERR, "ndcg-printed": NDCG_PRINTED}  # RankingForest(listwise_objective=...)


def pointwise_code(name: str) -> int:
    try:
        return POINTWISE[name]
    except KeyError:
        raise ValueError(f"unknown pointwise criterion {name!r}: one of {sorted(POINTWISE)}") from None


def listwise_code(name: str) -> int:
    try:
        return LISTWISE[name]
    except KeyError:
        raise ValueError(f"unknown listwise objective {name!r}: one of {sorted(LISTWISE)}") from None


@njit(cache=True)
def node_impurity_sum(criterion, class_counts, n, xlogx, label_sum, label_sq_sum):
    """|D| H(D) for entropy, SSE(D) for mse."""
    if criterion == ENTROPY:
        return _entropy.impurity_sum(class_counts, n, xlogx)
    elif criterion == MSE:
        return _mse.impurity_sum(n, label_sum, label_sq_sum)
    raise ValueError("unknown pointwise criterion code")


@njit(cache=True)
def scan_boundaries(criterion, keys, node_counts, min_leaf, xlogx, left_counts):
    """(n_left, children's summed impurity) of the best boundary of sorted keys; n_left = -1 if none."""
    if criterion == ENTROPY:
        return _entropy.best_boundary(keys, node_counts, min_leaf, xlogx, left_counts)
    elif criterion == MSE:
        return _mse.best_boundary(keys, min_leaf)
    raise ValueError("unknown pointwise criterion code")
