"""At a fixed seed the forest engine grows the same trees as the engine before issue 12's rewrite.

The reference values were computed with the engine as of commit 4116616 (before the incremental
RF-list split search, the criterion modules and the level lists) by growing each forest below and
recording, per tree, a sha256 prefix of its arrays.  Pointwise and random trees must be bit-identical.
A listwise tree is identical as well unless the old and the new search met a *tie*: two candidate
splits whose summed NDCG changes are equal in exact arithmetic and differ only by rounding (the
running totals are summed in a different order), where the argmax depends on the last bit.  For such
a tree the reference records the first node where the two engines' trees part, the hash of the old
tree's splits before it, and the old engine's gain at that node; the test asserts that the new tree
has exactly the same splits up to that node and a gain there within 1e-12 of the old one (a tie).
Below a tie the subtrees are incomparable (different documents reach them).

Measured when the reference was recorded (3 trees per forest here; 20 per forest for the issue-12
report): every RF-point and RF-rand tree identical; every tree with listwise splits identical or parted
at a tie (largest relative gain difference at the parting node 1.8e-14), none parted otherwise.

The MSLR-shaped references were re-recorded for issue 28 (the generator became CPU-independent, so its
data changed) with the same engine of commit 4116616 on the new data: every RF-point, RF-rand and
RF-hybrid-mse tree identical; 10 of the 12 other trees with listwise splits parted, each at a tie (gain
difference at most 2.2e-18, relative 6.3e-14), none otherwise.  The MQ2008 references are unchanged.

The expected-ERR references (``list-err``) were recorded with the engine of commit 90c980a, the last with
ERR's own split search (before NDCG and ERR shared one scan, issue 27): every tree identical.
"""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np
import pytest

from conftest import MQ2008, require
from ltrbv.data.ranking_data import RankingData
from ltrbv.data.synthetic import MSLR_SHAPED, generate_queries
from ltrbv.forest import RankingForest

N_TREES = 3
CONFIGS = {
    "point": dict(splitting="point", subsample=0.63),
    "rand": dict(splitting="rand", subsample=0.63),
    "list": dict(splitting="list", subsample=0.63),
    "hybrid": dict(splitting="hybrid", subsample=0.63, listwise_levels=6),
    "list-trunc10": dict(splitting="list", subsample=0.63, truncation=10),
    "list-rank-power": dict(splitting="list", subsample=0.63, discount="rank-power", discount_power=1.5),
    "hybrid-mse": dict(splitting="hybrid", criterion="mse", subsample=0.63, listwise_levels=3),
    "list-err": dict(splitting="list", subsample=0.63, listwise_objective="err"),
}
TIE = 1e-12
STRUCTURE = ("feature", "threshold", "left", "right", "value", "n_samples", "depth")

# {dataset/config: {"pred": hash of the old predictions on the training data,
#                   "trees": [[None, full hash, None] | [first parting node, hash of the splits before it, old gain]]}}
REFERENCE = {'mq2008/list-err': {'pred': 'f86db349b1b587e3',
                     'trees': [[None, '32d013ce750e3f7a', None], [None, '6ac5ab981aa8e64f', None],
                               [None, '1ee52ab0f88200e6', None]]},
 'mslr/list-err': {'pred': '2c2f42236ad14c49',
                   'trees': [[None, 'c0ff16c2224b0db5', None], [None, 'd557ab2106c01cb5', None],
                             [None, '3efa578e870dd8cd', None]]},
 'mq2008/hybrid': {'pred': '66e58d8e34f9e667',
                   'trees': [[29, '75175d26d1bf360a', 0.0008263771684114146],
                             [12, 'a0f6e7a28ac1a0ff', 0.00100229736020111], [None, 'ccb213aeca7ca2fa', None]]},
 'mq2008/hybrid-mse': {'pred': 'ece5e97eef26bb3d',
                       'trees': [[None, '21df8f86d0d3a658', None], [None, 'd90c04096d9a278a', None],
                                 [None, '40c10b46a7a1d722', None]]},
 'mq2008/list': {'pred': '21e072fb136a8d0a',
                 'trees': [[29, '75175d26d1bf360a', 0.0008263771684114146],
                           [12, 'a0f6e7a28ac1a0ff', 0.00100229736020111],
                           [67, 'e378e7ba8d8e9f99', 0.0005607749218450448]]},
 'mq2008/list-rank-power': {'pred': 'caf5faba0f456493',
                            'trees': [[26, 'a4510ab6760508df', 0.00108829395523018],
                                      [65, 'd85ad5bd21966c8c', 3.770715073480956e-05],
                                      [43, '51222c42037a080b', 0.0001255865822436435]]},
 'mq2008/list-trunc10': {'pred': '59c753d02e637385',
                         'trees': [[80, '3182613a759f4556', 0.0007328038147097337],
                                   [11, 'b28efa14a8b9bdca', 0.00046086012351280106],
                                   [149, '09916d18da8ad965', 3.801999827651304e-05]]},
 'mq2008/point': {'pred': '2f23540eb063d86a',
                  'trees': [[None, '8d6ff05413e4edaf', None], [None, '6b9c7c4c5c470d26', None],
                            [None, '4c7e66ea276fd3d8', None]]},
 'mq2008/rand': {'pred': '224d3ae0eab5399d',
                 'trees': [[None, '424d8a6c26d80b35', None], [None, '1e46b8845092e890', None],
                           [None, '93b98987256f2f3a', None]]},
 'mslr/hybrid': {'pred': '13477efe30d06c8b',
                 'trees': [[None, '3b2ba54e6035794a', None],
                           [None, '6707ebc02d54d7e1', None],
                           [14, '2f62e1831f8b1668', 0.0010127007363369138]]},
 'mslr/hybrid-mse': {'pred': 'd25560b68e506b8b',
                     'trees': [[None, '4234d297d6038203', None],
                               [None, '678167ce69bd8b18', None],
                               [None, '43addba6453ca3e8', None]]},
 'mslr/list': {'pred': '849fac84399de4c9',
               'trees': [[62, 'f1bb33bfb5b31d05', 0.000685956969101401],
                         [80, '6c4b660a78919b47', 0.0008609624353337638],
                         [14, '2f62e1831f8b1668', 0.0010127007363369138]]},
 'mslr/list-rank-power': {'pred': '252cf5b43b88ab8a',
                          'trees': [[18, '096bd566b9e7111c', 0.0035864240550486357],
                                    [86, '69c0734f615716c2', 1.0182463639734408e-05],
                                    [26, 'e9926140ab125034', 0.0021106492195117686]]},
 'mslr/list-trunc10': {'pred': '16b9ca9ef6ceb302',
                       'trees': [[39, '0cfa086e80b7e97a', 0.0006523864931758777],
                                 [13, 'a993179b7dc4e20e', 0.0004460488734337746],
                                 [38, '11ab22f6839e5d8a', 0.0012328609636676438]]},
 'mslr/point': {'pred': 'ffdf7f539e02a2cf',
                'trees': [[None, '342abb8b58b84a80', None],
                          [None, 'f0eb594e869e09a3', None],
                          [None, '41d7e1a22bc43906', None]]},
 'mslr/rand': {'pred': '85faaea864d383b0',
               'trees': [[None, '19f0e420379d867b', None],
                         [None, 'bc46c47df1ea3677', None],
                         [None, 'f511a0afde5122e0', None]]}}


def digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def mslr_shaped_60() -> RankingData:
    q = generate_queries(dataclasses.replace(MSLR_SHAPED, n_queries=60))
    offsets = np.concatenate(([0], np.cumsum(q.query_sizes))).astype(np.int64)
    return RankingData(X=q.X, labels=q.labels, query_offsets=offsets, qids=np.arange(q.query_sizes.size).astype(str),
                       line_numbers=np.arange(1, offsets[-1] + 1))


def check_forest(data: RankingData, key: str, config: str) -> None:
    forest = RankingForest(random_state=0, n_estimators=N_TREES, **CONFIGS[config]).fit(data)
    reference = REFERENCE[f"{key}/{config}"]
    parted = 0
    for t, (tree, (node, expected, old_gain)) in enumerate(zip(forest.trees_, reference["trees"])):
        if node is None:
            assert digest(*(getattr(tree, f) for f in STRUCTURE)) == expected, f"{config} tree {t} changed"
            continue
        parted += 1
        assert node < tree.feature.size, f"{config} tree {t}: shorter than the old tree's common part"
        assert digest(tree.feature[:node], tree.threshold[:node]) == expected, (
            f"{config} tree {t}: splits before node {node} differ from the old engine's")
        assert tree.gain[node] == pytest.approx(old_gain, rel=0, abs=TIE), (
            f"{config} tree {t}: node {node} parts from the old tree without a tie "
            f"(gain {tree.gain[node]!r} vs {old_gain!r})")
    if parted == 0:
        assert digest(forest.predict(data)) == reference["pred"]
    if config in ("point", "rand", "hybrid-mse", "list-err"):
        assert parted == 0  # no listwise ties possible (hybrid-mse: none met at this seed)


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_same_trees_as_before_on_mslr_shaped_synthetic_data(config):
    check_forest(mslr_shaped_60(), "mslr", config)


@pytest.fixture(scope="module")
def mq2008_fold1_train():
    from ltrbv.data.letor import read_letor

    return read_letor(require(MQ2008 / "Fold1" / "train.txt"))


@pytest.mark.realdata
@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_same_trees_as_before_on_mq2008_fold1(mq2008_fold1_train, config):
    check_forest(mq2008_fold1_train, "mq2008", config)
