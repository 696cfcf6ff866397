"""Ranking metrics with named conventions, vectorised over all queries.

Usage::

    values = evaluate(scores, labels, query_offsets, ("ndcg@10", "map"), convention="letor4")
    values["ndcg@10"].mean()

See :mod:`ltrbv.metrics.conventions` for what each convention means and
:mod:`ltrbv.metrics.names` for the names each accepts (``trec_eval``: ``nDCG@10``, ``ndcg_cut_10``,
``P_10``, ``AP``, ``RR``, ``R@100``; the LTR conventions: ``ndcg@10``, ``map``, ``p@10``, ``rr``, ``r@10``)
and the canonical one (:func:`canonical_metric`).
"""

from .conventions import CONVENTIONS, Convention, get_convention
from .measures import (
    average_precision,
    dcg,
    err,
    evaluate,
    gains,
    ideal_dcg,
    ndcg,
    precision,
    recall,
    reciprocal_rank,
    resolve_ties,
)
from .names import (
    METRIC_KINDS,
    MetricSpec,
    canonical_metric,
    canonical_metrics,
    default_metrics,
    parse_measure,
    parse_metric,
)
from .ranking import TIE_TREATMENTS, RankedQueries

__all__ = [
    "CONVENTIONS",
    "METRIC_KINDS",
    "TIE_TREATMENTS",
    "Convention",
    "MetricSpec",
    "RankedQueries",
    "average_precision",
    "canonical_metric",
    "canonical_metrics",
    "dcg",
    "default_metrics",
    "err",
    "evaluate",
    "gains",
    "get_convention",
    "ideal_dcg",
    "ndcg",
    "parse_measure",
    "parse_metric",
    "precision",
    "recall",
    "reciprocal_rank",
    "resolve_ties",
]
