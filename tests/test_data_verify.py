"""``ltrbv data verify``: recognition of a known data set by the shipped manifests, and its missing, changed
and extra files (real MQ2008 where it sits beside the repository; synthetic folders everywhere)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from conftest import MQ2008, SHARED_DATA, require
from ltrbv.cli import main
from ltrbv.data.manifest import known_manifests, manifest_named
from ltrbv.data.verify import record_file, verify


@pytest.fixture(autouse=True)
def user_cache(tmp_path, monkeypatch):
    """Digests recorded at first use go to a scratch user cache, never the real one."""
    cache = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return cache


def write_folds(root: Path, n_features: int, splits=("train", "vali", "test")) -> Path:
    """A LETOR-layout folder (Fold1..Fold5) of tiny dense files with ``n_features`` features."""
    for fold in range(1, 6):
        for k, split in enumerate(splits):
            path = root / f"Fold{fold}" / f"{split}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            features = " ".join(f"{j}:{(fold + k + j) % 7 / 7:.3f}" for j in range(1, n_features + 1))
            path.write_text(f"1 qid:{fold}{k} {features} #doc\n0 qid:{fold}{k} {features}\n")
    return root


def flip_one_byte(path: Path, at: int = 10) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x01
    path.write_bytes(bytes(data))


def run(capsys, *args: str) -> tuple[int, str]:
    code = main(["data", "verify", *args])
    return code, capsys.readouterr().out


# -- real MQ2008 ---------------------------------------------------------------------------------------------------

def test_shipped_mq2008_digests_are_the_published_release():
    """The manifest's digests are the shared copy's SHA256SUMS (sha256sum's output for the release as published)."""
    sums = require(SHARED_DATA / "SHA256SUMS").read_text().splitlines()
    published = {line.split()[1].removeprefix("./MQ2008/"): line.split()[0] for line in sums if "./MQ2008/" in line}
    assert manifest_named("mq2008").digests == published and len(published) == 16


def test_real_mq2008_is_recognised_and_ok(capsys, user_cache):
    root = require(MQ2008 / "Fold1" / "train.txt").parents[1]
    code, out = run(capsys, str(root))
    assert code == 0
    assert out.splitlines()[0].startswith(f"{root}: MQ2008,") and out.splitlines()[-1] == "MQ2008: OK"
    assert "16 file(s) equal the published digests" in out
    assert not user_cache.exists()  # published digests: nothing recorded


def test_a_copy_with_one_byte_changed_is_reported_by_file_name(tmp_path, capsys):
    root = require(MQ2008 / "Fold1" / "train.txt").parents[1]
    copy = tmp_path / "data"
    shutil.copytree(root, copy)
    copy.chmod(0o755)
    for path in copy.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    flip_one_byte(copy / "Fold3" / "vali.txt", at=5000)
    (copy / "Fold5" / "test.txt").unlink()
    (copy / "notes.txt").write_text("mine\n")
    code, out = run(capsys, str(copy))
    assert code == 1
    seen = hashlib.sha256((copy / "Fold3" / "vali.txt").read_bytes()).hexdigest()
    assert f"changed: Fold3/vali.txt: sha256 {seen}, expected cbd42504" in out
    assert "missing: Fold5/test.txt" in out and "extra (not in the MQ2008 manifest, ignored): notes.txt" in out
    assert out.splitlines()[-1] == "MQ2008: FAILED (1 missing, 1 changed)"


# -- synthetic folders: recognition, first-use records ---------------------------------------------------------------

def test_first_use_records_digests_outside_the_data_and_later_runs_compare(tmp_path, capsys, user_cache):
    root = write_folds(tmp_path / "MQ2007", n_features=46)
    before = sorted(root.rglob("*"))
    code, out = run(capsys, str(root))
    record = record_file("MQ2007")
    assert code == 0 and out.splitlines()[-1] == "MQ2007: OK"
    assert f"15 file(s) have no published checksum: the digests seen now are recorded in {record}" in out
    assert record.is_file() and user_cache in record.parents
    assert sorted(root.rglob("*")) == before  # nothing written into the data folder

    code, out = run(capsys, str(root))
    assert code == 0 and "15 file(s) equal the digests recorded at first use" in out

    flip_one_byte(root / "Fold2" / "train.txt")
    code, out = run(capsys, str(root))
    assert code == 1 and "changed: Fold2/train.txt: sha256" in out and "(recorded at first use on" in out


def test_an_incomplete_copy_records_nothing(tmp_path, capsys):
    root = write_folds(tmp_path / "mq2007", n_features=46)
    (root / "Fold4" / "vali.txt").unlink()
    code, out = run(capsys, str(root), "--dataset", "MQ2007")
    assert code == 1 and "missing: Fold4/vali.txt" in out and "nothing recorded" in out
    assert not record_file("MQ2007").exists()


def test_same_layout_is_told_apart_by_feature_count_then_folder_name(tmp_path, capsys):
    assert verify(write_folds(tmp_path / "a", n_features=46), record=False).recognition.manifest.name == "MQ2007"
    mslr = verify(write_folds(tmp_path / "b", n_features=136), record=False).recognition
    assert mslr.manifest is None and mslr.candidates == ("MSLR-WEB10K", "MSLR-WEB30K")
    code, out = run(capsys, str(tmp_path / "b"))
    assert code == 1 and "ambiguous: the layout of MSLR-WEB10K, MSLR-WEB30K" in out and "--dataset" in out
    shutil.copytree(tmp_path / "b", tmp_path / "MSLR-WEB30K")
    assert verify(tmp_path / "MSLR-WEB30K", record=False).recognition.manifest.name == "MSLR-WEB30K"
    assert verify(tmp_path / "b", dataset="mslr-web10k", record=False).ok


def test_an_unknown_folder_names_the_closest_layout(tmp_path, capsys):
    write_folds(tmp_path / "d" / "MQ2007", n_features=46)
    code, out = run(capsys, str(tmp_path / "d"))
    assert code == 1
    assert out.strip() == (f"{tmp_path / 'd'}: unknown data set; closest known layout: MQ2007: its files sit in a "
                           f"folder below ROOT (MQ2007); verify {tmp_path / 'd' / 'MQ2007'}")
    write_folds(tmp_path / "e", n_features=12)
    code, out = run(capsys, str(tmp_path / "e"))
    assert code == 1 and "unknown data set" in out and "the first line of Fold1/test.txt has features up to 12" in out
    (tmp_path / "f").mkdir()
    assert run(capsys, str(tmp_path / "f"))[1].strip().endswith("unknown data set; closest known layout: none: ROOT holds no files")
    (tmp_path / "f" / "train.txt").write_text("0 qid:1 1:0.5\n")
    code, out = run(capsys, str(tmp_path / "f"))
    assert code == 1 and "closest known layout: istella-X (1 of its 3 files; missing: test.txt, vali.txt)" in out


def test_every_manifest_is_complete_and_its_layout_plans_as_a_config():
    """Each manifest names its files and the config keys that read them: the files the layout implies are
    exactly the manifest's data files (readme and such aside)."""
    from ltrbv.workflow.datasets import SPLITS, raw_file

    names = [m.name for m in known_manifests()]
    assert {"MQ2007", "MQ2008", "MSLR-WEB10K", "MSLR-WEB30K", "Yahoo-set1", "Yahoo-set2", "istella-LETOR",
            "istella-S", "istella-X", "OHSUMED", "TD2003", "TD2004", "HP2003", "HP2004", "NP2003", "NP2004"} <= set(names)
    for manifest in known_manifests():
        entry = {"root": "", **manifest.config_layout}
        carved = "validation_from_train" in entry
        implied = {raw_file(entry, fold, split) for fold in entry["folds"] for split in SPLITS
                   if not (carved and split == "vali")}
        data_files = {f for f in manifest.digests if not f.endswith("readme.txt")}
        assert implied == data_files, manifest.name
        assert manifest.has_published_digests == (manifest.name == "MQ2008")
