"""How big a data set's splits are (queries and documents), for the cost models of ``ltrbv plan``.

A split's size is read, in this order, from

1. its parsed cache (``results/<dataset>/parsed/<fold>/<split>.npz``, exact);
2. its raw file (its lines and query-id changes counted, exact);
3. a synthetic data set's spec (``n_queries`` x ``docs_per_query``, split as the LETOR 4.0 five-fold layout
   splits the queries: 3/5 train, 1/5 validation, 1/5 test; the expected size);
4. :data:`PUBLISHED`, the published sizes of the data sets the papers used, for a data set named by its
   manifest (``ltrbv data verify``'s names and aliases, e.g. ``mslr10k``) or mapped to one
   (``--sizes yahoo=Yahoo-set1``), so that a plan can be priced before the data is downloaded.

A split none of these sizes is refused, naming the option that gives it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .datasets import SPLITS, raw_file, raw_source


@dataclass(frozen=True)
class SplitSize:
    queries: int
    docs: int
    source: str = ""

    @property
    def list_length(self) -> float:
        return self.docs / self.queries


#: published sizes (queries, documents) per fold and split: MSLR-WEB10K (Qin & Liu 2013, arXiv:1306.2597; the
#: release's Fold1 files) and Yahoo! LTR Challenge set 1 (Chapelle & Chang 2011, JMLR W&CP 14, Table 1)
PUBLISHED = {
    "MSLR-WEB10K": {"Fold1": {"train": (6000, 723412), "vali": (2000, 235259), "test": (2000, 241521)}},
    "Yahoo-set1": {"set1": {"train": (19944, 473134), "vali": (2994, 71083), "test": (6983, 165660)}},
}

_QID = re.compile(rb"qid:(\S+)")


def count_raw(path: str | Path) -> SplitSize:
    """Queries (runs of one query id) and documents (non-empty lines) of a LETOR/SVMlight text file."""
    docs = queries = 0
    last = None
    with open(path, "rb") as handle:
        for line in handle:
            match = _QID.search(line)
            if match is None:
                if line.strip():
                    docs += 1
                continue
            docs += 1
            if match.group(1) != last:
                queries += 1
                last = match.group(1)
    return SplitSize(queries, docs, f"counted in {path}")


def cache_size(path: str | Path) -> SplitSize:
    """Queries and documents of a parsed cache (its query offsets), without reading the feature matrix."""
    import numpy as np

    with np.load(path, allow_pickle=False) as members:
        offsets = members["query_offsets"]
    return SplitSize(int(len(offsets) - 1), int(offsets[-1]), f"parsed cache {path}")


def synthetic_size(spec: dict, split: str) -> SplitSize:
    """The expected size of a synthetic split (LETOR 4.0 five-fold layout: train 3 of 5 partitions)."""
    from ..data.synthetic import SyntheticSpec

    full = SyntheticSpec(**{k: tuple(v) if isinstance(v, list) else v for k, v in spec.items()})
    share = 3 / 5 if split == "train" else 1 / 5
    queries = max(1, round(full.n_queries * share))
    return SplitSize(queries, round(queries * full.docs_per_query), "synthetic spec (expected)")


def size_mapping(values: list[str] | None) -> dict:
    """``--sizes yahoo=Yahoo-set1 ...``: a config data set -> the published data set whose sizes price it; a pair
    that is not DATASET=NAME, or a NAME without published sizes, is refused (ValueError)."""
    pairs = [value.split("=", 1) for value in values or []]
    if any(len(pair) != 2 or not pair[0] or not pair[1] for pair in pairs):
        raise ValueError(f"--sizes takes DATASET=NAME pairs (NAME one of {', '.join(PUBLISHED)}), got {values}")
    unknown = [name for _, name in pairs if name not in PUBLISHED]
    if unknown:
        raise ValueError(f"--sizes: no published sizes of {', '.join(map(repr, unknown))}; known: {', '.join(PUBLISHED)}")
    return dict(pairs)


def published_name(name: str, mapping: dict) -> str | None:
    """The :data:`PUBLISHED` entry of a config's data set: mapped with ``--sizes``, or by manifest name/alias."""
    if name in mapping:
        return mapping[name]
    from ..data.manifest import known_manifests

    for manifest in known_manifests():
        if manifest.name in PUBLISHED and (name.lower() == manifest.name.lower() or name.lower() in manifest.aliases):
            return manifest.name
    return None


def split_size(config: dict, dataset: str, fold: str, split: str, results: Path | None = None,
               mapping: dict | None = None) -> SplitSize:
    """The size of one split of a config's data set (the module's docstring lists where it comes from)."""
    mapping = mapping or {}
    entry = config["datasets"][dataset]
    if dataset in mapping:
        return _published(dataset, mapping[dataset], fold, split)
    if results is not None:
        cache = Path(results) / dataset / "parsed" / fold / f"{split}.npz"
        if cache.is_file():
            return cache_size(cache)
    if entry.get("synthetic"):
        return synthetic_size(entry["synthetic"], split)
    if Path(raw_source(entry, fold, split)).is_file():
        if entry.get("validation_from_train") and split != "test":  # the training file holds both
            whole = count_raw(raw_source(entry, fold, split))
            share = entry["validation_from_train"]["fraction"] if split == "vali" else 1 - entry["validation_from_train"]["fraction"]
            return SplitSize(max(1, round(whole.queries * share)), max(1, round(whole.docs * share)),
                             f"{whole.source}, the carved share {share:g} (expected)")
        return count_raw(raw_source(entry, fold, split))
    name = published_name(dataset, mapping)
    if name is None:
        raise ValueError(f"the size of data set {dataset!r} ({fold}/{split}) is unknown: its file "
                         f"{raw_file(entry, fold, split)} is absent and it names no published data set; give "
                         f"--sizes {dataset}=NAME (one of {', '.join(PUBLISHED)})")
    return _published(dataset, name, fold, split)


def _published(dataset: str, name: str, fold: str, split: str) -> SplitSize:
    if name not in PUBLISHED:
        raise ValueError(f"--sizes {dataset}={name}: no published sizes of {name!r}; known: {', '.join(PUBLISHED)}")
    folds = PUBLISHED[name]
    if fold not in folds:
        raise ValueError(f"--sizes {dataset}={name}: {name}'s published sizes are of {', '.join(folds)}, "
                         f"not of fold {fold!r}")
    queries, docs = folds[fold][split]
    return SplitSize(queries, docs, f"published ({name})")


def fold_sizes(config: dict, dataset: str, fold: str, **kwargs) -> dict[str, SplitSize]:
    return {split: split_size(config, dataset, fold, split, **kwargs) for split in SPLITS}
