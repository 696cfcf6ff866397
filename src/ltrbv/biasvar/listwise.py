"""Listwise bias and variance in terms of ranking error (Ibrahim 2021, §5.3.5-5.3.6).

For a metric m bounded by 1 (NDCG, NDCG@k, AP) and the models grouped as in
:mod:`ltrbv.biasvar.models` (G groups of M models; bootstrap: G = 1, M = B; twofold:
G = J, M = 2):

* ``m_bar[g, q]``   m of query q ranked by the mean scores of group g (the systematic
  prediction ``fbar`` or ``fbar_j``);
* ``m_model[g, i, q]`` m of query q ranked by model i of group g.

Queries without any relevant document (NDCG: no positive gain; AP: no label >=
the convention's ``map_threshold``) have an undefined metric.  With
``empty_queries="exclude"`` (the default) every per-query quantity is nan there and
averages skip them; ``"keep"`` keeps them with the convention's value for such a
query (``standard``: NDCG = AP = 0, hence SRE = 1 and VRE = 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..metrics import evaluate, get_convention, parse_measure
from ..metrics.ranking import query_index_of_rows, segment_sum
from .models import grouped_scores

LISTWISE_METRIC_KINDS = ("ndcg", "ap")
EMPTY_QUERY_TREATMENTS = ("exclude", "keep")
QUANTITIES = ("sre", "vre", "vre_signed", "vre_absolute", "vre_squared", "ranking_error")


def check_listwise_metric(metric: str, convention=None) -> str:
    """The metric name if it is one whose ideal value is 1 (NDCG, NDCG@k, AP/MAP; names of ``convention``'s
    namespace, None: the LTR one), else ValueError."""
    spec = parse_measure(metric, convention)
    if spec.kind not in LISTWISE_METRIC_KINDS or (spec.kind == "ap" and spec.cutoff is not None):
        use = "nDCG, nDCG@k or AP" if spec.namespace == "trec_eval" else "ndcg, ndcg@k or map"
        raise ValueError(
            f"metric {metric!r}: ranking error 1 - m needs a metric with ideal value 1; "
            f"use {use}"
        )
    return metric


def per_query_metric_of_rows(score_rows, labels, query_offsets, metrics, convention="standard",
                             ties=None, docids=None) -> dict[str, np.ndarray]:
    """Per-query metric of each row of ``score_rows`` (K, n_docs): ``{metric: (K, n_queries)}``.

    All K rankings are evaluated in one vectorised :func:`ltrbv.metrics.evaluate` call on
    K stacked copies of the queries (``docids``, one per document: trec_eval's order of tied scores).
    """
    score_rows = np.asarray(score_rows, dtype=np.float64)
    offsets = np.asarray(query_offsets, dtype=np.int64)
    n_rows, n_docs = score_rows.shape
    stacked_offsets = np.concatenate(
        [(offsets[:-1][np.newaxis, :] + n_docs * np.arange(n_rows)[:, np.newaxis]).ravel(),
         [n_rows * n_docs]]
    )
    values = evaluate(score_rows.ravel(), np.tile(np.asarray(labels), n_rows), stacked_offsets,
                      tuple(metrics), convention=convention, ties=ties,
                      docids=None if docids is None else np.tile(np.asarray(docids), n_rows))
    return {name: value.reshape(n_rows, offsets.size - 1) for name, value in values.items()}


def queries_with_relevant(labels, query_offsets, metric: str, convention="standard") -> np.ndarray:
    """Boolean (n_queries,): does the query have a document that makes ``metric`` defined?

    NDCG: a label > 0 (positive gain); AP: a label >= its ``rel=N`` or ``convention.map_threshold``.
    """
    spec = parse_measure(metric, convention)
    labels = np.asarray(labels)
    offsets = np.asarray(query_offsets, dtype=np.int64)
    threshold = (spec.rel or get_convention(convention).map_threshold) if spec.kind == "ap" else 1
    relevant = (labels >= threshold).astype(np.float64)
    return segment_sum(relevant, query_index_of_rows(offsets), offsets.size - 1) > 0


def systematic_ranking_error(systematic_metric: np.ndarray) -> np.ndarray:
    """SRE per query, ``(1/G) sum_g (1 - m_bar[g, q])``: eq. 12, the summand of eq. 14
    (bootstrap, G = 1) and of eq. 16 (twofold, averaged over the J repetitions)."""
    return (1.0 - systematic_metric).mean(axis=0)


def _spread(systematic_metric: np.ndarray, model_metric: np.ndarray, transform) -> np.ndarray:
    """``(1/G) sum_g 1/(M-1) sum_i transform(m_bar[g] - m_model[g, i])`` per query."""
    n_per_group = model_metric.shape[1]
    differences = systematic_metric[:, np.newaxis, :] - model_metric
    return (transform(differences).sum(axis=1) / (n_per_group - 1)).mean(axis=0)


def variability_ranking_error(systematic_metric, model_metric) -> np.ndarray:
    """VRE per query with the positive part ``|a|_+ = max(0, a)`` (eq. 13):
    ``(1/G) sum_g 1/(M-1) sum_i |m_bar[g] - m_model[g, i]|_+``; the summand of eq. 15
    (bootstrap, 1/(B-1)) and of eq. 17 (twofold, 1/(2-1), averaged over j)."""
    return _spread(systematic_metric, model_metric, lambda d: np.maximum(d, 0.0))


def signed_variability_ranking_error(systematic_metric, model_metric) -> np.ndarray:
    """Rejected VRE variant of §5.3.5 (the definition before eq. 13):
    ``E_D[NDCG(l_q; fbar) - NDCG(l_q; f_D)]`` without ``|.|_+``, with the factors of eq. 15/17.

    The paper's motivation is ``SRE + VRE = E_D[1 - NDCG]``; with the estimator's factor
    ``1/(M-1)`` instead of ``1/M`` this holds as ``SRE + (M-1)/M * signed VRE = ranking error``.
    """
    return _spread(systematic_metric, model_metric, lambda d: d)


def absolute_variability_ranking_error(systematic_metric, model_metric) -> np.ndarray:
    """Rejected VRE variant of §5.3.5: ``E_D[|NDCG(l_q; f_D) - NDCG(l_q; fbar)|]``,
    with the factors of eq. 15/17."""
    return _spread(systematic_metric, model_metric, np.abs)


def squared_variability_ranking_error(systematic_metric, model_metric) -> np.ndarray:
    """Rejected VRE variant of §5.3.5: ``E_D[(NDCG(l_q; f_D) - NDCG(l_q; fbar))**2]``,
    with the factors of eq. 15/17."""
    return _spread(systematic_metric, model_metric, np.square)


def ranking_error(model_metric: np.ndarray) -> np.ndarray:
    """Expected ranking error per query, eq. 11 averaged over all G*M models:
    ``mean_{g,i} (1 - m_model[g, i, q])``."""
    return (1.0 - model_metric).mean(axis=(0, 1))


@dataclass(frozen=True)
class ListwiseTerms:
    """Per-query listwise quantities of one metric (nan where a query is excluded)."""

    metric: str
    included: np.ndarray           # bool (n_queries,)
    systematic_metric: np.ndarray  # (G, n_queries): m of the group-mean scores
    model_metric: np.ndarray       # (G, M, n_queries): m of every model
    values: dict                   # {quantity: (n_queries,)} for QUANTITIES

    def means(self) -> dict[str, float]:
        """Each quantity averaged over the included queries (eq. 14-17 for sre/vre)."""
        return {name: float(np.mean(v[self.included])) if self.included.any() else float("nan")
                for name, v in self.values.items()}


def listwise_terms(scores, labels, query_offsets, method: str, metrics=("ndcg",),
                   convention="standard", ties=None,
                   empty_queries="exclude", docids=None) -> dict[str, ListwiseTerms]:
    """SRE, VRE, its rejected variants and the ranking error per query, for each metric.

    ``scores`` (R, n_docs) in row order; ``method`` "bootstrap" (eq. 14-15) or "twofold"
    (eq. 16-17, models ordered 1a 1b 2a 2b ...).  See the module docstring for
    ``empty_queries``.
    """
    if empty_queries not in EMPTY_QUERY_TREATMENTS:
        raise ValueError(f"empty_queries must be one of {EMPTY_QUERY_TREATMENTS}, got {empty_queries!r}")
    if isinstance(metrics, str):
        metrics = (metrics,)
    metrics = tuple(check_listwise_metric(m, convention) for m in metrics)
    grouped = grouped_scores(scores, method)
    n_groups, n_per_group, n_docs = grouped.shape
    offsets = np.asarray(query_offsets, dtype=np.int64)
    if offsets[-1] != n_docs:
        raise ValueError(f"scores have {n_docs} documents but query_offsets end at {offsets[-1]}")
    rows = np.concatenate([grouped.mean(axis=1), grouped.reshape(-1, n_docs)])
    per_row = per_query_metric_of_rows(rows, labels, offsets, metrics, convention, ties, docids)
    out = {}
    for metric in metrics:
        systematic = per_row[metric][:n_groups]
        models = per_row[metric][n_groups:].reshape(n_groups, n_per_group, -1)
        included = np.all(np.isfinite(per_row[metric]), axis=0)
        if empty_queries == "exclude":
            included &= queries_with_relevant(labels, offsets, metric, convention)
        values = {
            "sre": systematic_ranking_error(systematic),
            "vre": variability_ranking_error(systematic, models),
            "vre_signed": signed_variability_ranking_error(systematic, models),
            "vre_absolute": absolute_variability_ranking_error(systematic, models),
            "vre_squared": squared_variability_ranking_error(systematic, models),
            "ranking_error": ranking_error(models),
        }
        values = {name: np.where(included, v, np.nan) for name, v in values.items()}
        out[metric] = ListwiseTerms(metric, included, systematic, models, values)
    return out
