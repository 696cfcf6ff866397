"""LambdaMART baseline: XGBoost's ``rank:ndcg`` objective with early stopping on the validation fold.

Also LambdaMART with randomisation (Ganjisaffar et al. 2011, §3.3: query-level
sub-sampling per boosting round and feature sampling per split) and with the
overfitting tolerance of §3.5.2 (see :mod:`ltrbv.learners.stopping`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from ..checks import Interval, ParameterError, StrOptions
from ..data.ranking_data import RankingData
from ._imports import import_without_sklearn
from ..estimator import RankerAPI, training_data
from ._validation_metric import EVAL_CONVENTION, check_validation_metric
from .stopping import StoppingRule

#: XGBoost's ranking metrics as eval_metric (the stopping rule reads them back from its evaluation log)
_EVAL_METRIC = re.compile(r"(ndcg|map|pre)(@[1-9][0-9]*)?-?")


@dataclass
class LambdaMART(RankerAPI):
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

    Validation metric: with ``eval_convention`` unset, ``eval_metric`` is XGBoost's own metric
    (``ndcg@10`` scores a query without a relevant document as 1, ``ndcg@10-`` as 0).  With
    ``eval_convention`` set (e.g. ``letor4``, the dataset's convention), ``eval_metric`` is this
    package's metric (any name :func:`ltrbv.metrics.parse_metric` accepts) under that convention,
    computed each round from the booster's cached validation margins, at full precision, so that
    early stopping and the overfitting tolerance follow the measure the results are reported in.
    The per-round query sampling and the stopping rule are XGBoost training callbacks.
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
    eval_convention: str | None = None
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

    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "max_depth": [Interval(Integral, 0, None, closed="left")],
        "max_leaves": [Interval(Integral, 0, None, closed="left")],
        "min_child_weight": [Interval(Real, 0, None, closed="left")],
        "subsample": [Interval(Real, 0, 1, closed="right")],
        "colsample_bynode": [Interval(Real, 0, 1, closed="right")],
        "reg_lambda": [Interval(Real, 0, None, closed="left")],
        "eval_metric": [str],
        "eval_convention": [EVAL_CONVENTION, None],
        "early_stopping_rounds": [Interval(Integral, 1, None, closed="left"), None],
        "lambdarank_pair_method": [StrOptions(("topk", "mean"))],
        "lambdarank_num_pair_per_sample": [Interval(Integral, 1, None, closed="left"), None],
        "ndcg_exp_gain": ["boolean"],
        "max_bin": [Interval(Integral, 2, None, closed="left")],
        "query_subsample": [Interval(Real, 0, 1, closed="right")],
        "overfit_tolerance": [Interval(Real, 0, 1, closed="left"), None],
        "overfit_max_extra_trees": [Interval(Integral, 0, None, closed="left")],
        "eval_train": ["boolean"],
    }
    _parameter_notes = {
        "n_estimators": "the cap on boosting rounds",
        "max_depth": "0: no depth limit (then max_leaves must be > 0)",
        "max_leaves": "0: no leaf limit (then max_depth must be > 0); > 0 grows lossguide",
        "subsample": "XGBoost's row (document) sampling",
        "colsample_bynode": "feature sampling per split (§3.3)",
        "eval_metric": "without eval_convention, XGBoost's ranking metric (ndcg, map or pre, optionally @k and a "
                       "trailing '-'); with it, this package's metric name (e.g. ndcg@10); checked when the learner "
                       "is built",
        "eval_convention": "validate (early stopping, overfitting tolerance) with this package's eval_metric under "
                           "this convention, the dataset's own; null: XGBoost's metric, which scores a query without "
                           "relevant documents as 1 (ndcg@k) or 0 (ndcg@k-)",
        "early_stopping_rounds": "rounds without improvement of the validation metric before stopping; null: never",
        "query_subsample": "share of training queries per boosting round (§3.3)",
        "overfit_tolerance": "§3.5.2: relative validation drop allowed after the maximum (paper: 0.02)",
        "overfit_max_extra_trees": "§3.5.2: at most this many trees after the maximum (paper: 250)",
        "eval_train": "also evaluate eval_metric on the training set each round (eval_history)",
    }

    def _check_together(self) -> None:
        """The tree size needs one limit; eval_metric is XGBoost's unless eval_convention names this package's."""
        if self.max_depth == 0 and self.max_leaves == 0:
            raise ParameterError("max_depth and max_leaves are both 0: the trees would have no size limit at all; "
                                 "set one of them")
        if self.eval_convention is None:
            if not _EVAL_METRIC.fullmatch(self.eval_metric):
                raise ParameterError(f"eval_metric must be an XGBoost ranking metric (ndcg, map or pre, optionally "
                                     f"@k and a trailing '-', e.g. ndcg@10), got {self.eval_metric!r}; or set "
                                     f"eval_convention to use this package's metrics", "eval_metric")
        else:
            check_validation_metric(self.eval_metric, self.eval_convention)

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
            "lambdarank_pair_method": self.lambdarank_pair_method,
            "ndcg_exp_gain": self.ndcg_exp_gain,
            "tree_method": "hist",
            "max_bin": self.max_bin,
            "seed": self.random_state,
            "nthread": self.n_threads,
            "verbosity": 1,
        }
        if self.eval_convention is None:
            params["eval_metric"] = self.eval_metric
        else:  # the metric is computed by _Monitor; XGBoost evaluates nothing
            params["disable_default_eval_metric"] = 1
        if self.lambdarank_num_pair_per_sample is not None:
            params["lambdarank_num_pair_per_sample"] = self.lambdarank_num_pair_per_sample
        return params

    @staticmethod
    def _matrix(data: RankingData, quantile: bool = False, max_bin: int = 256):
        xgb = import_without_sklearn("xgboost")

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

    def fit(self, X, y=None, qid=None, valid=None, progress=None) -> "LambdaMART":
        """Fit on ``train`` (RankingData; early stopping on ``valid``), or scikit-learn's way on arrays:
        ``fit(X, y, qid=...)`` (``valid`` then a RankingData or ``(X, y, qid)``)."""
        train, valid = training_data(X, y, qid, valid)
        self._validate_params()
        xgb = import_without_sklearn("xgboost")

        sampling = self.query_subsample < 1.0
        dtrain = self._matrix(train, quantile=sampling, max_bin=self.max_bin)
        n_queries = train.n_queries
        scale = n_queries / self.n_sampled_queries(n_queries) if sampling else 1.0
        evals = []
        if self.eval_train:
            # XGBoost's metric on the round-weighted training matrix counts only that round's sample (and can
            # fail its NDCG <= 1 check): the training curve is taken on an unweighted copy instead
            unweighted = sampling and self.eval_convention is None
            evals.append((self._matrix(train) if unweighted else dtrain, "train", train))
        rule = None
        if valid is not None:
            evals.append((self._matrix(valid), "valid", valid))
            rule = StoppingRule(self.early_stopping_rounds or None, self.overfit_tolerance,
                                self.overfit_max_extra_trees)
        query_sampling, monitor_class = _callbacks()
        monitor = monitor_class(self.eval_metric, self.eval_convention, evals, rule, progress)
        callbacks = [monitor]
        if sampling:
            callbacks.insert(0, query_sampling(dtrain, self.round_query_samples(n_queries), n_queries, scale))
        booster = xgb.train(self._params(scale), dtrain, num_boost_round=self.n_estimators,
                            evals=[(matrix, name) for matrix, name, _ in evals], callbacks=callbacks,
                            verbose_eval=False)
        rounds = int(booster.num_boosted_rounds())
        if rule is not None:
            self.best_iteration_ = rule.kept_iteration()
            best = rule.best
        else:
            self.best_iteration_ = best = rounds - 1
        self.booster_ = booster
        self.n_features_in_ = train.n_features
        self.fit_info_ = {
            "best_iteration": int(best),
            "kept_iteration": int(self.best_iteration_),
            "trees_kept": int(self.best_iteration_) + 1,
            "rounds_trained": rounds,
            "stop_reason": monitor.stop_reason(self.overfit_tolerance),
            "queries_per_round": self.n_sampled_queries(n_queries) if sampling else n_queries,
            "eval_metric": self.eval_metric,
            "eval_convention": self.eval_convention or "xgboost",
            "eval_history": monitor.history,
        }
        return self

    def fit_predict(self, train: RankingData, valid: RankingData | None, targets, progress=None) -> list:
        """The workflow's learner protocol: fit (early stopping on ``valid``) and score each of ``targets``."""
        self.fit(train, valid, progress=progress)
        return [self.predict(data) for data in targets]

    def predict(self, X, n_trees: int | None = None) -> np.ndarray:
        """Scores of the kept trees (or of the first ``n_trees``) for RankingData or the rows of an array."""
        self._fitted("booster_")
        xgb = import_without_sklearn("xgboost")

        end = self.best_iteration_ + 1 if n_trees is None else int(n_trees)
        scores = self.booster_.predict(xgb.DMatrix(self._features_of(X)), iteration_range=(0, end))
        return scores.astype(np.float64)


@functools.cache
def _callbacks():
    """The two training callbacks (classes made on first use: xgboost is imported lazily)."""
    xgb = import_without_sklearn("xgboost")

    class QuerySampling(xgb.callback.TrainingCallback):
        """Before each boosting round: weight ``scale`` on that round's query sample, 0 elsewhere (§3.3)."""

        def __init__(self, dtrain, samples, n_queries: int, scale: float) -> None:
            super().__init__()
            self.dtrain, self.samples, self.scale = dtrain, samples, scale
            self.weights = np.zeros(n_queries, dtype=np.float32)

        def before_iteration(self, model, epoch: int, evals_log) -> bool:
            self.weights[:] = 0.0
            self.weights[next(self.samples)] = self.scale
            self.dtrain.set_weight(self.weights)
            return False

    class Monitor(xgb.callback.TrainingCallback):
        """After each boosting round: record the metric on every evaluation set, report progress and apply
        the stopping rule (returning True stops training)."""

        def __init__(self, metric: str, convention: str | None, evals, rule, progress) -> None:
            super().__init__()
            self.metric, self.convention, self.evals = metric, convention, evals
            self.rule, self.progress, self.stopped = rule, progress, False
            self.history: dict = {name: {metric: []} for _, name, _ in evals}

        def value(self, model, matrix, name: str, data: RankingData, evals_log) -> float:
            if self.convention is None:  # XGBoost's own metric, as its evaluation log holds it
                return float(evals_log[name][self.metric][-1])
            from ..metrics import evaluate

            margins = model.predict(matrix, output_margin=True, training=False)  # incremental: a cached matrix
            per_query = evaluate(margins.astype(np.float64), data.labels, data.query_offsets, (self.metric,),
                                 convention=self.convention)[self.metric]
            return float(np.mean(per_query))

        def after_iteration(self, model, epoch: int, evals_log) -> bool:
            for matrix, name, data in self.evals:
                self.history[name][self.metric].append(self.value(model, matrix, name, data, evals_log))
            if self.progress is not None:
                self.progress(1)
            if self.rule is not None and self.rule.update(self.history["valid"][self.metric][-1]):
                self.stopped = True
            return self.stopped

        def stop_reason(self, tolerance) -> str:
            if not self.stopped:
                return "n_estimators"
            return "early_stopping" if tolerance is None else "overfit_tolerance"

    return QuerySampling, Monitor
