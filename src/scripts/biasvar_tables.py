"""Rule biasvar_tables: reducer summaries -> the sweep table (Figs. 5-7 data) and the comparison (Table 5)."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821

from ltrbv.io import atomic_path, write_text
from ltrbv.study.tables import comparison_markdown, comparison_table, sweep_table
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    summaries = [json.loads(Path(p).read_text()) for p in sm.input]
    sweep = sweep_table(summaries)
    with atomic_path(sm.output.sweep) as tmp:
        sweep.to_csv(tmp, index=False, float_format="%.8g")
    comparison = comparison_table(sweep, list(sm.params.compare["learners"]), list(sm.params.compare["schemes"]))
    with atomic_path(sm.output.comparison) as tmp:
        comparison.to_csv(tmp, index=False, float_format="%.8g")
    write_text(sm.output.comparison_md, comparison_markdown(comparison, sm.wildcards.dataset))
    log.info("%d reducer summaries -> %d sweep rows, %d comparison rows", len(summaries), len(sweep), len(comparison))
