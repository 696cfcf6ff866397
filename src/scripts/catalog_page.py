"""Rule catalog_page: results/{dataset}/catalog.md, one row per claim of every paper artefact in the catalog."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821

from ltrbv.io import write_text
from ltrbv.study.catalog import TABLE_KINDS, benchmark_cpu_seconds, read_entry_table
from ltrbv.study.catalog_pages import catalog_markdown, catalog_rows
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    entries = sm.params.entries
    tables = {name: read_entry_table(entry["kind"], sm.params.files[name]) for name, entry in entries.items()
              if entry["kind"] in TABLE_KINDS}
    cpu = {name: benchmark_cpu_seconds(files) for name, files in sm.params.benchmarks.items() if files}
    rows = catalog_rows(entries, tables, cpu, sm.params.files, sm.params.level, sm.wildcards.dataset)
    write_text(sm.output[0], catalog_markdown(rows, sm.wildcards.dataset, sm.params.level, sm.params.data))
    log.info("%d entries, %d rows", len(entries), len(rows))
