"""Conditional moments of DCG and ERR under independent graded labels, by dynamic programming.

Sawade et al. (2013), Corollary 1 needs, for every pool query x,

* ``E[(L(r(x), y) - R_theta)^2 | x; theta]``     (eq. 16, one ranking function), and
* ``E[(delta(x, y) - Delta_theta)^2 | x; theta]`` (eq. 17, ``delta = L(r1(x), y) - L(r2(x), y)``),

where the expectation (eq. 18) runs over all |Y|^|r(x)| label vectors with independent
labels (eq. 3).  Theorem 3 states these are polynomial; the paper's appendix with the
proof is missing, so here is the derivation implemented below (each formula is checked
against enumeration of all label vectors in ``tests/test_active_moments.py``).

DCG (eq. 1).  ``L = sum_i d_i g(y_i)`` with ``g(y) = 2^y - 1`` and ``d_i = 1/log2(i+1)``
is a sum of independent terms, so ``E[L] = sum_i d_i E[g_i]`` and
``Var[L] = sum_i d_i^2 Var[g_i]``; a difference of two rankings of the same documents is
``delta = sum_z (d1(z) - d2(z)) g(y_z)`` (``d(z) = 0`` for a document missing from a
ranking), again a sum of independent terms.  ``E[(X - c)^2] = Var[X] + (E[X] - c)^2``.
Cost O(|Y| |r(x)|) per query.

ERR (eq. 2).  With ``R_i = l_err(y_i)`` and the suffix value
``T_i = sum_{j>=i} (1/j) R_j prod_{i<=l<j} (1 - R_l)`` (``L = T_1``, ``T_{n+1} = 0``):
``T_i = R_i / i + (1 - R_i) T_{i+1}`` with ``T_{i+1}`` independent of ``R_i``, so

    E[T_i]   = E[R_i]/i + E[1-R_i] E[T_{i+1}]
    E[T_i^2] = E[R_i^2]/i^2 + 2 E[R_i (1-R_i)] E[T_{i+1}]/i + E[(1-R_i)^2] E[T_{i+1}^2],

O(|Y| |r(x)|) per query.  For two rankings the cross moment is
``E[L1 L2] = sum_{i,j} 1/(i j) E[R_u R_v prod_{w in A_i} (1-R_w) prod_{w in B_j} (1-R_w)]``
with ``u`` at rank i of r1, ``v`` at rank j of r2, ``A_i`` / ``B_j`` the documents ranked
above them.  By independence the expectation is a product over documents of
``E[(1-R_w)^(a_w + b_w)]`` (``a_w = [w in A_i]``, ``b_w = [w in B_j]``), with u and v
replaced by ``E[R_u (1-R_u)^(b_u)]`` and ``E[R_v (1-R_v)^(a_v)]`` (``E[R_u^2]`` when
``u = v``).  The all-document product ``F(i, j)`` obeys the recurrence
``F(1, j) = prod_{pos2(w)<j} E[1-R_w]`` and
``F(i+1, j) = F(i, j) * (E[(1-R_u)^2]/E[1-R_u] if pos2(u) < j else E[1-R_u])`` (u at rank i
of r1), every factor in [0, 1]; the u/v corrections divide by ``E[1-R] >= 2^-y_max > 0``.
That is O(|r1(x)| |r2(x)| + |Y| |r(x)|) per query, the bound of Theorem 3 for eq. 17.

Inputs everywhere: ``label_probs`` (n_docs, |Y|) with rows grouped by query
(``query_offsets``), and per ranking an int array ``ranks`` (n_docs,) holding each
document's 1-based rank within its query, 0 for a document the ranking does not return.
"""

from __future__ import annotations

import numpy as np

from .. import rounded
from ..numba_cache import njit  # numba's, cached per kernel family (ltrbv.numba_cache)

MEASURES = ("dcg", "err")


# -- per-label values of eq. 1 and eq. 2 -------------------------------------------------
def dcg_gains(n_labels: int) -> np.ndarray:
    """``2^y - 1`` for y = 0..|Y|-1 (eq. 1)."""
    return rounded.exp2_of_integers(np.arange(n_labels)) - 1.0


def err_probabilities(n_labels: int) -> np.ndarray:
    """``l_err(y) = (2^y - 1) / 2^y_max`` for y = 0..|Y|-1 (eq. 2)."""
    return dcg_gains(n_labels) / 2.0 ** (n_labels - 1)


def dcg_discount(rank: np.ndarray) -> np.ndarray:
    """``1/log2(i+1)`` for 1-based ranks; 0 for rank 0 (document not returned)."""
    rank = np.asarray(rank)
    out = np.zeros(rank.shape, dtype=np.float64)
    present = rank > 0
    out[present] = 1.0 / rounded.log2_of_integers(rank[present] + 1)  # the same bits on every CPU
    return out


def _check(label_probs: np.ndarray, query_offsets: np.ndarray, *ranks: np.ndarray) -> np.ndarray:
    probs = np.ascontiguousarray(label_probs, dtype=np.float64)
    if probs.ndim != 2 or probs.shape[1] < 2:
        raise ValueError("label_probs must have shape (n_docs, |Y|) with |Y| >= 2")
    if query_offsets[-1] != probs.shape[0]:
        raise ValueError("query_offsets do not match the number of documents")
    for r in ranks:
        if r.shape != (probs.shape[0],):
            raise ValueError("ranks must have one entry per document")
    return probs


def _label_moments(probs: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per document ``E[v(y)]`` and ``E[v(y)^2]``."""
    return probs @ values, probs @ (values * values)


# -- DCG: sums of independent terms -----------------------------------------------------
def _dcg_mean_var(probs, coefficients, query_offsets):
    """Mean and variance of ``sum_z c_z g(y_z)`` per query (eq. 1 and eq. 18)."""
    mean_g, mean_g2 = _label_moments(probs, dcg_gains(probs.shape[1]))
    var_g = np.maximum(mean_g2 - mean_g * mean_g, 0.0)
    query = np.repeat(np.arange(query_offsets.size - 1), np.diff(query_offsets))
    n_queries = query_offsets.size - 1
    mean = np.bincount(query, weights=coefficients * mean_g, minlength=n_queries)
    var = np.bincount(query, weights=coefficients * coefficients * var_g, minlength=n_queries)
    return mean, var


# -- ERR: suffix recursion and the cross-moment recurrence ------------------------------
def _err_label_moments(probs):
    r = err_probabilities(probs.shape[1])
    return (probs @ r, probs @ (r * r), probs @ (1.0 - r), probs @ ((1.0 - r) ** 2), probs @ (r * (1.0 - r)))


@njit(cache=True)
def _order_of(ranks, start, end, order):  # pragma: no cover - compiled
    """Fill ``order[k]`` with the row of rank k+1 in rows start..end-1; return how many are ranked."""
    n = 0
    for row in range(start, end):
        if ranks[row] > 0:
            order[ranks[row] - 1] = row
            n += 1
    return n


@njit(cache=True)
def _err_first_second_kernel(r1, r2, rm, rmm, rrm, ranks, query_offsets):  # pragma: no cover - compiled
    """Per query E[L_err] and E[L_err^2] by the suffix recursion on T_i."""
    n_queries = query_offsets.size - 1
    first = np.zeros(n_queries)
    second = np.zeros(n_queries)
    order = np.empty(max(1, np.max(np.diff(query_offsets))), np.int64)
    for q in range(n_queries):
        n = _order_of(ranks, query_offsets[q], query_offsets[q + 1], order)
        t1 = 0.0
        t2 = 0.0
        for i in range(n, 0, -1):
            d = order[i - 1]
            t2 = r2[d] / (i * i) + 2.0 * rrm[d] * t1 / i + rmm[d] * t2
            t1 = r1[d] / i + rm[d] * t1
        first[q] = t1
        second[q] = t2
    return first, second


@njit(cache=True)
def _err_cross_kernel(r1, r2, rm, rmm, rrm, ranks_a, ranks_b, query_offsets):  # pragma: no cover - compiled
    """Per query E[L_err(r_a) L_err(r_b)] by the F(i, j) recurrence (module docstring)."""
    n_queries = query_offsets.size - 1
    cross = np.zeros(n_queries)
    width = max(1, np.max(np.diff(query_offsets)))
    order_a = np.empty(width, np.int64)
    order_b = np.empty(width, np.int64)
    row_f = np.empty(width + 1)
    for q in range(n_queries):
        start = query_offsets[q]
        na = _order_of(ranks_a, start, query_offsets[q + 1], order_a)
        nb = _order_of(ranks_b, start, query_offsets[q + 1], order_b)
        # F(1, j) = prod over docs ranked above j in r_b of E[1-R]
        row_f[0] = 1.0
        for j in range(1, nb + 1):
            row_f[j] = row_f[j - 1] * rm[order_b[j - 1]]  # row_f[j] = F(1, j+1)
        total = 0.0
        for i in range(1, na + 1):
            u = order_a[i - 1]
            pos_u_b = ranks_b[u]  # 0 if u is not in r_b
            for j in range(1, nb + 1):
                v = order_b[j - 1]
                f = row_f[j - 1]
                if u == v:
                    total += f * r2[u] / (i * j)
                    continue
                if pos_u_b > 0 and pos_u_b < j:
                    cu = rrm[u] / rm[u]
                else:
                    cu = r1[u]
                pos_v_a = ranks_a[v]
                if pos_v_a > 0 and pos_v_a < i:
                    cv = rrm[v] / rm[v]
                else:
                    cv = r1[v]
                total += f * cu * cv / (i * j)
            # u enters A: F(i+1, j) = F(i, j) * (E[(1-R_u)^2]/E[1-R_u] if pos_b(u) < j else E[1-R_u])
            for j in range(1, nb + 1):
                if pos_u_b > 0 and pos_u_b < j:
                    row_f[j - 1] *= rmm[u] / rm[u]
                else:
                    row_f[j - 1] *= rm[u]
        cross[q] = total
    return cross


# -- public API ----------------------------------------------------------------------
def expected_measure(label_probs, ranks, query_offsets, measure: str) -> np.ndarray:
    """``E[L(r(x), y) | x; theta]`` per query (eq. 18 with g = L, eq. 1 / eq. 2)."""
    probs = _check(label_probs, query_offsets, ranks)
    if measure == "dcg":
        return _dcg_mean_var(probs, dcg_discount(ranks), query_offsets)[0]
    if measure == "err":
        return _err_first_second_kernel(*_err_label_moments(probs), np.asarray(ranks, np.int64), query_offsets)[0]
    raise ValueError(f"unknown measure {measure!r}; known: {MEASURES}")


def expected_squared_deviation(label_probs, ranks, query_offsets, measure: str, center: float) -> np.ndarray:
    """``E[(L(r(x), y) - center)^2 | x; theta]`` per query: the numerator of eq. 16."""
    probs = _check(label_probs, query_offsets, ranks)
    if measure == "dcg":
        mean, var = _dcg_mean_var(probs, dcg_discount(ranks), query_offsets)
        return var + (mean - center) ** 2
    if measure == "err":
        first, second = _err_first_second_kernel(*_err_label_moments(probs), np.asarray(ranks, np.int64),
                                                 query_offsets)
        return np.maximum(second - 2.0 * center * first + center * center, 0.0)
    raise ValueError(f"unknown measure {measure!r}; known: {MEASURES}")


def expected_difference(label_probs, ranks_a, ranks_b, query_offsets, measure: str) -> np.ndarray:
    """``E[delta(x, y) | x; theta]`` per query, ``delta = L(r_a(x), y) - L(r_b(x), y)``."""
    return (expected_measure(label_probs, ranks_a, query_offsets, measure)
            - expected_measure(label_probs, ranks_b, query_offsets, measure))


def expected_squared_difference_deviation(label_probs, ranks_a, ranks_b, query_offsets, measure: str,
                                          center: float) -> np.ndarray:
    """``E[(delta(x, y) - center)^2 | x; theta]`` per query: the numerator of eq. 17."""
    probs = _check(label_probs, query_offsets, ranks_a, ranks_b)
    if measure == "dcg":
        coefficients = dcg_discount(ranks_a) - dcg_discount(ranks_b)
        mean, var = _dcg_mean_var(probs, coefficients, query_offsets)
        return var + (mean - center) ** 2
    if measure == "err":
        moments = _err_label_moments(probs)
        ranks_a = np.asarray(ranks_a, np.int64)
        ranks_b = np.asarray(ranks_b, np.int64)
        first_a, second_a = _err_first_second_kernel(*moments, ranks_a, query_offsets)
        first_b, second_b = _err_first_second_kernel(*moments, ranks_b, query_offsets)
        cross = _err_cross_kernel(*moments, ranks_a, ranks_b, query_offsets)
        mean = first_a - first_b
        return np.maximum(second_a - 2.0 * cross + second_b - 2.0 * center * mean + center * center, 0.0)
    raise ValueError(f"unknown measure {measure!r}; known: {MEASURES}")


def true_measure(labels, ranks, query_offsets, measure: str, n_labels: int) -> np.ndarray:
    """``L(r(x), y)`` per query for known labels (the moments of a one-hot label model)."""
    one_hot = np.zeros((labels.size, n_labels))
    one_hot[np.arange(labels.size), np.asarray(labels, dtype=np.int64)] = 1.0
    return expected_measure(one_hot, ranks, query_offsets, measure)
