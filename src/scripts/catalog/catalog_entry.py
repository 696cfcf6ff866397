"""Rule catalog_<kind>: one entry of the reproduction catalog, made by its kind's module
(ltrbv.sections.catalog.kinds): its table, its claims' tests (the page judges them as one family), its page and,
for a kind with a figure, its figure."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

from ltrbv.io import atomic_path, write_text
from ltrbv.sections.catalog.kinds import KINDS
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    entry = sm.params.entry
    made = KINDS[entry["kind"]].make(sm.params.files, entry, sm.params.seed, sm.wildcards.dataset)
    with atomic_path(sm.output.csv) as tmp:
        made.table.to_csv(tmp, index=False, float_format="%.12g")
    with atomic_path(sm.output.claims) as tmp:
        made.tests.to_csv(tmp, index=False, float_format="%.12g")
    write_text(sm.output.md, made.markdown)
    if made.plot is not None:
        made.plot([sm.output.png, sm.output.svg])
    log.info("%s (%s): %d rows", sm.wildcards.entry, entry["kind"], len(made.table))
