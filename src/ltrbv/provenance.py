"""What produced a file: package versions recorded beside every prediction file."""

from __future__ import annotations

import platform
from importlib import metadata

PACKAGES = ("ltrbv", "numpy", "scipy", "numba", "xgboost", "scikit-learn", "pandas", "snakemake")


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions
