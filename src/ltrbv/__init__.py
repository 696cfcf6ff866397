"""ltrbv: bias and variance of learning-to-rank algorithms.

The notebook API, on numpy arrays, without the workflow (imported on first use, so ``import ltrbv``
stays cheap)::

    import ltrbv
    data = ltrbv.ranking_data(qid, labels)                     # documents of a query contiguous
    ltrbv.evaluate(scores, data.labels, data.query_offsets, ["ndcg@10", "map"])  # per query (standard)
    ltrbv.evaluate(scores, data.labels, data.query_offsets, ["nDCG@10", "AP"], convention="trec_eval")
    ltrbv.decompose(data, model_scores, "bootstrap", metrics=["ndcg"]).summary  # Ibrahim 2021
    ltrbv.compare_scores(data, {"a": scores_a, "b": scores_b}).table           # paired tests

``read_letor(path)`` reads a LETOR/SVMlight file into the same ``RankingData``.  More, with the scikit-learn
estimators: docs/api.md.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "RankingData": "ltrbv.data.ranking_data",
    "ranking_data": "ltrbv.data.from_arrays",
    "read_letor": "ltrbv.data.letor",
    "evaluate": "ltrbv.metrics",
    "canonical_metric": "ltrbv.metrics",
    "get_convention": "ltrbv.metrics",
    "decompose": "ltrbv.biasvar.decomposition",
    "compare_scores": "ltrbv.compare",
    "compare_per_query": "ltrbv.compare",
    "Comparison": "ltrbv.compare",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str):
    if name == "__version__":  # from git (setuptools-scm's scheme), read when asked: ltrbv.provenance
        from .provenance import code_revision

        return code_revision().version
    if name not in _EXPORTS:
        raise AttributeError(f"module 'ltrbv' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
