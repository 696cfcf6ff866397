"""Ranking metrics with named conventions, vectorised over all queries.

Usage::

    values = evaluate(scores, labels, query_offsets, ("ndcg@10", "map"), convention="letor4")
    values["ndcg@10"].mean()

See :mod:`ltrbv.metrics.conventions` for what each convention means and
:mod:`ltrbv.metrics.names` for the accepted spellings (``nDCG@10``, ``ndcg_cut_10``, ``P_10``, ``AP``)
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
)
from .names import METRIC_KINDS, canonical_metric, canonical_metrics, parse_metric
from .ranking import TIE_TREATMENTS, RankedQueries

__all__ = [
    "CONVENTIONS",
    "METRIC_KINDS",
    "TIE_TREATMENTS",
    "Convention",
    "RankedQueries",
    "average_precision",
    "canonical_metric",
    "canonical_metrics",
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
