"""Where a dataset's raw fold files live, and a clear error when they are missing.

A dataset entry in the config names a ``layout`` preset (or its own
``file_pattern``/``split_names``), a ``root`` folder and its ``folds``.  The
presets match the official releases:

* ``letor``  LETOR 3.0/4.0 and MSLR-WEB10K/30K: ``Fold1/train.txt``, ``Fold1/vali.txt``, ``Fold1/test.txt``
* ``yahoo``  Yahoo! LTR Challenge C14: ``set1.train.txt``, ``set1.valid.txt``, ``set1.test.txt``
"""

from __future__ import annotations

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
}


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


def missing_raw_files(dataset: dict) -> list[str]:
    return [path for path in raw_files(dataset) if not Path(path).exists()]


def raw_files(dataset: dict) -> list[str]:
    """Every raw file of a dataset, fold by fold."""
    return [raw_file(dataset, fold, split) for fold in dataset["folds"] for split in SPLITS]


def not_a_file(path: str) -> str | None:
    """What an existing raw path is when it is not a regular file (a directory, a FIFO, ...), or None."""
    import stat

    mode = Path(path).stat().st_mode
    if stat.S_ISREG(mode):
        return None
    kinds = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def check_raw_files(name: str, dataset: dict) -> None:
    """Fail before any job runs when a real dataset's files are absent, saying where to get them, or when a
    raw path is not a regular file (a directory, a FIFO), saying what it is."""
    if dataset.get("synthetic"):
        return
    missing = missing_raw_files(dataset)
    if not missing:
        wrong = [(path, not_a_file(path)) for path in raw_files(dataset)]
        wrong = [f"{path}: is {kind}, expected a LETOR text file" for path, kind in wrong if kind]
        if wrong:
            raise MissingDataError(f"dataset {name!r}: {len(wrong)} raw fold file(s) are not regular files:\n  "
                                   + "\n  ".join(wrong))
        return
    how = dataset.get("download") or DOWNLOADS.get(name.lower()) or DOWNLOADS.get(dataset.get("source", ""), "")
    shown = "\n  ".join(missing[:6]) + ("\n  ..." if len(missing) > 6 else "")
    raise MissingDataError(
        f"dataset {name!r}: {len(missing)} raw fold file(s) missing under root {dataset['root']!r}:\n  {shown}\n"
        f"Download: {how or 'see the README, section Data'}.\n"
        f"Then put the files there, or set datasets.{name}.root in your config file to where they are."
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
