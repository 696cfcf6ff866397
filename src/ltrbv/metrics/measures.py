"""Per-query ranking measures, vectorised over all queries: DCG, NDCG, ERR, AP, P@k.

Every measure takes a :class:`~ltrbv.metrics.ranking.RankedQueries` (documents of
all queries sorted once), a :class:`~ltrbv.metrics.conventions.Convention` and a
cutoff ``k`` (``None`` = untruncated) and returns float64 values of shape
``(n_queries,)``.  :func:`evaluate` is the entry point used by the rest of the
project.

Gains are ``2**label - 1`` in every convention.  With ``ties="expected"`` the
values are expectations over uniformly random orders of tied documents:
DCG/NDCG/P@k by Ibrahim & Carman (2016) eq. 11-13, AP by McSherry & Najork
(2008), ERR exactly by :func:`ltrbv.metrics.ranking.err_expected`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..compile_lock import first_call
from .conventions import Convention, get_convention
from .names import parse_metric
from . import ranking
from .ranking import RankedQueries, discount_table, err_expected, err_in_order, segment_sum


def gains(labels: np.ndarray) -> np.ndarray:
    """``2**label - 1`` as float64 (LETOR 4.0: 0, 1, 3 for labels 0, 1, 2; MSLR: 7, 15 for 3, 4)."""
    return np.exp2(labels.astype(np.float64)) - 1.0


def dcg(ranked: RankedQueries, convention: Convention, k: int | None = None) -> np.ndarray:
    """DCG@k per query: ``sum_{r <= k} (2**l_r - 1) * discount(r)``.

    Under ``ties="expected"`` this is Ibrahim & Carman (2016) eq. 12-13: each document of
    a tie group gets the mean discount of the group's ranks (0 beyond k).  No short-query
    rule applies to DCG.
    """
    table = discount_table(convention.discount, ranked.max_size)
    weighted = gains(ranked.sorted_labels) * ranked.position_weights(table, k)
    return segment_sum(weighted, ranked.query_index, ranked.n_queries)


def ideal_dcg(ranked: RankedQueries, convention: Convention, k: int | None = None) -> np.ndarray:
    """DCG@k of the labels sorted descending within each query."""
    table = discount_table(convention.discount, ranked.max_size)
    weighted = gains(ranked.ideal_labels) * ranked.ideal_weights(table, k)
    return segment_sum(weighted, ranked.query_index, ranked.n_queries)


def ndcg(ranked: RankedQueries, convention: Convention, k: int | None = None) -> np.ndarray:
    """NDCG@k per query = DCG@k / ideal DCG@k (Ibrahim & Carman 2016 eq. 11 under expected ties).

    * A query without any document of positive gain gets ``convention.empty_query_value``
      (0.0, 1.0, or nan = "excluded": average with ``np.nanmean``).
    * ``convention.short_query_ndcg_is_zero`` (letor4): NDCG@k = 0 for a query with fewer
      than k documents (``Eval-Score-4.0.pl`` leaves those positions undefined).  The
      untruncated NDCG (``k=None``) is over all documents and has no such rule.
    """
    dcg_values = dcg(ranked, convention, k)
    ideal = ideal_dcg(ranked, convention, k)
    has_gain = ideal > 0.0
    out = np.full(ranked.n_queries, float(convention.empty_query_value))
    out[has_gain] = dcg_values[has_gain] / ideal[has_gain]
    if convention.short_query_ndcg_is_zero and k is not None:
        out[has_gain & (ranked.sizes < k)] = 0.0
    return out


def err(ranked: RankedQueries, convention: Convention, k: int | None = None) -> np.ndarray:
    """ERR@k per query (Chapelle et al. 2009): ``sum_{r <= k} R_r / r * prod_{i<r} (1 - R_i)``
    with ``R = (2**l - 1) / 2**max_grade``.  A query without relevant documents has ERR 0.

    Under ``ties="expected"``: the exact expectation over random orders of tied documents
    (see :func:`ltrbv.metrics.ranking.err_expected`).
    """
    labels = ranked.sorted_labels
    if labels.size and int(labels.max()) > convention.max_grade:
        raise ValueError(
            f"ERR under convention {convention.name!r} needs labels <= max_grade="
            f"{convention.max_grade}, got label {int(labels.max())}; use "
            "dataclasses.replace(convention, max_grade=...)"
        )
    stop_probs = gains(labels) / 2.0**convention.max_grade
    if ranked.ties == "input-order":
        return err_in_order(stop_probs, ranked.query_offsets, k)
    return err_expected(stop_probs, ranked.sorted_scores, ranked.query_offsets, k, ranked.max_size)


def average_precision(ranked: RankedQueries, convention: Convention, k: int | None = None) -> np.ndarray:
    """AP per query: mean over relevant documents (label >= ``map_threshold``) of the
    precision at their rank; ``convention.empty_query_ap`` (0.0 in every registered
    convention, as in ``Eval-Score-4.0.pl``) for a query without relevant documents.

    Under ``ties="expected"``: McSherry & Najork (2008), ECIR, "Computing information
    retrieval performance measures efficiently in the presence of tied scores", eq. for
    AP: a tie group at ranks a+1..a+t holding ``r_g`` relevant documents, with ``R_a``
    relevant documents above it, contributes at its j-th rank
    ``(r_g / t) * (R_a + 1 + (j - 1)(r_g - 1)/(t - 1)) / (a + j)``.
    """
    if k is not None:
        raise ValueError("AP/MAP takes no cutoff")
    relevant = (ranked.sorted_labels >= convention.map_threshold).astype(np.float64)
    n_relevant = segment_sum(relevant, ranked.query_index, ranked.n_queries)
    relevant_up_to = np.concatenate(([0.0], np.cumsum(relevant)))  # [p] = relevant before p
    if ranked.ties == "input-order":
        in_query_so_far = relevant_up_to[1:] - relevant_up_to[ranked.query_starts]
        terms = relevant * in_query_so_far / ranked.rank
    else:
        relevant_in_group = np.bincount(ranked.group_id, weights=relevant)[ranked.group_id]
        relevant_above_group = relevant_up_to[ranked.group_first] - relevant_up_to[ranked.query_starts]
        size = ranked.group_size
        others_relevant_share = np.where(
            size > 1, (relevant_in_group - 1.0) / np.maximum(size - 1, 1), 0.0
        )
        rank_in_group = np.arange(size.size) - ranked.group_first  # j - 1
        terms = (relevant_in_group / size) * (
            relevant_above_group + 1.0 + rank_in_group * others_relevant_share
        ) / ranked.rank
    precision_sums = segment_sum(terms, ranked.query_index, ranked.n_queries)
    out = np.full(ranked.n_queries, float(convention.empty_query_ap))
    has_relevant = n_relevant > 0
    out[has_relevant] = precision_sums[has_relevant] / n_relevant[has_relevant]
    return out


def precision(ranked: RankedQueries, convention: Convention, k: int | None = None) -> np.ndarray:
    """P@k per query: relevant documents (label >= ``map_threshold``) in the top k, divided
    by k, also when the query has fewer than k documents (``Eval-Score-4.0.pl`` counts the
    missing positions as irrelevant), unless ``convention.short_query_precision_is_zero``.

    Under ``ties="expected"``: each document counts with the probability that it lands in
    the top k, i.e. the mean of the indicator ``r <= k`` over its tie group's ranks
    (exact by linearity, as eq. 12-13 of Ibrahim & Carman 2016).
    """
    if k is None:
        raise ValueError("P@k needs a cutoff k")
    relevant = (ranked.sorted_labels >= convention.map_threshold).astype(np.float64)
    indicator = np.ones(ranked.max_size + 1)
    indicator[0] = 0.0
    in_top_k = segment_sum(relevant * ranked.position_weights(indicator, k),
                           ranked.query_index, ranked.n_queries)
    out = in_top_k / k
    if convention.short_query_precision_is_zero:
        out[ranked.sizes < k] = 0.0
    return out


MEASURES = {"dcg": dcg, "ndcg": ndcg, "err": err, "ap": average_precision, "p": precision}


def _validated_inputs(scores, labels, query_offsets) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    offsets = np.asarray(query_offsets)
    if offsets.ndim != 1 or offsets.size < 1 or not np.issubdtype(offsets.dtype, np.integer):
        raise ValueError("query_offsets must be a 1-D integer array of length n_queries + 1")
    offsets = offsets.astype(np.int64, copy=False)
    if offsets[0] != 0 or np.any(np.diff(offsets) < 0):
        raise ValueError("query_offsets must start at 0 and be non-decreasing")
    n_docs = int(offsets[-1])
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels)
    if scores.shape != (n_docs,) or labels.shape != (n_docs,):
        raise ValueError(
            f"scores {scores.shape} and labels {labels.shape} must both have shape ({n_docs},), "
            "one entry per document (query_offsets[-1])"
        )
    if np.isnan(scores).any():
        raise ValueError("scores contain NaN; a ranking needs comparable scores")
    if not np.issubdtype(labels.dtype, np.integer):
        if not np.all(np.isfinite(labels)) or np.any(labels != np.round(labels)):
            raise ValueError("labels must be integers (graded relevance)")
    labels = labels.astype(np.int64)
    if labels.size and labels.min() < 0:
        raise ValueError(f"labels must be >= 0, got {int(labels.min())}")
    return scores, labels, offsets


def evaluate(
    scores,
    labels,
    query_offsets,
    metrics: Iterable[str] = ("ndcg@10", "map"),
    convention: str | Convention = "standard",
    ties: str = "input-order",
) -> dict[str, np.ndarray]:
    """Per-query values of each metric: ``{name: float64 array of shape (n_queries,)}``.

    ``scores`` and ``labels`` have one entry per document, grouped by query through
    ``query_offsets`` (documents of query i are rows ``query_offsets[i]:query_offsets[i+1]``).
    Documents are ranked by descending score; ``ties="input-order"`` keeps tied documents
    in row order, ``ties="expected"`` averages over all orders of tied documents (exact
    for every measure).  Tied means exactly equal.  ``convention`` is a name from
    :data:`~ltrbv.metrics.conventions.CONVENTIONS` or a ``Convention``.  The result is
    keyed by the metric names exactly as given.  Values may be nan only where the
    convention says "exclude" (``empty_query_value=nan``): average with ``np.nanmean``.
    """
    if isinstance(metrics, str):
        metrics = (metrics,)
    parsed = {name: parse_metric(name) for name in metrics}
    convention = get_convention(convention)
    scores, labels, offsets = _validated_inputs(scores, labels, query_offsets)
    with first_call(ranking, ranking._descending_order_kernel):  # a fresh checkout compiles the kernels once
        ranked = RankedQueries(scores, labels, offsets, ties=ties)
        return {name: MEASURES[kind](ranked, convention, k) for name, (kind, k) in parsed.items()}
