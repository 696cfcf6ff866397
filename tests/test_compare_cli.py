"""``ltrbv compare`` on three rankers' score files: its p-values equal scipy's (t-test: exactly;
randomisation test: within Monte-Carlo error), its adjusted p-values equal a Holm transcription and
scipy's Benjamini-Hochberg; on synthetic data (always) and on MQ2008 Fold1 test (where present)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from conftest import MQ2008, require
from ltrbv.cli import main
from ltrbv.data.letor import read_letor
from ltrbv.data.synthetic import SyntheticSpec, write_letor_split
from ltrbv.io import write_scores
from test_compare import holm_transcription

SPEC = SyntheticSpec(n_queries=300, docs_per_query=12, n_features=12, n_informative=5, n_query_level=1, seed=3)
METRICS = ["ndcg@10", "map", "p@10"]


@pytest.fixture(scope="module")
def synthetic_fold(tmp_path_factory):
    root = tmp_path_factory.mktemp("synthetic")
    return write_letor_split(root / "train.txt", SPEC, 1, "train"), write_letor_split(root / "test.txt", SPEC, 1, "test")


def score_files(train_path, test_path, out_dir):
    """Three rankers: a least-squares linear model, the single best feature, the linear model plus noise."""
    train, test = read_letor(train_path), read_letor(test_path)
    weights, *_ = np.linalg.lstsq(np.c_[train.X, np.ones(train.n_docs)], train.labels.astype(float), rcond=None)
    linear = np.c_[test.X, np.ones(test.n_docs)] @ weights
    correlation = [abs(np.corrcoef(train.X[:, j], train.labels)[0, 1]) if train.X[:, j].std() > 0 else 0
                   for j in range(train.n_features)]
    feature = test.X[:, int(np.argmax(correlation))].astype(float)
    noisy = linear + np.random.default_rng(0).normal(0, 2 * linear.std(), test.n_docs)
    paths = []
    for name, scores in (("linear", linear), ("feature", feature), ("noisy", noisy)):
        paths.append(out_dir / f"{name}.scores")
        write_scores(paths[-1], test.to_file_order(scores))
    return paths


def run(capsys, *args):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def per_query(capsys, test_path, scores_path, out_dir):
    """The per-query values by the other command, ``ltrbv evaluate --per-query``."""
    out = out_dir / f"{scores_path.stem}.per_query.csv"
    assert run(capsys, "evaluate", test_path, scores_path, "--convention", "letor4", "--metrics",
               ",".join(METRICS), "--per-query", out)[0] == 0
    return pd.read_csv(out, dtype={"qid": str}).set_index("qid")


@pytest.mark.parametrize("source", ["synthetic", pytest.param("mq2008", marks=pytest.mark.realdata)])
def test_compare_p_values_equal_scipy(source, synthetic_fold, tmp_path, capsys):
    if source == "mq2008":
        train_path, test_path = (require(MQ2008 / "Fold1" / f"{split}.txt") for split in ("train", "test"))
    else:
        train_path, test_path = synthetic_fold
    paths = score_files(train_path, test_path, tmp_path)
    values = {p.stem: per_query(capsys, test_path, p, tmp_path) for p in paths}
    reports = {}
    for correction in ("holm", "bh"):
        code, out, err = run(capsys, "compare", "--data", test_path, "--scores", *paths, "--metrics",
                             " ndcg@10,map,p@10", "--convention", "letor4", "--correction", correction,
                             "--permutations", 20000, "--json")
        assert code == 0, err
        reports[correction] = json.loads(out)
    report = reports["holm"]
    assert report["baseline"] == "linear" and report["metrics"] == METRICS and report["correction"] == "holm"
    rows = {(r["system"], r["metric"]): r for r in report["rows"]}
    bh_rows = {(r["system"], r["metric"]): r for r in reports["bh"]["rows"]}
    n_queries = len(values["linear"])
    for metric in METRICS:
        base = values["linear"][metric].to_numpy()
        assert rows[("linear", metric)]["mean"] == pytest.approx(base.mean(), rel=1e-9)
        raw_t, raw_rand = [], []
        for system in ("feature", "noisy"):
            row = rows[(system, metric)]
            other = values[system][metric].to_numpy()
            assert row["n_queries"] == n_queries and row["mean"] == pytest.approx(other.mean(), rel=1e-9)
            scipy_t = stats.ttest_rel(other, base)
            assert row["t"] == pytest.approx(scipy_t.statistic, rel=1e-9)
            assert row["p_t"] == pytest.approx(scipy_t.pvalue, rel=1e-9)
            scipy_rand = stats.permutation_test((other, base), lambda x, y, axis: np.mean(x - y, axis=axis),
                                                permutation_type="samples", n_resamples=20000, vectorized=True,
                                                random_state=1).pvalue
            assert abs(row["p_randomisation"] - scipy_rand) < (
                5 * np.sqrt(max(scipy_rand * (1 - scipy_rand), 1 / 20000) * 2 / 20000) + 2 / 20000), (system, metric)
            d = other - base
            assert (row["wins"], row["ties"], row["losses"]) == ((d > 0).sum(), (d == 0).sum(), (d < 0).sum())
            assert row["cohens_d"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-9)
            assert row["difference_ci_low"] < d.mean() < row["difference_ci_high"]
            raw_t.append(row["p_t"])
            raw_rand.append(row["p_randomisation"])
        holm_t = [rows[(s, metric)]["p_t_adjusted"] for s in ("feature", "noisy")]
        np.testing.assert_allclose(holm_t, holm_transcription(raw_t), rtol=1e-12)
        holm_rand = [rows[(s, metric)]["p_randomisation_adjusted"] for s in ("feature", "noisy")]
        np.testing.assert_allclose(holm_rand, holm_transcription(raw_rand), rtol=1e-12)
        bh_t = [bh_rows[(s, metric)]["p_t_adjusted"] for s in ("feature", "noisy")]
        np.testing.assert_allclose(bh_t, stats.false_discovery_control(raw_t, method="bh"), rtol=1e-12)
    # the noisy ranker is clearly worse than the model it perturbs
    assert rows[("noisy", "ndcg@10")]["difference"] < 0 and rows[("noisy", "ndcg@10")]["p_t_adjusted"] < 0.05


def test_compare_writes_table_csv_latex_and_plot(synthetic_fold, tmp_path, capsys):
    paths = score_files(*synthetic_fold, tmp_path)
    outputs = {"csv": tmp_path / "out" / "cmp.csv", "latex": tmp_path / "cmp.tex", "plot": tmp_path / "cmp.png"}
    code, out, err = run(capsys, "compare", "--data", synthetic_fold[1], "--scores", *paths, "--baseline", "noisy",
                         "--names", "lin,feat,noisy", "--metrics", "ndcg@10,err@10", "--correction", "bh",
                         "--convention", "standard",
                         "--permutations", 500, "--csv", outputs["csv"], "--latex", outputs["latex"],
                         "--plot", outputs["plot"])
    assert code == 0, err
    assert "baseline **noisy**" in out and "Benjamini-Hochberg-corrected over the 2 comparison(s)" in out
    assert "| lin |" in out and "wins/ties/losses" in out
    table = pd.read_csv(outputs["csv"])
    assert list(table["system"].unique()) == ["lin", "feat", "noisy"] and set(table["metric"]) == {"ndcg@10", "err@10"}
    assert set(table["correction"]) == {"bh"} and table.loc[table.system == "noisy", "p_t"].isna().all()
    latex = outputs["latex"].read_text()
    assert r"\begin{tabular}{lrr}" in latex and r"\toprule" in latex and "Benjamini-Hochberg" in latex
    assert latex.count(r"\\") == 4  # header and three systems
    assert outputs["plot"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(tmp_path.glob(".*.tmp")) and not list((tmp_path / "out").glob(".*.tmp"))


@pytest.mark.parametrize("args, message", [
    (["--scores", "{a}"], "--scores needs at least 2 score files"),
    (["--metrics", "nDCG@10,mrr"], "--metrics: metric 'mrr' is ranx's name; under the trec_eval convention write "
                                   "'RR'"),
    (["--metrics", "ndcg@10"], "--metrics: metric 'ndcg@10' is ambiguous"),
    (["--metrics", "nDCG@10", "--convention", "letor4"], "--metrics: metric 'nDCG@10' is trec_eval's"),
    (["--metrics", "map@10"], "--metrics: unknown metric 'map@10'"),
    (["--ties", "input-order"], "ties='input-order': the trec_eval convention orders tied scores as trec_eval"),
    (["--baseline", "nope"], "--baseline 'nope' is neither a system name"),
    (["--names", "x,y"], "--names: expected 3 comma-separated"),
    (["--names", "x,x,y"], "--names: names must be unique"),
    (["--csv", "{a}"], "--csv {a}: is an input of this command"),
    (["--csv", "{tmp}/o.txt", "--latex", "{tmp}/o.txt"], "--latex {tmp}/o.txt: also given to --csv"),
    (["--plot", "{tmp}"], "--plot {tmp}: is a directory"),
    (["--permutations", "0"], "--permutations must be >= 1"),
    (["--resamples", "0"], "--resamples must be >= 1"),
    (["--level", "1.5"], "--level must be in (0, 1)"),
    (["--convention", "trec"], "unknown metric convention 'trec'"),
    (["--scores", "{a}", "{short}"], "short.scores"),
    (["--data", "{tmp}/missing.txt"], "missing.txt"),
])
def test_compare_refuses_bad_input_naming_it(args, message, synthetic_fold, tmp_path, capsys):
    paths = score_files(*synthetic_fold, tmp_path)
    (tmp_path / "short.scores").write_text("0.5\n0.25\n")
    fill = {"a": paths[0], "tmp": tmp_path, "short": tmp_path / "short.scores"}
    base = {"--data": str(synthetic_fold[1]), "--scores": [str(p) for p in paths]}
    rest, i = [], 0
    while i < len(args):
        option = args[i]
        values = []
        i += 1
        while i < len(args) and not args[i].startswith("--"):
            values.append(args[i].format(**fill))
            i += 1
        if option in base:
            base[option] = values if option == "--scores" else values[0]
        else:
            rest += [option, *values]
    argv = ["compare", "--data", base["--data"], "--scores", *base["--scores"], *rest]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("ltrbv compare: error: ") and message.format(**fill) in err
    assert err.count("\n") == 1, err
