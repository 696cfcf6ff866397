"""Calibration of the claim engine (:mod:`ltrbv.compare.claims`): the oracle of every verdict of the catalog and
the summary.  Per-query values are simulated (no forests), thousands of claims per relation, judged in pages:

* under the null (a learner against a copy with zero-mean noise; a sweep without trend), the rate of
  "reproduced" is at most alpha, and so is the rate of pages with any false verdict (Holm over the page);
* at a true difference equal to the margin, TOST says "equivalent" (reproduced) at most alpha of the time;
* a planted effect of the stated minimum detectable size (MDE at 80% power, level alpha / m) is detected
  about 80% of the time.

The tolerance is 3 binomial standard errors.  These fail when the engine reads the raw p-value (the page's
family-wise rate was 35-46% with 10 claims), the sign of a correlation of means (51% "reproduced" with no
trend) or "p >= alpha" as similarity (90% "equivalent" at the margin): measured by mutating the engine.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from ltrbv.compare import claims as engine

N_QUERIES, ALPHA, POWER = 100, 0.05, 0.8
POLICY = engine.Policy(alpha=ALPHA, power=POWER, correction="holm")
PERMUTATIONS = 200


def tolerance(rate: float, n: int) -> float:
    return 3 * math.sqrt(rate * (1 - rate) / n)


def query_values(rng, n=N_QUERIES):
    """Per-query values of a learner: a query effect (the spread between queries dwarfs the paired noise)."""
    return rng.beta(2, 5, n)


def null_greater(rng, seed):
    a = query_values(rng)
    return engine.greater_test(a + rng.normal(0, 0.05, a.size), a, permutations=PERMUTATIONS, seed=seed)


def null_trend(rng, seed):
    base = query_values(rng)
    values = base[:, None] + rng.normal(0, 0.05, (base.size, 5))  # 5 swept values, no trend
    return engine.trend_test(values, +1, permutations=PERMUTATIONS, seed=seed)


def run_pages(make, pages: int, size: int, seed: int):
    rng = np.random.default_rng(seed)
    return [engine.judge([make(rng, 1000 * page + i) for i in range(size)], POLICY) for page in range(pages)]


@pytest.mark.parametrize("make", [null_greater, null_trend], ids=["greater", "trend"])
def test_under_the_null_reproduced_and_any_false_verdict_stay_below_alpha(make):
    pages = run_pages(make, pages=150, size=10, seed=11)
    verdicts = [j.verdict for page in pages for j in page]
    assert len(verdicts) >= 1000
    reproduced = verdicts.count(engine.REPRODUCED) / len(verdicts)
    assert reproduced <= ALPHA + tolerance(ALPHA, len(verdicts)), reproduced
    false_pages = np.mean([any(j.verdict in (engine.REPRODUCED, engine.CONTRADICTED) for j in page) for page in pages])
    assert false_pages <= ALPHA + tolerance(ALPHA, len(pages)), f"family-wise error {false_pages:.3f}"
    assert all(j.family == 10 and j.correction == "holm" for page in pages for j in page)


@pytest.mark.parametrize("margin_in_se", [1.5, 10.0])
def test_tost_says_equivalent_at_most_alpha_of_the_time_when_the_difference_equals_the_margin(margin_in_se):
    """1.5 standard errors: a t-test of d = 0 misses this difference most of the time (p >= alpha would call it
    similar); 10: TOST's own size at the margin is close to alpha, one claim at a time."""
    sd = 0.05
    margin = margin_in_se * sd / math.sqrt(N_QUERIES)

    def at_margin(rng, seed):
        a = query_values(rng)
        return engine.similar_test(a + margin + rng.normal(0, sd, a.size), a, margin)

    pages = run_pages(at_margin, pages=150, size=10, seed=12)
    verdicts = [j.verdict for page in pages for j in page]
    assert len(verdicts) >= 1000
    equivalent = verdicts.count(engine.REPRODUCED) / len(verdicts)
    assert equivalent <= ALPHA + tolerance(ALPHA, len(verdicts)), equivalent
    pages_with_one = np.mean([any(j.verdict == engine.REPRODUCED for j in page) for page in pages])
    assert pages_with_one <= ALPHA + tolerance(ALPHA, len(pages))
    # each claim is one TOST p-value of the family, and its size alone is at most alpha too
    raw = np.mean([j.tested.p < ALPHA for page in pages for j in page])
    assert raw <= ALPHA + tolerance(ALPHA, len(verdicts))


def true_mde(sd: float, family: int, relation: str) -> float:
    t = stats.t(N_QUERIES - 1)
    level = ALPHA / family
    if relation == engine.SIMILAR:
        return (t.ppf(1 - level) + t.ppf((1 + POWER) / 2)) * sd / math.sqrt(N_QUERIES)
    return (t.ppf(1 - level / 2) + t.ppf(POWER)) * sd / math.sqrt(N_QUERIES)


@pytest.mark.parametrize("relation", [engine.GREATER, engine.TREND, engine.SIMILAR])
def test_a_planted_effect_of_the_stated_mde_is_detected_about_80_percent_of_the_time(relation):
    """Pages of 3 claims: one planted effect of the MDE (the true one, at level alpha / 3) and two nulls."""
    sd, size, pages = 0.05, 3, 1000
    steps = np.arange(5) - 2.0
    # a trend's per-query change (slope on the rank times 4) has sd 0.05 * 4 / sqrt(10)
    change_sd = sd * 4 / math.sqrt((steps ** 2).sum())
    effect = true_mde(change_sd if relation == engine.TREND else sd, size, relation)

    def claim(rng, seed, planted):
        a = query_values(rng)
        if relation == engine.GREATER:
            return engine.greater_test(a + effect * planted + rng.normal(0, sd, a.size), a, permutations=50, seed=seed)
        if relation == engine.TREND:
            values = a[:, None] + effect * planted * (steps / 4) + rng.normal(0, sd, (a.size, 5))
            return engine.trend_test(values, +1, permutations=50, seed=seed)
        margin = effect if planted else 0.5 * effect  # true difference 0: equivalence within the MDE
        return engine.similar_test(a + rng.normal(0, sd, a.size), a, margin)

    rng = np.random.default_rng(13)
    detected, stated = [], []
    for page in range(pages):
        judged = engine.judge([claim(rng, 10 * page + i, i == 0) for i in range(size)], POLICY)
        detected.append(judged[0].verdict == engine.REPRODUCED)
        stated.append(judged[0].mde)
    rate = float(np.mean(detected))
    assert abs(rate - POWER) <= tolerance(POWER, pages) + 0.01, rate
    assert np.median(stated) == pytest.approx(effect, rel=0.05)  # the MDE a page states is the true one


def test_verdicts_by_hand():
    sd = 0.05
    rng = np.random.default_rng(3)
    a = query_values(rng)
    noise = rng.normal(0, sd, a.size)
    noise -= noise.mean()
    reversed_ = engine.greater_test(a - 0.05 + noise, a, permutations=PERMUTATIONS)
    tie = engine.greater_test(a.copy(), a, permutations=PERMUTATIONS)
    small_paper = engine.greater_test(a + noise, a, paper_effect=0.001, permutations=PERMUTATIONS)
    big_paper = engine.greater_test(a + noise, a, paper_effect=0.2, permutations=PERMUTATIONS)
    judged = engine.judge([reversed_, tie, small_paper, big_paper], POLICY)
    assert [j.verdict for j in judged] == [engine.CONTRADICTED, engine.NOT_REPRODUCED, engine.INCONCLUSIVE,
                                           engine.NOT_REPRODUCED]
    assert judged[0].family == 3  # the tie has no p-value: not in the family
    assert np.isnan(judged[1].p_adjusted)
    # Holm: the smallest p of 3 times 3
    assert judged[0].p_adjusted == pytest.approx(min(1.0, 3 * reversed_.p))
    far = engine.similar_test(a + 0.05 + noise, a, margin=0.01)
    near = engine.similar_test(a + noise, a, margin=0.05)
    tiny_margin = engine.similar_test(a + noise, a, margin=1e-4)
    assert [j.verdict for j in engine.judge([far, near, tiny_margin], POLICY)] == [
        engine.CONTRADICTED, engine.REPRODUCED, engine.INCONCLUSIVE]
    # TOST by hand: the larger of the two one-sided t-test p-values
    d = noise
    lower = stats.ttest_1samp(d, -0.05, alternative="greater").pvalue
    upper = stats.ttest_1samp(d, 0.05, alternative="less").pvalue
    assert near.p == pytest.approx(max(lower, upper), rel=1e-9)
    # the per-query change of a trend: the fitted first-to-last difference of a straight line
    line = np.outer([1.0, 2.0], np.arange(4)) + 0.3
    np.testing.assert_allclose(engine.per_query_change(line), [3.0, 6.0])


def test_a_page_refuses_raw_p_values_and_bad_levels():
    with pytest.raises(ValueError, match="correction 'none'"):
        engine.Policy(correction="none")
    with pytest.raises(ValueError, match="alpha"):
        engine.Policy(alpha=1.5)
    with pytest.raises(ValueError, match="power"):
        engine.Policy(power=0.2)
    with pytest.raises(ValueError, match="margin"):
        engine.similar_test([1.0, 2.0], [1.0, 2.0], 0.0)
