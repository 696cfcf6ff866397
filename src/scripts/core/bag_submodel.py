"""Rule bag_submodel: sub-model k of a bag (BL-MART), fitted by :meth:`ltrbv.learners.bag.Bag.fit_submodel`.

The run's training queries: the variance experiment's trial sample (input ``queries``, a JSON of
query numbers) or the fold's whole training set; the sub-model trains on a random share
``sample_fraction`` of them, drawn without replacement (Ganjisaffar et al. 2011, §4: 67% per
sub-model), with the bag's one seed scheme (:func:`ltrbv.learners.bag.submodel_seeds`).  Scores
the fold's test and validation sets, in file order.
"""

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import numpy as np

from ltrbv.data.cache import load_cache
from ltrbv.learners.bag import Bag, submodel_seeds
from ltrbv.workflow.logs import rule_log
from ltrbv.workflow.run_files import write_run

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    spec = sm.params.learner
    bag = Bag.from_spec(spec)
    k, keys = sm.params.k, list(sm.params.seed_keys)
    train, vali, test = (load_cache(sm.input[name]) for name in ("train", "vali", "test"))
    queries = np.arange(train.n_queries)
    if sm.input.queries:  # a trial run: the trial's sample of the training queries
        queries = np.asarray(json.loads(Path(sm.input.queries[0]).read_text())["query_indices"], dtype=np.int64)
    random_state, sample_seed = submodel_seeds(keys, k)
    log.info("training sub-model %d of %s (%s) on %d%% of %d training queries of %s, seed %d, %d threads", k,
             spec["name"], spec["kind"], round(100 * bag.sample_fraction), queries.size, sm.input.train,
             random_state, sm.threads)
    started = time.perf_counter()
    (test_scores, vali_scores), learner, chosen = bag.fit_submodel(k, train, vali, (test, vali), keys, queries,
                                                                   n_threads=sm.threads)
    fit_seconds = time.perf_counter() - started
    w = sm.wildcards
    write_run(sm.output, test, vali, (test_scores, vali_scores), {
        "learner": spec["name"],
        "kind": spec["kind"],
        "params": spec["params"],
        "base": spec.get("base"),
        "submodel": k,
        "run": sm.params.run,
        "random_state": random_state,
        "sample_seed": sample_seed,
        "dataset": w.dataset,
        "fold": w.fold,
        "train_queries": int(chosen.size),
        "train_query_indices": chosen,
    }, fit_seconds, learner, {split: sm.input[split] for split in ("train", "vali", "test")})
    log.info("fitted in %.2f s; wrote %s", fit_seconds, sm.output.test)
