"""Rule catalog_page: results/{dataset}/catalog.md, one row per claim of every paper artefact in the catalog."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import pandas as pd

from ltrbv.compare.claims import Policy
from ltrbv.io import write_text
from ltrbv.sections.catalog.claims import judge_claims, read_claim_tests
from ltrbv.sections.catalog.kinds import WITH_JOB
from ltrbv.sections.catalog.pages import catalog_markdown, catalog_rows
from ltrbv.sections.catalog.tables import benchmark_cpu_seconds
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    entries = sm.params.entries
    policy = Policy(**sm.params.policy)
    tests = {name: read_claim_tests(path) for name, path in sm.params.claims.items()}
    every = pd.concat([t.assign(entry=name) for name, t in tests.items()], ignore_index=True) if tests else None
    judged = judge_claims(every, policy) if every is not None else pd.DataFrame(columns=["entry"])
    by_entry = {name: judged[judged["entry"] == name] for name in tests}  # the page's claims are one family
    family = int(judged["family"].max()) if len(judged) and judged["family"].notna().any() else 0
    cpu = {name: benchmark_cpu_seconds(files) for name, files in sm.params.benchmarks.items() if files}
    rows = catalog_rows(entries, by_entry, cpu, sm.params.files, sm.wildcards.dataset, WITH_JOB)
    write_text(sm.output[0], catalog_markdown(rows, sm.wildcards.dataset, policy, family, sm.params.data))
    log.info("%d entries, %d rows", len(entries), len(rows))
