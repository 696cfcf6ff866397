"""The documentation (issue 29): README.md stays short (what it is, quick start, the test command, a map of
docs/), every relative link and #anchor of README.md and docs/*.md resolves as GitHub renders it, every page is
on the README's map, every ``docs/<page>.md#anchor`` that the package, configs and tests name resolves, and the
notebook API page's Python snippets run, in order, in one session."""

from __future__ import annotations

import contextlib
import io
import os
import re
import warnings
from pathlib import Path

import pytest

from markdown_links import anchors, broken_links, links, slug

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
PAGES = sorted(DOCS.glob("*.md"))
README_MAX_LINES = 250


def test_readme_is_short():
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (f"README.md has {len(lines)} lines (at most {README_MAX_LINES}): move "
                                            "the detail to a page under docs/ and link it from 'Where to go next'")


@pytest.mark.parametrize("path", [REPO / "README.md", *PAGES], ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_relative_link_and_anchor_resolves(path):
    problems = broken_links(path, REPO)
    assert not problems, "broken links:\n  " + "\n  ".join(problems)


def test_every_docs_page_is_on_the_readme_map():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Where to go next", 1)[1].split("\n## ", 1)[0]
    mapped = {target.partition("#")[0] for _, target in links(section)}
    missing = [page.name for page in PAGES if f"docs/{page.name}" not in mapped]
    assert not missing, f"docs pages missing from the README's 'Where to go next': {missing}"


# the places that point users at a docs page: messages, --help texts, config comments, benchmark notes
POINTERS = ["src/**/*.py", "config/**/*.yaml", "rules/*.smk", "Snakefile", "tests/**/*.py", "tests/**/*.md",
            "examples/*.py", ".ci/*", "profiles/**/*.yaml", "results/README.md"]
DOC_REFERENCE = re.compile(r"docs/([\w.-]+\.md)(?:#([\w-]+))?")


def test_docs_pages_and_anchors_named_in_the_code_exist():
    problems, seen = [], 0
    for pattern in POINTERS:
        for path in sorted(REPO.glob(pattern)):
            if not path.is_file() or path.name == "test_docs.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                for page, anchor in DOC_REFERENCE.findall(line):
                    seen += 1
                    target = DOCS / page
                    where = f"{path.relative_to(REPO)}:{number}: docs/{page}{'#' + anchor if anchor else ''}"
                    if not target.is_file():
                        problems.append(f"{where}: no such page")
                    elif anchor and anchor not in anchors(target.read_text(encoding="utf-8")):
                        problems.append(f"{where}: no such heading")
    assert seen > 0, "no docs/ reference found at all: the scan is broken"
    assert not problems, "\n".join(problems)


# -- the checker itself: GitHub's slugs, and a broken link is reported ----------------------------------------

@pytest.mark.parametrize("heading, expected", [
    # GitHub's own anchors (as github-slugger, and as collected from GitHub's rendering by vscode-markdown's tests)
    ("foo _italic_ bar", "foo-italic-bar"),
    ("foo_foo_bar", "foo_foo_bar"),
    ("`a.b` c", "ab-c"),
    ("Via [remark-cli][]", "via-remark-cli"),
    ("1. not a list", "1-not-a-list"),
    ("heading with a period.txt", "heading-with-a-periodtxt"),
    ("I ♥ unicode", "i--unicode"),
    # this repository's own kinds of heading
    ("Checking a copy: `ltrbv data verify ROOT`", "checking-a-copy-ltrbv-data-verify-root"),
    ("Ganjisaffar et al.'s experiments (bagging)", "ganjisaffar-et-als-experiments-bagging"),
    ("Setup (§5)", "setup-5"),
    ("Comparing systems: compare_scores", "comparing-systems-compare_scores"),
])
def test_slugs_are_githubs(heading, expected):
    assert slug(heading) == expected


def test_repeated_headings_and_code_blocks_are_handled_as_github_does():
    text = "# Notes\n\n## Notes\n\n```bash\n# not a heading\n[not](a-link.md)\n```\n\n## Notes\n"
    assert anchors(text) == {"notes", "notes-1", "notes-2"}
    assert links(text) == []


def test_a_broken_link_or_anchor_is_reported(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# Page\n\n## A section\n\n[back](../README.md#intro)\n")
    (tmp_path / "README.md").write_text(
        "# Intro\n\n[ok](docs/page.md#a-section) [ok](#intro) [ok](docs/page.md) [web](https://example.org/x)\n"
        "[missing page](docs/nope.md) [missing anchor](docs/page.md#b-section) [here](#outro)\n"
        "`[in code](docs/nope.md)` [outside](../elsewhere.md)\n")
    problems = broken_links(tmp_path / "README.md", tmp_path)
    assert [p.split(": ", 2)[1] for p in problems] == ["docs/nope.md", "docs/page.md#b-section", "#outro",
                                                       "../elsewhere.md"]
    assert broken_links(tmp_path / "docs" / "page.md", tmp_path) == []


# -- the notebook API page runs --------------------------------------------------------------------------------

def python_blocks(path: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(encoding="utf-8"), flags=re.S | re.M)


def test_the_notebook_api_page_runs(tmp_path, monkeypatch):
    """Every ```python block of docs/api.md, in order, in one namespace, in an empty folder, and what its
    ``print(...)  # prints VALUE`` lines promise is printed."""
    blocks = python_blocks(DOCS / "api.md")
    assert len(blocks) >= 7, "docs/api.md: data, metrics, learners, scikit-learn, decompose, compare, seeds"
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    output = io.StringIO()
    with contextlib.redirect_stdout(output), warnings.catch_warnings():
        warnings.simplefilter("error")  # a snippet that warns (a deprecation, a bad parameter) is a wrong snippet
        for number, block in enumerate(blocks, start=1):
            try:
                exec(compile(block, f"docs/api.md, python block {number}", "exec"), namespace)
            except Exception as error:  # noqa: BLE001 (the block and the error, for the reader)
                raise AssertionError(f"docs/api.md, python block {number} fails: {error!r}\n{block}") from error
    printed = output.getvalue().splitlines()
    promised = [(expression, value) for block in blocks  # "print(...)  # prints VALUE": VALUE is a line it prints
                for expression, value in re.findall(r"^print\((.*)\)\s+# prints (.+?)(?: \(.*\))?$", block, flags=re.M)]
    assert len(promised) >= 5
    lines = iter(printed)  # in order: each promise is met by a line after the previous one's
    for expression, value in promised:
        assert any(line.startswith(value) for line in lines), (
            f"docs/api.md: print({expression}) promises {value!r} (in this order); printed:\n" + "\n".join(printed))
    assert os.listdir(tmp_path), "the page's file example wrote nothing"
