# Bagged learners (BL-MART, Ganjisaffar et al. 2011 §3.5): one job per sub-model, one job combining them.
# A training run ({run}) is seed<n> (the fold's whole training set, as train_model) or trial<t> (the
# variance experiment's sample of the training queries, rules/experiments.smk).

from ltrbv.workflow.grid import (
    bag_learners,
    bag_spec,
    experiment_targets,
    run_seed_keys,
    submodel_files,
    trial_input,
)


rule bag_submodel:
    """Train sub-model k of a bag on a random share of the run's training queries (without replacement)."""
    input:
        train="results/{dataset}/parsed/{fold}/train.npz",
        vali="results/{dataset}/parsed/{fold}/vali.npz",
        test="results/{dataset}/parsed/{fold}/test.npz",
        queries=lambda w: trial_input(w.dataset, w.fold, w.run),
    output:
        test="results/{dataset}/bags/{learner}/{fold}/{run}/sub{k}/test.scores",
        vali="results/{dataset}/bags/{learner}/{fold}/{run}/sub{k}/vali.scores",
        meta="results/{dataset}/bags/{learner}/{fold}/{run}/sub{k}/meta.json",
    params:
        learner=lambda w: bag_spec(config, w.learner),
        random_state=lambda w: derive_seed(config["seed"], w.dataset, w.fold, w.learner, *run_seed_keys(w.run), "sub", int(w.k)),
        sample_seed=lambda w: derive_seed(config["seed"], w.dataset, w.fold, w.learner, *run_seed_keys(w.run), "sub", int(w.k), "queries"),
    wildcard_constraints:
        learner=_alternatives(bag_learners(config)),
        run=r"(seed|trial)\d+",
        k=r"\d+",
    log:
        "results/{dataset}/logs/bag_submodel/{learner}/{fold}/{run}/sub{k}.log",
    benchmark:
        "results/{dataset}/benchmarks/bag_submodel/{learner}/{fold}/{run}/sub{k}.tsv"
    threads: lambda w: config["learners"][w.learner].get("threads", 1)
    resources:
        mem_mb=lambda w: config["learners"][w.learner].get("mem_mb", 2000),
        runtime=lambda w: config["learners"][w.learner].get("runtime", 60),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/train_subset.py"


rule combine_bag:
    """The bag's prediction files: per-query min-max normalised sub-model scores averaged (or Borda count)."""
    input:
        test_scores=lambda w: submodel_files(config, w.dataset, w.learner, w.fold, w.run, "test.scores"),
        vali_scores=lambda w: submodel_files(config, w.dataset, w.learner, w.fold, w.run, "vali.scores"),
        metas=lambda w: submodel_files(config, w.dataset, w.learner, w.fold, w.run, "meta.json"),
        test="results/{dataset}/parsed/{fold}/test.npz",
        vali="results/{dataset}/parsed/{fold}/vali.npz",
    output:
        test="results/{dataset}/predictions/{learner}/{fold}/{run}/test.scores",
        vali="results/{dataset}/predictions/{learner}/{fold}/{run}/vali.scores",
        meta="results/{dataset}/predictions/{learner}/{fold}/{run}/meta.json",
    params:
        learner=lambda w: bag_spec(config, w.learner),
    wildcard_constraints:
        learner=_alternatives(bag_learners(config)),
        run=r"(seed|trial)\d+",
    log:
        "results/{dataset}/logs/combine_bag/{learner}/{fold}/{run}.log",
    benchmark:
        "results/{dataset}/benchmarks/combine_bag/{learner}/{fold}/{run}.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("combine_bag", "mem_mb", 2000),
        runtime=rule_resources("combine_bag", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/combine_bag.py"
