"""Rule catalog_timing: an entry's timing claims, measured on their own (ltrbv.sections.catalog.timing): each timed
learner fitted `repeats` times on the first fold, by this job, which holds every core of the run."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

from ltrbv.data.cache import load_cache
from ltrbv.io import atomic_path
from ltrbv.sections.catalog.timing import measure
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    train, vali = load_cache(sm.input.train), load_cache(sm.input.vali)
    timing = sm.params.timing
    table = measure(timing["learners"], train, vali, timing["repeats"], sm.params.seed, sm.wildcards.entry, sm.threads)
    with atomic_path(sm.output[0]) as tmp:
        table.to_csv(tmp, index=False, float_format="%.6g")
    log.info("%s: %d fits of %d learners on %d cores (load %.1f-%.1f)", sm.wildcards.entry, len(table),
             table["learner"].nunique(), sm.threads, table["load_before"].min(), table["load_before"].max())
