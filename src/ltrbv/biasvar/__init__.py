"""Bias-variance reducers of learning-to-rank predictions (Ibrahim 2021; Zhang et al. 2013).

* :func:`decompose` -- pointwise bias²/variance (eq. 5-8), listwise SRE/VRE (eq. 14-17),
  ranking error and the rejected VRE variants, with bootstrap intervals over test queries.
* :func:`zhang_bias_variance` -- bias-variance of a metric across queries for a model family.
* :func:`paired_t_test`, :func:`paired_randomization_test`, :func:`significance_marker`.
"""

from .decomposition import BiasVarianceResult, decompose
from .listwise import ListwiseTerms, listwise_terms
from .pointwise import pointwise_bias_variance, pointwise_per_document
from .significance import paired_randomization_test, paired_t_test, significance_marker
from .uncertainty import percentile_interval, query_bootstrap_interval, query_resample_counts
from .zhang import zhang_bias_variance

__all__ = [
    "BiasVarianceResult",
    "ListwiseTerms",
    "decompose",
    "listwise_terms",
    "paired_randomization_test",
    "paired_t_test",
    "percentile_interval",
    "pointwise_bias_variance",
    "pointwise_per_document",
    "query_bootstrap_interval",
    "query_resample_counts",
    "significance_marker",
    "zhang_bias_variance",
]
