"""BL-MART as a learner: a bag of sub-models of a built-in learner (Ganjisaffar, Caruana & Lopes 2011, §3.5).

A config entry of kind ``bag`` names its ``base`` learner; :func:`ltrbv.sections.core.grid.bag_spec` resolves it
(the schema fills the defaults: 67% of the queries per sub-model, min-max combination).  :class:`Bag` fits one
sub-model (:meth:`Bag.fit_submodel`, one job each in the core run, rules/core.smk) or all of them
in turn and combines them (:meth:`Bag.fit_predict`, the bias-variance study).  Both use one seed
scheme: sub-model ``k`` of a run whose seed keys are ``keys`` (the config seed first, then e.g.
dataset, fold, learner, replicate) trains with ``derive_seed(*keys, "sub", k)`` on the queries drawn
with ``derive_seed(*keys, "sub", k, "queries")``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .bagging import combine, sample_queries
from ..seeding import derive_seed
from .training_sets import require_relevant

#: config ``kind`` of a bagged learner
BAG_KIND = "bag"


def submodel_seeds(keys, k: int) -> tuple[int, int]:
    """(random_state, query-sample seed) of sub-model ``k`` of the run with seed keys ``keys``."""
    return derive_seed(*keys, "sub", int(k)), derive_seed(*keys, "sub", int(k), "queries")


@dataclass
class Bag:
    """A bag of ``n_models`` sub-models of kind ``kind`` with ``params``, each on ``sample_fraction`` of the queries."""

    kind: str
    params: dict
    n_models: int = 5
    sample_fraction: float = 0.67
    combine: str = "minmax"
    name: str = "bag"
    base: str | None = None
    fit_info_: dict = field(default_factory=dict, init=False, repr=False)

    @classmethod
    def from_spec(cls, spec: dict) -> Bag:
        return cls(kind=spec["kind"], params=dict(spec["params"]), n_models=int(spec["n_models"]),
                   sample_fraction=float(spec["sample_fraction"]), combine=spec["combine"], name=spec["name"],
                   base=spec.get("base"))

    def submodel_queries(self, queries: np.ndarray, keys, k: int) -> np.ndarray:
        """The query numbers (of ``queries``) sub-model ``k`` trains on."""
        _, sample_seed = submodel_seeds(keys, k)
        return queries[sample_queries(queries.size, self.sample_fraction, sample_seed)]

    def fit_submodel(self, k: int, train, vali, targets, keys, queries: np.ndarray | None = None, n_threads: int = 1,
                     progress=None):
        """Fit sub-model ``k`` on its sample of ``queries`` (default: all of ``train``'s); its scores of ``targets``.

        Returns ``(scores, learner, chosen_queries)``.
        """
        from . import make_learner

        queries = np.arange(train.n_queries) if queries is None else np.asarray(queries, dtype=np.int64)
        chosen = self.submodel_queries(queries, keys, k)
        random_state, _ = submodel_seeds(keys, k)
        sample = train.subset_queries(chosen)
        require_relevant(sample, f"bag {self.name!r}, sub-model {k}: its sample of {chosen.size} of {queries.size} "
                                 f"training queries of {train.source} (the sub-sample is refused, not redrawn)")
        learner = make_learner(self.kind, self.params, random_state=random_state, n_threads=n_threads)
        kwargs = {"progress": progress} if progress is not None else {}
        scores = learner.fit_predict(sample, vali, tuple(targets), **kwargs)
        return scores, learner, chosen

    def combine_scores(self, matrix, query_offsets) -> np.ndarray:
        """The bag's scores of one target from its sub-models' (one row each), per query (§3.5.1)."""
        return combine(np.asarray(matrix), query_offsets, self.combine)

    def fit_predict(self, train, vali, targets, keys, n_threads: int = 1, progress=None):
        """Fit every sub-model on ``train`` and return the combined scores of each target."""
        targets = tuple(targets)
        per_target = [[] for _ in targets]
        for k in range(self.n_models):
            scores, _, _ = self.fit_submodel(k, train, vali, targets, keys, n_threads=n_threads)
            for rows, row in zip(per_target, scores):
                rows.append(row)
            if progress is not None:
                progress(1)
        return [self.combine_scores(rows, target.query_offsets) for rows, target in zip(per_target, targets)]
