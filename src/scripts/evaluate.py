"""Rule evaluate: per-query metrics of one test-set prediction file, under each convention."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821

from ltrbv.data.cache import load_cache
from ltrbv.evaluation import per_query_table
from ltrbv.io import atomic_path, read_scores
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    data = load_cache(sm.input.data)
    scores = data.from_file_order(read_scores(sm.input.scores, n_expected=data.n_docs))
    table = per_query_table(data, scores, sm.params.metrics, sm.params.conventions)
    w = sm.wildcards
    table.insert(0, "seed", int(w.seed))
    table.insert(0, "fold", w.fold)
    table.insert(0, "learner", w.learner)
    with atomic_path(sm.output[0]) as tmp:
        table.to_csv(tmp, index=False, float_format="%.10g")
    log.info("%d queries x %d metrics x %d conventions -> %s",
             data.n_queries, len(sm.params.metrics), len(sm.params.conventions), sm.output[0])
