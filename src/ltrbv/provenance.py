"""What produced a file: package versions recorded beside every prediction file."""

from __future__ import annotations

import platform
from importlib import metadata

#: recorded name -> the distributions that provide it (the first one installed counts): XGBoost is installed
#: as ``xgboost-cpu`` on Linux (issue 16), as ``xgboost`` elsewhere
PACKAGES = {"ltrbv": ("ltrbv",), "numpy": ("numpy",), "scipy": ("scipy",), "numba": ("numba",),
            "xgboost": ("xgboost-cpu", "xgboost"), "lightgbm": ("lightgbm",), "scikit-learn": ("scikit-learn",),
            "pandas": ("pandas",), "snakemake": ("snakemake",)}


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name, distributions in PACKAGES.items():
        for distribution in distributions:
            try:
                versions[name] = metadata.version(distribution)
                break
            except metadata.PackageNotFoundError:
                continue
    return versions
