"""The reproduction catalog: every table and figure of the papers, one entry each, with the paper's claims judged
by the claim engine (:mod:`ltrbv.compare.claims`); config section ``catalog``."""
