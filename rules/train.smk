# Parsed folds -> per-seed model training -> prediction files (one score per test line).


rule train_model:
    """Train one built-in learner (config learners.<name>.kind) on one fold with one seed."""
    input:
        train=fill(paths.PARSED, split="train"),
        vali=fill(paths.PARSED, split="vali"),
        test=fill(paths.PARSED, split="test"),
    output:
        test=fill(paths.PREDICTION, run=paths.SEED_RUN, file="test.scores"),
        vali=fill(paths.PREDICTION, run=paths.SEED_RUN, file="vali.scores"),
        meta=fill(paths.PREDICTION, run=paths.SEED_RUN, file="meta.json"),
    params:
        learner=lambda w: core_grid.learner_rule_params(config, w.learner),
        random_state=lambda w: derive_seed(config["seed"], w.dataset, w.fold, w.learner, w.seed),
    wildcard_constraints:
        learner=_alternatives(core_grid.built_in_learners(config)),
    log:
        log("train_model"),
    benchmark:
        benchmark("train_model")
    threads: learner_threads
    resources:
        mem_mb=learner_resource("mem_mb"),
        runtime=learner_resource("runtime"),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/train_model.py"
