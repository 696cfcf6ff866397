"""The HTML report's pages of tables and summaries (rule report_page), and its first page (rule report_landing).

Snakemake's report shows figures and HTML inline but Markdown and CSV only as downloads, so every table
and summary a run makes gets an HTML page (``results/{dataset}/report/{page}.html``).  Each section declares
its pages (``PAGES`` in its grid, :class:`~ltrbv.workflow.section.Page`); a page exists for a config exactly when
its source file is among the run's targets.  Categories are numbered so that the report's menu opens on the
summary and follows the order of the sections.
"""

from __future__ import annotations

from ...workflow import paths
from ...workflow.paths import DATASET, RESULTS

#: one table or summary as an HTML page
PAGE = DATASET + "/report/{page}.html"
#: the report's first page (rule report_landing): the summary and the performance table of every data set
LANDING = RESULTS + "/report/index.rst"
#: what the first page shows of each data set, when the run makes it
LANDING_PAGES = ("performance", "summary")

#: its top-level config key (None: always on) and its place in the registry's order (ltrbv.workflow.sections)
CONFIG_KEY = None
ORDER = 100  # always on (no settings, no schema); its pages are the others' tables: last

JOBS = {"report_page": "report_page/{page}", "report_landing": "report_landing"}


def source_file(pages: dict, dataset: str, page: str) -> str:
    return pages[page].source.format(dataset=dataset)


def page_targets(targets, pages: dict) -> list[str]:
    """The pages whose source files are among ``targets`` (the run's other targets)."""
    wanted = set(map(str, targets))
    datasets = sorted({paths.dataset_of(t) for t in wanted} - {None})
    return [PAGE.format(dataset=d, page=p) for d in datasets for p in pages if source_file(pages, d, p) in wanted]


def landing_inputs(targets, pages: dict) -> dict[str, str]:
    """``{"<dataset>: <title>": source}`` of the first page's sections, in data set order."""
    wanted = set(map(str, targets))
    datasets = [d for d in dict.fromkeys(paths.dataset_of(t) for t in map(str, targets)) if d is not None]
    return {f"{d}: {pages[p].title}": source_file(pages, d, p) for d in datasets for p in LANDING_PAGES
            if p in pages and source_file(pages, d, p) in wanted}


# -- the section protocol: always on, its files derived from the other sections' targets ---------------------


def settings(config: dict) -> dict:
    return {}


def targets(config: dict) -> list[str]:
    return []


def derived_targets(targets, sections) -> list[str]:
    """Every page of the run's tables and summaries, and the first page when it has something to show."""
    pages = sections.pages()
    return page_targets(targets, pages) + ([LANDING] if landing_inputs(targets, pages) else [])


def problems(config: dict, sections=None) -> list[str]:
    return []
