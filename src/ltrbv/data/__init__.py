"""The data layer: LETOR/SVMlight parsing, the binary cache, the in-memory form, the synthetic generator."""

from .cache import load_cache, save_cache
from .letor import LetorFormatError, NonContiguousQueryWarning, read_letor
from .ranking_data import RankingData

__all__ = ["LetorFormatError", "NonContiguousQueryWarning", "RankingData", "load_cache", "read_letor", "save_cache"]
