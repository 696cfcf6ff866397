"""Performance table with paired significance tests over test queries (Ibrahim & Carman 2016, Tables V, XV).

Every learner is compared with a baseline on the same test queries: per query, the metric averaged
over seeds; pairs are pooled across folds (``fold = all``) and taken per fold.  Two tests, both
two-sided: the paired t-test and the paired randomisation (sign-flip) test
(:mod:`ltrbv.biasvar.significance`).  Markers follow the papers: ``*`` p < 0.05, ``**`` p < 0.01,
``†`` when the learner is significantly *worse* than the baseline; the Markdown marks by the t-test
and lists the randomisation test's p-values beside it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..biasvar import paired_randomization_test, paired_t_test, significance_marker
from ..seeding import derive_seed
from ..tables import markdown_table

POOLED = "all"


def per_query_means(per_query: pd.DataFrame, convention: str) -> pd.DataFrame:
    """(learner, metric) x (fold, qid) wide table of the per-query metric, averaged over seeds."""
    rows = per_query[per_query["convention"] == convention]
    if rows.empty:
        raise ValueError(f"no per-query rows for convention {convention!r}")
    return rows.groupby(["learner", "metric", "fold", "qid"], sort=False)["value"].mean().sort_index()


def significance_table(per_query: pd.DataFrame, learners: list[str], metrics: list[str], baseline: str,
                       convention: str, n_permutations: int, seed: int, pairs=()) -> pd.DataFrame:
    """One row per (learner, baseline, metric, fold) with fold ``all`` the pooled test: means, differences,
    p-values.  Every learner is compared with ``baseline``; each ``(learner, other)`` of ``pairs`` adds
    that comparison too (e.g. RF-list against RF-point)."""
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
                same = learner == baseline or len(sel) < 2 or np.allclose(sel["system"], sel["baseline"])
                if same:
                    row.update(t=np.nan, p_t=np.nan, p_randomisation=np.nan)
                else:
                    t, p = paired_t_test(sel["system"].to_numpy(), sel["baseline"].to_numpy())
                    rand = paired_randomization_test(sel["system"].to_numpy(), sel["baseline"].to_numpy(),
                                                     n_permutations, derive_seed(seed, learner, metric, fold))
                    row.update(t=t, p_t=p, p_randomisation=rand)
                row["mark_t"] = significance_marker(row["p_t"], row["difference"])
                row["mark_randomisation"] = significance_marker(row["p_randomisation"], row["difference"])
                out.append(row)
    return pd.DataFrame(out)


def significance_markdown(table: pd.DataFrame, dataset: str) -> str:
    """Learners x metrics, ``mean ± std over folds`` and the pooled t-test marker; then the p-values."""
    pooled = table[table["fold"] == POOLED]
    baseline = pooled["baseline"].iloc[0]
    convention = pooled["convention"].iloc[0]
    metrics = list(dict.fromkeys(pooled["metric"]))
    main = pooled[pooled["baseline"] == baseline]
    learners = list(dict.fromkeys(main["learner"]))
    cell = {(r.learner, r.metric): f"{r.mean:.4f} ± {r.std_over_folds:.4f}{r.mark_t}" for r in main.itertuples()}
    wide = pd.DataFrame([{"learner": learner, **{m: cell[(learner, m)] for m in metrics}} for learner in learners])
    pvalues = pooled[pooled["learner"] != pooled["baseline"]][["learner", "baseline", "metric", "difference", "p_t",
                                                                "p_randomisation", "mark_t", "mark_randomisation"]]
    per_fold = table[(table["fold"] != POOLED) & (table["learner"] != table["baseline"])]
    per_fold_marks = per_fold.pivot(index=["learner", "baseline", "metric"], columns="fold", values="mark_t")
    per_fold_marks = per_fold_marks.reindex(columns=list(dict.fromkeys(per_fold["fold"]))).fillna("—")
    per_fold_marks = per_fold_marks.replace("", "—").reset_index()
    return "".join([
        f"# Performance on {dataset} with paired significance tests\n\n",
        f"Test queries of all folds pooled; `{convention}` convention; mean ± std over folds.  Against "
        f"**{baseline}**: `*` p < 0.05, `**` p < 0.01 (two-sided paired t-test over queries), `†` "
        "significantly worse than the baseline.\n\n",
        markdown_table(wide),
        "\n## p-values (pooled over folds): paired t-test and paired randomisation test\n\n",
        markdown_table(pvalues, float_format="{:.4g}"),
        "\n## Per-fold t-test markers\n\n",
        markdown_table(per_fold_marks) if len(per_fold_marks) else "(no learner besides the baseline)\n",
    ])
