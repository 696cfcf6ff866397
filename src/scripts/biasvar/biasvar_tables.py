"""Rule biasvar_tables: reducer outputs -> the sweep table (Figs. 5-7 data), paired trend tests over test
queries, and the comparison (Table 5)."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import pandas as pd

from ltrbv.io import atomic_path, write_text
from ltrbv.sections.biasvar.tables import comparison_markdown, comparison_table, sweep_table
from ltrbv.sections.biasvar.trends import scheme_gap_table, trend_table
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    runs = pd.DataFrame(sm.params.runs)  # learner, fold, setting, scheme, value (the swept number), summary, per_query
    summaries = [json.loads(Path(p).read_text()) for p in runs["summary"]]
    sweep = sweep_table(summaries)
    with atomic_path(sm.output.sweep) as tmp:
        sweep.to_csv(tmp, index=False, float_format="%.8g")
    per_query = {p: pd.read_csv(p, dtype={"qid": str}) for p in runs["per_query"]}
    runs = runs.drop(columns="summary").rename(columns={"per_query": "path"})
    uncertainty = sm.params.uncertainty
    trends = pd.concat([trend_table(runs, per_query, uncertainty["resamples"], uncertainty["level"], sm.params.seed),
                        scheme_gap_table(runs, per_query, uncertainty["resamples"], uncertainty["level"],
                                         sm.params.seed)], ignore_index=True)
    with atomic_path(sm.output.trends) as tmp:
        trends.to_csv(tmp, index=False, float_format="%.8g")
    comparison = comparison_table(sweep, list(sm.params.compare["learners"]), list(sm.params.compare["schemes"]))
    with atomic_path(sm.output.comparison) as tmp:
        comparison.to_csv(tmp, index=False, float_format="%.8g")
    write_text(sm.output.comparison_md, comparison_markdown(comparison, sm.wildcards.dataset))
    log.info("%d reducer summaries -> %d sweep rows, %d trend rows, %d comparison rows", len(summaries), len(sweep),
             len(trends), len(comparison))
