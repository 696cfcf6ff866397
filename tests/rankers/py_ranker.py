"""A small Python ranker for the tests (kind: python): ridge regression, over ltrbv's RankingData."""

import numpy as np


def fit_predict(train, vali, test, random_state=0, n_threads=1, alpha=1.0):
    X = train.X.astype(np.float64)
    mean = X.mean(axis=0)
    Xc = X - mean
    y = train.labels.astype(np.float64)
    w = np.linalg.solve(Xc.T @ Xc + alpha * np.eye(X.shape[1]), Xc.T @ (y - y.mean()))
    return (test.X.astype(np.float64) - mean) @ w


def wrong_length(train, vali, test, random_state=0, n_threads=1):
    return np.zeros(test.n_docs - 1)


def not_finite(train, vali, test, random_state=0, n_threads=1):
    scores = np.zeros(test.n_docs)
    scores[3] = np.nan
    return scores
