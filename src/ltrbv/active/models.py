"""Train one relevance model / ranking function on a partition and score the pool (§5 setup).

Model kinds (config ``active.models.<name>.kind``):

``rf_class``      RF_class label probabilities + expected-relevance ranking (§5.1)
``ordered_logit`` ordered logit label probabilities + expected-relevance ranking (§5.1)
``rf_reg``        RF regression on the graded labels (RF_reg, §5.2): a ranking only
``lambdamart``    LambdaMART (XGBoost ``rank:ndcg``, early stopping on the validation half): a ranking only
``ranking_svm``   linear Ranking SVM (pairwise hinge loss, C chosen on the validation half; the paper's
                  second ranker in Fig. 3, middle row): a ranking only

Half of the partition's queries (``train_fraction``) train, the other half validates
(§5.1: "Half of the available training fold is used for model training, the other half
is used as a validation set to tune hyperparameters").  ``query_fraction`` < 1 trains on
that share of the training half only (the "more training data" experiment, §5.2).
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from ..data.ranking_data import RankingData
from ..learners import make_learner
from .pool import split_queries
from .relevance import expected_relevance, ordered_logit_probabilities, rf_class_probabilities, rf_regression_scores

MODEL_KINDS = ("rf_class", "ordered_logit", "rf_reg", "lambdamart", "ranking_svm")


def model_problems(name: str, spec: dict) -> list[str]:
    """Bad parameters of one model entry, found by building its learner (checked before any job)."""
    from ..checks import Interval, ListOf, check_param
    from ..forest import RankingForest
    from ..learners import LambdaMART, checked_learner

    params = dict(spec.get("params", {}))
    where = f"active.models.{name}.params"
    try:
        if spec["kind"] in ("rf_class", "rf_reg"):
            checked_learner(RankingForest, {"n_estimators": 100, **params, "splitting": "point", "criterion": "mse"})
        elif spec["kind"] == "lambdamart":
            checked_learner(LambdaMART, params)
        elif spec["kind"] == "ranking_svm":
            make_learner("ranking-svm", params, random_state=0)
        elif spec["kind"] == "ordered_logit":
            unknown = sorted(set(params) - {"prior_variances"})
            if unknown:
                return [f"{where}: unknown parameter(s) {unknown} for kind 'ordered_logit'; accepted: ['prior_variances']"]
            check_param("prior_variances", params.get("prior_variances", [1.0]),
                        [ListOf(Interval(Real, 0, None, closed="neither"), unique=False)])
    except (TypeError, ValueError) as error:
        return [f"{where}: {error}"]
    return []


def training_halves(partition: RankingData, train_fraction: float, split_seed: int):
    """(training queries, validation queries) of a partition; the same for every model of it."""
    first, second = split_queries(partition, train_fraction, np.random.default_rng(split_seed))
    return partition.subset_queries(first), partition.subset_queries(second)


def train_model(spec: dict, train: RankingData, valid: RankingData, pool: RankingData, n_labels: int,
                random_state: int, n_threads: int = 1, min_prob: float = 1e-3) -> dict:
    """Fit the model of ``spec`` and return ``{"scores": (pool docs,), "label_probs": (pool docs, |Y|) or None}``."""
    kind = spec["kind"]
    params = dict(spec.get("params", {}))
    fraction = float(spec.get("query_fraction", 1.0))
    info = {"kind": kind, "train_queries": train.n_queries}
    if fraction < 1.0:
        chosen, _ = split_queries(train, fraction, np.random.default_rng(random_state))
        train = train.subset_queries(chosen)
        info["train_queries"] = train.n_queries
    info["train_documents"] = train.n_docs
    label_probs = None
    if kind == "rf_class":
        label_probs = rf_class_probabilities(train, [pool], n_labels, params, random_state, n_threads, min_prob)[0]
        scores = expected_relevance(label_probs)
    elif kind == "ordered_logit":
        variances = params.get("prior_variances", [0.1, 1.0, 10.0, 100.0])
        (label_probs,), model = ordered_logit_probabilities(train, valid, [pool], n_labels, variances, min_prob)
        scores = expected_relevance(label_probs)
        info["prior_variance"] = model.prior_variance
        info["converged"] = model.converged_
    elif kind == "rf_reg":
        scores = rf_regression_scores(train, [pool], params, random_state, n_threads)[0]
    elif kind in ("lambdamart", "ranking_svm"):
        learner = make_learner({"lambdamart": "xgboost", "ranking_svm": "ranking-svm"}[kind], params, random_state,
                               n_threads)
        scores = learner.fit_predict(train, valid, [pool])[0]
        info["fit_info"] = {key: value for key, value in getattr(learner, "fit_info_", {}).items()
                            if key != "eval_history"}
    else:
        raise ValueError(f"unknown model kind {kind!r}; known: {MODEL_KINDS}")
    return {"scores": np.asarray(scores, dtype=np.float64), "label_probs": label_probs, "info": info}
