"""The registry of the workflow's sections, in order: the one place that names them all.

Each section is a folder ``ltrbv/sections/<name>/`` with a rules file ``rules/<name>.smk`` and a schema
``config/schema/<name>.schema.yaml`` (:mod:`ltrbv.workflow.section`).  The Snakefile includes every section's
rules and asks every section for its targets; the config check (:mod:`ltrbv.workflow.config_checks`) asks each
for its schema, its generated learners and its problems.  A new section is a folder with its grid, a rules
file, a schema, and one line here.

The registry sits above the sections (it imports them) and the sections above the workflow's kernel
(``paths``, ``datasets``, ``validation`` ...); a section that needs another's targets (the catalog's target
entries, the report's pages) is handed the registry, it does not import it.
"""

from __future__ import annotations

from ..sections.active import grid as active
from ..sections.bagging import grid as bagging
from ..sections.biasvar import grid as biasvar
from ..sections.catalog import grid as catalog
from ..sections.core import grid as core
from ..sections.diagnostics import grid as diagnostics
from ..sections.report import grid as report
from .section import Page, Section


class Sections(tuple):
    """The sections in order (the core run first, the report last), with what is asked of all of them."""

    def by_key(self, key: str) -> Section:
        for section in self:
            if section.key == key:
                return section
        raise KeyError(key)

    def keys(self) -> list[str]:
        return [section.key for section in self if section.key is not None]

    def on(self, config: dict, key: str) -> bool:
        """Whether the config switches on the section whose config key is ``key``."""
        return any(section.key == key and section.on(config) for section in self)

    def targets(self, config: dict) -> list[str]:
        """What ``rule all`` asks for: every section's targets, then the files derived from them (the report)."""
        made = [target for section in self for target in section.targets(config)]
        derived = [target for section in self if hasattr(section.grid, "derived_targets")
                   for target in section.grid.derived_targets(made, self)]
        return made + derived

    def jobs(self) -> dict[str, str]:
        """``{rule: job name template}`` of every rule (the ``{job}`` of log and benchmark files)."""
        out = {}
        for section in self:
            for rule, job in section.jobs.items():
                if rule in out:
                    raise ValueError(f"rule {rule!r} is declared by two sections")
                out[rule] = job
        return out

    def pages(self) -> dict[str, Page]:
        """``{page: Page}`` of every section's tables and summaries the report shows."""
        return {name: page for section in self for name, page in section.pages.items()}


#: (folder and file name, top-level config key, job grid), in order: the core run first (its learners are every
#: section's), the report last (its pages are the others' tables)
SECTIONS = Sections((
    Section("core", "run", core),
    Section("bagging", "bagging", bagging),
    Section("biasvar", "biasvar", biasvar),
    Section("active", "active", active),
    Section("diagnostics", "diagnostics", diagnostics),
    Section("catalog", "catalog", catalog),
    Section("report", None, report, has_schema=False),
))
