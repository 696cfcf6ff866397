"""Rule train_model: fit one built-in learner on a fold's training set; score its test and validation sets."""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1]))  # noqa: F821

from ltrbv.data.cache import load_cache
from ltrbv.learners import make_learner
from ltrbv.learners.training_sets import require_relevant
from ltrbv.workflow.logs import progress_bar, rule_log
from ltrbv.workflow.run_files import write_run

sm = snakemake  # noqa: F821
with rule_log(sm) as log:
    spec = sm.params.learner
    train, vali, test = (load_cache(sm.input[k]) for k in ("train", "vali", "test"))
    require_relevant(train, f"training set {sm.input.train} (of {train.source})")
    learner = make_learner(spec["kind"], spec["params"], random_state=sm.params.random_state, n_threads=sm.threads)
    log.info("training %s (%s) on %s: %d queries, seed %d, %d threads",
             spec["name"], spec["kind"], sm.input.train, train.n_queries, sm.params.random_state, sm.threads)
    started = time.perf_counter()
    with progress_bar(total=getattr(learner, "n_estimators", None), desc=spec["name"], unit="tree") as bar:
        test_scores, vali_scores = learner.fit_predict(train, vali, (test, vali), progress=bar.update)
    fit_seconds = time.perf_counter() - started
    write_run(sm.output, test, vali, (test_scores, vali_scores), {
        "learner": spec["name"],
        "kind": spec["kind"],
        "params": spec["params"],
        "replicate": int(sm.wildcards.seed),
        "random_state": sm.params.random_state,
        "dataset": sm.wildcards.dataset,
        "fold": sm.wildcards.fold,
        "train_queries": train.n_queries,
    }, fit_seconds, learner, {split: sm.input[split] for split in ("train", "vali", "test")})
    log.info("fitted in %.2f s; wrote %s", fit_seconds, sm.output.test)
