"""Active estimation of ranking performance (Sawade et al. 2013); config section ``active``."""
