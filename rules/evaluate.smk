# Prediction files -> per-query metrics.


rule evaluate:
    """Per-query metrics of one learner's test-set predictions (every fold and seed) under each of the dataset's conventions."""
    input:
        lambda w: paths.flat(core_grid.evaluation_inputs(config, w.dataset, w.learner)),
    output:
        paths.METRICS,
    params:
        files=lambda w: core_grid.evaluation_inputs(config, w.dataset, w.learner),
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
