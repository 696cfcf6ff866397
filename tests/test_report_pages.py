"""The report's HTML pages of tables and summaries (issue 17): Markdown and CSV rendered as tables."""

from __future__ import annotations

import pandas as pd

from ltrbv.sections.report.pages import markdown_page, table_page
from ltrbv.sections.report import grid as report_grid
from ltrbv.workflow.sections import SECTIONS

PAGES = SECTIONS.pages()


def test_markdown_tables_render_as_tables_and_metric_names_stay_text():
    page = markdown_page("# Summary\n\n| learner | ndcg@10 |\n|---|---|\n| rf-point | 0.2238 |\n\n- **yes**: <b>x</b>\n",
                         "demo: Summary")
    assert "<table>" in page and "<th>ndcg@10</th>" in page and "<td>0.2238</td>" in page
    assert "mailto" not in page
    assert "<strong>yes</strong>" in page and "&lt;b&gt;x&lt;/b&gt;" in page  # raw HTML is escaped
    assert "<title>demo: Summary</title>" in page


def test_csv_tables_render_with_numbers_aligned():
    table = pd.DataFrame({"learner": ["a", "b"], "value": [0.123456789, 2.0], "n": [3, 4], "note": ["x", None]})
    page = table_page(table, "t")
    assert '<td class="num">0.123457</td>' in page and '<td class="num">4</td>' in page
    assert '<td class="">x</td>' in page and page.count("<tr>") == 3


def test_pages_exist_exactly_for_the_targets_of_the_run():
    targets = ["results/demo/summary.md", "results/demo/tables/performance.md", "results/demo/tables/performance.csv",
               "results/mq/tables/zhang.md", "results/demo/figures/performance.png"]
    assert report_grid.page_targets(targets, PAGES) == ["results/demo/report/performance.html",
                                                        "results/demo/report/summary.html",
                                                 "results/mq/report/zhang.html"]


def test_the_summary_comes_first_in_the_menu():
    from ltrbv.sections.biasvar.grid import SUMMARY_CATEGORY

    categories = sorted({page.category for page in PAGES.values()})
    assert categories[0] == SUMMARY_CATEGORY


def test_the_report_opens_on_the_performance_table_and_the_summary():
    from docutils.core import publish_parts

    from ltrbv.sections.report.pages import landing_rst

    targets = ["results/demo/summary.md", "results/demo/tables/performance.md", "results/demo/figures/x.png"]
    inputs = report_grid.landing_inputs(targets, PAGES)
    assert list(inputs.values()) == ["results/demo/tables/performance.md", "results/demo/summary.md"]
    text = landing_rst("Title\n=====\n\nIntro.", [("demo: Performance", "# Performance on demo\n\n| a | b |\n|---|---|\n"
                                                   "| {{x}} | 2 |\n"), ("demo: Summary", "no heading here")])
    assert "{% raw %}" in text and "{% endraw %}" in text  # the report's Jinja pass leaves the HTML alone
    rendered = publish_parts(text.replace("{% raw %}", "").replace("{% endraw %}", ""), writer="html")["html_body"]
    assert "<h2>Performance on demo</h2>" in rendered and "<td>{{x}}</td>" in rendered
    assert "demo: Summary" in rendered and "no heading here" in rendered
