"""Rules train_bag_<n> and bag_submodel: a bag's sub-models (BL-MART), each fitted by
:meth:`ltrbv.learners.bag.Bag.fit_submodel`: all ``n`` of a training run one after another in one job
(train_bag_<n>, outputs ``test_<k>``, ``vali_<k>``, ``meta_<k>``), or sub-model ``k`` alone (bag_submodel,
outputs ``test``, ``vali``, ``meta``); the same files either way.

The run's training queries: the variance experiment's trial sample (input ``queries``, a JSON of
query numbers) or the fold's whole training set; a sub-model trains on a random share
``sample_fraction`` of them, drawn without replacement (Ganjisaffar et al. 2011, §4: 67% per
sub-model), with the bag's one seed scheme (:func:`ltrbv.learners.bag.submodel_seeds`).  Scores
the fold's test and validation sets, in file order.
"""

import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import numpy as np

from ltrbv.data.cache import load_cache
from ltrbv.learners.bag import Bag, submodel_seeds
from ltrbv.workflow.logs import progress_bar, rule_log
from ltrbv.workflow.run_files import write_run

sm = snakemake  # noqa: F821
FILES = ("test", "vali", "meta")


def outputs(k: int):
    """Sub-model k's three files: the job's own (bag_submodel) or its ``<file>_<k>`` (train_bag_<n>)."""
    if "test" in sm.output.keys():
        return sm.output
    return SimpleNamespace(**{name: sm.output[f"{name}_{k}"] for name in FILES})


with rule_log(sm) as log:
    spec = sm.params.learner
    bag = Bag.from_spec(spec)
    keys, submodels = list(sm.params.seed_keys), list(sm.params.submodels)
    train, vali, test = (load_cache(sm.input[name]) for name in ("train", "vali", "test"))
    queries = np.arange(train.n_queries)
    if sm.input.queries:  # a trial run: the trial's sample of the training queries
        queries = np.asarray(json.loads(Path(sm.input.queries[0]).read_text())["query_indices"], dtype=np.int64)
    w = sm.wildcards
    with progress_bar(total=len(submodels), desc=f"{spec['name']} {w.fold} {sm.params.run}", unit="model") as bar:
        for k in submodels:
            random_state, sample_seed = submodel_seeds(keys, k)
            log.info("training sub-model %d of %s (%s, %d in the bag) on %d%% of %d training queries of %s, seed %d, "
                     "%d threads", k, spec["name"], spec["kind"], bag.n_models, round(100 * bag.sample_fraction),
                     queries.size, sm.input.train, random_state, sm.threads)
            started = time.perf_counter()
            (test_scores, vali_scores), learner, chosen = bag.fit_submodel(k, train, vali, (test, vali), keys, queries,
                                                                           n_threads=sm.threads)
            fit_seconds = time.perf_counter() - started
            output = outputs(k)
            write_run(output, test, vali, (test_scores, vali_scores), {
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
            log.info("fitted in %.2f s; wrote %s", fit_seconds, output.test)
            bar.update(1)
