"""LambdaMART baseline: XGBoost's ``rank:ndcg`` objective with early stopping on the validation fold.

Also LambdaMART with randomisation (Ganjisaffar et al. 2011, §3.3: query-level
sub-sampling per boosting round and feature sampling per split) and with the
overfitting tolerance of §3.5.2 (see :mod:`ltrbv.learners.stopping`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..checks import check_integer, check_real
from ..data.ranking_data import RankingData
from .stopping import StoppingRule

#: XGBoost's ranking metrics as eval_metric (the stopping rule reads them back from its evaluation log)
_EVAL_METRIC = re.compile(r"(ndcg|map|pre)(@[1-9][0-9]*)?-?")


@dataclass
class LambdaMART:
    """XGBoost ``rank:ndcg`` (LambdaMART, Burges 2010) with a fit/predict estimator API.

    Queries are passed to XGBoost as group sizes in row order, so files whose
    qids are unsorted (MQ2008 Fold4/5) need no re-sorting: RankingData already
    groups each query's rows contiguously.

    ``n_estimators`` is the cap on boosting rounds; with a validation set,
    training stops after ``early_stopping_rounds`` rounds without improvement
    of ``eval_metric`` and predictions use the best iteration.

    Randomisation (Ganjisaffar et al. 2011, §3.3, "LambdaMART with randomization"):

    * ``query_subsample`` < 1: each boosting round fits its tree to a fresh random
      sample of ``round(query_subsample * n_queries)`` training *queries*, drawn
      without replacement (Friedman's stochastic gradient boosting at the query
      level).  XGBoost's ``subsample`` samples rows, i.e. documents inside queries,
      so it is not used for this.  How it is done: before each round the
      training DMatrix gets per-query weights ``c`` for sampled queries and 0 for
      the others, with ``c = n_queries / n_sampled`` (so the weights sum to
      ``n_queries`` and XGBoost's ranking weight normalisation ``n_groups /
      sum(w)`` is 1 whatever its caching); a dropped query then has zero lambda
      gradient and hessian and takes no part in split finding or leaf values.
      The gradients of sampled queries are scaled by ``c``, so ``reg_lambda`` and
      ``min_child_weight`` are scaled by ``c`` too: every tree is then exactly the
      tree XGBoost grows on the sampled queries alone (tests/test_lambdamart_rand.py
      checks this against per-round training on ``subset_queries``).  The
      histogram bins come from all training queries (an unweighted
      ``QuantileDMatrix``).  The per-round samples are reproducible from
      ``random_state`` (:meth:`round_query_samples`).
    * ``colsample_bynode`` < 1: each split chooses among a random subset of the
      features (XGBoost's per-node column sampling, §3.3 "on each split").

    The paper's third tree parameter, "min percentage of observations per leaf",
    has no XGBoost counterpart (``min_child_weight`` bounds the hessian sum of a
    leaf, not its document count); ``min_child_weight`` is used instead.

    Overfitting tolerance (§3.5.2): ``overfit_tolerance`` (e.g. 0.02) keeps adding
    trees after the validation maximum until validation ``eval_metric`` drops by
    more than that fraction of the maximum, at most ``overfit_max_extra_trees``
    (250) extra trees; see :class:`~ltrbv.learners.stopping.StoppingRule`.
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
    query_subsample: float = 1.0
    overfit_tolerance: float | None = None
    overfit_max_extra_trees: int = 250
    eval_train: bool = True
    random_state: int = 0
    n_threads: int = 1
    fit_info_: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        check_integer("n_estimators", self.n_estimators, minimum=1)
        check_real("learning_rate", self.learning_rate, low=0.0, low_open=True)
        check_integer("max_depth", self.max_depth, minimum=0)
        check_integer("max_leaves", self.max_leaves, minimum=0)
        if self.max_depth == 0 and self.max_leaves == 0:
            raise ValueError("max_depth and max_leaves are both 0: the trees would have no size limit at all; "
                             "set one of them")
        check_real("min_child_weight", self.min_child_weight, low=0.0)
        for name in ("subsample", "colsample_bynode", "query_subsample"):
            check_real(name, getattr(self, name), low=0.0, high=1.0, low_open=True)
        check_real("reg_lambda", self.reg_lambda, low=0.0)
        if not isinstance(self.eval_metric, str) or not _EVAL_METRIC.fullmatch(self.eval_metric):
            raise ValueError(f"eval_metric must be an XGBoost ranking metric (ndcg, map or pre, optionally @k "
                             f"and a trailing '-', e.g. ndcg@10), got {self.eval_metric!r}")
        check_integer("early_stopping_rounds", self.early_stopping_rounds, minimum=1, allow_none=True)
        if self.lambdarank_pair_method not in ("topk", "mean"):
            raise ValueError(f"lambdarank_pair_method must be 'topk' or 'mean', got {self.lambdarank_pair_method!r}")
        check_integer("lambdarank_num_pair_per_sample", self.lambdarank_num_pair_per_sample, minimum=1,
                      allow_none=True)
        check_integer("max_bin", self.max_bin, minimum=2)
        check_real("overfit_tolerance", self.overfit_tolerance, low=0.0, high=1.0, high_open=True, allow_none=True)
        check_integer("overfit_max_extra_trees", self.overfit_max_extra_trees, minimum=0)

    def _params(self, scale: float = 1.0) -> dict:
        params = {
            "objective": "rank:ndcg",
            "eta": self.learning_rate,
            "max_depth": self.max_depth,
            "max_leaves": self.max_leaves,
            "grow_policy": "lossguide" if self.max_leaves else "depthwise",
            "min_child_weight": self.min_child_weight * scale,
            "subsample": self.subsample,
            "colsample_bynode": self.colsample_bynode,
            "lambda": self.reg_lambda * scale,
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
    def _matrix(data: RankingData, quantile: bool = False, max_bin: int = 256):
        import xgboost as xgb

        if quantile:
            return xgb.QuantileDMatrix(data.X, label=data.labels.astype(np.float32), group=data.query_sizes,
                                       max_bin=max_bin)
        matrix = xgb.DMatrix(data.X, label=data.labels.astype(np.float32))
        matrix.set_group(data.query_sizes)
        return matrix

    def n_sampled_queries(self, n_queries: int) -> int:
        """Queries per boosting round: ``round(query_subsample * n_queries)``, at least 1."""
        return max(1, min(n_queries, int(round(self.query_subsample * n_queries))))

    def round_query_samples(self, n_queries: int):
        """The per-round query samples (sorted query numbers), an endless reproducible generator."""
        rng = np.random.default_rng(np.random.SeedSequence([int(self.random_state), 0x51]))
        size = self.n_sampled_queries(n_queries)
        while True:
            yield np.sort(rng.choice(n_queries, size=size, replace=False))

    def fit(self, train: RankingData, valid: RankingData | None = None, progress=None) -> "LambdaMART":
        import xgboost as xgb

        sampling = self.query_subsample < 1.0
        dtrain = self._matrix(train, quantile=sampling, max_bin=self.max_bin)
        n_queries = train.n_queries
        scale = 1.0
        if sampling:
            n_sampled = self.n_sampled_queries(n_queries)
            scale = n_queries / n_sampled
            samples = self.round_query_samples(n_queries)
            weights = np.zeros(n_queries, dtype=np.float32)
        evals = [(dtrain, "train")] if self.eval_train else []
        rule = None
        if valid is not None:
            evals.append((self._matrix(valid), "valid"))
            patience = self.early_stopping_rounds or None
            rule = StoppingRule(patience, self.overfit_tolerance, self.overfit_max_extra_trees)
        booster = xgb.Booster(self._params(scale), [dtrain] + [matrix for matrix, _ in evals if matrix is not dtrain])
        history: dict = {name: {} for _, name in evals}
        stop_reason = "n_estimators"
        for iteration in range(self.n_estimators):
            if sampling:
                weights[:] = 0.0
                weights[next(samples)] = scale
                dtrain.set_weight(weights)
            booster.update(dtrain, iteration)
            if progress is not None:
                progress(1)
            if not evals:
                continue
            for name, metric, value in _parse_eval(booster.eval_set(evals, iteration)):
                history[name].setdefault(metric, []).append(value)
            if rule is not None and rule.update(history["valid"][self.eval_metric][-1]):
                stop_reason = "early_stopping" if self.overfit_tolerance is None else "overfit_tolerance"
                break
        rounds = int(booster.num_boosted_rounds())
        if rule is not None:
            self.best_iteration_ = rule.kept_iteration()
            best = rule.best
        else:
            self.best_iteration_ = best = rounds - 1
        self.booster_ = booster
        self.fit_info_ = {
            "best_iteration": int(best),
            "kept_iteration": int(self.best_iteration_),
            "trees_kept": int(self.best_iteration_) + 1,
            "rounds_trained": rounds,
            "stop_reason": stop_reason,
            "queries_per_round": self.n_sampled_queries(n_queries) if sampling else n_queries,
            "eval_history": history,
        }
        return self

    def fit_predict(self, train: RankingData, valid: RankingData | None, targets, progress=None) -> list:
        """The workflow's learner protocol: fit (early stopping on ``valid``) and score each of ``targets``."""
        self.fit(train, valid, progress=progress)
        return [self.predict(data) for data in targets]

    def predict(self, data: RankingData, n_trees: int | None = None) -> np.ndarray:
        """Scores of the kept trees (or of the first ``n_trees``)."""
        import xgboost as xgb

        end = self.best_iteration_ + 1 if n_trees is None else int(n_trees)
        scores = self.booster_.predict(xgb.DMatrix(data.X), iteration_range=(0, end))
        return scores.astype(np.float64)


def _parse_eval(text: str):
    """``"[3]\ttrain-ndcg@10:0.71\tvalid-ndcg@10:0.52"`` -> (name, metric, value) triples."""
    for token in text.split()[1:]:
        name, _, rest = token.partition("-")
        metric, _, value = rest.rpartition(":")
        yield name, metric, float(value)
