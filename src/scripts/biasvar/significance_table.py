"""Rule significance_table: performance with paired t and randomisation tests against a baseline learner,
p-values corrected over the comparisons of each metric and fold (``biasvar.significance.correction``, default holm)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import pandas as pd

from ltrbv.io import atomic_path, write_text
from ltrbv.compare.significance import significance_markdown, significance_table
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    per_query = pd.concat([pd.read_csv(p, dtype={"qid": str, "fold": str}) for p in sm.input], ignore_index=True)
    settings = sm.params.significance
    learners = list(sm.params.learners)
    available = set(per_query["metric"])
    metrics = [m for m in settings["metrics"] if m in available]
    skipped = [m for m in settings["metrics"] if m not in available]
    if skipped:
        log.warning("metrics %s are not in the config's metrics; left out of the significance table", skipped)
    table = significance_table(per_query, learners, metrics, settings["baseline"] or learners[0],
                               settings["convention"] or sm.params.conventions[0], settings["permutations"],
                               sm.params.seed, pairs=settings["pairs"], correction=settings.get("correction", "holm"))
    with atomic_path(sm.output.csv) as tmp:
        table.to_csv(tmp, index=False, float_format="%.6g")
    write_text(sm.output.md, significance_markdown(table, sm.wildcards.dataset))
    log.info("%d rows", len(table))
