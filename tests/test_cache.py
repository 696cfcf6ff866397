"""Tests of the RankingData binary cache (ltrbv.data.cache)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pytest

from ltrbv.data import cache as cache_module
from ltrbv.data.cache import CACHE_FORMAT_VERSION, CacheFormatError, load_cache, save_cache
from ltrbv.data.letor import NonContiguousQueryWarning, read_letor
from ltrbv.data.ranking_data import RankingData

FIELDS = ("X", "labels", "query_offsets", "qids", "line_numbers")


def make_data(tmp_path: Path) -> RankingData:
    text = (
        "2 qid:q-1 1:0.5 3:-1e-05 #docid = a\n"
        "0 qid:q-2 2:12345.678 #docid = b\n"
        "\n"
        "1 qid:q-1 1:.25 2:3 3:4\n"
        "4 qid:\u00e9t\u00e9 1:1\n"
    )
    path = tmp_path / "source.txt"
    path.write_text(text, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonContiguousQueryWarning)
        return read_letor(path)


def assert_same(a: RankingData, b: RankingData) -> None:
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        np.testing.assert_array_equal(x, y, err_msg=name)
    assert a.source == b.source
    assert b.X.flags.c_contiguous


def test_round_trip(tmp_path):
    data = make_data(tmp_path)
    target = tmp_path / "cache" / "source.npz"  # parent directory is created
    assert save_cache(data, target) == target
    loaded = load_cache(target)
    assert_same(data, loaded)
    assert loaded.qids.dtype.kind == "U"
    assert loaded.qids.tolist() == ["q-1", "q-2", "\u00e9t\u00e9"]
    assert loaded.line_numbers.tolist() == [1, 4, 2, 5]
    assert loaded.source == str(tmp_path / "source.txt")
    np.testing.assert_array_equal(loaded.to_file_order(loaded.labels), [2, 0, 1, 4])


def test_round_trip_with_str_path_and_no_extension(tmp_path):
    data = make_data(tmp_path)
    target = tmp_path / "cache-without-extension"
    save_cache(data, str(target))
    assert target.exists() and not (tmp_path / "cache-without-extension.npz").exists()
    assert_same(data, load_cache(str(target)))


def test_file_is_a_plain_uncompressed_npz(tmp_path):
    import zipfile

    target = tmp_path / "c.npz"
    save_cache(make_data(tmp_path), target)
    with zipfile.ZipFile(target) as z:
        assert all(info.compress_type == zipfile.ZIP_STORED for info in z.infolist())
    with np.load(target, allow_pickle=False) as z:
        assert int(z["format_version"]) == CACHE_FORMAT_VERSION
        assert str(z["source"][()]).endswith("source.txt")


def test_no_temporary_files_left(tmp_path):
    target = tmp_path / "c.npz"
    save_cache(make_data(tmp_path), target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.npz", "source.txt"]


def _fail_midway(file, **arrays):
    file.write(b"PK\x03\x04 partial archive")
    raise OSError("disk full")


@pytest.mark.parametrize("failure", ["raise-at-once", "raise-after-writing"])
def test_failed_write_leaves_nothing(tmp_path, monkeypatch, failure):
    data = make_data(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())

    def boom(*args, **kwargs):
        raise RuntimeError("savez failed")

    monkeypatch.setattr(np, "savez", boom if failure == "raise-at-once" else _fail_midway)
    target = tmp_path / "c.npz"
    with pytest.raises((RuntimeError, OSError)):
        save_cache(data, target)
    assert not target.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # temp file removed too


def test_failed_replace_leaves_nothing(tmp_path, monkeypatch):
    data = make_data(tmp_path)

    def no_replace(src, dst):
        raise PermissionError("cannot rename")

    monkeypatch.setattr(cache_module.os, "replace", no_replace)
    target = tmp_path / "c.npz"
    with pytest.raises(PermissionError):
        save_cache(data, target)
    assert not target.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_failed_overwrite_keeps_previous_cache(tmp_path, monkeypatch):
    data = make_data(tmp_path)
    target = tmp_path / "c.npz"
    save_cache(data, target)
    before = target.read_bytes()

    def boom(*args, **kwargs):
        raise RuntimeError("savez failed")

    monkeypatch.setattr(np, "savez", boom)
    with pytest.raises(RuntimeError):
        save_cache(data, target)
    assert target.read_bytes() == before


def test_overwrite_replaces(tmp_path):
    data = make_data(tmp_path)
    target = tmp_path / "c.npz"
    target.write_bytes(b"stale")
    save_cache(data, target)
    assert_same(data, load_cache(target))


def test_file_mode_follows_umask(tmp_path):
    target = tmp_path / "c.npz"
    save_cache(make_data(tmp_path), target)
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask


def test_wrong_version_rejected(tmp_path):
    data = make_data(tmp_path)
    target = tmp_path / "c.npz"
    np.savez(
        target,
        X=data.X,
        labels=data.labels,
        query_offsets=data.query_offsets,
        qids=data.qids,
        line_numbers=data.line_numbers,
        source=np.array(data.source),
        format_version=np.array(CACHE_FORMAT_VERSION + 1),
    )
    with pytest.raises(CacheFormatError, match="format version"):
        load_cache(target)


def test_missing_member_and_garbage_rejected(tmp_path):
    target = tmp_path / "c.npz"
    np.savez(target, X=np.zeros((2, 2), np.float32))
    with pytest.raises(CacheFormatError, match="missing"):
        load_cache(target)
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"this is not a zip file")
    with pytest.raises(CacheFormatError):
        load_cache(garbage)


def test_pickled_member_rejected(tmp_path):
    data = make_data(tmp_path)
    target = tmp_path / "c.npz"
    np.savez(
        target,
        X=data.X,
        labels=data.labels,
        query_offsets=data.query_offsets,
        qids=np.array(list(data.qids), dtype=object),
        line_numbers=data.line_numbers,
        source=np.array(data.source),
        format_version=np.array(CACHE_FORMAT_VERSION),
    )
    with pytest.raises(CacheFormatError):
        load_cache(target)


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_cache(tmp_path / "absent.npz")
