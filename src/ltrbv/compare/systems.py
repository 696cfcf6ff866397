"""Compare two or more systems on the same queries: per-metric means with intervals and paired tests
against a baseline, corrected for the number of comparisons.

Two entry points, one computation:

* :func:`compare_per_query` takes per-query metric values ``{system: {metric: (n_queries,)}}``, however
  they were computed (score files on a LETOR file, a TREC qrels/run pair, a notebook);
* :func:`compare_scores` evaluates score arrays on a :class:`~ltrbv.data.ranking_data.RankingData`
  with :func:`ltrbv.metrics.evaluate` and passes the values on.

Per metric, the queries compared are those where every system's value is defined (not nan).  Every
system other than the baseline is compared with it (:func:`ltrbv.compare.paired.paired_comparison`);
the p-values of each test are corrected over the comparisons of one metric (the family: the systems
compared with the baseline on that metric), by Holm (default), Benjamini-Hochberg or not at all.
All bootstrap intervals of one metric come from the same resamples of its queries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..biasvar.uncertainty import query_bootstrap_interval, query_resample_counts
from ..metrics import canonical_metrics, evaluate
from ..seeding import derive_seed
from .corrections import adjust_p_values
from .paired import paired_comparison

TESTS = ("t", "randomisation")
COLUMNS = ["system", "metric", "n_queries", "mean", "ci_low", "ci_high", "baseline", "difference",
           "difference_ci_low", "difference_ci_high", "t", "p_t", "p_t_adjusted", "p_randomisation",
           "p_randomisation_adjusted", "cohens_d", "wins", "ties", "losses"]


@dataclass(frozen=True)
class Comparison:
    """The result of a comparison: ``table`` has one row per (system, metric) (the baseline's row has
    no comparison columns); ``per_query`` one row per query with a column per (system, metric)."""

    table: pd.DataFrame
    per_query: pd.DataFrame
    systems: tuple[str, ...]
    metrics: tuple[str, ...]
    baseline: str
    correction: str
    level: float
    n_resamples: int
    n_permutations: int
    convention: str | None = None
    notes: tuple[str, ...] = ()  # what each metric means (its gain) and how unretrieved documents count

    def to_dict(self) -> dict:
        """JSON-serialisable: the settings and one record per (system, metric); nan becomes None."""
        records = self.table.astype(object).where(self.table.notna(), None).to_dict(orient="records")
        notes = {"notes": list(self.notes)} if self.notes else {}
        return {"baseline": self.baseline, "correction": self.correction, "convention": self.convention, **notes,
                "ci_level": self.level, "ci_resamples": self.n_resamples, "permutations": self.n_permutations,
                "systems": list(self.systems), "metrics": list(self.metrics), "rows": records}

    def differences(self, system: str, metric: str) -> pd.Series:
        """Per-query ``system - baseline`` of one metric, indexed by qid, over the queries compared (those
        where every system's value is defined)."""
        values = self.per_query[[f"{name}:{metric}" for name in self.systems]].dropna()
        return (values[f"{system}:{metric}"] - values[f"{self.baseline}:{metric}"]).rename(f"{system} - {self.baseline}")


def _system_names(per_query: Mapping, baseline) -> tuple[list[str], str]:
    systems = [str(name) for name in per_query]
    if len(systems) < 2:
        raise ValueError(f"a comparison needs at least 2 systems, got {len(systems)}")
    if len(set(systems)) != len(systems):
        raise ValueError(f"system names must be unique, got {systems}")
    baseline = systems[0] if baseline is None else str(baseline)
    if baseline not in systems:
        raise ValueError(f"baseline {baseline!r} is not one of the systems {systems}")
    return systems, baseline


def _per_query_frame(per_query: Mapping, systems, metrics, qids) -> pd.DataFrame:
    columns = {}
    n_queries = None
    for system, values in zip(systems, per_query.values()):
        for metric in metrics:
            if metric not in values:
                raise ValueError(f"system {system!r} has no per-query values of {metric!r}")
            column = np.asarray(values[metric], dtype=np.float64)
            if column.ndim != 1 or (n_queries is not None and column.size != n_queries):
                raise ValueError(f"system {system!r}, {metric!r}: expected a 1-D array of {n_queries or 'n'} "
                                 f"per-query values, got shape {column.shape}")
            n_queries = column.size
            columns[f"{system}:{metric}"] = column
    index = pd.Index(np.arange(n_queries) if qids is None else np.asarray(qids), name="qid")
    if len(index) != n_queries:
        raise ValueError(f"qids has {len(index)} entries for {n_queries} queries")
    return pd.DataFrame(columns, index=index)


def compare_per_query(per_query: Mapping[str, Mapping[str, Sequence[float]]], qids=None, baseline=None,
                      correction: str = "holm", level: float = 0.95, n_resamples: int = 1000,
                      n_permutations: int = 10000, seed: int = 0, convention: str | None = None,
                      notes=()) -> Comparison:
    """Compare systems from their per-query metric values ``{system: {metric: values}}`` (same queries,
    same order, for every system; metric names as given, so any measure can be compared).  ``baseline``
    defaults to the first system."""
    systems, baseline = _system_names(per_query, baseline)
    metrics = list(dict.fromkeys(next(iter(per_query.values()))))
    frame = _per_query_frame(per_query, systems, metrics, qids)
    adjust_p_values([], correction)  # an unknown correction is refused before any work
    rows = []
    for metric in metrics:
        defined = frame[[f"{s}:{metric}" for s in systems]].notna().all(axis=1).to_numpy()
        n = int(defined.sum())
        if n < 2:
            raise ValueError(f"{metric}: fewer than 2 queries where every system's value is defined")
        counts = query_resample_counts(n, n_resamples, derive_seed(seed, "bootstrap", metric))
        base = frame.loc[defined, f"{baseline}:{metric}"].to_numpy()
        family = []
        for system in systems:
            values = frame.loc[defined, f"{system}:{metric}"].to_numpy()
            low, high = query_bootstrap_interval(values, counts=counts, level=level)
            row = {"system": system, "metric": metric, "n_queries": n, "mean": float(values.mean()),
                   "ci_low": low, "ci_high": high, "baseline": baseline}
            if system != baseline:
                row.update(paired_comparison(values, base, n_permutations, derive_seed(seed, system, metric),
                                             counts=counts, level=level))
                family.append(row)
            rows.append(row)
        for test in TESTS:
            adjusted = adjust_p_values([row[f"p_{test}"] for row in family], correction)
            for row, p in zip(family, adjusted):
                row[f"p_{test}_adjusted"] = float(p)
    table = pd.DataFrame(rows).reindex(columns=COLUMNS)
    for column in ("wins", "ties", "losses"):
        table[column] = table[column].astype("Int64")
    return Comparison(table=table, per_query=frame, systems=tuple(systems), metrics=tuple(metrics),
                      baseline=baseline, correction=correction, level=level, n_resamples=n_resamples,
                      n_permutations=n_permutations, convention=convention, notes=tuple(notes))


def compare_scores(data, scores: Mapping[str, np.ndarray] | Sequence[np.ndarray], metrics=("ndcg@10", "map"),
                   convention: str = "standard", ties: str | None = None, **options) -> Comparison:
    """Compare score arrays on one data set: ``data`` is a RankingData (or anything with ``labels``,
    ``query_offsets`` and ``qids``); ``scores`` maps system names to score arrays in ``data``'s row order
    (a list is named ``system1``, ``system2``, ...).  Metric names are normalised in the convention's
    namespace (``NDCG@10`` -> ``nDCG@10`` under trec_eval; ``nDCG@10`` is refused under an LTR convention); ``options`` go to :func:`compare_per_query`."""
    if not isinstance(scores, Mapping):
        scores = {f"system{i}": s for i, s in enumerate(scores, start=1)}
    metrics = canonical_metrics(metrics, convention)
    per_query = {name: evaluate(values, data.labels, data.query_offsets, metrics, convention=convention, ties=ties)
                 for name, values in scores.items()}
    return compare_per_query(per_query, qids=data.qids, convention=getattr(convention, "name", str(convention)),
                             **options)
