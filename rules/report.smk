# Per-query metrics -> performance tables and figures.


rule performance_table:
    """One row per (learner, fold, metric, convention) plus fold=mean rows; CSV and Markdown."""
    input:
        lambda w: metrics_files(config, w.dataset),
    output:
        csv="results/{dataset}/tables/performance.csv",
        md="results/{dataset}/tables/performance.md",
    log:
        "results/{dataset}/logs/performance_table.log",
    benchmark:
        "results/{dataset}/benchmarks/performance_table.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("performance_table", "mem_mb", 1000),
        runtime=rule_resources("performance_table", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/performance_table.py"


rule plot_performance:
    """Per-fold and mean performance of every learner, for the configured metric and convention."""
    input:
        "results/{dataset}/tables/performance.csv",
    output:
        png=report(
            "results/{dataset}/figures/performance.png",
            caption="captions/performance.rst",
            category="Performance",
        ),
        svg="results/{dataset}/figures/performance.svg",
    params:
        metric=config.get("figures", {}).get("metric", "ndcg@10"),
        convention=config.get("figures", {}).get("convention"),
    log:
        "results/{dataset}/logs/plot_performance.log",
    benchmark:
        "results/{dataset}/benchmarks/plot_performance.tsv"
    threads: 1
    resources:
        mem_mb=rule_resources("plot_performance", "mem_mb", 1000),
        runtime=rule_resources("plot_performance", "runtime", 10),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/plot_performance.py"
