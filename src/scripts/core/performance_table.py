"""Rule performance_table: aggregate per-query metric files into the dataset's performance table."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import pandas as pd

from ltrbv.io import atomic_path, write_text
from ltrbv.tables import performance_markdown, performance_table
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    per_query = pd.concat([pd.read_csv(path, dtype={"qid": str, "fold": str}) for path in sm.input], ignore_index=True)
    table = performance_table(per_query, sm.wildcards.dataset)
    with atomic_path(sm.output.csv) as tmp:
        table.to_csv(tmp, index=False, float_format="%.6f")
    write_text(sm.output.md, performance_markdown(table))
    log.info("%d metric files -> %d rows", len(sm.input), len(table))
