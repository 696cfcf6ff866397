"""Learners: estimators over RankingData with ``fit_predict(train, valid, targets)``.

``LEARNER_KINDS`` maps a config ``kind`` to its estimator class; the generic
training rules build any of them from a config entry.  A ranker of your own
needs one config entry: ``kind: command`` (a shell command template, e.g.
RankLib) or ``kind: python`` (a function); a learner with its own rule is
``kind: external`` (see docs/learners.md#adding-your-own-learner).  A bag of any of them (config ``kind: bag``, BL-MART) is trained
by the core run's rules in ``rules/core.smk`` (see :mod:`ltrbv.learners.bagging`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from ..estimator import RUN_PARAMETERS  # noqa: F401  (every learner's run parameters, re-exported)

#: every learner class and the module that defines it, imported on first use (PEP 562): a LambdaMART job
#: does not import the forest's compiled kernels, nor a forest job XGBoost
_HOMES = {"RankingForest": "..forest", "CommandLearner": ".command", "LambdaMART": ".lambdamart",
          "LightGBMRanker": ".lightgbm_ranker", "PythonLearner": ".python_callable", "RankingSVM": ".ranking_svm",
          "StoppingRule": ".stopping"}


def _load(name: str):
    return getattr(importlib.import_module(_HOMES[name], __name__), name)


class _LearnerKinds(Mapping):
    """``{config kind: estimator class}``; a class is imported when it is looked up."""

    _CLASSES = {"xgboost": "LambdaMART", "lightgbm": "LightGBMRanker", "random_forest": "RankingForest",
                "command": "CommandLearner", "python": "PythonLearner", "ranking-svm": "RankingSVM"}

    def __getitem__(self, kind: str):
        return _load(self._CLASSES[kind])

    def __iter__(self):
        return iter(self._CLASSES)

    def __len__(self) -> int:
        return len(self._CLASSES)


LEARNER_KINDS = _LearnerKinds()


def checked_learner(cls, params: dict):
    """``cls(**params)`` with its parameters checked: a built-in learner's ``__init__`` stores them unchanged
    (scikit-learn's convention) and ``_validate_params`` refuses a bad one, naming it (ValueError)."""
    learner = cls(**params)
    validate = getattr(learner, "_validate_params", None)
    if validate is not None:
        validate()
    return learner


def make_learner(kind: str, params: dict, random_state: int, n_threads: int = 1):
    try:
        cls = LEARNER_KINDS[kind]
    except KeyError:
        raise ValueError(f"unknown learner kind {kind!r}; known: {sorted(LEARNER_KINDS)}") from None
    return checked_learner(cls, {**params, "random_state": random_state, "n_threads": n_threads})


def __getattr__(name: str):
    if name in _HOMES:
        return _load(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["LEARNER_KINDS", "RUN_PARAMETERS", "checked_learner", "CommandLearner", "LambdaMART", "LightGBMRanker", "PythonLearner", "RankingForest",
           "RankingSVM", "StoppingRule", "make_learner"]
