"""Hashes of what must be the same bits on every CPU, printed as JSON (run by tests/test_determinism.py in a
subprocess per numpy SIMD setting and numba target CPU, as both are read once at import).

* the synthetic generator's output (X, labels, query sizes, latent relevance) for the demo's spec, the
  default spec and the MSLR-shaped preset at 60 queries (raw style: ranks, magnitudes, integer columns),
  and the LETOR text of the demo's Fold1 training split;
* :mod:`ltrbv.exact_math`'s log, exp and normal quantile on a million arguments each (the generator's
  last bits; most of them are rounded or ranked away before they reach a feature value);
* the ranking tables (metric discounts and gains, RF-list's NDCG discounts, the ERR criterion's tables, the
  active estimators' discounts) and the entropy criterion's k log k, which every metric and split reads;
* the predictions of small forests (RF-point, RF-list with NDCG, rank-power NDCG and ERR, RF-hybrid, RF-rand)
  trained on the MSLR-shaped data;
* which numpy SIMD features are in use and numba's target CPU, so the test can tell that a setting took.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from ltrbv import exact_math
from ltrbv.data.ranking_data import RankingData
from ltrbv.data.synthetic import MSLR_SHAPED, SyntheticSpec, generate_queries, write_letor_split
from ltrbv.forest import RankingForest

DEMO = SyntheticSpec(n_queries=400, docs_per_query=30, n_features=46, n_informative=16, n_query_level=4,
                     max_label=2, label_probs=(0.8, 0.13, 0.07), style="letor", seed=7)  # config/demo.yaml
SPECS = {"demo": DEMO, "default": SyntheticSpec(), "mslr60": dataclasses.replace(MSLR_SHAPED, n_queries=60)}
FORESTS = {
    "point": dict(splitting="point"),
    "list": dict(splitting="list"),
    "hybrid": dict(splitting="hybrid", listwise_levels=3),
    "rand": dict(splitting="rand"),
    "list-err": dict(splitting="list", listwise_objective="err"),
    "list-rank-power": dict(splitting="list", discount="rank-power", discount_power=1.5),
}


def digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def generator_hashes() -> dict:
    out = {}
    for name, spec in SPECS.items():
        q = generate_queries(spec)
        out[name] = {"X": digest(q.X), "labels": digest(q.labels), "query_sizes": digest(q.query_sizes),
                     "latent": digest(q.latent_relevance)}
    with tempfile.TemporaryDirectory() as folder:
        path = write_letor_split(Path(folder) / "train.txt", DEMO, 1, "train")
        out["demo"]["Fold1/train.txt"] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return out


def exact_math_hashes() -> dict:
    rng = np.random.default_rng(28)
    u = (rng.integers(0, 1 << 52, size=1_000_000) + 0.5) / float(1 << 52)
    x = (u - 0.5) * 60.0
    return {"log": digest(exact_math.log(u * 1e3)), "exp": digest(exact_math.exp(x)),
            "normal_quantile": digest(exact_math.normal_quantile(u))}


def forest_hashes() -> dict:
    q = generate_queries(SPECS["mslr60"])
    offsets = np.concatenate(([0], np.cumsum(q.query_sizes))).astype(np.int64)
    data = RankingData(X=q.X, labels=q.labels, query_offsets=offsets, qids=np.arange(q.query_sizes.size).astype(str),
                       line_numbers=np.arange(1, offsets[-1] + 1))
    return {name: digest(RankingForest(random_state=0, n_estimators=3, subsample=0.63, **params).fit(data).predict(data))
            for name, params in FORESTS.items()}


def table_hashes() -> dict:
    """The ranking tables every metric and listwise split reads (discounts, the ERR criterion's powers): numpy's
    AVX-512 log2/log/power differ from the C library's in the last bit, so they come from ltrbv.rounded."""
    from ltrbv.active.moments import dcg_discount
    from ltrbv.forest import _entropy, _err, _ndcg
    from ltrbv.metrics.measures import gains
    from ltrbv.metrics.ranking import discount_table

    q = generate_queries(SPECS["mslr60"])
    offsets = np.concatenate(([0], np.cumsum(q.query_sizes))).astype(np.int64)
    data = RankingData(X=q.X, labels=q.labels, query_offsets=offsets, qids=np.arange(q.query_sizes.size).astype(str),
                       line_numbers=np.arange(1, offsets[-1] + 1))
    err = _err.prepare(data, data.labels, data.n_queries)
    return {"metrics": digest(discount_table("log2(r+1)", 5000), discount_table("letor4", 5000), gains(np.arange(6))),
            "forest_ndcg": digest(*(_ndcg.cumulative_discounts(3000, name, 1.5) for name in
                                    ("log2", "log-power", "rank-power"))),
            "forest_err": digest(*err.tables), "active": digest(dcg_discount(np.arange(3000))),
            "entropy": digest(_entropy.xlogx_table(500_000))}


def setting() -> dict:
    """The numpy SIMD features in use and numba's code generation target (triple, CPU, features)."""
    import numba  # noqa: F401 (imported by the forest already)
    from numba.core.registry import cpu_target

    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    return {"numpy_simd": sorted(f for f in __cpu_dispatch__ if __cpu_features__.get(f)),
            "numba_target": list(cpu_target.target_context.codegen().magic_tuple())}


if __name__ == "__main__":
    json.dump({"generator": generator_hashes(), "exact_math": exact_math_hashes(), "tables": table_hashes(),
               "forests": forest_hashes(), "setting": setting()}, sys.stdout)
