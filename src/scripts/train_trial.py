"""Rules bag_submodel and train_trial: fit a built-in learner on a subset of a fold's training queries.

The subset: the variance experiment's trial sample (input ``queries``, a JSON of
query numbers) or the whole training set, and then, for a bag's sub-model
(``params.sample_seed`` set), a random share ``sample_fraction`` of those
queries drawn without replacement (Ganjisaffar et al. 2011, §4: 67% per
sub-model).  Scores the fold's test and validation sets, in file order.
"""

import json
import sys
import time
from pathlib import Path

# xgboost imports scikit-learn (for its sklearn wrapper, unused here) when it is installed: ~1.5 s of
# start-up per job, which is as long as fitting a MQ2008 sub-model.  Marking it absent skips that.
sys.modules.setdefault("sklearn", None)
sys.path.insert(0, str(Path(snakemake.scriptdir).parent))  # noqa: F821

import numpy as np

from ltrbv.bagging import sample_queries
from ltrbv.data.cache import load_cache
from ltrbv.io import write_json, write_scores
from ltrbv.learners import make_learner
from ltrbv.provenance import package_versions
from ltrbv.workflow.logs import rule_log

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    spec = sm.params.learner
    train, vali, test = (load_cache(sm.input[k]) for k in ("train", "vali", "test"))
    queries = np.arange(train.n_queries)
    trial_file = sm.input.get("queries")  # a path (train_trial), a one-path list or [] (bag_submodel)
    if trial_file and not isinstance(trial_file, str):
        trial_file = trial_file[0]
    if trial_file:
        queries = np.asarray(json.loads(Path(trial_file).read_text())["query_indices"], dtype=np.int64)
    if sm.params.sample_seed is not None:
        queries = queries[sample_queries(queries.size, spec["sample_fraction"], sm.params.sample_seed)]
    subset = train.subset_queries(queries)
    learner = make_learner(spec["kind"], spec["params"], random_state=sm.params.random_state, n_threads=sm.threads)
    log.info("training %s (%s) on %d of %d training queries of %s, seed %d, %d threads",
             spec["name"], spec["kind"], subset.n_queries, train.n_queries, sm.input.train,
             sm.params.random_state, sm.threads)
    started = time.perf_counter()
    test_scores, vali_scores = learner.fit_predict(subset, vali, (test, vali))
    fit_seconds = time.perf_counter() - started
    write_scores(sm.output.test, test.to_file_order(test_scores))
    write_scores(sm.output.vali, vali.to_file_order(vali_scores))
    w = sm.wildcards
    write_json(sm.output.meta, {
        "learner": spec["name"],
        "kind": spec["kind"],
        "params": spec["params"],
        "base": spec.get("base"),
        "submodel": int(w.k) if "k" in w.keys() else None,
        "run": w.get("run", f"trial{w.trial}" if "trial" in w.keys() else None),
        "random_state": sm.params.random_state,
        "sample_seed": sm.params.sample_seed,
        "dataset": w.dataset,
        "fold": w.fold,
        "train_queries": subset.n_queries,
        "train_query_indices": queries,
        "fit_seconds": round(fit_seconds, 3),
        "fit_info": getattr(learner, "fit_info_", {}),
        "versions": package_versions(),
    })
    log.info("fitted in %.2f s; wrote %s", fit_seconds, sm.output.test)
