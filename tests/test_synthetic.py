import numpy as np
import pytest

from ltrbv.data.letor import read_letor
from ltrbv.data.synthetic import (
    SyntheticSpec,
    fold_partitions,
    generate_queries,
    write_letor_folds,
    write_letor_split,
    write_mslr_like_file,
)


def test_same_spec_same_bytes(tmp_path):
    spec = SyntheticSpec(n_queries=40, docs_per_query=12)
    a = write_letor_split(tmp_path / "a.txt", spec, 2, "test")
    b = write_letor_split(tmp_path / "b.txt", spec, 2, "test")
    assert a.read_bytes() == b.read_bytes()
    c = write_letor_split(tmp_path / "c.txt", SyntheticSpec(n_queries=40, docs_per_query=12, seed=1), 2, "test")
    assert a.read_bytes() != c.read_bytes()


def test_folds_rotate_like_letor4(tmp_path):
    spec = SyntheticSpec(n_queries=50, docs_per_query=10)
    write_letor_folds(tmp_path, spec, folds=(1, 2))
    assert fold_partitions(1) == {"train": [0, 1, 2], "vali": [3], "test": [4]}
    fold1 = {s: read_letor(tmp_path / "Fold1" / f"{s}.txt") for s in ("train", "vali", "test")}
    fold2 = {s: read_letor(tmp_path / "Fold2" / f"{s}.txt") for s in ("train", "vali", "test")}
    qids = {s: set(d.qids) for s, d in fold1.items()}
    assert not (qids["train"] & qids["test"]) and not (qids["train"] & qids["vali"]) and not (qids["vali"] & qids["test"])
    assert sum(len(q) for q in qids.values()) == 50
    # Fold2's test partition S1 is inside Fold1's training set; Fold1's test S5 is Fold2's validation set
    assert set(fold2["test"].qids) <= qids["train"]
    assert set(fold2["vali"].qids) == qids["test"]


def test_labels_skewed_and_features_informative():
    spec = SyntheticSpec(n_queries=300, docs_per_query=40)
    data = generate_queries(spec)
    freq = np.bincount(data.labels, minlength=3) / data.labels.size
    np.testing.assert_allclose(freq, spec.label_probs, atol=0.04)
    assert data.X.dtype == np.float32 and data.X.min() >= 0 and data.X.max() <= 1  # letor style
    # informative features correlate with the latent relevance, noise features do not
    with np.errstate(invalid="ignore", divide="ignore"):  # constant (fully sparse) columns have no correlation
        corr = np.array([abs(np.corrcoef(data.X[:, j], data.latent_relevance)[0, 1]) for j in range(spec.n_features)])
    corr = np.nan_to_num(corr)
    assert np.sort(corr)[-spec.n_informative // 2 :].min() > 0.1
    assert np.sum(corr > 0.1) <= spec.n_informative + spec.n_query_level
    sizes = data.query_sizes
    assert sizes.min() >= spec.min_docs and sizes.max() <= spec.max_docs and sizes.std() > 0


def test_mslr_shaped_file(tmp_path):
    path = write_mslr_like_file(tmp_path / "m.txt", n_lines=3000, seed=3)
    data = read_letor(path, n_features=136)
    assert data.n_features == 136 and abs(data.n_docs - 3000) < 600
    assert set(np.unique(data.labels)) <= {0, 1, 2, 3, 4} and data.labels.max() >= 3
    assert data.X.max() > 100  # raw, unnormalised magnitudes


def test_invalid_spec():
    with pytest.raises(ValueError, match="label_probs"):
        SyntheticSpec(max_label=2, label_probs=(0.5, 0.5))


def test_draws_follow_their_distributions():
    """The generator's own normal, Gamma(2, 1) and uniform draws (uniform integers transformed with exact
    arithmetic, for the same bits on every CPU) against scipy's distributions: Kolmogorov-Smirnov, 200,000 draws."""
    from scipy import stats

    from ltrbv.data.synthetic import _gamma2, _normal, _open_uniform

    rng = np.random.default_rng(11)
    u = _open_uniform(rng, 200_000)
    assert 0 < u.min() and u.max() < 1
    assert stats.kstest(u, "uniform").pvalue > 1e-3
    assert stats.kstest(_normal(rng, 200_000), "norm").pvalue > 1e-3
    assert stats.kstest(_gamma2(rng, 200_000), stats.gamma(2.0).cdf).pvalue > 1e-3
    z = _normal(rng, 2_000_000)  # the tails too: P(|z| > 4) = 6.3e-5
    assert abs(np.mean(np.abs(z) > 4) - 2 * stats.norm.sf(4)) < 4 * np.sqrt(2 * stats.norm.sf(4) / z.size)


def test_query_sizes_log_normal_around_docs_per_query():
    spec = SyntheticSpec(n_queries=4000, docs_per_query=40.0, min_docs=1, max_docs=10**6)
    sizes = generate_queries(spec).query_sizes
    assert abs(sizes.mean() - 40.0) < 4 * 40.0 * np.sqrt(np.exp(0.25) - 1) / np.sqrt(spec.n_queries)
    assert abs(np.std(np.log(sizes)) - 0.5) < 0.03


def test_raw_query_level_columns_constant_within_a_query():
    from dataclasses import replace

    from ltrbv.data.synthetic import MSLR_SHAPED

    spec = replace(MSLR_SHAPED, n_queries=30, sparsity=0.0)
    data = generate_queries(spec)
    starts = np.concatenate(([0], np.cumsum(data.query_sizes)[:-1]))
    query_level = [j for j in range(spec.n_features) if np.unique(data.X[:, j]).size > 1  # not scaled to one value
                   and all(np.unique(data.X[s:s + n, j]).size == 1 for s, n in zip(starts, data.query_sizes))]
    assert len(query_level) == spec.n_query_level
