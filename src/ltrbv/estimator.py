"""The scikit-learn estimator API of the built-in learners (the forest's and the learners' own), beside their
RankingData API.

A learner is a dataclass whose ``__init__`` stores its parameters unchanged; its ``_parameter_constraints``
table declares each parameter's allowed values (:mod:`ltrbv.checks`), and ``_validate_params()`` refuses a bad
value by that table and then by the class's ``_check_together()`` (rules over several parameters), called by
``fit`` and by the workflow's config check before any job.  The config schema's ``learners.<name>.params`` branch
of each kind is generated from the same table (:meth:`RankerAPI.params_schema`).
:class:`RankerAPI` adds what scikit-learn's tools need, without importing scikit-learn (a training job
does not pay for it):

* ``get_params`` / ``set_params`` (so ``sklearn.base.clone``, ``GridSearchCV`` and pipelines work);
* ``fit(X, y, qid=...)``: ``qid`` is required, as XGBoost's ``XGBRanker`` and LightGBM's ``LGBMRanker``
  require their groups: a ranker learns within queries, and rows without them have no ranking to learn.
  The rows of a query must be contiguous (``GroupKFold`` keeps the row order, so its folds are);
* ``predict(X)``: one score per row; ``n_features_in_`` is checked as scikit-learn checks it;
* with ``sklearn.set_config(enable_metadata_routing=True)``, ``fit`` requests ``qid``, so that ``GridSearchCV`` and
  ``cross_validate`` pass each fold its rows' query ids (and a scorer that requests ``qid`` gets them too: see
  ``examples/grid_search_groupkfold.py``).  Without routing, ``GridSearchCV(...).fit(X, y, qid=qid)`` passes them
  to ``fit`` alone.

The RankingData forms ``fit(train, valid)`` and ``predict(data)`` are unchanged.
"""

from __future__ import annotations

import dataclasses
import sys
from numbers import Integral
from typing import ClassVar

import numpy as np

from .checks import Interval, params_schema, validate_params
from .data.ranking_data import RankingData

#: the parameters every built-in learner takes from the workflow (the job's derived seed and threads), not from
#: the config; a class may narrow them in its own constraint table (the Ranking SVM's seed is liblinear's 32-bit)
RUN_PARAMETERS = {"random_state": [Interval(Integral, 0, None, closed="left")],
                  "n_threads": [Interval(Integral, 1, None, closed="left")]}


class NotFittedError(ValueError, AttributeError):
    """``predict`` before ``fit`` (the bases of scikit-learn's own NotFittedError)."""


def _arrays(X, y, qid, source: str) -> RankingData:
    """RankingData from ``fit``'s arrays, refused with the messages scikit-learn's tools look for."""
    from .data.from_arrays import ranking_data

    if y is None:
        raise ValueError(f"this ranker requires y to be passed, but the target y is None ({source}: the relevance "
                         "label of every row)")
    if qid is None:
        raise ValueError(f"{source}: qid is required, the query id of every row (a ranker learns within queries; "
                         "its rows must be contiguous, as GroupKFold keeps them)")
    X = _matrix(X)
    if X.shape[1] == 0:
        raise ValueError(f"0 feature(s) (shape={X.shape}) while a minimum of 1 is required.")
    y = np.asarray(y)
    if y.dtype.kind not in "iubf":
        raise ValueError(f"Unknown label type: y must hold integer relevance labels, got dtype {y.dtype}")
    return ranking_data(qid, y, X, source=source)


def _is_sparse(X) -> bool:
    """scipy's ``issparse`` without importing scipy: a sparse matrix or array was made by scipy.sparse, which is
    then imported already (importing it costs ~0.15 CPU-s of every job's start-up, most jobs never need it)."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(X)


def _matrix(X) -> np.ndarray:
    """``X`` as a 2-D float32 array (what RankingData holds): no sparse, complex or 1-D input."""
    if _is_sparse(X):
        raise TypeError("sparse input is not supported: pass a dense array (X.toarray())")
    X = np.asarray(X)
    if np.iscomplexobj(X):
        raise ValueError("Complex data not supported")
    if X.ndim != 2:
        raise ValueError(f"X: expected a 2-D array (one row per document), got shape {X.shape}. Reshape your data "
                         "with X.reshape(-1, 1) for one feature or X.reshape(1, -1) for one row.")
    return X.astype(np.float32)


def training_data(X, y=None, qid=None, valid=None) -> tuple[RankingData, RankingData | None]:
    """``(train, valid)`` from either form of ``fit``: ``fit(train, valid)`` with RankingData (``valid`` may come
    second, as before), or ``fit(X, y, qid=...)`` with arrays (``valid`` a RankingData or ``(X, y, qid)``)."""
    if isinstance(X, RankingData):
        if qid is not None or not (y is None or isinstance(y, RankingData)):
            raise TypeError("fit(train, valid) takes RankingData; arrays are fit(X, y, qid=...)")
        if y is not None and valid is not None:
            raise TypeError("the validation set is given twice")
        return X, y if y is not None else valid
    if valid is not None and not isinstance(valid, RankingData):
        valid = _arrays(valid[0], valid[1], valid[2], "valid")
    return _arrays(X, y, qid, "fit"), valid


class RankerAPI:
    """get_params / set_params / n_features_in_ and scikit-learn's tags for a learner dataclass, and the check of
    its parameters by its ``_parameter_constraints`` table (name -> constraints, every field but the
    :data:`RUN_PARAMETERS`) and its ``_check_together`` hook."""

    _parameter_constraints: ClassVar[dict] = {}
    #: a sentence per parameter for the config schema's description (optional)
    _parameter_notes: ClassVar[dict] = {}

    @classmethod
    def _constraints(cls) -> dict:
        """The whole table: the run parameters, then the class's own (which may narrow them)."""
        return {**RUN_PARAMETERS, **cls._parameter_constraints}

    def _validate_params(self) -> None:
        """Refuse a bad parameter, naming it (ltrbv.checks.ParameterError, a ValueError): each by the table, then
        the rules over several (called by fit; __init__ stores the parameters unchanged)."""
        validate_params(self._constraints(), self.get_params())
        self._check_together()

    def _check_together(self) -> None:
        """Rules over several parameters (a class's own; each single value has passed its constraints)."""

    @classmethod
    def params_schema(cls) -> dict:
        """The JSON schema of a config entry's ``params`` (every parameter but the run parameters)."""
        table = {name: c for name, c in cls._parameter_constraints.items() if name not in RUN_PARAMETERS}
        defaults = {f.name: f.default for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING}
        return params_schema(table, defaults, cls._parameter_notes)

    def get_params(self, deep: bool = True) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}

    def set_params(self, **params):
        valid = self.get_params()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"Invalid parameter {name!r} for estimator {type(self).__name__}. "
                                 f"Valid parameters are: {sorted(valid)!r}.")
            setattr(self, name, value)
        return self

    def get_metadata_routing(self):
        """With scikit-learn's metadata routing on, ``fit`` asks for ``qid`` (GridSearchCV passes each fold's)."""
        from sklearn.utils.metadata_routing import MetadataRequest

        request = MetadataRequest(owner=self)
        request.fit.add_request(param="qid", alias=True)
        return request

    def __sklearn_tags__(self):
        from sklearn.base import BaseEstimator

        tags = BaseEstimator.__sklearn_tags__(self)
        tags.target_tags.required = True
        tags.target_tags.one_d_labels = True
        return tags

    def _fitted(self, attribute: str) -> None:
        if not hasattr(self, attribute):
            try:  # scikit-learn's own class where it is installed (its tools catch that one)
                from sklearn.exceptions import NotFittedError as error_class
            except ImportError:
                error_class = NotFittedError
            raise error_class(f"This {type(self).__name__} instance is not fitted yet; call fit first.")

    def _features_of(self, data) -> np.ndarray:
        """The feature matrix of ``data`` (RankingData or a 2-D array), checked against ``n_features_in_``."""
        X = data.X if isinstance(data, RankingData) else _matrix(data)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input.")
        if not np.all(np.isfinite(X)):
            raise ValueError("X contains NaN or infinite values")
        return X
