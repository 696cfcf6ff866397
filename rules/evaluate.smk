# Prediction files -> per-query metrics.


rule evaluate:
    """Per-query metrics of one prediction file under each of the dataset's conventions."""
    input:
        data="results/{dataset}/parsed/{fold}/test.npz",
        scores="results/{dataset}/predictions/{learner}/{fold}/seed{seed}/test.scores",
    output:
        "results/{dataset}/metrics/{learner}/{fold}/seed{seed}.csv",
    params:
        metrics=config["metrics"],
        conventions=lambda w: config["datasets"][w.dataset]["conventions"],
    log:
        "results/{dataset}/logs/evaluate/{learner}/{fold}/seed{seed}.log",
    benchmark:
        "results/{dataset}/benchmarks/evaluate/{learner}/{fold}/seed{seed}.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("evaluate", "mem_mb", 1000),
        runtime=rule_resources("evaluate", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/evaluate.py"
