"""Comparing systems on the same queries (``ltrbv compare``; the workflow's significance tables).

* :func:`compare_scores` / :func:`compare_per_query` -- means with bootstrap intervals, paired
  differences against a baseline with intervals, paired t and randomisation tests corrected for the
  number of comparisons (:mod:`.corrections`), Cohen's d, wins/ties/losses (:mod:`.paired`).
* :mod:`.formats` -- Markdown and LaTeX; :mod:`.plot` -- the per-query difference plot.
"""

from .corrections import CORRECTIONS, adjust_p_values, benjamini_hochberg, holm
from .paired import cohens_d, paired_comparison, wins_ties_losses
from .systems import Comparison, compare_per_query, compare_scores

__all__ = [
    "CORRECTIONS",
    "Comparison",
    "adjust_p_values",
    "benjamini_hochberg",
    "cohens_d",
    "compare_per_query",
    "compare_scores",
    "holm",
    "paired_comparison",
    "wins_ties_losses",
]
