"""The core run: raw folds -> parsed folds -> one prediction file per (learner, fold, seed) -> per-query
metrics -> the performance table and figure."""

from ...workflow.section import Section
from . import grid

SECTION = Section("core", "run", grid)
