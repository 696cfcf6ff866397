"""The config's metric names in their canonical spelling (``nDCG@10`` -> ``ndcg@10``, ``P_10`` -> ``p@10``,
``AP`` -> ``map``; :func:`ltrbv.metrics.canonical_metric`), so that every output and every comparison of
names inside the workflow sees one spelling.  The schemas accept the spellings; this runs after them."""

from __future__ import annotations

from ..metrics import canonical_metric

# where a config holds metric names: a list, or one name
METRIC_KEYS = (
    ("metrics",),
    ("figures", "metric"),
    ("bagging", "bag_size", "metric"),
    ("biasvar", "metrics"),
    ("biasvar", "zhang", "metrics"),
    ("biasvar", "significance", "metrics"),
)


def canonical_config_metrics(config: dict) -> dict:
    """Rewrite every metric name of ``config`` (in place) to its canonical spelling, duplicates dropped;
    returns ``config``.  An unknown name raises ValueError naming the key."""
    for keys in METRIC_KEYS:
        parent = config
        for key in keys[:-1]:
            parent = parent.get(key) if isinstance(parent, dict) else None
        if not isinstance(parent, dict) or keys[-1] not in parent:
            continue
        value = parent[keys[-1]]
        try:
            if isinstance(value, str):
                parent[keys[-1]] = canonical_metric(value)
            elif isinstance(value, list):
                parent[keys[-1]] = list(dict.fromkeys(canonical_metric(name) for name in value))
        except ValueError as error:
            raise ValueError(f"{'.'.join(keys)}: {error}") from None
    return config
