"""One RF-point tree against scikit-learn's entropy tree, node by node, on synthetic LETOR folds.

The same lock-step comparison as ``tests/test_forest_point.py`` runs on real MQ2008 (skipped where
the data is absent); this one runs everywhere, on the demo's synthetic LETOR generator written to
text and read back by the LETOR parser.  Both trees grow from all training documents and all
features with the entropy criterion; walking them breadth-first, every split must either coincide
with scikit-learn's or have exactly the same entropy gain (a tie broken the other way).
"""

from __future__ import annotations


import numpy as np
import pytest

from ltrbv.data.letor import read_letor
from ltrbv.data.synthetic import SyntheticSpec, write_letor_folds
from ltrbv.forest import RankingForest
from lockstep import lockstep

sklearn_tree = pytest.importorskip("sklearn.tree")



@pytest.fixture(scope="module")
def synthetic_fold1(tmp_path_factory):
    """Fold1 of the demo's synthetic LETOR data (config/demo.yaml's generator settings), as text, parsed."""
    root = tmp_path_factory.mktemp("synthetic")
    spec = SyntheticSpec(n_queries=400, docs_per_query=30, n_features=46, n_informative=16, n_query_level=4,
                         max_label=2, label_probs=(0.8, 0.13, 0.07), style="letor", seed=7)
    write_letor_folds(root, spec)
    return read_letor(root / "Fold1" / "train.txt"), read_letor(root / "Fold1" / "test.txt")


def test_one_tree_matches_sklearn_entropy_tree_up_to_split_ties(synthetic_fold1):
    train, test = synthetic_fold1
    ours = RankingForest(n_estimators=1, subsample=1.0, max_features=train.n_features, random_state=0).fit(train)
    sk = sklearn_tree.DecisionTreeClassifier(criterion="entropy", random_state=0).fit(train.X, train.labels)
    tree = ours.trees_[0]
    same, _ties, other = lockstep(tree, sk.tree_, train.X, train.labels.astype(int))
    # every split either coincides with scikit-learn's or has exactly the same entropy gain
    assert other == 0 and same > 100
    # the same training partition purity: the share of training documents in pure leaves
    leaf = ours.apply(train)[:, 0]
    ours_pure = np.mean([np.unique(train.labels[leaf == node]).size == 1 for node in leaf])
    sk_leaf = sk.apply(train.X)
    sk_pure = np.mean([np.unique(train.labels[sk_leaf == node]).size == 1 for node in sk_leaf])
    assert ours_pure == pytest.approx(sk_pure, abs=1e-9)
    assert abs(tree.n_leaves - sk.get_n_leaves()) <= 0.01 * sk.get_n_leaves()
    # test documents whose path meets no tied node get identical predictions
    expected = sk.predict_proba(test.X) @ sk.classes_
    agree = np.abs(ours.predict(test) - expected) < 1e-9
    assert agree.mean() > 0.85
