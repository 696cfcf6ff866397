"""The core run: raw folds -> parsed folds -> one prediction file per (learner, fold, seed) -> per-query
metrics -> the performance table and figure."""
