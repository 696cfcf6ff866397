"""The experimental setup of Sawade et al. (2013), §5: one partition trains, the others form the pool.

Partitions are the test splits of the LETOR five-fold layout (Fold1's test split is S5,
Fold2's S1, ...): disjoint and together the whole data set.  The pool is the
concatenation of the other partitions in fold order, with p(x) = 1/m over its queries.
"""

from __future__ import annotations

import numpy as np

from ..data.cache import load_cache
from ..data.ranking_data import RankingData


def concatenate(parts: list[RankingData], source: str = "") -> RankingData:
    """One RankingData holding the queries of ``parts`` in order."""
    sizes = np.concatenate([np.diff(p.query_offsets) for p in parts])
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return RankingData(
        X=np.ascontiguousarray(np.concatenate([p.X for p in parts])),
        labels=np.concatenate([p.labels for p in parts]),
        query_offsets=offsets,
        qids=np.concatenate([p.qids for p in parts]),
        line_numbers=np.concatenate([p.line_numbers for p in parts]),
        source=source,
    )


def load_partition_and_pool(partition_files: dict, partition: str) -> tuple[RankingData, RankingData]:
    """(training partition, pool of the other partitions) from ``{fold: parsed test.npz}``."""
    if partition not in partition_files:
        raise ValueError(f"unknown partition {partition!r}; known: {sorted(partition_files)}")
    train = load_cache(partition_files[partition])
    pool = concatenate([load_cache(path) for fold, path in partition_files.items() if fold != partition],
                       source=f"pool without {partition}")
    return train, pool


def split_queries(data: RankingData, fraction: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A random share ``fraction`` of the queries (sorted) and the rest (sorted)."""
    order = rng.permutation(data.n_queries)
    n_first = max(1, min(data.n_queries - 1, int(round(fraction * data.n_queries))))
    return np.sort(order[:n_first]), np.sort(order[n_first:])
