"""The notebook API: ranking data from arrays, and metrics, the bias-variance decomposition and
compare on numpy arrays from ``import ltrbv``; the examples/ script runs."""

from __future__ import annotations

import runpy
import subprocess
import sys

import numpy as np
import pytest

import ltrbv
from conftest import REPO
from ltrbv.data.letor import read_letor
from ltrbv.data.synthetic import SyntheticSpec, write_letor_split


def test_ranking_data_from_arrays_equals_the_parsed_file(tmp_path):
    spec = SyntheticSpec(n_queries=60, docs_per_query=8, n_features=6, n_informative=3, n_query_level=1, seed=2)
    parsed = read_letor(write_letor_split(tmp_path / "test.txt", spec, 1, "test"))
    qid = np.repeat(parsed.qids, parsed.query_sizes)
    data = ltrbv.ranking_data(qid.astype(int), parsed.labels.astype(float), parsed.X)
    np.testing.assert_array_equal(data.query_offsets, parsed.query_offsets)
    np.testing.assert_array_equal(data.qids, parsed.qids)
    np.testing.assert_array_equal(data.labels, parsed.labels)
    np.testing.assert_array_equal(data.X, parsed.X)
    scores = np.random.default_rng(0).random(data.n_docs)
    np.testing.assert_array_equal(data.from_file_order(scores), scores)  # input order is row order
    featureless = ltrbv.ranking_data(qid, parsed.labels)
    assert featureless.n_features == 0 and featureless.n_queries == parsed.n_queries


@pytest.mark.parametrize("qid, labels, X, message", [
    ([1, 1, 2, 1], [0, 1, 0, 1], None, "documents of each query must be contiguous"),
    ([1, 1, 2], [0, 1], None, "labels: expected 3 entries"),
    ([1, 1, 2], [0, 1.5, 0], None, "labels must be integers"),
    ([1, 1, 2], [0, -1, 0], None, "labels must lie in 0..127"),
    ([1, 1, 2], [0, 1, 0], np.zeros((2, 3)), r"X: expected shape \(3, n_features\)"),
    ([1, 1, 2], [0, 1, 0], [[0.0], [np.nan], [1.0]], "X contains NaN"),
    ([], [], None, "qid: expected a non-empty 1-D array"),
])
def test_ranking_data_refuses_bad_arrays(qid, labels, X, message):
    with pytest.raises(ValueError, match=message):
        ltrbv.ranking_data(qid, labels, X)


def test_metrics_decomposition_and_compare_on_arrays():
    qid = np.array(["a"] * 4 + ["b"] * 3)
    labels = np.array([2, 0, 1, 0, 0, 1, 0])
    data = ltrbv.ranking_data(qid, labels)
    perfect = labels.astype(float)
    assert ltrbv.evaluate(perfect, data.labels, data.query_offsets, ["ndcg@10"])["ndcg@10"].tolist() == [1.0, 1.0]
    models = np.stack([perfect, perfect[::-1], perfect + 0.5])
    result = ltrbv.decompose(data, models, "bootstrap", metrics=["ndcg", "map"], n_resamples=50)
    assert list(result.summary["metrics"]) == ["ndcg", "map"]
    mean_model = models.mean(axis=0)
    assert result.variance == pytest.approx(models.var(axis=0, ddof=1).mean())
    assert result.bias2 == pytest.approx(((mean_model - labels) ** 2).mean())
    comparison = ltrbv.compare_scores(data, {"perfect": perfect, "reversed": -perfect}, metrics=["map"],
                                      n_permutations=100)
    assert isinstance(comparison, ltrbv.Comparison)
    assert comparison.table.set_index("system").loc["reversed", "difference"] < 0
    assert ltrbv.canonical_metric("P_10", "trec_eval") == "P@10"


def test_import_ltrbv_is_cheap_and_exports_are_lazy():
    code = ("import sys, ltrbv; heavy = [m for m in ('numpy', 'pandas', 'scipy', 'numba') if m in sys.modules]; "
            "print(heavy); print(sorted(ltrbv.__all__)); ltrbv.compare_scores; print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "[]" and out[2] == "True"
    assert {"ranking_data", "evaluate", "decompose", "compare_scores", "RankingData"} <= set(eval(out[1]))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        ltrbv.nope  # noqa: B018


def test_examples_small_study_runs_and_shows_the_bias_variance_trade_off(capsys):
    namespace = runpy.run_path(str(REPO / "examples" / "small_study.py"))
    studies, comparison = namespace["main"]()
    out = capsys.readouterr().out
    assert "ridge-1: bias2" in out and "ridge-3000: bias2" in out and "ndcg@10" in out
    weak, strong = studies["ridge-1"][1], studies["ridge-3000"][1]
    # the heavier penalty: lower variance, higher bias (of the scores and of the rankings)
    assert strong.variance < weak.variance and strong.bias2 > weak.bias2
    assert strong.summary["metrics"]["ndcg"]["vre"] < weak.summary["metrics"]["ndcg"]["vre"]
    assert comparison.metrics == ("ndcg@10", "map") and len(comparison.table) == 4
    assert len((REPO / "examples" / "small_study.py").read_text().splitlines()) <= 45
