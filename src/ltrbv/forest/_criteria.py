"""The criteria registries: from a criterion's name to its code (and, listwise, its set-up), and the compiled
dispatch of the pointwise ones.

Each criterion lives in its own module, as scikit-learn keeps Criterion,
Splitter and TreeBuilder apart:

* pointwise (a scan over one feature's sorted (value, label) keys returning the
  best boundary and the children's summed impurity, smaller is better; and that impurity from the left
  child's class counts, for the histogram scans of ``thresholds: hist``):
  ``entropy`` (``_entropy``, Algorithm 3) and ``mse`` (``_mse``);
* listwise (the one split search over the node's queries, ``_listwise``, larger is better):
  ``ndcg``, the change in mean expected NDCG (``_ndcg``, eq. 11-13),
  ``ndcg-printed``, the same with Algorithm 4's tie-group value as printed
  (``count[i] * avgGain[i]`` times the group's summed discounts: eq. 13 without its
  division by the group size; ``_ndcg.value``), and
  ``err``, the change in mean expected ERR (``_err``).

Adding a pointwise criterion is one module, one line in ``POINTWISE`` and one
branch in each of the three dispatch functions below.  A listwise one is one module (its code,
its ``prepare``, giving a ``_levels.ListwiseData``, and its hooks: a block's
value, its reach factor, two swapped blocks' value), one line in ``LISTWISE``,
and in ``_listwise`` one ``listwise_search`` with its hooks and a branch of the
dispatch ``best_listwise_split``.
The estimator decodes ``listwise_objective`` once, through ``LISTWISE``, into
the code in ``TreeConfig`` and the criterion's data; a code that is not
registered raises (no silent fallback to another criterion).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)
from . import _entropy, _err, _mse, _ndcg
from ._entropy import LABEL_BITS, LABEL_MASK, xlogx_table  # noqa: F401  (re-exported)

ENTROPY = 0
MSE = 1
POINTWISE = {"entropy": ENTROPY, "mse": MSE}
CRITERIA = POINTWISE  # the names RankingForest(criterion=...) accepts

NDCG, NDCG_PRINTED, ERR = _ndcg.NDCG, _ndcg.NDCG_PRINTED, _err.ERR  # each criterion module owns its code
#: the RankingForest parameters that shape a listwise objective; a criterion that takes none of them refuses them
LISTWISE_OPTIONS = ("discount", "discount_power", "truncation")


@dataclass(frozen=True)
class ListwiseCriterion:
    """A listwise objective: its code (``TreeConfig.listwise_criterion``, what ``_listwise`` dispatches on), its
    set-up ``prepare(train, labels, n_tree_queries, **options) -> _levels.ListwiseData`` shared by the trees of a
    fit, the ``LISTWISE_OPTIONS`` it takes, and a warning to give when it is used (None: none)."""

    code: int
    prepare: Callable
    options: tuple[str, ...] = ()
    warning: str | None = None


LISTWISE = {  # RankingForest(listwise_objective=...)
    "ndcg": ListwiseCriterion(NDCG, _ndcg.prepare, LISTWISE_OPTIONS),
    "err": ListwiseCriterion(ERR, _err.prepare),
    "ndcg-printed": ListwiseCriterion(NDCG_PRINTED, _ndcg.prepare, LISTWISE_OPTIONS, _ndcg.PRINTED_IS_CONSTANT),
}


def pointwise_code(name: str) -> int:
    try:
        return POINTWISE[name]
    except KeyError:
        raise ValueError(f"unknown pointwise criterion {name!r}: one of {sorted(POINTWISE)}") from None


def listwise_criterion(name: str) -> ListwiseCriterion:
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
def counts_boundary_value(criterion, left_counts, node_counts, n_left, n_right, xlogx):
    """The children's summed impurity of a boundary from the left child's class counts (the histogram scans of
    ``thresholds: hist``): |L| H(L) + |R| H(R) for entropy, SSE(L) + SSE(R) for mse."""
    if criterion == ENTROPY:
        return _entropy.counts_children_sum(left_counts, node_counts, n_left, n_right, xlogx)
    elif criterion == MSE:
        return _mse.counts_children_sum(left_counts, node_counts, n_left, n_right)
    raise ValueError("unknown pointwise criterion code")


@njit(cache=True)
def scan_boundaries(criterion, keys, node_counts, min_leaf, xlogx, left_counts):
    """(n_left, children's summed impurity) of the best boundary of sorted keys; n_left = -1 if none."""
    if criterion == ENTROPY:
        return _entropy.best_boundary(keys, node_counts, min_leaf, xlogx, left_counts)
    elif criterion == MSE:
        return _mse.best_boundary(keys, min_leaf)
    raise ValueError("unknown pointwise criterion code")
