# The HTML report: every section's tables and summaries as pages, and the first page (job grid:
# ltrbv.sections.report.grid; each section declares its pages, SECTIONS.pages()).

from ltrbv.sections.report import grid as report_grid

_PAGES = SECTIONS.pages()


rule report_page:
    """A table (CSV) or Markdown file (summary, Markdown tables) as an HTML page the report shows inline."""
    input:
        lambda w: report_grid.source_file(_PAGES, w.dataset, w.page),
    output:
        report(
            report_grid.PAGE,
            caption="captions/report_page.rst",
            category=lambda w: _PAGES[w.page].category,
            subcategory="{dataset}",
            labels=lambda w: {"page": _PAGES[w.page].title},
        ),
    params:
        title=lambda w: f"{w.dataset}: {_PAGES[w.page].title}",
        caption=lambda w: _PAGES[w.page].caption,
    wildcard_constraints:
        page="|".join(_PAGES),
    log:
        log("report_page"),
    benchmark:
        benchmark("report_page")
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/report/report_page.py"


rule report_landing:
    """The report's first page: the intro, then each data set's summary and performance table."""
    input:
        lambda w: list(report_grid.landing_inputs(_TARGETS, _PAGES).values()),
    output:
        report_grid.LANDING,
    params:
        sections=lambda w: report_grid.landing_inputs(_TARGETS, _PAGES),
        intro=os.path.join(workflow.basedir, "rules", "captions", "workflow.rst"),
    log:
        fill(paths.RUN_LOG, job=JOBS["report_landing"]),
    benchmark:
        fill(paths.RUN_BENCHMARK, job=JOBS["report_landing"])
    threads: 1
    conda:
        "../envs/ltrbv.yaml"
    script:
        "../src/scripts/report/report_landing.py"
