"""Rule plot_performance: a bar chart of one metric per fold and learner, with the mean over folds."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import pandas as pd

from ltrbv.sections.core.figures import plot_performance
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm):
    table = pd.read_csv(sm.input[0], dtype={"fold": str})
    plot_performance(table, sm.params.metric, sm.params.convention, [sm.output.png, sm.output.svg])
