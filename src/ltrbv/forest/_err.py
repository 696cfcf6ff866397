"""RF-list's expected-ERR criterion: the change in the summed expected ERR of the tree's training queries.

Expected reciprocal rank (Chapelle et al. 2009): a reader scans the ranking top down and stops at
a document of label l with probability R = (2^l - 1) / 2^g, so ERR = sum_r R_r / r prod_{i<r} (1 - R_i).
Here g (``max_grade``) is the largest label of the training data (at least 1): the convention of
``ltrbv.metrics`` with ``max_grade = g``, e.g. LETOR 4.0's g = 2 on MQ2008 and MSLR's g = 4.  There is
no per-query normaliser (ERR is not normalised); a query without a relevant document has ERR 0
whatever the scores, so it is skipped (weight 0).

As for NDCG (``_ndcg``, Ibrahim & Carman 2016 eq. 11-13), documents with equal leaf scores are
tied and ERR is averaged over all orders of every tie group.  A group at ranks a+1 .. a+t that the
reader reaches with probability P (the product of 1 - R over every document above it) contributes
P * V(h, a) with

    V(h, a) = sum_{k=1..r} (e_{k-1} - e_k) * E[1 / (a + p_k)]

where r is the number of relevant documents (label >= 1) of the group, e_k the mean over the
k-subsets of them of prod (1 - R) (in a random order the reader passes the first k - 1 relevant
documents and stops at the k-th with probability e_{k-1} - e_k; irrelevant documents never stop
him), and p_k the position of the k-th relevant document among the t positions (the k-th smallest
of a uniformly random r-subset of 1..t).  V depends on the group only through its label histogram
h; it costs O(r^2) for the e_k (the convex recurrence of ``ltrbv.metrics.ranking``) plus
O(r (t - r + 1)) for the order statistics (a ratio recurrence of their probabilities).  The reader
passes the whole group with probability prod_l (1 - R_l)^h_l, which does not depend on the order.

Splitting node D into L and R moves D's documents from s_D to s_L or s_R.  For a query, its other
leaves' groups above max(s_L, s_R) keep their a and P, those below min(s_L, s_R) keep their a and P
too (the same documents are still above them), so only the range between changes, as for NDCG, and
a query's change depends on s_L and s_R only through how they compare with its levels and with each
other.  The split search is therefore ``_listwise``'s, shared with NDCG; this module gives it

* the document value, each document's *packed label code* base^(l-1) for l >= 1 (0 for label 0),
  base = largest query size + 1: a level's summed code is its label histogram in base-``base``
  digits, exact in float64 while base^g <= 2^53 (``prepare`` refuses larger; MSLR: 1252^4 = 2.5e12);
* a block's reach factor, the probability of passing it, prod (1 - R) (``reach``): the search scales
  each group's value by the product of the reach factors above it (per-node prefix products);
* a block's value P * V(h, a) (``block_value``) and the value of two blocks in a gap of a query's
  levels with their order swapped (``swapped_value``).

A dirty query's change is evaluated over its range only: after = the top block (merged with a group
tied at its score) + the groups strictly between, shifted down by the top block's size and scaled by
its reach + the bottom block (merged likewise); before = per-node prefix sums of the groups' values
with the node block merged in at s_D (plus the node block's own value).

Complexity per node, with n documents, q touched queries, G groups of their other leaves, K features
and c(t, r) = r^2 + r (t - r + 1) the cost of one group of t documents with r relevant: set-up
O(n + G log G) plus sum over groups of c (their before values); per feature O(n) for the (radix) sort;
per candidate O(log V + levels crossed) for the dirty list and, per re-evaluated query, O(log G_q) to
place s_L and s_R plus c of its two blocks (merged with a tied group where there is one) and of each
group strictly between s_L and s_R (twice the blocks' cost for a two-sided query in a gap of its
levels, which evaluates both orders).  Unlike NDCG's O(1) prefix-sum look-up, a block's value needs
its label multiset, so a re-evaluation costs O(r_q t_q) (r_q of the query's t_q documents in the node
relevant): near the root, where a query's documents form one or two blocks, that is its whole size.
Tried and measured slower (MQ2008 Fold1, MSLR-shaped data): E_m over all t documents by the convex
recurrence (O(t^2), V = sum_j (E_{j-1} - E_j) / (a + j)) instead of the order statistics, and
per-(query, shift) prefix tables of the shifted groups between s_B and s_T as NDCG keeps (they are
1.5 per evaluation on average, mostly single documents, for which V is one multiplication), hence
``shift_cap`` -1.
"""

from __future__ import annotations

import numpy as np
from .. import rounded
from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)

from ._levels import ListwiseData, listwise_data

ERR = 1  # the criterion's code (``_criteria.LISTWISE``)
MAX_PACKED = 2.0**53  # packed label codes must stay exact float64 integers
RESCALE = 1e200  # the order-statistic recurrence rescales its running sums beyond this


def prepare(train, labels: np.ndarray, n_tree_queries: int) -> ListwiseData:
    """The ERR set-up shared by all trees of a fit: stop probabilities, packed label codes, relevant queries
    (weight 1; a query without a relevant document has ERR 0 whatever the scores, weight 0)."""
    labels = np.asarray(labels, dtype=np.int64)
    n_grades = max(1, int(labels.max()))
    base = int(train.query_sizes.max()) + 1
    if float(base) ** n_grades > MAX_PACKED:
        raise ValueError(f"listwise_objective 'err' packs each score level's label counts into one float64: "
                         f"(largest query size + 1) ** max_grade = {base} ** {n_grades} exceeds 2 ** 53")
    # the same bits on every CPU (numpy's AVX-512 power differs from the C library's in the last bit): 2^g exact,
    # (1 - R_g)^j correctly rounded (ltrbv.rounded), the packed codes base^(l-1) exact integers
    stop = (rounded.exp2_of_integers(np.arange(n_grades + 1)) - 1.0) / 2.0**n_grades
    pass_power = np.ascontiguousarray(np.stack([rounded.integer_powers(1.0 - r, base) for r in stop]))
    inverse = 1.0 / np.maximum(np.arange(base + 1, dtype=np.float64), 1.0)  # 1 / i (ranks, counts <= base)
    code_of_grade = np.array([0.0] + [float(base ** (g - 1)) for g in range(1, n_grades + 1)])
    codes = code_of_grade[np.clip(labels, 0, n_grades)]
    doc_query = np.ascontiguousarray(train.query_index, dtype=np.int64)
    relevant = np.bincount(doc_query, weights=(labels > 0).astype(np.float64), minlength=train.n_queries) > 0
    table = np.concatenate([stop, inverse, pass_power.ravel()])  # read through _inverse_at and _pass_power_at
    return listwise_data(codes, doc_query, train.query_offsets, relevant.astype(np.float64), n_tree_queries,
                         table=table, base=base, n_grades=n_grades)


# -- one tie group's value ------------------------------------------------------------------------------
# ``table`` (``prepare``) holds stop[0..g], then 1 / i for i = 0..base, then (1 - R_l)^k row by row (l = 0..g,
# k = 0..base-1): one array, so that a hook call passes one array for all three.


@njit(cache=True, inline="always")
def _inverse_at(n_grades):
    """Where 1 / i starts in ``table``."""
    return n_grades + 1


@njit(cache=True, inline="always")
def _pass_power_at(base, n_grades, grade):
    """Where (1 - R_grade)^k starts in ``table``."""
    return n_grades + 1 + base + 1 + grade * base


@njit(cache=True, inline="always")
def _unpack(code, count, base, n_grades, hist):
    """hist[l] = the number of documents of label l in a block of ``count`` documents with summed code ``code``.

    hist[n_grades + 1 :] remembers the block the histogram holds: unpacking it again costs two comparisons."""
    rest = np.int64(code)
    if hist[n_grades + 1] == rest and hist[n_grades + 2] == count:
        return
    hist[n_grades + 1] = rest
    hist[n_grades + 2] = count
    relevant = 0
    for grade in range(1, n_grades + 1):
        digit = rest % base
        rest //= base
        hist[grade] = digit
        relevant += digit
    hist[0] = count - relevant


@njit(cache=True, inline="always")
def _pass_probability(hist, base, n_grades, table):
    """prod over the block's documents of 1 - R."""
    p = 1.0
    for grade in range(1, n_grades + 1):
        p *= table[_pass_power_at(base, n_grades, grade) + hist[grade]]
    return p


@njit(cache=True, inline="always")
def _stop_chances(hist, n_grades, table, chances):
    """chances[k] (k = 0..r) = mean over the k-subsets of the block's r relevant documents of prod (1 - R).

    The convex recurrence M_i[k] = ((i - k) M_{i-1}[k] + k x_i M_{i-1}[k-1]) / i (stable, as in
    ``ltrbv.metrics.ranking``).  Returns r.
    """
    inv = _inverse_at(n_grades)
    chances[0] = 1.0
    i = 0
    for grade in range(1, n_grades + 1):
        x = 1.0 - table[grade]
        for _ in range(hist[grade]):
            i += 1
            chances[i] = 0.0
            inv_i = table[inv + i]
            for k in range(i, 0, -1):
                chances[k] = ((i - k) * chances[k] + k * x * chances[k - 1]) * inv_i
    return i


@njit(cache=True, inline="always")
def _reciprocal_value(chances, r, t, above, table, inv):
    """V(h, a) = sum_k (e_{k-1} - e_k) E[1 / (a + p_k)] for a block of t documents, r of them relevant.

    P(p_k = j) is proportional to C(j-1, k-1) C(t-j, r-k); the ratio recurrence starts at 1 for
    j = k and is normalised by its own sum (rescaled when large), so nothing under- or overflows.
    ``table[inv + i]`` = 1 / i: multiplications instead of divisions in the inner loops.  The inner loop's indices
    are cast to unsigned: numba wraps a signed index that may be negative (a compare and a select per read, ~15% of
    an MSLR-shaped ERR tree), and a view of the tables from ``inv`` instead costs a reference count per call
    (measured ~20% slower on MQ2008, whose blocks are small).
    """
    zeros = t - r
    total = 0.0
    for k in range(1, r + 1):
        chance = chances[k - 1] - chances[k]
        if zeros == 0:
            total += chance * table[inv + above + k]
            continue
        weight = 1.0
        mass = 0.0
        acc = 0.0
        for step in range(zeros + 1):
            j = k + step
            mass += weight
            acc += weight * table[np.uint64(inv + above + j)]
            if step < zeros:
                weight *= j * (zeros - step) * table[np.uint64(inv + step + 1)] * table[np.uint64(inv + t - j)]
                if weight > RESCALE:
                    weight /= RESCALE
                    mass /= RESCALE
                    acc /= RESCALE
        total += chance * acc / mass
    return total


@njit(cache=True, inline="always")
def _group_value(hist, n_grades, table, chances, t, above):
    """V(h, a) of one tie group of t documents (label histogram ``hist``) at ranks above+1 .. above+t."""
    if hist[0] == t:
        return 0.0
    inv = _inverse_at(n_grades)
    if t == 1:
        for grade in range(1, n_grades + 1):
            if hist[grade] == 1:
                return table[grade] * table[inv + above + 1]
    r = _stop_chances(hist, n_grades, table, chances)
    return _reciprocal_value(chances, r, t, above, table, inv)


@njit(cache=True, inline="always")
def _known_chances(hist, n_grades, table, chances, t):
    """The block's r, with chances[0..r] its e_k: ``block_value`` of this block (same ``hist``, same ``chances``)
    has just computed them unless it needed none (no relevant document, or a single document)."""
    if t == 1:
        return _stop_chances(hist, n_grades, table, chances)
    r = 0
    for grade in range(1, n_grades + 1):
        r += hist[grade]
    return r


# -- the split search's hooks (``_listwise.listwise_search``) -----------------------------------------


# ERR's hooks are calls, not inlined: inlined, a function with loops reference-counts the arrays it is given on
# every call (measured: 10-13% of an ERR tree's time); a call of a function whose loops are all inlined does not


@njit(cache=True)
def reach(code, table, base, n_grades, hist, gain, count):
    """The probability of passing a block of ``count`` documents with summed code ``gain``: prod (1 - R)."""
    _unpack(gain, count, base, n_grades, hist)
    return _pass_probability(hist, base, n_grades, table)


@njit(cache=True)
def block_value(code, table, base, n_grades, hist, chances, gain, count, above, reach):
    """P * V(h, a) of a block of ``count`` documents with summed code ``gain`` at ranks above+1 .., reached with
    probability P = ``reach``."""
    _unpack(gain, count, base, n_grades, hist)
    return reach * _group_value(hist, n_grades, table, chances, count, above)


@njit(cache=True)
def swapped_value(code, table, base, n_grades, hist_top, hist_bottom, chances_top, chances_bottom, gain_top, n_top,
                  gain_bottom, n_bottom, above):
    """The two blocks of a query in a gap of its levels with their order swapped, the bottom one first at
    ranks above+1 ..: V(bottom, a) + P(bottom) V(top, a + n_bottom), at reach 1.  The blocks' e_k tables are
    those their ``block_value`` calls just left in ``chances_top`` / ``chances_bottom`` (the search's contract)."""
    _unpack(gain_top, n_top, base, n_grades, hist_top)
    _unpack(gain_bottom, n_bottom, base, n_grades, hist_bottom)
    r_top = _known_chances(hist_top, n_grades, table, chances_top, n_top)
    r_bottom = _known_chances(hist_bottom, n_grades, table, chances_bottom, n_bottom)
    inv = _inverse_at(n_grades)
    return (_reciprocal_value(chances_bottom, r_bottom, n_bottom, above, table, inv)
            + _pass_probability(hist_bottom, base, n_grades, table)
            * _reciprocal_value(chances_top, r_top, n_top, above + n_bottom, table, inv))
