"""Random forests for ranking (Ibrahim & Carman 2016): the estimator and its orchestration.

One engine, four learners, chosen by ``splitting``:

* ``point``  RF-point: pointwise splits (``criterion`` entropy, Algorithm 3; or mse);
* ``list``   RF-list: every split maximises the training queries' mean expected NDCG (eq. 11-13),
  or their mean expected ERR with ``listwise_objective="err"``, or with ``"ndcg-printed"`` the
  objective as Algorithm 4 prints it (a tie group weighs its size times its expected DCG; see
  ``_ndcg.value``).  That objective never splits: a group of gain G = G_T + G_B and summed discounts
  D = D_T + D_B is worth G * D, its two halves G_T * D_T + G_B * D_B, a change of -(G_T * D_B + G_B * D_T)
  <= 0; every printed tree is one leaf and the forest a constant (it warns, :data:`PRINTED_IS_CONSTANT`);
* ``hybrid`` RF-hybrid-L: listwise splits above depth ``listwise_levels``, pointwise below (§4.4.3);
* ``rand``   RF-rand: totally random splits (§6.1.1).

Common to all (§4.1): per-tree query-level sub-sampling without replacement
(``subsample`` of the training queries), K = floor(log2 M) + 1 candidate
features per node, unpruned trees, leaf score = expected relevance (eq. 9),
ensemble score = mean over trees (eq. 10).

Trees are built in parallel threads (the compiled builder releases the GIL);
tree t draws from its own generator seeded by (random_state, t), so the same
seed gives bit-identical predictions at any thread count.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from ..checks import Interval, ParameterError, RealNotInt, StrOptions
from ..compile_lock import first_call
from ..data.ranking_data import RankingData
from ..estimator import RankerAPI, training_data
from . import _builder
from ._bins import histogram_bins_fast
from ._builder import TreeConfig, build_tree, leaf_of_rows, left_bin_max, predict_tree
from ._criteria import CRITERIA, LISTWISE, LISTWISE_OPTIONS, listwise_criterion, pointwise_code, xlogx_table
from ._frontier import EXPLORATIONS, exploration_code
from ._levels import unused_data
from ._ndcg import PRINTED_IS_CONSTANT  # noqa: F401  (re-exported: the warning of listwise_objective="ndcg-printed")
from ._rng import seed_state

SPLITTINGS = ("point", "list", "hybrid", "rand")
THRESHOLDS = ("exact", "hist")
MAX_BINS = 255  # thresholds: hist (as LightGBM's max_bin)
DISCOUNTS = ("log2", "log-power", "rank-power")
UNLIMITED = np.iinfo(np.int32).max


@dataclass(frozen=True)
class Tree:
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    n_samples: np.ndarray
    depth: np.ndarray
    gain: np.ndarray
    visit: np.ndarray  # each node's place in the order the builder took nodes from the frontier

    @property
    def n_leaves(self) -> int:
        return int(np.count_nonzero(self.feature < 0))


@dataclass
class RankingForest(RankerAPI):
    """A random forest for ranking with a fit/predict API.

    Parameters follow the paper: ``n_estimators`` trees (500), ``subsample``
    fraction of training queries per tree without replacement (0.63; RF-x-S5
    uses 0.05), ``max_features`` K per node (None: floor(log2 M) + 1),
    ``min_samples_split`` n_min, the paper's "minimum # instances needed to split a node" (2:
    unpruned; Figs. 6 and 8), and ``min_samples_leaf`` the smallest leaf (1).  Listwise options: ``discount``
    (``log2``, ``log-power`` with ``discount_power`` alpha, eq. 14,
    ``rank-power`` with beta, eq. 15) and ``truncation`` k (NDCG@k), and
    ``listwise_objective`` (``ndcg``; ``ndcg-printed``, Algorithm 4 as printed; or ``err``: expected
    ERR with R = (2^l - 1)/2^g, g the largest training label; it refuses the NDCG options), for the listwise
    splits of ``list`` and ``hybrid``.  ``exploration``: the order in which a tree expands its open nodes
    (``breadth-first``, the paper's; ``random``, ``biggest-first``, ``relevant-first``, Table XVI; and
    ``depth-first``; ``_frontier``); a pointwise split sees only its own node, so only listwise trees
    change in distribution.  ``feature_subset`` M (Fig. 10): train and predict on M of the data's features
    only, the first M of a random permutation of the feature columns drawn from ``feature_subset_seed`` (not
    from ``random_state``: every fold and seed of a learner sees the same reduced data, and the subsets of a
    sweep over M are nested); K is then floor(log2 M) + 1.

    ``thresholds``: ``exact`` (the default, the papers') splits at midpoints between a node's distinct values;
    ``hist`` bins every feature once per forest into at most 255 bins (uint8; cuts at equal-count quantiles of
    the training values, ``histogram_bins``) and splits only between bins, each split at the cut above its
    left child's largest bin.  Pointwise splits (RF-point, RF-hybrid's lower levels) come from per-node
    histograms of (bin, label) counts built in one pass over the node's rows, no sort
    (``_splitter.best_pointwise_hist_split``; the tree's rows of bins are kept in node order so the pass reads
    them contiguously); a listwise split orders a feature's node values by a counting sort by bin and
    scans the bin boundaries with the usual incremental per-query updates; RF-rand draws its threshold
    uniformly between the node's smallest and largest bin number, i.e. uniform in the bins' (quantile)
    scale rather than the feature's, mapped to the cut above the left child's largest bin.  Mse's histogram
    sums are exact, so an mse or listwise hist tree is the exact search's tree on the bin numbers; entropy's
    differ from the exact scan's by rounding, so ties may go the other way.  Memory per tree thread with
    ``hist``: two copies of the tree's rows of bins (n_rows x n_features bytes each).
    """

    splitting: str = "point"
    criterion: str = "entropy"
    n_estimators: int = 500
    subsample: float = 0.63
    max_features: int | None = None
    min_samples_leaf: int = 1
    min_samples_split: int = 2
    max_depth: int | None = None
    listwise_levels: int = 6
    discount: str = "log2"
    discount_power: float = 1.0
    truncation: int | None = None
    listwise_objective: str = "ndcg"
    exploration: str = "breadth-first"
    feature_subset: int | None = None
    feature_subset_seed: int = 0
    thresholds: str = "exact"
    keep_trees: bool = True
    random_state: int = 0
    n_threads: int = 1

    _parameter_constraints = {
        "splitting": [StrOptions(SPLITTINGS)],
        "criterion": [StrOptions(CRITERIA)],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "subsample": [Interval(Real, 0, 1, closed="right")],
        "max_features": [Interval(Integral, 1, None, closed="left"), Interval(RealNotInt, 0, 1, closed="right"),
                         None],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "min_samples_split": [Interval(Integral, 2, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "listwise_levels": [Interval(Integral, 0, None, closed="left")],  # 0: as RF-point
        "discount": [StrOptions(DISCOUNTS)],
        # every discount divides by a positive, increasing power (eq. 14-15); log2 ignores it, still checked
        "discount_power": [Interval(Real, 0, None, closed="neither")],
        "truncation": [Interval(Integral, 1, None, closed="left"), None],
        "listwise_objective": [StrOptions(LISTWISE)],
        "exploration": [StrOptions(EXPLORATIONS)],
        "feature_subset": [Interval(Integral, 1, None, closed="left"), None],
        "feature_subset_seed": [Interval(Integral, 0, None, closed="left")],
        "thresholds": [StrOptions(THRESHOLDS)],
        "keep_trees": ["boolean"],
    }
    _parameter_notes = {
        "splitting": "point: RF-point; list: RF-list; hybrid: RF-hybrid-L (listwise above listwise_levels); "
                     "rand: RF-rand",
        "criterion": "the pointwise splits' criterion",
        "subsample": "share of training queries per tree, without replacement",
        "max_features": "K features per node: an integer, a float share of the features, or null: floor(log2 M) + 1",
        "min_samples_split": "n_min, the fewest documents a node needs to be split",
        "max_depth": "null: unlimited",
        "listwise_levels": "hybrid: the depth above which splits are listwise",
        "discount": "the NDCG objective's discount: log2, log-power (eq. 14) or rank-power (eq. 15)",
        "discount_power": "alpha of log-power, beta of rank-power",
        "truncation": "k of the NDCG@k objective; null: untruncated",
        "listwise_objective": "ndcg (eq. 11-13), err (expected ERR; takes no NDCG option) or ndcg-printed "
                              "(Algorithm 4 as printed: a constant model)",
        "exploration": "the order a tree expands its open nodes (Table XVI)",
        "feature_subset": "M: train and predict on M of the data's features (Fig. 10); null: all",
        "feature_subset_seed": "the seed of the feature subset (not random_state: the same for every fold and seed)",
        "thresholds": "exact (the papers'): midpoints of the node's values; hist: splits between at most 255 "
                      "bins per feature, found from per-node histograms (faster on large data)",
        "keep_trees": "false: keep only the predictions of the targets (a large forest never sits in memory)",
    }

    def _check_together(self) -> None:
        """A listwise objective takes only its own options (ERR: none of the NDCG ones); one with a warning (the
        printed objective: a constant model) gives it where listwise splits are grown."""
        objective = LISTWISE[self.listwise_objective]
        defaults = {field.name: field.default for field in dataclasses.fields(self)}
        refused = [name for name in LISTWISE_OPTIONS if name not in objective.options]
        if any(getattr(self, name) != defaults[name] for name in refused):
            names = ", ".join(refused[:-1]) + " and " + refused[-1] if len(refused) > 1 else refused[0]
            raise ParameterError(f"{names} shape the NDCG objective; "
                                 f"listwise_objective={self.listwise_objective!r} takes none of them")
        if objective.warning is not None and self.splitting in ("list", "hybrid"):
            warnings.warn(objective.warning, UserWarning, stacklevel=4)

    # -- configuration ----------------------------------------------------------
    def _listwise_depth(self) -> int:
        return {"point": 0, "rand": 0, "list": UNLIMITED, "hybrid": self.listwise_levels}[self.splitting]

    def _k(self, n_features: int) -> int:
        if self.max_features is None:
            return int(math.floor(math.log2(n_features))) + 1
        if not isinstance(self.max_features, Integral):  # a fraction in (0, 1]
            return max(1, min(int(self.max_features * n_features), n_features))
        return max(1, min(int(self.max_features), n_features))

    def kept_features(self, n_features: int) -> np.ndarray | None:
        """The feature columns ``feature_subset`` keeps (ascending), or None for all."""
        if self.feature_subset is None:
            return None
        if self.feature_subset > n_features:
            raise ValueError(f"feature_subset {self.feature_subset} exceeds the data's {n_features} features")
        order = np.random.default_rng(self.feature_subset_seed).permutation(n_features)
        return np.sort(order[:self.feature_subset])

    def _columns(self, X: np.ndarray) -> np.ndarray:
        return X if self.features_ is None else np.ascontiguousarray(X[:, self.features_])

    def tree_seeds(self) -> np.ndarray:
        """One independent 64-bit seed per tree, from (random_state, tree index)."""
        return np.random.SeedSequence(int(self.random_state)).generate_state(self.n_estimators, dtype=np.uint64)

    # -- fitting ------------------------------------------------------------------
    def fit(self, X, y=None, qid=None, predict_on: tuple[RankingData, ...] = (), progress=None) -> "RankingForest":
        """Grow the forest on ``train`` (RankingData, or scikit-learn's ``fit(X, y, qid=...)`` on arrays);
        optionally accumulate predictions for ``predict_on`` as trees are built.

        With ``keep_trees=False`` only those accumulated predictions are kept
        (``self.predictions_``), so a forest of fully grown trees on a large
        training set never has to sit in memory.
        """
        train, valid = training_data(X, y, qid)
        if valid is not None:
            raise TypeError("a forest takes no validation set (no early stopping); predict_on= scores other data")
        self._validate_params()
        self.n_features_in_ = train.n_features
        self.features_ = self.kept_features(train.n_features)
        if self.features_ is not None:
            train = train.subset_features(self.features_)
            predict_on = tuple(data.subset_features(self.features_) for data in predict_on)
        labels = train.labels.astype(np.int64)
        if labels.min() < 0:
            raise ValueError("labels must be non-negative")
        n_classes = int(labels.max()) + 1
        Xt = np.ascontiguousarray(train.X.T)
        cuts = None
        Xr = None
        if self.thresholds == "hist":  # each feature's values replaced by their bin (at most MAX_BINS), uint8
            Xt, cuts = histogram_bins(Xt, MAX_BINS)
            Xr = np.ascontiguousarray(Xt.T)  # and document-major, for the histograms of deep nodes' scattered rows
        xlogx = xlogx_table(train.n_docs)
        n_sampled = max(1, int(round(self.subsample * train.n_queries)))
        listwise_depth = self._listwise_depth()
        objective = listwise_criterion(self.listwise_objective)  # the one decode of listwise_objective
        config = TreeConfig(
            n_classes=n_classes, criterion=pointwise_code(self.criterion), listwise_depth=listwise_depth,
            random_splits=self.splitting == "rand", max_features=self._k(train.n_features),
            min_samples_leaf=int(self.min_samples_leaf), min_samples_split=max(2, int(self.min_samples_split)),
            max_depth=UNLIMITED if self.max_depth is None else int(self.max_depth), n_queries=train.n_queries,
            listwise_criterion=objective.code, exploration=exploration_code(self.exploration),
            hist=cuts is not None,
        )
        if listwise_depth == 0:
            listwise = unused_data()
        else:  # NDCG: gains, ideal DCGs, discount table; ERR: packed label codes, stop probabilities
            listwise = objective.prepare(train, labels, n_sampled,
                                         **{name: getattr(self, name) for name in objective.options})
        self.n_features_ = train.n_features
        self.trees_ = []
        self.predictions_ = [np.zeros(d.n_docs) for d in predict_on]
        seeds = self.tree_seeds()

        def grow(t: int) -> Tree:
            rng = np.random.default_rng(int(seeds[t]))
            queries = np.sort(rng.choice(train.n_queries, size=n_sampled, replace=False))
            samples = _rows_of_queries(train.query_offsets, queries)
            if Xr is None:
                arrays = build_tree(Xt, labels, samples, config, xlogx, seed_state(int(seeds[t])), listwise)
            else:
                arrays = build_tree(Xt, labels, samples, config, xlogx, seed_state(int(seeds[t])), listwise, Xr)
            if cuts is not None:  # a split between the node's bins lo < hi becomes bin lo's upper cut, in feature units
                feature, threshold, left, right = arrays[:4]
                lo = left_bin_max(Xt, samples, feature, threshold, left, right)
                for node in np.flatnonzero(feature >= 0):
                    threshold[node] = cuts[feature[node]][int(lo[node])]
            return Tree(*arrays)

        weight = 1.0 / self.n_estimators
        structure = np.zeros(4)  # summed over trees: leaves, training rows per leaf, leaf score, depth

        def add(tree: Tree) -> None:
            leaves = tree.feature < 0
            structure[:] += (leaves.sum(), tree.n_samples[leaves].mean(), tree.value[leaves].mean(),
                             tree.depth[leaves].max())
            for data, out in zip(predict_on, self.predictions_):
                predict_tree(data.X, tree.feature, tree.threshold, tree.left, tree.right, tree.value, out, weight)
            if self.keep_trees:
                self.trees_.append(tree)
            if progress is not None:
                progress(1)

        with first_call(_builder, build_tree):  # compiles the kernels once per machine (ltrbv.compile_lock)
            add(grow(0))
        with ThreadPoolExecutor(max_workers=max(1, self.n_threads)) as pool:
            # trees complete in order of submission as far as results are consumed: accumulate in index order
            for tree in pool.map(grow, range(1, self.n_estimators)):
                add(tree)
        # Ibrahim & Carman's Table XII: tree size, leaf size and leaf score, means over the trees
        leaves, rows_per_leaf, leaf_score, depth = (structure / self.n_estimators).tolist()
        self.fit_info_ = {"leaves_per_tree": leaves, "rows_per_leaf": rows_per_leaf, "leaf_score": leaf_score,
                          "depth": depth}
        if self.features_ is not None:  # 0-based columns of the data (LETOR feature ids are these + 1)
            self.fit_info_["features"] = self.features_.tolist()
        return self

    def fit_predict(self, train: RankingData, valid: RankingData | None, targets, progress=None) -> list:
        """The workflow's learner protocol: fit on ``train`` and return scores for each of ``targets``.

        The validation set plays no part in growing a forest (no early stopping);
        scores accumulate tree by tree, so with ``keep_trees=False`` no tree is kept.
        """
        self.fit(train, predict_on=tuple(targets), progress=progress)
        return list(self.predictions_)

    # -- prediction -------------------------------------------------------------
    def predict(self, data: RankingData | np.ndarray) -> np.ndarray:
        """Mean over trees of the leaf scores (eq. 10)."""
        self._fitted("trees_")
        if not self.keep_trees:
            raise ValueError("this forest was fitted with keep_trees=False; use predictions_ from fit(predict_on=...)")
        X = self._columns(self._features_of(data))
        out = np.zeros(X.shape[0])
        weight = 1.0 / len(self.trees_)
        for tree in self.trees_:
            predict_tree(X, tree.feature, tree.threshold, tree.left, tree.right, tree.value, out, weight)
        return out

    def apply(self, data: RankingData | np.ndarray) -> np.ndarray:
        """Leaf index of every row in every tree, shape (n_rows, n_trees)."""
        self._fitted("trees_")
        X = self._columns(self._features_of(data))
        return np.stack([leaf_of_rows(X, t.feature, t.threshold, t.left, t.right) for t in self.trees_], axis=1)


def histogram_bins(Xt: np.ndarray, max_bins: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Each feature's values replaced by their bin number (``thresholds: hist``; uint8, the shape of ``Xt``), and
    each feature's cuts.

    A feature with at most ``max_bins`` distinct values keeps one bin per value and cuts at the midpoints
    of consecutive values (a split partitions the node's documents as the exact search's does; its threshold
    is the cut just above the left child's largest value, where the exact search takes the midpoint to the
    right child's smallest, so held-out documents can fall differently); otherwise at most
    ``max_bins - 1`` cuts at the midpoints between distinct values nearest to equal-count quantiles of the
    training set (as LightGBM's ``max_bin`` bins from the training data).  Bin b holds the values in
    (cuts[b - 1], cuts[b]]: ``x <= cuts[b]`` if and only if ``bin(x) <= b``.  Compiled (``_bins``): one
    numpy sort of all features, then one pass per feature for its cuts and one for its bins.
    """
    return histogram_bins_fast(Xt, max_bins)


def _rows_of_queries(query_offsets: np.ndarray, queries: np.ndarray) -> np.ndarray:
    starts = query_offsets[queries]
    sizes = query_offsets[queries + 1] - starts
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    return np.repeat(starts - offsets[:-1], sizes) + np.arange(offsets[-1], dtype=np.int64)
