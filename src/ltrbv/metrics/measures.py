"""Per-query ranking measures, vectorised over all queries: DCG, NDCG, ERR, AP, P@k, RR, R@k.

Every measure takes a :class:`~ltrbv.metrics.ranking.RankedQueries` (documents of
all queries sorted once), a :class:`~ltrbv.metrics.conventions.Convention` and a
cutoff ``k`` (``None`` = untruncated) and returns float64 values of shape
``(n_queries,)``.  :func:`evaluate` is the entry point used by the rest of the
project.

Gains are ``2**label - 1`` (``gain="exp"``, every LTR name) or the label (``gain="linear"``, trec_eval's
nDCG).  Documents a run does not retrieve (``ranked.sorted_retrieved`` 0) have no rank weight and count
only in the denominators, as in trec_eval.  With ``ties="expected"`` the
values are expectations over uniformly random orders of tied documents:
DCG/NDCG/P@k by Ibrahim & Carman (2016) eq. 11-13, AP by McSherry & Najork
(2008), ERR exactly by :func:`ltrbv.metrics.ranking.err_expected`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .. import rounded
from ..compile_lock import first_call
from .conventions import Convention, get_convention
from .names import MetricSpec, parse_measure
from . import ranking
from .ranking import RankedQueries, discount_table, err_expected, err_in_order, segment_sum


def gains(labels: np.ndarray, gain: str = "exp") -> np.ndarray:
    """``2**label - 1`` as float64 (LETOR 4.0: 0, 1, 3 for labels 0, 1, 2; MSLR: 7, 15 for 3, 4), or the
    label itself for ``gain="linear"`` (trec_eval's nDCG)."""
    if gain == "linear":
        return labels.astype(np.float64)
    if gain != "exp":
        raise ValueError(f"unknown gain {gain!r}; known: exp, linear")
    return rounded.exp2_of_integers(labels) - 1.0  # exact; numpy's exp2 takes a CPU-dependent path


def _ranked_only(ranked: RankedQueries, values: np.ndarray) -> np.ndarray:
    """``values`` with the documents the run does not retrieve set to 0."""
    return values if ranked.sorted_retrieved is None else values * ranked.sorted_retrieved


def dcg(ranked: RankedQueries, convention: Convention, k: int | None = None, gain: str = "exp") -> np.ndarray:
    """DCG@k per query: ``sum_{r <= k} gain(l_r) * discount(r)`` over the retrieved documents.

    Under ``ties="expected"`` this is Ibrahim & Carman (2016) eq. 12-13: each document of
    a tie group gets the mean discount of the group's ranks (0 beyond k).  No short-query
    rule applies to DCG.
    """
    table = discount_table(convention.discount, ranked.max_size)
    weighted = _ranked_only(ranked, gains(ranked.sorted_labels, gain) * ranked.position_weights(table, k))
    return segment_sum(weighted, ranked.query_index, ranked.n_queries)


def ideal_dcg(ranked: RankedQueries, convention: Convention, k: int | None = None, gain: str = "exp") -> np.ndarray:
    """DCG@k of the labels sorted descending within each query (retrieved or not, as trec_eval's ideal)."""
    table = discount_table(convention.discount, ranked.max_size)
    weighted = gains(ranked.ideal_labels, gain) * ranked.ideal_weights(table, k)
    return segment_sum(weighted, ranked.query_index, ranked.n_queries)


def ndcg(ranked: RankedQueries, convention: Convention, k: int | None = None, gain: str = "exp") -> np.ndarray:
    """NDCG@k per query = DCG@k / ideal DCG@k (Ibrahim & Carman 2016 eq. 11 under expected ties).

    * A query without any document of positive gain gets ``convention.empty_query_value``
      (0.0, 1.0, or nan = "excluded": average with ``np.nanmean``).
    * ``convention.short_query_ndcg_is_zero`` (letor4): NDCG@k = 0 for a query with fewer
      than k documents (``Eval-Score-4.0.pl`` leaves those positions undefined).  The
      untruncated NDCG (``k=None``) is over all documents and has no such rule.
    """
    dcg_values = dcg(ranked, convention, k, gain)
    ideal = ideal_dcg(ranked, convention, k, gain)
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
    stop_probs = _ranked_only(ranked, gains(labels) / 2.0**convention.max_grade)
    if ranked.in_order:
        return err_in_order(stop_probs, ranked.query_offsets, k)
    return err_expected(stop_probs, ranked.sorted_scores, ranked.query_offsets, k, ranked.max_size)


def _relevant(ranked: RankedQueries, convention: Convention, rel: int | None) -> np.ndarray:
    """1.0 where the label is at least ``rel`` (None: the convention's ``map_threshold``), in sorted order."""
    threshold = convention.map_threshold if rel is None else rel
    return (ranked.sorted_labels >= threshold).astype(np.float64)


def average_precision(ranked: RankedQueries, convention: Convention, k: int | None = None,
                      rel: int | None = None) -> np.ndarray:
    """AP per query: the sum over retrieved relevant documents (label >= ``rel``, default the convention's
    ``map_threshold``) of the precision at their rank, over the number of relevant documents (retrieved or
    not); ``convention.empty_query_ap`` (0.0 in every registered convention, as in ``Eval-Score-4.0.pl``
    and trec_eval) for a query without relevant documents.  ``k``: only ranks <= k add precision
    (trec_eval's ``map_cut.k``, ir_measures' ``AP@k``).

    Under ``ties="expected"``: McSherry & Najork (2008), ECIR, "Computing information
    retrieval performance measures efficiently in the presence of tied scores", eq. for
    AP: a tie group at ranks a+1..a+t holding ``r_g`` relevant documents, with ``R_a``
    relevant documents above it, contributes at its j-th rank
    ``(r_g / t) * (R_a + 1 + (j - 1)(r_g - 1)/(t - 1)) / (a + j)``.
    """
    relevant = _relevant(ranked, convention, rel)
    n_relevant = segment_sum(relevant, ranked.query_index, ranked.n_queries)
    relevant_up_to = np.concatenate(([0.0], np.cumsum(relevant)))  # [p] = relevant before p
    if ranked.in_order:
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
    if k is not None:
        terms = np.where(ranked.rank <= k, terms, 0.0)  # exact also under expected ties: each rank's term
        if ranked.ties == "expected":
            raise ValueError("AP@k under ties='expected' is not implemented")
    precision_sums = segment_sum(_ranked_only(ranked, terms), ranked.query_index, ranked.n_queries)
    out = np.full(ranked.n_queries, float(convention.empty_query_ap))
    has_relevant = n_relevant > 0
    out[has_relevant] = precision_sums[has_relevant] / n_relevant[has_relevant]
    return out


def _in_top_k(ranked: RankedQueries, relevant: np.ndarray, k: int) -> np.ndarray:
    """Per query: retrieved relevant documents in the top k (expected count under expected ties)."""
    indicator = np.ones(ranked.max_size + 1)
    indicator[0] = 0.0
    return segment_sum(_ranked_only(ranked, relevant * ranked.position_weights(indicator, k)),
                       ranked.query_index, ranked.n_queries)


def precision(ranked: RankedQueries, convention: Convention, k: int | None = None,
              rel: int | None = None) -> np.ndarray:
    """P@k per query: relevant documents (label >= ``map_threshold``) in the top k, divided
    by k, also when the query has fewer than k documents (``Eval-Score-4.0.pl`` counts the
    missing positions as irrelevant), unless ``convention.short_query_precision_is_zero``.

    Under ``ties="expected"``: each document counts with the probability that it lands in
    the top k, i.e. the mean of the indicator ``r <= k`` over its tie group's ranks
    (exact by linearity, as eq. 12-13 of Ibrahim & Carman 2016).
    """
    if k is None:
        raise ValueError("P@k needs a cutoff k")
    out = _in_top_k(ranked, _relevant(ranked, convention, rel), k) / k
    if convention.short_query_precision_is_zero:
        out[ranked.sizes < k] = 0.0
    return out


def recall(ranked: RankedQueries, convention: Convention, k: int | None = None,
           rel: int | None = None) -> np.ndarray:
    """R@k per query: retrieved relevant documents in the top k over all relevant documents of the query
    (trec_eval's ``recall.k``); 0 for a query without relevant documents."""
    if k is None:
        raise ValueError("R@k needs a cutoff k")
    relevant = _relevant(ranked, convention, rel)
    n_relevant = segment_sum(relevant, ranked.query_index, ranked.n_queries)
    found = _in_top_k(ranked, relevant, k)
    return np.divide(found, n_relevant, out=np.zeros(ranked.n_queries), where=n_relevant > 0)


def reciprocal_rank(ranked: RankedQueries, convention: Convention, k: int | None = None,
                    rel: int | None = None) -> np.ndarray:
    """RR@k per query: 1 / rank of the first retrieved relevant document, 0 if there is none in the top k
    (trec_eval's ``recip_rank``, ir_measures' ``RR@k``).

    Under ``ties="expected"``: the first tie group holding a relevant document, at ranks a+1..a+t with r
    relevant documents, gives ``E[1/(a+J)]``, J the first relevant position of a random order of the group:
    ``P(J > j) = prod_{i<j} (t-r-i)/(t-i)``.
    """
    relevant = _ranked_only(ranked, _relevant(ranked, convention, rel)) > 0
    limit = ranked.max_size if k is None else k
    if ranked.ties != "expected":
        first = np.full(ranked.n_queries, np.inf)
        np.minimum.at(first, ranked.query_index[relevant], ranked.rank[relevant].astype(np.float64))
        return np.where(first <= limit, 1.0 / first, 0.0)
    out = np.zeros(ranked.n_queries)
    group_relevant = np.bincount(ranked.group_id, weights=relevant, minlength=ranked.group_id.max(initial=-1) + 1)
    first_positions = np.flatnonzero(relevant)
    _, first_of_query = np.unique(ranked.query_index[first_positions], return_index=True)
    for position in first_positions[first_of_query]:  # one tie group per query with a relevant document
        above, size = int(ranked.group_start_rank[position]), int(ranked.group_size[position])
        n_rel = int(group_relevant[ranked.group_id[position]])
        j = np.arange(1, size - n_rel + 2)
        beyond = np.concatenate(([1.0], np.cumprod((size - n_rel - j + 1.0) / (size - j + 1.0))))
        probability = beyond[:-1] - beyond[1:]
        out[ranked.query_index[position]] = np.sum(np.where(above + j <= limit, probability / (above + j), 0.0))
    return out


MEASURES = {"dcg": dcg, "ndcg": ndcg, "err": err, "ap": average_precision, "p": precision,
            "rr": reciprocal_rank, "r": recall}


def measure_values(ranked: RankedQueries, convention: Convention, spec: MetricSpec) -> np.ndarray:
    """Per-query values of the measure ``spec`` names."""
    if spec.kind in ("dcg", "ndcg"):
        return MEASURES[spec.kind](ranked, convention, spec.cutoff, spec.gain)
    if spec.kind == "err":
        return err(ranked, convention, spec.cutoff)
    return MEASURES[spec.kind](ranked, convention, spec.cutoff, spec.rel)


def _validated_inputs(scores, labels, query_offsets, retrieved=None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
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
    if retrieved is not None:
        retrieved = np.asarray(retrieved, dtype=bool)
        if retrieved.shape != (n_docs,):
            raise ValueError(f"retrieved {retrieved.shape} must have shape ({n_docs},)")
    if np.isnan(scores if retrieved is None else scores[retrieved]).any():
        raise ValueError("scores contain NaN; a ranking needs comparable scores")
    if not np.issubdtype(labels.dtype, np.integer):
        if not np.all(np.isfinite(labels)) or np.any(labels != np.round(labels)):
            raise ValueError("labels must be integers (graded relevance)")
    labels = labels.astype(np.int64)
    if labels.size and labels.min() < 0:
        raise ValueError(f"labels must be >= 0, got {int(labels.min())}")
    return scores, labels, offsets, retrieved


def resolve_ties(convention: Convention, ties: str | None) -> str:
    """``ties``, or the convention's when None; the trec_eval convention's order is trec_eval's only."""
    if ties is None:
        return convention.ties
    if convention.ties == "docid" and ties != "docid":
        raise ValueError(f"ties={ties!r}: the {convention.name} convention orders tied scores as trec_eval does "
                         "(by document id, descending); the other tie treatments are the LTR conventions'")
    return ties


def evaluate(
    scores,
    labels,
    query_offsets,
    metrics: Iterable[str] = ("ndcg@10", "map"),
    convention: str | Convention = "standard",
    ties: str | None = None,
    docids=None,
    retrieved=None,
) -> dict[str, np.ndarray]:
    """Per-query values of each metric: ``{name: float64 array of shape (n_queries,)}``.

    ``scores`` and ``labels`` have one entry per document, grouped by query through
    ``query_offsets`` (documents of query i are rows ``query_offsets[i]:query_offsets[i+1]``).
    Documents are ranked by descending score; ``ties="input-order"`` keeps tied documents
    in row order, ``ties="expected"`` averages over all orders of tied documents (exact
    for every measure but AP@k), ``ties="docid"`` orders them by ``docids`` descending (trec_eval's order,
    the ``trec_eval`` convention's and only tie order); None: the convention's (``input-order`` for the
    LTR conventions).  Tied means exactly equal.  ``convention`` is a name from
    :data:`~ltrbv.metrics.conventions.CONVENTIONS` or a ``Convention``; metric names are read in its
    namespace (:mod:`ltrbv.metrics.names`).  ``retrieved`` (bool per document, trec_eval convention only)
    marks the documents a run ranks: the others are judged documents it does not retrieve (their scores are
    ignored).  The result is keyed by the metric names exactly as given.  Values may be nan only where the
    convention says "exclude" (``empty_query_value=nan``): average with ``np.nanmean``.
    """
    if isinstance(metrics, str):
        metrics = (metrics,)
    convention = get_convention(convention)
    specs = {name: parse_measure(name, convention) for name in metrics}
    ties = resolve_ties(convention, ties)
    scores, labels, offsets, retrieved = _validated_inputs(scores, labels, query_offsets, retrieved)
    if retrieved is not None and convention.names != "trec_eval" and not retrieved.all():
        raise ValueError(f"the {convention.name} convention ranks every document of a query; documents a run "
                         "does not retrieve are handled as trec_eval handles them under the trec_eval convention")
    if docids is not None and np.shape(docids) != scores.shape:
        raise ValueError(f"docids {np.shape(docids)} must have one entry per document ({scores.size},)")
    with first_call(ranking, ranking._descending_order_kernel):  # a fresh checkout compiles the kernels once
        ranked = RankedQueries(scores, labels, offsets, ties=ties, docids=docids, retrieved=retrieved)
        return {name: measure_values(ranked, convention, spec) for name, spec in specs.items()}
