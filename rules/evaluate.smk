# Prediction files -> per-query metrics.


rule evaluate:
    """Per-query metrics of one prediction file under each of the dataset's conventions."""
    input:
        data=fill(paths.PARSED, split="test"),
        scores=fill(paths.PREDICTION, run=paths.SEED_RUN, file="test.scores"),
    output:
        paths.METRICS,
    params:
        metrics=config["metrics"],
        conventions=lambda w: config["datasets"][w.dataset]["conventions"],
    log:
        log("evaluate"),
    benchmark:
        benchmark("evaluate")
    threads: 1
    resources:
        mem_mb=rule_resources("evaluate", "mem_mb"),
        runtime=rule_resources("evaluate", "runtime"),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/evaluate.py"
