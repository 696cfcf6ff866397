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
