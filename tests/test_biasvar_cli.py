"""``ltrbv biasvar`` against direct loop transcriptions of Ibrahim (2021) eq. 5-8, 11, 14-17.

The oracle below is plain Python over lists, written from the paper's text and independent
of ltrbv.biasvar: brute-force NDCG (gain 2^l - 1, discount 1/log2(r + 1), ties in input
order) and AP, the pointwise and listwise estimators, and two deliberately wrong variants
(no |.|_+, factor 1/M) that must differ, so the comparison can fail.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from ltrbv.cli import main
from ltrbv.data.letor import NonContiguousQueryWarning

# -- the oracle --------------------------------------------------------------------------


def ranking(scores):
    """Document positions by descending score; ties keep input order."""
    return sorted(range(len(scores)), key=lambda i: -scores[i])


def brute_ndcg(scores, labels, k=None):
    order = ranking(scores)[:k]
    dcg = sum((2 ** labels[d] - 1) / math.log2(r + 2) for r, d in enumerate(order))
    ideal = sorted(labels, reverse=True)[:k]
    idcg = sum((2**l - 1) / math.log2(r + 2) for r, l in enumerate(ideal))
    return dcg / idcg if idcg > 0 else None


def brute_ap(scores, labels):
    hits, total = 0, 0.0
    for r, d in enumerate(ranking(scores), start=1):
        if labels[d] >= 1:
            hits += 1
            total += hits / r
    n_relevant = sum(1 for l in labels if l >= 1)
    return total / n_relevant if n_relevant else None


MEASURES = {"ndcg": brute_ndcg, "map": brute_ap, "ndcg@10": lambda s, l: brute_ndcg(s, l, 10)}


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs)


def model_groups(n_models, method):
    if method == "bootstrap":
        return [list(range(n_models))]
    return [[2 * j, 2 * j + 1] for j in range(n_models // 2)]


def oracle_pointwise(models, labels, method):
    """Eq. 5 and 6 (bootstrap: one group of B) or eq. 7 and 8 (twofold: J pairs)."""
    bias_per_group, variance_per_group = [], []
    for group in model_groups(len(models), method):
        M = len(group)
        bias_terms, variance_terms = [], []
        for k in range(len(labels)):
            fbar = sum(models[i][k] for i in group) / M
            bias_terms.append((labels[k] - fbar) ** 2)
            variance_terms.append(sum((models[i][k] - fbar) ** 2 for i in group) / (M - 1))
        bias_per_group.append(mean(bias_terms))
        variance_per_group.append(mean(variance_terms))
    return mean(bias_per_group), mean(variance_per_group)


def oracle_listwise(queries, labels, models, method, metric="ndcg", positive_part=True,
                    divide_by_m=False):
    """(SRE, VRE, ranking error): eq. 14-15 / 16-17 and eq. 11, over queries with a defined
    metric.  ``queries``: lists of document positions."""
    measure = MEASURES[metric]

    def m(scores, q):
        return measure([scores[d] for d in q], [labels[d] for d in q])

    sre_per_group, vre_per_group = [], []
    for group in model_groups(len(models), method):
        M = len(group)
        fbar = [sum(models[i][d] for i in group) / M for d in range(len(labels))]
        sre_q, vre_q = [], []
        for q in queries:
            m_bar = m(fbar, q)
            if m_bar is None:
                continue
            sre_q.append(1 - m_bar)
            total = 0.0
            for i in group:
                difference = m_bar - m(models[i], q)
                total += max(0.0, difference) if positive_part else difference
            vre_q.append(total / (M if divide_by_m else M - 1))
        sre_per_group.append(mean(sre_q))
        vre_per_group.append(mean(vre_q))
    errors = []
    for q in queries:
        per_model = [m(models[i], q) for i in range(len(models))]
        if per_model[0] is not None:
            errors.append(mean(1 - x for x in per_model))
    return mean(sre_per_group), mean(vre_per_group), mean(errors)


# -- fixtures ------------------------------------------------------------------------------


def random_study(rng, n_queries=7, n_models=6, interleave=True):
    """Lines of a LETOR file (queries interleaved so file order != row order), the queries as
    lists of line positions, labels per line and scores per model per line (ties included:
    scores are rounded to one decimal)."""
    sizes = rng.integers(3, 12, size=n_queries)
    qid_of_line = np.repeat(np.arange(n_queries), sizes)
    if interleave:
        qid_of_line = rng.permutation(qid_of_line)
    n = qid_of_line.size
    labels = rng.integers(0, 3, size=n)
    labels[qid_of_line == 0] = 0  # a query without relevant documents
    lines = [
        f"{labels[i]} qid:{100 + qid_of_line[i]} 1:{rng.normal():.4f} 2:{rng.normal():.4f}"
        for i in range(n)
    ]
    scores = np.round(rng.normal(size=(n_models, n)) + 0.4 * labels, 1)
    queries = [list(np.flatnonzero(qid_of_line == q)) for q in range(n_queries)]
    return lines, queries, labels.tolist(), scores


def write_study(tmp_path, lines, scores):
    data = tmp_path / "test.txt"
    data.write_text("\n".join(lines) + "\n")
    score_paths = []
    for i, row in enumerate(scores):
        path = tmp_path / f"model{i + 1}.txt"
        path.write_text("".join(f"{v!r}\n" for v in row.tolist()))
        score_paths.append(str(path))
    return str(data), score_paths


def run_cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore", NonContiguousQueryWarning)
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


# -- tests -----------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["bootstrap", "twofold"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_biasvar_equals_the_loop_transcription_of_the_equations(tmp_path, method, seed):
    rng = np.random.default_rng(seed)
    lines, queries, labels, scores = random_study(rng, n_models=6)
    data, score_paths = write_study(tmp_path, lines, scores)
    per_query_csv = tmp_path / "per_query.csv"
    code, out, err = run_cli("biasvar", "--data", data, "--method", method, "--scores", *score_paths,
                             "--metric", "ndcg", "--metric", "map,ndcg@10", "--resamples", 200,
                             "--per-query", per_query_csv, "--convention", "standard")
    assert code == 0, err
    report = json.loads(out)
    models = scores.tolist()

    bias2, variance = oracle_pointwise(models, labels, method)
    assert report["bias2"] == pytest.approx(bias2, rel=1e-12)
    assert report["variance"] == pytest.approx(variance, rel=1e-12)
    assert report["n_models"] == 6 and report["n_queries"] == 7 and report["n_docs"] == len(labels)
    with_relevant = sum(1 for rows in queries if max(labels[i] for i in rows) > 0)
    assert report["listwise_n_queries"] == report["metrics"]["ndcg"]["n_queries"] == with_relevant

    for metric in ("ndcg", "map", "ndcg@10"):
        sre, vre, error = oracle_listwise(queries, labels, models, method, metric)
        reported = report["metrics"][metric]
        assert reported["sre"] == pytest.approx(sre, rel=1e-12, abs=1e-15)
        assert reported["vre"] == pytest.approx(vre, rel=1e-12, abs=1e-15)
        assert reported["ranking_error"] == pytest.approx(error, rel=1e-12, abs=1e-15)
        assert reported["n_queries"] == 6  # the query without relevant documents is excluded
        _, vre_signed, _ = oracle_listwise(queries, labels, models, method, metric, positive_part=False)
        assert reported["vre_signed"] == pytest.approx(vre_signed, rel=1e-12, abs=1e-15)
    assert report["metric"] == "ndcg"
    for name in ("sre", "vre", "ranking_error"):
        assert report[name] == report["metrics"]["ndcg"][name]

    table = pd.read_csv(per_query_csv, dtype={"qid": str})
    assert len(table) == 7 * 3
    assert table.groupby("metric")["sre"].mean()["ndcg"] == pytest.approx(report["metrics"]["ndcg"]["sre"])
    assert table["vre"].isna().sum() == 3  # qid 100 has no relevant document, for each metric


@pytest.mark.parametrize("method", ["bootstrap", "twofold"])
def test_positive_part_and_the_m_minus_1_factor_matter(tmp_path, method):
    """A case where dropping |.|_+ or dividing by M instead of M-1 changes the result; the
    reported VRE matches only the paper's form, so this test can fail."""
    rng = np.random.default_rng(11)
    lines, queries, labels, scores = random_study(rng, n_models=4)
    data, score_paths = write_study(tmp_path, lines, scores)
    code, out, err = run_cli("biasvar", "--data", data, "--method", method, "--scores", *score_paths,
                             "--resamples", 50, "--convention", "standard")
    assert code == 0, err
    vre = json.loads(out)["vre"]
    models = scores.tolist()
    _, paper, _ = oracle_listwise(queries, labels, models, method)
    _, no_positive_part, _ = oracle_listwise(queries, labels, models, method, positive_part=False)
    _, divided_by_m, _ = oracle_listwise(queries, labels, models, method, divide_by_m=True)
    assert abs(paper - no_positive_part) > 1e-3
    assert abs(paper - divided_by_m) > 1e-3
    assert vre == pytest.approx(paper, rel=1e-12)
    assert vre != pytest.approx(no_positive_part, rel=1e-6)
    assert vre != pytest.approx(divided_by_m, rel=1e-6)
    _, pointwise_variance = oracle_pointwise(models, labels, method)
    assert json.loads(out)["variance"] == pytest.approx(pointwise_variance, rel=1e-12)


def test_listwise_ndcg_agrees_with_pytrec_eval():
    """trec_eval's ndcg has linear gain and discount 1/log2(r + 1): with qrels 2^l - 1 it is
    the standard convention's NDCG; its 'map' counts relevance >= 1 like ours."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from ltrbv.biasvar.listwise import per_query_metric_of_rows

    rng = np.random.default_rng(5)
    sizes = rng.integers(2, 30, size=12)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    labels = rng.integers(0, 5, size=offsets[-1])
    labels[offsets[3]:offsets[4]] = np.maximum(labels[offsets[3]:offsets[4]], 1)
    scores = rng.normal(size=(3, offsets[-1]))  # distinct: trec_eval breaks ties by docno
    values = per_query_metric_of_rows(scores, labels, offsets, ("ndcg", "map"), "standard")
    for metric, trec_name in (("ndcg", "ndcg"), ("map", "map")):
        for r in range(3):
            qrels, run = {}, {}
            for q in range(sizes.size):
                rows = range(offsets[q], offsets[q + 1])
                gain = (lambda l: int(2**l - 1)) if metric == "ndcg" else (lambda l: int(l))
                qrels[f"q{q}"] = {f"d{i}": gain(labels[i]) for i in rows}
                run[f"q{q}"] = {f"d{i}": float(scores[r, i]) for i in rows}
            trec = pytrec_eval.RelevanceEvaluator(qrels, {trec_name}).evaluate(run)
            for q in range(sizes.size):
                if labels[offsets[q]:offsets[q + 1]].max() > 0:
                    assert values[metric][r, q] == pytest.approx(trec[f"q{q}"][trec_name], abs=1e-6)


def test_cli_errors_name_the_problem(tmp_path):
    rng = np.random.default_rng(3)
    lines, _, _, scores = random_study(rng, n_models=3)
    data, score_paths = write_study(tmp_path, lines, scores)

    code, _, err = run_cli("biasvar", "--data", data, "--method", "twofold", "--scores", *score_paths)
    assert code == 2 and "even number" in err and "3" in err

    code, _, err = run_cli("biasvar", "--data", data, "--method", "bootstrap", "--scores", score_paths[0])
    assert code == 2 and "at least 2" in err

    short = tmp_path / "short.txt"
    short.write_text("".join(f"{v}\n" for v in scores[0][:-1]))
    code, _, err = run_cli("biasvar", "--data", data, "--method", "bootstrap", "--scores",
                           score_paths[0], short)
    assert code == 2 and str(short) in err and "documents" in err

    code, _, err = run_cli("biasvar", "--data", data, "--method", "bootstrap", "--scores",
                           *score_paths, "--metric", "err@10")
    assert code == 2 and "err@10" in err

    code, _, err = run_cli("biasvar", "--data", tmp_path / "missing.txt", "--method", "bootstrap",
                           "--scores", *score_paths)
    assert code == 2 and "missing.txt" in err
