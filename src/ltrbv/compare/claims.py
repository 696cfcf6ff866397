"""The claim engine: one test behind every verdict of ``catalog.md`` and ``summary.md``, one vocabulary.

A claim is a relation over a measure (a metric under a convention, bias, variance ...) between two learners
or along a swept value.  Its data are per-query values, each query's value averaged over seeds first, paired
over the test queries of all folds (the papers' own test; no pseudo-replication over seeds).

Relations and their tests (:func:`greater_test`, :func:`trend_test`, :func:`similar_test`):

* ``greater``: the paired difference ``a - b`` over queries; two-sided paired t-test and paired
  randomisation test (:func:`ltrbv.compare.paired_comparison`, the code behind ``ltrbv compare``).
* ``trend``: per query, the least-squares slope of the measure on the *rank* of the swept value, times
  (k - 1): the fitted change from the first to the last value; tested over queries like ``greater``
  against 0.  Not the sign of a correlation of k means (that is "reproduced" ~50% of the time with no
  trend at all).
* ``similar``: equivalence within a margin declared with the claim, by two one-sided t-tests (TOST):
  ``p = max(P(d <= -margin), P(d >= margin))``.

Multiple testing (:func:`judge`): the p-values of every tested claim of one page form the family; they are
adjusted by Holm (default) or Benjamini-Hochberg (:mod:`ltrbv.compare.corrections`), and the verdicts read
the *adjusted* p-value (the t-test's; the randomisation test's is reported beside it).

The minimum detectable effect (MDE) at ``power`` is computed at the family's Bonferroni level
``alpha / m`` (the level of Holm's first step): ``(t_{1-alpha/(2m)} + t_{power}) * se`` for greater and
trend; for similar, the smallest margin TOST establishes with that power when the true difference is 0,
``(t_{1-alpha/m} + t_{(1+power)/2}) * se``.

Verdicts (:data:`OUTCOMES`):

* **reproduced**: the claimed effect is significant (adjusted p < alpha) in the claimed direction; for
  similar, TOST shows the difference inside the margin.
* **contradicted**: a significant effect in the opposite direction; for similar, a difference significantly
  beyond the margin (one-sided, Bonferroni over the family).
* **inconclusive**: not significant, and the test could not have seen the paper's effect: the MDE is larger
  than the paper's own effect (greater, trend; when the claim gives the paper's numbers), or than the margin
  (similar).
* **not reproduced**: not significant although the test had the stated power for the paper's effect (or
  the paper gives no effect to compare the MDE with: the row shows the MDE).

Claims that are not a test over queries (a timing, measured by a dedicated job that holds every core of the
run, the median of repeated fits; a grid's best-of-k curve; a tree's size from one run) are outside the family; their verdict says so (:data:`TIMING`, :data:`DESCRIPTIVE`) and
whether the claimed direction holds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats

from . import adjust_p_values, paired_comparison

REPRODUCED, NOT_REPRODUCED, CONTRADICTED, INCONCLUSIVE = "reproduced", "not reproduced", "contradicted", "inconclusive"
OUTCOMES = (REPRODUCED, NOT_REPRODUCED, CONTRADICTED, INCONCLUSIVE)
#: verdicts of claims outside the family (followed by ": holds" or ": does not hold")
TIMING = "timing: median of dedicated fits, not a test"
DESCRIPTIVE = "descriptive: not a test"
GREATER, TREND, SIMILAR, DIFFER = "greater", "trend", "similar", "differ"
RELATIONS = (GREATER, TREND, SIMILAR, DIFFER)
#: corrections a page may choose ("none" would let a verdict read the raw p-value)
PAGE_CORRECTIONS = ("holm", "bh")


@dataclass(frozen=True)
class Policy:
    """How a page judges its claims: the level, the power of the stated MDE, the multiple-testing correction."""

    alpha: float = 0.05
    power: float = 0.8
    correction: str = "holm"

    def __post_init__(self):
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must lie in (0, 1), got {self.alpha}")
        if not 0.5 <= self.power < 1:
            raise ValueError(f"power must lie in [0.5, 1), got {self.power}")
        if self.correction not in PAGE_CORRECTIONS:
            raise ValueError(f"correction {self.correction!r}: one of {', '.join(PAGE_CORRECTIONS)}")


@dataclass(frozen=True)
class Tested:
    """One claim's test, before the family is known.  ``estimate`` is signed so that > 0 is the claimed
    direction (greater, trend); for similar it is the difference a - b.  ``p``: the two-sided t-test's
    (greater, trend), TOST's (similar), the test's own (differ).  ``paper_effect``: the paper's own effect
    in the claimed direction (nan when the paper gives none); ``margin``: a similar claim's."""

    relation: str
    estimate: float
    ci_low: float
    ci_high: float
    p: float
    n: int
    se: float
    p_randomisation: float = float("nan")
    margin: float = float("nan")
    paper_effect: float = float("nan")
    p_beyond: float = float("nan")  # similar: one-sided p of |d| > margin in the estimate's direction


@dataclass(frozen=True)
class Judged:
    """A tested claim judged within its page's family."""

    tested: Tested
    p_adjusted: float
    p_randomisation_adjusted: float
    mde: float
    verdict: str
    family: int
    correction: str


def _se(d: np.ndarray) -> float:
    return float(d.std(ddof=1) / math.sqrt(d.size)) if d.size > 1 else float("nan")


def greater_test(a, b, paper_effect: float = float("nan"), permutations: int = 10000, seed=0) -> Tested:
    """``a`` greater than ``b``, paired over queries (per-query values in the same order)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    row = paired_comparison(a, b, permutations, seed)
    return Tested(GREATER, row["difference"], row["difference_ci_low"], row["difference_ci_high"], row["p_t"],
                  int(a.size), _se(a - b), row["p_randomisation"], paper_effect=paper_effect)


def per_query_change(values) -> np.ndarray:
    """Per query (rows of ``values``: queries x the k swept values in order), the least-squares slope of the
    values on the rank 0..k-1 of the swept value, times k - 1: the fitted change from the first to the last."""
    values = np.asarray(values, dtype=np.float64)
    k = values.shape[1]
    if k < 2:
        raise ValueError(f"a trend needs at least 2 swept values, got {k}")
    x = np.arange(k, dtype=np.float64) - (k - 1) / 2
    return (values @ x) / (x @ x) * (k - 1)


def trend_test(values, direction: int, paper_effect: float = float("nan"), permutations: int = 10000,
               seed=0) -> Tested:
    """``values`` (queries x swept values, in increasing order of the value) rise (``direction`` +1) or fall
    (-1): the per-query change (:func:`per_query_change`) in the claimed direction, tested against 0."""
    if direction not in (1, -1):
        raise ValueError(f"direction is +1 or -1, got {direction}")
    change = direction * per_query_change(values)
    return replace(greater_test(change, np.zeros_like(change), paper_effect, permutations, seed), relation=TREND)


def similar_test(a, b, margin: float, level: float = 0.95) -> Tested:
    """``a`` and ``b`` equivalent within ``margin`` (> 0): TOST over the paired differences (t, n - 1 df)."""
    if not margin > 0:
        raise ValueError(f"a similar claim needs a margin > 0, got {margin}")
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    row = paired_comparison(a, b, 1, 0, level=level)
    d, se, n = row["difference"], _se(a - b), int(a.size)
    if not se > 0:  # identical on every query: inside any margin, exactly
        p_tost, p_beyond = (0.0, 1.0) if abs(d) < margin else (1.0, 0.0)
    else:
        t = stats.t(n - 1)
        p_tost = float(max(t.sf((d + margin) / se), t.cdf((d - margin) / se)))
        p_beyond = float(t.sf((abs(d) - margin) / se))
    return Tested(SIMILAR, d, row["difference_ci_low"], row["difference_ci_high"], p_tost, n, se, margin=margin,
                  p_beyond=p_beyond)


def weighted_difference_test(first, last, weights, direction: int, ci: tuple[float, float]) -> Tested:
    """``last - first`` of two weighted means over the same queries (weights: a query's documents, or 1 where
    both values are defined, 0 elsewhere), in the claimed ``direction`` (+1 rises, -1 falls): a t-test over the
    queries of weight > 0 on the linearised per-query contributions ``w_q (d_q - D) / mean(w)`` (with unit
    weights, the paired t-test).  ``ci``: the difference's interval (e.g. a query bootstrap), unsigned."""
    first, last, weights = (np.asarray(x, dtype=np.float64) for x in (first, last, weights))
    used = weights > 0
    d, w = (last - first)[used], weights[used]
    difference = float((w * d).sum() / w.sum())
    z = w * (d - difference) / w.mean()
    se, n = _se(z), int(used.sum())
    p = float(2 * stats.t(n - 1).sf(abs(difference) / se)) if se > 0 else float("nan")
    low, high = sorted((direction * ci[0], direction * ci[1]))
    return Tested(TREND, direction * difference, low, high, p, n, se)


def tested_p(relation: str, p: float, estimate: float = float("nan")) -> Tested:
    """A claim whose test gives only a p-value (e.g. a two-sample Kolmogorov-Smirnov test: ``differ``)."""
    return Tested(relation, estimate, float("nan"), float("nan"), p, 0, float("nan"))


def mde(tested: Tested, level: float, power: float) -> float:
    """The minimum detectable effect of a test at ``level`` (two-sided; TOST: each side) with ``power``."""
    if tested.relation == DIFFER or not tested.se > 0 or tested.n < 2:
        return float("nan")
    t = stats.t(tested.n - 1)
    if tested.relation == SIMILAR:
        return float((t.ppf(1 - level) + t.ppf((1 + power) / 2)) * tested.se)
    return float((t.ppf(1 - level / 2) + t.ppf(power)) * tested.se)


def verdict(tested: Tested, p_adjusted: float, detectable: float, policy: Policy, family: int) -> str:
    """One of :data:`OUTCOMES` (see the module's docstring)."""
    significant = p_adjusted < policy.alpha  # nan (not testable) is not significant
    if tested.relation == SIMILAR:
        if significant:
            return REPRODUCED
        if tested.p_beyond * family < policy.alpha:
            return CONTRADICTED
        return INCONCLUSIVE if detectable > tested.margin else NOT_REPRODUCED
    if significant:
        return REPRODUCED if tested.estimate > 0 or tested.relation == DIFFER else CONTRADICTED
    if np.isfinite(tested.paper_effect) and detectable > abs(tested.paper_effect):
        return INCONCLUSIVE
    return NOT_REPRODUCED


def judge(claims: list[Tested], policy: Policy = Policy()) -> list[Judged]:
    """Judge every tested claim of one page as one family (its size: the claims with a p-value)."""
    p = np.array([c.p for c in claims], dtype=np.float64)
    adjusted = adjust_p_values(p, policy.correction) if len(p) else p
    p_rand = np.array([c.p_randomisation for c in claims], dtype=np.float64)
    rand_adjusted = adjust_p_values(p_rand, policy.correction) if len(p_rand) else p_rand
    family = int(np.count_nonzero(~np.isnan(p)))
    level = policy.alpha / max(family, 1)
    out = []
    for claim, p_adj, r_adj in zip(claims, adjusted, rand_adjusted):
        detectable = mde(claim, level, policy.power)
        out.append(Judged(claim, float(p_adj), float(r_adj), detectable,
                          verdict(claim, float(p_adj), detectable, policy, family), family, policy.correction))
    return out


def untested(reason: str, holds: bool) -> str:
    """The verdict of a claim outside the family: :data:`TIMING` or :data:`DESCRIPTIVE`, and whether it holds."""
    return f"{reason}: {'holds' if holds else 'does not hold'}"


def family_statement(family: int, policy: Policy) -> str:
    """What a page says about its family."""
    name = {"holm": "Holm", "bh": "Benjamini-Hochberg"}[policy.correction]
    return (f"Family: the {family} tested claim(s) of this page, {name}-adjusted, level {policy.alpha:g}; "
            f"MDE: the smallest effect the test detects with {policy.power:.0%} power at level "
            f"{policy.alpha:g}/{max(family, 1)}.")
