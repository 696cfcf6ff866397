"""Rule active_sampling: Fig. 6, the active sampling distribution and the number of queries drawn."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import numpy as np
import pandas as pd

from ltrbv.sections.active.figures import plot_sampling_distribution
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    heat = sm.params.heatmap
    measure = heat["measure"]
    arrays = np.load(sm.input.distributions)
    table = pd.read_csv(sm.input.table)
    draws = table[table["measure"] == measure]
    budgets = np.sort(draws["budget"].unique())
    budget = heat["budget"] if heat["budget"] is not None else budgets[len(budgets) // 2]
    budget = float(budgets[np.argmin(np.abs(budgets - budget))])
    title = (f"{sm.wildcards.dataset}: {heat['experiment']}, {measure.upper()}, partition {sm.params.partition}")
    plot_sampling_distribution(arrays[f"{measure}_costs"], arrays[f"{measure}_expected"],
                               arrays[f"{measure}_q_active"], draws, budget, title, [sm.output.png, sm.output.svg])
    log.info("budget for the draw counts: %g", budget)
