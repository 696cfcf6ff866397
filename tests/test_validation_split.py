"""A validation set carved from the training queries by seed (datasets.<name>.validation_from_train, istella)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import yaml

from conftest import REPO, tiny_config
from ltrbv.data.validation_split import carve_validation, query_ids_of_file

QIDS = [str(q) for q in np.random.default_rng(0).choice(100_000, size=500, replace=False)]


def test_the_split_is_disjoint_covers_every_query_and_depends_on_the_seed_only():
    split = carve_validation(QIDS, 0.2, seed=7)
    assert len(split.vali) == 100 and len(split.train) == 400
    assert not set(split.train) & set(split.vali) and set(split.train) | set(split.vali) == set(QIDS)
    assert carve_validation(QIDS, 0.2, seed=7) == split
    assert carve_validation(list(reversed(QIDS)) + QIDS[:10], 0.2, seed=7) == split  # order and repeats aside
    other = carve_validation(QIDS, 0.2, seed=8)
    assert set(other.vali) != set(split.vali)
    assert carve_validation(QIDS, 0.3, seed=7).vali != split.vali


def test_every_query_is_equally_likely_to_be_validation():
    """Over seeds, each query lands in the validation part with probability ~fraction (a binomial check)."""
    qids = [str(q) for q in range(40)]
    counts = dict.fromkeys(qids, 0)
    for seed in range(2000):
        for q in carve_validation(qids, 0.25, seed).vali:
            counts[q] += 1
    share = np.array(list(counts.values())) / 2000
    assert np.all(np.abs(share - 0.25) < 4 * np.sqrt(0.25 * 0.75 / 2000))


@pytest.mark.parametrize("fraction", [0.0, 1.0, 0.001, 0.999])
def test_a_fraction_leaving_an_empty_part_is_refused(fraction):
    with pytest.raises(ValueError, match="both need at least one"):
        carve_validation(QIDS, fraction, seed=1)


def test_query_ids_are_read_in_file_order(tmp_path):
    path = tmp_path / "train.txt"
    path.write_text("0 qid:10 1:0.5\n1 qid:10 1:0.1\n\n2 qid:3 1:0.2 #c\n0 qid:7 1:1\n")
    assert query_ids_of_file(path) == ["10", "3", "7"]
    path.write_text("0 qid:10 1:0.5\n0 1:0.2\n")
    with pytest.raises(ValueError, match=r"train\.txt, line 2: no 'qid:' token"):
        query_ids_of_file(path)


TARGETS = [f"results/tiny/parsed/Fold1/{split}.npz" for split in ("train", "vali", "test")]


def _carved_workflow(tmp_path):
    """Run the workflow on the tiny synthetic dataset, its validation set carved from the training file, up to
    the parsed caches."""
    done = subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory",
                           str(tmp_path), "--configfile", str(tmp_path / "config.yaml"), "--cores", "1", *TARGETS],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_workflow_parses_the_carved_parts_of_the_training_file(tmp_path):
    """Rules validation_split and parse_split on a synthetic dataset: the training and validation caches hold
    the recorded queries of the training file, all of them, each once, with the file's rows."""
    config = tiny_config()
    config["datasets"]["tiny"]["validation_from_train"] = {"fraction": 0.25, "seed": 11}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    _carved_workflow(tmp_path)
    _assert_carved(tmp_path)


def test_a_training_file_changed_with_its_mtime_kept_reparses_the_carved_validation_set(tmp_path):
    """The content digest of a training file whose validation set is carved from it: a feature of a validation
    query changed and the file's old timestamp restored (``touch -r``) makes the workflow carve and parse both
    parts again, so the validation cache holds the new values (not only the training cache)."""
    import os

    config = tiny_config()
    config["datasets"]["tiny"]["validation_from_train"] = {"fraction": 0.25, "seed": 11}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    _carved_workflow(tmp_path)
    _carved_workflow(tmp_path)  # the raw files existed when it started: their digests are recorded
    raw = tmp_path / "results/tiny/raw/Fold1/train.txt"
    vali_qid = json.loads((tmp_path / "results/tiny/parsed/Fold1/validation_split.json").read_text())["vali"][0]
    stat, lines = raw.stat(), raw.read_text().splitlines(keepends=True)
    row = next(i for i, line in enumerate(lines) if line.split()[1] == f"qid:{vali_qid}")
    tokens = lines[row].split(" ")
    tokens[2] = "1:123.5"
    lines[row] = " ".join(tokens)
    raw.write_text("".join(lines))
    os.utime(raw, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    _carved_workflow(tmp_path)
    _assert_carved(tmp_path)


def _assert_carved(tmp_path):
    from ltrbv.data.cache import load_cache
    from ltrbv.data.letor import read_letor

    record = json.loads((tmp_path / "results/tiny/parsed/Fold1/validation_split.json").read_text())
    raw = read_letor(tmp_path / "results/tiny/raw/Fold1/train.txt", n_features=12, max_feature=12)
    expected = carve_validation(list(raw.qids), 0.25, 11)
    assert (record["train"], record["vali"], record["seed"]) == (list(expected.train), list(expected.vali), 11)
    train, vali = (load_cache(tmp_path / f"results/tiny/parsed/Fold1/{p}.npz") for p in ("train", "vali"))
    assert set(train.qids) == set(expected.train) and set(vali.qids) == set(expected.vali)
    assert train.n_docs + vali.n_docs == raw.n_docs
    rows = {int(line): i for i, line in enumerate(raw.line_numbers)}
    for part in (train, vali):
        np.testing.assert_array_equal(part.X, raw.X[[rows[int(n)] for n in part.line_numbers]])
