"""Rule plot_biasvar: Figs. 5, 6 and 7 analogues of Ibrahim (2021) from the sweep table."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import pandas as pd

from ltrbv.sections.biasvar.figures import plot_listwise, plot_pointwise, plot_ranking_error
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    sweep = pd.read_csv(sm.input.sweep)
    trends = pd.read_csv(sm.input.trends)
    dataset, param, metric = sm.wildcards.dataset, sm.params.param, sm.params.metric
    out = sm.output
    plot_pointwise(sweep, param, dataset, [out.pointwise, out.pointwise_svg], trends=trends)
    plot_listwise(sweep, param, metric, dataset, [out.listwise, out.listwise_svg])
    plot_ranking_error(sweep, param, metric, dataset, [out.error, out.error_svg])
    log.info("figures of %d sweep rows", len(sweep))
