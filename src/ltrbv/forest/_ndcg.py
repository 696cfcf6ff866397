"""RF-list's NDCG criterion: the change in the mean expected NDCG of the tree's training queries.

Ibrahim & Carman 2016, §4.3 and Algorithm 4.  Every document of a training query sits in some
leaf of the growing tree and gets that leaf's score (its mean label, eq. 9); documents with equal
scores are tied, and the expected DCG over all orders of tied documents is (eq. 11-13)

    E[DCG_q] = sum over tie groups g of  val(G_g, a_g, t_g),   val(G, a, t) = G * (CD[a + t] - CD[a]) / t

where G_g is the group's summed gain 2^l - 1 (the criterion's document value), a_g the number of
the query's documents with a strictly higher score, t_g the group size and CD the cumulative
discount table (eq. 14/15 give the alternative discounts).  Tie groups merge documents of *all*
leaves with equal scores, not only of one leaf.  A query's weight is 1 / its ideal DCG (eq. 11).

``ndcg-printed`` (criterion code ``NDCG_PRINTED``) values a group as Algorithm 4 prints it:
count[i] * avgGain[i] = G times the group's summed discounts, without eq. 13's division by t.

The split search is ``_listwise``'s (shared with ERR); this module gives it the data (``prepare``)
and the hooks (``block_value``, ``reach``, ``swapped_value``).  A group's value is O(1) table reads, so the search keeps
per-node prefix tables of shifted group values (``SHIFT_CAP``) and a query's change costs two
class look-ups plus a handful of table reads.
"""

from __future__ import annotations

import numpy as np
from .. import rounded
from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)

from ._levels import ListwiseData, listwise_data

NDCG = 0  # the criteria's codes (``_criteria.LISTWISE``): eq. 13, and Algorithm 4 as printed
NDCG_PRINTED = 2
SHIFT_CAP = 8  # prefix tables of shifted group values for up to this many documents moved above
#: the warning of listwise_objective="ndcg-printed": Algorithm 4's printed value falls at every split
PRINTED_IS_CONSTANT = ("listwise_objective='ndcg-printed' builds a constant model: every split of a tie group "
                       "(gain G_T + G_B, summed discounts D_T + D_B) changes Algorithm 4's printed value by "
                       "-(G_T*D_B + G_B*D_T) <= 0, so no listwise node ever splits and each tree is one leaf")


def cumulative_discounts(max_rank: int, discount: str = "log2", power: float = 1.0,
                         truncation: int | None = None) -> np.ndarray:
    """CD[r] = sum_{k=1..r} 1/discount(k) for r = 0..max_rank.

    ``log2``: discount(k) = log2(k + 1) (standard NDCG, eq. 12);
    ``log-power``: [log(k + 1)]^alpha (eq. 14, alpha = power);
    ``rank-power``: k^beta (eq. 15, beta = power).
    With ``truncation`` k0, ranks beyond k0 get weight 0 (NDCG@k0).
    """
    k = np.arange(1, max_rank + 1)  # correctly rounded tables: the same bits on every CPU (ltrbv.rounded)
    if discount == "log2":
        weights = 1.0 / rounded.log2_of_integers(k + 1)
    elif discount == "log-power":
        weights = 1.0 / rounded.powers_of_logs(k + 1, power)
    elif discount == "rank-power":
        weights = 1.0 / rounded.powers_of_integers(k, power)
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


def prepare(train, labels: np.ndarray, n_tree_queries: int, discount: str = "log2", discount_power: float = 1.0,
            truncation: int | None = None) -> ListwiseData:
    """The NDCG set-up shared by all trees of a fit: gains 2^l - 1, 1/IDCG per query, the discount table."""
    gains = rounded.exp2_of_integers(labels) - 1.0
    cum_discount = cumulative_discounts(int(train.query_sizes.max()), discount, discount_power, truncation)
    ideal = ideal_dcg(gains, train.query_offsets, cum_discount)
    inverse_ideal = np.divide(1.0, ideal, out=np.zeros_like(ideal), where=ideal > 0)
    return listwise_data(gains, train.query_index, train.query_offsets, inverse_ideal, n_tree_queries,
                         shift_cap=SHIFT_CAP, table=cum_discount)


@njit(cache=True, inline="always")
def value(gain, above, size, cd, printed):
    """A tie group's contribution to E[DCG_q]: G * (CD[a + t] - CD[a]) / t (eq. 12-13), or, ``printed``,
    G * (CD[a + t] - CD[a]) as Algorithm 4 prints it: count[i] * avgGain[i] = G times the group's summed
    discounts, without eq. 13's division by the group size t (so a tie group of t documents weighs t times
    its expected DCG).  The printed sum runs from k = rank[i-1]; taken literally its first group's k = 0
    term is 1/log(1), infinite, so the discounts summed are the group's own ranks a+1 .. a+t, the
    precomputed cumulative factor the note under Algorithm 4 describes."""
    if size == 0 or gain == 0.0:
        return 0.0
    if printed:
        return gain * (cd[above + size] - cd[above])
    return gain * (cd[above + size] - cd[above]) / size


# -- the split search's hooks (``_listwise.listwise_search``): inlined, with neither loops nor calls ------------


@njit(cache=True, inline="always")
def reach(code, cd, base, n_grades, hist, gain, count):
    """A group's NDCG value does not depend on the documents above it beyond their number: reach 1."""
    return 1.0


@njit(cache=True, inline="always")
def block_value(code, cd, base, n_grades, hist, chances, gain, count, above, reach):
    """val(G, a, t) of a block of ``count`` documents with summed gain ``gain`` at ranks above+1 .. above+count,
    as Algorithm 4 prints it for ``code`` NDCG_PRINTED."""
    return value(gain, above, count, cd, code == NDCG_PRINTED)


@njit(cache=True, inline="always")
def swapped_value(code, cd, base, n_grades, hist_top, hist_bottom, chances_top, chances_bottom, gain_top, n_top,
                  gain_bottom, n_bottom, above):
    """The two blocks of a query in a gap of its levels with their order swapped, the bottom one first at ranks
    above+1 ..: val(bottom, a) + val(top, a + n_bottom)."""
    printed = code == NDCG_PRINTED
    return value(gain_bottom, above, n_bottom, cd, printed) + value(gain_top, above + n_bottom, n_top, cd, printed)
