"""The reproduction catalog: generated learners, tables and verdicts against independent computations, and
the whole catalog through Snakemake on the tiny synthetic config."""

from __future__ import annotations

import copy
import itertools
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import tiny_config
from ltrbv.data.ranking_data import RankingData
from ltrbv.forest import RankingForest
from ltrbv.compare import claims as engine
from ltrbv.sections.catalog import claims as catalog_claims
from ltrbv.sections.catalog import grid as cg
from ltrbv.sections.catalog.claims import judge_claims
from ltrbv.sections.catalog.generated import bag_param_problems
from ltrbv.sections.catalog.kinds import KINDS, WITH_JOB
from ltrbv.sections.catalog.kinds.compare import RANDOM_RANKING, compare_table, random_ranking_values
from ltrbv.sections.catalog.kinds.curve import curve_table
from ltrbv.sections.catalog.kinds.scores import score_distributions
from ltrbv.sections.catalog.kinds.sweep import sweep_learners, sweep_table
from ltrbv.sections.catalog.tables import fit_seconds
from ltrbv.sections.core.grid import training_benchmarks
from ltrbv.workflow.config_checks import fill_defaults
from test_workflow import run


def claim_tests(kind, table, claims, per_query=None, convention=None, sweep=None, permutations=10000, seed=0,
                entry="", timing=None):
    """An entry's claims' tests, through its kind's module (``claim_row``) and the catalog's shared ``claim_tests``;
    ``timing``: the entry's timing table (its timing claims read it)."""
    module = KINDS[kind]
    values = catalog_claims.per_query_means(per_query, convention) if per_query is not None else None

    def row_of(claim, claim_seed):
        if kind == "compare":
            return module.claim_row(claim, values, table, permutations, claim_seed, timing)
        if kind == "sweep":
            return module.claim_row(claim, values, table, sweep, permutations, claim_seed, timing)
        return module.claim_row(claim, table)

    return catalog_claims.claim_tests({"entry": entry, "claims": claims}, row_of, seed)

FORESTS = {
    "rf-point": {"kind": "random_forest", "threads": 1, "params": {"splitting": "point", "n_estimators": 10}},
    "rf-list": {"kind": "random_forest", "threads": 1, "params": {"splitting": "list", "n_estimators": 10}},
    "rf-point-leaf5": {"kind": "random_forest", "threads": 1,
                       "params": {"splitting": "point", "n_estimators": 10, "min_samples_leaf": 5}},
    "gbm": {"kind": "xgboost", "threads": 1, "params": {"n_estimators": 30, "early_stopping_rounds": None,
                                                        "eval_metric": "ndcg@3", "eval_convention": "letor4"}},
    # one job per sub-model: the catalog's `scores` entry trains only the sub-models it compares
    "bag": {"kind": "bag", "threads": 1, "jobs": "submodel",
            "params": {"base": "gbm", "n_models": 3, "sample_fraction": 0.67}},
    "share": {"kind": "bag", "threads": 1, "params": {"base": "rf-point", "n_models": 1, "sample_fraction": 1.0}},
}


def catalog_config(entries: dict, learners=FORESTS) -> dict:
    config = tiny_config(learners=copy.deepcopy(learners))
    config["catalog"] = {"entries": copy.deepcopy(entries)}
    return fill_defaults(config)


SWEEP = {"paper": "P", "artefact": "Fig. 1", "kind": "sweep", "learners": ["rf-point"], "param": "min_samples_leaf",
         "values": [1, 2, 5, 10]}


def test_sweep_values_name_the_base_an_identical_learner_or_a_generated_one():
    config = catalog_config({"s": SWEEP})
    mapping = sweep_learners(config, config["catalog"]["entries"]["s"])
    # 1 is the forest's own default, 5 is rf-point-leaf5's parameters (threads and resources aside)
    assert mapping == {"rf-point": {1: "rf-point", 2: "rf-point+min_samples_leaf-2", 5: "rf-point-leaf5",
                                    10: "rf-point+min_samples_leaf-10"}}
    assert cg.expand(config) == []
    assert config["learners"]["rf-point+min_samples_leaf-10"]["params"] == {
        "splitting": "point", "n_estimators": 10, "min_samples_leaf": 10}
    assert "rf-point+min_samples_leaf-1" not in config["learners"]
    # after expansion the mapping is the same (a generated learner is not mistaken for an identical config entry)
    assert sweep_learners(config, config["catalog"]["entries"]["s"]) == mapping


def test_a_bag_of_one_is_swept_over_its_share_of_the_queries():
    learners = {**FORESTS, "share": {"kind": "bag", "threads": 1, "params": {"base": "rf-point", "n_models": 1}}}
    entry = {"paper": "P", "artefact": "Fig. 11", "kind": "sweep", "learners": ["share"], "param": "sample_fraction",
             "values": [0.25, 0.67]}
    config = catalog_config({"f11": entry}, learners)
    assert sweep_learners(config, config["catalog"]["entries"]["f11"]) == {
        "share": {0.25: "share+sample_fraction-0.25", 0.67: "share"}}  # 0.67: the schema's default share
    assert cg.expand(config) == []
    assert config["learners"]["share+sample_fraction-0.25"]["params"]["sample_fraction"] == 0.25
    # its run's one training job (the schema's default jobs: run), or one per sub-model (jobs: submodel), then combine
    assert config["learners"]["share+sample_fraction-0.25"]["jobs"] == "run"
    assert training_benchmarks(config, "tiny", "share", "Fold1", 1) == [
        "results/tiny/benchmarks/train_bag/share/Fold1/seed1.tsv",
        "results/tiny/benchmarks/combine_bag/share/Fold1/seed1.tsv"]
    config["learners"]["share"]["jobs"] = "submodel"
    assert training_benchmarks(config, "tiny", "share", "Fold1", 1) == [
        "results/tiny/benchmarks/bag_submodel/share/Fold1/seed1/sub0.tsv",
        "results/tiny/benchmarks/combine_bag/share/Fold1/seed1.tsv"]
    assert bag_param_problems({"base": "x", "sample_fraction": 0}) == ["0 is less than or equal to the minimum of 0"]


def test_a_generated_name_the_config_uses_otherwise_is_refused_not_overwritten():
    learners = {**FORESTS, "rf-point+min_samples_leaf-2": {"kind": "random_forest", "params": {"splitting": "rand"}}}
    config = catalog_config({"s": SWEEP}, learners)
    problems = cg.expand(config)
    assert problems and "learners.rf-point+min_samples_leaf-2: the catalog generates" in problems[0]
    assert config["learners"]["rf-point+min_samples_leaf-2"]["params"] == {"splitting": "rand"}
    assert "rf-point+min_samples_leaf-10" not in config["learners"]


def per_query(values: dict, folds=("Fold1", "Fold2")) -> pd.DataFrame:
    """Long per-query rows of ``{learner: array over 2 x n queries}`` for one metric."""
    frames = []
    for learner, v in values.items():
        half = len(v) // 2
        for i, fold in enumerate(folds):
            part = v[i * half:(i + 1) * half]
            frames.append(pd.DataFrame({"learner": learner, "fold": fold, "seed": 1, "qid": [f"q{k}" for k in
                                                                                            range(half)],
                                        "metric": "ndcg@10", "convention": "letor4", "value": part}))
    return pd.concat(frames, ignore_index=True)


def seconds_of(learners, structure=None) -> pd.DataFrame:
    rows = [{"learner": learner, "fold": "Fold1", "seed": 1, "fit_seconds": 2.0 + i, "trees": 10,
             "leaves_per_tree": (structure or {}).get(learner, np.nan), "rows_per_leaf": np.nan,
             "leaf_score": np.nan, "depth": np.nan} for i, learner in enumerate(learners)]
    return pd.DataFrame(rows)


def timing_of(cpu_seconds: dict, trees=10, repeats=3) -> pd.DataFrame:
    """A timing job's table: each learner's fits (their CPU seconds around the given median), 10 trees each."""
    rows = [{"learner": learner, "repeat": r, "trees": trees, "cpu_seconds": seconds * (1 + 0.1 * (r - 2)),
             "wall_seconds": seconds, "load_before": 0.5, "load_after": 0.6, "cores_held": 2, "cpu": "test"}
            for learner, seconds in cpu_seconds.items() for r in range(1, repeats + 1)]
    return pd.DataFrame(rows)


def holm_by_hand(p):
    """Holm's adjusted p-values, written out: the i-th smallest times (m - i), made monotone, capped at 1."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        out[i] = running
    return out


def test_compare_claims_are_tested_over_queries_and_judged_as_one_family():
    rng = np.random.default_rng(0)
    base = rng.uniform(0.2, 0.8, 80)
    values = {"a": base + 0.05 + rng.normal(0, 0.01, 80), "b": base, "c": base + 0.01 + 0.1 * np.where(np.arange(80) % 2, 1.0, -1.0)}
    table = compare_table(per_query(values), list(values), ["ndcg@10"], "b", "letor4", 1000, 7,
                          seconds_of(values, {"a": 30.0, "b": 12.0}), pairs=[("a", "c")])
    claims = [
        {"kind": "better", "learner": "a", "than": "b", "metric": "ndcg@10", "text": "a > b"},
        {"kind": "better", "learner": "b", "than": "a", "metric": "ndcg@10", "text": "b > a"},
        {"kind": "similar", "learner": "c", "than": "b", "metric": "ndcg@10", "margin": 0.05, "text": "c ~ b"},
        {"kind": "better", "learner": "a", "than": "c", "metric": "ndcg@10", "text": "a > c (a pair)"},
        {"kind": "better", "learner": "c", "than": "b", "metric": "ndcg@10", "text": "c > b",
         "paper": {"c": 0.5, "b": 0.499}},
        {"kind": "greater", "learner": "a", "than": "b", "quantity": "leaves_per_tree", "text": "a bigger"},
        {"kind": "greater", "learner": "b", "than": "a", "quantity": "fit_seconds", "text": "b slower"},  # 3 s vs 2
    ]
    tests = claim_tests("compare", table, claims, per_query(values), "letor4", permutations=1000, seed=7, entry="e",
                        timing=timing_of({"a": 2.0, "b": 3.0}))
    # the oracle: scipy's paired t-test over the 80 queries; TOST by two one-sided one-sample t-tests
    pairs = [("a", "b"), ("b", "a"), None, ("a", "c"), ("c", "b")]
    for i, pair in enumerate(pairs):
        if pair:
            assert tests.loc[i, "p"] == pytest.approx(stats.ttest_rel(values[pair[0]], values[pair[1]]).pvalue,
                                                      rel=1e-9)
    d = values["c"] - values["b"]
    tost = max(stats.ttest_1samp(d, -0.05, alternative="greater").pvalue,
               stats.ttest_1samp(d, 0.05, alternative="less").pvalue)
    assert tests.loc[2, "p"] == pytest.approx(tost, rel=1e-9)
    judged = judge_claims(tests, engine.Policy())
    tested = [0, 1, 2, 3, 4]
    np.testing.assert_allclose(judged.loc[tested, "p_adjusted"], holm_by_hand(list(tests.loc[tested, "p"])), rtol=1e-12)
    assert (judged.loc[tested, "family"] == 5).all() and judged.loc[5:, "family"].isna().all()
    assert list(judged["verdict"]) == [
        engine.REPRODUCED, engine.CONTRADICTED, engine.REPRODUCED, engine.REPRODUCED,
        engine.INCONCLUSIVE,  # not significant, and the paper's +0.001 is far below the test's MDE
        f"{engine.DESCRIPTIVE}: holds", f"{engine.TIMING}: holds"]
    assert judged.loc[4, "p_adjusted"] >= 0.05 and judged.loc[4, "mde"] > 0.001
    assert f"{values['a'].mean():.4f}" in tests.loc[0, "measured"]
    assert tests.loc[1, "estimate"] == pytest.approx(-tests.loc[0, "estimate"])  # the reversed claim: sign turned


def test_sweep_table_and_a_trend_tested_over_queries():
    rng = np.random.default_rng(1)
    values = {f"v{k}": rng.uniform(0, 1, 60) + 0.02 * k for k in range(4)}
    sweep = {"rf": {k: f"v{k}" for k in range(4)}}
    seconds = seconds_of(values)  # 2, 3, 4, 5 s for 10 trees: rising
    table = sweep_table(per_query(values), sweep, seconds, n_resamples=200, seed=3)
    assert list(table["value"]) == [0, 1, 2, 3]
    np.testing.assert_allclose(table["mean"], [values[f"v{k}"].mean() for k in range(4)])
    np.testing.assert_allclose(table["seconds_per_tree"], [0.2, 0.3, 0.4, 0.5])
    assert (table["ci_low"] < table["mean"]).all() and (table["mean"] < table["ci_high"]).all()
    claims = [{"kind": "trend", "learner": "rf", "metric": "ndcg@10", "direction": "increasing", "text": "t"},
              {"kind": "trend", "learner": "rf", "metric": "ndcg@10", "direction": "decreasing", "text": "t"},
              {"kind": "trend", "learner": "rf", "metric": "seconds_per_tree", "direction": "increasing", "text": "t"},
              {"kind": "faster", "learner": "rf", "at": 0, "than_value": 2, "text": "f"},
              {"kind": "faster", "learner": "rf", "at": 3, "than_value": 2, "text": "f"}]
    timing = timing_of({f"v{k}": 2.0 + k for k in range(4)})  # the dedicated fits: 0.2 ... 0.5 s per tree
    tests = claim_tests("sweep", table, claims, per_query(values), "letor4", sweep, permutations=500, seed=1,
                        timing=timing)
    # the oracle: per query, numpy's least-squares line through (0..3, value), its rise over the 3 steps
    matrix = np.column_stack([values[f"v{k}"] for k in range(4)])
    change = np.array([np.polyfit(np.arange(4), row, 1)[0] * 3 for row in matrix])
    assert tests.loc[0, "estimate"] == pytest.approx(change.mean(), rel=1e-9)
    assert tests.loc[0, "p"] == pytest.approx(stats.ttest_1samp(change, 0).pvalue, rel=1e-9)
    assert tests.loc[1, "estimate"] == pytest.approx(-change.mean(), rel=1e-9)
    judged = judge_claims(tests, engine.Policy())
    # the means rise by 0.02 a step against query noise of sd 0.29: not significant with 60 queries
    assert list(judged["verdict"]) == [
        engine.REPRODUCED if judged.loc[0, "p_adjusted"] < 0.05 else engine.NOT_REPRODUCED,
        engine.CONTRADICTED if judged.loc[1, "p_adjusted"] < 0.05 else engine.NOT_REPRODUCED,
        f"{engine.TIMING}: holds", f"{engine.TIMING}: holds", f"{engine.TIMING}: does not hold"]
    assert judged.loc[0, "family"] == 2
    assert "speed-up 2.00x" in tests.loc[3, "measured"] and "Spearman rho +1.00" in tests.loc[2, "measured"]
    assert "median of 3 fits on a job holding 2 core(s)" in tests.loc[3, "measured"]


def test_a_timing_job_fits_each_learner_repeatedly_and_the_claims_read_the_median():
    """The timing job's table: one row per fit with its CPU seconds, trees and load; seconds per tree are the median
    over the fits (a slow outlier fit does not move it)."""
    from ltrbv.data.from_arrays import ranking_data
    from ltrbv.data.synthetic import SyntheticSpec, generate_queries
    from ltrbv.sections.catalog.timing import measure, seconds_per_tree, timing_specs

    config = catalog_config({"s": SWEEP})
    specs = timing_specs(config, ["rf-point", "rf-list"], trees=3)
    assert specs["rf-point"]["params"]["n_estimators"] == 3 and specs["rf-point"]["kind"] == "random_forest"
    made = generate_queries(SyntheticSpec(n_queries=30, docs_per_query=8, n_features=6, n_informative=3,
                                          n_query_level=1, seed=2))
    data = ranking_data(np.repeat(np.arange(made.query_sizes.size), made.query_sizes), made.labels, made.X)
    table = measure(specs, data, data, repeats=2, seed=1, entry="s", cores_held=2)
    assert list(table["learner"]) == ["rf-point", "rf-point", "rf-list", "rf-list"]
    assert (table["trees"] == 3).all() and (table["cpu_seconds"] > 0).all() and (table["cores_held"] == 2).all()
    slow = timing_of({"x": 1.0}, trees=10, repeats=3)
    slow.loc[2, "cpu_seconds"] = 100.0  # one fit slowed down by something else
    assert seconds_per_tree(slow)["x"] == (pytest.approx(0.1), 3)


def test_curve_is_the_mean_over_the_runs_that_reached_each_round():
    def meta(train, valid):
        return {"fit_info": {"eval_history": {"train": {"ndcg@3": train}, "valid": {"ndcg@3": valid}}}}

    runs = {"gbm": {"Fold1": {"1": meta([0.1, 0.2, 0.3], [0.1, 0.15, 0.12])},
                    "Fold2": {"1": meta([0.3, 0.4], [0.2, 0.25])}}}
    table = curve_table(runs)
    valid = table[table["split"] == "valid"]
    np.testing.assert_allclose(valid["mean"], [0.15, 0.2, 0.12])
    assert list(valid["n_runs"]) == [2, 2, 1] and list(valid["round"]) == [1, 2, 3]
    assert valid["std_over_runs"].iloc[0] == pytest.approx(np.std([0.1, 0.2], ddof=1))
    with pytest.raises(ValueError, match="no eval_history"):
        curve_table({"rf": {"Fold1": {"1": {"fit_info": {}}}}})


def test_score_distributions_and_the_kolmogorov_smirnov_statistic_by_hand():
    rng = np.random.default_rng(4)
    a, b = rng.normal(0, 1, 300), rng.normal(0.4, 1.5, 250)
    table = score_distributions({"a": a, "b": b})
    grid = np.concatenate([a, b])
    by_hand = max(abs(np.mean(a <= x) - np.mean(b <= x)) for x in grid)  # sup |F_a - F_b| over the jump points
    assert table["ks_statistic"].iloc[0] == pytest.approx(by_hand, abs=1e-12)
    assert table["ks_p"].iloc[0] < 0.05 and list(table["n"]) == [300, 250]
    assert table.set_index("model").loc["b", "median"] == pytest.approx(np.median(b))
    same = score_distributions({"a": a, "a2": a.copy()})
    claim = [{"kind": "differ", "text": "t"}]
    tests = pd.concat([claim_tests("scores", same, claim), claim_tests("scores", table, claim)], ignore_index=True)
    judged = judge_claims(tests, engine.Policy())
    assert same["ks_statistic"].iloc[0] == 0
    assert list(judged["verdict"]) == [engine.NOT_REPRODUCED, engine.REPRODUCED]
    assert judged.loc[1, "p_adjusted"] == pytest.approx(min(1.0, 2 * table["ks_p"].iloc[0]))  # Holm over the two


def test_random_ranking_is_the_mean_over_every_order():
    labels = np.array([2, 0, 1, 0, 0, 1], dtype=np.int8)
    data = RankingData(X=np.zeros((6, 1), np.float32), labels=labels, query_offsets=np.array([0, 6]),
                       qids=np.array(["q"]), line_numbers=np.arange(1, 7))
    got = random_ranking_values({"Fold1": data}, ["ndcg@10", "map"], "letor4").set_index("metric")["value"]
    from ltrbv.metrics import evaluate

    totals = {"ndcg@10": 0.0, "map": 0.0}
    orders = list(itertools.permutations(range(6)))
    for order in orders:
        scores = np.empty(6)
        scores[list(order)] = np.arange(6, 0, -1)
        values = evaluate(scores, labels, data.query_offsets, ["ndcg@10", "map"], convention="letor4")
        for metric in totals:
            totals[metric] += values[metric][0] / len(orders)
    assert got["ndcg@10"] == pytest.approx(totals["ndcg@10"], rel=1e-12)
    assert got["map"] == pytest.approx(totals["map"], rel=1e-12)
    assert set(random_ranking_values({"Fold1": data}, ["map"], "letor4")["learner"]) == {RANDOM_RANKING}


def test_forest_reports_its_mean_tree():
    rng = np.random.default_rng(2)
    n = 200
    data = RankingData(X=rng.normal(size=(n, 4)).astype(np.float32), labels=rng.integers(0, 3, n).astype(np.int8),
                       query_offsets=np.arange(0, n + 1, 10), qids=np.arange(20).astype(str),
                       line_numbers=np.arange(1, n + 1))
    forest = RankingForest(splitting="point", n_estimators=6, subsample=0.5, min_samples_leaf=3).fit(data)
    info = forest.fit_info_
    trees = forest.trees_
    assert info["leaves_per_tree"] == pytest.approx(np.mean([t.n_leaves for t in trees]))
    assert info["rows_per_leaf"] == pytest.approx(np.mean([t.n_samples[t.feature < 0].mean() for t in trees]))
    assert info["leaf_score"] == pytest.approx(np.mean([t.value[t.feature < 0].mean() for t in trees]))
    assert info["depth"] == pytest.approx(np.mean([t.depth.max() for t in trees]))
    assert info["rows_per_leaf"] >= 3
    meta = {"rf": {"Fold1": {"1": {"kind": "random_forest", "params": {"n_estimators": 6}, "fit_seconds": 1.5,
                                   "fit_info": info}}}}
    row = fit_seconds(meta).iloc[0]
    assert row["trees"] == 6 and row["leaves_per_tree"] == info["leaves_per_tree"]


# -- the catalog through Snakemake ------------------------------------------------------------------------

ENTRIES = {
    "cmp": {"paper": "Ibrahim & Carman 2016", "artefact": "Table V", "kind": "compare", "paper_data": "MQ2008",
            "learners": ["rf-point", "rf-list"], "random_ranking": True, "seeds": [1, 2],
            "claims": [{"kind": "better", "learner": "rf-point", "than": "random ranking", "metric": "ndcg@10",
                        "text": "forest beats random"}]},
    "sw": {**SWEEP, "values": [1, 5, 20], "claims": [{"kind": "trend", "learner": "rf-point", "metric": "ndcg@10",
                                                      "direction": "decreasing", "text": "bigger leaves"},
                                                     {"kind": "faster", "learner": "rf-point", "at": 20,
                                                      "than_value": 1, "text": "bigger leaves, faster trees"}]},
    "crv": {"paper": "Ganjisaffar et al. 2011", "artefact": "Fig. 2", "kind": "curve", "learners": ["gbm"],
            "folds": "first"},
    "f11": {"paper": "Ibrahim & Carman 2016", "artefact": "Fig. 11", "kind": "sweep", "learners": ["share"],
            "param": "sample_fraction", "values": [0.3, 1.0]},
    "scr": {"paper": "Ganjisaffar et al. 2011", "artefact": "Fig. 3", "kind": "scores", "bag": "bag",
            "submodels": [0, 2], "claims": [{"kind": "differ", "text": "different scales"}]},
    "tgt": {"paper": "Ganjisaffar et al. 2011", "artefact": "Table 4", "kind": "target",
            "target": "tables/performance.md", "section": "run", "note": "the core run"},
    "off": {"paper": "Ibrahim & Carman 2016", "artefact": "Fig. 7", "kind": "target", "section": "diagnostics",
            "target": "figures/tree_strength.png", "note": "tree strength"},
    "grd": {"paper": "Ganjisaffar et al. 2011", "artefact": "Table 3", "kind": "grid", "learners": ["gbm"],
            "grid": {"max_leaves": [3, 7], "learning_rate": [0.1, 0.3]}, "sizes": [1, 2, 4], "folds": "first",
            "claims": [{"kind": "overfits", "text": "overfits"},
                       {"kind": "best_below", "param": "learning_rate", "value": 0.2, "text": "slow learning"}]},
}


@pytest.fixture(scope="module")
def catalog_run(tmp_path_factory):
    """The tiny catalog (compare, sweep, curve, scores, grid and target entries) run by Snakemake."""
    workdir = tmp_path_factory.mktemp("catalog")
    config = tiny_config(folds=("Fold1", "Fold2"), learners=FORESTS)
    config["run"]["learners"] = ["rf-point"]
    config["catalog"] = {"entries": ENTRIES}
    run(workdir, config, "results/tiny/catalog.md")
    return workdir, config


def test_catalog_page_lists_every_entry_with_a_verdict(catalog_run):
    workdir, _ = catalog_run
    page = (workdir / "results/tiny/catalog.md").read_text()
    for artefact in ("Table V", "Fig. 1", "Fig. 2", "Fig. 3", "Table 4", "Table 3"):
        assert f"| {artefact} |" in page
    assert "not run here" in page and "see its target" in page
    assert "section 'diagnostics' is off in this config" in page
    assert "Data: synthetic data (60 queries x ~10 documents, 12 features, labels 0-2; folds Fold1, Fold2)" in page
    assert re.search(r"\| (reproduced|not reproduced|contradicted|inconclusive) on tiny \(paper: MQ2008\) \|", page)
    # the page's family: the tested claims of every entry (the better, the trend, the differ claim; the grid's
    # two are descriptive), Holm-adjusted
    assert "Family: the 3 tested claim(s) of this page, Holm-adjusted, level 0.05" in page
    assert f"{engine.DESCRIPTIVE}: " in page
    tests = pd.read_csv(workdir / "results/tiny/catalog/sw.claims.csv")
    sweep = pd.read_csv(workdir / "results/tiny/catalog/sw.csv")
    assert list(tests["relation"].fillna("")) == ["trend", ""]
    assert tests["n"].iloc[0] == sweep["n_queries"].iloc[0] == 24  # the pooled test queries of both folds
    # the timing claim reads its own job's fits: both values' learners, 3 fits each, on a job holding both cores
    timing = pd.read_csv(workdir / "results/tiny/catalog/sw.timing.csv")
    assert timing.groupby("learner").size().to_dict() == {"rf-point": 3, "rf-point+min_samples_leaf-20": 3}
    assert (timing["cores_held"] == 2).all() and (timing["trees"] == 20).all() and (timing["cpu_seconds"] > 0).all()
    assert tests["untested"].iloc[1].startswith(engine.TIMING) and "median of 3 fits" in tests["measured"].iloc[1]
    (workdir / "catalog-page.md").write_text(page)
    # CPU seconds come from the benchmark files of the training jobs behind the entry
    rows = [line for line in page.splitlines() if line.startswith("| Ibrahim & Carman 2016 | Table V")]
    assert rows and rows[0].rstrip(" |").split("|")[-1].strip().replace(".", "").isdigit()


def test_sweep_numbers_equal_the_core_runs_per_query_metrics(catalog_run):
    """The sweep's value 1 is rf-point itself: its pooled mean equals the mean of the evaluate rule's per-query
    metrics (a separate path: rule evaluate, written for the core run)."""
    workdir, _ = catalog_run
    table = pd.read_csv(workdir / "results/tiny/catalog/sw.csv")
    metrics = pd.read_csv(workdir / "results/tiny/metrics/rf-point.csv", dtype={"qid": str})
    core = metrics[(metrics.metric == "ndcg@10") & (metrics.convention == "letor4")]["value"].mean()
    row = table[(table["value"] == 1) & (table["metric"] == "ndcg@10")].iloc[0]
    assert row["trained"] == "rf-point"
    assert row["mean"] == pytest.approx(core, abs=1e-11)  # the CSV keeps 12 significant digits
    assert set(table["trained"]) == {"rf-point", "rf-point-leaf5", "rf-point+min_samples_leaf-20"}
    assert (workdir / "results/tiny/catalog/sw.png").stat().st_size > 5000


def test_compare_table_has_both_seeds_and_a_random_row(catalog_run):
    workdir, _ = catalog_run
    table = pd.read_csv(workdir / "results/tiny/catalog/cmp.csv", dtype={"fold": str})
    pooled = table[table["fold"] == "all"]
    assert set(pooled["learner"]) == {"rf-point", "rf-list", RANDOM_RANKING}
    assert (workdir / "results/tiny/predictions/rf-list/Fold2/seed2/test.scores").exists()
    md = (workdir / "results/tiny/catalog/cmp.md").read_text()
    assert "## The paper's claims and their tests" in md and "leaves_per_tree" in md


def test_curve_follows_the_recorded_history(catalog_run):
    """The curve's single run is the learner's own recorded history (meta.json), round by round."""
    import json

    workdir, _ = catalog_run
    table = pd.read_csv(workdir / "results/tiny/catalog/crv.csv")
    meta = json.loads((workdir / "results/tiny/predictions/gbm/Fold1/seed1/meta.json").read_text())
    recorded = meta["fit_info"]["eval_history"]["valid"]["ndcg@3"]
    valid = table[table["split"] == "valid"]
    assert len(valid) == len(recorded) == 30
    np.testing.assert_allclose(valid["mean"], recorded, rtol=1e-11)
    assert not (workdir / "results/tiny/predictions/gbm/Fold2").exists()  # folds: first
    assert (workdir / "results/tiny/catalog/crv.png").stat().st_size > 5000


def test_a_sweep_of_a_bags_share_trains_through_the_bag_rules(catalog_run):
    """Fig. 11's training-set sizes: the bag of one at 30% trains its sub-model on 30% of the queries."""
    import json

    workdir, _ = catalog_run
    table = pd.read_csv(workdir / "results/tiny/catalog/f11.csv")
    assert set(table["trained"]) == {"share", "share+sample_fraction-0.3"}
    meta = json.loads((workdir / "results/tiny/predictions/share+sample_fraction-0.3/Fold1/seed1/meta.json")
                      .read_text())
    full = json.loads((workdir / "results/tiny/predictions/share/Fold1/seed1/meta.json").read_text())
    assert meta["submodel_train_queries"][0] == round(0.3 * full["submodel_train_queries"][0])
    assert table["fit_seconds"].gt(0).all()
    page = (workdir / "results/tiny/catalog.md").read_text()
    row = next(line for line in page.splitlines() if "| Fig. 11 |" in line)
    assert "jobs unrecorded" not in row  # the bag rules' benchmark files are found


def test_scores_are_the_sub_models_own_files(catalog_run):
    workdir, _ = catalog_run
    table = pd.read_csv(workdir / "results/tiny/catalog/scr.csv")
    sub2 = np.loadtxt(workdir / "results/tiny/bags/bag/Fold1/seed1/sub2/vali.scores")
    row = table.set_index("model").loc["sub2"]
    assert row["n"] == sub2.size and row["mean"] == pytest.approx(sub2.mean(), rel=1e-11)
    assert not (workdir / "results/tiny/bags/bag/Fold1/seed1/sub1").exists()  # only the sub-models asked for


def test_grid_ranks_each_combination_by_its_own_validation_scores(catalog_run):
    """A separate path: each combination's validation and test NDCG@3 from its score files and the parsed folds,
    through ltrbv.metrics; the best of all 4 is the best by validation; the best of 1 is the mean."""
    from ltrbv.data.cache import load_cache
    from ltrbv.io import read_scores
    from ltrbv.metrics import evaluate

    workdir, _ = catalog_run
    table = pd.read_csv(workdir / "results/tiny/catalog/grd.csv")
    combos = table[table["part"] == "combination"]
    assert len(combos) == 4 and set(combos["learner"]) == {
        "gbm+learning_rate-0.1+max_leaves-3", "gbm+learning_rate-0.3+max_leaves-3",
        "gbm+learning_rate-0.1+max_leaves-7", "gbm+learning_rate-0.3+max_leaves-7"}
    for row in combos.itertuples():
        for split, column in (("vali", "validation"), ("test", "test")):
            data = load_cache(workdir / f"results/tiny/parsed/Fold1/{split}.npz")
            scores = data.from_file_order(read_scores(
                workdir / f"results/tiny/predictions/{row.learner}/Fold1/seed1/{split}.scores", n_expected=data.n_docs))
            value = evaluate(scores, data.labels, data.query_offsets, ["ndcg@3"], convention="letor4")["ndcg@3"]
            assert getattr(row, column) == pytest.approx(float(np.mean(value)), abs=1e-11)
    curve = table[table["part"] == "best of k"].set_index("k")
    assert curve.loc[1, "test"] == pytest.approx(combos["test"].mean(), abs=1e-11)
    best = combos[combos["validation"] == combos["validation"].max()]
    assert curve.loc[4, "test"] == pytest.approx(best["test"].mean(), abs=1e-11)
    md = (workdir / "results/tiny/catalog/grd.md").read_text()
    assert "Table 3" in md and "Best of k" in md and (workdir / "results/tiny/catalog/grd.png").stat().st_size > 5000


def test_second_run_does_nothing(catalog_run):
    workdir, config = catalog_run
    result = run(workdir, config, "results/tiny/catalog.md", "--dry-run")
    assert "Nothing to be done" in result.stdout + result.stderr


# -- the shipped layouts ----------------------------------------------------------------------------------

LAYOUTS = {  # as docs/catalog.md and config/catalog.yaml give them
    "mq2008": ["mq2008.yaml", "active-mq2008.yaml", "catalog.yaml"],
    "demo": ["demo.yaml", "active-demo.yaml", "catalog.yaml", "catalog-small.yaml"],
    "mslr-synth": ["mslr-synth.yaml", "catalog.yaml", "catalog-small.yaml"],
    "paper": ["paper.yaml", "catalog.yaml", "catalog-paper.yaml"],
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_every_shipped_catalog_layout_plans_every_entry(layout):
    """Each documented command passes the config checks and plans every entry's outputs and the page (a dry
    run on placeholder folds where the real data would be); an entry of the paper's that only says why it
    cannot run would have no output."""
    import yaml

    from conftest import REPO
    from ltrbv.workflow.plan import dry_run

    files = [str(REPO / "config" / name) for name in LAYOUTS[layout]]
    jobs, counts, _ = dry_run(files, placeholders=True)
    catalog = yaml.safe_load((REPO / "config" / "catalog.yaml").read_text())["catalog"]["entries"]
    planned = {job.rule for job in jobs}
    assert {"catalog_compare", "catalog_sweep", "catalog_curve", "catalog_grid", "catalog_scores",
            "catalog_page"} <= planned
    assert all(entry["kind"] != "unavailable" for entry in catalog.values())
    made = {job.get("entry") for job in jobs if job.rule.startswith("catalog_")}
    assert made - {None} == {name for name, entry in catalog.items() if entry["kind"] in WITH_JOB}
