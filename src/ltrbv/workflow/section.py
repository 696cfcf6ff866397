"""What a section of the workflow is: one folder, one rules file, one schema, one job grid.

A section (the core run, the bagging experiments, the bias-variance study, active evaluation, the forest
diagnostics, the catalog, the report) is a package ``ltrbv/sections/<name>/``; its rules are
``rules/<name>.smk`` and its config schema ``config/schema/<name>.schema.yaml``; the registry
(:mod:`ltrbv.workflow.sections`) declares its :class:`Section`.  Its grid module
(``ltrbv/sections/<name>/grid.py``) provides

* ``settings(config)``: its settings (defaults filled in by the schema), or None when it is off;
* ``targets(config)``: the files it makes, requested by ``rule all`` when it is on;
* ``problems(config, sections)``: config mistakes the schema cannot see, each naming its key
  (``sections``: the registry, for a section that refers to others, e.g. a catalog target entry);
* ``JOBS``: each of its rules' job name (the ``{job}`` of its log and benchmark files): the rule and the
  wildcards that tell its jobs apart, e.g. ``train_model/{learner}/{fold}/seed{seed}``;
* ``PAGES``: its tables and summaries the HTML report shows as pages (:class:`Page`), if any;

and optionally ``schema(document)``, which completes the schema file's document (the catalog adds its entry
kinds' fields), ``expand(config)``, which adds the learners the section generates to ``learners:`` (run once
by the config check, before the core run's checks, so that generated learners are checked and trained like
the config's own), and ``derived_targets(targets, sections)``, files made from the other sections' targets
(the report's pages).  The registry lists the sections in order; nothing else names them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

#: the repository's folder of config schemas (beside src/, where the workflow runs from)
SCHEMA_DIR = Path(__file__).resolve().parents[3] / "config" / "schema"


@dataclass(frozen=True)
class Page:
    """A table or summary of a section shown as an HTML page in the report (rule ``report_page``)."""

    source: str  # a path template with {dataset} left
    category: str  # the report's menu entry, numbered so that the menu follows the sections' order
    title: str
    caption: str


@dataclass(frozen=True)
class Section:
    """One section: its folder's ``name`` (which names its rules file and schema), its top-level config ``key``
    (None: always on, no settings of its own) and its job ``grid``."""

    name: str
    key: str | None
    grid: ModuleType
    has_schema: bool = True

    @property
    def rules(self) -> str:
        """Its rules file, relative to the Snakefile's folder."""
        return f"rules/{self.name}.smk"

    @property
    def schema(self) -> Path | None:
        return SCHEMA_DIR / f"{self.name}.schema.yaml" if self.has_schema else None

    def schema_document(self) -> dict | None:
        """Its schema: the file's document, completed by its grid's ``schema`` where it has one."""
        if self.schema is None:
            return None
        from .schema_errors import _load

        document = _load(self.schema)
        return self.grid.schema(document) if hasattr(self.grid, "schema") else document

    @property
    def jobs(self) -> dict[str, str]:
        return dict(self.grid.JOBS)

    @property
    def pages(self) -> dict[str, Page]:
        return dict(getattr(self.grid, "PAGES", {}))

    def settings(self, config: dict):
        return self.grid.settings(config)

    def on(self, config: dict) -> bool:
        return self.settings(config) is not None

    def targets(self, config: dict) -> list[str]:
        return self.grid.targets(config) if self.on(config) else []

    def problems(self, config: dict, sections) -> list[str]:
        return self.grid.problems(config, sections) if self.on(config) else []

    def expand(self, config: dict) -> list[str]:
        if not self.on(config) or not hasattr(self.grid, "expand"):
            return []
        return self.grid.expand(config)
