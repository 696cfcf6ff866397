"""Rule trial_queries: trial t's training sample of a fold's queries (Ganjisaffar et al. 2011, §4.2, Table 5)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

from ltrbv.data.cache import load_cache
from ltrbv.io import write_json
from ltrbv.learners.training_sets import trial_queries, trial_seed
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    train = load_cache(sm.input[0])
    w = sm.wildcards
    chosen = trial_queries(train.n_queries, sm.params.fraction, sm.params.seed, w.dataset, w.fold, w.trial)
    write_json(sm.output[0], {
        "dataset": w.dataset,
        "fold": w.fold,
        "trial": int(w.trial),
        "fraction": sm.params.fraction,
        "seed": trial_seed(sm.params.seed, w.dataset, w.fold, w.trial),
        "n_queries": train.n_queries,
        "query_indices": chosen,
        "qids": [str(q) for q in train.qids[chosen]],
    })
    log.info("trial %s: %d of %d training queries", w.trial, chosen.size, train.n_queries)
