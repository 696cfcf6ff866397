"""Tables of the bias-variance study: paired trend tests, the sweep table and the significance table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ltrbv.compare.significance import significance_table
from ltrbv.sections.biasvar.tables import comparison_table, sweep_table
from ltrbv.sections.biasvar.trends import scheme_gap_table, trend_table


def _shifted(frame, rng, shift):
    out = frame.copy()
    for column in ("sre", "vre", "ranking_error", "bias2", "variance"):
        out[column] = out[column] + shift + rng.normal(0, 0.005, len(out))
    return out


def _per_query(rng, n_queries, shift=0.0):
    rows = []
    for q in range(n_queries):
        n_docs = int(rng.integers(3, 20))
        for metric in ("ndcg", "map"):
            sre = np.nan if q % 7 == 0 else rng.uniform(0.1, 0.5) + shift
            rows.append({"qid": str(q), "metric": metric, "n_docs": n_docs, "sre": sre, "vre": abs(sre) / 10,
                         "ranking_error": sre, "bias2": 0.3 + shift + rng.normal(0, 0.01), "variance": 0.01 + shift})
    return pd.DataFrame(rows)


def test_paired_difference_equals_direct_computation_and_its_interval_holds_it():
    rng = np.random.default_rng(1)
    low = _per_query(rng, 60)
    high = _shifted(low, rng, 0.02)
    runs = pd.DataFrame([{"learner": "rf", "fold": "F", "scheme": "bootstrap", "setting": f"subsample={v}",
                          "value": v, "path": p} for v, p in ((0.1, "a"), (0.5, "b"))])
    table = trend_table(runs, {"a": low, "b": high}, n_resamples=500, seed=3)
    row = table[(table.quantity == "bias2")].iloc[0]
    first = low.drop_duplicates("qid")
    last = high.drop_duplicates("qid")
    direct = (last.bias2 * last.n_docs).sum() / last.n_docs.sum() - (first.bias2 * first.n_docs).sum() / first.n_docs.sum()
    assert row.difference == pytest.approx(direct)
    assert row.ci_low <= row.difference <= row.ci_high and row.ci_low > 0  # a real shift of 0.02
    sre = table[(table.quantity == "sre") & (table.metric == "ndcg")].iloc[0]
    a, b = low[low.metric == "ndcg"], high[high.metric == "ndcg"]
    assert sre.difference == pytest.approx(b.sre.mean() - a.sre.mean())  # queries without a value left out
    # the claim engine's test of a listwise row (unit weights) is scipy's paired t-test over the shared queries
    joined = a.set_index("qid")["sre"].to_frame("a").join(b.set_index("qid")["sre"].rename("b")).dropna()
    assert sre.p == pytest.approx(stats.ttest_rel(joined["b"], joined["a"]).pvalue, rel=1e-9)
    assert sre.n_queries == len(joined)
    # a pointwise row (a ratio of document-weighted sums): its linearised standard error against the standard
    # deviation of 4000 bootstrap replicates of the ratio over queries (numpy, drawn here)
    first_q, last_q = low.drop_duplicates("qid"), high.drop_duplicates("qid")
    w, d = first_q.n_docs.to_numpy(float), (last_q.bias2.to_numpy() - first_q.bias2.to_numpy())
    boot = np.random.default_rng(0).integers(0, w.size, (4000, w.size))
    replicates = (w[boot] * d[boot]).sum(axis=1) / w[boot].sum(axis=1)
    row = table[(table.quantity == "bias2")].iloc[0]
    assert row.se == pytest.approx(replicates.std(ddof=1), rel=0.1)
    assert row.p == pytest.approx(2 * stats.t(w.size - 1).sf(abs(row.difference) / row.se), rel=1e-9)


def test_scheme_gap_pairs_bootstrap_and_twofold_runs_of_the_same_setting():
    rng = np.random.default_rng(2)
    base = _per_query(rng, 40)
    frames = {"b": base, "t": _shifted(base, rng, 0.05), "x": _shifted(base, rng, 0.0)}
    runs = pd.DataFrame([
        {"learner": "rf", "fold": "F", "scheme": "bootstrap", "setting": "subsample=0.3", "value": 0.3, "path": "b"},
        {"learner": "rf", "fold": "F", "scheme": "twofold", "setting": "subsample=0.3", "value": 0.3, "path": "t"},
        {"learner": "rf", "fold": "F", "scheme": "bootstrap", "setting": "subsample=0.63", "value": 0.63, "path": "x"},
    ])
    gaps = scheme_gap_table(runs, frames, n_resamples=200)
    assert set(gaps.setting) == {"subsample=0.3"}
    assert gaps[gaps.quantity == "variance"].difference.iloc[0] == pytest.approx(0.05, abs=0.003)


def _summary(setting, scheme, sre):
    metric = {"sre": sre, "vre": 0.01, "ranking_error": sre + 0.01, "vre_signed": 0.0, "vre_squared": 0.0}
    metric.update({f"{k}_ci": [v - 0.01, v + 0.01] for k, v in list(metric.items())})
    return {"learner": "rf", "fold": "F", "setting": setting, "scheme": scheme, "n_models": 4, "bias2": 0.3,
            "variance": 0.01, "bias2_ci": [0.2, 0.4], "variance_ci": [0.0, 0.02], "metrics": {"ndcg": metric}}


def test_sweep_and_comparison_tables():
    sweep = sweep_table([_summary("subsample=0.1", "bootstrap", 0.3), _summary("base", "twofold", 0.25)])
    assert len(sweep) == 2 * (2 + 5)
    assert sweep.loc[sweep.setting == "subsample=0.1", "value"].iloc[0] == 0.1
    comparison = comparison_table(sweep, ["rf"], ["twofold"])
    assert len(comparison) == 1 and comparison.sre.iloc[0] == 0.25 and comparison.sre_over_vre.iloc[0] == 25


def test_significance_table_matches_scipy_and_pools_folds():
    rng = np.random.default_rng(4)
    rows = []
    for fold in ("Fold1", "Fold2"):
        for q in range(30):
            base = rng.uniform(0, 1)
            for learner, value in (("base", base), ("better", base + 0.1 + rng.normal(0, 0.05))):
                rows.append({"learner": learner, "fold": fold, "seed": 1, "qid": f"{fold}-{q}", "metric": "map",
                             "convention": "letor4", "value": value})
    per_query = pd.DataFrame(rows)
    table = significance_table(per_query, ["base", "better"], ["map"], "base", "letor4", 2000, 0)
    pooled = table[(table.fold == "all") & (table.learner == "better")].iloc[0]
    a = per_query[per_query.learner == "better"].value.to_numpy()
    b = per_query[per_query.learner == "base"].value.to_numpy()
    assert pooled.n_queries == 60 and pooled.p_t == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert pooled.mark_t == "**" and pooled.p_randomisation < 0.01
    assert set(table.fold) == {"all", "Fold1", "Fold2"}
    assert np.isnan(table[(table.learner == "base") & (table.fold == "all")].p_t.iloc[0])


def test_significance_pairs_add_a_direct_comparison():
    rng = np.random.default_rng(5)
    rows = []
    for q in range(40):
        base = rng.uniform(0, 1)
        for learner, value in (("base", base), ("a", base + 0.05 + rng.normal(0, 0.02)), ("b", base)):
            rows.append({"learner": learner, "fold": "F1", "seed": 1, "qid": str(q), "metric": "map",
                         "convention": "letor4", "value": value})
    per_query = pd.DataFrame(rows)
    table = significance_table(per_query, ["base", "a", "b"], ["map"], "base", "letor4", 500, 0, pairs=[["a", "b"]])
    pair = table[(table.learner == "a") & (table.baseline == "b") & (table.fold == "all")].iloc[0]
    a = per_query[per_query.learner == "a"].value.to_numpy()
    b = per_query[per_query.learner == "b"].value.to_numpy()
    assert pair.p_t == pytest.approx(stats.ttest_rel(a, b).pvalue) and pair.mark_t == "**"
    assert len(table[table.fold == "all"]) == 4  # three against the baseline, one pair
