"""Rule zhang_table: Zhang et al. (2013) bias, variance and bias² + variance of AP and NDCG across queries."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

from ltrbv.data.cache import load_cache
from ltrbv.sections.biasvar.figures import plot_zhang
from ltrbv.io import atomic_path, write_text
from ltrbv.sections.biasvar.zhang import zhang_markdown, zhang_table
from ltrbv.workflow.digests import read_run_scores
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    files = sm.params.files  # {"scores": {learner: {fold: path}}, "data": {fold: path}}
    folds, learners = list(files["data"]), list(files["scores"])
    datas = [load_cache(files["data"][fold]) for fold in folds]
    scores = {name: [read_run_scores(files["scores"][name][fold], data, files["data"][fold])
                     for fold, data in zip(folds, datas)]
              for name in learners}
    settings = sm.params.zhang
    table = zhang_table(datas, scores, settings["metrics"], settings["targets"], sm.params.convention)
    with atomic_path(sm.output.csv) as tmp:
        table.to_csv(tmp, index=False, float_format="%.8g")
    write_text(sm.output.md, zhang_markdown(table, sm.wildcards.dataset))
    plot_zhang(table, sm.wildcards.dataset, [sm.output.png, sm.output.svg])
    log.info("%d learners x %d folds -> %d rows", len(learners), len(folds), len(table))
