"""A learner given as a Python function (``kind: python``): ``callable: "my_module:fit_predict"``.

The function is called once per job as::

    scores = fit_predict(train, vali, test, random_state=..., n_threads=..., **options)

with ``train``, ``vali`` and ``test`` :class:`~ltrbv.data.ranking_data.RankingData` (``X`` float32
documents x features, ``labels``, ``query_offsets``: query q is rows ``query_offsets[q]:query_offsets[q+1]``).
``train`` is the training set the job wants the learner to see (for the bias-variance study, the replicate's
queries only); ``test`` holds every document to score.  It returns one finite score per row of ``test``,
in row order.  ``options`` (a mapping in the config entry) are passed as keyword arguments.  The module is
imported from the workflow's working directory or the installed packages.
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from ..data.ranking_data import RankingData, concatenate_queries, split_rows


def resolve(spec: str):
    """The function named by ``"package.module:function"``; ValueError naming what is missing."""
    if not isinstance(spec, str) or spec.count(":") != 1 or not all(spec.split(":")):
        raise ValueError(f"callable must be 'module:function', got {spec!r}")
    module_name, function_name = spec.split(":")
    cwd = os.getcwd()
    added = cwd not in sys.path
    if added:
        sys.path.append(cwd)  # the workflow's working directory, for the time of the import
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"callable {spec!r}: cannot import module {module_name!r} ({error})") from None
    finally:
        if added:
            sys.path.remove(cwd)
    function = getattr(module, function_name, None)
    if not callable(function):
        raise ValueError(f"callable {spec!r}: module {module_name!r} has no function {function_name!r}")
    return function


@dataclass
class PythonLearner:
    """Train and score with a Python function; see the module docstring for its signature."""

    callable: str
    options: dict = field(default_factory=dict)
    random_state: int = 0
    n_threads: int = 1
    fit_info_: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.options, dict):
            raise ValueError(f"options must be a mapping of keyword arguments, got {self.options!r}")
        resolve(self.callable)

    def fit_predict(self, train: RankingData, valid: RankingData | None, targets, progress=None) -> list[np.ndarray]:
        targets = tuple(targets)
        test = concatenate_queries(targets)
        function = resolve(self.callable)
        scores = function(train, valid, test, random_state=int(self.random_state), n_threads=int(self.n_threads),
                          **self.options)
        try:
            scores = np.asarray(scores, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError) as error:
            raise ValueError(f"callable {self.callable!r} returned something that is not an array of numbers "
                             f"({error})") from None
        if scores.size != test.n_docs:
            raise ValueError(f"callable {self.callable!r} returned {scores.size} scores for {test.n_docs} documents")
        if not np.all(np.isfinite(scores)):
            bad = int(np.flatnonzero(~np.isfinite(scores))[0])
            raise ValueError(f"callable {self.callable!r} returned a non-finite score (row {bad})")
        if progress is not None:
            progress(1)
        self.fit_info_ = {"callable": self.callable}
        return split_rows(scores, targets)
