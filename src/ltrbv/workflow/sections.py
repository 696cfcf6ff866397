"""The registry of the workflow's sections, in order: found, not listed.

Each section is a folder ``ltrbv/sections/<name>/`` with a rules file ``rules/<name>.smk`` and a schema
``config/schema/<name>.schema.yaml`` (:mod:`ltrbv.workflow.section`).  The registry finds every folder of
``ltrbv/sections`` that holds a ``grid.py`` and orders them by the grid's ``ORDER``; the grid's ``CONFIG_KEY``
names its top-level config key.  The Snakefile includes every section's rules and asks every section for its
targets; the config check (:mod:`ltrbv.workflow.config_checks`) asks each for its schema, its generated learners
and its problems.  A new section is three new files (its grid, its rules file, its schema) and no edit elsewhere.

The registry sits above the sections (it imports them) and the sections above the workflow's kernel
(``paths``, ``datasets``, ``validation`` ...); a section that needs another's targets (the catalog's target
entries, the report's pages) is handed the registry, it does not import it.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from .. import sections as sections_package
from .section import SCHEMA_DIR, Page, Section

#: what every section's grid module declares (the rest of the protocol: ltrbv.workflow.section)
DECLARED = ("CONFIG_KEY", "ORDER", "JOBS", "settings", "targets", "problems")


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


def discover(package=sections_package, schema_dir: Path = SCHEMA_DIR) -> Sections:
    """Every folder of ``package`` with a ``grid.py``, as a :class:`Section`, in the grids' ``ORDER``.

    A grid that lacks part of the protocol, two grids with one ``ORDER`` or one config key, or a section with a
    config key but no schema file is refused here, naming the file: the registry never guesses an order."""
    folder = Path(package.__file__).resolve().parent
    found = []
    for grid_file in sorted(folder.glob("*/grid.py")):
        name = grid_file.parent.name
        grid = importlib.import_module(f"{package.__name__}.{name}.grid")
        missing = [attr for attr in DECLARED if not hasattr(grid, attr)]
        if missing:
            raise TypeError(f"{grid_file}: a section's grid declares {', '.join(missing)} "
                            f"(the protocol: ltrbv/workflow/section.py)")
        section = Section(name, grid.CONFIG_KEY, grid, has_schema=grid.CONFIG_KEY is not None)
        if section.schema is not None and not (schema_dir / f"{name}.schema.yaml").is_file():
            raise FileNotFoundError(f"{grid_file}: section {name!r} has config key {grid.CONFIG_KEY!r} but no "
                                    f"schema {schema_dir / f'{name}.schema.yaml'}")
        found.append(section)
    found.sort(key=lambda section: section.grid.ORDER)
    for first, second in zip(found, found[1:]):
        if first.grid.ORDER == second.grid.ORDER:
            raise ValueError(f"sections {first.name!r} and {second.name!r} both declare ORDER = {first.grid.ORDER}")
    keys = [section.key for section in found if section.key is not None]
    if len(set(keys)) != len(keys):
        raise ValueError(f"two sections declare one CONFIG_KEY: {sorted(keys)}")
    return Sections(found)


#: every section, in order: the core run first (its learners are every section's), the report last (its pages are
#: the others' tables)
SECTIONS = discover()
