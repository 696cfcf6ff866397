"""Helpers the Snakefile calls at parse time: dataset layouts, raw-file checks, job grids."""
