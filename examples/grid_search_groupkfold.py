"""Tune a ranker with scikit-learn: GridSearchCV over GroupKFold folds of queries, scored by mean NDCG@10.

ltrbv's learners (RankingForest, LambdaMART, LightGBMRanker, RankingSVM) are scikit-learn estimators:
``fit(X, y, qid=...)``, ``predict(X)``, ``clone``.  With metadata routing on, GridSearchCV gives each fold's
query ids to ``fit`` and to the scorer; GroupKFold keeps every query's documents in one fold (and in order,
so each query's rows stay contiguous).  Run: python examples/grid_search_groupkfold.py
"""

import numpy as np
import sklearn
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, GroupKFold

import ltrbv
from ltrbv.data.synthetic import SyntheticSpec, generate_queries
from ltrbv.forest import RankingForest

GRID = {"max_features": [2, 8], "min_samples_leaf": [1, 30]}


def mean_ndcg_at_10(y_true, y_score, qid):
    """Mean over the queries of NDCG@10 (exponential gain, the standard convention)."""
    data = ltrbv.ranking_data(qid, y_true)
    per_query = ltrbv.evaluate(np.asarray(y_score, dtype=np.float64), data.labels, data.query_offsets, ["ndcg@10"])
    return float(np.mean(per_query["ndcg@10"]))


def synthetic(n_queries=90, seed=7):
    """Queries of ~15 documents with 12 features: X, y (labels 0-2) and the query id of every row."""
    queries = generate_queries(SyntheticSpec(n_queries=n_queries, docs_per_query=15, n_features=12,
                                             n_informative=6, n_query_level=2, seed=seed))
    return queries.X, queries.labels, np.repeat(np.arange(n_queries), queries.query_sizes)


def main():
    X, y, qid = synthetic()
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = make_scorer(mean_ndcg_at_10).set_score_request(qid=True)
        search = GridSearchCV(RankingForest(n_estimators=20, random_state=0), GRID, cv=GroupKFold(n_splits=3),
                              scoring=scorer)
        search.fit(X, y, groups=qid, qid=qid)
    for params, score in zip(search.cv_results_["params"], search.cv_results_["mean_test_score"]):
        print(f"{params}: mean NDCG@10 {score:.4f}")
    print(f"best: {search.best_params_} ({search.best_score_:.4f})")
    return search


if __name__ == "__main__":
    main()
