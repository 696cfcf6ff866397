# Parsed folds -> per-seed model training -> prediction files (one score per test line).


rule train_model:
    """Train one built-in learner (config learners.<name>.kind) on one fold with one seed."""
    input:
        train="results/{dataset}/parsed/{fold}/train.npz",
        vali="results/{dataset}/parsed/{fold}/vali.npz",
        test="results/{dataset}/parsed/{fold}/test.npz",
    output:
        test="results/{dataset}/predictions/{learner}/{fold}/seed{seed}/test.scores",
        vali="results/{dataset}/predictions/{learner}/{fold}/seed{seed}/vali.scores",
        meta="results/{dataset}/predictions/{learner}/{fold}/seed{seed}/meta.json",
    params:
        learner=lambda w: learner_rule_params(config, w.learner),
        random_state=lambda w: derive_seed(config["seed"], w.dataset, w.fold, w.learner, w.seed),
    wildcard_constraints:
        learner=_alternatives(built_in_learners(config)),
    log:
        "results/{dataset}/logs/train_model/{learner}/{fold}/seed{seed}.log",
    benchmark:
        "results/{dataset}/benchmarks/train_model/{learner}/{fold}/seed{seed}.tsv"
    threads: lambda w: config["learners"][w.learner].get("threads", 1)
    resources:
        mem_mb=lambda w: config["learners"][w.learner].get("mem_mb", 2000),
        runtime=lambda w: config["learners"][w.learner].get("runtime", 60),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/train_model.py"
