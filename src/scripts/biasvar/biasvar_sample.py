"""Rule biasvar_sample: one training set of a fold's queries, bootstrap or a two-fold half (Ibrahim 2021, §5.2)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

from ltrbv.data.cache import load_cache
from ltrbv.io import write_json
from ltrbv.learners.training_sets import training_set
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    train = load_cache(sm.input[0])
    w = sm.wildcards
    chosen = training_set(w.scheme, w.replicate, train.n_queries, sm.params.fraction, sm.params.seed, w.dataset, w.fold)
    write_json(sm.output[0], {
        "dataset": w.dataset,
        "fold": w.fold,
        "scheme": w.scheme,
        "replicate": w.replicate,
        "n_queries": train.n_queries,
        "query_indices": chosen,
        "qids": [str(q) for q in train.qids[chosen]],
    })
    log.info("%s replicate %s: %d of %d training queries", w.scheme, w.replicate, chosen.size, train.n_queries)
