"""Rule train_trial: fit a built-in learner on a variance trial's sample of a fold's training queries.

The sample is input ``queries`` (a JSON of query numbers, rule trial_queries).  Scores the fold's test
and validation sets, in file order.
"""

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import numpy as np

from ltrbv.data.cache import load_cache
from ltrbv.learners import make_learner
from ltrbv.learners.training_sets import require_relevant
from ltrbv.workflow.logs import rule_log
from ltrbv.workflow.run_files import write_run

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    spec = sm.params.learner
    train, vali, test = (load_cache(sm.input[k]) for k in ("train", "vali", "test"))
    queries = np.asarray(json.loads(Path(sm.input.queries).read_text())["query_indices"], dtype=np.int64)
    subset = train.subset_queries(queries)
    require_relevant(subset, f"trial sample {sm.input.queries} ({subset.n_queries} queries of {sm.input.train})")
    learner = make_learner(spec["kind"], spec["params"], random_state=sm.params.random_state, n_threads=sm.threads)
    log.info("training %s (%s) on %d of %d training queries of %s, seed %d, %d threads",
             spec["name"], spec["kind"], subset.n_queries, train.n_queries, sm.input.train,
             sm.params.random_state, sm.threads)
    started = time.perf_counter()
    test_scores, vali_scores = learner.fit_predict(subset, vali, (test, vali))
    fit_seconds = time.perf_counter() - started
    w = sm.wildcards
    write_run(sm.output, test, vali, (test_scores, vali_scores), {
        "learner": spec["name"],
        "kind": spec["kind"],
        "params": spec["params"],
        "base": None,
        "submodel": None,
        "run": sm.params.run,
        "random_state": sm.params.random_state,
        "sample_seed": None,
        "dataset": w.dataset,
        "fold": w.fold,
        "train_queries": subset.n_queries,
        "train_query_indices": queries,
    }, fit_seconds, learner, {split: sm.input[split] for split in ("train", "vali", "test")})
    log.info("fitted in %.2f s; wrote %s", fit_seconds, sm.output.test)
