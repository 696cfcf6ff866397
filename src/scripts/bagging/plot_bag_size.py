"""Rule plot_bag_size: Fig. 4 of Ganjisaffar et al. (2011), accuracy against the number of sub-models."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import pandas as pd

from ltrbv.sections.bagging.figures import plot_bag_size
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm):
    table = pd.read_csv(sm.input[0], dtype={"fold": str})
    plot_bag_size(table, [sm.output.png, sm.output.svg])
