"""Segment helpers: rank the documents of every query at once.

Documents come grouped by query (``query_offsets``, see
:mod:`ltrbv.data.ranking_data`).  Sorting by ``(query, -score)`` with a stable
sort keeps every query in its own slice ``query_offsets[i]:query_offsets[i+1]``
of the sorted arrays, so per-query ranks and sums are plain array arithmetic:
no per-query Python loop anywhere.

Tie treatments
--------------
``"input-order"``  tied scores keep row order (= input-line order).
``"expected"``     the mean over all orders of each group of tied documents
                   (Ibrahim & Carman 2016, eq. 11-13); inside a tie group the
                   documents are sorted by descending label, which no expected
                   value depends on but which the ERR kernel uses.
``"docid"``        tied scores ordered by document id, descending (string order), as
                   trec_eval and gdeval sort a run (the ``trec_eval`` convention's).

Documents a run does not retrieve (``retrieved`` False) are placed below every retrieved
one of their query; the measures give them no rank weight but count them where trec_eval
does (relevant documents of AP and recall, the ideal DCG).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from .. import rounded
from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)

TIE_TREATMENTS = ("input-order", "expected", "docid")


def query_index_of_rows(query_offsets: np.ndarray) -> np.ndarray:
    """Query number (0..n_queries-1) of every row."""
    sizes = np.diff(query_offsets)
    return np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)


def segment_sum(values: np.ndarray, query_index: np.ndarray, n_queries: int) -> np.ndarray:
    """Per-query sum of ``values`` (float64, shape (n_queries,)); empty queries sum to 0."""
    return np.bincount(query_index, weights=values, minlength=n_queries).astype(np.float64, copy=False)


def discount_table(discount: str, max_rank: int) -> np.ndarray:
    """``table[r]`` = discount at 1-based rank ``r`` for r = 1..max_rank (``table[0] = 0``).

    ``"log2(r+1)"``: 1/log2(r+1).  ``"letor4"``: 1 at ranks 1 and 2, 1/log2(r) from rank 3
    on (``Eval-Score-4.0.pl``: ``log(2)/log(iPos+1)`` for 0-based ``iPos >= 2``).
    """
    ranks = np.arange(max_rank + 1)
    table = np.zeros(max_rank + 1, dtype=np.float64)
    # log2 correctly rounded (ltrbv.rounded): numpy's AVX-512 log2 differs from the C library's in the last bit
    if discount == "log2(r+1)":
        table[1:] = 1.0 / rounded.log2_of_integers(ranks[1:] + 1)
    elif discount == "letor4":
        table[1:3] = 1.0
        table[3:] = 1.0 / rounded.log2_of_integers(ranks[3:])
    else:
        raise ValueError(f"unknown discount {discount!r}")
    return table


@njit(cache=True)
def _descending_order_kernel(keys, query_offsets):  # pragma: no cover - compiled
    order = np.empty(keys.size, np.int64)
    for q in range(query_offsets.size - 1):
        start = query_offsets[q]
        end = query_offsets[q + 1]
        order[start:end] = np.argsort(-keys[start:end], kind="mergesort") + start
    return order


#: from this many rows on, or after this many calls in a process, the compiled kernel sorts; before, numpy's
#: lexsort (the same order), because a process's first compiled call loads numba's compiler and the cached
#: kernel (~0.5 s), more than the kernel saves on a few small inputs
KERNEL_MIN_ROWS = 200_000
KERNEL_AFTER_CALLS = 10_000
_calls = 0


def descending_order_within_queries(keys: np.ndarray, query_offsets: np.ndarray) -> np.ndarray:
    """Row order sorting each query's rows by descending key; equal keys keep row order.

    Equivalent to ``np.lexsort((rows, -keys, query_index))`` (tested), but a stable
    per-segment merge sort is about 5x faster than lexsort on 10^6 rows, so it is used from
    :data:`KERNEL_MIN_ROWS` rows on, and for every call after :data:`KERNEL_AFTER_CALLS` in a process.  Ties are exact equality (``-0.0 == 0.0``).
    """
    global _calls
    _calls += 1
    keys = np.ascontiguousarray(keys)
    if keys.size >= KERNEL_MIN_ROWS or _calls > KERNEL_AFTER_CALLS:
        return _descending_order_kernel(keys, query_offsets)
    query_index = np.repeat(np.arange(query_offsets.size - 1), np.diff(query_offsets))
    return np.lexsort((-keys.astype(np.float64), query_index))


def docid_descending_rows(docids: np.ndarray, query_offsets: np.ndarray) -> np.ndarray:
    """Row order putting each query's rows in descending document-id order (code-point order, as trec_eval's
    ``strcmp`` and gdeval's ``lt``); a document id given twice in a query raises ValueError."""
    codes = np.unique(np.asarray(docids, dtype=str), return_inverse=True)[1].reshape(-1).astype(np.int64)
    query_index = query_index_of_rows(query_offsets)
    order = np.lexsort((-codes, query_index))
    same = (codes[order][1:] == codes[order][:-1]) & (query_index[order][1:] == query_index[order][:-1])
    if same.any():
        row = order[1:][same][0]
        raise ValueError(f"document id {str(np.asarray(docids)[row])!r} appears twice in query number "
                         f"{int(query_index[row]) + 1}; tied scores are ordered by document id")
    return order


def _has_ties(sorted_keys: np.ndarray, query_index: np.ndarray) -> bool:
    return bool(np.any((sorted_keys[1:] == sorted_keys[:-1]) & (query_index[1:] == query_index[:-1])
                       & np.isfinite(sorted_keys[1:])))


class RankedQueries:
    """Documents of all queries sorted by descending score, plus per-position rank data.

    All per-position arrays are in *sorted* order: position ``p`` of query ``q`` lies in
    ``query_offsets[q]:query_offsets[q+1]`` and holds the document of 1-based rank
    ``rank[p]``.  Expensive pieces are computed on first use and shared by all metrics.

    ``ties="docid"`` needs ``docids`` (one per row) where scores tie within a query.  ``retrieved``
    (bool per row, None: all) marks the documents a run ranks; the others go below them.
    """

    def __init__(self, scores: np.ndarray, labels: np.ndarray, query_offsets: np.ndarray,
                 ties: str = "input-order", docids: np.ndarray | None = None,
                 retrieved: np.ndarray | None = None) -> None:
        if ties not in TIE_TREATMENTS:
            raise ValueError(f"unknown ties treatment {ties!r}; known: {', '.join(TIE_TREATMENTS)}")
        if retrieved is not None and ties == "expected" and not retrieved.all():
            raise ValueError("ties='expected' needs every document ranked (a run that does not retrieve some)")
        self.ties = ties
        self.query_offsets = query_offsets
        self.sizes = np.diff(query_offsets)
        self.n_queries = int(self.sizes.size)
        self.query_index = query_index_of_rows(query_offsets)
        keys = scores if retrieved is None else np.where(retrieved, scores, -np.inf)
        if ties == "expected":  # by (score, label), both descending: labels only order each tie group
            by_label = descending_order_within_queries(labels, query_offsets)
            self.order = by_label[descending_order_within_queries(keys[by_label], query_offsets)]
        elif ties == "docid" and docids is not None:
            by_docid = docid_descending_rows(docids, query_offsets)
            self.order = by_docid[descending_order_within_queries(keys[by_docid], query_offsets)]
        else:
            self.order = descending_order_within_queries(keys, query_offsets)
            if ties == "docid" and _has_ties(keys[self.order], self.query_index):
                raise ValueError("scores tie within a query and no document ids were given: trec_eval orders "
                                 "tied scores by document id (pass docids)")
        self.sorted_scores = keys[self.order]
        self.sorted_labels = labels[self.order]
        self.sorted_retrieved = None if retrieved is None else retrieved[self.order].astype(np.float64)
        self._unsorted_labels = labels

    @property
    def in_order(self) -> bool:
        """Whether every document has one rank (ties broken by row order or document id, not averaged)."""
        return self.ties != "expected"

    @cached_property
    def max_size(self) -> int:
        return int(self.sizes.max(initial=0))

    @cached_property
    def query_starts(self) -> np.ndarray:
        """Sorted position of the first document of each position's query."""
        return np.repeat(self.query_offsets[:-1], self.sizes)

    @cached_property
    def rank(self) -> np.ndarray:
        """1-based rank of every sorted position within its query."""
        return np.arange(self.query_index.size, dtype=np.int64) - self.query_starts + 1

    @cached_property
    def ideal_labels(self) -> np.ndarray:
        """Labels sorted descending within each query (the ideal ranking)."""
        labels = self._unsorted_labels
        return labels[descending_order_within_queries(labels, self.query_offsets)]

    # -- tie groups -------------------------------------------------------------
    @cached_property
    def _tie_groups(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(group number of every position, first position of every group, group sizes)."""
        n = self.query_index.size
        starts_group = np.ones(n, dtype=bool)
        if n > 1:
            starts_group[1:] = (self.sorted_scores[1:] != self.sorted_scores[:-1]) | (
                self.query_index[1:] != self.query_index[:-1]
            )
        first_positions = np.flatnonzero(starts_group)
        group_id = np.cumsum(starts_group) - 1
        group_sizes = np.diff(np.append(first_positions, n))
        return group_id, first_positions, group_sizes

    @property
    def group_id(self) -> np.ndarray:
        """Tie-group number (0..n_groups-1, in sorted order) of every position."""
        return self._tie_groups[0]

    @cached_property
    def group_first(self) -> np.ndarray:
        """Sorted position of the first document of every position's tie group."""
        group_id, first_positions, _ = self._tie_groups
        return first_positions[group_id]

    @cached_property
    def group_size(self) -> np.ndarray:
        """Size ``t`` of every position's tie group."""
        group_id, _, group_sizes = self._tie_groups
        return group_sizes[group_id]

    @cached_property
    def group_start_rank(self) -> np.ndarray:
        """Number ``a`` of documents ranked above every position's tie group."""
        return self.group_first - self.query_starts

    # -- rank weights -------------------------------------------------------------
    def position_weights(self, table: np.ndarray, k: int | None) -> np.ndarray:
        """Weight of every sorted position: ``table[rank]``, 0 beyond rank ``k``.

        Under ``ties="expected"`` every document of a tie group occupying ranks
        a+1..a+t gets the mean weight of those t positions, truncated weights being 0
        beyond k: Ibrahim & Carman (2016) eq. 12-13 move the mean to the gains,
        ``sum_r disc(r) * mean_gain(ties(r))``, which by linearity equals
        ``sum_d gain(d) * mean_disc(ties(d))`` computed here.
        """
        limit = self.max_size if k is None else min(k, self.max_size)
        if self.in_order:
            weights = table[self.rank]
            if limit < self.max_size:
                weights = np.where(self.rank <= limit, weights, 0.0)
            return weights
        return expected_weights(table, self.group_start_rank, self.group_size, limit)

    def ideal_weights(self, table: np.ndarray, k: int | None) -> np.ndarray:
        """``table[rank]`` truncated at ``k``, for the ideal ranking (ties are irrelevant there)."""
        weights = table[self.rank]
        if k is not None and k < self.max_size:
            weights = np.where(self.rank <= k, weights, 0.0)
        return weights


def expected_weights(table: np.ndarray, group_start_rank: np.ndarray, group_size: np.ndarray,
                     limit: int) -> np.ndarray:
    """Mean of ``table[r]`` over ranks ``a+1..a+t`` with ``table[r] = 0`` for ``r > limit``.

    This is the expected discount of a document in a tie group under a uniformly random
    order of the group (Ibrahim & Carman 2016, eq. 12-13).
    """
    cumulative = np.cumsum(table[: limit + 1])  # cumulative[r] = sum of table[1..r]
    upper = np.minimum(group_start_rank + group_size, limit)
    lower = np.minimum(group_start_rank, limit)
    return (cumulative[upper] - cumulative[lower]) / group_size


# -- ERR kernels (a per-query running product: numba, not expressible as a numpy segment op) --

@njit(cache=True)
def _err_in_order_kernel(stop_probs, query_offsets, k):  # pragma: no cover - compiled
    n_queries = query_offsets.size - 1
    out = np.zeros(n_queries)
    for q in range(n_queries):
        start = query_offsets[q]
        end = query_offsets[q + 1]
        if k >= 0 and start + k < end:
            end = start + k
        p_continue = 1.0
        total = 0.0
        for position in range(start, end):
            total += p_continue * stop_probs[position] / (position - start + 1)
            p_continue *= 1.0 - stop_probs[position]
        out[q] = total
    return out


@njit(cache=True)
def _err_expected_kernel(stop_probs, sorted_scores, query_offsets, k, max_size):  # pragma: no cover
    n_queries = query_offsets.size - 1
    out = np.zeros(n_queries)
    survival = np.empty(max(max_size, 1))  # survival[m] = E[prod (1 - R) over m random others]
    for q in range(n_queries):
        start = query_offsets[q]
        end = query_offsets[q + 1]
        limit = end - start
        if k >= 0 and k < limit:
            limit = k
        p_continue = 1.0
        total = 0.0
        group_first = start
        while group_first < end and group_first - start < limit:
            above = group_first - start  # a: documents ranked above the group
            group_end = group_first + 1
            while group_end < end and sorted_scores[group_end] == sorted_scores[group_first]:
                group_end += 1
            size = group_end - group_first  # t
            n_positions = min(size, limit - above)  # group ranks a+1..a+n_positions count
            group_total = 0.0
            run_first = group_first
            while run_first < group_end:  # runs of equal R (labels sorted inside the group)
                value = stop_probs[run_first]
                run_end = run_first + 1
                while run_end < group_end and stop_probs[run_end] == value:
                    run_end += 1
                if value > 0.0:
                    # survival over a uniformly random m-subset of the t-1 other documents:
                    # M_i[m] = ((i-m) M_{i-1}[m] + m x_i M_{i-1}[m-1]) / i,  M[0] = 1.
                    survival[0] = 1.0
                    for m in range(1, n_positions):
                        survival[m] = 0.0
                    i = 0
                    for other in range(group_first, group_end):
                        if other == run_first:
                            continue
                        i += 1
                        x = 1.0 - stop_probs[other]
                        for m in range(min(i, n_positions - 1), 0, -1):
                            survival[m] = ((i - m) * survival[m] + m * x * survival[m - 1]) / i
                    position_sum = 0.0
                    for j in range(1, n_positions + 1):
                        position_sum += survival[j - 1] / (above + j)
                    group_total += (run_end - run_first) * value * position_sum / size
                run_first = run_end
            total += p_continue * group_total
            for other in range(group_first, group_end):
                p_continue *= 1.0 - stop_probs[other]
            group_first = group_end
        out[q] = total
    return out


def err_in_order(stop_probs: np.ndarray, query_offsets: np.ndarray, k: int | None) -> np.ndarray:
    """ERR@k per query of positions already sorted into rank order (Chapelle et al. 2009):
    ``sum_{r <= k} R_r / r * prod_{i < r} (1 - R_i)``; ``k=None`` means all positions."""
    return _err_in_order_kernel(stop_probs, query_offsets, -1 if k is None else int(k))


def err_expected(stop_probs: np.ndarray, sorted_scores: np.ndarray, query_offsets: np.ndarray,
                 k: int | None, max_size: int) -> np.ndarray:
    """Exact expected ERR@k over uniformly random orders of every tie group.

    Positions must be sorted by (query, descending score, descending R).  A tie group at
    ranks a+1..a+t contributes ``P_a * sum_d R_d (1/t) sum_j E[prod_{S}(1 - R)] / (a + j)``,
    ``S`` a uniformly random (j-1)-subset of the group's other documents and ``P_a`` the
    (deterministic) probability of passing every document above the group; after the
    group the pass probability is again deterministic, ``P_a * prod_group (1 - R)``.
    The subset expectation is a normalised elementary symmetric polynomial, computed by
    a stable convex-combination recurrence in O(t * min(t, k)) per distinct label.
    This is the ERR analogue of Ibrahim & Carman (2016) eq. 11-13 (which treat DCG).
    """
    return _err_expected_kernel(stop_probs, sorted_scores, query_offsets,
                                -1 if k is None else int(k), int(max_size))
