"""The HTML report's pages of tables and summaries (rule report_page), by category.

Snakemake's report shows figures and HTML inline but Markdown and CSV only as downloads, so every table
and summary a run makes gets an HTML page (``results/{dataset}/report/{page}.html``).  A page exists for a
config exactly when its source file is among the run's targets.  Categories are numbered so that the
report's menu opens on the summary, then performance, bias and variance and the optional experiments.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import paths

SUMMARY = "1. Summary"
PERFORMANCE = "2. Performance"
BIAS_VARIANCE = "3. Bias and variance"
BAGGING = "4. Bagged LambdaMART"
ACTIVE = "5. Active evaluation"
FORESTS = "6. Forest diagnostics"
CATALOG = "7. Reproduction catalog"

PAGE = paths.REPORT_PAGE

#: the report's first page (rule report_landing): the summary and the performance table of every data set
LANDING = paths.REPORT_LANDING
#: what the first page shows of each data set, when the run makes it
LANDING_PAGES = ("performance", "summary")


@dataclass(frozen=True)
class Page:
    source: str  # a path template with {dataset} left
    category: str
    title: str
    caption: str


PAGES = {
    "summary": Page(paths.SUMMARY, SUMMARY, "Summary",
                    "Each claim of Ibrahim (2021), Ibrahim & Carman (2016) and Zhang et al. (2013) next to what "
                    "this run measured, with confidence intervals over test queries."),
    "performance": Page(paths.table("performance", "md"), PERFORMANCE, "Performance",
                        "Mean of each metric over each learner's seeds, per test fold and over folds "
                        "(tables/performance.csv has every value)."),
    "significance": Page(paths.table("significance", "md"), PERFORMANCE, "Significance",
                         "Performance of every learner (mean ± std over folds) with two-sided paired t-tests and "
                         "randomisation tests over the pooled test queries against the baseline: * p < 0.05, "
                         "** p < 0.01, † significantly worse."),
    "biasvar_comparison": Page(paths.table("biasvar_comparison", "md"), BIAS_VARIANCE, "Bias and variance per learner",
                               "Table 5 analogue (Ibrahim 2021): systematic ranking error (SRE), variability (VRE) and "
                               "ranking error of the compared learners at their configured parameters, with "
                               "confidence intervals over test queries."),
    "biasvar_sweep": Page(paths.table("biasvar_sweep", "csv"), BIAS_VARIANCE, "Sweep",
                          "Bias-variance estimates of every run of the study (Ibrahim 2021, eq. 5-8 and 14-17): one "
                          "row per learner, fold, setting of the swept parameter, scheme, quantity and metric, "
                          "with a confidence interval over test queries (the numbers of Figs. 5-7)."),
    "biasvar_trends": Page(paths.table("biasvar_trends", "csv"), BIAS_VARIANCE, "Paired trend tests",
                           "Largest minus smallest sweep value, and two-fold minus bootstrap, on the same test "
                           "queries, with 95% intervals over queries."),
    "zhang": Page(paths.table("zhang", "md"), BIAS_VARIANCE, "Zhang et al. (2013)",
                  "Zhang et al. (2013): for the run's learners on the same test queries, squared bias of the "
                  "metric (eq. 1), its variance across queries (eq. 2) and bias² + variance (eq. 3); targets: the "
                  "perfect ranking, the per-query best learner, or a named learner."),
    "bagging_performance": Page(paths.table("bagging_performance", "md"), BAGGING, "Ganjisaffar et al. Table 4",
                                "NDCG@1, @3, @5, mean NDCG and MAP per fold and over folds."),
    "variance_trials": Page(paths.table("variance_trials", "md"), BAGGING, "Ganjisaffar et al. Table 5",
                            "Mean and variance of the test metrics across training samples."),
    "bag_size": Page(paths.table("bag_size", "csv"), BAGGING, "Ganjisaffar et al. Fig. 4 data",
                     "Validation metric of bags of m sub-models, mean over draws."),
    "catalog": Page(paths.CATALOG, CATALOG, "Reproduction catalog",
                    "Every table and figure of the papers in the catalog: the paper's claim and numbers, this run's "
                    "numbers, a verdict, the file that has them and the CPU time behind them."),
    "active_savings": Page(paths.fill(paths.ACTIVE_TABLE, name="savings", ext="md"), ACTIVE, "Label savings",
                           "Label savings of active over passive estimation at the largest budget: the share of that "
                           "budget active sampling does not need to match passive sampling's mean absolute error "
                           "(negative: passive needs less). Published on MSLR-WEB30K at Λ = 300: 10-20% "
                           "(absolute estimation), 30-55% (comparisons)."),
}


def source_file(dataset: str, page: str) -> str:
    return PAGES[page].source.format(dataset=dataset)


def page_targets(targets) -> list[str]:
    """The pages whose source files are among ``targets`` (the run's other targets)."""
    wanted = set(map(str, targets))
    datasets = sorted({paths.dataset_of(t) for t in wanted} - {None})
    return [PAGE.format(dataset=d, page=p) for d in datasets for p in PAGES if source_file(d, p) in wanted]


def landing_inputs(targets) -> dict[str, str]:
    """``{"<dataset>: <title>": source}`` of the first page's sections, in data set order."""
    wanted = set(map(str, targets))
    datasets = [d for d in dict.fromkeys(paths.dataset_of(t) for t in map(str, targets)) if d is not None]
    return {f"{d}: {PAGES[p].title}": source_file(d, p) for d in datasets for p in LANDING_PAGES
            if source_file(d, p) in wanted}
