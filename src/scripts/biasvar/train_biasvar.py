"""Rules train_biasvar_<scheme>: one learner, at one sweep setting, on each training set of a scheme (one run of the
study); each model scores the test set.

A model's training set is its sample file's queries (bootstrap replicate or two-fold half, Ibrahim 2021 §5.2);
the models are fitted one after another, each with the seed of its replicate (``params.random_states``), so a
model's predictions do not depend on which other models share its job.
For a sweep of ``subsample`` with ``relative_to: original`` the value is the paper's p, a share of the
fold's ORIGINAL training queries, turned into the forest's share of this set
(:func:`ltrbv.learners.training_sets.per_tree_subsample`).  A bag (BL-MART) is fitted here sub-model by
sub-model, each on ``sample_fraction`` of this set's queries, and combined per query
(Ganjisaffar et al. 2011, §3.5.1), by the same :class:`ltrbv.learners.bag.Bag` and seed scheme as the
core run's one-job-per-sub-model rules (seed keys: the model's, then "sub", k).
"""

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

import numpy as np

from ltrbv.data.cache import load_cache
from ltrbv.io import write_json, write_scores
from ltrbv.learners import make_learner
from ltrbv.learners.bag import Bag
from ltrbv.learners.training_sets import require_relevant
from ltrbv.provenance import package_versions, run_provenance
from ltrbv.learners.training_sets import per_tree_subsample
from ltrbv.workflow.digests import DIGESTS, run_digests
from ltrbv.workflow.logs import progress_bar, rule_log
from ltrbv.sections.biasvar.grid import model_file_name
from ltrbv.workflow.run_files import publishing

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    spec = sm.params.learner
    train, vali, test = (load_cache(sm.input[k]) for k in ("train", "vali", "test"))
    w = sm.wildcards
    for replicate in sm.params.replicates:
        seed_keys, random_state = sm.params.seed_keys[replicate], sm.params.random_states[replicate]
        queries_file = sm.input[model_file_name("queries", replicate)]
        test_file = sm.output[model_file_name("test", replicate)]
        meta_file = sm.output[model_file_name("meta", replicate)]
        queries = np.asarray(json.loads(Path(queries_file).read_text())["query_indices"], dtype=np.int64)
        subset = train.subset_queries(queries)
        require_relevant(subset, f"training set {queries_file} ({subset.n_queries} queries of {sm.input.train})")
        params = dict(spec["params"])
        sweep = spec["sweep"]
        if sweep and sweep["relative_to_original"]:
            params["subsample"] = per_tree_subsample(float(sweep["value"]), train.n_queries, subset.n_queries)
            log.info("p = %s of %d original queries -> subsample %.6f of this set's %d queries",
                     sweep["value"], train.n_queries, params["subsample"], subset.n_queries)
        started = time.perf_counter()
        if spec["kind"] == "bag":
            bag = Bag.from_spec({"name": spec["name"], **spec["bag"]})
            with progress_bar(total=bag.n_models, desc=f"{spec['name']} rep{replicate}", unit="sub-model") as bar:
                (test_scores,) = bag.fit_predict(subset, vali, (test,), list(seed_keys), n_threads=sm.threads,
                                                 progress=bar.update)
        else:
            learner = make_learner(spec["kind"], params, random_state=random_state, n_threads=sm.threads)
            log.info("replicate %s: training %s (%s, %s) on %d of %d training queries, seed %d, %d threads", replicate,
                     spec["name"], spec["kind"], spec["setting"], subset.n_queries, train.n_queries, random_state,
                     sm.threads)
            with progress_bar(total=getattr(learner, "n_estimators", None), desc=f"{spec['name']} rep{replicate}",
                              unit="tree") as bar:
                (test_scores,) = learner.fit_predict(subset, vali, (test,), progress=bar.update)
        fit_seconds = time.perf_counter() - started
        with publishing(test_file, meta_file) as (test_tmp, meta_tmp):
            write_scores(test_tmp, test.to_file_order(test_scores))
            digests = run_digests({Path(test_file).name: test_tmp},
                                  {split: sm.input[split] for split in ("train", "vali", "test")})
            write_json(meta_tmp, {
                "learner": spec["name"],
                "kind": spec["kind"],
                "setting": spec["setting"],
                "sweep": sweep,
                "params": params,
                "bag": spec.get("bag"),
                "scheme": sm.params.scheme,
                "replicate": replicate,
                "random_state": random_state,
                "dataset": w.dataset,
                "fold": w.fold,
                "train_queries": subset.n_queries,
                "original_train_queries": train.n_queries,
                "fit_seconds": round(fit_seconds, 3),
                DIGESTS: digests,
                "versions": package_versions(),
                "provenance": run_provenance(),
            })
        log.info("replicate %s fitted in %.2f s; wrote %s", replicate, fit_seconds, test_file)
