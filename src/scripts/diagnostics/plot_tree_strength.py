"""Rule plot_tree_strength: Fig. 7 of Ibrahim & Carman (2016), strength of single trees as they grow."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

from ltrbv.sections.diagnostics.figures import plot_tree_strength
from ltrbv.sections.diagnostics.tree_strength import read_strength_table
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm):
    tables = {learner: read_strength_table(path) for learner, path in sm.params.tables.items()}
    title = (f"{sm.wildcards.dataset} {sm.params.fold}: mean over {sm.params.n_trees} trees "
             "(solid: train, dashed: test)")
    plot_tree_strength(tables, [sm.output.png, sm.output.svg], title=title)
