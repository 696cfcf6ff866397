"""Linear Ranking SVM (``kind: ranking-svm``): pairwise hinge loss on within-query document pairs.

The Ranking SVM of Herbrich et al. (2000) and Joachims (2002), the pairwise learner Sawade et al.
compare with the ordered logit (Fig. 3, middle row).  For every training query, each pair of
documents ``(i, j)`` with ``label_i > label_j`` gives one constraint ``w . (x_i - x_j) >= 1 - xi_ij``;
the learner solves

    min_w  1/2 ||w||^2  +  C * sum over pairs of  max(0, 1 - w . (x_i - x_j))

(no bias: it cancels in a difference) with scikit-learn's ``LinearSVC(fit_intercept=False)``
(liblinear) on the pair differences, and scores a document by ``w . x``.

Choices, and why:

* **Loss.** ``loss="hinge"`` (the default) is the L1-slack problem above: the formulation of
  Herbrich et al. and Joachims, of SVM-light's ``-z p`` and of SVMrank's default ``-p 1``, i.e. of
  the LETOR "RankSVM" baselines.  liblinear solves it in the dual (coordinate descent).
  ``loss="squared_hinge"`` (L2 slacks, liblinear's primal Newton solver) is offered as an option; it
  is a different model, not a faster route to the same one.
* **C's scale** is liblinear's and SVM-light's: ``C`` multiplies the *sum* of the pair losses, so
  the same ``C`` regularises less on a training set with more pairs.
* **Balanced classes.**  All pairs point "more relevant minus less relevant" with target +1;
  liblinear needs two classes, so every second pair is given as ``(x_j - x_i, -1)``.  Without a
  bias ``y * w . d`` is unchanged by that flip, so the problem solved is exactly the one above
  (mirroring every pair instead would double each loss, i.e. double ``C``).
* **Standardised features.**  Each feature is centred and scaled by its mean and standard
  deviation on the training set (constant features keep scale 1); ``coef_`` are the weights on the
  standardised features, ``predict`` applies the same transform (``raw_coef_`` are the weights on
  the raw features; the centring only shifts every score by one constant).
* **Pair cap.**  A query of ``n`` documents has up to ``n^2/4`` pairs (MSLR queries: 10^4-10^5).
  ``max_pairs_per_query`` (default 1000; ``None`` keeps all) caps each query's pairs by a uniform
  sample without replacement from all of its pairs, drawn by a generator seeded from
  ``(random_state, query number)``, so the sample is reproducible and one query's sample does not
  depend on the others.  On MQ2008 Fold1 the default cap touches 9 of the 471 training queries.
  Memory: the pair matrix is ``n_pairs x n_features`` float64.
* **C on validation.**  ``C`` is a number or a list.  With a list and a validation set, a model is
  fitted for each ``C`` and the one with the highest mean validation ``eval_metric`` (NDCG@10 by
  :func:`ltrbv.metrics.evaluate` under ``eval_convention``, default ``letor4``, what the workflow
  reports) is kept; a tie goes to the smaller ``C``.  The model is not refitted on train +
  validation.  The chosen value is ``C_`` and ``fit_info_["C"]``, the whole curve
  ``fit_info_["validation"]`` (the workflow writes ``fit_info_`` into each model's ``.meta.json``).
  A list without a validation set is refused at fit time.
* **Determinism.**  liblinear is single-threaded and its dual coordinate descent shuffles with the
  seed given (``random_state``), so the same seed gives bit-identical predictions; ``n_threads``
  is accepted for the common learner interface and unused.
"""

from __future__ import annotations

import importlib.util
import warnings
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from ..checks import Interval, ListOf, StrOptions
from ..data.ranking_data import RankingData
from ..estimator import RankerAPI, training_data
from ._validation_metric import EVAL_CONVENTION, check_validation_metric


def require_scikit_learn() -> None:
    """Refuse the learner where scikit-learn is not installed (it is the ``svm`` extra, not the workflow's):
    when the config is checked, before any job, rather than in the job that fits it."""
    if importlib.util.find_spec("sklearn") is None:
        raise ValueError("the Ranking SVM needs scikit-learn, which is not installed: "
                         "pip install -c constraints.txt -e '.[workflow,svm]' (or pip install 'ltrbv[svm]')")

LOSSES = ("hinge", "squared_hinge")
_PAIR_SEED_TAG = 0x52534D  # "RSM": keeps the pair samples apart from other uses of random_state


def _c_values(C) -> tuple[float, ...]:
    """``C`` (checked: a positive number or a list of distinct ones) as a tuple of floats."""
    return tuple(float(v) for v in (C if isinstance(C, (list, tuple)) else (C,)))


@dataclass
class RankingSVM(RankerAPI):
    """Linear Ranking SVM with a fit/predict estimator API (see the module docstring)."""

    C: float | list = (0.0001, 0.001, 0.01, 0.1)
    loss: str = "hinge"
    max_pairs_per_query: int | None = 1000
    tol: float = 1e-4
    max_iter: int = 100_000
    eval_metric: str = "ndcg@10"
    eval_convention: str = "letor4"
    random_state: int = 0
    n_threads: int = 1

    _parameter_constraints = {
        "C": [Interval(Real, 0, None, closed="neither"), ListOf(Interval(Real, 0, None, closed="neither"))],
        "loss": [StrOptions(LOSSES)],
        "max_pairs_per_query": [Interval(Integral, 1, None, closed="left"), None],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "eval_metric": [str],
        "eval_convention": [EVAL_CONVENTION],
        "random_state": [Interval(Integral, 0, 2**32 - 1, closed="both")],  # liblinear's seed
    }
    _parameter_notes = {
        "C": "liblinear's C (it multiplies the sum of the pair losses); a list: each is fitted and the best on the "
             "validation set kept",
        "loss": "hinge: the L1-slack Ranking SVM (SVMrank's default); squared_hinge: L2 slacks",
        "max_pairs_per_query": "a uniform sample of each query's pairs, seeded per query; null: all pairs",
        "tol": "liblinear's stopping tolerance",
        "max_iter": "liblinear's iteration cap",
        "eval_metric": "this package's metric name, to choose C on the validation set",
        "eval_convention": "the convention of eval_metric (the dataset's own)",
    }

    def _check_together(self) -> None:
        """scikit-learn is installed (liblinear); eval_metric is a metric of eval_convention."""
        require_scikit_learn()
        check_validation_metric(self.eval_metric, self.eval_convention)

    # -- pairs -----------------------------------------------------------------
    def query_pairs(self, labels: np.ndarray, query: int) -> tuple[np.ndarray, np.ndarray]:
        """Rows ``(i, j)`` (within the query) of its pairs with ``labels[i] > labels[j]``, capped.

        All pairs in row-major order when there are at most ``max_pairs_per_query``; otherwise a
        uniform sample of that many without replacement (in the same order), seeded by
        ``(random_state, query)``.
        """
        labels = np.asarray(labels, dtype=np.int64)
        better, worse = np.nonzero(labels[:, None] > labels[None, :])
        cap = self.max_pairs_per_query
        if cap is not None and better.size > cap:
            rng = np.random.default_rng(np.random.SeedSequence([int(self.random_state), _PAIR_SEED_TAG, int(query)]))
            keep = np.sort(rng.choice(better.size, size=cap, replace=False))
            better, worse = better[keep], worse[keep]
        return better, worse

    def pair_differences(self, data: RankingData, Z: np.ndarray) -> tuple[np.ndarray, dict]:
        """``Z[i] - Z[j]`` for every (capped) pair of every query, stacked, and pair counts."""
        offsets = data.query_offsets
        blocks, capped, all_pairs = [], 0, 0
        for q in range(data.n_queries):
            start, end = int(offsets[q]), int(offsets[q + 1])
            labels = data.labels[start:end]
            n_all = int(np.count_nonzero(labels[:, None] > labels[None, :]))
            all_pairs += n_all
            if n_all == 0:
                continue
            better, worse = self.query_pairs(labels, q)
            capped += better.size < n_all
            blocks.append(Z[start + better] - Z[start + worse])
        if not blocks:
            raise ValueError("the training set has no pair of documents with different labels in one query; "
                             "a Ranking SVM has nothing to learn from")
        D = np.vstack(blocks)
        counts = {"pairs_used": int(D.shape[0]), "pairs_available": all_pairs, "queries_capped": int(capped),
                  "queries_with_pairs": len(blocks)}
        return D, counts

    # -- fitting ---------------------------------------------------------------
    def _standardise(self, X: np.ndarray) -> np.ndarray:
        return (np.asarray(X, dtype=np.float64) - self.mean_) / self.scale_

    def _fit_one(self, D: np.ndarray, y: np.ndarray, weight: np.ndarray | None, C: float):
        try:
            from sklearn.exceptions import ConvergenceWarning
            from sklearn.svm import LinearSVC
        except ImportError as error:  # pragma: no cover - scikit-learn ships with the test extra
            raise ImportError("kind ranking-svm needs scikit-learn (pip install scikit-learn)") from error

        model = LinearSVC(C=C, loss=self.loss, dual=self.loss == "hinge", fit_intercept=False, tol=self.tol,
                          max_iter=self.max_iter, random_state=int(self.random_state))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            model.fit(D, y, sample_weight=weight)
        converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
        return model.coef_.ravel().astype(np.float64), int(np.max(model.n_iter_)), converged

    def fit(self, X, y=None, qid=None, valid=None, progress=None) -> RankingSVM:
        """Fit on ``train`` (RankingData; C chosen on ``valid``), or scikit-learn's way on arrays:
        ``fit(X, y, qid=...)`` (``valid`` then a RankingData or ``(X, y, qid)``)."""
        from ..metrics import evaluate

        train, valid = training_data(X, y, qid, valid)
        self._validate_params()
        c_values = _c_values(self.C)
        if len(c_values) > 1 and valid is None:
            raise ValueError(f"C is a list {list(c_values)}: choosing among them needs a validation set")
        X = np.asarray(train.X, dtype=np.float64)
        self.mean_ = X.mean(axis=0)
        scale = X.std(axis=0)
        self.scale_ = np.where(scale > 0, scale, 1.0)
        D, counts = self.pair_differences(train, self._standardise(X))
        y = np.ones(D.shape[0])
        y[1::2] = -1.0
        D[1::2] *= -1.0
        weight = None
        if D.shape[0] == 1:  # liblinear needs both classes: give the one pair both ways at half weight
            D, y, weight = np.vstack([D, -D]), np.array([1.0, -1.0]), np.array([0.5, 0.5])
        Z_valid = None if valid is None else self._standardise(valid.X)
        fits, curve = [], {}
        for C in c_values:
            coef, n_iter, converged = self._fit_one(D, y, weight, C)
            value = None
            if Z_valid is not None:
                scores = Z_valid @ coef
                value = float(np.mean(evaluate(scores, valid.labels, valid.query_offsets, (self.eval_metric,),
                                               convention=self.eval_convention)[self.eval_metric]))
                curve[C] = value
            fits.append({"C": C, "coef": coef, "n_iter": n_iter, "converged": converged, "valid": value})
            if progress is not None:
                progress(1)
        if valid is None:
            best = fits[0]
        else:  # highest validation value; a tie goes to the smaller C
            best = max(fits, key=lambda f: (f["valid"], -f["C"]))
        self.n_features_in_ = train.n_features
        self.coef_ = best["coef"]
        self.raw_coef_ = self.coef_ / self.scale_
        self.C_ = best["C"]
        self.fit_info_ = {
            "C": self.C_,
            "C_grid": list(c_values),
            "loss": self.loss,
            "eval_metric": self.eval_metric,
            "eval_convention": self.eval_convention,
            "validation": {repr(C): value for C, value in curve.items()},
            "n_iter": {repr(f["C"]): f["n_iter"] for f in fits},
            "converged": {repr(f["C"]): f["converged"] for f in fits},
            **counts,
        }
        if not best["converged"]:
            warnings.warn(f"RankingSVM: liblinear did not converge for the chosen C = {self.C_} within "
                          f"max_iter = {self.max_iter} iterations", RuntimeWarning, stacklevel=2)
        return self

    def fit_predict(self, train: RankingData, valid: RankingData | None, targets, progress=None) -> list:
        """The workflow's learner protocol: fit (C chosen on ``valid``) and score each of ``targets``."""
        self.fit(train, valid, progress=progress)
        return [self.predict(data) for data in targets]

    def decision_values(self, X: np.ndarray) -> np.ndarray:
        """``w . standardise(x)`` for the rows of ``X``."""
        return self._standardise(X) @ self.coef_

    def predict(self, X) -> np.ndarray:
        """``w . standardise(x)`` for RankingData or the rows of an array."""
        self._fitted("coef_")
        return self.decision_values(self._features_of(X))
