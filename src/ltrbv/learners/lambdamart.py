"""LambdaMART baseline: XGBoost's ``rank:ndcg`` objective with early stopping on the validation fold."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..data.ranking_data import RankingData


@dataclass
class LambdaMART:
    """XGBoost ``rank:ndcg`` (LambdaMART, Burges 2010) with a fit/predict estimator API.

    Queries are passed to XGBoost as group sizes in row order, so files whose
    qids are unsorted (MQ2008 Fold4/5) need no re-sorting: RankingData already
    groups each query's rows contiguously.

    ``n_estimators`` is the cap on boosting rounds; with a validation set,
    training stops after ``early_stopping_rounds`` rounds without improvement
    of ``eval_metric`` and predictions use the best iteration.
    """

    n_estimators: int = 1000
    learning_rate: float = 0.05
    max_depth: int = 0
    max_leaves: int = 31
    min_child_weight: float = 1.0
    subsample: float = 1.0
    colsample_bynode: float = 1.0
    reg_lambda: float = 1.0
    eval_metric: str = "ndcg@10"
    early_stopping_rounds: int | None = 100
    lambdarank_pair_method: str = "topk"
    lambdarank_num_pair_per_sample: int | None = None
    ndcg_exp_gain: bool = True
    max_bin: int = 256
    random_state: int = 0
    n_threads: int = 1
    fit_info_: dict = field(default_factory=dict, init=False, repr=False)

    def _params(self) -> dict:
        params = {
            "objective": "rank:ndcg",
            "eta": self.learning_rate,
            "max_depth": self.max_depth,
            "max_leaves": self.max_leaves,
            "grow_policy": "lossguide" if self.max_leaves else "depthwise",
            "min_child_weight": self.min_child_weight,
            "subsample": self.subsample,
            "colsample_bynode": self.colsample_bynode,
            "lambda": self.reg_lambda,
            "eval_metric": self.eval_metric,
            "lambdarank_pair_method": self.lambdarank_pair_method,
            "ndcg_exp_gain": self.ndcg_exp_gain,
            "tree_method": "hist",
            "max_bin": self.max_bin,
            "seed": self.random_state,
            "nthread": self.n_threads,
            "verbosity": 1,
        }
        if self.lambdarank_num_pair_per_sample is not None:
            params["lambdarank_num_pair_per_sample"] = self.lambdarank_num_pair_per_sample
        return params

    @staticmethod
    def _matrix(data: RankingData):
        import xgboost as xgb

        matrix = xgb.DMatrix(data.X, label=data.labels.astype(np.float32))
        matrix.set_group(data.query_sizes)
        return matrix

    def fit(self, train: RankingData, valid: RankingData | None = None) -> "LambdaMART":
        import xgboost as xgb

        dtrain = self._matrix(train)
        evals = [(dtrain, "train")]
        early = None
        if valid is not None:
            evals.append((self._matrix(valid), "valid"))
            early = self.early_stopping_rounds
        history: dict = {}
        self.booster_ = xgb.train(
            self._params(),
            dtrain,
            num_boost_round=self.n_estimators,
            evals=evals,
            early_stopping_rounds=early,
            evals_result=history,
            verbose_eval=False,
        )
        best = getattr(self.booster_, "best_iteration", None) if early else None
        self.best_iteration_ = int(best) if best is not None else self.n_estimators - 1
        self.fit_info_ = {
            "best_iteration": self.best_iteration_,
            "rounds_trained": int(self.booster_.num_boosted_rounds()),
            "eval_history": {name: {m: [float(v) for v in vals] for m, vals in d.items()} for name, d in history.items()},
        }
        return self

    def fit_predict(self, train: RankingData, valid: RankingData | None, targets, progress=None) -> list:
        """The workflow's learner protocol: fit (early stopping on ``valid``) and score each of ``targets``."""
        self.fit(train, valid)
        return [self.predict(data) for data in targets]

    def predict(self, data: RankingData) -> np.ndarray:
        import xgboost as xgb

        scores = self.booster_.predict(
            xgb.DMatrix(data.X), iteration_range=(0, self.best_iteration_ + 1)
        )
        return scores.astype(np.float64)
