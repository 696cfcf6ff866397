"""Content digests of the workflow's files: what a table claims to summarise is what its files hold.

Snakemake decides what to rerun from modification times, and a file's content can change while its
mtime stays (``touch -r``, ``tar x``, ``cp -p``, ``rsync -t``).  So the workflow also keeps SHA-256
digests of content, and checks them:

* raw data (outside ``results/``): at parse time every raw split is hashed and compared with the digest
  recorded at the previous run (``results/<dataset>/digests/raw/...``, :data:`paths.RAW_DIGEST`).  When
  the content changed, its parsed cache (for a training file a validation set is carved from, also the
  carved split and the validation cache) is given an mtime older than the raw file, so that Snakemake
  parses it again and reruns everything downstream; the digest is then recorded.  The first run records
  the digests it finds (it has nothing to compare with).
* score files: a training job records in its ``meta.json`` the digest of each score file it wrote and the
  content digest of each parsed split it read (``digests``).  At parse time a recorded score file whose
  content changed is refused (:func:`changed_score_files`); a job that reads scores together with data
  checks both digests first (:func:`verify_run_file`), so a score file scored on other data (a reordered
  test file, say) is refused with both file names instead of being evaluated against the wrong documents.

Only the workflow does this: ``ltrbv evaluate`` reads any score file, with or without a ``meta.json``.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path

from . import paths
from .datasets import raw_file, raw_splits

#: the ``meta.json`` key holding a run's digests: ``{"scores": {file name: sha256}, "data": {split: sha256}}``
DIGESTS = "digests"
_CHUNK = 1 << 20


class DigestMismatchError(ValueError):
    """A file whose content differs from the digest recorded for it."""


def file_sha256(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


# -- raw data ---------------------------------------------------------------------------------------

def _recorded(stamp: Path) -> str | None:
    try:
        return stamp.read_text(encoding="utf-8").split()[0]
    except (OSError, IndexError):
        return None


def refresh_raw_digest(raw: str, stamp: str, *derived: str) -> bool:
    """Hash ``raw``; when its content differs from the digest in ``stamp``, make each ``derived`` file (its parsed
    cache, and for a carved validation set the split and the validation cache) older than ``raw`` (Snakemake then
    makes them again) and record the new digest.  True when the content changed."""
    raw_path, stamp_path = Path(raw), Path(stamp)
    if not raw_path.is_file():
        return False
    actual, recorded = file_sha256(raw_path), _recorded(stamp_path)
    if actual == recorded:
        return False
    changed = recorded is not None
    older = raw_path.stat().st_mtime_ns - 1_000_000_000
    for path in map(Path, derived if changed else ()):
        if path.exists():
            os.utime(path, ns=(older, older))
    from ..io import write_text

    write_text(stamp_path, f"{actual}  {raw}\n")
    return changed


def refresh_raw_digests(config: dict) -> list[str]:
    """:func:`refresh_raw_digest` of every raw split of the run's datasets; the raw files whose content changed."""
    changed = []
    for name in config["run"]["datasets"]:
        dataset = config["datasets"][name]
        for fold in dataset["folds"]:
            for split in raw_splits(dataset):
                raw = raw_file(dataset, fold, split)
                stamp = paths.RAW_DIGEST.format(dataset=name, fold=fold, split=split)
                if refresh_raw_digest(raw, stamp, *_derived(name, dataset, fold, split)):
                    changed.append(raw)
    return changed


def _derived(name: str, dataset: dict, fold: str, split: str) -> list[str]:
    """The files the workflow makes from one raw split: its parsed cache; a training file from which the
    validation set is carved (``validation_from_train``) also makes the carved split and the validation cache."""
    made = [paths.parsed(name, fold, split)]
    if split == "train" and "vali" not in raw_splits(dataset):
        made += [paths.VALIDATION_SPLIT.format(dataset=name, fold=fold), paths.parsed(name, fold, "vali")]
    return made


# -- score files ------------------------------------------------------------------------------------

def run_digests(score_files: dict, data_files: dict) -> dict:
    """The ``digests`` entry of a run's ``meta.json``: each written score file's SHA-256 (by file name) and the
    content digest of each parsed split it was trained on or scored (by split)."""
    from ..data.cache import cache_digest

    return {"scores": {Path(name).name: file_sha256(path) for name, path in score_files.items()},
            "data": {split: cache_digest(path) for split, path in data_files.items()}}


def _meta_digests(folder: Path) -> tuple[Path, dict | None]:
    meta = folder / "meta.json"
    try:
        return meta, json.loads(meta.read_text(encoding="utf-8")).get(DIGESTS)
    except (OSError, ValueError, AttributeError):
        return meta, None


@lru_cache(maxsize=64)
def _data_digest(data_file: str, mtime_ns: int, size: int) -> str:
    from ..data.cache import cache_digest

    return cache_digest(data_file)


def verify_run_file(path: str | os.PathLike, data_file: str | os.PathLike) -> None:
    """Refuse a score file whose content changed after its job wrote it, or that was scored on other data than
    ``data_file`` (the parsed split it is read with), by the digests of the ``meta.json`` beside it.  A run with
    no recorded digests (written before they were recorded, or by a rule of the user's own) is not checked."""
    path = Path(path)
    meta, digests = _meta_digests(path.parent)
    if not digests:
        return
    recorded = digests.get("scores", {}).get(path.name)
    if recorded is not None and file_sha256(path) != recorded:
        raise DigestMismatchError(
            f"{path}: its content differs from the digest its training job recorded in {meta} (the file changed "
            f"after it was written); delete {path.parent} to train the run again")
    split = path.name.split(".", 1)[0]
    recorded = digests.get("data", {}).get(split)
    stat = os.stat(data_file)
    if recorded is not None and _data_digest(str(data_file), stat.st_mtime_ns, stat.st_size) != recorded:
        raise DigestMismatchError(
            f"{path} was scored on other data than {data_file}: the {split} data's digest recorded in {meta} "
            f"differs from the data's (the data changed after the run was trained, e.g. its queries reordered); "
            f"delete {path.parent} to train the run again")


def read_run_scores(path, data, data_file) -> "np.ndarray":
    """A run's score file in ``data``'s row order, after :func:`verify_run_file`."""
    from ..io import read_scores

    scores = read_scores(path, n_expected=data.n_docs)  # a damaged file is reported with its line first
    verify_run_file(path, data_file)
    return data.from_file_order(scores)


def changed_score_files(config: dict) -> list[str]:
    """Score files of the run's datasets whose content differs from the digest in the ``meta.json`` beside them
    while their mtime says they are not newer than it (an edit given back its old timestamp), refused before any
    job: Snakemake, going by mtimes, would take them as they are.  A changed score file that is newer is left to
    Snakemake, which reruns the jobs that read it; they refuse it (:func:`verify_run_file`)."""
    found = []
    for name in config["run"]["datasets"]:
        root = Path(paths.RESULTS) / name
        if not root.is_dir():
            continue
        for folder, _, files in os.walk(root):
            if "meta.json" not in files:
                continue
            meta, digests = _meta_digests(Path(folder))
            for file_name, recorded in ((digests or {}).get("scores") or {}).items():
                score_file = Path(folder) / file_name
                if (score_file.is_file() and score_file.stat().st_mtime_ns <= meta.stat().st_mtime_ns
                        and file_sha256(score_file) != recorded):
                    found.append(f"{score_file}: its content differs from the digest its training job recorded in "
                                 f"{meta} (changed after it was written, its timestamp kept); delete {folder} to "
                                 "train the run again")
    return found
