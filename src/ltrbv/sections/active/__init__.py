"""Active estimation of ranking performance (Sawade et al. 2013); config section ``active``."""

from ...workflow.section import Section
from . import grid

SECTION = Section("active", "active", grid)
