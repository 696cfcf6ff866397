"""Rule bagging_table: Table 4 of Ganjisaffar et al. (2011): NDCG@1, @3, @5, mean NDCG, MAP per fold and over folds."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import pandas as pd

from ltrbv.data.cache import load_cache
from ltrbv.io import atomic_path, write_text
from ltrbv.sections.bagging.tables import TABLE_METRICS, table_metrics
from ltrbv.tables import performance_markdown, performance_table
from ltrbv.workflow.digests import read_run_scores
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    dataset = sm.wildcards.dataset
    frames = []
    for fold, data_file in sm.params.data.items():
        data = load_cache(data_file)
        for learner, by_fold in sm.params.scores.items():
            for seed, path in by_fold[fold].items():
                scores = read_run_scores(path, data, data_file)
                table = table_metrics(scores, data, sm.params.conventions, TABLE_METRICS)
                table.insert(0, "seed", int(seed))
                table.insert(0, "fold", fold)
                table.insert(0, "learner", learner)
                frames.append(table)
    table = performance_table(pd.concat(frames, ignore_index=True), dataset)
    with atomic_path(sm.output.csv) as tmp:
        table.to_csv(tmp, index=False, float_format="%.6f")
    note = ("\nMetrics as in Ganjisaffar et al. (2011), Table 4. `mean_ndcg`: per query the mean of NDCG@1..NDCG@10 "
            "(LETOR's MeanNDCG), averaged over queries.\n")
    write_text(sm.output.md, performance_markdown(table).replace("\n", note, 1))
    log.info("%d prediction files -> %d rows", len(frames), len(table))
