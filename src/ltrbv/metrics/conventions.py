"""Named metric conventions: the small choices that make two "NDCG@10"s differ.

``trec_eval`` (the command line's default) is trec_eval's and ir_measures': metric names are theirs
(``nDCG@10``, ``AP``, ``P@10``, ``RR``, ``R@100``, ``ERR@10``; :mod:`ltrbv.metrics.names`) and so are the
definitions: the gain is the name's (the label for ``nDCG``, ``2**label - 1`` for
``nDCG(dcg='exp-log2')`` and ERR), discount ``1/log2(r+1)``, relevant iff label >= 1 (or ``rel=N``), ERR's
``R = (2**label - 1) / 16`` (gdeval), tied scores ordered by document id, descending (trec_eval and gdeval
sort by score, then docno, both descending), and a judged document the run does not retrieve is not ranked
but counts in the denominators (AP's and recall's relevant documents, nDCG's ideal DCG).

The LTR conventions below (the workflow's) use the names of the LETOR scripts (``ndcg@10``, ``map``,
``p@10``, ...) and the exponential gain ``2**label - 1`` (the LETOR 4.0
table 0/1/3 for labels 0/1/2 and the MSLR table 7/15 for labels 3/4 are the
same numbers); they rank every document of a query.  What differs is captured by the fields of
:class:`Convention`:

=============  ==========  =========  ===========  ==========  ==============  =========
name           discount    empty NDCG  NDCG@k n<k   AP/P@k rel  empty AP        ERR grade
=============  ==========  =========  ===========  ==========  ==============  =========
standard       log2(r+1)   0.0        normal       label >= 1  0.0             4
letor4         letor4      0.0        0.0          label >= 1  0.0             2
letor4-mslr    letor4      0.0        0.0          label >= 2  0.0             4
yahoo          log2(r+1)   0.0        normal       label >= 1  0.0             4
trec_eval      log2(r+1)   0.0        normal       label >= 1  0.0             4
=============  ==========  =========  ===========  ==========  ==============  =========

* ``log2(r+1)``: discount ``1/log2(r + 1)`` at 1-based rank ``r``.
* ``letor4``: ranks 1 and 2 undiscounted, ``1/log2(r)`` from rank 3 on, exactly
  as ``Eval-Score-4.0.pl`` computes ``log(2)/log(iPos + 1)`` with a 0-based
  ``iPos >= 2``.
* "NDCG@k n<k = 0.0": the Perl script fills its per-position NDCG array only for
  the positions the query has, so NDCG@k of a query with fewer than k documents
  is undefined there and prints / averages as 0.
* P@k is ``(relevant documents in the top k) / k`` in every convention, also for
  a query with fewer than k documents: this is what ``Eval-Score-4.0.pl`` does
  ("if # retrieved doc < $topN, the P@N will consider the hole as irrelevant",
  Jun Xu, 2009-4-24).  ``short_query_precision_is_zero=True`` gives the
  pre-2009-4-24 behaviour (P@k = 0 when the query has fewer than k documents).
* ERR uses ``R = (2**label - 1) / 2**max_grade`` (Chapelle et al. 2009); a label
  above ``max_grade`` is an error.  ``yahoo`` is Chapelle & Chang (2011), the
  Yahoo! challenge definition, which equals ``standard`` with ``max_grade=4``.
  ``letor4`` uses ``max_grade=2``, the LETOR 4.0 label scale (the script itself
  has no ERR).
* ``empty_query_value``: NDCG (and DCG-normalised values) of a query without any
  document of positive gain; ``nan`` means "exclude this query": the value is
  ``nan`` and callers average with ``np.nanmean``.

Adjust a convention with :func:`dataclasses.replace`, e.g.
``replace(get_convention("standard"), empty_query_value=float("nan"))``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

DISCOUNTS = ("log2(r+1)", "letor4")
NAMESPACES = ("ltr", "trec_eval")


@dataclass(frozen=True)
class Convention:
    """One complete set of metric conventions (see the module docstring)."""

    name: str
    discount: str = "log2(r+1)"
    empty_query_value: float = 0.0
    short_query_ndcg_is_zero: bool = False
    short_query_precision_is_zero: bool = False
    map_threshold: int = 1
    empty_query_ap: float = 0.0
    max_grade: int = 4
    names: str = "ltr"  # the namespace of metric names (ltrbv.metrics.names): "ltr" or "trec_eval"
    ties: str = "input-order"  # the order of tied scores when none is asked for (ltrbv.metrics.ranking)
    description: str = ""

    def __post_init__(self) -> None:
        if self.discount not in DISCOUNTS:
            raise ValueError(f"unknown discount {self.discount!r}; known: {', '.join(DISCOUNTS)}")
        for field_name in ("empty_query_value", "empty_query_ap"):
            value = float(getattr(self, field_name))
            if not (math.isnan(value) or value in (0.0, 1.0)):
                raise ValueError(f"{field_name} must be 0.0, 1.0 or nan, got {value!r}")
        if self.names not in NAMESPACES:
            raise ValueError(f"unknown metric namespace {self.names!r}; known: {', '.join(NAMESPACES)}")
        if self.max_grade < 1:
            raise ValueError(f"max_grade must be >= 1, got {self.max_grade}")
        if self.map_threshold < 1:
            raise ValueError(f"map_threshold must be >= 1, got {self.map_threshold}")


CONVENTIONS: dict[str, Convention] = {
    convention.name: convention
    for convention in (
        Convention(
            name="standard",
            description="gain 2^l-1, discount 1/log2(r+1), AP/P@k relevant iff label >= 1",
        ),
        Convention(
            name="letor4",
            discount="letor4",
            short_query_ndcg_is_zero=True,
            max_grade=2,
            description="LETOR 4.0 Eval-Score-4.0.pl: ranks 1-2 undiscounted, "
            "NDCG@k = 0 for queries with fewer than k documents",
        ),
        Convention(
            name="letor4-mslr",
            discount="letor4",
            short_query_ndcg_is_zero=True,
            map_threshold=2,
            description="as letor4, but AP/P@k relevant iff label >= 2 (MSLR script)",
        ),
        Convention(
            name="yahoo",
            description="Chapelle & Chang 2011: ERR with R = (2^l-1)/16, NDCG as standard",
        ),
        Convention(
            name="trec_eval",
            names="trec_eval",
            ties="docid",
            description="trec_eval / ir_measures: their names and definitions (nDCG@k gain = label), ties by "
            "document id descending, unretrieved judged documents count in the denominators",
        ),
    )
}


def get_convention(convention: str | Convention) -> Convention:
    """The registered convention of that name (case-insensitive), or ``convention`` itself."""
    if isinstance(convention, Convention):
        return convention
    key = str(convention).strip().lower()
    try:
        return CONVENTIONS[key]
    except KeyError:
        raise ValueError(
            f"unknown metric convention {convention!r}; known: {', '.join(CONVENTIONS)}"
        ) from None
