"""The data layer: LETOR/SVMlight parsing, the binary cache, the in-memory form, the synthetic generator.

The names below are imported on first use (PEP 562): a job that only loads a cache does not import the
parser's compiled kernels and numba with them.
"""

from __future__ import annotations

import importlib

_HOMES = {"LetorFormatError": "letor", "NonContiguousQueryWarning": "letor", "read_letor": "letor",
          "RankingData": "ranking_data", "load_cache": "cache", "save_cache": "cache"}

__all__ = ["LetorFormatError", "NonContiguousQueryWarning", "RankingData", "load_cache", "read_letor", "save_cache"]


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
