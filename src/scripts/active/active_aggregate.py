"""Rule active_aggregate: one experiment over partitions and repetitions; its figure (Figs. 2-5)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import pandas as pd

from ltrbv.active.experiments import aggregate
from ltrbv.sections.active.figures import plot_error_curves
from ltrbv.io import atomic_path
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    w = sm.wildcards
    table = aggregate([pd.read_csv(path) for path in sm.input])
    table.insert(0, "experiment", w.experiment)
    table.insert(0, "dataset", w.dataset)
    with atomic_path(sm.output.table) as tmp:
        table.to_csv(tmp, index=False, float_format="%.10g")
    title = f"{w.dataset}: {sm.params.spec.get('title', w.experiment)} ({int(table['partitions'].iloc[0])} partitions)"
    plot_error_curves(table, sm.params.spec["kind"], title, [sm.output.png, sm.output.svg])
    log.info("%d rows from %d partition files", len(table), len(sm.input))
