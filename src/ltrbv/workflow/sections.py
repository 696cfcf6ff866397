"""The workflow's sections: the core run and the optional experiments, each behind one protocol.

A section is a top-level config key with a job grid module that provides

* ``settings(config)``: its settings (defaults filled in by the schema), or None when it is off;
* ``targets(config)``: the files it makes, requested by ``rule all`` when it is on;
* ``problems(config)``: config mistakes the schema cannot see, each naming its key;

and optionally a schema file of its own under ``config/schema/``, and ``expand(config)``, which adds
the learners the section generates to ``learners:`` (run once by ``check_config``, before the core
run's checks, so that generated learners are checked and trained like the config's own).  A new
experiment is one more entry in :data:`SECTIONS` (plus its rules).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from . import active_grid, bagging_grid, biasvar_grid, catalog_grid, core_grid, diagnostics_grid


@dataclass(frozen=True)
class Section:
    key: str  # its top-level config key
    grid: ModuleType  # provides settings, targets, problems
    schema: str | None = None  # file under config/schema/ validating config[key], if any

    def settings(self, config: dict):
        return self.grid.settings(config)

    def targets(self, config: dict) -> list[str]:
        return self.grid.targets(config) if self.settings(config) is not None else []

    def problems(self, config: dict) -> list[str]:
        return self.grid.problems(config) if self.settings(config) is not None else []

    def expand(self, config: dict) -> list[str]:
        if self.settings(config) is None or not hasattr(self.grid, "expand"):
            return []
        return self.grid.expand(config)


SECTIONS = (
    Section("run", core_grid),
    Section("experiments", bagging_grid),
    Section("biasvar", biasvar_grid, "biasvar.schema.yaml"),
    Section("active", active_grid, "active.schema.yaml"),
    Section("diagnostics", diagnostics_grid, "diagnostics.schema.yaml"),
    Section("catalog", catalog_grid, "catalog.schema.yaml"),
)


def all_targets(config: dict) -> list[str]:
    """What ``rule all`` asks for: every section's targets, asked the same way."""
    return [target for section in SECTIONS for target in section.targets(config)]
