"""HTML pages of the workflow's tables and summary for Snakemake's report, which shows HTML inline but
offers Markdown and CSV files only as downloads.

:func:`markdown_page` renders a Markdown file (the summary, the Markdown tables: GitHub pipe tables,
headings, lists, emphasis, code); :func:`table_page` renders a CSV table.  Both give a standalone page
with a little CSS, so numbers line up and long tables scroll.
"""

from __future__ import annotations

import html

import pandas as pd

_TABLE_CSS = """
$table { border-collapse: collapse; margin: 0.6em 0 1.2em 0; }
$th, $td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }
$td.num, $th.num { text-align: right; font-variant-numeric: tabular-nums; }
$thead th { background: #f2f2f2; position: sticky; top: 0; }
$tbody tr:nth-child(even) { background: #fafafa; }
$code { background: #f4f4f4; padding: 0 3px; }
"""

_STYLE = """
body { font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; font-size: 14px; margin: 1em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.2em; margin-top: 1.4em; } h3 { font-size: 1.05em; }
""" + _TABLE_CSS.replace("$", "")

#: the table rules only, scoped to ``<div class="ltrbv">``, for HTML inside the report's own page; and for
#: Snakemake's landing page (its Tailwind classes, snakemake 9): start at the top, not vertically centred (a
#: long page would otherwise begin above the window), and wide enough for the tables
_SCOPED_STYLE = " ".join(_TABLE_CSS.replace("$", ".ltrbv ").split()) + (
    " .h-screen.items-center:has(.ltrbv) { align-items: flex-start; }"
    " .prose:has(.ltrbv) { max-width: 72rem; }"
    " .ltrbv code::before, .ltrbv code::after { content: none; }")


def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{_STYLE}</style></head>\n<body>\n{body}\n</body></html>\n")


def markdown_html(text: str) -> str:
    """A Markdown document as an HTML fragment (tables enabled; raw HTML in the text is escaped)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


def markdown_page(text: str, title: str) -> str:
    """A Markdown document as an HTML page."""
    return _page(title, markdown_html(text))


def landing_rst(intro: str, sections: list[tuple[str, str]]) -> str:
    """The report's first page: ``intro`` (reStructuredText), then each ``(heading, Markdown)`` section rendered
    as HTML inside a ``raw`` block (the report renders the page with Jinja first: the block is kept verbatim)."""
    parts = [intro.rstrip() + "\n"]
    for heading, text in sections:
        fragment = markdown_html(text)
        if text.lstrip().startswith("# "):
            fragment = fragment.replace("<h1>", "<h2>", 1).replace("</h1>", "</h2>", 1)
        html_block = f"<style>{_SCOPED_STYLE}</style>\n<div class=\"ltrbv\">\n{fragment}</div>"
        body = "\n".join("   " + line if line else "" for line in html_block.splitlines())
        title = "" if text.lstrip().startswith("# ") else f"\n{heading}\n{'-' * len(heading)}\n"
        parts.append(f"{title}\n{{% raw %}}\n\n.. raw:: html\n\n{body}\n\n{{% endraw %}}\n")
    return "".join(parts)


def table_page(table: pd.DataFrame, title: str, note: str = "") -> str:
    """A CSV table as an HTML page: numbers right-aligned with up to 6 significant digits."""
    rows = []
    numeric = [pd.api.types.is_numeric_dtype(table[c]) for c in table.columns]
    head = "".join(f"<th class=\"{'num' if n else ''}\">{html.escape(str(c))}</th>"
                   for c, n in zip(table.columns, numeric))
    for values in table.itertuples(index=False):
        cells = []
        for value, is_number in zip(values, numeric):
            if is_number and pd.notna(value):
                text = f"{value:.6g}" if isinstance(value, float) else str(value)
            else:
                text = "" if pd.isna(value) else str(value)
            cells.append(f"<td class=\"{'num' if is_number else ''}\">{html.escape(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    body = (f"<h1>{html.escape(title)}</h1>\n" + (f"<p>{html.escape(note)}</p>\n" if note else "")
            + f"<table><thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(rows) + "\n</tbody></table>")
    return _page(title, body)
