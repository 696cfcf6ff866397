"""Rule report_landing: the report's first page, the intro and each data set's summary and performance table."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

from ltrbv.io import write_text
from ltrbv.sections.report.pages import landing_rst
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    intro = Path(sm.params.intro).read_text(encoding="utf-8")
    # the first page shows the performance means; the table of every row is on its own page
    sections = [(heading, Path(path).read_text(encoding="utf-8").split("\n## All rows")[0])
                for heading, path in sm.params.sections.items()]
    write_text(sm.output[0], landing_rst(intro, sections))
    log.info("%d sections -> %s", len(sections), sm.output[0])
