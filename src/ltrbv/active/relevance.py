"""Graded relevance models p(y | x, z; theta) for Corollary 1 (Sawade et al. 2013, §5.1).

* **RF_class**: one random-forest regressor per binary problem ``y <= k`` (k = 0..|Y|-2);
  its regression value estimates p(y <= k | x, z) (Li et al. 2007), and
  ``p(y = k) = p(y <= k) - p(y <= k-1)`` after making the cumulative estimates monotone.
* **Ordered logit** (McCullagh 1980), MAP with a Gaussian prior on the weights:
  ``p(y <= k | x, z) = sigmoid(theta_k - w . f(x, z))`` with increasing thresholds.

Each model also gives a ranking function: documents sorted by expected relevance
``sum_k k p(y = k)``.  Probabilities are floored at ``min_prob`` and renormalised, so every
label stays possible and q(x) > 0 for every query (the weights of eq. 6 stay finite).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from ..data.ranking_data import RankingData
from ..forest import RankingForest


def probabilities_from_cumulative(cumulative: np.ndarray, min_prob: float = 0.0) -> np.ndarray:
    """``p(y = k)`` from estimates of ``p(y <= k)`` for k = 0..|Y|-2 (shape (n, |Y|-1)).

    The estimates are clipped to [0, 1] and made non-decreasing in k (running maximum);
    ``p(y <= |Y|-1) = 1``.  Then every probability is floored at ``min_prob`` and each row
    renormalised to sum to 1.
    """
    c = np.clip(np.asarray(cumulative, dtype=np.float64), 0.0, 1.0)
    c = np.maximum.accumulate(c, axis=1)
    c = np.concatenate([c, np.ones((c.shape[0], 1))], axis=1)
    probs = np.diff(c, axis=1, prepend=0.0)
    return floor_probabilities(probs, min_prob)


def floor_probabilities(probs: np.ndarray, min_prob: float) -> np.ndarray:
    probs = np.maximum(probs, min_prob)
    return probs / probs.sum(axis=1, keepdims=True)


def expected_relevance(probs: np.ndarray) -> np.ndarray:
    """The ranking score of a label model: ``E[y] = sum_k k p(y = k)``."""
    return probs @ np.arange(probs.shape[1], dtype=np.float64)


def _with_labels(data: RankingData, labels: np.ndarray) -> RankingData:
    return RankingData(X=data.X, labels=labels, query_offsets=data.query_offsets, qids=data.qids,
                       line_numbers=data.line_numbers, source=data.source)


def rf_class_probabilities(train: RankingData, targets, n_labels: int, forest_params: dict, random_state: int,
                           n_threads: int = 1, min_prob: float = 0.0) -> list[np.ndarray]:
    """RF_class: one regression forest (``criterion="mse"``) per problem ``y <= k``; label probabilities."""
    cumulative = [np.zeros((t.n_docs, n_labels - 1)) for t in targets]
    for k in range(n_labels - 1):
        binary = _with_labels(train, (train.labels <= k).astype(np.int64))
        params = {"n_estimators": 100, **forest_params, "splitting": "point", "criterion": "mse"}
        forest = RankingForest(**params, random_state=random_state + k, n_threads=n_threads, keep_trees=False)
        for out, pred in zip(cumulative, forest.fit_predict(binary, None, targets)):
            out[:, k] = pred
    return [probabilities_from_cumulative(c, min_prob) for c in cumulative]


def rf_regression_scores(train: RankingData, targets, forest_params: dict, random_state: int,
                         n_threads: int = 1) -> list[np.ndarray]:
    """RF_reg: a regression forest on the graded labels themselves (a ranking function only)."""
    params = {"n_estimators": 100, **forest_params, "splitting": "point", "criterion": "mse"}
    forest = RankingForest(**params, random_state=random_state, n_threads=n_threads, keep_trees=False)
    return forest.fit_predict(train, None, targets)


@dataclass
class OrderedLogit:
    """MAP ordered logistic regression: ``p(y <= k | f) = sigmoid(theta_k - w . f)``.

    Features are standardised on the training set; the prior on w is N(0, prior_variance I);
    thresholds ``theta_0`` and ``theta_k = theta_{k-1} + exp(s_k)`` are unpenalised.
    """

    n_labels: int
    prior_variance: float = 1.0
    max_iter: int = 500

    def _unpack(self, params, n_features):
        w = params[:n_features]
        theta = params[n_features] + np.concatenate([[0.0], np.cumsum(np.exp(params[n_features + 1:]))])
        return w, theta

    def _objective(self, params, X, y):
        n, d = X.shape
        w, theta = self._unpack(params, d)
        eta = X @ w
        upper_t = np.append(theta, np.inf)[y]
        lower_t = np.concatenate([[-np.inf], theta])[y]
        su = expit(upper_t - eta)
        sl = expit(lower_t - eta)
        p = np.maximum(su - sl, 1e-300)
        nll = -np.log(p).sum() + 0.5 * w @ w / self.prior_variance
        du = su * (1.0 - su) / p          # d log p / d upper
        dl = -sl * (1.0 - sl) / p         # d log p / d lower
        grad_w = X.T @ (du + dl) + w / self.prior_variance  # d(-log p)/d eta = du + dl
        k = self.n_labels - 1
        dtheta = -(np.bincount(y, weights=du, minlength=k + 1)[:k] + np.bincount(y, weights=dl, minlength=k + 1)[1:])
        grad_t0 = dtheta.sum()
        steps = np.exp(params[d + 1:])
        grad_s = steps * np.cumsum(dtheta[::-1])[::-1][1:]
        return nll, np.concatenate([grad_w, [grad_t0], grad_s])

    def fit(self, X: np.ndarray, y: np.ndarray) -> "OrderedLogit":
        X = np.asarray(X, dtype=np.float64)
        self.mean_ = X.mean(0)
        self.scale_ = X.std(0)
        self.scale_[self.scale_ == 0] = 1.0
        Z = (X - self.mean_) / self.scale_
        y = np.asarray(y, dtype=np.int64)
        k = self.n_labels - 1
        start = np.concatenate([np.zeros(Z.shape[1]), [0.0], np.zeros(k - 1)])
        result = minimize(self._objective, start, args=(Z, y), jac=True, method="L-BFGS-B",
                          options={"maxiter": self.max_iter})
        self.params_ = result.x
        self.converged_ = bool(result.success)
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        Z = (np.asarray(X, dtype=np.float64) - self.mean_) / self.scale_
        w, theta = self._unpack(self.params_, Z.shape[1])
        cumulative = expit(theta[None, :] - (Z @ w)[:, None])
        return probabilities_from_cumulative(cumulative)

    def log_likelihood(self, X: np.ndarray, y: np.ndarray) -> float:
        probs = self.predict_proba(X)
        return float(np.log(np.maximum(probs[np.arange(y.size), np.asarray(y, np.int64)], 1e-300)).sum())


def ordered_logit_probabilities(train: RankingData, valid: RankingData, targets, n_labels: int,
                                prior_variances=(0.1, 1.0, 10.0, 100.0), min_prob: float = 0.0):
    """Fit the ordered logit for each prior variance, keep the best on ``valid`` (log-likelihood)."""
    best, best_ll = None, -np.inf
    for variance in prior_variances:
        model = OrderedLogit(n_labels, prior_variance=float(variance)).fit(train.X, train.labels)
        ll = model.log_likelihood(valid.X, valid.labels)
        if ll > best_ll:
            best, best_ll = model, ll
    return [floor_probabilities(best.predict_proba(t.X), min_prob) for t in targets], best
