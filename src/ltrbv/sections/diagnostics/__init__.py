"""Forest diagnostics (Ibrahim & Carman 2016): the progressive strength of single trees (Fig. 7); config section
``diagnostics``."""
