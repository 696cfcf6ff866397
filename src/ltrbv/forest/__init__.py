"""Random forests for ranking: RF-point, RF-list, RF-hybrid-L, RF-rand (Ibrahim & Carman 2016)."""

from .forest import SPLITTINGS, RankingForest, Tree

__all__ = ["SPLITTINGS", "RankingForest", "Tree"]
