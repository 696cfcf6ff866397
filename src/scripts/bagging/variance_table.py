"""Rule variance_table: Table 5 of Ganjisaffar et al. (2011): test metrics across trials, their mean and variance."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import pandas as pd

from ltrbv.data.cache import load_cache
from ltrbv.io import atomic_path, write_text
from ltrbv.sections.bagging.tables import table_metrics, variance_markdown, variance_summary
from ltrbv.workflow.digests import read_run_scores
from ltrbv.workflow.logs import rule_log

METRICS = ("ndcg@1", "ndcg@3", "ndcg@5", "mean_ndcg", "map")

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    settings = sm.params.settings
    test = load_cache(sm.input.test)
    rows = []
    for learner, by_trial in sm.params.scores.items():
        for trial, path in by_trial.items():
            scores = read_run_scores(path, test, sm.input.test)
            per_query = table_metrics(scores, test, sm.params.conventions, METRICS)
            means = per_query.groupby(["convention", "metric"], sort=False)["value"].mean().reset_index()
            means.insert(0, "trial", trial)
            means.insert(0, "learner", learner)
            rows.append(means)
    runs = pd.concat(rows, ignore_index=True)
    runs.insert(0, "fold", settings["fold"])
    runs.insert(0, "dataset", sm.wildcards.dataset)
    summary = variance_summary(runs, settings.get("baseline"))
    summary.insert(0, "fold", settings["fold"])
    summary.insert(0, "dataset", sm.wildcards.dataset)
    with atomic_path(sm.output.runs) as tmp:
        runs.to_csv(tmp, index=False, float_format="%.8g")
    with atomic_path(sm.output.csv) as tmp:
        summary.to_csv(tmp, index=False, float_format="%.8g")
    write_text(sm.output.md, variance_markdown(summary, settings))
    log.info("%d prediction files, %d learners -> %s", len(sm.input.scores), summary["learner"].nunique(), sm.output.csv)
