"""A deterministic synthetic LETOR generator that writes real LETOR text files.

The demo workflow runs on these files through the same parser path as real
data, and the benchmarks use its MSLR-shaped preset.

Generative model (all draws from one ``numpy.random.Generator`` seeded by
``SyntheticSpec.seed``):

1. **Queries.** Query ``q`` has ``n_q`` documents, ``n_q`` drawn from a
   log-normal around ``docs_per_query`` (log-sd 0.5, mean ``docs_per_query``)
   rounded and clipped to ``[min_docs, max_docs]``, and a difficulty offset
   ``b_q ~ N(0, query_spread^2)``.
2. **Latent relevance.** Document ``d`` of query ``q`` has latent relevance
   ``z_qd = b_q + e_qd`` with ``e_qd ~ N(0, 1)``.
3. **Graded labels.** ``label = #{t : z_qd > tau_t}`` for thresholds ``tau``
   chosen as normal quantiles of the marginal of ``z`` so that the label
   frequencies are ``label_probs`` (a realistic skew: most documents are
   irrelevant; MQ2008 has 81% / 13% / 6% for labels 0/1/2).
4. **Features.** Of ``n_features`` columns,
   * ``n_informative`` are *noisy monotone* views of ``z``:
     ``f = g_j(w_j z_qd + sigma_j eps)`` with a random signal weight ``w_j``,
     noise ``sigma_j`` and a monotone link ``g_j`` (identity, exp, logistic or
     a cube) so that no single feature is a clean copy of the label;
   * ``n_query_level`` are constant within a query, Gamma(2, 1) per query
     (query-level features such as query length; they carry no within-query
     ranking signal);
   * the rest are irrelevant noise, N(0, 1).
   A ``sparsity`` fraction of the feature values is set to zero (absent in
   sparse output).
5. **Value style.** ``style="letor"`` min-max normalises each feature within
   each query to [0, 1] (LETOR 4.0 "QueryLevelNorm"); ``style="raw"`` scales
   columns to heterogeneous magnitudes, some integer-valued (MSLR-WEB10K raw
   features: counts, lengths, BM25 scores, PageRank-like values): a column's
   value is its rank among the documents (tied values share the lowest rank)
   over n - 1, times ``10^u``, ``u ~ U(-1, 5)``, to 3 decimals, floored for
   about a third of the columns.

**The same bits on every machine.**  The generator draws only uniform integers and uniform doubles from
the ``Generator`` (integer arithmetic: the same everywhere) and turns them into normal, log-normal and
gamma variates, links and magnitudes with :mod:`ltrbv.exact_math` and IEEE-754 basic operations
(``+ - * /``, ``sqrt``, ``rint``, comparisons, sorting), each its own numpy call or Python operation
(so that no compiler fuses a multiply and an add), never with ``np.exp``/``np.log``/``**``/
``rng.normal``/``rng.gamma``/``rng.lognormal``/``scipy.stats``: those take a different code path on each
CPU (numpy's AVX-512/AVX2 kernels, glibc's FMA variants of ``exp``, ``log``, ``log1p``, ``pow``; the
ziggurat's tail uses ``log1p``) and differ in the last bit, which moves a split threshold.  No float
reduction (sum, dot) reaches a value; ranks of tied values do not depend on the sort algorithm.  So
``generate_queries`` gives the same bytes under any numpy SIMD setting or C library
(``tests/test_determinism.py`` checks it under numpy's default dispatch, without AVX-512 and without AVX2
and FMA3).  Any change here must keep to these operations.

Files follow LETOR 4.0: partitions S1..S5 of the queries and folds
``Fold1..Fold5/{train,vali,test}.txt`` with Fold i = train S_i, S_{i+1},
S_{i+2}, vali S_{i+3}, test S_{i+4} (indices mod 5), each line
``label qid:Q 1:v 2:v ... #docid = ...``.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .. import exact_math

N_PARTITIONS = 5
FOLD_NAMES = tuple(f"Fold{i}" for i in range(1, N_PARTITIONS + 1))


@dataclass(frozen=True)
class SyntheticSpec:
    n_queries: int = 300
    docs_per_query: float = 40.0
    min_docs: int = 5
    max_docs: int = 200
    n_features: int = 46
    n_informative: int = 16
    n_query_level: int = 4
    max_label: int = 2
    label_probs: tuple[float, ...] = (0.80, 0.13, 0.07)
    query_spread: float = 0.6
    sparsity: float = 0.05
    style: str = "letor"  # "letor" (per-query min-max to [0, 1]) or "raw"
    seed: int = 20161101

    def __post_init__(self) -> None:
        if len(self.label_probs) != self.max_label + 1:
            raise ValueError("label_probs needs one probability per label 0..max_label")
        if abs(sum(self.label_probs) - 1.0) > 1e-9:
            raise ValueError("label_probs must sum to 1")
        if self.n_informative + self.n_query_level > self.n_features:
            raise ValueError("n_informative + n_query_level exceeds n_features")
        if self.style not in ("letor", "raw"):
            raise ValueError("style must be 'letor' or 'raw'")
        if not 0.0 <= self.sparsity < 1.0:
            raise ValueError("sparsity must be in [0, 1)")

    @classmethod
    def from_dict(cls, values: dict) -> "SyntheticSpec":
        values = dict(values)
        if "label_probs" in values:
            values["label_probs"] = tuple(float(p) for p in values["label_probs"])
        return cls(**values)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["label_probs"] = list(self.label_probs)
        return out


MSLR_SHAPED = SyntheticSpec(
    n_queries=6000,
    docs_per_query=120.0,
    min_docs=10,
    max_docs=600,
    n_features=136,
    n_informative=40,
    n_query_level=10,
    max_label=4,
    label_probs=(0.52, 0.32, 0.13, 0.02, 0.01),
    sparsity=0.10,
    style="raw",
    seed=10000,
)


@dataclass(frozen=True)
class SyntheticQueries:
    X: np.ndarray  # float32 (n_docs, n_features)
    labels: np.ndarray  # int8 (n_docs,)
    query_sizes: np.ndarray  # int64 (n_queries,)
    latent_relevance: np.ndarray  # float64 (n_docs,)


def _label_thresholds(spec: SyntheticSpec) -> np.ndarray:
    """Thresholds tau on z = b + e (marginally N(0, 1 + spread^2)) giving label_probs (+-inf for a 0 or 1)."""
    cumulative = np.cumsum(spec.label_probs)[:-1]
    inside = (cumulative > 0) & (cumulative < 1)
    quantile = np.where(cumulative <= 0, -np.inf, np.inf)
    quantile[inside] = exact_math.normal_quantile(cumulative[inside])
    return quantile * np.sqrt(1.0 + spec.query_spread * spec.query_spread)


_TWO_TO_52 = float(1 << 52)


def _open_uniform(rng: np.random.Generator, size) -> np.ndarray:
    """U(0, 1) never 0 or 1: (k + 1/2) / 2^52 for k uniform on 0 .. 2^52 - 1 (every step exact)."""
    return (rng.integers(0, 1 << 52, size=size, dtype=np.int64) + 0.5) / _TWO_TO_52


def _uniform(rng: np.random.Generator, low: float, high: float, size=None):
    """U(low, high) as low + (high - low) U, each step its own rounding (the C of ``rng.uniform`` may be
    compiled to a fused multiply-add where the CPU has one)."""
    return low + (high - low) * rng.random(size)


def _normal(rng: np.random.Generator, size) -> np.ndarray:
    """N(0, 1) by inversion of one uniform (AS 241 in exact arithmetic)."""
    return exact_math.normal_quantile(_open_uniform(rng, size))


def _gamma2(rng: np.random.Generator, size) -> np.ndarray:
    """Gamma(2, 1) as the sum of two Exp(1) variates, -log U - log V."""
    return -exact_math.log(_open_uniform(rng, size)) - exact_math.log(_open_uniform(rng, size))


def _link(signal: np.ndarray, link: int) -> np.ndarray:
    """The monotone link g_j: identity, exp(s/2), logistic or cube."""
    if link == 1:
        return exact_math.exp(0.5 * signal)
    if link == 2:
        return 1.0 / (1.0 + exact_math.exp(-signal))
    if link == 3:
        return signal * signal * signal
    return signal


def generate_queries(spec: SyntheticSpec) -> SyntheticQueries:
    """Draw queries, labels and features from the generative model in the module docstring."""
    rng = np.random.default_rng(spec.seed)
    mean_log = exact_math.log(spec.docs_per_query) - 0.125  # - sigma^2 / 2 (sigma = 0.5): E[n_q] = docs_per_query
    sizes = np.clip(
        np.rint(exact_math.exp(mean_log + 0.5 * _normal(rng, spec.n_queries))), spec.min_docs, spec.max_docs
    ).astype(np.int64)
    n_docs = int(sizes.sum())
    query_of_doc = np.repeat(np.arange(spec.n_queries), sizes)

    difficulty = spec.query_spread * _normal(rng, spec.n_queries)
    latent = difficulty[query_of_doc] + _normal(rng, n_docs)
    labels = np.searchsorted(_label_thresholds(spec), latent).astype(np.int8)

    X = np.empty((n_docs, spec.n_features), dtype=np.float64)
    column_role = np.zeros(spec.n_features, dtype=np.int8)  # 0 noise, 1 informative, 2 query-level
    roles = rng.permutation(spec.n_features)
    column_role[roles[: spec.n_informative]] = 1
    column_role[roles[spec.n_informative : spec.n_informative + spec.n_query_level]] = 2
    for j in range(spec.n_features):  # a loop over columns, vectorised over documents
        if column_role[j] == 1:
            weight = _uniform(rng, 0.2, 0.6)
            noise = _uniform(rng, 1.0, 3.0)
            X[:, j] = _link(weight * latent + noise * _normal(rng, n_docs), int(rng.integers(4)))
        elif column_role[j] == 2:
            X[:, j] = _gamma2(rng, spec.n_queries)[query_of_doc]
        else:
            X[:, j] = _normal(rng, n_docs)

    if spec.style == "letor":
        X = _query_min_max(X, sizes)
    else:
        X = _raw_magnitudes(X, rng)
    if spec.sparsity > 0:
        X[rng.random(X.shape) < spec.sparsity] = 0.0
    return SyntheticQueries(
        X=X.astype(np.float32), labels=labels, query_sizes=sizes, latent_relevance=latent
    )


def _query_min_max(X: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Per-query min-max normalisation to [0, 1] (constant columns become 0), rounded to 6 digits."""
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    lo = np.minimum.reduceat(X, starts, axis=0)
    hi = np.maximum.reduceat(X, starts, axis=0)
    span = hi - lo
    span[span == 0] = np.inf
    out = (X - np.repeat(lo, sizes, axis=0)) / np.repeat(span, sizes, axis=0)
    return np.round(out, 6)


def _min_ranks(values: np.ndarray) -> np.ndarray:
    """0-based rank of each value, tied values sharing their lowest rank: the same whatever order the
    (unstable, CPU-dispatched) sort leaves the ties in."""
    order = np.argsort(values)
    ordered = values[order]
    position = np.arange(values.size)
    first_of_tie = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    ranks = np.empty(values.size, dtype=np.float64)
    ranks[order] = np.maximum.accumulate(np.where(first_of_tie, position, 0))
    return ranks


_LN10 = 2.302585092994046  # ln 10 rounded to double


def _raw_magnitudes(X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Rescale columns to raw-feature-like magnitudes; a third become non-negative integers."""
    ranks = np.empty_like(X)
    for j in range(X.shape[1]):
        ranks[:, j] = _min_ranks(np.ascontiguousarray(X[:, j]))
    ranks /= max(X.shape[0] - 1, 1)  # per-column uniform scores
    scale = exact_math.exp(_uniform(rng, -1.0, 5.0, X.shape[1]) * _LN10)  # 10^u
    out = np.round(ranks * scale, 3)
    integer_columns = rng.random(X.shape[1]) < 1 / 3
    out[:, integer_columns] = np.floor(out[:, integer_columns])
    return out


# -- writing ------------------------------------------------------------------


def write_letor_text(
    path: str | os.PathLike,
    X: np.ndarray,
    labels: np.ndarray,
    query_sizes: np.ndarray,
    qids: list[str],
    sparse: bool = False,
    doc_prefix: str = "SYN",
) -> None:
    """Write rows as LETOR text (``label qid:Q i:v ... #docid = ...``), atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n_features = X.shape[1]
    dense_format = " ".join(f"{j + 1}:%.6g" for j in range(n_features))
    tmp = path.with_name(path.name + ".tmp")
    row = 0
    try:
        with open(tmp, "w", encoding="ascii", newline="\n") as out:
            for q, size in enumerate(query_sizes):
                lines = []
                for d in range(int(size)):
                    values = X[row]
                    if sparse:
                        nz = np.flatnonzero(values)
                        feats = " ".join(f"{j + 1}:{values[j]:.6g}" for j in nz)
                    else:
                        feats = dense_format % tuple(values.tolist())
                    lines.append(
                        f"{int(labels[row])} qid:{qids[q]} {feats} #docid = {doc_prefix}-{qids[q]}-{d}\n"
                    )
                    row += 1
                out.write("".join(lines))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def partition_of_queries(n_queries: int) -> np.ndarray:
    """Partition S1..S5 (as 0..4) of each query: contiguous blocks of near-equal size."""
    return np.minimum((np.arange(n_queries) * N_PARTITIONS) // n_queries, N_PARTITIONS - 1)


def fold_partitions(fold: int) -> dict[str, list[int]]:
    """LETOR 4.0 rotation: Fold i trains on S_i..S_{i+2}, validates on S_{i+3}, tests on S_{i+4}."""
    first = fold - 1
    part = [(first + k) % N_PARTITIONS for k in range(N_PARTITIONS)]
    return {"train": part[:3], "vali": [part[3]], "test": [part[4]]}


def _write_split(path, data: SyntheticQueries, fold: int, split: str, sparse: bool) -> Path:
    n_queries = data.query_sizes.size
    offsets = np.concatenate(([0], np.cumsum(data.query_sizes)))
    queries = np.flatnonzero(np.isin(partition_of_queries(n_queries), fold_partitions(fold)[split]))
    rows = np.concatenate([np.arange(offsets[q], offsets[q + 1]) for q in queries])
    write_letor_text(
        path,
        data.X[rows],
        data.labels[rows],
        data.query_sizes[queries],
        [str(1000 + q) for q in queries],
        sparse=sparse,
    )
    return Path(path)


def write_letor_split(path: str | os.PathLike, spec: SyntheticSpec, fold: int, split: str, sparse: bool = False) -> Path:
    """Write one split (``train``/``vali``/``test``) of one fold; the same spec always gives the same file."""
    if split not in ("train", "vali", "test") or not 1 <= fold <= N_PARTITIONS:
        raise ValueError(f"no split {split!r} of fold {fold} in the LETOR 4.0 layout")
    return _write_split(path, generate_queries(spec), fold, split, sparse)


def write_letor_folds(
    out_dir: str | os.PathLike, spec: SyntheticSpec, folds=(1, 2, 3, 4, 5), sparse: bool = False
) -> list[Path]:
    """Generate queries from ``spec`` and write ``Fold{i}/{train,vali,test}.txt`` under out_dir."""
    data = generate_queries(spec)
    return [
        _write_split(Path(out_dir) / f"Fold{fold}" / f"{split}.txt", data, fold, split, sparse)
        for fold in folds
        for split in ("train", "vali", "test")
    ]


def write_mslr_like_file(path: str | os.PathLike, n_lines: int, seed: int = 0) -> Path:
    """One MSLR-WEB10K-shaped file (136 raw features, labels 0-4, ~120 docs/query) of about n_lines lines."""
    base = MSLR_SHAPED
    n_queries = max(1, int(round(n_lines / base.docs_per_query)))
    spec = SyntheticSpec(**{**base.to_dict(), "label_probs": base.label_probs, "n_queries": n_queries, "seed": seed})
    data = generate_queries(spec)
    write_letor_text(path, data.X, data.labels, data.query_sizes, [str(q + 1) for q in range(n_queries)])
    return Path(path)
