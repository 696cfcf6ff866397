"""Training sets: samples of one fold's training queries, for the bias-variance study (Ibrahim 2021,
§5.2.1 and §5.2.2) and the variance trials of Ganjisaffar et al. (2011, §4.2), and the rule that every
training set holds a relevant document.

* **bootstrap** (§5.2.1): replicate ``i`` is a random ``fraction`` (63%) of the training queries drawn
  without replacement ("tantamount to bootstrapping without replacement"), independently per replicate;
* **two-fold** (§5.2.2): repetition ``j`` splits the queries at random into two disjoint halves
  ``D_1^j`` (replicate ``ja``) and ``D_2^j`` (``jb``); ``D_1^j ∪ D_2^j`` is the whole training set.

Sampling is at query level, so all documents of a query go together.  Every set derives from the
config seed, the dataset, the fold, the scheme and the replicate number, and is shared by every
learner and sweep setting (the learners are compared on the same training sets).

* **trials** (Ganjisaffar et al. §4.2, Table 5): trial ``t``'s training queries are ``round(0.67 * n)``
  queries drawn without replacement with the seed ``derive_seed(config seed, dataset, fold, "trial", t)``:
  the same for every learner, different across trials, reproducible.

**A relevant document** (:func:`require_relevant`).  With every label 0 there is nothing to rank: a forest's
trees are single leaves, XGBoost's LambdaMART gradients are all zero, and every learner scores each document with one constant; the performance
table would then report that constant's NDCG as the learner's.  So a training set (a fold's, a trial's
or a study's sample of queries, a bag's sub-sample) without a positive label is refused, naming it.

A bag's sub-sample is refused, not redrawn: Ganjisaffar et al. (2011, §3.5) draw each sub-model's
queries at random once, and redrawing until a relevant document appears would change the sample's
distribution (and the seed scheme) for the runs it touches; a sub-sample of only unjudged or
irrelevant queries is so rare on real data that it signals a training set that is almost empty of
relevance, which the user should see.
"""

from __future__ import annotations

import re

import numpy as np

from ..seeding import derive_seed
from .bagging import sample_queries

_TWOFOLD = re.compile(r"^(\d+)([ab])$")


def trial_seed(base_seed: int, dataset: str, fold: str, trial: int | str) -> int:
    return derive_seed(base_seed, dataset, fold, "trial", int(trial))


def trial_queries(n_queries: int, fraction: float, base_seed: int, dataset: str, fold: str, trial: int | str) -> np.ndarray:
    """Query numbers of trial ``trial``'s training sample (sorted, without replacement)."""
    return sample_queries(n_queries, fraction, trial_seed(base_seed, dataset, fold, trial))


def bootstrap_queries(n_queries: int, fraction: float, base_seed: int, dataset: str, fold: str, replicate: int) -> np.ndarray:
    """Sorted query numbers of bootstrap replicate ``replicate``: ``round(fraction * n)`` without replacement."""
    return sample_queries(n_queries, fraction, derive_seed(base_seed, dataset, fold, "bootstrap", int(replicate)))


def twofold_halves(n_queries: int, base_seed: int, dataset: str, fold: str, repetition: int) -> tuple[np.ndarray, np.ndarray]:
    """The two disjoint halves (sorted query numbers) of two-fold repetition ``repetition``; sizes differ by ≤ 1."""
    if n_queries < 2:
        raise ValueError("two-fold needs at least 2 training queries")
    rng = np.random.default_rng(derive_seed(base_seed, dataset, fold, "twofold", int(repetition)))
    order = rng.permutation(n_queries)
    half = n_queries // 2
    return np.sort(order[:half]).astype(np.int64), np.sort(order[half:]).astype(np.int64)


def training_set(scheme: str, replicate: str, n_queries: int, fraction: float, base_seed: int, dataset: str,
                 fold: str) -> np.ndarray:
    """Query numbers of one training set: ``scheme`` bootstrap with replicate ``"3"``, or twofold with ``"2b"``."""
    if scheme == "bootstrap":
        if not str(replicate).isdigit():
            raise ValueError(f"a bootstrap replicate is a number, got {replicate!r}")
        return bootstrap_queries(n_queries, fraction, base_seed, dataset, fold, int(replicate))
    if scheme == "twofold":
        match = _TWOFOLD.match(str(replicate))
        if not match:
            raise ValueError(f"a two-fold replicate is <repetition><a|b>, e.g. '2b'; got {replicate!r}")
        halves = twofold_halves(n_queries, base_seed, dataset, fold, int(match.group(1)))
        return halves[0] if match.group(2) == "a" else halves[1]
    raise ValueError(f"unknown scheme {scheme!r}; known: bootstrap, twofold")


def per_tree_subsample(p: float, n_original: int, n_training: int) -> float:
    """The forest's ``subsample`` (share of ITS training set) that gives ``p`` of the ORIGINAL training queries.

    Ibrahim (2021, §6.1.2) sweeps the sub-sample size per tree p as a share of the original training
    set; a forest trained on a 63% (or 50%) set must therefore draw ``p * n_original`` of its
    ``n_training`` queries per tree.  Capped at 1 (a point larger than the set is skipped upstream).
    """
    if not 0.0 < p <= 1.0:
        raise ValueError(f"p must be in (0, 1], got {p}")
    return min(1.0, p * n_original / n_training)

class NoRelevantDocumentError(ValueError):
    """A training set whose labels are all 0 (or below)."""


def require_relevant(data, what: str) -> None:
    """Refuse ``data`` (a RankingData) as a training set when no document has a positive label."""
    if not np.any(np.asarray(data.labels) > 0):
        raise NoRelevantDocumentError(
            f"{what}: no document with a positive label ({data.n_queries} queries, {data.n_docs} documents, every "
            "label 0); a learner trained on it scores every document with one constant, so it is refused")
