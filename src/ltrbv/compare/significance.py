"""Performance table with paired significance tests over test queries (Ibrahim & Carman 2016, Tables V, XV).

Every learner is compared with a baseline on the same test queries: per query, the metric averaged
over seeds; pairs are pooled across folds (``fold = all``) and taken per fold.  Each comparison is
:func:`ltrbv.compare.paired_comparison` (the code behind ``ltrbv compare``): the paired difference with
its bootstrap interval over queries, the two-sided paired t-test and paired randomisation (sign-flip)
test, Cohen's d and wins/ties/losses.  The p-values of each test are corrected (Holm by default,
Benjamini-Hochberg, or none: column ``correction``) over the family of comparisons of one metric on
one fold (every learner against the baseline, plus the extra ``pairs``).  Markers follow the papers
and use the *adjusted* p-values: ``*`` p < 0.05, ``**`` p < 0.01, ``†`` when the learner is
significantly *worse* than the baseline; the Markdown marks by the t-test and lists every p-value.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..biasvar import significance_marker
from . import adjust_p_values, paired_comparison
from .formats import CORRECTION_NAMES
from ..seeding import derive_seed
from ..tables import markdown_table

POOLED = "all"
COLUMNS = ["learner", "metric", "convention", "fold", "baseline", "n_queries", "mean", "std_over_folds", "baseline_mean",
           "difference", "t", "p_t", "p_randomisation", "mark_t", "mark_randomisation", "correction", "p_t_adjusted",
           "p_randomisation_adjusted", "difference_ci_low", "difference_ci_high", "cohens_d", "wins", "ties", "losses"]
PAIRED_COLUMNS = ("difference_ci_low", "difference_ci_high", "t", "p_t", "p_randomisation", "cohens_d", "wins", "ties",
                  "losses")


def per_query_means(per_query: pd.DataFrame, convention: str) -> pd.DataFrame:
    """(learner, metric) x (fold, qid) wide table of the per-query metric, averaged over seeds."""
    rows = per_query[per_query["convention"] == convention]
    if rows.empty:
        raise ValueError(f"no per-query rows for convention {convention!r}")
    return rows.groupby(["learner", "metric", "fold", "qid"], sort=False)["value"].mean().sort_index()


def significance_table(per_query: pd.DataFrame, learners: list[str], metrics: list[str], baseline: str,
                       convention: str, n_permutations: int, seed: int, pairs=(), correction: str = "holm") -> pd.DataFrame:
    """One row per (learner, baseline, metric, fold) with fold ``all`` the pooled test: means, differences,
    p-values and their adjusted values.  Every learner is compared with ``baseline``; each ``(learner, other)``
    of ``pairs`` adds that comparison too (e.g. RF-list against RF-point)."""
    adjust_p_values([], correction)  # an unknown correction is refused before any test
    values = per_query_means(per_query, convention)
    folds = list(dict.fromkeys(per_query["fold"]))
    comparisons = [(learner, baseline) for learner in learners] + [tuple(pair) for pair in pairs]
    out = []
    for metric in metrics:
        for name in {b for _, b in comparisons}:
            if (name, metric) not in values.index.droplevel(["fold", "qid"]):
                raise ValueError(f"no per-query values of the baseline {name!r} for {metric!r}")
        for learner, baseline in comparisons:
            base = values.loc[(baseline, metric)]
            system = values.loc[(learner, metric)]
            pairs = pd.concat([system.rename("system"), base.rename("baseline")], axis=1, join="inner").dropna()
            fold_means = pairs.groupby(level="fold", sort=False)["system"].mean().reindex(folds)
            for fold in [POOLED] + folds:
                sel = pairs if fold == POOLED else pairs.xs(fold, level="fold", drop_level=False)
                row = {"learner": learner, "metric": metric, "convention": convention, "fold": fold,
                       "baseline": baseline, "n_queries": len(sel),
                       "mean": float(sel["system"].mean()) if len(sel) else np.nan,
                       "std_over_folds": float(fold_means.std()) if fold == POOLED else np.nan,
                       "baseline_mean": float(sel["baseline"].mean()) if len(sel) else np.nan}
                row["difference"] = row["mean"] - row["baseline_mean"]
                row.update(dict.fromkeys(PAIRED_COLUMNS, np.nan))
                if learner != baseline and len(sel) >= 2:
                    compared = paired_comparison(sel["system"].to_numpy(), sel["baseline"].to_numpy(),
                                                 n_permutations, derive_seed(seed, learner, metric, fold))
                    row.update({key: value for key, value in compared.items() if key != "difference"})
                out.append(row)
    table = pd.DataFrame(out)
    if table.empty:
        return table
    for test in ("t", "randomisation"):
        table[f"p_{test}_adjusted"] = table.groupby(["metric", "fold"], sort=False)[f"p_{test}"].transform(
            lambda p: adjust_p_values(p.to_numpy(), correction))
    table["correction"] = correction
    for column in ("wins", "ties", "losses"):
        table[column] = table[column].astype("Int64")
    for test in ("t", "randomisation"):
        table[f"mark_{test}"] = [significance_marker(p, d) for p, d in
                                 zip(table[f"p_{test}_adjusted"], table["difference"])]
    return table[COLUMNS]


def significance_markdown(table: pd.DataFrame, dataset: str) -> str:
    """Learners x metrics, ``mean ± std over folds`` and the pooled t-test marker; then the p-values."""
    pooled = table[table["fold"] == POOLED]
    baseline = pooled["baseline"].iloc[0]
    convention = pooled["convention"].iloc[0]
    corrected = CORRECTION_NAMES[pooled["correction"].iloc[0]]
    family = pooled.groupby("metric")["p_t"].count().max()
    metrics = list(dict.fromkeys(pooled["metric"]))
    main = pooled[pooled["baseline"] == baseline]
    learners = list(dict.fromkeys(main["learner"]))
    cell = {(r.learner, r.metric): f"{r.mean:.4f} ± {r.std_over_folds:.4f}{r.mark_t}" for r in main.itertuples()}
    wide = pd.DataFrame([{"learner": learner, **{m: cell[(learner, m)] for m in metrics}} for learner in learners])
    pvalues = pooled[pooled["learner"] != pooled["baseline"]][["learner", "baseline", "metric", "difference", "p_t",
                                                                "p_t_adjusted", "p_randomisation",
                                                                "p_randomisation_adjusted", "cohens_d", "wins", "ties",
                                                                "losses", "mark_t", "mark_randomisation"]]
    per_fold = table[(table["fold"] != POOLED) & (table["learner"] != table["baseline"])]
    per_fold_marks = per_fold.pivot(index=["learner", "baseline", "metric"], columns="fold", values="mark_t")
    per_fold_marks = per_fold_marks.reindex(columns=list(dict.fromkeys(per_fold["fold"]))).fillna("—")
    per_fold_marks = per_fold_marks.replace("", "—").reset_index()
    return "".join([
        f"# Performance on {dataset} with paired significance tests\n\n",
        f"Test queries of all folds pooled; `{convention}` convention; mean ± std over folds.  Against "
        f"**{baseline}**: `*` p < 0.05, `**` p < 0.01 (two-sided paired t-test over queries, {corrected} over "
        f"the {family} comparison(s) of each metric and fold), `†` significantly worse than the baseline.\n\n",
        markdown_table(wide),
        f"\n## p-values (pooled over folds): paired t-test and paired randomisation test, raw and {corrected}; "
        "Cohen's d and wins/ties/losses over queries\n\n",
        markdown_table(pvalues, float_format="{:.4g}"),
        "\n## Per-fold t-test markers\n\n",
        markdown_table(per_fold_marks) if len(per_fold_marks) else "(no learner besides the baseline)\n",
    ])
