"""Rule report_page: one table (CSV) or Markdown file (summary, Markdown tables) as an HTML page for the report."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import pandas as pd

from ltrbv.io import write_text
from ltrbv.sections.report.pages import markdown_page, table_page
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    source = Path(sm.input[0])
    if source.suffix == ".csv":
        page = table_page(pd.read_csv(source), sm.params.title)
    else:
        page = markdown_page(source.read_text(encoding="utf-8"), sm.params.title)
    write_text(sm.output[0], page)
    log.info("%s -> %s", source, sm.output[0])
