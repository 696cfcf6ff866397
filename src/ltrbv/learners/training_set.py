"""A training set must hold a relevant document.

With every label 0 there is nothing to rank: a forest's trees are single leaves, XGBoost's LambdaMART
gradients are all zero, and every learner scores each document with one constant; the performance
table would then report that constant's NDCG as the learner's.  So a training set (a fold's, a trial's
or a study's sample of queries, a bag's sub-sample) without a positive label is refused, naming it.

A bag's sub-sample is refused, not redrawn: Ganjisaffar et al. (2011, §3.5) draw each sub-model's
queries at random once, and redrawing until a relevant document appears would change the sample's
distribution (and the seed scheme) for the runs it touches; a sub-sample of only unjudged or
irrelevant queries is so rare on real data that it signals a training set that is almost empty of
relevance, which the user should see.
"""

from __future__ import annotations

import numpy as np


class NoRelevantDocumentError(ValueError):
    """A training set whose labels are all 0 (or below)."""


def require_relevant(data, what: str) -> None:
    """Refuse ``data`` (a RankingData) as a training set when no document has a positive label."""
    if not np.any(np.asarray(data.labels) > 0):
        raise NoRelevantDocumentError(
            f"{what}: no document with a positive label ({data.n_queries} queries, {data.n_docs} documents, every "
            "label 0); a learner trained on it scores every document with one constant, so it is refused")
