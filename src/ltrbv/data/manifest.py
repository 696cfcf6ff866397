"""The known data sets' file manifests, shipped with the package (``ltrbv/data/manifests/*.json``).

A manifest names a release's files relative to its root (the folder a config's ``datasets.<name>.root``
points at) with each file's SHA-256, or ``null`` where no published checksum is known (``digest_source``
says which: a ``null`` digest is compared against the one recorded at first verified use, see
:mod:`ltrbv.data.verify`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class Manifest:
    name: str
    title: str
    aliases: tuple[str, ...]
    n_features: int
    #: lines list only non-zero features (Yahoo): a line's largest feature index may be below n_features
    sparse: bool
    #: ``{relative posix path: sha256 hex, or None where no published checksum is known}``
    files: tuple[tuple[str, str | None], ...]
    digest_source: str
    layout_source: str
    #: the ``datasets.<name>`` keys (layout, folds, ...) a config needs for this release
    config_layout: dict

    @property
    def digests(self) -> dict[str, str | None]:
        return dict(self.files)

    @property
    def has_published_digests(self) -> bool:
        return all(digest is not None for _, digest in self.files)


def _manifest(text: str) -> Manifest:
    entry = json.loads(text)
    return Manifest(name=entry["name"], title=entry["title"], aliases=tuple(entry["aliases"]),
                    n_features=int(entry["n_features"]),
                    sparse=bool(entry["sparse"]), files=tuple(sorted(entry["files"].items())),
                    digest_source=entry["digest_source"], layout_source=entry["layout_source"],
                    config_layout=entry["config_layout"])


@cache
def known_manifests() -> tuple[Manifest, ...]:
    """Every shipped manifest, by name."""
    folder = resources.files(__package__) / "manifests"
    found = [_manifest(item.read_text()) for item in folder.iterdir() if item.name.endswith(".json")]
    return tuple(sorted(found, key=lambda m: m.name.lower()))


def manifest_named(name: str) -> Manifest:
    """The manifest of a data set by name or alias (case-insensitive); refused with the known names."""
    wanted = name.lower()
    for manifest in known_manifests():
        if wanted == manifest.name.lower() or wanted in manifest.aliases:
            return manifest
    raise ValueError(f"unknown data set {name!r}; known: {', '.join(m.name for m in known_manifests())}")
