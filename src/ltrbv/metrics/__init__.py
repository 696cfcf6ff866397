"""Ranking metrics with named conventions, vectorised over all queries.

Usage::

    values = evaluate(scores, labels, query_offsets, ("ndcg@10", "map"), convention="letor4")
    values["ndcg@10"].mean()

See :mod:`ltrbv.metrics.conventions` for what each convention means.
"""

from .conventions import CONVENTIONS, Convention, get_convention
from .measures import (
    METRIC_KINDS,
    average_precision,
    dcg,
    err,
    evaluate,
    gains,
    ideal_dcg,
    ndcg,
    parse_metric,
    precision,
)
from .ranking import TIE_TREATMENTS, RankedQueries

__all__ = [
    "CONVENTIONS",
    "METRIC_KINDS",
    "TIE_TREATMENTS",
    "Convention",
    "RankedQueries",
    "average_precision",
    "dcg",
    "err",
    "evaluate",
    "gains",
    "get_convention",
    "ideal_dcg",
    "ndcg",
    "parse_metric",
    "precision",
]
