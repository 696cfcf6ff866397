"""Where a dataset's raw fold files live, and a clear error when they are missing.

A dataset entry in the config names a ``layout`` preset (or its own
``file_pattern``/``split_names``), a ``root`` folder and its ``folds``.  The
presets match the official releases:

* ``letor``  LETOR 3.0/4.0 and MSLR-WEB10K/30K: ``Fold1/train.txt``, ``Fold1/vali.txt``, ``Fold1/test.txt``
* ``yahoo``  Yahoo! LTR Challenge C14: ``set1.train.txt``, ``set1.valid.txt``, ``set1.test.txt``
"""

from __future__ import annotations

import os
from pathlib import Path

SPLITS = ("train", "vali", "test")

LAYOUTS = {
    "letor": {"file_pattern": "{fold}/{split}.txt", "split_names": {"train": "train", "vali": "vali", "test": "test"}},
    "yahoo": {"file_pattern": "{fold}.{split}.txt", "split_names": {"train": "train", "vali": "valid", "test": "test"}},
}

DOWNLOADS = {
    "mq2008": "LETOR 4.0 MQ2008 from Microsoft Research (search 'LETOR 4.0 download'); unpack so that ROOT/Fold1/train.txt exists",
    "mq2007": "LETOR 4.0 MQ2007 from Microsoft Research (search 'LETOR 4.0 download'); unpack so that ROOT/Fold1/train.txt exists",
    "mslr-web10k": "MSLR-WEB10K from Microsoft Research (search 'Microsoft Learning to Rank Datasets'); unpack so that ROOT/Fold1/train.txt exists",
    "mslr-web30k": "MSLR-WEB30K from Microsoft Research (search 'Microsoft Learning to Rank Datasets'); unpack so that ROOT/Fold1/train.txt exists",
    "yahoo": "Yahoo! Learning to Rank Challenge C14 from Yahoo Webscope (requires an account); unpack so that ROOT/set1.train.txt exists",
    "istella": "istella LETOR from https://istella.ai/datasets/letor-dataset/ (licence agreement); unpack so that ROOT/full/train.txt exists",
}
DOWNLOADS.update(mslr10k=DOWNLOADS["mslr-web10k"], mslr30k=DOWNLOADS["mslr-web30k"])


class MissingDataError(FileNotFoundError):
    pass


def layout_of(dataset: dict) -> dict:
    preset = LAYOUTS[dataset.get("layout", "letor")]
    return {
        "file_pattern": dataset.get("file_pattern", preset["file_pattern"]),
        "split_names": {**preset["split_names"], **dataset.get("split_names", {})},
    }


def raw_file(dataset: dict, fold: str, split: str) -> str:
    """Path of the raw text file of one split of one fold."""
    layout = layout_of(dataset)
    relative = layout["file_pattern"].format(fold=fold, split=layout["split_names"][split])
    return str(Path(dataset["root"]) / relative)


def raw_splits(dataset: dict) -> tuple[str, ...]:
    """The splits read from raw files: all three, or train and test when the validation set is carved from
    the training queries (``validation_from_train``)."""
    return ("train", "test") if dataset.get("validation_from_train") else SPLITS


def raw_source(dataset: dict, fold: str, split: str) -> str:
    """The raw file a split is parsed from: its own, or the training file for a carved validation set."""
    return raw_file(dataset, fold, "train" if split not in raw_splits(dataset) else split)


def all_raw_files(dataset: dict) -> list[str]:
    return [raw_file(dataset, fold, split) for fold in dataset["folds"] for split in raw_splits(dataset)]


def missing_raw_files(dataset: dict) -> list[str]:
    return [path for path in all_raw_files(dataset) if not Path(path).exists()]


def not_a_file(path: str) -> str | None:
    """What an existing raw path is when it is not a regular file (a directory, a FIFO, ...), or None."""
    import stat

    mode = Path(path).stat().st_mode
    if stat.S_ISREG(mode):
        return None
    kinds = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def fetched_datasets(config: dict) -> list[str]:
    """The datasets of the run fetched by the workflow (a ``fetch`` entry)."""
    return [name for name in config["run"]["datasets"] if config["datasets"][name].get("fetch")]


def fetch_problems(name: str, dataset: dict) -> list[str]:
    """A fetched dataset is unpacked under results/ (nothing is written outside it): its root must be the
    download folder or one below it."""
    from . import paths

    if not dataset.get("fetch"):
        return []
    if dataset.get("synthetic"):
        return [f"datasets.{name}: a synthetic dataset is generated, not fetched; drop fetch or synthetic"]
    folder = paths.FETCHED.format(dataset=name)
    root = Path(os.path.normpath(dataset["root"])).as_posix()
    if root != folder and not root.startswith(folder + "/"):
        return [f"datasets.{name}.root {dataset['root']!r}: a fetched dataset is unpacked into {folder!r} (nothing "
                f"is written outside results/); set the root to that folder or the folder in it that holds the "
                f"files, e.g. {folder + '/' + Path(dataset['root']).name!r}"]
    return []


def check_raw_files(name: str, dataset: dict) -> None:
    """Fail before any job runs when a real dataset's files are absent, saying where to get them, or when a
    raw path is not a regular file (a directory, a FIFO), saying what it is."""
    if dataset.get("synthetic") or dataset.get("fetch"):  # generated or fetched by a rule
        return
    missing = missing_raw_files(dataset)
    if not missing:
        wrong = [(path, not_a_file(path)) for path in all_raw_files(dataset)]
        wrong = [f"{path}: is {kind}, expected a LETOR text file" for path, kind in wrong if kind]
        if wrong:
            raise MissingDataError(f"dataset {name!r}: {len(wrong)} raw fold file(s) are not regular files:\n  "
                                   + "\n  ".join(wrong))
        return
    how = dataset.get("download") or DOWNLOADS.get(name.lower()) or DOWNLOADS.get(dataset.get("source", ""), "")
    shown = "\n  ".join(missing[:6]) + ("\n  ..." if len(missing) > 6 else "")
    raise MissingDataError(
        f"dataset {name!r}: {len(missing)} raw fold file(s) missing under root {dataset['root']!r}:\n  {shown}\n"
        f"Download: {how + '; ' if how else ''}every data set: docs/data.md#where-to-get-the-data-sets.\n"
        f"Then put the files there, or set datasets.{name}.root in your config file to where they are; "
        f"`ltrbv data verify ROOT` checks them (docs/data.md#checking-a-copy-ltrbv-data-verify-root)."
    )


def covered_datasets(config: dict, section: dict | None) -> list[str]:
    """The datasets of the run a section covers, in the run's order: its ``datasets`` (empty or null: all of
    them); none when the section is off (None)."""
    if section is None:
        return []
    chosen = section.get("datasets") or config["run"]["datasets"]
    return [name for name in config["run"]["datasets"] if name in chosen]


def enabled_section(config: dict, key: str) -> dict | None:
    """A top-level section of the config, or None when it is absent, empty or ``enabled: false``."""
    section = config.get(key)
    if not section or not section.get("enabled", True):
        return None
    return section
