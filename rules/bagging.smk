# Bagged learners (BL-MART, Ganjisaffar et al. 2011 §3.5; ltrbv.learners.bag): one job per sub-model, one
# job combining them.  A training run ({run}) is seed<n> (the fold's whole training set, as train_model)
# or trial<t> (the variance experiment's sample of the training queries, rules/experiments.smk).

from ltrbv.learners.bag import bag_spec
from ltrbv.workflow import bagging_grid


rule bag_submodel:
    """Train sub-model k of a bag on a random share of the run's training queries (without replacement)."""
    input:
        train=fill(paths.PARSED, split="train"),
        vali=fill(paths.PARSED, split="vali"),
        test=fill(paths.PARSED, split="test"),
        queries=lambda w: bagging_grid.trial_input(w.dataset, w.fold, w.run),
    output:
        test=fill(paths.SUBMODEL, file="test.scores"),
        vali=fill(paths.SUBMODEL, file="vali.scores"),
        meta=fill(paths.SUBMODEL, file="meta.json"),
    params:
        learner=lambda w: bag_spec(config, w.learner),
        seed_keys=lambda w: [config["seed"], w.dataset, w.fold, w.learner, *paths.run_seed_keys(w.run)],
        run=lambda w: w.run,
        k=lambda w: int(w.k),
    wildcard_constraints:
        learner=_alternatives(core_grid.bag_learners(config)),
        run=r"(seed|trial)\d+",
        k=r"\d+",
    log:
        log("bag_submodel"),
    benchmark:
        benchmark("bag_submodel")
    threads: learner_threads
    resources:
        mem_mb=learner_resource("mem_mb"),
        runtime=learner_resource("runtime"),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/bag_submodel.py"


rule combine_bag:
    """The bag's prediction files: per-query min-max normalised sub-model scores averaged (or Borda count)."""
    input:
        test_scores=lambda w: bagging_grid.submodel_files(config, w.dataset, w.learner, w.fold, w.run, "test.scores"),
        vali_scores=lambda w: bagging_grid.submodel_files(config, w.dataset, w.learner, w.fold, w.run, "vali.scores"),
        metas=lambda w: bagging_grid.submodel_files(config, w.dataset, w.learner, w.fold, w.run, "meta.json"),
        test=fill(paths.PARSED, split="test"),
        vali=fill(paths.PARSED, split="vali"),
    output:
        test=fill(paths.PREDICTION, file="test.scores"),
        vali=fill(paths.PREDICTION, file="vali.scores"),
        meta=fill(paths.PREDICTION, file="meta.json"),
    params:
        learner=lambda w: bag_spec(config, w.learner),
        run=lambda w: w.run,
        replicate=lambda w: paths.run_replicate(w.run),
    wildcard_constraints:
        learner=_alternatives(core_grid.bag_learners(config)),
        run=r"(seed|trial)\d+",
    log:
        log("combine_bag"),
    benchmark:
        benchmark("combine_bag")
    threads: 1
    resources:
        mem_mb=rule_resources("combine_bag", "mem_mb"),
        runtime=rule_resources("combine_bag", "runtime"),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/combine_bag.py"
