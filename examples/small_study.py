"""A small bias-variance study on synthetic data, on numpy arrays, without the workflow.

Ridge-regression rankers at two penalties, each fitted 10 times on 63% of the training queries: their
pointwise bias² and variance and listwise SRE / VRE (Ibrahim 2021) on the test queries, then a paired
comparison of the two averaged rankers.  Run: python examples/small_study.py
"""

import numpy as np

import ltrbv
from ltrbv.data.synthetic import SyntheticSpec, generate_queries


def ridge(part, penalty):
    X = np.c_[part.X, np.ones(part.n_docs)]
    return np.linalg.solve(X.T @ X + penalty * np.eye(X.shape[1]), X.T @ part.labels)


def main(seed=0):
    queries = generate_queries(SyntheticSpec(n_queries=200, docs_per_query=20, seed=7))
    data = ltrbv.ranking_data(np.repeat(np.arange(200), queries.query_sizes), queries.labels, queries.X)
    train, test = data.subset_queries(np.arange(150)), data.subset_queries(np.arange(150, 200))
    rng, studies = np.random.default_rng(seed), {}
    for penalty in (1.0, 3000.0):
        samples = [train.subset_queries(rng.choice(150, 95, replace=False)) for _ in range(10)]
        scores = np.stack([np.c_[test.X, np.ones(test.n_docs)] @ ridge(s, penalty) for s in samples])
        studies[f"ridge-{penalty:g}"] = (scores, ltrbv.decompose(test, scores, "bootstrap", metrics=["ndcg"]))
    for name, (_, result) in studies.items():
        s = result.summary
        print(f"{name}: bias2 {s['bias2']:.4f}  variance {s['variance']:.5f}  "
              f"SRE {s['metrics']['ndcg']['sre']:.4f}  VRE {s['metrics']['ndcg']['vre']:.4f}")
    comparison = ltrbv.compare_scores(test, {n: sc.mean(axis=0) for n, (sc, _) in studies.items()},
                                      metrics=["ndcg@10", "map"])
    print(comparison.table[["system", "metric", "mean", "difference", "p_t_adjusted", "wins", "losses"]])
    return studies, comparison


if __name__ == "__main__":
    main()
