"""Relative links and #anchors of plain Markdown files, resolved as GitHub renders them (tests/test_docs.py).

A heading's anchor is GitHub's slug of its text (github-slugger): inline code, links and emphasis reduced
to their text, lower case, every character that is not a letter, digit, ``_``, ``-`` or space removed, each
space a ``-``; a slug seen before in the same file gets ``-1``, ``-2``, ...  Code blocks are not Markdown:
their ``# lines`` are no headings and their ``[x](y)`` no links.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_TEXT = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every line outside fenced code blocks."""
    lines, fence = [], None
    for number, line in enumerate(text.splitlines(), start=1):
        match = FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)[0] * len(match.group(1))
        elif fence is not None and line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
            fence = None
        elif fence is None:
            lines.append((number, line))
    return lines


def heading_text(markdown: str) -> str:
    """What a heading renders as: code spans, links and emphasis reduced to their text."""
    text = INLINE_CODE.sub(lambda m: m.group(2).strip(), markdown)
    text = LINK.sub(lambda m: m.group(1), text)
    text = REFERENCE_TEXT.sub(lambda m: m.group(1), text)
    return re.sub(r"(?<!\w)[*_]+|[*_]+(?!\w)", "", text)  # emphasis markers, not the _ inside a word


def slug(heading: str) -> str:
    """GitHub's anchor of one heading (before de-duplication)."""
    text = heading_text(heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor a file defines: its headings' slugs (de-duplicated as GitHub does) and HTML anchors."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in prose_lines(text):
        match = HEADING.match(line)
        if match:
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        found.update(HTML_ANCHOR.findall(line))
    return found


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every inline link, image and link definition outside code."""
    found = []
    for number, line in prose_lines(text):
        definition = DEFINITION.match(line)
        if definition:
            found.append((number, definition.group(1)))
            continue
        line = INLINE_CODE.sub("", line)
        found.extend((number, target) for _, target in LINK.findall(line))
    return found


def broken_links(path: Path, root: Path) -> list[str]:
    """``file:line: target: why`` for each relative link of ``path`` whose file or anchor does not exist (links
    leaving ``root``, the repository, count as broken: GitHub cannot show them)."""
    problems = []
    for number, target in links(path.read_text(encoding="utf-8")):
        if SCHEME.match(target) or target.startswith("//"):
            continue  # http(s), mailto: not checked (no network)
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / unquote(file_part)).resolve() if file_part else path.resolve()
        where = f"{path.relative_to(root)}:{number}: {target}"
        if file_part and not resolved.is_relative_to(root.resolve()):
            problems.append(f"{where}: leaves the repository")
        elif not resolved.exists():
            problems.append(f"{where}: no such file")
        elif anchor:
            if resolved.suffix != ".md" or not resolved.is_file():
                problems.append(f"{where}: an anchor into a file that is not Markdown")
            elif unquote(anchor) not in anchors(resolved.read_text(encoding="utf-8")):
                problems.append(f"{where}: no heading with anchor #{anchor} in {resolved.relative_to(root.resolve())}")
    return problems
