"""Rule tree_strength: progressive strength of one forest learner's trees (Ibrahim & Carman 2016, Fig. 7)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

from ltrbv.data.cache import load_cache
from ltrbv.io import atomic_path
from ltrbv.learners.training_sets import require_relevant
from ltrbv.sections.diagnostics.tree_strength import progressive_strength
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    train, test = load_cache(sm.input.train), load_cache(sm.input.test)
    require_relevant(train, f"training set {sm.input.train} (of {train.source})")
    log.info("%s on %s/%s: %d trees, seed %d, %d threads; %d training and %d test queries",
             sm.wildcards.learner, sm.wildcards.dataset, sm.params.fold, sm.params.n_trees, sm.params.random_state,
             sm.threads, train.n_queries, test.n_queries)
    table = progressive_strength(dict(sm.params.params), train, test, n_trees=sm.params.n_trees,
                                 random_state=sm.params.random_state, n_threads=sm.threads,
                                 max_expansions=sm.params.max_expansions, log=log)
    with atomic_path(sm.output[0]) as tmp:
        table.to_csv(tmp, index=False, float_format="%.17g")
