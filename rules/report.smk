# Per-query metrics -> performance tables and figures.


rule performance_table:
    """One row per (learner, fold, metric, convention) plus fold=mean rows; CSV and Markdown."""
    input:
        lambda w: core_grid.metrics_files(config, w.dataset),
    output:
        csv=paths.table("performance", "csv"),
        md=paths.table("performance", "md"),
    log:
        log("performance_table"),
    benchmark:
        benchmark("performance_table")
    threads: 1
    resources:
        mem_mb=rule_resources("performance_table", "mem_mb"),
        runtime=rule_resources("performance_table", "runtime"),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/performance_table.py"


rule plot_performance:
    """Per-fold and mean performance of every learner, for the configured metric and convention."""
    input:
        paths.table("performance", "csv"),
    output:
        png=report(
            paths.figure("performance", "png"),
            caption="captions/performance.rst",
            category=report_grid.PERFORMANCE,
            subcategory="{dataset}",
        ),
        svg=paths.figure("performance", "svg"),
    params:
        metric=config["figures"]["metric"],
        convention=config["figures"].get("convention"),
    log:
        log("plot_performance"),
    benchmark:
        benchmark("plot_performance")
    threads: 1
    resources:
        mem_mb=rule_resources("plot_performance", "mem_mb"),
        runtime=rule_resources("plot_performance", "runtime"),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/plot_performance.py"


rule report_page:
    """A table (CSV) or Markdown file (summary, Markdown tables) as an HTML page the report shows inline."""
    input:
        lambda w: report_grid.source_file(w.dataset, w.page),
    output:
        report(
            report_grid.PAGE,
            caption="captions/report_page.rst",
            category=lambda w: report_grid.PAGES[w.page].category,
            subcategory="{dataset}",
            labels=lambda w: {"page": report_grid.PAGES[w.page].title},
        ),
    params:
        title=lambda w: f"{w.dataset}: {report_grid.PAGES[w.page].title}",
        caption=lambda w: report_grid.PAGES[w.page].caption,
    wildcard_constraints:
        page="|".join(report_grid.PAGES),
    log:
        log("report_page"),
    benchmark:
        benchmark("report_page")
    threads: 1
    resources:
        mem_mb=rule_resources("report_page", "mem_mb"),
        runtime=rule_resources("report_page", "runtime"),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/report_page.py"


rule report_landing:
    """The report's first page: the intro, then each data set's summary and performance table."""
    input:
        lambda w: list(report_grid.landing_inputs(_TARGETS).values()),
    output:
        report_grid.LANDING,
    params:
        sections=lambda w: report_grid.landing_inputs(_TARGETS),
        intro=os.path.join(workflow.basedir, "rules", "captions", "workflow.rst"),
    log:
        fill(paths.RUN_LOG, job="report_landing"),
    benchmark:
        fill(paths.RUN_BENCHMARK, job="report_landing")
    threads: 1
    resources:
        mem_mb=rule_resources("report_landing", "mem_mb"),
        runtime=rule_resources("report_landing", "runtime"),
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/report_landing.py"
