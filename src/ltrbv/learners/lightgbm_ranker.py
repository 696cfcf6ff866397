"""LightGBM LambdaMART (``kind: lightgbm``): ``objective: lambdarank``, early stopping on the validation fold.

The peer most users reach for beside XGBoost, with the same conventions as :class:`~ltrbv.learners.LambdaMART`:
``n_estimators`` caps the boosting rounds; with a validation set, training stops after
``early_stopping_rounds`` rounds without improvement of ``eval_metric`` and the predictions use the best
iteration.  Without ``eval_convention`` the metric is LightGBM's ``ndcg`` at ``eval_at = k`` (``ndcg@k``;
like XGBoost's, it scores a query without relevant documents as 1); with it, this package's ``eval_metric``
under that convention (the dataset's own), computed each round from LightGBM's validation scores (``feval``).  Gains are 2^label - 1 (LightGBM's default ``label_gain``).
``max_leaves`` and ``min_child_weight`` keep the XGBoost learner's names (LightGBM's ``num_leaves`` and
``min_sum_hessian_in_leaf``).  Training is deterministic for a seed (``deterministic``,
``force_col_wise``), at any thread count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from ..checks import Interval, Options, ParameterError
from ..data.ranking_data import RankingData
from ._imports import import_without_sklearn
from ..estimator import RankerAPI, training_data
from ._validation_metric import EVAL_CONVENTION, check_validation_metric

_EVAL_METRIC = re.compile(r"ndcg@([1-9][0-9]*)")


@dataclass
class LightGBMRanker(RankerAPI):
    """LightGBM ``lambdarank`` with a fit/predict estimator API (see the module docstring)."""

    n_estimators: int = 1000
    learning_rate: float = 0.05
    max_leaves: int = 31
    max_depth: int = -1
    min_child_weight: float = 1e-3
    min_child_samples: int = 20
    subsample: float = 1.0
    colsample_bynode: float = 1.0
    reg_lambda: float = 0.0
    max_bin: int = 255
    lambdarank_truncation_level: int = 30
    eval_metric: str = "ndcg@10"
    eval_convention: str | None = None
    early_stopping_rounds: int | None = 100
    random_state: int = 0
    n_threads: int = 1

    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "max_leaves": [Interval(Integral, 2, None, closed="left")],
        "max_depth": [Options(Integral, (-1,)), Interval(Integral, 1, None, closed="left")],
        "min_child_weight": [Interval(Real, 0, None, closed="left")],
        "min_child_samples": [Interval(Integral, 1, None, closed="left")],
        "subsample": [Interval(Real, 0, 1, closed="right")],
        "colsample_bynode": [Interval(Real, 0, 1, closed="right")],
        "reg_lambda": [Interval(Real, 0, None, closed="left")],
        "max_bin": [Interval(Integral, 2, None, closed="left")],
        "lambdarank_truncation_level": [Interval(Integral, 1, None, closed="left")],
        "eval_metric": [str],
        "eval_convention": [EVAL_CONVENTION, None],
        "early_stopping_rounds": [Interval(Integral, 1, None, closed="left"), None],
    }
    _parameter_notes = {
        "max_leaves": "LightGBM's num_leaves",
        "max_depth": "-1: no limit",
        "min_child_weight": "LightGBM's min_sum_hessian_in_leaf",
        "min_child_samples": "LightGBM's min_data_in_leaf",
        "subsample": "LightGBM's bagging_fraction (of documents, each round)",
        "colsample_bynode": "LightGBM's feature_fraction_bynode",
        "eval_metric": "without eval_convention, ndcg@k (LightGBM's ndcg at eval_at = k); with it, this package's "
                       "metric name; checked when the learner is built",
        "eval_convention": "validate (early stopping) with this package's eval_metric under this convention, the "
                           "dataset's own; null: LightGBM's ndcg",
        "early_stopping_rounds": "rounds without improvement of the validation metric before stopping; null: never",
    }

    def _check_together(self) -> None:
        """eval_metric is LightGBM's ndcg@k unless eval_convention names this package's metrics."""
        if self.eval_convention is not None:
            check_validation_metric(self.eval_metric, self.eval_convention)
        elif not _EVAL_METRIC.fullmatch(self.eval_metric):
            raise ParameterError(f"eval_metric must be ndcg@k (LightGBM's ndcg at eval_at = k), got "
                                 f"{self.eval_metric!r}; or set eval_convention to use this package's metrics",
                                 "eval_metric")

    def _params(self) -> dict:
        metric = {"metric": "None"} if self.eval_convention is not None else {
            "metric": "ndcg", "eval_at": [int(_EVAL_METRIC.fullmatch(self.eval_metric).group(1))]}
        return {
            "objective": "lambdarank",
            **metric,
            "learning_rate": self.learning_rate,
            "num_leaves": self.max_leaves,
            "max_depth": self.max_depth,
            "min_sum_hessian_in_leaf": self.min_child_weight,
            "min_data_in_leaf": self.min_child_samples,
            "bagging_fraction": self.subsample,
            "bagging_freq": 1 if self.subsample < 1.0 else 0,
            "feature_fraction_bynode": self.colsample_bynode,
            "lambda_l2": self.reg_lambda,
            "max_bin": self.max_bin,
            "lambdarank_truncation_level": self.lambdarank_truncation_level,
            "seed": int(self.random_state),
            "deterministic": True,
            "force_col_wise": True,
            "num_threads": int(self.n_threads),
            "verbosity": -1,
        }

    @staticmethod
    def _dataset(data: RankingData, reference=None):
        lgb = import_without_sklearn("lightgbm")

        return lgb.Dataset(data.X, label=data.labels.astype(np.float64), group=data.query_sizes,
                           reference=reference, free_raw_data=False)

    def fit(self, X, y=None, qid=None, valid=None, progress=None) -> "LightGBMRanker":
        """Fit on ``train`` (RankingData; early stopping on ``valid``), or scikit-learn's way on arrays:
        ``fit(X, y, qid=...)`` (``valid`` then a RankingData or ``(X, y, qid)``)."""
        train, valid = training_data(X, y, qid, valid)
        self._validate_params()
        lgb = import_without_sklearn("lightgbm")

        dtrain = self._dataset(train)
        callbacks = []
        valid_sets, names = [], []
        if valid is not None:
            valid_sets, names = [self._dataset(valid, reference=dtrain)], ["valid"]
            if self.early_stopping_rounds:
                callbacks.append(lgb.early_stopping(self.early_stopping_rounds, first_metric_only=True, verbose=False))
        history: dict = {}
        callbacks.append(lgb.record_evaluation(history))
        if progress is not None:
            callbacks.append(lambda env: progress(1))
        feval = None
        if valid is not None and self.eval_convention is not None:
            from ..metrics import evaluate

            def feval(scores, dataset):  # this package's metric on the validation fold (the only eval set)
                per_query = evaluate(np.asarray(scores, dtype=np.float64), valid.labels, valid.query_offsets,
                                     (self.eval_metric,), convention=self.eval_convention)[self.eval_metric]
                return self.eval_metric, float(np.mean(per_query)), True

        booster = lgb.train(self._params(), dtrain, num_boost_round=self.n_estimators, valid_sets=valid_sets,
                            valid_names=names, callbacks=callbacks, feval=feval)
        recorded = [values for metrics in history.values() for values in metrics.values()]
        rounds = len(recorded[0]) if recorded else booster.current_iteration()  # the booster keeps only the best
        best = booster.best_iteration if booster.best_iteration > 0 else rounds
        self.booster_ = booster
        self.n_features_in_ = train.n_features
        self.best_iteration_ = best - 1
        self.fit_info_ = {
            "best_iteration": int(best - 1),
            "trees_kept": int(best),
            "rounds_trained": int(rounds),
            "stop_reason": "early_stopping" if rounds < self.n_estimators else "n_estimators",
            "eval_convention": self.eval_convention or "lightgbm",
            "eval_history": {name: {self.eval_metric: [float(v) for v in values]}
                             for name, metrics in history.items() for values in metrics.values()},
        }
        return self

    def fit_predict(self, train: RankingData, valid: RankingData | None, targets, progress=None) -> list:
        """The workflow's learner protocol: fit (early stopping on ``valid``) and score each of ``targets``."""
        self.fit(train, valid, progress=progress)
        return [self.predict(data) for data in targets]

    def predict(self, X) -> np.ndarray:
        """Scores of the kept trees for RankingData or the rows of an array."""
        self._fitted("booster_")
        return self.booster_.predict(self._features_of(X), num_iteration=self.best_iteration_ + 1).astype(np.float64)
