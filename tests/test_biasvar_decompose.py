"""ltrbv.biasvar.decompose: shapes, validation, identities, reports and real data."""

from __future__ import annotations

import contextlib
import io
import json
from types import SimpleNamespace

import numpy as np
import pytest

from conftest import MQ2008, require
from ltrbv.biasvar import decompose, pointwise_bias_variance
from ltrbv.biasvar.listwise import QUANTITIES, listwise_terms
from ltrbv.cli import main


def study(n_queries=25, n_models=6, seed=0, empty_queries=2):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 20, size=n_queries)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    labels = rng.integers(0, 4, size=offsets[-1])
    labels[: offsets[empty_queries]] = 0  # the first queries have no relevant document
    scores = np.round(0.5 * labels + rng.normal(size=(n_models, offsets[-1])), 1)  # ties
    data = SimpleNamespace(labels=labels, query_offsets=offsets,
                           qids=np.array([str(10 + q) for q in range(n_queries)]))
    return data, scores


def test_shape_errors_are_clear():
    data, scores = study(n_models=5)
    with pytest.raises(ValueError, match="even number"):
        decompose(data, scores, "twofold")
    with pytest.raises(ValueError, match="at least 2 models"):
        decompose(data, scores[:1], "bootstrap")
    with pytest.raises(ValueError, match=r"shape \(n_models, "):
        decompose(data, scores[:, :-1], "bootstrap")
    with pytest.raises(ValueError, match="unknown bias-variance method"):
        decompose(data, scores, "jackknife")
    with pytest.raises(ValueError, match="ideal value 1"):
        decompose(data, scores, "bootstrap", metrics=("err@10",))
    bad = scores.copy()
    bad[2, 7] = np.nan
    with pytest.raises(ValueError, match="model 3"):
        decompose(data, bad, "bootstrap")


def test_pointwise_equals_numpy_formulas():
    data, scores = study(n_models=6)
    labels = data.labels
    fbar = scores.mean(axis=0)
    assert pointwise_bias_variance(scores, labels, "bootstrap") == pytest.approx(
        (np.mean((labels - fbar) ** 2), np.mean(scores.var(axis=0, ddof=1))))
    pairs = scores.reshape(3, 2, -1)
    expected_bias = np.mean([np.mean((labels - p.mean(axis=0)) ** 2) for p in pairs])
    expected_variance = np.mean([np.mean(p.var(axis=0, ddof=1)) for p in pairs])
    assert pointwise_bias_variance(scores, labels, "twofold") == pytest.approx(
        (expected_bias, expected_variance))


def test_twofold_is_the_mean_of_its_repetitions_and_one_pair_is_a_bootstrap_of_two():
    data, scores = study(n_models=6)
    twofold = listwise_terms(scores, data.labels, data.query_offsets, "twofold", ("ndcg", "map"))
    per_pair = [listwise_terms(scores[2 * j:2 * j + 2], data.labels, data.query_offsets, "bootstrap",
                               ("ndcg", "map")) for j in range(3)]
    for metric in ("ndcg", "map"):
        for name in ("sre", "vre", "vre_signed", "vre_squared", "ranking_error"):
            expected = np.mean([p[metric].values[name] for p in per_pair], axis=0)
            np.testing.assert_allclose(twofold[metric].values[name], expected, rtol=1e-12)


@pytest.mark.parametrize("method", ["bootstrap", "twofold"])
def test_signed_variant_completes_the_ranking_error(method):
    """SRE + (M-1)/M * signed VRE = ranking error (eq. 11 = eq. 12 + the §5.3.5 variant)."""
    data, scores = study(n_models=6, seed=3)
    terms = listwise_terms(scores, data.labels, data.query_offsets, method, ("ndcg", "ndcg@5", "map"))
    m = 6 if method == "bootstrap" else 2
    for t in terms.values():
        keep = t.included
        np.testing.assert_allclose(t.values["sre"][keep] + (m - 1) / m * t.values["vre_signed"][keep],
                                   t.values["ranking_error"][keep], rtol=1e-12, atol=1e-15)
        assert np.all(t.values["vre"][keep] >= t.values["vre_signed"][keep] - 1e-15)
        assert np.all(t.values["vre_absolute"][keep] >= t.values["vre"][keep])


def test_empty_queries_excluded_by_default_or_kept_with_the_convention_value():
    data, scores = study(empty_queries=3)
    excluded = decompose(data, scores, "bootstrap", n_resamples=50)
    kept = decompose(data, scores, "bootstrap", n_resamples=50, empty_queries="keep")
    assert excluded.summary["metrics"]["ndcg"]["n_queries"] == 22
    assert kept.summary["metrics"]["ndcg"]["n_queries"] == 25
    sre_kept = kept.listwise["ndcg"].values["sre"]
    assert np.all(sre_kept[:3] == 1.0)  # standard: NDCG = 0 without relevant documents
    assert kept.summary["metrics"]["ndcg"]["sre"] == pytest.approx(
        (3 + 22 * excluded.summary["metrics"]["ndcg"]["sre"]) / 25)
    assert kept.summary["bias2"] == excluded.summary["bias2"]


def test_reports_are_complete_and_serialisable():
    data, scores = study()
    result = decompose(data, scores, "twofold", metrics=("ndcg", "map", "ndcg@10"), n_resamples=100,
                       ties="expected")
    summary = json.loads(json.dumps(result.summary))
    assert summary["method"] == "twofold" and summary["n_models"] == 6
    assert set(summary["metrics"]) == {"ndcg", "map", "ndcg@10"}
    for entry in summary["metrics"].values():
        for name in QUANTITIES:
            assert len(entry[f"{name}_ci"]) == 2
    table = result.per_query
    assert len(table) == 25 * 3
    assert list(table.columns[:3]) == ["qid", "metric", "n_docs"]
    ndcg = table[table.metric == "ndcg"]
    weighted = (ndcg["bias2"] * ndcg["n_docs"]).sum() / ndcg["n_docs"].sum()
    assert weighted == pytest.approx(summary["bias2"])
    assert ndcg["sre"].mean() == pytest.approx(summary["metrics"]["ndcg"]["sre"])  # nanmean
    assert ndcg["sre"].isna().sum() == 2


def test_cli_reads_a_parsed_cache_like_the_text_file(tmp_path):
    from ltrbv.data.cache import save_cache
    from ltrbv.data.letor import read_letor

    rng = np.random.default_rng(2)
    lines = [f"{rng.integers(0, 3)} qid:{q} 1:{rng.normal():.3f}" for q in range(6) for _ in range(5)]
    (tmp_path / "test.txt").write_text("\n".join(lines) + "\n")
    save_cache(read_letor(tmp_path / "test.txt"), tmp_path / "test.npz")
    paths = []
    for i in range(3):
        paths.append(tmp_path / f"s{i}.txt")
        paths[-1].write_text("".join(f"{v}\n" for v in rng.normal(size=30)))
    reports = []
    for data in ("test.txt", "test.npz"):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["biasvar", "--data", str(tmp_path / data), "--method", "bootstrap",
                         "--scores", *map(str, paths), "--resamples", "50"]) == 0
        report = json.loads(out.getvalue())
        report.pop("data")
        reports.append(report)
    assert reports[0] == reports[1]


@pytest.mark.realdata
def test_mq2008_fold1_test_with_random_scores():
    from ltrbv.biasvar.listwise import per_query_metric_of_rows
    from ltrbv.data.letor import read_letor

    data = read_letor(require(MQ2008 / "Fold1" / "test.txt"))
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(10, data.n_docs))
    result = decompose(data, scores, "bootstrap", metrics=("ndcg", "ndcg@10", "map"), n_resamples=300)
    summary = result.summary
    labels = data.labels.astype(float)
    assert summary["bias2"] == pytest.approx(np.mean((labels - scores.mean(axis=0)) ** 2))
    assert summary["variance"] == pytest.approx(np.mean(scores.var(axis=0, ddof=1)))
    relevant = np.maximum.reduceat(data.labels, data.query_offsets[:-1]) > 0
    assert summary["metrics"]["ndcg"]["n_queries"] == relevant.sum() < data.n_queries
    # random scores: the ranking error is the mean of 1 - NDCG of each model
    per_model = per_query_metric_of_rows(scores, data.labels, data.query_offsets, ("ndcg",))["ndcg"]
    assert summary["metrics"]["ndcg"]["ranking_error"] == pytest.approx(1 - per_model[:, relevant].mean())
    for metric, entry in summary["metrics"].items():
        assert 0 < entry["sre"] < 1 and 0 < entry["vre"] < entry["ranking_error"]
        low, high = entry["sre_ci"]
        assert low < entry["sre"] < high
