"""Rule evaluate: per-query metrics of one learner's test-set prediction files (every fold and seed), under
each convention, in one table."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import pandas as pd

from ltrbv.data.cache import load_cache
from ltrbv.evaluation import per_query_table
from ltrbv.io import atomic_path
from ltrbv.workflow.digests import read_run_scores
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    files = sm.params.files  # {"data": {fold: parsed test split}, "scores": {fold: {seed: test scores}}}
    tables = []
    for fold, by_seed in files["scores"].items():
        data = load_cache(files["data"][fold])
        for seed, path in by_seed.items():
            scores = read_run_scores(path, data, files["data"][fold])
            table = per_query_table(data, scores, sm.params.metrics, sm.params.conventions)
            table.insert(0, "seed", int(seed))
            table.insert(0, "fold", fold)
            table.insert(0, "learner", sm.wildcards.learner)
            tables.append(table)
    table = pd.concat(tables, ignore_index=True)
    with atomic_path(sm.output[0]) as tmp:
        table.to_csv(tmp, index=False, float_format="%.10g")
    log.info("%d prediction files x %d metrics x %d conventions: %d rows -> %s", len(tables),
             len(sm.params.metrics), len(sm.params.conventions), len(table), sm.output[0])
