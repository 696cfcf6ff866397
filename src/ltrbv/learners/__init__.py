"""Learners: estimators over RankingData with ``fit_predict(train, valid, targets)``.

``LEARNER_KINDS`` maps a config ``kind`` to its estimator class; the generic
training rules build any of them from a config entry.  A ranker of your own
needs one config entry: ``kind: command`` (a shell command template, e.g.
RankLib) or ``kind: python`` (a function); a learner with its own rule is
``kind: external`` (see README, "Adding your own learner").  A bag of any of them (config ``kind: bag``, BL-MART) is trained
by the rules in ``rules/bagging.smk`` (see :mod:`ltrbv.bagging`).
"""

from __future__ import annotations

from ..forest import RankingForest
from .command import CommandLearner
from .lambdamart import LambdaMART
from .lightgbm_ranker import LightGBMRanker
from .python_callable import PythonLearner
from .ranking_svm import RankingSVM
from .stopping import StoppingRule

LEARNER_KINDS = {
    "xgboost": LambdaMART,
    "lightgbm": LightGBMRanker,
    "random_forest": RankingForest,
    "command": CommandLearner,
    "python": PythonLearner,
    "ranking-svm": RankingSVM,
}


def make_learner(kind: str, params: dict, random_state: int, n_threads: int = 1):
    try:
        cls = LEARNER_KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown learner kind {kind!r}; known: {sorted(LEARNER_KINDS)}") from None
    return cls(**params, random_state=random_state, n_threads=n_threads)


__all__ = ["LEARNER_KINDS", "CommandLearner", "LambdaMART", "LightGBMRanker", "PythonLearner", "RankingForest",
           "StoppingRule", "make_learner"]
